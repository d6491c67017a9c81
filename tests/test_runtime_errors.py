"""A rule that fails while a game runs is reported where the rule is written, with the turn, what went wrong and
a hint, never a traceback; also from worker processes."""

from __future__ import annotations

import re

import pytest

import rulesdsl
from rulesdsl.cli import main
from rulesdsl.errors import GameRuntimeError, RulesError

BROKEN = """
game: Broken
players: {count: 2}
board:
  grid: {columns: abc, rows: 1}
pieces:
  stone: {}
moves:
  drop:
    params:
      c: cells
    do: ["place(piece('stone'), cell('a1'))"]
flow:
  steps:
    play:
      moves: [drop]
end:
  - when: "not can_move(0, STEP)"
    winners: "[]"
"""


@pytest.fixture
def broken(tmp_path):
    def write(step="'play'"):
        path = tmp_path / "broken.yaml"
        path.write_text(BROKEN.replace("STEP", step), encoding="utf-8")
        return str(path)
    return write


def test_an_effect_that_fails_names_its_move_and_turn(broken):
    path = broken()
    state = rulesdsl.load_game(path).new_initial_state()
    state.apply("drop a1")
    with pytest.raises(GameRuntimeError, match=r"rule 'drop' failed on turn 1: place\(\): cell a1 is occupied") as caught:
        state.apply("drop b1")
    assert str(caught.value.location) == f"{path}:12:10"  # the statement of 'drop' that failed
    assert caught.value.hint


def test_an_unknown_step_named_in_a_condition_is_found_at_load_time(broken):
    with pytest.raises(RulesError, match=r":18:16: error: can_move\(\): no step 'plya' \(did you mean 'play'\?\)"):
        rulesdsl.load_game(broken("'plya'"))


@pytest.mark.parametrize("workers", ["1", "2"])
def test_the_command_reports_a_failing_rule_without_a_traceback(broken, capsys, workers):
    path = broken()
    code = main(["simulate", path, "--games", "2", "--agents", "random,random", "--workers", workers])
    out, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in out + err
    assert f"{path}:12:10: error: rule 'drop' failed on turn 1: place(): cell a1 is occupied by stone()" in err
    assert "hint:" in err and "game 0 of the run" in err


def test_a_failing_actor_expression_is_reported_at_its_step(broken, tmp_path):
    path = tmp_path / "actor.yaml"
    path.write_text(BROKEN.replace("STEP", "'play'").replace("      moves: [drop]", "      moves: [drop]\n"
                                                                          "      actor: \"[0, 1][turn + 5]\""),
                    encoding="utf-8")
    state = rulesdsl.load_game(str(path)).new_initial_state()
    with pytest.raises(GameRuntimeError, match=r"rule 'play' failed on turn 0: IndexError") as caught:
        state.legal_moves()
    assert str(caught.value.location) == f"{path}:16:7"  # the step 'play'


CONSTANTS = """
game: Constants
players: {count: 1}
board:
  grid: {columns: ab, rows: 1}
pieces:
  stone: {}
data:
  table: {a: 1}
zones:
  bag: {init: "[piece('stone')]"}
vars:
  total: 0
moves:
  copy:
    notation: copy
    do: ["t = list(repeat(0, 2))", "t[0] += 1", "total = total + t[0]"]
  share:
    notation: share
    do: ["t = repeat(0, 2)", "t[0] += 1"]
  edit:
    notation: edit
    do: ["t = table", "t['a'] += 1"]  # through a local name: a change to the constant itself is refused at load
  stray:
    notation: stray
    do: ["place(piece('stone'), [cell('a1')])"]
  count:
    notation: count
    do: ["move(bag, cell('a1'), piece('stone'))", "total = size(pieces(occupied())) + size(pieces(bag))"]
flow:
  steps:
    play:
      moves: [copy, share, edit, stray, count]
end:
  - when: "turn >= 9"
    winners: "[]"
scoring:
  score: "total"
"""


@pytest.fixture
def constants(tmp_path):
    path = tmp_path / "constants.yaml"
    path.write_text(CONSTANTS, encoding="utf-8")
    return rulesdsl.load_game(str(path))


def test_a_copy_of_a_constant_may_change_and_the_constant_stays(constants):
    state = constants.new_initial_state()
    for _ in range(3):
        state.apply("copy")
    assert state.scores() == [3]


@pytest.mark.parametrize("move, what", [("share", "list [0, 0]"), ("edit", "table {'a': 1}")])
def test_effects_cannot_change_constants(constants, move, what):
    with pytest.raises(GameRuntimeError, match=f"{re.escape(what)} is a constant of the rule file") as caught:
        constants.new_initial_state().apply(move)
    assert "list(xs)" in str(caught.value)
    assert constants.new_initial_state().to_json()["zones"]["bag"]  # nothing shared was changed


