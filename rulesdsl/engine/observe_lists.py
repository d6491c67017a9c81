"""How the observation vector shows a list a variable or zone holds: its items counted per value, and, where the
list has a capacity, which value each slot holds (one-hot), so that order is seen too.

A list is shown so only where its items are of a kind known at load (from the typed IR): values of an
enumeration, seats, cells, true/false, whole numbers of a known range, or pieces (told apart by kind and by
attribute value, as the board planes are). Other lists keep the one entry they had (0).
"""

from __future__ import annotations

from ..lang import types as T
from ..limits import MAX_OBSERVED_SLOTS, MAX_OBSERVED_VALUES


class Coding:
    """What one item of a list is told apart by: `labels` names each entry; encode(item) gives one number per
    label (1.0 for the value the item is, for a piece 1.0 per plane it is on, or an attribute's number)."""

    def __init__(self, labels: list, encode):
        self.labels = labels
        self.encode = encode

    def counts(self, items) -> list[float]:
        """How many items of each value (a piece attribute without declared values: the sum of its numbers)."""
        total = [0.0] * len(self.labels)
        for item in items:
            for i, x in enumerate(self.encode(item)):
                total[i] += x
        return total

    def slots(self, items, capacity: int) -> list[float]:
        """For each slot 0..capacity-1, the entries of the item there (zeros past the list's end)."""
        out = []
        for i in range(capacity):
            out += self.encode(items[i]) if i < len(items) else [0.0] * len(self.labels)
        return out

    def slots_fit(self, capacity: int | None) -> bool:
        """Whether a list of this capacity gets slot entries: a capacity is known and the entries stay bounded."""
        return capacity is not None and 0 < capacity * len(self.labels) <= MAX_OBSERVED_SLOTS


def one_hot(values: list, labels: list) -> Coding:
    """A coding of items that are one of `values` (compared by equality and kind; anything else is all zeros)."""
    index = {(_kind(v), v): i for i, v in enumerate(values)}
    size = len(values)

    def encode(item):
        out = [0.0] * size
        i = index.get((_kind(item), item)) if _hashable(item) else None
        if i is not None:
            out[i] = 1.0
        return out
    return Coding(list(labels), encode)


def item_coding(place_type: T.Type, rules, pieces: Coding | None) -> Coding | None:
    """The coding of the items of a list of type `place_type` (a variable's place), or None where the list is not
    one (or its items are of no kind known at load, or of too many values)."""
    if place_type.name not in ("list", "seq") or not place_type.items:
        return None
    item = place_type.items[0]
    if item.name == "piece":
        return pieces if pieces is not None and pieces.labels else None
    values, labels = _domain(item, rules)
    if not values or len(values) > MAX_OBSERVED_VALUES:
        return None
    return one_hot(values, labels)


def _domain(item: T.Type, rules) -> tuple[list, list]:
    """The values an item of type `item` may have, and their names; ([], []) where not known at load."""
    if item.name == "text" and item.names:
        return list(item.names), list(item.names)
    if item.name == "seat":
        return list(range(rules.num_players)), list(rules.player_names)
    if item.name == "cell":
        cells = list(rules.board.cells)
        return cells, [c.name for c in cells]
    if item.name == "bool":
        return [False, True], ["false", "true"]
    if item.name == "int" and item.low is not None and item.high is not None and \
            item.high - item.low < MAX_OBSERVED_VALUES:
        return list(range(item.low, item.high + 1)), [str(n) for n in range(item.low, item.high + 1)]
    return [], []


def _kind(value) -> str:
    # a seat 1, the cell of index 1 and true are equal in Python: each list is coded by one kind of value
    return "bool" if isinstance(value, bool) else "text" if isinstance(value, str) else "number"


def _hashable(value) -> bool:
    return isinstance(value, (bool, int, str))
