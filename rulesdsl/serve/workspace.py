"""What the playground serves, without the web: the folder's files, and checks, games, replays and simulations
run as jobs in the runner's jails, kept for the client that asked for them."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Location, Problem, RulesError
from ..jail import JobKilled
from ..limits import MAX_FILE_BYTES
from ..resources import package_dir
from . import work
from .caps import Caps
from .folder import LOG_SUFFIXES, RULE_SUFFIXES, Folder, Refused
from .kept import Kept
from .runner import Pool
from .session import HUMAN
from .simulations import Simulations


class Forbidden(Exception):
    """A request this client may not make (viewing a seat it does not play): told to the browser as it is."""


@dataclass
class _Game:
    """A game kept for its client: what it is played from, and its record so far (see Session.record)."""

    source: work.Source
    seed: int
    seats: tuple
    record: dict | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one request at a time moves it


class Workspace:
    """The playground of one folder: only files under it are read or written; every rule file is run as
    untrusted input (sandboxed compiled code, under the budgets), in the runner's jails, never here.
    `view_as`: a client may view a game as any seat, not only as the seats it plays. `copies`: the folder is read
    only (the installed package's games), and Save writes a copy of the file into this folder instead."""

    def __init__(self, folder: str | Path, caps: Caps = Caps(), view_as: bool = False, copies: str | Path | None = None):
        self.folder = Folder(folder, caps.path_chars)
        self.root = self.folder.root
        self.copies = Folder(copies, caps.path_chars) if copies is not None else None
        # the bundled games, offered read-only in any folder (a folder without rule files lists them)
        self.bundled = Folder(package_dir("games"), caps.path_chars)
        self.caps, self.view_as = caps, view_as
        self.pool = Pool(caps.workers, caps.queued)
        self.games = Kept(caps.games_per_client, caps.games, caps.idle_seconds)
        self.replays = Kept(caps.replays_per_client, caps.replays, caps.idle_seconds)
        self.simulations = Simulations(caps)
        self._files = ThreadPoolExecutor(2, thread_name_prefix="rulesdsl-serve-files")  # quick, but never here

    def start(self) -> None:
        """Start the jails' children now (a fork each, while this process runs one thread), not at their first jobs."""
        self.simulations.start_children()
        self.pool.start()  # (the last: it starts the workers' threads too)

    def close(self) -> None:
        """Stop the jails' children, and what runs in them."""
        self.pool.close()
        self.simulations.close()
        self._files.shutdown(wait=False)

    async def _job(self, fn, *args, what: str, source: work.Source | None = None, file: tuple | None = None):
        """fn(*args) run by a worker of the pool, within the time of one request. A job about `source` goes to the
        jail that ran the last one about it (where its game is compiled, and its games are in play), as does one
        about `file` (path, name: a log or results file); a stop is located in it as the playground names files."""
        home = source.key if source is not None else file[0] if file is not None else None
        future = self.pool.submit(fn, *args, seconds=self.caps.request_seconds, what=what, home=home)
        try:
            return await asyncio.wrap_future(future)
        except JobKilled as exc:
            if source is not None:
                raise source.named(exc) from None
            raise (work.named(exc, *file) if file is not None else exc) from None

    async def _file(self, fn, *args):
        return await asyncio.get_running_loop().run_in_executor(self._files, fn, *args)

    # -- files ---------------------------------------------------------------------------------
    async def files(self) -> dict:
        found = await self._file(self.folder.files)
        bundled = await self._file(self.bundled.files)
        return dict(found, bundled=bundled["rules"])

    def _of(self, bundled: bool) -> Folder:
        return self.bundled if bundled else self.folder

    async def read(self, relative: str, bundled: bool = False) -> str:
        return await self._file(self._of(bundled).read, relative)

    async def save(self, relative: str, text: str, bundled: bool = False) -> str | None:
        """Save the editor's text; in a read-only folder, as a copy: then the path of the copy, else None. A
        bundled game is saved as a new file of the served folder (of the copies' folder when it is read-only)."""
        if self.copies is None and not bundled:
            await self._file(self.folder.save, relative, text)
            return None
        self._of(bundled).path(relative)  # a file of the folder it is read from, or refused
        into = self.copies or self.folder
        if bundled and await self._file(_exists, into.path(relative)):
            raise Refused(f"{into.path(relative)} is there already: open it, or rename it to save a new copy of "
                          f"the bundled {relative}")
        await self._file(into.save, relative, text)
        return str(into.path(relative))

    async def source(self, relative: str, text: str | None, variant: str | None, options: dict | None,
                     bundled: bool = False) -> work.Source:
        """The rule file a request names (a bundled game's, when `bundled`), with the editor's text (else the
        saved one)."""
        path = self._of(bundled).path(relative)
        if path.suffix not in RULE_SUFFIXES:
            raise Refused(f"{relative!r} is no rule file (.yaml)")
        if text is None:
            text = await self.read(relative, bundled)
        if len(text.encode("utf-8")) > MAX_FILE_BYTES:
            raise RulesError([Problem(f"the file is larger than {MAX_FILE_BYTES:,} bytes", Location(relative),
                                      code="limit_exceeded", fields={"limit": "MAX_FILE_BYTES"})])
        return work.Source(str(path), relative, text, variant, json.dumps(options or {}, sort_keys=True))

    # -- validation ----------------------------------------------------------------------------
    async def validate(self, source: work.Source) -> dict:
        """The problems `validate` reports for the edited text, and what the game offers when it compiles."""
        try:
            return await self._job(work.check, source, what=f"checking {source.name}", source=source)
        except JobKilled as exc:
            where = exc.where
            problem = {"file": where.file, "line": where.line, "column": where.col, "code": "limit_exceeded",
                       "severity": "error", "message": exc.message, "hint": exc.hint, "here": where.file == source.name}
            return {"file": source.name, "ok": False, "summary": None, "variants": {}, "problems": [problem]}

    # -- games ---------------------------------------------------------------------------------
    async def new_game(self, client: str, source: work.Source, seed: int, seats: list[str] | None,
                       viewer: int | None) -> dict:
        """A new game of the (edited) rule file, kept for `client`; its first view, with its token."""
        game = _Game(source, seed, tuple(seats or ()))
        token = self.games.add(client, game)  # Full before any work is done
        try:
            return await self._step(client, token, game, "state", None, viewer)
        except BaseException:
            self.games.discard(client, token)
            raise

    async def game_step(self, client: str, token, action: str, argument, viewer: int | None,
                        at: int | None = None) -> dict:
        """A step of a kept game ('state', 'move', 'click', 'undo') at position `at` (None: the last; see
        work.game_action); its view after it."""
        return await self._step(client, token, self.games.get(client, token), action, argument, viewer, at)

    async def _step(self, client: str, token: str, game: _Game, action: str, argument, viewer: int | None,
                    at: int | None = None) -> dict:
        async with game.lock:
            humans = [p for p, seat in enumerate(game.seats) if seat == HUMAN] if game.seats else [0]
            if viewer is not None and not self.view_as and viewer not in humans:
                raise Forbidden(f"you do not play seat {viewer}: a game is seen as its human seats see it "
                                "(rulesdsl serve --allow-view-as shows any seat)")
            found = await self._job(work.game_action, game.source, game.seed, game.seats, game.record, action,
                                    argument, viewer, self.view_as, at, what=f"a game of {game.source.name}",
                                    source=game.source)
            if not game.seats:  # the default seats, as the session chose them
                game.seats = tuple(found["view"]["seats"])
            game.record = found["record"]
        return dict(found["view"], session=token)

    # -- replays and reports -------------------------------------------------------------------
    async def replay(self, client: str, relative: str, index: int) -> dict:
        """Open a game log, or game `index` of a results file, at its start, kept for `client`."""
        path = str(self.folder.data_file(relative, LOG_SUFFIXES, "log or results file"))
        view = await self._job(work.replay_view, path, index, 0, what=f"replaying {relative}", file=(path, relative))
        return dict(view, replay=self.replays.add(client, (path, index, relative)))

    async def replay_step(self, client: str, token, ply: int) -> dict:
        path, index, relative = self.replays.get(client, token)
        view = await self._job(work.replay_view, path, index, ply, what=f"replaying {relative}",
                               file=(path, relative))
        return dict(view, replay=token)

    async def report(self, relative: str) -> str:
        """The HTML balance report of a results file of the folder (`rulesdsl report --format html`)."""
        path = str(self.folder.data_file(relative, (".jsonl",), "results file (.jsonl)"))
        return await self._job(work.report, path, what=f"reporting on {relative}", file=(path, relative))

    # -- simulations ---------------------------------------------------------------------------
    async def simulate(self, client: str, source: work.Source, games: int, agents: list[str], seed: int,
                       saved: bool) -> str:
        """Start a batch of games in the background, kept for `client`; its token. `saved`: the text is the
        saved file's (the report says so, else that it played unsaved edits)."""
        if not 1 <= games <= self.caps.simulated_games:
            raise Refused(f"simulate 1 to {self.caps.simulated_games:,} games")
        await self._job(work.check_agents, source, tuple(agents), what=f"checking the agents for {source.name}",
                        source=source)
        played_with = source.name if saved else f"{source.name} (unsaved edits)"
        return self.simulations.start(client, source, tuple(agents), seed, games, played_with)

    def simulation(self, client: str, token) -> dict:
        return self.simulations.get(client, token).as_json()

    def stop(self, client: str, token) -> dict:
        """Ask a simulation to stop: its thread ends within moments, and the simulation says it was stopped."""
        simulation = self.simulations.get(client, token)
        simulation.stop_asked = simulation.running
        return simulation.as_json()

    async def saved(self, source: work.Source, bundled: bool = False) -> bool:
        """Whether a source's text is what its file holds."""
        try:
            return await self.read(source.name, bundled) == source.text
        except Refused:
            return False


def _exists(path: Path) -> bool:
    return path.exists() or path.is_symlink()
