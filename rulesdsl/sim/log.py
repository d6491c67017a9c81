"""Game logs: write a played game to JSON, and replay a log move by move, verifying that it matches."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..engine.serialize import encode
from ..errors import Location, MoveError, Problem, RulesError

LOG_FORMAT = 1


def state_digest(state) -> str:
    """A fingerprint of a state (its JSON form), for checking that a replay ends where the game did."""
    data = state.to_json()
    data.pop("history", None)
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]


def file_digest(path) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
    except OSError:
        return None


def make_log(game, record, final_state) -> dict:
    """The log of one game: which rules, variant, options, seed and agents, every move, and the result."""
    return {
        "rulesdsl_log": LOG_FORMAT,
        "game": game.name,
        "file": game.path,
        "file_sha256": file_digest(game.path),
        "variant": game.variant,
        "options": game.options,
        "max_turns": game.max_turns,
        "seed": record.seed,
        "agents": record.agents,
        "moves": record.moves,
        "result": {"winners": record.winners, "scores": [encode(s) for s in record.scores],
                   "plies": record.plies, "turns": record.turns, "capped": record.capped},
        "final_state": state_digest(final_state),
    }


def read_log(path) -> dict:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise RulesError([Problem(f"cannot read log: {exc.strerror or exc}", Location(str(path)),
                                  "give a log written by 'rulesdsl play --log' or a results file from "
                                  "'rulesdsl simulate --out'")]) from None
    except json.JSONDecodeError as exc:
        raise RulesError([Problem(f"not a JSON log: {exc.msg}", Location(str(path), exc.lineno, exc.colno))]) from None
    if not isinstance(data, dict) or data.get("rulesdsl_log") != LOG_FORMAT:
        raise RulesError([Problem("not a rulesdsl game log", Location(str(path)),
                                  "logs are written by 'rulesdsl play --log'; results files by "
                                  "'rulesdsl simulate --out'")])
    return data


def replay(log: dict, source: str = "log", rules_path=None) -> tuple:
    """Re-run a logged game; returns (final state, list of mismatches). Raises on an illegal move."""
    from ..api import load_game

    path = rules_path or log["file"]
    game = load_game(path, log.get("variant"), log.get("options") or {}, log.get("max_turns"))
    problems = []
    if rules_path is None and log.get("file_sha256") and file_digest(path) != log["file_sha256"]:
        problems.append("the rule file has changed since the game was logged")
    state = game.new_initial_state(log.get("seed"))
    for i, text in enumerate(log["moves"]):
        player = None
        if text.startswith("@"):
            seat, _, text = text[1:].partition(" ")
            player = int(seat)
        try:
            state.apply(state.parse_move(text, player))
        except MoveError as exc:
            raise RulesError([Problem(f"move {i + 1} '{text}' does not replay: {exc.reason}", Location(source),
                                      exc.hint)]) from None
    result = log.get("result") or log  # results files keep the outcome at the top level
    if state.terminal != (result.get("winners") is not None):
        problems.append("the replay does not end where the log does")
    if list(state.winners or []) != list(result.get("winners") or []):
        problems.append(f"winners differ: log {result.get('winners')}, replay {state.winners}")
    if log.get("final_state") and state_digest(state) != log["final_state"]:
        problems.append("the final position differs from the logged one")
    return state, problems
