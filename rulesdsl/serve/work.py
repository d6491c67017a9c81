"""The playground's rule code: module-level functions of plain data (picklable arguments and results, never a
game or state), so that they run in whichever process the runner gives them; each process keeps what it
compiled and the games it played last, keyed by the rule text's hash, and plays a game back when it has not."""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path

from ..agents import make_agent
from ..bundle import read_bundle
from ..engine.load import compile_game
from ..errors import Location, MoveError, Problem, RulesDslError, UsageError
from ..findings import FileReport, as_json, check_file
from ..jail import JobKilled
from ..loading import load_document
from ..sim.compare import BASE
from ..sim.log import read_log, replay_positions
from ..sim.records import numbered_results
from ..sim.report import analyse, analysed
from ..sim.report_html import render
from ..sim.simulate import RunSpec, Summary, agent_names, play_one, prepared
from .panel import last_move
from .scene import Scene
from .session import Session

KEPT_GAMES = 8  # compiled games kept per process (of the rule texts used last)
KEPT_SESSIONS = 64  # games in play kept per process; any other is played back from its record
KEPT_REPLAYS = 8  # logs and results files' games kept stepped through


@dataclass(frozen=True)
class Source:
    """A rule file as the playground runs it: where it is (its `extends:` are resolved from there), its name in
    the served folder (as problems name it), its text (maybe unsaved), and the variant and options chosen."""

    path: str
    name: str
    text: str
    variant: str | None = None
    options: str = "{}"  # a JSON object, keys sorted: hashable, and the same text for the same options

    @cached_property
    def key(self) -> tuple:
        """What decides the compiled game: the same key, the same game."""
        digest = hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest()
        return self.path, digest, self.variant, self.options

    def options_dict(self) -> dict:
        return json.loads(self.options)

    def named(self, stop: JobKilled) -> JobKilled:
        """A jail's stop of a job on this source, located as the playground names files (see named)."""
        return named(stop, self.path, self.name)


def named(stop: JobKilled, path: str, name: str) -> JobKilled:
    """A jail's stop of a job on the file at `path`, located as the playground names files (as check() does: `name`
    for this one, the base name for a file it reads): at the rule that was running, else at the file."""
    where = stop.where or Location(name)
    file = name if where.file in (path, name) else Path(where.file).name
    return JobKilled(stop.what, stop.reason, Location(file, where.line, where.col), stop.rule, stop.detail)


class _Lru:
    """A small table of the latest few values, safe to share between the threads of one process."""

    def __init__(self, size: int):
        self.size, self._items, self._lock = size, OrderedDict(), threading.Lock()

    def take(self, key, remove: bool = False):
        with self._lock:
            value = self._items.pop(key, None) if remove else self._items.get(key)
            if value is not None and not remove:
                self._items.move_to_end(key)
            return value

    def put(self, key, value) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)


_games = _Lru(KEPT_GAMES)
_sessions = _Lru(KEPT_SESSIONS)
_replays = _Lru(KEPT_REPLAYS)


def _game(source: Source):
    game = _games.take(source.key)
    if game is None:
        game = compile_game(load_document(source.path, text=source.text), source.path, source.variant,
                            source.options_dict())
        _games.put(source.key, game)
    return game


# -- checking ---------------------------------------------------------------------------------------------
def check(source: Source) -> dict:
    """What `validate` finds in the (edited) text (file, line, column, code, severity, message, hint, and
    whether it is in this text or in a file it extends), and what the game offers when it compiles."""
    try:
        report = check_file(source.path, source.variant, source.options_dict(), text=source.text)
    except RulesDslError as exc:  # a budget or limit met while loading
        report = FileReport(source.name, problems=[Problem(str(exc), Location(source.name), code="limit_exceeded")])
    report.file = source.name
    found = json.loads(as_json([report]))["files"][0]
    for problem in found["problems"]:  # located in the edited text, or in another file (an overlay's base)
        problem["here"] = problem["file"] in (source.path, source.name)
        problem["file"] = source.name if problem["here"] else Path(problem["file"]).name
    game = report.game
    if game is not None:
        _games.put(source.key, game)
        rules = game.rules
        found["game"] = {"name": game.name, "players": game.player_names, "variants": rules.variants,
                         "options": {k: {f: v for f, v in (spec or {}).items() if f in ("default", "choices",
                                                                                     "type", "help")}
                                     for k, spec in rules.option_specs.items()}}
    return found


