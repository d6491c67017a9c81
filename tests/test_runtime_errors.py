"""A rule that fails while a game runs is reported where the rule is written, with the turn, what went wrong and
a hint, never a traceback; also from worker processes."""

from __future__ import annotations

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
    assert str(caught.value.location) == f"{path}:10:5"  # where 'drop' is written
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
    assert f"{path}:10:5: error: rule 'drop' failed on turn 1: place(): cell a1 is occupied by stone()" in err
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