def test_only_zones_take_pieces_and_pieces_reads_cells_or_zones(constants):
    with pytest.raises(GameRuntimeError, match=r"place\(\): the list \[a1\] is not a zone"):
        constants.new_initial_state().apply("stray")
    state = constants.new_initial_state()
    state.apply("count")
    assert state.scores() == [1]  # one stone on the board, none left in the bag



LOCATED = """
game: Located
vars:
  total: 0
  marks: {init: "[1, 2]"}
procedures:
  halve:
    params: [by]
    do:
      - "total += 1"
      - "total = total // by"
moves:
  step:
    params:
      k: "0..4"
    do:
      - "total += k"
      - if: "k == 1"
        then: ["halve(k - 1)"]
      - if: "k == 2 and 10 // (k - 2) > 0"
        then: ["total += 1"]
      - for: "m in marks if k == 3 and m // (k - 3) > 0"
        do: ["total += m"]
flow:
  steps:
    play: {moves: [step], next: tidy}
    tidy:
      do: ["marks = marks + [10 // (4 - total)]"]
      next: play
"""


@pytest.mark.parametrize("move, rule, text, col", [
    ("step 1", "step", '      - "total = total // by"', 9),  # in the procedure the move called
    ("step 2", "step", '      - if: "k == 2 and 10 // (k - 2) > 0"', 13),  # the test of an if
    ("step 3", "step", '      - for: "m in marks if k == 3 and m // (k - 3) > 0"', 14),  # the head of a for loop
    ("step 4", "tidy", '      do: ["marks = marks + [10 // (4 - total)]"]', 12),  # an automatic step's effect
])
def test_a_failing_statement_is_located_at_its_own_line(tmp_path, move, rule, text, col):
    path = tmp_path / "located.yaml"
    path.write_text(LOCATED, encoding="utf-8")
    state = rulesdsl.load_game(str(path)).new_initial_state()
    state.apply("step 0")  # every statement runs, and none fails
    with pytest.raises(GameRuntimeError, match=rf"rule '{rule}' failed on turn 0: ZeroDivisionError") as caught:
        state.apply(move)
    line = LOCATED.splitlines().index(text) + 1
    assert (caught.value.location.line, caught.value.location.col) == (line, col)


@pytest.mark.parametrize("winners, shown", [("2", "2"), ("[0, 7]", "7"), ("-1", "-1"), ("['a']", "a"),
                                            ("[true]", "true"), ("10 ** 9", "1000000000")])
def test_winners_that_are_no_seat_fail_at_the_end_rule(tmp_path, winners, shown):
    # a winner no seat holds ended the game with no result for it: drawing the board then failed (an IndexError)
    path = tmp_path / "winners.yaml"
    path.write_text(BROKEN.replace("not can_move(0, STEP)", "turn >= 0").replace('winners: "[]"',
                                                                                  f"winners: {winners!r}"))
    state = rulesdsl.load_game(str(path)).new_initial_state()
    with pytest.raises(GameRuntimeError, match=rf"the winners should be players \(seats 0 to 1\), not {shown}\n") \
            as info:
        state.apply(state.legal_moves()[0])
    assert (info.value.rule, info.value.location.line) == ("end", 18)


@pytest.mark.parametrize("winners, expected", [("1", [1]), ("[1, 0, 1]", [0, 1]), ("[]", []), ("none", [])])
def test_winners_that_are_seats_end_the_game(tmp_path, winners, expected):
    path = tmp_path / "winners.yaml"
    path.write_text(BROKEN.replace("not can_move(0, STEP)", "turn >= 0").replace('winners: "[]"',
                                                                                  f"winners: {winners!r}"))
    state = rulesdsl.load_game(str(path)).new_initial_state()
    state.apply(state.legal_moves()[0])
    assert state.terminal and state.winners == expected


@pytest.mark.parametrize("step", ["'play'", "none"])  # a step of one kind of move (its own test), and the general form
def test_can_move_of_a_value_that_is_no_seat_fails_at_its_rule(broken, step):
    # the compiled backend refused it while the Python engine answered for a player the game does not have
    path = broken(step)
    text = open(path, encoding="utf-8").read().replace("not can_move(0, ", "turn >= 0 and not can_move(2, ")
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)
    state = rulesdsl.load_game(path).new_initial_state()
    with pytest.raises(GameRuntimeError, match=r"can_move\(\): 2 is not a seat \(seats are 0 to 1\)") as info:
        state.apply(state.legal_moves()[0])
    assert info.value.rule == "end"
