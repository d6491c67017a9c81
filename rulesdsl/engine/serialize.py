"""States to and from JSON, per-player observations, and a plain-text description of a state."""

from __future__ import annotations

from ..errors import Location, Problem, RulesError
from ..model.values import Cell, Piece, Record

FORMAT = 1


def encode(value):
    """A JSON-ready form of a rule value (cells and pieces tagged, tuples as lists)."""
    if value is None or isinstance(value, (bool, int, float, str)) and type(value) in (bool, int, float, str):
        return value
    if isinstance(value, Cell):
        return {"cell": value.name}
    if isinstance(value, Piece):
        return {"piece": value.to_json()}
    if isinstance(value, Record):
        return {"record": {k: encode(v) for k, v in vars(value).items()}}
    if isinstance(value, dict):
        return {"table": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple, range)):
        return [encode(v) for v in value]
    return str(value)


def decode(rules, value):
    """The rule value of an `encode`d form."""
    if isinstance(value, list):
        return [decode(rules, v) for v in value]
    if isinstance(value, dict):
        if "cell" in value:
            return rules.board.by_name[value["cell"]]
        if "piece" in value:
            data = dict(value["piece"])
            return rules.kinds[data.pop("kind")].make(data)
        if "record" in value:
            return Record(**{k: decode(rules, v) for k, v in value["record"].items()})
        if "table" in value:
            return {_key(decode(rules, k)): decode(rules, v) for k, v in value["table"]}
    return value


def _key(k):
    return tuple(k) if isinstance(k, list) else k


def state_to_json(S) -> dict:
    rules = S.rules
    return {
        "format": FORMAT,
        "game": rules.name,
        "variant": rules.variant,
        "options": S.game.options,
        "step": S.step,
        "player": S.player,
        "turn": S.turn,
        "ply": S.ply,
        "terminal": S.terminal,
        "winners": S.winners,
        "capped": S.capped,
        "cells": {c.name: S.cells[c].to_json() for c in rules.board.cells if S.cells[c] is not None},
        "zones": {z["name"]: encode(S.zones[i]) for i, z in enumerate(rules.zones)},
        "vars": {v["name"]: encode(S.vars[i]) for i, v in enumerate(rules.vars)},
        "pending": {str(p): str(m) for p, m in S.pending.items()},
        "history": list(S.history_texts()),
        "secret": {str(i): seen for i, seen in S.secret.items()},
    }


def state_from_json(game, data: dict, source: str = "state"):
    """Rebuild a State saved by `to_json`; problems are reported as a RulesError naming the bad entry."""
    from .state import State

    rules = game.rules
    problems = []

    def bad(message, hint=None):
        problems.append(Problem(message, Location(source), hint))

    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RulesError([Problem("not a rulesdsl state (missing 'format': 1)", Location(source),
                                  "save states with State.to_json() or 'rulesdsl show FILE --json > state.json'")])
    if data.get("game") != rules.name:
        bad(f"the state is of game '{data.get('game')}', not '{rules.name}'")
    S = State.initial(game)
    S.cells = [None] * len(rules.board.cells)
    for name, piece in (data.get("cells") or {}).items():
        cell = rules.board.by_name.get(name)
        if cell is None:
            bad(f"no cell '{name}' on this board")
            continue
        try:
            S.cells[cell] = decode(rules, {"piece": piece})
        except Exception as exc:  # noqa: BLE001 - reported as a problem with the saved state
            bad(f"cell {name}: {exc}")
    for group, items, target in (("zones", rules.zones, S.zones), ("vars", rules.vars, S.vars)):
        saved = data.get(group) or {}
        for i, item in enumerate(items):
            if item["name"] in saved:
                try:
                    target[i] = decode(rules, saved[item["name"]])
                except Exception as exc:  # noqa: BLE001
                    bad(f"{group} {item['name']}: {exc}")
    step = data.get("step")
    if not isinstance(step, str) or step not in rules.steps:
        bad(f"no step {step!r} in this game", f"steps: {', '.join(rules.steps)}")
    for key in ("player", "turn", "ply"):
        if not isinstance(data.get(key, 0), int) or isinstance(data.get(key, 0), bool):
            bad(f"'{key}' should be a whole number, not {data.get(key)!r}")
    if problems:
        raise RulesError(problems)
    S.step, S.player, S.turn, S.ply = data["step"], int(data.get("player", 0)), int(data.get("turn", 0)), \
        int(data.get("ply", 0))
    S.terminal, S.winners, S.capped = False, None, bool(data.get("capped"))
    S.history = []
    S.pending = {}
    for p, text in (data.get("pending") or {}).items():
        S.pending[int(p)] = S.parse_move(text, int(p))
    S.history = list(data.get("history") or [])
    S._texts = [str(m) for m in S.history]
    S.secret = {int(i): list(seen) for i, seen in (data.get("secret") or {}).items()}
    if S.pending:  # the last entries are the pending choices: keep them as moves, so views can hide them
        S.history[-len(S.pending):] = list(S.pending.values())
    if S.capped:
        S.terminal, S.winners = True, []
    elif S.ply:
        S._check_end()  # whether the game is over follows from the position, not from the file
    return S


def observation(S, player: int) -> dict:
    """The state as `player` sees it: hidden zones as counts, others' pending choices as 'chosen'."""
    rules = S.rules
    full = state_to_json(S)

    def visible(spec, owner):
        vis = spec["visible"]
        return vis == "all" or (vis == "owner" and owner == player)

    for group, items, values in (("zones", rules.zones, S.zones), ("vars", rules.vars, S.vars)):
        out = {}
        for i, spec in enumerate(items):
            value = values[i]
            if spec["per"] == "player":
                out[spec["name"]] = [encode(v) if visible(spec, p) else _hidden(v) for p, v in enumerate(value)]
            elif spec.get("keys") is not None:  # one zone per key; 'owner' visibility when keys are players
                out[spec["name"]] = encode({k: v if visible(spec, k) else _hidden(v) for k, v in value.items()})
            else:
                out[spec["name"]] = encode(value) if visible(spec, None) else _hidden(value)
        full[group] = out
    full["pending"] = {str(p): (str(m) if p == player else "chosen") for p, m in S.pending.items()}
    secret = {id(m) for p, m in S.pending.items() if p != player}  # unrevealed simultaneous choices
    texts = S.history_texts()
    full["history"] = ["(secret choice)" if id(m) in secret else
                       "(hidden)" if i in S.secret and player not in S.secret[i] else t
                       for i, (m, t) in enumerate(zip(S.history, texts))]
    full["secret"] = {}
    full["observer"] = player
    return full


def _hidden(value):
    return {"hidden": len(value)} if isinstance(value, list) else {"hidden": True}

