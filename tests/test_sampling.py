"""The engine's fast paths give the same answers as the plain ones: arrangement sampling stays uniform,
interned moves behave as fresh ones, and specialised built-ins agree with their general form."""

from __future__ import annotations

import textwrap
from collections import Counter
from itertools import permutations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import rulesdsl
from rulesdsl.engine.arrange import sample_arrangement
from rulesdsl.engine.rng import MersenneTwister, Rng
from rulesdsl.lang.builtins import pure_builtins
from rulesdsl.model.rules import Move

from .helpers import load, position

has_run = pure_builtins()["has_run"].fn


def no_three(order):
    return not has_run(order, 3, cyclic=True)


def chi_square(counts: Counter, outcomes: list, draws: int) -> float:
    expected = draws / len(outcomes)
    return sum((counts[o] - expected) ** 2 / expected for o in outcomes)


# Critical values of chi-square at p = 0.001 for the degrees of freedom used below.
CRITICAL = {13: 34.5, 23: 49.7, 89: 136.0}


@pytest.mark.parametrize("items", [
    list("WWWBBB"),  # two kinds: drawn as bit strings
    list("WWBBXX"),  # three kinds: drawn by shuffling
])
def test_accepted_arrangements_are_uniform(items):
    valid = sorted({o for o in permutations(items) if no_three(o)})
    rng, draws = Rng(7), 6000
    counts = Counter(tuple(sample_arrangement(items, no_three, rng)) for _ in range(draws))
    assert set(counts) == set(valid)  # only valid arrangements, and every one of them
    assert chi_square(counts, valid, draws) < CRITICAL[len(valid) - 1]


def test_lopsided_two_kind_items_are_uniform_too():
    items = ["x"] + ["o"] * 23  # too few bit strings have one 1: shuffled instead
    rng, draws = Rng(3), 4800
    counts = Counter(sample_arrangement(items, lambda order: True, rng).index("x") for _ in range(draws))
    assert chi_square(counts, list(range(24)), draws) < CRITICAL[23]


