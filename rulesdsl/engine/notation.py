"""Reading moves written in a game's notation: exact matches, and clear reasons when a move is not legal."""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from itertools import islice

from .. import budget
from ..errors import AmbiguousMove, GameRuntimeError, IllegalMove, MalformedMove, MoveError
from ..limits import MOVE_SECONDS
from ..model.rules import Move
from ..model.values import text_of
from .nodes import CHANCE

_FIELD = re.compile(r"\{([^{}]*)\}")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
_MOST_CANDIDATES = 100_000  # combinations of param values read to explain a refused move


def normalise(text: str) -> str:
    return " ".join(str(text).split())


def parse_move(state, text: str, player: int | None = None) -> Move:
    """The legal move written `text` for `player` (default: the one to move) at `state`."""
    wanted = normalise(text)
    if not wanted:
        raise MalformedMove(text, "empty move")
    step = state.rules.steps[state.step]
    if step.kind == "chance" and step.arrangement is not None:
        return _parse_arrangement(state, step, wanted)
    if step.kind == "chance" and step.draw is not None:
        return _parse_draw(state, step, wanted)
    if step.kind == "simultaneous" and player is not None and player not in state.acting_players():
        # this seat has no legal move here: say why, rather than blame a rule of the move
        names = state.rules.player_names
        who = names[player] if isinstance(player, int) and 0 <= player < len(names) else f"seat {player}"
        reason = "has already chosen" if player in state.pending else "does not choose"
        raise IllegalMove(wanted, f"{who} {reason} at this step",
                          "still to choose: " + ", ".join(names[p] for p in state.acting_players()))
    candidates = state.legal_moves(player)
    exact = _written_as(candidates, wanted)
    if len(exact) == 1 or (exact and all(m[:2] == exact[0][:2] for m in exact)):
        return exact[0]
    if len(exact) > 1:
        raise AmbiguousMove(text, "several different moves are written this way",
                            "the rule file's notation should tell them apart")
    if player is None and step.kind != "chance":
        acting = state.acting_players()
        player = acting[0] if acting else None
    who = CHANCE if step.kind == "chance" else player
    raise _explain(state, step, wanted, who, candidates)


def _written_as(candidates, wanted: str) -> list:
    """The moves printed exactly as `wanted`; else those printed so when case is ignored (a lookup in the moves'
    printed forms, each printed once)."""
    printed: dict = {}
    for move in candidates:
        printed.setdefault(str(move), []).append(move)
    if wanted in printed:
        return printed[wanted]
    folded = wanted.casefold()
    return [m for text, moves in printed.items() if text.casefold() == folded for m in moves]


