"""States to and from JSON, per-player observations, and a plain-text description of a state."""

from __future__ import annotations

import json
import math
import re

from .. import budget
from ..errors import Location, MoveError, Problem, RulesError
from ..lang.compiler import is_name
from ..lang.constants import frozen
from ..lang.held import items
from .. import limits
from ..limits import MAX_JSON_DEPTH, MAX_JSON_DIGITS, MOVE_SECONDS
from ..lang.builtins import RuleValueError
from ..model.rules import Move
from ..model.values import Cell, Piece, Record, piece_json, text_of
from .observer import Hidden, Observer

FORMAT = 1
_HEX = frozenset("0123456789abcdef")
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|[][{}]')  # strings (skipped whole) and brackets


class _LongNumber(Exception):
    """A whole number in JSON text with more than MAX_JSON_DIGITS digits."""


class _NotFinite(Exception):
    """A number in JSON text that is infinite, or not a number (1e999, NaN, Infinity)."""


def _parse_finite(text: str) -> float:
    """json's parse_float for a reader that refuses numbers a float cannot hold (1e999 reads as infinity)."""
    value = float(text)
    if math.isinf(value):
        raise _NotFinite(text)
    return value


def _refuse_constant(name: str):
    """json's parse_constant for a reader that refuses NaN, Infinity and -Infinity."""
    raise _NotFinite(name)


def _parse_whole(digits: str) -> int:
    """json's parse_int: refuses numbers too long to be meant (and too long for int() to be quick)."""
    if len(digits) > MAX_JSON_DIGITS + 1:
        raise _LongNumber(digits)
    return int(digits)


def _too_deep(text: str) -> int | None:
    """The offset of the first bracket nested deeper than MAX_JSON_DEPTH, or None."""
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:  # cannot be too deep: skip the scan
        return None
    depth = 0
    for token in _TOKENS.finditer(text):
        first = token.group()[0]
        if first in "[{":
            depth += 1
            if depth > MAX_JSON_DEPTH:
                return token.start()
        elif first in "]}":
            depth -= 1
    return None


def _place(source: str, text: str, offset: int, line: int | None) -> Location:
    """The Location of character `offset`: within the text, or on results line `line`."""
    if line is not None:
        return Location(source, line, offset + 1)
    row = text.count("\n", 0, offset) + 1
    return Location(source, row, offset - text.rfind("\n", 0, offset))


def parse_json(text: str, source: str, line: int | None = None, hint: str | None = None, finite: bool = False):
    """JSON read from untrusted text, its nesting and numbers bounded; a RulesError located at line:col
    otherwise. `line` numbers a text that is one line of a bigger file (a results line). `finite`: numbers
    too large for a float (1e999), NaN and Infinity are refused too (where no such number is ever meant)."""
    def fail(message, offset=None):
        where = Location(source, line or 0) if offset is None else _place(source, text, offset, line)
        raise RulesError([Problem(message, where, hint)])

    deep = _too_deep(text)
    if deep is not None:
        fail(f"JSON nested more than {MAX_JSON_DEPTH} deep", deep)
    try:
        if finite:
            return json.loads(text, parse_int=_parse_whole, parse_float=_parse_finite, parse_constant=_refuse_constant)
        return json.loads(text, parse_int=_parse_whole)
    except json.JSONDecodeError as exc:
        fail(f"not JSON: {exc.msg}", exc.pos)
    except _NotFinite as exc:
        number = exc.args[0]
        found = re.search(r"(?<![\w.\"])" + re.escape(number) + r"(?![\w.])", text) if len(number) <= 100 else None
        fail(f"the number {number[:20]} is too large, or not a number (at most about 1.8e308)",
             found.start() if found else None)
    except _LongNumber as exc:
        digits = exc.args[0]
        found = re.search(r"(?<![\w.\"-])" + re.escape(digits) + r"(?![\w.])", text)
        fail(f"a whole number of {len(digits.lstrip('-')):,} digits (at most {MAX_JSON_DIGITS})",
             found.start() if found else None)
    except RecursionError:  # not expected after the depth check; kept so that it can never surface
        fail(f"JSON nested more than {MAX_JSON_DEPTH} deep")
    except ValueError as exc:  # any other number json cannot read
        fail(f"unreadable JSON: {exc}"[:200])


