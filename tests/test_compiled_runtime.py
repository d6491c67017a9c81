"""The compiled backend's helpers that read lists where they lie, or move pieces in place, against plain Python
versions of what they stand for (the list made, then asked; the push as a queue of carried pieces), on random
inputs. Skipped where numba is not installed (CI installs it)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")

from rulesdsl.backends.compiled import runtime as rt  # noqa: E402


def _pushed(cells: list, rays, lengths, frm: int, to: int) -> tuple[int, list]:
    """push(frm, to) as the language describes it: the pieces in the way are carried ahead, each empty cell past
    `to` taking the first carried piece, until none is carried (0) or the ray ends (2, pieces left the board)."""
    cells = list(cells)
    found = [(d, k) for d in range(len(rays)) for k in range(lengths[d][frm]) if rays[d][frm][k] == to]
    if not found:
        return 1, cells
    d, at = found[-1]
    ray = rays[d][frm][:lengths[d][frm]]
    mover, cells[frm] = cells[frm], 0
    carried = []
    for c in ray[:at + 1]:
        if cells[c]:
            carried.append(cells[c])
            cells[c] = 0
    cells[to] = mover
    for c in ray[at + 1:]:
        if not carried:
            return 0, cells
        if cells[c]:
            carried.append(cells[c])
        cells[c] = carried.pop(0)
    return (0 if not carried else 2), cells


def _line_rays(n: int) -> tuple:
    """Rays along a line of n cells, to the right (direction 0) and to the left (1), -1 padded."""
    rays = np.full((2, n, n), -1, np.int64)
    lengths = np.zeros((2, n), np.int64)
    for c in range(n):
        right, left = list(range(c + 1, n)), list(range(c - 1, -1, -1))
        for d, ray in enumerate((right, left)):
            rays[d, c, :len(ray)] = ray
            lengths[d, c] = len(ray)
    return rays, lengths


def test_a_push_worked_out_in_place_moves_the_pieces_the_carried_queue_does():
    rng = random.Random(5)
    n = 9
    rays, lengths = _line_rays(n)
    seen = set()
    for _ in range(3000):
        cells = [rng.choice([0, 0, 1, 2, 3]) for _ in range(n)]
        frm, to = rng.randrange(n), rng.randrange(n)
        cells[frm] = cells[frm] or 4
        got = np.array(cells, np.int64)
        code = rt.push(got, 0, rays, lengths, frm, to)
        want_code, want = _pushed(cells, rays.tolist(), lengths.tolist(), frm, to)
        assert (code, got.tolist()) == (want_code, want), (cells, frm, to)
        seen.add(code)
    assert seen == {0, 1, 2}  # moves on no ray, pushes that fit and pushes off the board were all met


@pytest.mark.parametrize("size", [0, 1, 5, 32, 33, 200])
def test_distinct_gives_the_items_in_the_order_they_first_appear(size):
    rng = random.Random(size)
    items = [rng.randrange(-3, 12) for _ in range(size)]
    assert rt.distinct(np.array(items, np.int64)).tolist() == list(dict.fromkeys(items))


def test_asking_a_list_in_place_answers_as_asking_the_list_made():
    rng = random.Random(9)
    enum = np.array([7, 8, 9, 10], np.int64)
    for _ in range(300):
        s = np.array([rng.randrange(-1, 4) for _ in range(24)], np.int64)
        n, x = rng.randrange(0, 6), rng.randrange(-2, 11)
        texts = rng.random() < 0.5
        s[0] = rng.randrange(0, 7)  # a zone's length at 0, its pieces from 1 on
        made = rt.optionals(s, 8, 14, n, enum, texts, -1)
        assert rt.optionals_has(s, 8, 14, n, enum, texts, -1, x) == (x in made.tolist())
        assert rt.zone_has(s, 1, 0, 6, x) == (x in rt.zone_items(s, 1, 0, 6).tolist())
        assert rt.table_values_has(s, 8, 14, 5, x) == (x in rt.table_values(s, 8, 14, 5).tolist())


def test_a_range_or_a_sum_of_lists_walked_in_place_is_refused_beyond_the_limit_as_the_list_made():
    assert rt.span_stop(3, 7) == 8 and rt.span_stop(3, 1) == 3
    with pytest.raises(ValueError, match="1,000,000"):
        rt.span_stop(0, rt.MAX_ITEMS)
    big, small = np.zeros(rt.MAX_ITEMS, np.int64), np.zeros(1, np.int64)
    assert rt.joined_size(big[:5], small) == 6
    with pytest.raises(ValueError, match="1,000,000"):
        rt.joined_size(big, small)


def _checked_arithmetic() -> dict:
    """The module helpers that add, subtract, multiply and sum whole numbers within 64 bits (arith.py), compiled."""
    from numba import njit

    from rulesdsl.backends.compiled import arith
    namespace = {"_tiny": njit(boundscheck=True), "_jit": njit(boundscheck=True)}
    exec(f"{arith.PLUS}\n\n{arith.TIMES}\n\n{arith.SUM64}", namespace)  # noqa: S102 - the package's own source
    return namespace


_EDGES = [0, 1, -1, 2, -2, 3, 2**31 - 1, -2**31, 2**31, 2**32 + 5, 3037000499, 3037000500, -3037000500,
          2**62, -2**62, 2**63 - 1, -2**63, 2**63 - 2, -2**63 + 1]


def test_checked_arithmetic_is_pythons_within_64_bits_and_an_error_beyond():
    helpers = _checked_arithmetic()
    rng = random.Random(5)
    values = _EDGES + [rng.randrange(-2**63, 2**63) >> rng.randrange(64) for _ in range(150)]
    pairs = [(a, b) for a in _EDGES for b in _EDGES] + [(rng.choice(values), rng.choice(values)) for _ in range(3000)]
    for name, op in (("_plus", lambda a, b: a + b), ("_minus", lambda a, b: a - b), ("_times", lambda a, b: a * b)):
        fn = helpers[name]
        for a, b in pairs:
            exact = op(a, b)
            if -2**63 <= exact < 2**63:
                assert fn(a, b, "E0") == exact, (name, a, b)
            else:
                with pytest.raises(ValueError, match="E7"):
                    fn(a, b, "E7")
    for _ in range(300):
        xs = [rng.choice(values) >> rng.randrange(8) for _ in range(rng.randrange(6))]
        exact = [sum(xs[:i + 1]) for i in range(len(xs))]
        if all(-2**63 <= s < 2**63 for s in exact):
            assert helpers["_sum64"](np.array(xs, np.int64), "E0") == sum(xs)
        else:  # (a running total beyond 64 bits, as compiled code adds)
            with pytest.raises(ValueError, match="E3"):
                helpers["_sum64"](np.array(xs, np.int64), "E3")


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.integers(-2**63, 2**63 - 1), max_size=70))
def test_sorting_and_the_largest_item_of_whole_numbers_are_pythons(items):
    xs = np.array(items, np.int64)
    assert rt.sorted_copy(xs).tolist() == sorted(items) and xs.tolist() == items  # a sorted copy, not in place
    assert rt.sorted_set(xs).tolist() == sorted(set(items))
    if items:
        assert rt.largest(xs) == max(items)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=40))
def test_the_largest_of_floats_is_numpys_nan_included(items):
    xs = np.array(items, np.float64)
    got, want = rt.largest(xs), xs.max()
    assert got == want or (np.isnan(got) and np.isnan(want))
    assert rt.sorted_copy(xs[~np.isnan(xs)]).tolist() == sorted(x for x in items if x == x)


@pytest.mark.parametrize("width", [0, 1, 7])
def test_copy_into_fills_a_row_from_the_start_of_another(width):
    src = np.arange(10, dtype=np.int64)
    dst = np.full(width, -1, np.int64)
    rt.copy_into(dst, src)
    assert dst.tolist() == list(range(width))
    with pytest.raises(IndexError):
        rt.copy_into(np.zeros(11, np.int64), src)  # a source too short: a bounds error, never a read past it


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(-5, 9), max_size=7), st.integers(-1, 8), st.booleans())
def test_choices_in_compiled_code_are_the_python_engines_in_its_order_and_counted_alike(xs, k, ordered):
    from rulesdsl.lang.builtins import RuleValueError, combinations, permutations
    from rulesdsl.limits import LimitExceeded
    made = rt.permutations if ordered else rt.combinations
    try:
        expected = (permutations if ordered else combinations)(xs, k)
    except RuleValueError:  # a size below 0: raised with its code and the size, for the message to show
        with pytest.raises(ValueError) as caught:
            made(np.array(xs, np.int64), k, "E0", "E1")
        assert caught.value.args == ("E0", k)
        return
    except LimitExceeded:  # (not reached by lists this short: see the test below)
        raise AssertionError("no limit passed") from None
    rows = made(np.array(xs, np.int64), k, "E0", "E1")
    assert rows.shape == (len(expected), k)
    assert rows.tolist() == [list(choice) for choice in expected]


@pytest.mark.parametrize("n, k, ordered", [(1000, 2, False), (12, 12, True), (40, 20, False), (10 ** 6, 3, True)])
def test_choices_past_the_limit_are_counted_to_where_the_python_engine_stops(n, k, ordered):
    from rulesdsl.lang.builtins import combinations, permutations
    from rulesdsl.limits import LimitExceeded
    with pytest.raises(LimitExceeded) as python:
        (permutations if ordered else combinations)(range(n), k)
    with pytest.raises(ValueError) as compiled:
        (rt.permutations if ordered else rt.combinations)(np.arange(n, dtype=np.int64), k, "E0", "E1")
    code, count, size = compiled.value.args
    assert code == "E1" and f"would give {count:,} or more lists of {size:,} items" in str(python.value)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-5, 9), max_size=8))
def test_subsets_in_compiled_code_are_the_python_engines_as_rows_of_their_length_then_their_items(xs):
    from rulesdsl.lang.builtins import subsets
    rows = rt.subsets(np.array(xs, np.int64), "E0")
    assert [list(row[1:1 + row[0]]) for row in rows.tolist()] == subsets(xs)


@pytest.mark.parametrize("n", [17, 19, 20, 64, 1000])
def test_subsets_past_the_limit_are_refused_in_compiled_code_as_by_the_python_engine(n):
    from rulesdsl.lang.builtins import subsets
    from rulesdsl.limits import LimitExceeded
    with pytest.raises(LimitExceeded, match=f"would hold {2 ** min(n, 64) * (n + 2) // 2:,} items"):
        subsets(range(n))
    with pytest.raises(ValueError) as compiled:
        rt.subsets(np.arange(n, dtype=np.int64), "E1")
    assert compiled.value.args == ("E1", n)  # (the message shows the count the Python engine shows, from n)
    assert len(subsets(range(16))) == rt.subsets(np.arange(16, dtype=np.int64), "E1").shape[0]  # the last allowed
