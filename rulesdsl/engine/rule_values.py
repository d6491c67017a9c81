"""Values rule code hands the engine (weights, winners, scores...), checked: a wrong one is the rule's RuleValueError."""

from __future__ import annotations

from ..lang.builtins import RuleValueError
from ..model.values import text_of

# The engine's own code must not fail on what rule code gives it: a failure inside the engine is reported as a
# bug in rulesdsl (see engine/state.py), so each use of such a value that Python could refuse is checked here.


def _shown(value) -> str:
    """A value as a message names it: short, and never a Python type name the rule file does not use."""
    if value is None or isinstance(value, (int, float, str)):
        return text_of(value)[:40]
    return {list: "a list", tuple: "a list", dict: "a table"}.get(type(value), "this value")


def weight(value, args) -> float:
    """A chance outcome's weight as a float."""
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError) as exc:  # OverflowError: a weight too large for a float
        raise RuleValueError(f"the weight of outcome {text_of(args)[:40]} cannot be used: {exc}") from None


def seen_by(value) -> list:
    """Who sees a move (its visible_to: a player or a list of players), sorted."""
    try:
        return [value] if isinstance(value, int) else sorted(value)
    except TypeError as exc:  # not a list, or players of different kinds
        raise RuleValueError(f"visible_to should give a player or a list of players, not {_shown(value)} ({exc})") \
            from None


def winners(value, seats: int) -> list:
    """The winners an end rule names (a player, a list of players, or none), sorted and without repeats; each
    must be one of the `seats` players (a number that names none would be a winner no result can hold)."""
    try:
        found = sorted(set([value] if isinstance(value, int) else list(value or [])))
    except TypeError as exc:  # not a list, or players of different kinds
        raise RuleValueError(f"the winners should be a player or a list of players, not {_shown(value)} ({exc})") \
            from None
    for seat in found:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < seats:
            raise RuleValueError(f"the winners should be players (seats 0 to {seats - 1}), not {_shown(seat)}")
    return [int(seat) for seat in found]


def items(value) -> list:
    """The items of an arrangement."""
    try:
        return list(value)
    except TypeError:
        raise RuleValueError(f"an arrangement is a list of items, not {_shown(value)}") from None


def best(values: list, what: str):
    """The largest of the players' scores or tiebreaks."""
    try:
        return max(values)
    except TypeError as exc:  # values that do not compare, e.g. a number and a text
        raise RuleValueError(f"the players' {what} cannot be compared: {exc}") from None


def table(value) -> dict:
    """A score breakdown: a table of named numbers."""
    try:
        return dict(value)
    except (TypeError, ValueError):
        raise RuleValueError(f"a breakdown should be a table of named numbers, not {_shown(value)}") from None