def key_line(text: str, key: str) -> int:
    """The line of JSON text written one entry a line (a log, 'show --json') that holds top-level entry
    `key` (0: not found)."""
    name = '"' + re.escape(key) + r'"\s*:'
    found = re.search(r"^[ \t]{0,2}" + name, text, re.MULTILINE) or re.search(name, text)  # else: on one line
    return text.count("\n", 0, found.start()) + 1 if found else 0


def kind_of(value) -> str:
    """How a JSON value is named in messages: 'a string', 'a list', 'nothing (null)'."""
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "a list" if isinstance(value, list) else "an object" if isinstance(value, dict) else type(value).__name__


def shown(value, width: int = 40) -> str:
    """A short form of a value for messages (hostile data can be huge)."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = kind_of(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def encode(value):
    """A JSON-ready form of a rule value (cells and pieces tagged, tuples as lists)."""
    if value is None or isinstance(value, (bool, int, float, str)) and type(value) in (bool, int, float, str):
        return value
    if isinstance(value, Cell):
        return {"cell": value.name}
    if isinstance(value, Piece):
        return {"piece": piece_json(value)}
    if isinstance(value, Record):
        return {"record": {k: encode(v) for k, v in vars(value).items()}}
    if isinstance(value, dict):
        return {"table": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple, range)):
        return [encode(v) for v in value]
    if isinstance(value, Hidden):
        return value.to_json()
    return str(value)


def decode(rules, value):
    """The rule value of an `encode`d form."""
    if isinstance(value, list):
        return [decode(rules, v) for v in value]
    if isinstance(value, dict):
        if "cell" in value:
            cell = rules.board.by_name.get(value["cell"]) if isinstance(value["cell"], str) else None
            if cell is None:
                raise ValueError(f"no cell {shown(value['cell'])} on this board")
            return cell
        if "piece" in value:
            data = dict(value["piece"])
            kind = data.pop("kind", None)
            if not isinstance(kind, str) or kind not in rules.kinds:
                raise ValueError(f"{shown(value['piece'])} is not a piece of this game "
                                 f"(kinds: {', '.join(rules.kinds)})")
            return rules.kinds[kind].make(data)
        if "record" in value:
            fields = value["record"]
            if not isinstance(fields, dict) or not all(is_name(k) for k in fields):
                raise ValueError(f"{shown(fields)} is not a record: an object whose keys are names")
            return Record(**{k: frozen(decode(rules, v)) for k, v in fields.items()})  # a record is a value
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
        "cells": {c.name: piece_json(S.cells[c]) for c in rules.board.cells if S.cells[c] is not None},
        "zones": {h.name: encode(value) for h, value in zip(rules.zones, S.zones)},
        "vars": {h.name: encode(value) for h, value in zip(rules.vars, S.vars)},
        "pending": {str(p): str(m) for p, m in S.pending.items()},
        "history": list(S.history_texts()),
        "secret": {str(i): list(seen) for i, seen in S.secret.items()},
        "last_move": _move_json(S.last),
        "revealed": sorted(([name, encode(owner)] for name, owner in S.revealed), key=repr),
        **({"calls": _calls_to_json(S.calls)} if S.calls else {}),
        **({"left": list(S.left)} if S.left else {}),  # only where somebody left: other states read as before
        # only in a game that counts its positions (repeated()): the key of each position a move left
        **({"positions": [f"{key:016x}" for key in S.positions], "position_keys": S.game.layout.position_keys()}
           if rules.counts_positions else {}),
    }


def _calls_to_json(calls: tuple) -> dict:
    """The draws asked for by chance() and not yet made (see Position.calls)."""
    (then, caller, is_pass, me), draws = calls[0], calls[1:]
    return {"resume": {"goto": then, "step": caller, "pass": is_pass, "player": me},
            "draws": [[step, encode(list(inputs))] for step, inputs in draws]}


MAX_COUNT = 10 ** 12  # largest turn or ply count read from a saved state


def state_from_json(game, data: dict, source: str = "state", text: str | None = None):
    """Rebuild a State saved by `to_json`; problems are reported as a RulesError naming the bad entry.

    The data may come from anywhere: every entry is checked (types, cells, pieces, zones, seats,
    counts) before use, so that a damaged or hostile file is reported, never a traceback. `text`, the
    JSON the data was read from, lets a problem name the line of its entry."""
    rules = game.rules
    problems = []

    def bad(message, hint=None, key=None):
        line = key_line(text, key) if text and key else 0
        problems.append(Problem(message, Location(source, line), hint))

    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RulesError([Problem("not a rulesdsl state (missing 'format': 1)", Location(source),
                                  "save states with State.to_json() or 'rulesdsl show FILE --json > state.json'")])
    if data.get("game") != rules.name:
        bad(f"the state is of game {shown(data.get('game'))}, not '{rules.name}'", key="game")
    S = game.new_initial_state()
    S.cells = [None] * len(rules.board.cells)
    _read_cells(rules, _section(data, "cells", bad), S, bad)
    _read_values(rules, _section(data, "zones", bad), rules.zones, S.zones, "zones", bad)
    _read_values(rules, _section(data, "vars", bad), rules.vars, S.vars, "vars", bad)
    S.held = sum(items(value, limits.MAX_STATE_ITEMS) for value in S.zones + S.vars)
    if S.held > limits.MAX_STATE_ITEMS:  # (read from limits when used: tests lower it)
        bad(f"its zones and variables hold more than {limits.MAX_STATE_ITEMS:,} items in all: more than a game "
            "may keep",
            "a state is saved by the game it was played in, which never holds more")
    _check_position(rules, data, bad)
    history = _strings(data.get("history"), "history", bad)
    secret = _secret(rules, data.get("secret"), bad)
    S.last = _last_move(rules, data.get("last_move"), bad)
    S.revealed = _revealed(rules, data.get("revealed"), bad)
    if problems:
        raise RulesError(problems)
    S.step, S.player, S.turn, S.ply = data["step"], data.get("player", 0), data.get("turn", 0), data.get("ply", 0)
    S.left = tuple(data.get("left") or ())
    S.terminal, S.winners, S.capped = False, None, bool(data.get("capped"))
    S.changed()  # the position read from the file replaces the initial one
    S.history = []
    S.pending = _pending(S, _section(data, "pending", bad), bad)
    if len(S.pending) > len(history):
        bad("'pending' holds more choices than 'history' has moves",
            "the history ends with the pending choices (save states with State.to_json())", key="pending")
    if problems:
        raise RulesError(problems)
    S.calls = _calls(rules, data, bad)
    if problems:
        raise RulesError(problems)
    S.history = history
    S._texts = list(history)
    S.secret = secret
    if rules.counts_positions:
        S.positions = _positions(data.get("positions"), S.ply, bad)
        kind, own = data.get("position_keys", "text"), S.game.layout.position_keys()  # (none before words keys)
        if S.positions and kind != own:
            bad(f"'positions' hold keys of another kind ({text_of(kind)[:20]}) than this game's positions "
                f"({own}): they would never match a position",
                "a state saved by an earlier version of rulesdsl keeps its keys of repeated positions in a form "
                "this version does not compute for this game: remove 'positions' (and 'position_keys') to count "
                "repetitions from this position on", key="positions")
        S.seen = tally(S.positions)
        if problems:
            raise RulesError(problems)
    if S.pending:  # the last entries are the pending choices: keep them as moves, so views can hide them
        S.history[-len(S.pending):] = list(S.pending.values())
    if S.capped:
        S.terminal, S.winners = True, []
    else:
        S.settle(data.get("terminal") is True)  # whether the game is over follows from the position, not the file
    return S


def _positions(value, ply: int, bad) -> list:
    """The keys of the positions a game that counts them left (see engine/repetition.py); [] when absent."""
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > ply or \
            not all(isinstance(v, str) and len(v) == 16 and v.isascii() and all(c in _HEX for c in v) for v in value):
        bad("'positions' should be a list of keys of 16 hex digits, at most one a move made ('ply')",
            "save states with State.to_json()", key="positions")
        return []
    return [int(v, 16) for v in value]


def position_text(S) -> str:
    """The board, zones and variables of `S` in their JSON form (encode), one line: a position exactly (see
    Position.snapshot), and what a text key hashes (engine/repetition.py)."""
    return json.dumps([encode(S.cells), encode(S.zones), encode(S.vars)], separators=(",", ":"))


def tally(keys) -> dict:
    """How often each key occurs in `keys` (the positions a state has left)."""
    seen: dict = {}
    for key in keys:
        seen[key] = seen.get(key, 0) + 1
    return seen


def _section(data: dict, key: str, bad) -> dict:
    """A mapping entry of a saved state ({} when absent)."""
    value = data.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        bad(f"'{key}' should be an object, not {kind_of(value)}", key=key)
        return {}
    return value


def _read_cells(rules, cells: dict, S, bad) -> None:
    """The pieces on the board: known cells, each holding a piece of a declared kind."""
    for name, piece in cells.items():
        cell = rules.board.by_name.get(name)
        if cell is None:
            bad(f"no cell {shown(name)} on this board", key="cells")
        elif not isinstance(piece, dict) or not isinstance(piece.get("kind"), str) \
                or piece["kind"] not in rules.kinds:
            bad(f"cell {name}: {shown(piece)} is not a piece of this game",
                f"pieces are written {{\"kind\": NAME, ...attributes}}; kinds: {', '.join(rules.kinds)}", "cells")
        else:
            try:
                S.cells[cell] = decode(rules, {"piece": piece})
            except Exception as exc:  # noqa: BLE001 - reported as a problem with the saved state
                bad(f"cell {name}: {str(exc)[:200]}", key="cells")


def _read_values(rules, saved: dict, holders: list, target: list, group: str, bad) -> None:
    """Zones or variables by name, each shaped like its initial value (per player, per key, a list)."""
    known = {holder.name for holder in holders}
    for name in saved:
        if name not in known:
            bad(f"no {group[:-1]} {shown(name)} in this game", key=group)
    for i, holder in enumerate(holders):
        if holder.name not in saved:
            continue
        try:
            value = decode(rules, saved[holder.name])
        except Exception as exc:  # noqa: BLE001 - a cell, piece or table that does not exist
            bad(f"{group} {holder.name}: {str(exc)[:200]}", key=group)
            continue
        wrong = _shape_problem(value, holder, rules.num_players)
        if wrong:
            bad(f"{group} {holder.name}: {wrong}", key=group)
        elif holder.keys is not None:  # in the order of its keys, whatever the order of the file
            target[i] = {key: value[key] for key in holder.keys}
        else:
            target[i] = value


def _shape_problem(value, holder, players: int) -> str | None:
    """What is wrong with the shape of a saved zone or variable, or None."""
    zone = holder.zone
    if holder.keys is not None:  # one place per key
        if not isinstance(value, dict):
            return f"should be a table with one {'zone' if zone else 'value'} per key, not {kind_of(value)}"
        missing = [k for k in holder.keys if k not in value]
        if missing:
            return f"has no {'zone' if zone else 'value'} for the key {text_of(missing[0])[:40]}"
        extra = [k for k in value if k not in holder.keys]
        if extra:
            return f"holds {text_of(extra[0])[:40]}, which is not one of its keys"
    elif holder.per == "player":
        if not isinstance(value, list) or len(value) != players:
            return f"should be a list of {players} {'lists' if zone else 'values'} (one per player)"
    if zone:  # the shape fits: every place of a zone is a list of pieces
        for key, place in holder.places(value):
            if not isinstance(place, list):
                return (f"the zone of {key} should be a list" if holder.keys is not None else
                        f"should be a list of {players} lists (one per player)" if holder.per == "player" else
                        f"should be a list, not {kind_of(value)}")
            stray = [item for item in place if not isinstance(item, Piece)]
            if stray:
                where = "holds" if key is None else f"the zone of {key} holds"
                return f"{where} {text_of(stray[0])[:40]}, which is not a piece"
    return None


def _check_position(rules, data: dict, bad) -> None:
    """The step, the player to move and the counts."""
    step = data.get("step")
    if not isinstance(step, str) or step not in rules.steps:
        bad(f"no step {shown(step)} in this game", f"steps: {', '.join(rules.steps)}", "step")
    player = data.get("player", 0)
    if not _whole(player, 0, rules.num_players - 1):
        bad(f"'player' should be a seat from 0 to {rules.num_players - 1}, not {shown(player)}", key="player")
    for key in ("turn", "ply"):
        if not _whole(data.get(key, 0), 0, MAX_COUNT):
            bad(f"'{key}' should be a whole number from 0 to {MAX_COUNT:,}, not {shown(data.get(key))}", key=key)
    if not isinstance(data.get("capped", False), bool):
        bad(f"'capped' should be true or false, not {shown(data.get('capped'))}", key="capped")
    left = data.get("left", [])
    if not isinstance(left, list) or not all(_whole(p, 0, rules.num_players - 1) for p in left) \
            or len(set(left)) != len(left):
        bad(f"'left' should be a list of different seats from 0 to {rules.num_players - 1}, not {shown(left)}",
            "the seats that left the game, in the order they left", key="left")


def _whole(value, low: int, high: int) -> bool:
    """Whether a JSON value is a whole number (not a boolean) within [low, high]."""
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _index(text: str, high: int) -> int | None:
    """A JSON object key that writes a whole number from 0 to `high` (a seat, a ply), or None."""
    if not (text.isascii() and text.isdigit()) or len(text) > 15 or int(text) > high:
        return None
    return int(text)


def _strings(value, key: str, bad) -> list:
    """A list of strings (the history), [] when absent."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        bad(f"'{key}' should be a list of moves in notation (strings)", key=key)
        return []
    return list(value)


