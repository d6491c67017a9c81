"""The playground's web server: the page, its static files, and JSON endpoints over a Workspace, each answering
bad input with a 4xx and a JSON error, never a traceback."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import re
import secrets
import sys
from pathlib import Path

from ..errors import MoveError, RulesDslError, RulesError
from ..jail import JobKilled
from . import fields
from .caps import Caps
from .crash import crash_note
from .folder import Refused
from .hosts import allowed_hosts
from .kept import Full, NotFound
from .runner import Busy
from .workspace import Forbidden, Workspace

STATIC = Path(__file__).resolve().parent / "static"
TUTORIAL = Path(__file__).resolve().parents[2] / "docs" / "tutorial.md"  # beside the package, in a checkout
TUTORIAL_ELSEWHERE = ("The tutorial (docs/tutorial.md) comes with rulesdsl's source, not with the installed package: "
                      "read it there. It writes a game from scratch, one step at a time.\n")
INSTALL_HINT = "pip install 'rulesdsl[serve]'"
COOKIE = "rulesdsl_client"  # who a client is: the games, replays and simulations it made are its alone
_TOKEN = re.compile(r"[A-Za-z0-9_-]{32,64}")


def available() -> bool:
    """Whether the web libraries of the extra 'serve' are installed (looked up, not imported: every rulesdsl
    command would pay for importing them)."""
    return all(importlib.util.find_spec(name) is not None for name in ("starlette", "uvicorn"))


class _Answer(Exception):
    """A request answered with an error before it is read: its status and answer."""

    def __init__(self, status: int, body: dict):
        super().__init__(body["error"])
        self.status, self.body = status, body


def create_app(folder: str | Path, first_file: str | None = None, host: str = "127.0.0.1", *,
               caps: Caps = Caps(), view_as: bool = False, hosts: list[str] | None = None,
               copies: str | Path | None = None):
    """The Starlette app serving the playground of `folder` (opening `first_file`, relative to it, first),
    answering requests addressed to this machine, to `host` (the address it listens on) or to `hosts`.
    `view_as`: clients may view their games as any seat; `copies`: `folder` is read-only, Save writes copies into
    this folder. Its Workspace is `app.state.workspace`: its jails start
    with their first jobs unless started before (Workspace.start), and stop when the app shuts down."""
    from starlette.applications import Starlette  # the optional extra 'serve'
    from starlette.middleware import Middleware
    from starlette.middleware.trustedhost import TrustedHostMiddleware
    from starlette.requests import ClientDisconnect
    from starlette.responses import Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    workspace = Workspace(folder, caps, view_as, copies)
    page = (STATIC / "index.html").read_bytes()  # served from memory: the page never waits for a thread

    def answer(body: dict, status: int = 200, headers: dict | None = None) -> Response:
        try:  # escaped as ASCII: a lone surrogate in a game's name cannot break the answer
            text = json.dumps(body, ensure_ascii=True, allow_nan=False, separators=(",", ":"))
        except ValueError:  # a number JSON cannot carry (a rule file's infinite coordinate)
            text, status = json.dumps({"error": "the answer holds a number JSON cannot carry (infinite, or not a "
                                               "number): look at the numbers of the rule file's pictures"}), 400
        return Response(text, status, headers, media_type="application/json")

    def client_of(request) -> tuple[str, bool]:
        """The client's token from its cookie, or a new one (then True: the answer sets the cookie)."""
        token = request.cookies.get(COOKIE, "")
        return (token, False) if _TOKEN.fullmatch(token) else (_new_token(), True)

    def with_cookie(response: Response, client: str, fresh: bool) -> Response:
        if fresh:
            response.set_cookie(COOKIE, client, httponly=True, samesite="strict", path="/")
        return response

    async def tutorial(request):
        """The tutorial, as text (docs/tutorial.md of a checkout), or where to find it."""
        found = TUTORIAL.is_file()
        text = TUTORIAL.read_bytes() if found else TUTORIAL_ELSEWHERE.encode("utf-8")
        return Response(text, headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"},
                        media_type="text/plain; charset=utf-8")

    async def index(request):
        client, fresh = client_of(request)
        headers = {"Cache-Control": "no-store", "X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
                   "Content-Security-Policy": "frame-ancestors 'none'"}
        return with_cookie(Response(page, headers=headers, media_type="text/html"), client, fresh)

    def endpoint(name: str, handler):
        """A JSON endpoint: the request's JSON body in, the handler's dict out. A mistake of the request or of
        a file is a 4xx with {"error": ...}; anything unexpected a JSON error naming a crash file."""
        async def run(request):
            client, fresh = client_of(request)
            try:
                # JSON only: a page of another site cannot send it without the browser asking first (CORS), and
                # nothing here answers that question, so no web page can play, read or save through this server
                if request.headers.get("content-type", "").split(";")[0].strip() != "application/json":
                    raise _Answer(415, {"error": "send JSON (Content-Type: application/json)"})
                if name in _JOBS and workspace.pool.full():  # said before the body is read: a flood costs little
                    raise Busy()
                data = fields.request_data(await _body(request, caps.request_bytes))
                response = answer(await handler(data, client))
            except _Answer as exc:
                response = answer(exc.body, exc.status)
            except Refused as exc:
                response = answer({"error": str(exc)}, 400)
            except Forbidden as exc:
                response = answer({"error": str(exc)}, 403)
            except NotFound:
                response = answer({"error": _NOT_FOUND[name]}, 404)
            except (Busy, Full) as exc:
                busy = str(exc) or "the playground is busy with other requests"
                response = answer({"error": f"{busy}: try again in a moment"}, 503,
                                  {"Retry-After": str(caps.retry_after)})
            except MoveError as exc:
                response = answer({"error": exc.reason, "kind": exc.kind, "hint": exc.hint}, 400)
            except JobKilled as exc:  # a crash, a step of C code too long, memory filled: the jail's child stopped
                where = exc.where
                response = answer({"error": exc.format(), "reason": exc.reason, "location": {
                    "file": where.file, "line": where.line, "column": where.col} if where else None}, 400)
            except RulesError as exc:
                response = answer({"error": exc.format()}, 400)
            except RulesDslError as exc:  # a rule that fails during play, a budget overrun, a stopped job
                response = answer({"error": str(exc)}, 400)
            except ClientDisconnect:  # nobody is left to answer
                response = Response(status_code=400)
            except Exception as exc:  # noqa: BLE001 - a bug of ours: one line and a crash file, as the CLI does
                note = crash_note(exc, f"answering /api/{name}")
                print(note, file=sys.stderr)
                response = answer({"error": note, "internal": True}, 500)  # no input of a user's comes here
            return with_cookie(response, client, fresh)
        return run

    async def config(data, client):
        copies = str(workspace.copies.root) if workspace.copies is not None else None
        return {"first": first_file, "folder": workspace.root.name, "view_as": view_as, "copies_to": copies,
                **await workspace.files()}

    # `bundled`: the path names a bundled game (read-only), not a file of the served folder
    async def read(data, client):
        path = fields.text_field(data, "path")
        return {"path": path, "text": await workspace.read(path, fields.flag(data, "bundled"))}

    async def save(data, client):
        path = fields.text_field(data, "path")
        copy = await workspace.save(path, fields.text_field(data, "text", limit=caps.request_bytes),
                                    fields.flag(data, "bundled"))
        return {"saved": path} if copy is None else {"saved": path, "copy": copy}

    async def source(data):
        return await workspace.source(fields.text_field(data, "path"),
                                      fields.optional_text(data, "text", caps.request_bytes),
                                      fields.optional_text(data, "variant"), fields.json_object(data, "options"),
                                      fields.flag(data, "bundled"))

    async def validate(data, client):
        return await workspace.validate(await source(data))

    async def new(data, client):
        return await workspace.new_game(client, await source(data), fields.whole_number(data, "seed", 0),
                                        fields.text_list(data, "seats") or None, fields.viewer_field(data))

    def in_game(action, argument=lambda data: None):
        async def run(data, client):
            at = fields.optional_number(data, "at", least=0)  # a position of the game: 0 is its start
            return await workspace.game_step(client, fields.token_field(data, "session"), action, argument(data),
                                             fields.viewer_field(data), at)
        return run

    async def replay(data, client):
        return await workspace.replay(client, fields.text_field(data, "path"), fields.whole_number(data, "game", 0))

    async def replay_step(data, client):
        return await workspace.replay_step(client, fields.token_field(data, "replay"),
                                           fields.whole_number(data, "ply", 0))

    async def report(data, client):
        return {"report": await workspace.report(fields.text_field(data, "path"))}

    async def simulate(data, client):
        found = await source(data)
        token = await workspace.simulate(client, found, fields.whole_number(data, "games", 100),
                                         fields.text_list(data, "agents"), fields.whole_number(data, "seed", 0),
                                         await workspace.saved(found, fields.flag(data, "bundled")))
        return {"simulation": token}

    async def simulation(data, client):
        return workspace.simulation(client, fields.token_field(data, "simulation"))

    async def stop(data, client):
        return workspace.stop(client, fields.token_field(data, "simulation"))

    api = {"config": config, "read": read, "save": save, "validate": validate, "new": new,
           "state": in_game("state"),
           "move": in_game("move", lambda data: fields.text_field(data, "move", fields.MAX_SHORT_TEXT)),
           "click": in_game("click", lambda data: fields.text_list(data, "cells")), "undo": in_game("undo"),
           "replay": replay, "replay_step": replay_step, "report": report, "simulate": simulate,
           "simulation": simulation, "stop": stop}
    routes = [Route("/", index), Route("/tutorial", tutorial)] + [Route(f"/api/{name}", endpoint(name, fn), methods=["POST"])
                                    for name, fn in api.items()]
    routes.append(Mount("/static", StaticFiles(directory=STATIC), name="static"))
    # only requests addressed to this machine by name: a site whose name is made to point here (DNS
    # rebinding) is refused, on any address the server listens on
    allowed = allowed_hosts(host, hosts or [])

    @contextlib.asynccontextmanager
    async def lifespan(app):
        yield
        workspace.close()
    app = Starlette(routes=routes, middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=allowed)],
                    lifespan=lifespan)
    app.state.workspace = workspace
    return app


