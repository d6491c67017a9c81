"""Uniformly random arrangements of a list of items that meet the rule file's requirements (rejection sampling)."""

from __future__ import annotations

from functools import lru_cache
from math import comb

_CHUNK = 8  # bits decoded per table lookup


def sample_arrangement(items: list, accept, rng, tries: int = 1_000_000) -> list | None:
    """A uniformly random order of `items` for which accept(order) holds; None if `tries` draws find none.

    Every draw is uniform over the distinct orders, so keeping the first accepted one is uniform over
    the accepted orders. Items of exactly two kinds (black and white stones, say) are drawn as random
    bit strings with the right number of ones: much cheaper than a shuffle, and the same distribution.
    """
    sampler = _two_kind_sampler(items)
    if sampler is not None:
        return sampler(rng.bits, accept, tries)
    items = list(items)
    shuffle = rng.shuffle
    for _ in range(tries):
        order = shuffle(items)
        if accept(order):
            return list(order)
    return None


def _two_kind_sampler(items: list):
    """A sampler for items of exactly two distinct kinds, or None when the bit-string method does not fit."""
    try:
        kinds = tuple(dict.fromkeys(items))
    except TypeError:  # unhashable items
        return None
    n = len(items)
    if len(kinds) != 2 or n > 256:
        return None
    ones = sum(1 for item in items if item == kinds[0])
    if comb(n, ones) * 64 < 2 ** n:  # too lopsided: most bit strings would be thrown away
        return None
    return _bit_string_sampler(kinds, n, ones)


@lru_cache(maxsize=32)
def _bit_string_sampler(kinds: tuple, n: int, ones: int):
    """sample(bits, accept, tries) drawing n-bit strings with `ones` ones (bit i set: position i holds
    kinds[0]), decoded a chunk at a time through tables; generated so that a draw is a few operations."""
    namespace = {}
    decode = []
    for k, start in enumerate(range(0, n, _CHUNK)):
        width = min(_CHUNK, n - start)
        namespace[f"T{k}"] = [[kinds[0] if v >> i & 1 else kinds[1] for i in range(width)] for v in range(1 << width)]
        decode.append(f"T{k}[x >> {start} & {(1 << width) - 1}]")
    source = (f"def sample(bits, accept, tries):\n"
              f"    for _ in range(tries):\n"
              f"        x = bits({n})\n"
              f"        while x.bit_count() != {ones}:\n"
              f"            x = bits({n})\n"
              f"        order = {' + '.join(decode)}\n"
              f"        if accept(order):\n"
              f"            return order\n"
              f"    return None\n")
    exec(compile(source, "<arrangement sampler>", "exec"), namespace)  # noqa: S102
    return namespace["sample"]