def _secret(rules, value, bad) -> dict:
    """Which players saw each hidden history entry: {ply: (seats...)}."""
    out = {}
    if value is None:
        return out
    if not isinstance(value, dict):
        bad(f"'secret' should be an object, not {kind_of(value)}", key="secret")
        return out
    for ply, seen in value.items():
        if _index(ply, MAX_COUNT) is None or not isinstance(seen, list) \
                or not all(_whole(p, 0, rules.num_players - 1) for p in seen):
            bad(f"'secret' entry {shown(ply)} should map a ply to a list of seats", key="secret")
            return {}
        out[int(ply)] = tuple(seen)
    return out


def _move_json(move) -> dict | None:
    """The saved form of the last move a player made: who made it, the move's name, its params and lets."""
    return None if move is None else {"by": move.player, "move": move.name, "args": [encode(a) for a in move.args]}


def _last_move(rules, value, bad):
    """The last move a player made (what `last_move` reads), from {"by": seat, "move": name, "args": [...]}."""
    if value is None:
        return None
    rule = None
    if isinstance(value, dict):
        name = value.get("move")
        rule = rules.moves.get(name) if isinstance(name, str) else None
        rule = rule or next((s.pass_rule for s in rules.steps.values()
                             if s.pass_rule is not None and s.pass_rule.name == name), None)
    if rule is None or not _whole(value.get("by"), 0, rules.num_players - 1) \
            or not isinstance(value.get("args"), list) or len(value["args"]) != len(rule.arg_names):
        bad(f"'last_move' should be {{\"by\": a seat, \"move\": a move's name, \"args\": its params and lets}}, "
            f"not {shown(value)}", "save states with State.to_json()", key="last_move")
        return None
    try:
        args = tuple(_key(decode(rules, a)) for a in value["args"])
    except (KeyError, TypeError, ValueError, AttributeError, RuleValueError) as exc:
        bad(f"'last_move' holds a value that is not one of this game's: {shown(str(exc))}", key="last_move")
        return None
    return Move(rule, args, value["by"])


