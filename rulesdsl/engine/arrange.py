"""Uniformly random arrangements of a list of items that meet the rule file's requirements (rejection sampling)."""

from __future__ import annotations

from functools import lru_cache
from math import comb

from ..lang.emit import Assign, Effect, For, Function, If, Return, render
from ..lang.verify import namespace_builtins, verify

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
    until accept() holds or has failed `tries` times. Generated, as rule code is (an emit tree, rendered and
    verified), with one test per field of a word written out: a draw is a few operations."""
    namespace = {"__builtins__": namespace_builtins()}
    decode = []
    for k, start in enumerate(range(0, n, _CHUNK)):
        width = min(_CHUNK, n - start)
        namespace[f"K{k}"] = [[kinds[0] if v >> i & 1 else kinds[1] for i in range(width)] for v in range(1 << width)]
        decode.append(f"K{k}[L_x >> {start} & {(1 << width) - 1}]")
    body = []
    for i in range(word // n):
        body += [Assign("L_x", f"L_w >> {word - n * (i + 1)}" + (f" & {(1 << n) - 1}" if i else "")),
                 If(f"L_x.bit_count() == {ones}", [
                     Assign("L_order", " + ".join(decode)),
                     If("L_accept(L_order)", [Return("L_order")]),
                     Effect("L_tries -= 1"),
                     If("L_tries <= 0", [Return("None")])])]
    fn = Function(f"sample_{n}_{ones}", ("L_words", "L_accept", "L_tries"), [For(("L_w",), "L_words", body)])
    source = render(fn)
    verify(source)
    exec(compile(source, "<arrangement sampler>", "exec"), namespace)  # noqa: S102 - verified generated code
    return namespace[fn.name]