# -- games ------------------------------------------------------------------------------------------------
def game_action(source: Source, seed: int, seats: tuple, record: dict | None, action: str, argument,
                viewer: int | None, table: bool, at: int | None = None) -> dict:
    """One step of a playground game given as plain data (its source, seed, seats and record; None: a new
    game): `action` is 'state', 'move' (argument: the move's text), 'click' (argument: the cells clicked) or
    'undo'. `at`: the position (a number of plies) the page shows, None the last: 'state' shows it, and a move
    there (a click that plays one) drops the later plies, as undo does; nothing else changes the game. The
    answer: the game's new record, and its view as `viewer` sees it (None: the human to move, else, unless
    `table`, the first human seat; else the table), with what the action tells."""
    game = _game(source)
    if viewer is not None and not 0 <= viewer < game.num_players:
        raise UsageError(f"{game.name} has no seat {viewer}: its seats are 0 to {game.num_players - 1}")
    key = (source.key, seed, seats, _frozen(record))
    session = _sessions.take(key, remove=True) if record is not None else None  # in this thread's hands now
    if session is None:
        session = Session(game, seed, list(seats), record)
    extra = {}
    # a move at an earlier position is made in a branch of the game cut back to it; any other step back is a view
    earlier = at is not None and at < len(session.plies) and action in ("move", "click")
    try:
        played = session.branch(at) if earlier else session
        if action == "move":
            played.play(argument)
        elif action == "click":
            extra["click"] = played.click(argument)
        elif action == "undo":
            extra["undone"] = played.undo()
    except MoveError:  # refused before anything changed: the game is as it was
        _sessions.put(key, session)
        raise
    if earlier and (action == "move" or "play" in extra["click"]):
        session = played  # played from an earlier position: the later plies are dropped
    shown = at if action == "state" or earlier and played is not session else None
    new = session.record()
    _sessions.put((source.key, seed, seats, _frozen(new)), session)
    if viewer is None:  # (at an earlier position: the human to move there)
        viewer = session.human_to_move(session.position(shown) if shown is not None else None)
        humans = [p for p, agent in enumerate(session.agents) if agent is None]
        if viewer is None and humans and not table:
            viewer = humans[0]
    return {"record": new, "view": dict(session.view(viewer, shown), **extra)}


def _frozen(record: dict | None) -> tuple | None:
    return None if record is None else (tuple(record["plies"]), tuple(record["humans"]), record["since"])


# -- replays and reports ----------------------------------------------------------------------------------
def replay_view(path: str, index: int, ply: int) -> dict:
    """Position `ply` (clamped to the game) of a game log, or of game `index` of a results file (.jsonl), with
    how many plies the game has."""
    file = Path(path)
    stat = file.stat()
    key = (path, index, stat.st_mtime_ns, stat.st_size)
    kept = _replays.take(key)
    if kept is None:
        if file.suffix == ".jsonl":
            carried = {}
            lines = [line for _, line in numbered_results(file, carried)]
            if not 0 <= index < len(lines):
                raise UsageError(f"{file.name} holds {len(lines)} games: choose 0 to {len(lines) - 1}")
            log = dict(lines[index], rules=carried.get(lines[index].get("rules_sha256")))
        else:
            log = read_log(file)
        game, positions = replay_positions(log, str(file))
        kept = (Scene(game.rules), positions)
        _replays.put(key, kept)
    scene, positions = kept
    ply = max(0, min(ply, len(positions) - 1))
    state = positions[ply]
    view = scene.of(state, None)
    history = state.history_texts()
    view["panel"]["last"] = last_move(scene.of(positions[ply - 1], None) if ply > 0 else None, view, history)
    view.update(ply=ply, plies=len(positions) - 1, history=history, told=history[-1:], legal=[])
    return view


def report(path: str) -> str:
    """The HTML balance report of a results file (`rulesdsl report --format html`), read with the rules it carries
    (or, in an older file, the rule file it names, which must lie beside it or be a bundled game)."""
    return render(analyse(path))


# -- simulations ------------------------------------------------------------------------------------------
def check_agents(source: Source, agents: tuple) -> None:
    """UsageError unless `agents` name one known agent (with known settings) per seat of the game."""
    game = _game(source)
    if len(agents) != game.num_players:
        raise UsageError(f"{game.name} has {game.num_players} players: name one agent per seat")
    for agent in agents:
        try:
            make_agent(agent)
        except ValueError as exc:
            raise UsageError(str(exc)[:300]) from None


def _spec(source: Source, agents: tuple, seed: int) -> RunSpec:
    options = tuple(sorted(source.options_dict().items()))
    spec = RunSpec(source.path, source.variant, options, None, agents, seed)
    return prepared(replace(spec, bundle=read_bundle(source.path, source.text)))


def play_games(source: Source, agents: tuple, seed: int, indices: list[int]) -> list[dict]:
    """Games `indices` of a simulation as the lines `simulate --out` writes (the same games as the command's
    with this seed)."""
    spec = _spec(source, agents, seed)
    return [play_one(spec, index) for index in indices]


def summarise(source: Source, agents: tuple, lines: list[dict], played_with: str, seconds: float) -> dict:
    """The summary `simulate` prints of a simulation's lines, and its HTML balance report."""
    game = _game(source)
    summary = Summary(game.name, source.variant, agent_names(agents), game.player_names, cap=game.max_turns,
                      cap_source=game.cap_source, own_returns=game.rules.returns is not None)
    for line in lines:
        summary.add(line)
    summary.elapsed = seconds
    page = render(analysed(lines, {source.variant or BASE: game}, "a playground simulation", played_with))
    return {"summary": summary.format(), "report": page}
