"""Deterministic randomness: seeds derived from a run seed, and random streams defined exactly, so that any
implementation of the rules (this interpreter, a compiled backend) draws the same values from the same seed.

The stream, "splitmix64-v1", is SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
generators", OOPSLA 2014; Vigna's reference splitmix64.c, prng.di.unimi.it, which notes that it passes
TestU01's BigCrush) read as a counter-based generator. Its state is a 64-bit key and a counter; output n
(n = 0, 1, ...) is, in unsigned 64-bit arithmetic (every operation modulo 2**64):

    z = key + (n + 1) * 0x9E3779B97F4A7C15
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB
    output = z ^ (z >> 31)

which is exactly the sequence of splitmix64.c started from x = key. Every draw is defined on these outputs,
taken in order (see SplitMix64's methods); only multiplication, xor and shifts of 64-bit words are needed.

Files written before it (results lines and logs without an "rng" field) were played with "mt19937-v0",
Python's Mersenne Twister as rulesdsl used it until then: it stays available, under that name.
"""

from __future__ import annotations

import hashlib
import operator
import random
import struct
from bisect import bisect_right
from functools import lru_cache, partial
from itertools import accumulate, chain

STREAM = "splitmix64-v1"  # the stream of new games
OLD_STREAM = "mt19937-v0"  # the stream of files that do not name one

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB
FIRST_BLOCK, LAST_BLOCK = 32, 1024  # outputs computed at once: a stream's first block, and the most at once


def derive_seed(seed: int, *parts) -> int:
    """A 63-bit seed derived from a run seed and labels (e.g. the game's index), stable across processes."""
    text = ":".join([str(seed), *map(str, parts)])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


class _Draws:
    """The draws both streams define the same way on top of below() and uniform()."""

    __slots__ = ()

    def weighted(self, weights) -> int:
        """An index drawn with probability proportional to its weight."""
        return self.pick(list(accumulate(weights, initial=0.0))[1:], sum(weights))

    def pick(self, cumulative: list, total) -> int:
        """weighted() for weights given as running totals (cumulative[i]: the sum of weights 0..i) and their
        sum: the first index whose running total exceeds uniform() * total (in float64), found by bisection."""
        i = bisect_right(cumulative, self.uniform() * total)
        return i if i < len(cumulative) else len(cumulative) - 1

    def copy(self):
        """An independent stream in the same state."""
        twin = type(self)(0)
        twin.setstate(self.getstate())
        return twin


@lru_cache(maxsize=None)
def _lanes(size: int) -> tuple:
    """What _blocks needs for blocks of `size` (see there): the number with 1 in each 128-bit lane, lane j's
    counter step (j + 1) * GAMMA in each lane j, the mask of each lane's low 64 bits, the step from one block's
    lanes to the next one's, and the reader of the lanes' low halves."""
    ones = int.from_bytes((b"\1" + bytes(15)) * size, "little")
    steps = GAMMA * sum((j + 1) << (128 * j) for j in range(size))
    return ones, steps, MASK * ones, (size * GAMMA & MASK) * ones, struct.Struct("<" + "Q8x" * size)


def _blocks(key: int, counter: int, cursor: list):
    """The outputs from `counter` on, a block at a time (each an iterator); `cursor` is kept as [the block's
    first counter, its size, its iterator] so that the stream can tell its counter.

    A block's outputs are worked out together, each in a 128-bit lane of one big integer: a product of two
    64-bit words fits in its lane, so Python's big-integer arithmetic, in C, works every lane at once (several
    times faster than a loop over the outputs), and masking each lane to 64 bits after each step keeps the
    lanes apart."""
    size = FIRST_BLOCK  # small at first: many streams draw only a few values
    while True:
        ones, steps, low, advance, lanes = _lanes(size)
        x = (((key + counter * GAMMA) & MASK) * ones + steps) & low  # lane j: key + (counter + j + 1) * GAMMA
        while True:
            z = ((x ^ (x >> 30)) & low) * MIX1 & low
            z = ((z ^ (z >> 27)) & low) * MIX2 & low
            cursor[:] = counter, size, iter(lanes.unpack((z ^ (z >> 31)).to_bytes(16 * size, "little")))
            yield cursor[2]
            counter += size
            if size < LAST_BLOCK:
                break
            x = (x + advance) & low  # the next block of the same size
        size *= 2


