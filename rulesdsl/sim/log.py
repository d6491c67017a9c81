"""Game logs: write a played game to JSON, and replay a log move by move, verifying that it matches."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .. import budget
from ..backends.compiled.build import with_backend
from ..engine.load import argument_problems, load_game
from ..engine.serialize import encode, parse_json, shown
from ..errors import GameRuntimeError, Location, MoveError, Problem, RulesError
from ..limits import GAME_SECONDS, MAX_LOG_BYTES
from ..source import read_bytes
from ..bundle import RuleBundle, bundle_json, read_bundle
from .records import LOG_FORMAT, LOG_HINT, check_log, read_text, rules_label, rules_of


def state_digest(state) -> str:
    """A fingerprint of a state (its JSON form), for checking that a replay ends where the game did."""
    data = state.to_json()
    data.pop("history", None)
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def file_digest(path) -> str | None:
    try:  # read as a rule file is: never more than one past its size limit
        return hashlib.sha256(read_bytes(path)).hexdigest()[:16]
    except RulesError:
        return None


def make_log(game, record, final_state, bundle: RuleBundle | None = None) -> dict:
    """The log of one game: which rules (`bundle`, the rules it was played with: else read from the game's file
    now), variant, options, seed and agents, every move, and the result."""
    bundle = bundle or read_bundle(game.path)
    return {
        "rulesdsl_log": LOG_FORMAT,
        "game": game.name,
        "file": rules_label(game.path),
        "file_sha256": file_digest(game.path),
        "variant": game.variant,
        "options": game.options,
        "max_turns": game.max_turns,
        "seed": record.seed,
        "rng": record.rng,
        "agents": record.agents,
        "moves": record.moves,
        "result": {"winners": record.winners, "scores": [encode(s) for s in record.scores],
                   "plies": record.plies, "turns": record.turns, "capped": record.capped},
        "final_state": state_digest(final_state),
        "rules": bundle_json(bundle),  # the log replays wherever it is moved, with no other file
    }


def read_log(path) -> dict:
    """A game log, read as untrusted data: every field is checked before use."""
    text = read_text(path, LOG_HINT + "; results files by 'rulesdsl simulate --out'", MAX_LOG_BYTES)
    return check_log(parse_json(text, str(path), hint=LOG_HINT), path, text)


def replay(log: dict, source: str = "log", rules_path=None, where: Location | None = None,
           backend: str = "python") -> tuple:
    """Re-run a logged game; returns (final state, list of mismatches). Raises on an illegal move.

    `source` is the log's path. The rules are those the log carries; a log without them names a rule file, read
    only if it is a bundled game or lies in the log's folder (see records.rules_of); `rules_path` overrides
    both. `where` locates the log in messages (a line of a results file). `backend` plays it (python, compiled
    or auto, as api.load_game)."""
    where = where or Location(str(source))
    path = rules_path or rules_of(log, source, where)
    game = _game_of(path, log.get("variant"), log.get("options") or {}, log.get("max_turns"), where, backend)
    problems = []
    if rules_path is None and not isinstance(path, RuleBundle) and log.get("file_sha256") and \
            file_digest(path) != log["file_sha256"]:
        problems.append("the rule file has changed since the game was logged")
    try:
        state = _replayed(game, log, where)
    except GameRuntimeError as exc:  # the rule file's problem, met while replaying this log
        raise exc.with_hint(f"replaying {where}") from None
    result = log.get("result") or log  # results files keep the outcome at the top level
    if state.terminal != (result.get("winners") is not None):
        problems.append("the replay does not end where the log does")
    if list(state.winners or []) != list(result.get("winners") or []):
        problems.append(f"winners differ: log {result.get('winners')}, replay {state.winners}")
    if log.get("final_state") and state_digest(state) != log["final_state"]:
        problems.append("the final position differs from the logged one")
    return state, problems


def replay_positions(log: dict, source: str) -> tuple:
    """(the game a log names, every position of the logged game, the start first): for stepping through it.
    The rule file is found as replay() finds it; a move that does not replay is the log's problem."""
    where = Location(str(source))
    game = _game_of(rules_of(log, source, where), log.get("variant"), log.get("options") or {}, log.get("max_turns"),
                    where)
    positions = []
    _replayed(game, log, where, lambda state: positions.append(state.clone()))
    return game, positions


def _replayed(game, log: dict, where: Location, keep=None):
    """The state after the logged moves (each position also given to `keep`); a move that does not replay is
    the log's problem."""
    try:
        state = game.new_initial_state(log.get("seed"))
    except MoveError as exc:  # e.g. a logged option that makes the opening impossible
        raise RulesError([Problem(f"the game it names cannot start: {exc.reason}", where, exc.hint)]) from None
    if keep is not None:
        keep(state)
    try:
        for i, text in enumerate(log["moves"]):
            text, player = _seat_of(text, game.num_players, i, where)
            try:
                state.apply(state.parse_move(text, player))
            except MoveError as exc:
                raise RulesError([Problem(f"move {i + 1} {shown(text)} does not replay: {exc.reason}", where,
                                          exc.hint)]) from None
            if keep is not None:
                keep(state)
    except budget.TimeBudgetExceeded as exc:  # it arrived between two calls of rule code: the step is to blame
        raise state.stopped(exc) from None
    return state


budget.total(_replayed, GAME_SECONDS, "the game's moves together")


_games: dict = {}  # (rule file, variant, options, turn cap) -> Game: every line of a results file shares one


def logged_game(log: dict, source: str, rules_path=None, where: Location | None = None, backend: str = "python"):
    """The game a log was played with (found as replay() finds it), on `backend`: compiled once per process."""
    where = where or Location(str(source))
    path = rules_path or rules_of(log, source, where)
    return _game_of(path, log.get("variant"), log.get("options") or {}, log.get("max_turns"), where, backend)


def _game_of(path, variant, options: dict, max_turns, where: Location, backend: str = "python"):
    """The game a log names (a rule file, or the RuleBundle it carries), compiled once per process (on
    `backend`); a variant or option the file lacks is the log's problem."""
    digest = path.digest if isinstance(path, RuleBundle) else file_digest(path)  # an edited file is compiled afresh
    key = (digest if isinstance(path, RuleBundle) else str(path), digest, variant, tuple(sorted(options.items())),
           max_turns, backend)
    if key not in _games:
        if len(_games) >= 32:  # lines naming ever other options must not fill the memory
            _games.clear()
        wrong = argument_problems(path, variant, options)
        if wrong:
            name = Path(path.files[0][0] if isinstance(path, RuleBundle) else path).name
            raise RulesError([Problem(f"{wrong[0]} (in {name})", where, wrong[1])])
        _games[key] = with_backend(load_game(path, variant, options, max_turns), backend)
    return _games[key]


def _seat_of(text: str, players: int, i: int, where: Location) -> tuple:
    """A logged entry split into (move, seat): '@1 bid 3' is seat 1's simultaneous choice."""
    if not text.startswith("@"):
        return text, None
    seat, _, move = text[1:].partition(" ")
    if not (seat.isascii() and seat.isdigit()) or len(seat) > 3 or int(seat) >= players:
        raise RulesError([Problem(f"move {i + 1} {shown(text)} names no seat of this game (0 to {players - 1})",
                                  where, "a simultaneous choice is written '@SEAT MOVE', e.g. '@1 bid 3'")])
    return move, int(seat)