def bit_strings_drawn(items, accept, rng, tries):
    """Two kinds of items arranged as the definition says: each n-bit field of the stream's words, most
    significant first, with as many ones as items of the first kind, read bit i -> position i; the orders
    offered to accept(), and the one it took (None: gave up after `tries`)."""
    first, other = dict.fromkeys(items)
    n, ones = len(items), items.count(first)
    words, width = rng.words(n)
    for word in words:
        for i in range(width // n):
            x = word >> (width - n * (i + 1)) & (1 << n) - 1
            if bin(x).count("1") == ones:
                order = [first if x >> j & 1 else other for j in range(n)]
                if accept(order):
                    return order
                tries -= 1
                if tries <= 0:
                    return None


@pytest.mark.parametrize("stream", [Rng, MersenneTwister])
@pytest.mark.parametrize("n", [2, 5, 8, 9, 16, 17, 24, 33, 64, 65, 130])
@pytest.mark.parametrize("taken", [1, 4, None])  # the order accepted (None: none, so the sampler gives up)
def test_two_kinds_are_drawn_bit_for_bit_as_defined(stream, n, taken):
    items = ["W"] * (n // 2) + ["B"] * (n - n // 2)
    runs = []
    for sampler in (sample_arrangement, bit_strings_drawn):
        rng, offered = stream(n * 31 + (taken or 0)), []

        def accept(order, offered=offered):
            offered.append(list(order))
            return len(offered) == taken
        found = sampler(items, accept, rng, tries=6)
        runs.append((offered, found, rng.uniform()))  # the stream left at the same place too
    assert runs[0] == runs[1]
    assert len(runs[0][0]) == (taken or 6)


def test_an_impossible_requirement_gives_up():
    assert sample_arrangement(list("WWWB"), no_three, Rng(1), tries=200) is None


def test_unhashable_items_are_shuffled():
    items = [[1], [2], [2]]
    order = sample_arrangement(items, lambda o: o[0] == [1], Rng(5))
    assert order == [[1], [2], [2]]


@given(st.lists(st.one_of(st.integers(0, 5), st.floats(0, 3)), min_size=1, max_size=12)
       .filter(lambda ws: sum(ws) > 0), st.integers(0, 2 ** 32))
def test_weighted_draws_match_a_linear_scan(weights, seed):
    def linear(rng):  # the definition: the first index whose running total exceeds a uniform point
        x, acc = rng.uniform() * sum(weights), 0.0
        for i, w in enumerate(weights):
            acc += w
            if x < acc:
                return i
        return len(weights) - 1

    fast, slow = Rng(seed), Rng(seed)
    assert [fast.weighted(weights) for _ in range(20)] == [linear(slow) for _ in range(20)]


def test_interned_moves_equal_fresh_ones():
    game = load("mabula", options={"setup": "WBWBWBWBWBWBWBWBWBWBWBWB"})
    state = game.new_initial_state()
    first, again = state.legal_moves(), state.legal_moves()
    assert all(a is b for a, b in zip(first, again))
    for move in first:
        fresh = Move(move.rule, move.args, move.player)
        assert fresh == move and hash(fresh) == hash(move) and str(fresh) == str(move)
        assert state.parse_move(str(move)) == move


GROUPS = """
game: Groups
players: {count: 2}
moves:
  take:
    params:
      group: "[[1, 2], [3]]"
    notation: "take {group}"
flow:
  steps:
    play:
      moves: [take]
end:
  - when: "turn >= 2"
    winners: "[]"
"""


def test_moves_with_unhashable_args_are_listed(tmp_path):
    path = tmp_path / "groups.yaml"
    path.write_text(textwrap.dedent(GROUPS), encoding="utf-8")
    state = rulesdsl.load_game(str(path)).new_initial_state()
    assert [str(m) for m in state.legal_moves()] == ["take 1 2", "take 3"]
    state.apply("take 1 2")
    assert state.history_texts() == ["take 1 2"]


def test_push_targets_within_a_constant_region_agree_with_a_computed_one():
    game = load("mabula")
    rules = game.rules
    general = rules.namespace["F_push_targets"]
    field = rules.board.regions["field"]
    computed = list(field)  # a plain list: not recognised as the region
    state = game.new_initial_state(11)
    rng = Rng(11)
    while not state.terminal:
        for c in rules.board.regions["ring"]:
            direction = c.inward
            assert list(general(state, c, direction, field)) == list(general(state, c, direction, computed))
        legal = state.sample_chance(rng) if state.is_chance_node() else None
        state.apply(legal or state.legal_moves()[rng.below(len(state.legal_moves()))])


LANE = """
game: Lane
players: {count: 1}
board:
  grid: {columns: abcdefgh, rows: 1}
  directions: {right: [1, 0]}
  regions:
    lane: [b1, c1, e1, f1, g1]
pieces:
  stone: {}
moves:
  slide:
    params:
      to: "push_targets(cell('a1'), 'right', lane)"
    do: ["push(cell('a1'), to)"]
flow:
  steps:
    play:
      moves: [slide]
      pass: pass
end:
  - when: "turn >= 1"
    winners: "[]"
"""


def reference_targets(occupied: list[bool], lane: set[int]) -> list[int]:
    """Ray indices k the piece before the ray can move to: every piece that moves ends on a lane cell."""
    found = []
    for k in range(len(occupied)):
        carried = sum(occupied[:k + 1])  # pieces in the way, lifted and carried ahead
        moved, j = [k], k + 1
        while carried and j < len(occupied):
            moved.append(j)
            carried += occupied[j] - 1  # a piece met joins the chain; an empty cell takes one
            j += 1
        if not carried and all(i in lane for i in moved):
            found.append(k)
    return found


def test_push_targets_match_a_step_by_step_push_on_a_broken_lane(tmp_path):
    path = tmp_path / "lane.yaml"
    path.write_text(LANE, encoding="utf-8")
    game = rulesdsl.load_game(str(path))
    ray = ["b1", "c1", "d1", "e1", "f1", "g1", "h1"]
    lane = {0, 1, 3, 4, 5}
    for pattern in range(1 << len(ray)):
        occupied = [bool(pattern >> i & 1) for i in range(len(ray))]
        cells = {"a1": {"kind": "stone"}}
        cells.update({name: {"kind": "stone"} for name, full in zip(ray, occupied) if full})
        state = position(game, cells, "play")
        listed = [str(m) for m in state.legal_moves()]
        expected = [f"slide {ray[k]}" for k in reference_targets(occupied, lane)] or ["pass"]
        assert listed == expected, occupied


SCORES = """
game: Scores
players: {count: 3}
vars:
  points: {per: player, init: "[3, 3, 1][owner]"}
  tie: {per: player, init: "[1, 2, 9][owner]"}
moves:
  stop:
    notation: stop
flow:
  steps:
    play:
      moves: [stop]
end:
  - when: "turn >= 0"
    winners: highest_score
scoring:
  score: "points[me]"
  tiebreak: "tie[me]"
"""


def test_the_tiebreak_separates_only_the_leaders(tmp_path):
    path = tmp_path / "scores.yaml"
    path.write_text(SCORES, encoding="utf-8")
    state = rulesdsl.load_game(str(path)).new_initial_state()
    state.apply("stop")
    assert state.terminal and state.winners == [1]  # seat 2 has the best tiebreak but not the best score


TILTED = """
game: Tilted
players: {count: 1}
vars:
  bias: {init: 1}
moves:
  tilt:
    notation: tilt
    do: ["bias = bias + 1"]
flow:
  start: roll
  steps:
    roll:
      chance:
        outcomes:
          params: {n: "1..2"}
          weight: "bias if n == 2 else 1"
          notation: "roll {n}"
      next: play
    play:
      moves: [tilt]
      next: roll
    die:
      chance:
        outcomes:
          params: {n: "1..6"}
      next: play
end:
  - when: "bias >= 4"
    winners: "[]"
"""


def test_outcomes_that_read_the_state_are_worked_out_at_each_draw(tmp_path):
    path = tmp_path / "tilted.yaml"
    path.write_text(TILTED, encoding="utf-8")
    game = rulesdsl.load_game(str(path))
    steps = game.rules.steps
    assert not steps["roll"].state_free and steps["die"].state_free
    state = game.new_initial_state()
    seen = []
    for _ in range(3):
        seen.append({str(m): round(p, 3) for m, p in state.chance_outcomes()})
        state.apply(state.sample_chance(Rng(1)))
        state.apply("tilt")
    assert seen == [{"roll 1": 0.5, "roll 2": 0.5}, {"roll 1": 0.333, "roll 2": 0.667},
                    {"roll 1": 0.25, "roll 2": 0.75}]