def _fold(text: str) -> str:
    """`text` with case ignored, character for character (so that positions in it are positions in `text`)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(c.lower() if len(c.lower()) == 1 else c for c in text)


class _Template:
    """A notation template read as its literal pieces and its fields ({...}), to match typed text against.

    Typed text (normalised: single spaces) matches when it starts with the first piece, ends with the last, and
    holds the pieces between in order, case ignored, with at least one character for each field; each field takes
    as few characters as still let the rest match (as `.+?` would). It is found in two passes over the text, with
    no backtracking: from the right, the last place each piece can start and still leave room for the rest; then
    from the left, the first place each piece is found before that. A regular expression with a `.+?` per field
    would try every way of splitting a text that does not match: exponentially many in the number of fields."""

    __slots__ = ("pieces", "fields", "names")

    def __init__(self, template: str):
        self.pieces, self.fields, at = [], [], 0
        for found in _FIELD.finditer(template):
            self.pieces.append(_fold(template[at:found.start()]))
            self.fields.append(found.group(1).strip())
            at = found.end()
        self.pieces.append(_fold(template[at:]))
        # the fields that are plain names (a param, a let), each by its first place: their text reads back a value
        self.names: dict = {}
        for i, field in enumerate(self.fields):
            if _IDENT.match(field):
                self.names.setdefault(field, i)

    def match(self, text: str) -> list[tuple[int, int]] | None:
        """The (start, end) of each field in `text`, or None when the text is not written this way."""
        folded, pieces = _fold(text), self.pieces
        fields = len(self.fields)
        if not fields:
            return [] if folded == pieces[0] else None
        last = len(folded) - len(pieces[-1])
        if not folded.startswith(pieces[0]) or last < 0 or folded[last:] != pieces[-1]:
            return None
        latest = [0] * fields + [last]  # latest[i]: the last place piece i may start
        for i in range(fields - 1, 0, -1):  # piece i, then at least one character of field i + 1
            latest[i] = folded.rfind(pieces[i], 0, latest[i + 1] - 1)
            if latest[i] < 0:
                return None
        spans, start = [], len(pieces[0])
        for i in range(1, fields + 1):
            at = folded.find(pieces[i], start + 1, latest[i] + len(pieces[i])) if i < fields else last
            if at < start + 1:  # not found, or no character left for the field
                return None
            spans.append((start, at))
            start = at + len(pieces[i])
        return spans


@lru_cache(maxsize=1024)
def _template(text: str) -> _Template:
    """The _Template of a notation (read once: a rule's template is matched every time a move is typed)."""
    return _Template(text)


def _value(state, text: str):
    cell = state.rules.board.by_name.get(text)
    if cell is not None:
        return cell
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return {"true": True, "false": False, "none": None}.get(text, text)


def _overrun(state, rule, exc) -> GameRuntimeError:
    """The error of a rule (a move or a step) whose code overran its budget while a typed move was read."""
    where = state.rules.where
    return GameRuntimeError(rule.name, state.turn, str(exc), where(rule.path) if where is not None else None,
                            "reading a typed move lists this rule's possible moves: give its params smaller domains")


def _explain_by_candidates(state, step, wanted: str, player, legal) -> MoveError | None:
    """Find the refused move among all parameter combinations that print as `wanted`, and say why."""
    for rule in step.moves:
        if rule.candidates is None or rule.parts:
            continue
        try:
            found = _refused_candidate(state, rule, wanted, player, legal)
        except budget.TimeBudgetExceeded as exc:
            raise _overrun(state, rule, exc) from None
        except Exception:  # noqa: BLE001 - a domain that cannot be listed here: try the next rule
            continue
        if found is not None:
            return found
    return None


def _refused_candidate(state, rule, wanted: str, player, legal) -> MoveError | None:
    """Why the combination of `rule`'s parameter values that prints as `wanted` is refused, if there is one."""
    folded = wanted.casefold()
    for args in rule.candidates(state, player):
        try:
            text = normalise(rule.note(player, *args))
        except budget.TimeBudgetExceeded:
            raise
        except Exception:  # noqa: BLE001 - a combination the notation cannot print is not it
            continue
        if text.casefold() != folded:
            continue
        failed = rule.explain(state, player, *args[: len(rule.params)])
        if failed < 0:
            return IllegalMove(wanted, "another move has priority here", _examples(legal))
        description, why = rule.checks[failed]
        if why is None and failed < len(rule.params):
            why = f"that {rule.params[failed]} is not possible here"
        return IllegalMove(wanted, why or f"the rule '{rule.name}' requires {description}", _examples(legal))
    return None


def _explain_by_fields(state, rule, wanted: str, player, legal) -> MoveError | None:
    """Why a move whose notation prints expressions (rule.fields) is refused: the first param for which no
    combination of values prints the fields that read only it and the params before it as written."""
    if not rule.fields:
        return None
    spans = _template(rule.template).match(wanted)
    if spans is None:
        return None
    written = [wanted[start:end] for start, end in spans]
    typed = [normalise(text).casefold() for text in written]
    try:
        combos = list(islice(rule.candidates(state, player), _MOST_CANDIDATES))
        for i, param in enumerate(rule.params):
            known = set(rule.params[: i + 1])
            shown = [j for j, (used, _) in enumerate(rule.fields) if used and used <= known and param in used]
            combos = [args for args in combos if all(
                normalise(rule.fields[j][1](player, *args)).casefold() == typed[j] for j in shown)]
            if not combos:
                why = rule.checks[i][1] or \
                    f"{' '.join(written[j] for j in shown)!r} is not a possible {param} here"
                return IllegalMove(wanted, why, _examples(legal))
    except budget.TimeBudgetExceeded as exc:
        raise _overrun(state, rule, exc) from None
    except Exception:  # noqa: BLE001 - a domain that cannot be listed, a field that cannot be printed
        return None
    return None


def _explain(state, step, wanted: str, player, candidates) -> MoveError:
    found = _explain_by_candidates(state, step, wanted, player, candidates)
    if found is not None:
        return found
    rules = [r for r in step.moves] + ([step.pass_rule] if step.pass_rule else [])
    for rule in rules:
        template = _template(rule.template)
        spans = template.match(wanted)
        if spans is None:
            continue
        if set(rule.params) - set(template.names):  # written like this move, but its values cannot be read back
            return _explain_by_fields(state, rule, wanted, player, candidates) or \
                IllegalMove(wanted, f"no such '{rule.name}' move is possible now", _examples(candidates))
        written = {name: wanted[slice(*spans[i])] for name, i in template.names.items()}
        values = [_value(state, written[p]) for p in rule.params]
        if rule.is_pass:
            return IllegalMove(wanted, "you may pass only when you have no other move", _examples(candidates))
        try:
            failed = rule.explain(state, player, *values)
        except budget.TimeBudgetExceeded as exc:
            raise _overrun(state, rule, exc) from None
        except Exception:  # noqa: BLE001 - a value of the wrong kind: the text names no such thing
            failed = 0
        if failed < 0:
            continue
        description, why = rule.checks[failed]
        if failed < len(rule.params) and not why:
            name = rule.params[failed]
            reason = f"{written[name]!r} is not a possible {name} here"
        else:
            reason = why or f"the rule '{rule.name}' requires {description}"
        return IllegalMove(wanted, reason, _examples(candidates))
    shapes = sorted({_shape(r.template) for r in rules})
    return MalformedMove(wanted, "not a move of this game here; moves look like "
                         + ", ".join(f"'{t}'" for t in shapes), _examples(candidates))


def _shape(template: str) -> str:
    """A notation template as a player reads it: each field {c.square} as <square>."""
    return re.sub(r"\{([^{}]*)\}", lambda m: "<" + (re.findall(r"[A-Za-z_]\w*", m.group(1)) or ["value"])[-1] + ">",
                  template)


def _examples(candidates, limit: int = 8) -> str:
    names = [str(m) for m in candidates[:limit]]
    more = f" and {len(candidates) - limit} more" if len(candidates) > limit else ""
    return "legal now: " + ", ".join(names) + more if names else "no legal moves"


def _parse_arrangement(state, step, wanted: str) -> Move:
    try:
        return _read_arrangement(state, step, wanted)
    except budget.TimeBudgetExceeded as exc:
        raise _overrun(state, step, exc) from None


def _read_arrangement(state, step, wanted: str) -> Move:
    arr = step.arrangement
    items = list(arr.items(state, CHANCE))
    single = all(isinstance(i, str) and len(i) == 1 for i in items)
    parts = list(wanted.replace(" ", "")) if single else wanted.split()
    by_text = {str(i): i for i in items}
    folds = Counter(t.casefold() for t in by_text)
    # case is ignored where that names one item only, as for moves: 'wbwb' for the items W and B
    folded = {t.casefold(): i for t, i in by_text.items() if folds[t.casefold()] == 1}
    outcome = []
    for part in parts:
        if part in by_text:
            outcome.append(by_text[part])
        elif part.casefold() in folded:
            outcome.append(folded[part.casefold()])
        else:
            raise MalformedMove(wanted, f"{part!r} is not one of the items arranged ({', '.join(sorted(by_text))})")
    if sorted(map(str, outcome)) != sorted(map(str, items)):
        counts = {t: sum(1 for i in items if str(i) == t) for t in by_text}
        need = ", ".join(f"{n}x {t}" for t, n in counts.items())
        raise IllegalMove(wanted, f"an arrangement holds exactly {need} ({len(items)} items)")
    for check, why in arr.require:
        if not check(state, CHANCE, outcome):
            raise IllegalMove(wanted, why)
    return Move(state.game.arrangement_rule(step), (tuple(outcome),), CHANCE)



def _parse_draw(state, step, wanted: str) -> Move:
    """The outcome of a `draw:` step written `wanted`: its template with the items drawn, in any order."""
    rule = step.draw.rule
    template = _template(rule.template)
    spans = template.match(wanted)
    if spans is None:
        raise MalformedMove(wanted, f"not an outcome of step '{step.name}'; outcomes look like '{rule.template}'")
    start, end = spans[template.names["outcome"]]
    pool, inputs = state.draw_pool(step)
    texts = wanted[start:end].split()
    try:
        move = Move(rule, inputs + (pool.read(texts),), CHANCE)
    except ValueError as exc:
        raise MalformedMove(wanted, str(exc)) from None
    except LookupError as exc:
        raise IllegalMove(wanted, str(exc)) from None
    # the other fields (the call's inputs) must read as they print
    written = wanted[:start] + text_of(move[1][-1]) + wanted[end:]
    if normalise(written).casefold() != normalise(str(move)).casefold():
        raise IllegalMove(wanted, f"the outcome here reads '{move}'")
    return move


budget.guard(parse_move, MOVE_SECONDS, "reading a move")
