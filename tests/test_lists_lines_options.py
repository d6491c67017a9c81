"""List options, piece attribute values given as an expression, lines through a cell, and lists where values
must be told apart (move params, distinct, fallback tiers): each through small rule files of its own."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesdsl
from rulesdsl.errors import RulesError
from rulesdsl.lang.builtins import distinct, value_key

from .helpers import notations


# -- list options ------------------------------------------------------------------------------------------------
NIM = """
game: Nim
options:
  heaps:
    type: list
    items: int
    min: 1
    max: 9
    default: [1, 2]
    help: the heap sizes
vars:
  sizes: {init: "list(option.heaps)"}
moves:
  take:
    params:
      h: "0..size(sizes) - 1"
      n: "1..sizes[h]"
    notation: "{h}:{n}"
    do: ["sizes[h] -= n"]
flow:
  steps:
    play: {moves: [take]}
end:
  - when: "sum(sizes) == 0"
    winners: "[next_seat(player, -1)]"
"""


def test_a_list_option_takes_its_default_and_the_items_given(write):
    path = write(NIM)
    assert notations(rulesdsl.load_game(path).new_initial_state().legal_moves()) == ["0:1", "1:1", "1:2"]
    game = rulesdsl.load_game(path, options={"heaps": "3, 1,2"})
    assert game.rules.option_values["heaps"] == [3, 1, 2]
    assert notations(game.new_initial_state().legal_moves()) == ["0:1", "0:2", "0:3", "1:1", "2:1", "2:2"]
    assert rulesdsl.load_game(path, options={"heaps": [4]}).new_initial_state().vars[0] == [4]


def test_the_effects_change_a_copy_of_a_list_option(write):
    game = rulesdsl.load_game(write(NIM))
    state = game.new_initial_state()
    state.apply("1:2")
    assert state.vars[0] == [1, 0] and game.rules.option_values["heaps"] == [1, 2]


@pytest.mark.parametrize("given_, message", [
    ("3,x,5", "item 2 of option heaps must be a whole number, got 'x'"),
    ("3,,5", "item 2 of option heaps must be a whole number, got ''"),
    ("3,10", "item 2 of option heaps must be between 1 and 9, got 10"),
    ("0", "item 1 of option heaps must be between 1 and 9, got 0"),
])
def test_a_bad_item_of_a_list_option_is_named_by_its_place(write, given_, message):
    with pytest.raises(RulesError) as caught:
        rulesdsl.load_game(write(NIM), options={"heaps": given_})
    assert [p.message for p in caught.value.problems] == [message]
    assert caught.value.problems[0].hint == "the heap sizes"


def test_list_options_of_words_and_flags_check_each_item(write):
    text = NIM.replace("items: int\n    min: 1\n    max: 9\n    default: [1, 2]",
                       "items: bool\n    default: [true, false]")
    game = rulesdsl.load_game(write(text.replace('"list(option.heaps)"', '"[1 if b else 2 for b in option.heaps]"')),
                              options={"heaps": "yes,no,on"})
    assert game.rules.option_values["heaps"] == [True, False, True]
    text = NIM.replace("items: int\n    min: 1\n    max: 9\n    default: [1, 2]",
                       "choices: [red, blue]\n    default: [red]")
    with pytest.raises(RulesError, match="item 2 of option heaps must be one of red, blue, got 'green'"):
        rulesdsl.load_game(write(text.replace('"list(option.heaps)"', '"[1 for c in option.heaps]"')),
                           options={"heaps": "red,green"})


def test_a_bad_default_of_a_list_option_is_located_at_the_default(write):
    text = NIM.replace("default: [1, 2]", "default: [1, zero]")
    with pytest.raises(RulesError) as caught:
        rulesdsl.load_game(write(text))
    problem = caught.value.problems[0]
    assert problem.message == "the default of item 2 of option heaps must be a whole number, got 'zero'"
    assert problem.location.line == text.splitlines().index("    default: [1, zero]") + 1


def test_a_list_option_has_a_bounded_number_of_items(write):
    with pytest.raises(RulesError, match="option heaps has 1,001 items; an option holds at most 1,000"):
        rulesdsl.load_game(write(NIM), options={"heaps": ",".join(["1"] * 1001)})


# -- piece attribute values from an expression -------------------------------------------------------------------
CARDS = """
game: Cards
options:
  top: {type: int, default: 4}
pieces:
  card:
    attributes:
      rank: "1..option.top"
      suit: {values: "[s for s in ['hearts', 'spades'] if option.top > 1]", default: hearts}
zones:
  deck: {init: "[piece('card', rank=r) for r in 1..option.top]"}
moves:
  make:
    params: {r: "[1, 5]"}
    do: ["place(piece('card', rank=r), deck)"]
flow:
  steps:
    play: {moves: [make]}
