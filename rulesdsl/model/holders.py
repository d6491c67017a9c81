"""Declared zones and variables: each one's shape (one place, one per seat or one per key) and visibility."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

VISIBILITY_WORDS = ("all", "owner", "team", "none")  # what `visible:` may say besides an expression of the viewer


@dataclass(frozen=True)
class Holder:
    """A zone or variable as the rule file declares it. Its state value is one place, a list of places
    indexed by seat (`per: player`) or a table of places by key (`keys:`); every reader of that value
    goes through `places`, `map` and `build`, so the shapes are told apart here only."""

    name: str
    zone: bool  # a zone (each place a list of pieces) rather than a variable
    per: str | None = None  # "player": one place per seat
    keys: tuple | None = None  # one place per key
    visible: str = "all"  # who sees a place: all | owner | team | none, or the text of an expression of the viewer
    # `visible:` an expression: (S, me, viewer, owner, key) -> whether seat `viewer` sees the place of `owner` (its
    # seat, or none) and `key` (its key, or none); None for the four words
    sight: Callable | None = None
    init_fn: Callable | None = None  # (S, me, owner, key) -> a place's starting value; None: empty
    capacity: int | None = None  # the most items a place (a zone's pieces, a variable's list) ever holds
    slots: bool = False  # `observe: slots`: observations show which piece each slot of the zone holds

    @property
    def whole(self) -> bool:
        """The value is one place (assigned as a whole), neither per seat nor per key."""
        return self.per is None and self.keys is None

    def places(self, value):
        """(seat or key, place) for each place of the state value; (None, value) when it is whole."""
        if self.per == "player":
            return enumerate(value)
        if self.keys is not None:
            return value.items()
        return ((None, value),)

    def holds(self, value, place) -> bool:
        """Whether `place` is one of the places of the state value itself (not an equal copy)."""
        if self.per is None and self.keys is None:
            return value is place
        for found in value if self.per == "player" else value.values():
            if found is place:
                return True
        return False

    def map(self, value, fn):
        """A value of the same shape, each place replaced by fn(seat or key, place)."""
        if self.per == "player":
            return [fn(p, v) for p, v in enumerate(value)]
        if self.keys is not None:
            return {k: fn(k, v) for k, v in value.items()}
        return fn(None, value)

    def build(self, players: int, make):
        """A new state value of this shape: make(seat, key) gives each place (None where it does not apply)."""
        if self.per == "player":
            return [make(p, None) for p in range(players)]
        if self.keys is not None:
            return {k: make(None, k) for k in self.keys}
        return make(None, None)
