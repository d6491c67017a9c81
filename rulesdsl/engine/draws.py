"""Several items drawn at once (dice, cards, a subset): the outcomes with their exact probabilities, and sampling.

An outcome is the multiset drawn, written as a tuple holding each distinct item as often as it was drawn, the
distinct items in the order they first appear among the items drawn from (dice drawn from 1..6 come out sorted).
Each distinct item is weighed by how often it appears: with replacement each of the n draws picks one of the
`total` items, so counts c_i of items appearing a_i times have probability n! / prod(c_i!) * prod(a_i ** c_i) /
total ** n; without replacement, prod(C(a_i, c_i)) / C(total, n).
"""

from __future__ import annotations

from functools import lru_cache
from itertools import accumulate
from math import comb, factorial

from ..lang.builtins import RuleValueError
from ..limits import MAX_DRAW_OUTCOMES, MAX_DRAWN
from ..model.values import text_of


class DrawPool:
    """The distinct items of a draw with how often each appears, and how many are drawn."""

    __slots__ = ("kinds", "counts", "count", "replace")

    def __init__(self, items, count, replace: bool):
        try:
            listed = list(items)
        except TypeError:
            raise RuleValueError(f"the items drawn from should be a list, not {text_of(items)[:40]}") from None
        if count.__class__ is not int or not 0 <= count <= MAX_DRAWN:
            raise RuleValueError(f"the number of items drawn should be a whole number from 0 to {MAX_DRAWN:,}, "
                                 f"not {text_of(count)[:40]}")
        if not replace and count > len(listed):
            raise RuleValueError(f"cannot draw {count} items from {len(listed)}")
        if replace and count and not listed:
            raise RuleValueError("cannot draw from no items")
        tally: dict = {}
        try:
            for item in listed:
                tally[item] = tally.get(item, 0) + 1
        except TypeError:  # lists and tables cannot be told apart once drawn
            raise RuleValueError("the items drawn should be numbers, text, cells or pieces, not lists or "
                                 "tables") from None
        self.kinds, self.counts = tuple(tally), tuple(tally.values())
        self.count, self.replace = count, replace

    def outcome(self, drawn) -> tuple:
        """The outcome of these (distinct item's index, times drawn) pairs, in order (see the module's docstring)."""
        kinds = self.kinds
        return tuple(kinds[k] for k, times in drawn for _ in range(times))

    def outcomes(self) -> list[tuple[tuple, float]]:
        """Every outcome with its probability, in a fixed order; a RuleValueError when they are too many."""
        number = _number_of_outcomes(self.counts, self.count, self.replace)
        if number > MAX_DRAW_OUTCOMES:
            raise RuleValueError(f"drawing {self.count} of these {sum(self.counts)} items has {number:,} outcomes, "
                                 f"more than the {MAX_DRAW_OUTCOMES:,} that can be listed")
        table, total = _table(self.counts, self.count, self.replace)
        return [(self.outcome(drawn), weight / total) for drawn, weight in table]

    def sample(self, rng) -> tuple:
        """One outcome drawn with `rng`: `count` uniform picks among the items, each put back or not."""
        total = sum(self.counts)
        drawn = [0] * len(self.counts)
        below = rng.below
        if self.replace:
            for _ in range(self.count):
                drawn[_kind_at(self.counts, below(total))] += 1
        else:
            left = list(self.counts)
            for taken in range(self.count):
                k = _kind_at(left, below(total - taken))
                left[k] -= 1
                drawn[k] += 1
        return self.outcome(enumerate(drawn))

    def read(self, texts: list[str]) -> tuple:
        """The outcome whose items print as `texts` (in any order; case ignored where that names one item)."""
        by_text = {text_of(kind): kind for kind in self.kinds}
        folded: dict = {}
        for text, kind in by_text.items():
            folded.setdefault(text.casefold(), []).append(kind)
        index = {kind: k for k, kind in enumerate(self.kinds)}
        drawn = [0] * len(self.kinds)
        for text in texts:
            kind = by_text.get(text)
            if kind is None and len(folded.get(text.casefold(), ())) == 1:
                kind = folded[text.casefold()][0]
            if kind is None:
                shown = ", ".join(sorted(by_text)[:12]) + (", ..." if len(by_text) > 12 else "")
                raise ValueError(f"{text!r} is not one of the items drawn from ({shown})")
            drawn[index[kind]] += 1
        if len(texts) != self.count:
            raise LookupError(f"a draw here holds exactly {self.count} item{'s' if self.count != 1 else ''}, "
                              f"not {len(texts)}")
        if not self.replace:
            for kind, have, want in zip(self.kinds, self.counts, drawn):
                if want > have:
                    raise LookupError(f"only {have} of {text_of(kind)!r} can be drawn here, not {want}")
        return self.outcome(enumerate(drawn))