def _revealed(rules, value, bad) -> frozenset:
    """The zone places reveal() shows to everyone, from [[zone name, seat or key], ...]."""
    found = set()
    zones = {h.name: h for h in rules.zones}
    for item in value if isinstance(value, list) else [value] if value is not None else []:
        holder = zones.get(item[0]) if isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) \
            else None
        try:
            owner = None if holder is None else _key(decode(rules, item[1]))
            known = holder is not None and (
                holder.whole and owner is None or holder.per == "player" and _whole(owner, 0, rules.num_players - 1)
                or holder.keys is not None and owner in holder.keys)
        except (KeyError, TypeError, ValueError, AttributeError, RuleValueError):  # not a value of this game
            known = False
        if not known:
            bad(f"'revealed' entry {shown(item)} should name a zone and one of its places ([zone, seat or key])",
                "save states with State.to_json()", key="revealed")
            continue
        found.add((holder.name, owner))
    return frozenset(found)


def _calls(rules, data: dict, bad) -> tuple:
    """The draws asked for by chance() and not yet made, the first at the state's step (see Position.calls)."""
    value = data.get("calls")
    if value is None:
        return ()
    hint = "'calls' is {\"resume\": {\"goto\", \"step\", \"pass\", \"player\"}, \"draws\": [[step, [inputs]], ...]}"
    resume = value.get("resume") if isinstance(value, dict) else None
    draws = value.get("draws") if isinstance(value, dict) else None
    if not isinstance(resume, dict) or not isinstance(draws, list) or not draws:
        bad("'calls' should hold where play resumes and the draws waiting", hint, "calls")
        return ()
    then, caller, me = resume.get("goto"), resume.get("step"), resume.get("player")
    if then is not None and then != rules.END_TURN and (then not in rules.steps or rules.chance_inputs.get(then)) \
            or caller not in rules.steps or not isinstance(resume.get("pass"), bool) \
            or me is not None and not _whole(me, -1, rules.num_players - 1):
        bad(f"'calls': {shown(resume)} is not where play can resume in this game", hint, "calls")
        return ()
    waiting = []
    for entry in draws:
        step, inputs = entry if isinstance(entry, list) and len(entry) == 2 else (None, None)
        if step not in rules.called or not isinstance(inputs, list) \
                or len(inputs) != len(rules.chance_inputs.get(step, ())):
            bad(f"'calls': {shown(entry)} is not a draw that chance() asks for in this game", hint, "calls")
            return ()
        try:
            waiting.append((step, tuple(decode(rules, v) for v in inputs)))
        except Exception as exc:  # noqa: BLE001 - a cell, piece or table that does not exist
            bad(f"'calls': {str(exc)[:200]}", key="calls")
            return ()
    if waiting[0][0] != data.get("step"):
        bad(f"'calls': the first draw waiting is at step '{waiting[0][0]}', not at the state's step", hint, "calls")
        return ()
    return ((then, caller, resume["pass"], me),) + tuple(waiting)