"""


def test_attribute_values_given_as_an_expression_are_worked_out_at_load(write):
    game = rulesdsl.load_game(write(CARDS))
    kind = game.rules.kinds["card"]
    assert kind.attributes["rank"]["values"] == [1, 2, 3, 4]
    assert kind.attributes["suit"] == {"values": ["hearts", "spades"], "default": "hearts"}
    state = game.new_initial_state()
    assert [c.rank for c in state.zones[0]] == [1, 2, 3, 4]
    state.apply("make 1")
    with pytest.raises(rulesdsl.GameRuntimeError, match=r"'5' is not a possible rank of piece 'card' \(one of: 1, 2, 3, 4\)"):
        state.apply("make 5")
    assert rulesdsl.load_game(write(CARDS), options={"top": "6"}).rules.kinds["card"].attributes["rank"]["values"] \
        == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("values, message", [
    ('"1..option.tops"', "unknown option 'tops'"),
    ('"5"', "this should be a list of values, but it is 5"),
])
def test_attribute_values_that_are_no_list_are_located(write, values, message):
    text = CARDS.replace('rank: "1..option.top"', f"rank: {values}")
    with pytest.raises(RulesError, match=message) as caught:
        rulesdsl.load_game(write(text))
    assert caught.value.problems[0].location.line == 8


# -- lines through a cell ---------------------------------------------------------------------------------------
TTT = """
game: Three
players: {count: 2, names: [x, o]}
board:
  grid: {columns: abcd, rows: 3}
  directions: {e: [1, 0], n: [0, 1], ne: [1, 1], se: [1, -1]}
pieces:
  mark:
    attributes: {side: [x, o]}
    derived: {owner: "seat(side)"}
vars:
  last: {init: none}
moves:
  put:
    params: {c: "[x for x in cells if empty(x)]"}
    notation: "{c}"
    do: ["place(piece('mark', side=name_of(me)), c)", "last = c"]
flow:
  steps:
    play: {moves: [put]}
end:
  - when: "last != none and any(all(at(x) == at(last) for x in line) for line in lines(3, through=last))"
    winners: "[at(last).owner]"
"""


def names(lines):
    return sorted(" ".join(c.name for c in line) for line in lines)


def test_lines_through_a_cell_are_those_of_all_lines_that_hold_it(write):
    game = rulesdsl.load_game(write(TTT))
    lines = game.rules.namespace["F_lines"]
    cell = game.rules.board.by_name
    # worked out by hand on a 4 x 3 board: b2 lies on two row lines, the column, and both diagonals
    assert names(lines(3, through=cell["b2"])) == ["a1 b2 c3", "a2 b2 c2", "a3 b2 c1", "b1 b2 b3", "b2 c2 d2"]
    assert names(lines(3, "n", cell["d1"])) == ["d1 d2 d3"]
    assert names(lines(3, ["e", "ne"], cell["a3"])) == ["a3 b3 c3"]
    for c in game.rules.board.cells:
        assert names(lines(3, through=c)) == names(line for line in lines(3) if c in line)


def test_an_end_rule_over_the_lines_through_the_last_cell_played(write):
    state = rulesdsl.load_game(write(TTT)).new_initial_state()
    for move in ["b1", "a1", "c2", "a2", "d3"]:  # x: b1 c2 d3 on a diagonal
        state.apply(move)
    assert state.terminal and state.winners == [0]


def test_lines_through_a_value_that_is_no_cell_is_an_error_at_the_rule(write):
    text = TTT.replace("through=last", "through=(turn + 1) * 1.5")  # asked first before the turn passes
    state = rulesdsl.load_game(write(text)).new_initial_state()
    with pytest.raises(rulesdsl.GameRuntimeError, match=r"lines\(\): through= should be a cell, not 1.5") as caught:
        state.apply("a1")
    assert caught.value.location.line == text.splitlines().index("end:") + 2  # the end rule


# -- lists as values to tell apart ----------------------------------------------------------------------------
def test_lists_as_move_params_and_in_distinct(write):
    text = """
game: Pairs
data:
  pairs: [[1, 2], [3, 4], [1, 2]]
vars:
  taken: {init: "[]"}
moves:
  take:
    params: {p: "distinct(pairs)"}
    when: "p not in taken"
    do: ["taken = distinct(taken + [p, p])"]
flow:
  steps:
    play: {moves: [take]}
end:
  - when: "size(taken) == 2"
"""
    state = rulesdsl.load_game(write(text)).new_initial_state()
    assert notations(state.legal_moves()) == ["take 1 2", "take 3 4"]
    state.apply("take 3 4")
    assert state.vars[0] == [[3, 4]]
    assert notations(state.legal_moves()) == ["take 1 2"]
    state.apply("take 1 2")
    assert state.terminal


def test_fallback_tiers_by_a_param_that_holds_lists(write):
    text = """
game: Tiers
moves:
  first:
    params: {card: "[[1], [2], [3]]", n: "[1]"}
    when: "card[0] != 2"
  second:
    params: {card: "[[1], [2], [3]]", n: "[5]"}
flow:
  steps:
    play:
      moves: [[first], [second]]
      fallback_by: card
"""
    state = rulesdsl.load_game(write(text)).new_initial_state()
    # cards [1] and [3] have a first-tier move; card [2] falls back to the second tier
    assert [str(m) for m in state.legal_moves()] == ["first 1 1", "first 3 1", "second 2 5"]


def distinct_by_equality(items):
    """distinct() as the reference defines it: the items without repeats by ==, in first-seen order."""
    kept = []
    for x in items:
        if not any(x == y for y in kept):
            kept.append(x)
    return kept


VALUES = st.recursive(st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["a", "b"]),
                      lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner)
                      | st.dictionaries(st.sampled_from(["k", "j"]), inner, max_size=2), max_leaves=6)


@settings(max_examples=300, deadline=None)
@given(st.lists(VALUES, max_size=8))
def test_distinct_keeps_the_first_of_each_equal_value(items):
    assert distinct(items) == distinct_by_equality(items)
    for x in items:
        for y in items:
            assert (value_key(x) == value_key(y)) == (x == y)