class RefillPool:
    """A draw from a pile that holds fewer items than it takes, refilled from another zone (`refill:`): every item
    left in the pile is drawn, then the rest uniformly, without replacement, from the refill's items. Its outcomes,
    probabilities, sampling and reading are those of that second draw (a DrawPool) with the pile's items added; an
    outcome lists the distinct items in the order they first appear in the pile, then in the refill."""

    __slots__ = ("kinds", "counts", "count", "replace", "kept", "rest", "place")

    def __init__(self, pile, refill, count):
        pile = list(pile)
        if count.__class__ is not int or count <= len(pile):  # (a bad count is said as DrawPool says it)
            raise AssertionError("a refill only when the pile holds fewer than the draw takes")  # pragma: no cover
        spare = list(refill)
        if len(pile) + len(spare) < count:
            raise RuleValueError(f"cannot draw {count} items from the {len(pile)} in the pile and the {len(spare)} "
                                 "of its refill")
        whole = DrawPool(pile + spare, len(pile) + len(spare), False)  # the distinct items, in order
        self.rest = DrawPool(spare, count - len(pile), False)
        self.kinds, self.counts, self.count, self.replace = whole.kinds, whole.counts, count, False
        index = {kind: k for k, kind in enumerate(self.kinds)}
        self.kept = [0] * len(self.kinds)  # how often each distinct item is in the pile: each is drawn
        for item in pile:
            self.kept[index[item]] += 1
        self.place = [index[kind] for kind in self.rest.kinds]  # a distinct item of the refill among all of them

    def _outcome(self, rest_drawn) -> tuple:
        """The outcome of the pile's items and these (distinct refill item's index, times drawn) pairs."""
        drawn = list(self.kept)
        for k, times in rest_drawn:
            drawn[self.place[k]] += times
        return tuple(kind for kind, times in zip(self.kinds, drawn) for _ in range(times))

    def outcomes(self) -> list[tuple[tuple, float]]:
        """Every outcome with its probability (that of the items drawn from the refill), in a fixed order."""
        rest = self.rest
        number = _number_of_outcomes(rest.counts, rest.count, False)
        if number > MAX_DRAW_OUTCOMES:
            raise RuleValueError(f"drawing {rest.count} of the {sum(rest.counts)} items of the refill has "
                                 f"{number:,} outcomes, more than the {MAX_DRAW_OUTCOMES:,} that can be listed")
        table, total = _table(rest.counts, rest.count, False)
        return [(self._outcome(drawn), weight / total) for drawn, weight in table]

    def sample(self, rng) -> tuple:
        """One outcome drawn with `rng`: the refill's part as DrawPool.sample draws it (the pile's needs none)."""
        rest = self.rest
        total, left, drawn, below = sum(rest.counts), list(rest.counts), [0] * len(rest.counts), rng.below
        for taken in range(rest.count):
            k = _kind_at(left, below(total - taken))
            left[k] -= 1
            drawn[k] += 1
        return self._outcome(enumerate(drawn))

    def read(self, texts: list[str]) -> tuple:
        """The outcome whose items print as `texts` (in any order): every item left in the pile among them."""
        outcome = DrawPool.read(self, texts)  # the items named, each no more often than pile and refill hold it
        index = {kind: k for k, kind in enumerate(self.kinds)}
        named = [0] * len(self.kinds)
        for item in outcome:
            named[index[item]] += 1
        for kind, kept, times in zip(self.kinds, self.kept, named):
            if times < kept:
                raise LookupError(f"the pile holds fewer items than are drawn, so all it holds is drawn: "
                                  f"{kept} of {text_of(kind)!r}, not {times}")
        return outcome

    def outcome(self, drawn) -> tuple:
        """As DrawPool.outcome: the outcome of these (distinct item's index, times drawn) pairs."""
        return tuple(self.kinds[k] for k, times in drawn for _ in range(times))


