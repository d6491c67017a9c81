"""A rule that fails while a game runs is reported with the rule, the turn and what went wrong, never a traceback."""

from __future__ import annotations

import pytest

import rulesdsl
from rulesdsl.cli import main
from rulesdsl.errors import GameRuntimeError

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
    state = rulesdsl.load_game(broken()).new_initial_state()
    state.apply("drop a1")
    with pytest.raises(GameRuntimeError, match=r"rule 'drop' failed on turn 1: place\(\): cell a1 is occupied"):
        state.apply("drop b1")


def test_an_unknown_step_in_an_end_condition_is_named(broken):
    state = rulesdsl.load_game(broken("'plya'")).new_initial_state()
    with pytest.raises(GameRuntimeError, match=r"rule 'end' failed on turn 1: can_move\(\): no step 'plya'"):
        state.apply("drop a1")


def test_the_command_reports_a_failing_rule_without_a_traceback(broken, capsys):
    code = main(["simulate", broken(), "--games", "2", "--agents", "random,random"])
    out, err = capsys.readouterr()
    assert code == 1 and "Traceback" not in out + err
    assert "error: rule 'drop' failed on turn 1: place(): cell a1 is occupied by stone()" in err
