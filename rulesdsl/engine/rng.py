"""Deterministic randomness: seeds derived from a run seed, and sampling that is identical on every machine."""

from __future__ import annotations

import hashlib
import random
from bisect import bisect_right
from itertools import accumulate


def derive_seed(seed: int, *parts) -> int:
    """A 63-bit seed derived from a run seed and labels (e.g. the game's index), stable across processes."""
    text = ":".join([str(seed), *map(str, parts)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


class Rng:
    """A seeded random source whose draws depend only on the seed (not on Python's sampling helpers)."""

    __slots__ = ("_random", "bits")

    def __init__(self, seed: int = 0):
        self._random = random.Random(seed)
        self.bits = self._random.getrandbits  # bits(k): a uniform integer of k random bits

    def below(self, n: int) -> int:
        """A uniform integer in [0, n)."""
        if n <= 0:
            raise ValueError("below() needs n > 0")
        bits = n.bit_length()
        getrandbits = self._random.getrandbits
        while True:
            r = getrandbits(bits)
            if r < n:
                return r

    def choice(self, items):
        return items[self.below(len(items))]

    def uniform(self) -> float:
        """A float in [0, 1) built from 53 random bits."""
        return self._random.getrandbits(53) / 9007199254740992.0

    def weighted(self, weights) -> int:
        """An index drawn with probability proportional to its weight."""
        return self.pick(list(accumulate(weights, initial=0.0))[1:], sum(weights))

    def pick(self, cumulative: list, total) -> int:
        """weighted() for weights given as running totals (cumulative[i]: the sum of weights 0..i) and their
        sum: the same draw, found by bisection."""
        i = bisect_right(cumulative, self.uniform() * total)
        return i if i < len(cumulative) else len(cumulative) - 1

    def shuffle(self, items: list) -> list:
        """Shuffle in place and return the list: a uniformly random order, from sorting by random keys
        (53-bit floats; a tie, which would favour the earlier item, has probability below n**2 / 2**53)."""
        items.sort(key=self._key)
        return items

    def _key(self, _item) -> float:
        return self._random.random()

    def getstate(self):
        return self._random.getstate()

    def setstate(self, state):
        self._random.setstate(state)
