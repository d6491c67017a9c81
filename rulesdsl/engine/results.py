"""Each seat's result at the end of a game (`scoring: returns`): a finite number, and the returns of a game held to
the file's declared utility and range."""

from __future__ import annotations

import math

from ..errors import GameRuntimeError
from ..lang.builtins import RuleValueError
from ..model.values import text_of

# How far the sum of a zero-sum or constant-sum game's returns may stray from its mark: float sums of fractions
# (0.1 + 0.2 - 0.3) are not exact, so the sum is compared within this share of the returns' size.
TOLERANCE = 1e-9


def result(value) -> float:
    """A seat's returns as a float: a number (not true or false) that is finite as a float, else RuleValueError."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            found = float(value)
        except OverflowError:  # a whole number beyond any float
            raise RuleValueError(f"returns should give a finite number for each seat, not a whole number of "
                                 f"{len(str(abs(value)))} digits, beyond what a float holds") from None
        if math.isfinite(found):
            return found
    shown = {list: "a list", tuple: "a list", dict: "a table", bool: "true or false"}.get(type(value)) \
        or text_of(value)[:40]
    raise RuleValueError(f"returns should give a finite number for each seat, not {shown}")


RETURNS_HINT = "returns gives each seat's result as a number, e.g. returns: \"chips[me] - 10\""


def _near(total: float, mark: float, values: list) -> bool:
    return abs(total - mark) <= TOLERANCE * max(1.0, sum(abs(v) for v in values))


def broken(rules, values: list) -> str | None:
    """What a game's returns break of the file's declared utility or returns_range (None: nothing). The first game
    checked with a constant-sum game's rules sets the sum the later ones must reach."""
    if rules.returns_range is not None:
        low, high = rules.returns_range
        outside = [v for v in values if not low <= v <= high]
        if outside:
            return f"returns {_shown(values)} fall outside returns_range [{low:g}, {high:g}]"
    if not rules.utility_declared:
        return None
    total = math.fsum(values)
    if rules.utility == "zero_sum" and not _near(total, 0.0, values):
        return f"returns {_shown(values)} sum to {total:g}, not 0 (utility: zero_sum)"
    if rules.utility == "identical" and len(set(values)) > 1:
        return f"returns {_shown(values)} differ between seats (utility: identical)"
    if rules.utility == "constant_sum":
        if not rules.returns_sum:
            rules.returns_sum.append(total)
        elif not _near(total, rules.returns_sum[0], values):
            return (f"returns {_shown(values)} sum to {total:g}, not {rules.returns_sum[0]:g} as the first game "
                    "that ended did (utility: constant_sum)")
    return None


def _shown(values: list) -> str:
    return "[" + ", ".join(f"{v:g}" for v in values) + "]"


def check(rules, values: list, turn: int) -> list:
    """`values`, the returns of a game ended on `turn`; a GameRuntimeError located at `utility:` (or
    `returns_range:`) when they break what the file declares."""
    problem = broken(rules, values)
    if problem is None:
        return values
    at = ("scoring", "returns_range") if "returns_range" in problem else ("scoring", "utility")
    location = rules.where(at) if rules.where is not None else None
    hint = ("make returns keep to what the file declares, or declare what they do (utility: general_sum, or "
            "remove utility: to let it be derived; a wider returns_range)")
    raise GameRuntimeError(at[1], turn, problem, location, hint)
