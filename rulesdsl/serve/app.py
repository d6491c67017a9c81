"""The playground's web server: the page, its static files, and JSON endpoints over a Workspace."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from ..errors import MoveError, RulesDslError, RulesError, UsageError
from .workspace import Refused, Workspace


STATIC = Path(__file__).resolve().parent / "static"
MAX_REQUEST_BYTES = 2 * 1024 * 1024  # an edited rule file and its settings, with room to spare
INSTALL_HINT = "pip install 'rulesdsl[serve]'"


def available() -> bool:
    """Whether the web libraries of the extra 'serve' are installed (looked up, not imported: every rulesdsl
    command would pay for importing them)."""
    return all(importlib.util.find_spec(name) is not None for name in ("starlette", "uvicorn"))


def create_app(folder: str | Path, first_file: str | None = None, host: str = "127.0.0.1"):
    """The Starlette app serving the playground of `folder` (opening `first_file`, relative to it, first),
    answering requests addressed to this machine or to `host`, the address it listens on."""
    from starlette.applications import Starlette  # the optional extra 'serve'
    from starlette.concurrency import run_in_threadpool
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.responses import FileResponse, JSONResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    workspace = Workspace(folder)

    async def index(request):
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    def endpoint(handler):
        """A JSON endpoint: the request's JSON body in, the handler's dict out; the mistakes a user can make
        come back as {"error": ...} with status 400, never a traceback."""
        async def run(request):
            # JSON only: a page of another site cannot send it without the browser asking first (CORS), and
            # nothing here answers that question, so no web page can play, read or save through this server
            if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
                return JSONResponse({"error": "send JSON (Content-Type: application/json)"}, status_code=415)
            body = await request.body()
            if len(body) > MAX_REQUEST_BYTES:
                return JSONResponse({"error": "request too large"}, status_code=413)
            try:
                data = json.loads(body or b"{}")
                if not isinstance(data, dict) or not isinstance(data.get("options") or {}, dict):
                    raise Refused("send a JSON object (with options as an object)")
                return JSONResponse(await run_in_threadpool(handler, data))  # rule code may take its budget
            except KeyError as exc:
                return JSONResponse({"error": f"missing field {exc}"}, status_code=400)
            except (Refused, UsageError, json.JSONDecodeError) as exc:
                return JSONResponse({"error": str(exc)}, status_code=400)
            except MoveError as exc:
                return JSONResponse({"error": exc.reason, "kind": exc.kind, "hint": exc.hint}, status_code=400)
            except RulesError as exc:
                return JSONResponse({"error": exc.format()}, status_code=400)
            except RulesDslError as exc:  # a rule that fails during play, a budget overrun
                return JSONResponse({"error": str(exc)}, status_code=400)
        return run

    def config(data):
        return {"first": first_file, "folder": workspace.root.name, **workspace.files()}

    def read(data):
        return {"path": data["path"], "text": workspace.read(str(data["path"]))}

    def save(data):
        workspace.save(str(data["path"]), str(data["text"]))
        return {"saved": data["path"]}

    def validate(data):
        return workspace.validate(str(data["path"]), str(data["text"]), data.get("variant") or None,
                                  data.get("options") or None)

    def new(data):
        number, session = workspace.new_game(str(data["path"]), data.get("text"), _int(data.get("seed", 0)),
                                             [str(s) for s in data.get("seats") or []] or None,
                                             data.get("variant") or None, data.get("options") or None)
        return dict(session.view(_viewer(data, session)), session=number)

    def in_session(change):
        """An endpoint on a game: `change(session, data)` (an extra for the answer, or None), then the view."""
        def run(data):
            session = workspace.session(_int(data["session"]))
            with session.lock:
                extra = change(session, data)
                return dict(session.view(_viewer(data, session)), **(extra or {}))
        return run

    state = in_session(lambda session, data: None)
    move = in_session(lambda session, data: session.play(str(data["move"])))
    click = in_session(lambda session, data: {"click": session.click([str(c) for c in data.get("cells") or []])})
    undo = in_session(lambda session, data: {"undone": session.undo()})

    def replay(data):
        number, count = workspace.replay(str(data["path"]), _int(data.get("game", 0)))
        return dict(workspace.replay_view(number, 0), replay=number)

    def replay_step(data):
        number = _int(data["replay"])
        return dict(workspace.replay_view(number, _int(data.get("ply", 0))), replay=number)

    def report(data):
        return {"report": workspace.report(str(data["path"]))}

    def simulate(data):
        number = workspace.simulate(str(data["path"]), data.get("text"), _int(data.get("games", 100)),
                                    [str(a) for a in data.get("agents") or []], _int(data.get("seed", 0)),
                                    data.get("variant") or None, data.get("options") or None)
        return {"simulation": number}

    def simulation(data):
        return workspace.simulation(_int(data["simulation"]))

    api = {"config": config, "read": read, "save": save, "validate": validate, "new": new, "state": state,
           "move": move, "click": click, "undo": undo, "replay": replay, "replay_step": replay_step,
           "report": report, "simulate": simulate, "simulation": simulation}
    routes = [Route("/", index)] + [Route(f"/api/{name}", endpoint(fn), methods=["POST"]) for name, fn in api.items()]
    routes.append(Mount("/static", StaticFiles(directory=STATIC), name="static"))
    # only requests addressed to this machine by name: a site whose name is made to point here (DNS
    # rebinding) is refused
    hosts = ["127.0.0.1", "localhost"] + ([host] if host not in ("0.0.0.0", "::") else ["*"])
    return Starlette(routes=routes, middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=hosts)])


def _int(value) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        raise Refused(f"expected a whole number, not {str(value)[:20]!r}") from None


def _viewer(data, session) -> int | None:
    """The seat whose view is shown: the one asked for, else the human to move, else (all agents) the table."""
    viewer = data.get("viewer")
    if viewer not in (None, ""):
        seat = _int(viewer)
        return seat if 0 <= seat < session.game.num_players else None
    return session.human_to_move()