def _kind_at(counts, position: int) -> int:
    """The distinct item at `position` when each appears counts[k] times in a row."""
    for k, n in enumerate(counts):
        if position < n:
            return k
        position -= n
    raise AssertionError("position beyond the items")  # pragma: no cover - positions come from below(total)


@lru_cache(maxsize=256)
def _number_of_outcomes(counts: tuple, n: int, replace: bool) -> int:
    """How many multisets of n items the draw can give (counted, not listed); at least MAX_DRAW_OUTCOMES + 1
    when they are clearly more."""
    if replace:
        return comb(n + len(counts) - 1, n) if counts else int(n == 0)
    m = min(n, sum(counts) - n)  # as many multisets are drawn as are left behind
    if len(counts) * m > 4_000_000:  # more than 400 distinct items and m >= 2: at least C(400, 2) outcomes
        return MAX_DRAW_OUTCOMES + 1
    ways = [1] + [0] * m  # ways[j]: multisets of j items from the distinct items seen so far
    for have in counts:
        running = list(accumulate(ways, initial=0))  # running[j]: ways[0] + ... + ways[j - 1]
        ways = [running[j + 1] - running[max(0, j - have)] for j in range(m + 1)]
    return ways[m]


@lru_cache(maxsize=64)
def _table(counts: tuple, n: int, replace: bool) -> tuple[list, int]:
    """([(outcome as (distinct item's index, times drawn) pairs, whole-number weight)], total weight), the outcomes
    in the order of their tuples (as many of the first item as possible first: 1 1 1, 1 1 2, ...)."""
    found: list = []
    last = len(counts) - 1
    after = list(accumulate(reversed(counts), initial=0))[::-1]  # after[k]: items from the k-th distinct one on
    stack = [((), 0, n)]  # (pairs chosen for the items before k, k, items left to draw): a loop, not recursion,
    while stack:          # over what may be thousands of distinct items
        drawn, k, left = stack.pop()
        if left == 0:
            found.append(drawn)
        elif k == last:
            if replace or left <= counts[k]:
                found.append(drawn + ((k, left),))
        else:  # pushed fewest first, so that the most of this item comes off the stack first
            low = 0 if replace else max(0, left - after[k + 1])
            high = left if replace else min(left, counts[k])
            stack.extend((drawn + ((k, c),) if c else drawn, k + 1, left - c) for c in range(low, high + 1))
    if replace:  # n! / prod(c_i!) orders of the items, each order prod(a_i ** c_i) ways
        return [(d, _orders(d) * _product(counts[k] ** c for k, c in d)) for d in found], sum(counts) ** n
    return [(d, _product(comb(counts[k], c) for k, c in d)) for d in found], comb(sum(counts), n)


def _orders(drawn: tuple) -> int:
    """The number of distinct orders of a multiset drawn (pairs (item, times)): n! / prod(c_i!)."""
    result = factorial(sum(c for _, c in drawn))
    for _, c in drawn:
        result //= factorial(c)
    return result


def _product(values) -> int:
    result = 1
    for v in values:
        result *= v
    return result
