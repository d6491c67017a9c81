"""Uniformly random arrangements of a list of items that meet the rule file's requirements (rejection sampling)."""

from __future__ import annotations

from functools import lru_cache
from math import comb

_CHUNK = 8  # bits decoded per table lookup
TRIES = 1_000_000  # draws refused before an arrangement is given up


def sample_arrangement(items: list, accept, rng, tries: int = TRIES) -> list | None:
    """A uniformly random order of `items` for which accept(order) holds; None if `tries` draws find none.

    Every draw is uniform over the distinct orders, so keeping the first accepted one is uniform over
    the accepted orders. Items of exactly two kinds (black and white stones, say) are drawn as random
    bit strings with the right number of ones: much cheaper than a shuffle, and the same distribution.
    The bit strings are the n-bit fields of the stream's words (Rng.words), the most significant first.
    """
    shape = two_kinds(items)
    if shape is not None:
        words, width = rng.words(shape[1])
        return _bit_string_sampler(*shape, width)(words, accept, tries)
    items = list(items)
    shuffle = rng.shuffle
    for _ in range(tries):
        order = shuffle(items)
        if accept(order):
            return list(order)
    return None


def two_kinds(items: list) -> tuple | None:
    """(the two kinds, number of items, how many of the first kind) for items of exactly two distinct kinds, or
    None when the bit-string method does not fit."""
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
    return kinds, n, ones


@lru_cache(maxsize=32)
def _bit_string_sampler(kinds: tuple, n: int, ones: int, word: int):
    """sample(words, accept, tries) taking n-bit strings from an endless iterator of `word`-bit words (each word's
    fields from the most significant; what is left of a word when a string is accepted is not used), keeping
    those with `ones` ones (bit i set: position i holds kinds[0]), decoded a chunk at a time through tables,
    until accept() holds or has failed `tries` times; generated so that a draw is a few operations."""
    namespace = {}
    decode = []
    for k, start in enumerate(range(0, n, _CHUNK)):
        width = min(_CHUNK, n - start)
        namespace[f"T{k}"] = [[kinds[0] if v >> i & 1 else kinds[1] for i in range(width)] for v in range(1 << width)]
        decode.append(f"T{k}[x >> {start} & {(1 << width) - 1}]")
    fields = "".join(f"        x = w >> {word - n * (i + 1)}{f' & {(1 << n) - 1}' if i else ''}\n"
                     f"        if x.bit_count() == {ones}:\n"
                     f"            order = {' + '.join(decode)}\n"
                     f"            if accept(order):\n"
                     f"                return order\n"
                     f"            tries -= 1\n"
                     f"            if tries <= 0:\n"
                     f"                return None\n" for i in range(word // n))
    source = (f"def sample(words, accept, tries):\n"
              f"    for w in words:\n"
              f"{fields}")
    exec(compile(source, "<arrangement sampler>", "exec"), namespace)  # noqa: S102
    return namespace["sample"]