class SplitMix64(_Draws):
    """The "splitmix64-v1" stream (see the module's docstring): a key and a counter, drawn in blocks.

    `next64()` gives the next 64-bit output, as does iterating `outputs`; every draw is built on them, in order."""

    __slots__ = ("key", "_cursor", "outputs", "next64")
    stream = STREAM

    def __init__(self, seed: int = 0):
        self.setstate((operator.index(seed) & MASK, 0))  # a seed is reduced modulo 2**64 (-1 keys 2**64 - 1)

    def getstate(self) -> tuple:
        """(key, counter): the counter is the number of outputs drawn so far. Plain integers (JSON keeps them)."""
        start, size, left = self._cursor
        return self.key, start + size - left.__length_hint__()

    def setstate(self, state) -> None:
        """Continue from a (key, counter) pair given by getstate() (a list, as JSON gives it back, too)."""
        try:
            key, counter = state
            ok = all(type(v) is int and 0 <= v <= MASK for v in (key, counter))
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError(f"the state of a {STREAM} stream is (key, counter), two whole numbers from 0 to "
                             f"2**64 - 1, not {state!r:.80}")
        cursor = [counter, 0, iter(())]
        self.key, self._cursor = key, cursor
        # chain's own __next__ (C) hands out the outputs: a draw costs no Python call beyond the draw's own
        self.outputs = chain.from_iterable(_blocks(key, counter, cursor))
        self.next64 = self.outputs.__next__

    def __reduce__(self):  # copy, deepcopy and pickle see the state, not the iterators
        return _restored, (type(self), self.getstate())

    def bits(self, k: int) -> int:
        """A uniform integer of k bits: for k <= 64, the top k bits of the next output; beyond, the top k bits
        of the next ceil(k / 64) outputs written one after the other, the first as the most significant. k = 0
        draws nothing."""
        if 0 < k <= 64:
            return self.next64() >> (64 - k)
        if k == 0:
            return 0
        if k < 0:
            raise ValueError("bits() needs k >= 0")
        words = -(-k // 64)
        r = 0
        for _ in range(words):
            r = r << 64 | self.next64()
        return r >> (64 * words - k)

    def words(self, k: int) -> tuple:
        """(words, width) for taking k-bit fields (k >= 1) from the stream, most significant first: an endless
        iterator of the outputs (width 64) for k <= 64, else of bits(k) (width k)."""
        return (self.outputs, 64) if k <= 64 else (iter(partial(self.bits, k), None), k)

    def below(self, n: int) -> int:
        """A uniform integer in [0, n): bits(k) for k the bit length of n - 1, drawn until it is below n
        (n = 1 draws nothing)."""
        if n > 1:
            k = (n - 1).bit_length()
            if k <= 64:
                shift, next64 = 64 - k, self.next64
                r = next64() >> shift
                while r >= n:
                    r = next64() >> shift
                return r
            r = self.bits(k)
            while r >= n:
                r = self.bits(k)
            return r
        if n == 1:
            return 0
        raise ValueError("below() needs n > 0")

    def uniform(self) -> float:
        """A float in [0, 1): the top 53 bits of the next output, times 2**-53."""
        return (self.next64() >> 11) / 9007199254740992.0

    def shuffle(self, items: list) -> list:
        """Shuffle in place and return the list: Fisher-Yates from the end, for i = len - 1 down to 1 swapping
        item i with item below(i + 1)."""
        below = self.below
        for i in range(len(items) - 1, 0, -1):
            j = below(i + 1)
            items[i], items[j] = items[j], items[i]
        return items


def _restored(cls, state):
    """A stream of class `cls` in `state` (how pickle and copy rebuild one)."""
    rng = cls(0)
    rng.setstate(state)
    return rng


class MersenneTwister(_Draws):
    """The "mt19937-v0" stream: Python's random.Random, drawn as rulesdsl did before SplitMix64, kept so that
    runs recorded with it (results lines and logs that name no stream) can be continued exactly."""

    __slots__ = ("_random", "bits")
    stream = OLD_STREAM

    def __init__(self, seed: int = 0):
        self._random = random.Random(seed)
        self.bits = self._random.getrandbits  # bits(k): a uniform integer of k random bits

    def below(self, n: int) -> int:
        """A uniform integer in [0, n): getrandbits of n's bit length until one is below n."""
        if n <= 0:
            raise ValueError("below() needs n > 0")
        bits = n.bit_length()
        getrandbits = self._random.getrandbits
        while True:
            r = getrandbits(bits)
            if r < n:
                return r

    def words(self, k: int) -> tuple:
        """(words, width): an endless iterator of getrandbits(k), k bits wide (one field per word)."""
        return iter(partial(self._random.getrandbits, k), None), k

    def uniform(self) -> float:
        """A float in [0, 1) built from 53 random bits."""
        return self._random.getrandbits(53) / 9007199254740992.0

    def shuffle(self, items: list) -> list:
        """Shuffle in place and return the list, by sorting on random 53-bit float keys."""
        items.sort(key=self._key)
        return items

    def _key(self, _item) -> float:
        return self._random.random()

    def getstate(self):
        return self._random.getstate()

    def setstate(self, state):
        self._random.setstate(state)


Rng = SplitMix64  # the stream of new games
STREAMS = {STREAM: SplitMix64, OLD_STREAM: MersenneTwister}


def stream_named(name: str) -> type:
    """The Rng class of a stream name as files record it; a ValueError naming the known ones otherwise."""
    try:
        return STREAMS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown random stream {name!r:.80} (this version of rulesdsl has "
                         f"{', '.join(STREAMS)})") from None