# the endpoints whose answer is a job of the pool (those that run rule code)
_JOBS = frozenset({"validate", "new", "state", "move", "click", "undo", "replay", "replay_step", "report", "simulate"})
# what a client is told of a game, replay or simulation that is not (or no longer) its own
_GONE_GAME = "no such game (the server was restarted, or the game was let go for newer ones): start a new game"
_GONE_SIMULATION = "no such simulation (the server was restarted, or it was let go for newer ones): run it again"
_NOT_FOUND = {"state": _GONE_GAME, "move": _GONE_GAME, "click": _GONE_GAME, "undo": _GONE_GAME,
              "replay_step": "no such replay (the server was restarted, or it was let go): open the log again",
              "simulation": _GONE_SIMULATION, "stop": _GONE_SIMULATION}


def _new_token() -> str:
    return secrets.token_urlsafe(32)


async def _body(request, limit: int) -> bytes:
    """The request's body, refused (413) when larger than `limit`: from its Content-Length before reading it,
    and, sent without one, as soon as more has come."""
    length = request.headers.get("content-length")
    if length is not None:
        if not (length.isascii() and length.isdigit()) or len(length) > 15:
            raise _Answer(400, {"error": f"Content-Length is not a number of bytes: {length[:20]!r}"})
        if int(length) > limit:
            raise _Answer(413, {"error": f"the request is larger than {limit:,} bytes"})
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise _Answer(413, {"error": f"the request is larger than {limit:,} bytes"})
        chunks.append(chunk)
    return b"".join(chunks)