def _pending(S, value: dict, bad) -> dict:
    """The simultaneous choices already made: {seat: move}, each a legal move of that seat."""
    texts = {}
    for seat, text in value.items():
        if _index(seat, S.rules.num_players - 1) is None or not isinstance(text, str):
            bad(f"'pending' entry {shown(seat)}: {shown(text)} should map a seat to a move in notation", key="pending")
        else:
            texts[int(seat)] = text
    if texts and S.rules.steps[S.step].kind != "simultaneous":
        # elsewhere a move is applied at once: a choice kept pending would never be resolved
        bad(f"'pending' holds choices, but step '{S.step}' is not a simultaneous step",
            "only a simultaneous step keeps choices until every player has chosen: remove 'pending'",
            key="pending")
        return {}
    pending = {}
    for seat, text in texts.items():
        try:
            pending[seat] = S.parse_move(text, seat)
        except MoveError as exc:
            bad(f"pending move {shown(text)} of seat {seat}: {exc.reason}"[:300], key="pending")
    S.pending = pending
    if pending and not S.acting_players():  # the step resolves the choices once all are made: never kept all
        bad(f"'pending' holds a choice of every player who chooses at step '{S.step}'",
            "the step resolves the choices once the last is made: save the state before the last choice, or "
            "after the step resolved them", key="pending")
        pending = {}
    S.pending = {}
    return pending


def observation(S, player: int | None) -> dict:
    """The state as `player` sees it (see Observer; None: the table): each unseen place {"hidden": n} for a
    list, {"hidden": true} otherwise; others' pending choices 'chosen'; secret history entries hidden."""
    seen = Observer(S.rules, player, S.revealed, S)
    full = state_to_json(S)
    full["zones"], full["vars"] = {}, {}
    for holder, value in seen.holders(S):
        full["zones" if holder.zone else "vars"][holder.name] = encode(value)
    full["pending"] = {str(p): "chosen" if m is None else str(m) for p, m in seen.pending(S).items()}
    full["history"] = seen.history(S)
    full["last_move"] = _move_json(seen.last_move(S))
    full["secret"] = {}
    full["observer"] = player
    return full


# reading a state runs rule code: its pieces' derived attributes, its pending moves read in notation, its end rules
budget.guard(state_from_json, MOVE_SECONDS, "reading a saved state")
