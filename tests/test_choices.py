"""combinations(), permutations() and subsets(): every choice of items of a list, each a list in the list's order,
counted against the language's limit before any is built, and usable in a move's params."""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesdsl
from rulesdsl.backends.compiled.build import with_backend
from rulesdsl.lang.builtins import RuleValueError, combinations, permutations, subsets
from rulesdsl.limits import MAX_ITEMS, LimitExceeded

from .equivalence import lockstep

small_lists = st.lists(st.integers(0, 9), max_size=7)


@settings(max_examples=60, deadline=None)
@given(small_lists, st.integers(0, 8))
def test_combinations_are_every_choice_of_k_items_in_the_lists_order(xs, k):
    found = combinations(xs, k)
    assert len(found) == (math.comb(len(xs), k) if k <= len(xs) else 0)
    positions = {x: i for i, x in enumerate(xs)}
    for choice in found:
        assert len(choice) == k and all(choice.count(x) <= xs.count(x) for x in choice)
        if len(set(xs)) == len(xs):  # (with repeats, positions are not told apart by value)
            assert [positions[x] for x in choice] == sorted(positions[x] for x in choice)


@settings(max_examples=60, deadline=None)
@given(small_lists, st.one_of(st.none(), st.integers(0, 8)))
def test_permutations_are_every_ordering_of_k_items(xs, k):
    found = permutations(xs, k)
    size = len(xs) if k is None else k
    assert len(found) == (math.perm(len(xs), size) if size <= len(xs) else 0)
    assert all(len(p) == size and sorted(p) == sorted(p) for p in found)
    if len(set(xs)) == len(xs):
        assert len({tuple(p) for p in found}) == len(found)  # no ordering twice


@settings(max_examples=60, deadline=None)
@given(small_lists)
def test_subsets_are_every_combination_smallest_first(xs):
    found = subsets(xs)
    assert len(found) == 2 ** len(xs)
    assert [len(s) for s in found] == sorted(len(s) for s in found)
    assert found == [c for k in range(len(xs) + 1) for c in combinations(xs, k)]


@pytest.mark.parametrize("call", [lambda: combinations(range(10 ** 6), 5 * 10 ** 5),
                                  lambda: combinations(range(1000), 2),
                                  lambda: permutations(range(10 ** 6)),
                                  lambda: permutations(range(12)),
                                  lambda: subsets(range(30)),
                                  lambda: subsets(range(10 ** 6))])
def test_choices_past_the_limit_are_refused_before_any_is_built(call):
    # each would take minutes (or the machine's memory) to work out whole
    with pytest.raises(LimitExceeded, match=f"{MAX_ITEMS:,}"):
        call()


@pytest.mark.parametrize("k", [-1, 1.5, "2", True])
def test_a_choice_size_that_is_no_whole_number_is_refused(k):
    with pytest.raises(RuleValueError, match="whole number 0 or more"):
        combinations([1, 2, 3], k)


PICK = """\
game: Pick
players: {count: 2}
board:
  cells: [a, b, c, d]
vars:
  taken: {init: "[]"}
moves:
  pick:
    params:
      cs: {in: "[s for s in combinations(cells, 2) if not any(c in taken for c in s)]"}
    do: ["taken = taken + cs"]
  order:
    params:
      p: {in: "permutations([1, 2, 3], 2)"}
    when: ["size(subsets(taken)) == 4"]
    do: []
flow:
  steps:
    play: {moves: [pick, order], next: end_turn}
end:
  - when: "turn >= 4"
    winners: "[]"
"""


def test_a_move_chooses_among_combinations_and_permutations(tmp_path):
    (tmp_path / "pick.yaml").write_text(PICK)
    state = rulesdsl.load_game(str(tmp_path / "pick.yaml"), backend="python").new_initial_state(0)
    assert [str(m) for m in state.legal_moves()] == ["pick a b", "pick a c", "pick a d", "pick b c", "pick b d",
                                                     "pick c d"]
    state.apply("pick b d")
    assert [str(m) for m in state.legal_moves()] == ["pick a c"] + [f"order {a} {b}" for a in (1, 2, 3)
                                                                    for b in (1, 2, 3) if a != b]


def test_a_choice_past_the_limit_in_play_is_a_located_error(tmp_path):
    text = PICK.replace("combinations(cells, 2)", "combinations(0..(turn + 1) * 40, 20)")
    (tmp_path / "many.yaml").write_text(text)
    state = rulesdsl.load_game(str(tmp_path / "many.yaml"), backend="python").new_initial_state(0)
    with pytest.raises(rulesdsl.GameRuntimeError) as caught:
        state.legal_moves()
    # located at the step whose moves were being listed, as any rule failing there is
    assert "many.yaml:19:11: error: rule 'play' failed on turn 0" in str(caught.value)
    assert "items the language allows in one value" in str(caught.value)


# The same moves in compiled code (a choice of cells, and of the cells taken, as a move's param): `wide` (3 in play)
# sets how many numbers `order` permutes, and a state read back with another value asks for a size below 0 or for
# more orderings than the limit allows.
CHOSEN = """\
game: Chosen
players: {count: 2}
board:
  cells: [a, b, c, d, e]
vars:
  taken: {init: "[]", capacity: 5}
  wide: {init: 3}
moves:
  pick:
    params:
      cs: {in: "combinations(cells, 2 + turn % 2)"}
    when: ["not any(c in taken for c in cs)"]
    do: ["taken = taken + cs"]
  order:
    params:
      p: {in: "permutations([n for n in 1..9 if n <= wide], wide - 1)"}
    when: ["size(taken) >= 4"]
    do: ["taken = []"]
  all:
    params:
      p: {in: "permutations(1..3)"}
    when: ["size(taken) == 0 and turn > 0"]
    do: []
  keep:
    params:
      ks: {in: "subsets(taken)"}
    when: ["size(taken) >= 3", "size(ks) == 2", "any(size(s) == 1 for s in subsets(ks))"]
    do: ["taken = ks"]
flow:
  steps:
    play: {moves: [pick, order, all, keep], next: end_turn}
end:
  - when: "turn >= 9"
    winners: "[]"
"""


@pytest.fixture(scope="module")
def chosen(tmp_path_factory):
    pytest.importorskip("numba")
    path = tmp_path_factory.mktemp("chosen") / "chosen.yaml"
    path.write_text(CHOSEN)
    python = rulesdsl.load_game(str(path), backend="python")
    return python, with_backend(python, "compiled")  # (the same rules: moves of one are moves of the other)


def test_compiled_code_lists_the_same_combinations_and_permutations(chosen):
    assert lockstep(*chosen, range(8)) > 8 * 9  # every position of every game compared


@pytest.mark.parametrize("wide, error", [
    (0, r"permutations\(\): the size of each choice should be a whole number 0 or more, not -1"),
    (9, r"permutations\(\) would give 181,440 or more lists of 8 items, more than the 1,000,000 items")])
def test_a_choice_past_the_limit_or_of_a_size_below_0_is_the_same_located_error_in_compiled_code(chosen, wide, error):
    python, compiled = chosen
    state = python.new_initial_state(0)
    for move in ("pick a b", "pick c d e"):  # all taken: `order` is listed
        state.apply(move)
    data = state.to_json()
    data["vars"]["wide"] = wide
    failures = []
    for game in chosen:
        with pytest.raises(rulesdsl.GameRuntimeError) as caught:
            game.state_from_json(data).legal_moves()
        failures.append(str(caught.value))
    assert re.search(r"chosen\.yaml:\d+:\d+: error: rule 'play' .*" + error, failures[0])
    assert failures[1] == failures[0]
