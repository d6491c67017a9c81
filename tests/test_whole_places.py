"""A variable with one value per seat or per key given all of its values at once (`=` of a list or a table), checked
against the places its declaration gives it."""

from __future__ import annotations

import pytest

import rulesdsl

TALLIES = """\
game: Tallies
players: {count: 2}
board:
  cells: [a]
vars:
  tally: {per: player, init: 0}
  stock: {keys: "['red', 'blue']", init: 1}
moves:
  reset:
    params:
      n: {in: "[1, 2]"}
    do: ["DO"]
flow:
  steps:
    play: {moves: [reset], next: end_turn}
end:
  - when: "turn >= 4"
    winners: "[]"
"""


def _state(tmp_path, effect):
    (tmp_path / "tallies.yaml").write_text(TALLIES.replace("DO", effect))
    return rulesdsl.load_game(str(tmp_path / "tallies.yaml"), backend="python").new_initial_state(0)


def test_a_variable_per_seat_is_given_a_value_for_each_seat(tmp_path):
    state = _state(tmp_path, "tally = [n * 10 + p for p in players]")
    state.apply("reset 2")
    assert state.vars[0] == [20, 21]


def test_a_variable_per_key_is_given_a_table_of_its_keys_in_their_declared_order(tmp_path):
    state = _state(tmp_path, "stock = table([('blue', n), ('red', n + 5)])")
    state.apply("reset 1")
    assert list(state.vars[1].items()) == [("red", 6), ("blue", 1)]


def test_the_places_given_are_a_copy_no_other_name_changes(tmp_path):
    (tmp_path / "t.yaml").write_text(TALLIES.replace('do: ["DO"]', 'do:\n      - "xs = [n, n]"\n'
                                                     '      - "tally = xs"\n      - "xs[0] = 99"'))
    state = rulesdsl.load_game(str(tmp_path / "t.yaml"), backend="python").new_initial_state(0)
    state.apply("reset 1")
    assert state.vars[0] == [1, 1]


@pytest.mark.parametrize("effect, message", [
    ("tally = [n]", "'tally' holds one value per seat (2): assign a list of 2 values, not a list of 1"),
    ("tally = n", "'tally' holds one value per seat (2): assign a list of 2 values, not no list"),
    ("stock = table([('red', n)])", "'stock' holds one value per key (red, blue): assign a table of exactly those"),
    ("stock = [n, n]", "'stock' holds one value per key"),
])
def test_places_that_do_not_fit_the_declaration_are_a_located_error(tmp_path, effect, message):
    state = _state(tmp_path, effect)
    with pytest.raises(rulesdsl.GameRuntimeError) as caught:
        state.apply("reset 1")
    assert message in str(caught.value) and "tallies.yaml:12:" in str(caught.value)


def test_changing_such_a_variable_whole_by_an_operator_is_refused_at_load(tmp_path):
    (tmp_path / "t.yaml").write_text(TALLIES.replace("DO", "tally += [1, 1]"))
    with pytest.raises(rulesdsl.RulesError) as caught:
        rulesdsl.load_game(str(tmp_path / "t.yaml"), backend="python")
    (problem,) = caught.value.problems
    assert problem.code == "not_assignable" and "given all of them with =" in problem.message


def test_a_constant_of_the_rule_file_is_given_whole_and_copied(tmp_path):
    """Data and lets are read-only lists and tables: assigning one whole gives the places a copy that effects may
    change, as a list or table built while playing would."""
    text = TALLIES.replace("board:", "data:\n  starts: [3, 4]\n  stocks: {red: 7, blue: 8}\nboard:")
    (tmp_path / "t.yaml").write_text(text.replace('do: ["DO"]', 'do:\n      - "tally = starts"\n'
                                                  '      - "stock = stocks"\n      - "tally[me] = tally[me] + n"'))
    state = rulesdsl.load_game(str(tmp_path / "t.yaml"), backend="python").new_initial_state(0)
    state.apply("reset 2")
    assert state.vars[0] == [5, 4] and dict(state.vars[1]) == {"red": 7, "blue": 8}
    assert type(state.vars[0]) is list and type(state.vars[1]) is dict
