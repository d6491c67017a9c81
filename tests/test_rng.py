"""The random stream: its outputs against SplitMix64 written here independently, every draw against its
definition on those outputs, uniform shuffles, states that survive a copy and JSON, and the old stream kept."""

from __future__ import annotations

import copy
import json
import pickle
import random
from bisect import bisect_right
from collections import Counter
from itertools import permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulesdsl import Rng, derive_seed
from rulesdsl.engine.arrange import sample_arrangement
from rulesdsl.engine.rng import FIRST_BLOCK, LAST_BLOCK, OLD_STREAM, STREAM, MersenneTwister, SplitMix64, stream_named


def splitmix64(seed: int, count: int) -> list[int]:
    """The first outputs of splitmix64.c (Vigna) from state x = seed, in plain integer arithmetic."""
    x, out = seed % 2 ** 64, []
    for _ in range(count):
        x = (x + 0x9E3779B97F4A7C15) % 2 ** 64
        z = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9 % 2 ** 64
        z = (z ^ (z >> 27)) * 0x94D049BB133111EB % 2 ** 64
        out.append(z ^ (z >> 31))
    return out


class Outputs:
    """The reference outputs of a seed, read one at a time, as the draws' definitions read them."""

    def __init__(self, seed: int, count: int = 5000):
        self.values, self.used = splitmix64(seed, count), 0

    def next(self) -> int:
        self.used += 1
        return self.values[self.used - 1]

    def bits(self, k: int) -> int:
        words = -(-k // 64)
        r = 0
        for _ in range(words):
            r = r << 64 | self.next()
        return r >> (64 * words - k)

    def below(self, n: int) -> int:
        if n == 1:
            return 0
        k = (n - 1).bit_length()
        while True:
            r = self.bits(k)
            if r < n:
                return r


# -- the outputs -------------------------------------------------------------------------------------------
def test_the_reference_gives_splitmix64s_published_outputs():
    assert splitmix64(1234567, 5) == [6457827717110365317, 3203168211198807973, 9817491932198370423,
                                      4593380528125082431, 16408922859458223821]
    assert splitmix64(0, 3) == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


@pytest.mark.parametrize("seed", [0, 1, 1234567, 2 ** 63 - 1, 2 ** 64 - 1, derive_seed(1, "chance")])
def test_outputs_are_splitmix64_across_blocks(seed):
    rng = Rng(seed)
    assert [rng.next64() for _ in range(5000)] == splitmix64(seed, 5000)  # past several blocks of every size
    assert rng.getstate() == (seed, 5000)


def test_a_seed_is_taken_modulo_2_to_the_64():
    assert Rng(-1).getstate() == Rng(2 ** 64 - 1).getstate() == (2 ** 64 - 1, 0)
    assert Rng(2 ** 64 + 5).next64() == splitmix64(5, 1)[0]


def test_new_games_use_splitmix64():
    assert Rng is SplitMix64 and Rng.stream == STREAM == "splitmix64-v1"
    assert stream_named(OLD_STREAM) is MersenneTwister
    with pytest.raises(ValueError, match="unknown random stream 'philox'.*splitmix64-v1, mt19937-v0"):
        stream_named("philox")


# -- every draw, defined on the outputs -------------------------------------------------------------------
@pytest.mark.parametrize("k", [1, 7, 24, 53, 63, 64, 65, 128, 130])
def test_bits_are_the_top_bits_of_the_next_outputs(k):
    rng, ref = Rng(99), Outputs(99)
    assert [rng.bits(k) for _ in range(50)] == [ref.bits(k) for _ in range(50)]
    assert rng.getstate()[1] == ref.used == 50 * -(-k // 64)
    assert rng.bits(0) == 0 and rng.getstate()[1] == ref.used  # no bits, no output drawn


@pytest.mark.parametrize("n", [2, 3, 5, 6, 37, 64, 65, 100, 2 ** 40 + 3, 2 ** 64, 2 ** 64 + 5, 3 ** 50])
def test_below_rejects_exactly_as_defined(n):
    rng, ref = Rng(7), Outputs(7)
    assert [rng.below(n) for _ in range(200)] == [ref.below(n) for _ in range(200)]
    assert rng.getstate()[1] == ref.used  # the same outputs were thrown away


def test_below_of_one_draws_nothing_and_below_of_zero_is_refused():
    rng = Rng(3)
    assert rng.below(1) == 0 and rng.getstate() == (3, 0)
    with pytest.raises(ValueError, match="n > 0"):
        rng.below(0)


def test_below_three_keeps_the_top_two_bits_of_the_outputs_that_are_below_three():
    kept = [v >> 62 for v in splitmix64(11, 40) if v >> 62 < 3]
    rng = Rng(11)
    assert [rng.below(3) for _ in kept] == kept


def test_uniform_is_the_top_53_bits_of_an_output():
    rng = Rng(5)
    assert [rng.uniform() for _ in range(100)] == [(v >> 11) / 2 ** 53 for v in splitmix64(5, 100)]


def test_pick_and_weighted_bisect_a_uniform_point():
    weights = [0.5, 2, 0, 1.5]
    cumulative, total = [0.5, 2.5, 2.5, 4.0], 4.0
    points = [(v >> 11) / 2 ** 53 * total for v in splitmix64(8, 300)]
    expected = [min(bisect_right(cumulative, p), 3) for p in points]
    rng, other = Rng(8), Rng(8)
    assert [rng.pick(cumulative, total) for _ in range(150)] == expected[:150]
    assert [other.weighted(weights) for _ in range(150)] == expected[:150]
    assert 2 not in expected  # a zero weight is never drawn


def test_shuffle_is_fisher_yates_from_the_end_with_below():
    items, ref = list(range(30)), Outputs(21)
    for i in range(29, 0, -1):
        j = ref.below(i + 1)
        items[i], items[j] = items[j], items[i]
    rng = Rng(21)
    assert rng.shuffle(list(range(30))) == items and rng.getstate()[1] == ref.used


def test_shuffle_is_a_permutation_and_uniform():
    rng, draws = Rng(2024), 24_000
    counts = Counter(tuple(rng.shuffle(list("abcd"))) for _ in range(draws))
    orders = list(permutations("abcd"))
    assert set(counts) == set(orders)  # every order of the four, and nothing else
    expected = draws / len(orders)
    chi_square = sum((counts[o] - expected) ** 2 / expected for o in orders)
    assert chi_square < 49.7  # chi-square, 23 degrees of freedom, p = 0.001


def test_two_kinds_are_arranged_from_bit_strings_taken_from_the_top_of_each_output():
    items = list("WWWBBBB")  # 7 items: nine 7-bit strings an output, three bits set wanted
    strings = [v >> (64 - 7 * (i + 1)) & 127 for v in splitmix64(13, 40) for i in range(9)]
    balanced = [x for x in strings if x.bit_count() == 3]
    seen = []

    def accept(order):  # the third string with three bits set is the first accepted
        seen.append(order)
        return len(seen) == 3
    order = sample_arrangement(items, accept, Rng(13))
    assert seen == [["W" if x >> i & 1 else "B" for i in range(7)] for x in balanced[:3]]
    assert order == seen[-1]


# -- the state ---------------------------------------------------------------------------------------------
def block_ends() -> list[int]:
    """How many outputs the stream has worked out after each of its blocks, the first two of the largest size
    included."""
    ends, size = [FIRST_BLOCK], FIRST_BLOCK
    while size < LAST_BLOCK:
        size *= 2
        ends.append(ends[-1] + size)
    return ends + [ends[-1] + LAST_BLOCK]


@pytest.mark.parametrize("drawn", sorted({0, 1} | {end + d for end in block_ends() for d in (-1, 0, 1)}))
def test_getstate_setstate_round_trip_anywhere_in_a_block(drawn):
    rng = Rng(77)
    for _ in range(drawn):
        rng.next64()
    state = rng.getstate()
    assert state == (77, drawn)
    ahead = [rng.next64() for _ in range(40)]
    again = Rng(0)
    again.setstate(state)
    assert [again.next64() for _ in range(40)] == ahead == splitmix64(77, drawn + 40)[drawn:]


def test_copies_draw_on_alone():
    rng = Rng(12)
    rng.below(1000)
    twins = [rng.copy(), copy.copy(rng), copy.deepcopy(rng), pickle.loads(pickle.dumps(rng))]
    ahead = [rng.next64() for _ in range(20)]
    assert all([twin.next64() for _ in range(20)] == ahead for twin in twins)


@pytest.mark.parametrize("state", [None, 5, [1], [1, 2, 3], [1, -1], [2 ** 64, 0], ["1", 0], [1.0, 0], [True, 0]])
def test_setstate_refuses_what_is_not_a_state(state):
    with pytest.raises(ValueError, match=r"\(key, counter\)"):
        Rng(0).setstate(state)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(-2 ** 70, 2 ** 70), drawn=st.integers(0, 2100), k=st.integers(1, 100))
def test_a_state_survives_json(seed, drawn, k):
    rng = Rng(seed)
    for _ in range(drawn):
        rng.bits(k)
    text = json.dumps(rng.getstate())
    ahead = [rng.below(1000) for _ in range(5)] + [rng.uniform()]
    restored = Rng(1)
    restored.setstate(json.loads(text))
    assert [restored.below(1000) for _ in range(5)] + [restored.uniform()] == ahead


# -- the old stream ----------------------------------------------------------------------------------------
def test_the_old_stream_draws_as_pythons_mersenne_twister_did():
    old, mt = MersenneTwister(9), random.Random(9)
    assert old.stream == OLD_STREAM == "mt19937-v0"

    def below(n):
        while True:
            r = mt.getrandbits(n.bit_length())
            if r < n:
                return r
    assert [old.below(37) for _ in range(50)] == [below(37) for _ in range(50)]
    assert old.uniform() == mt.getrandbits(53) / 2 ** 53
    items = list(range(10))
    keys = [mt.random() for _ in items]
    assert old.shuffle(list(range(10))) == sorted(items, key=lambda i: keys[i])
    twin = old.copy()
    assert [twin.below(10 ** 9) for _ in range(5)] == [old.below(10 ** 9) for _ in range(5)]
