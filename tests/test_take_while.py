"""take_while(): the items of a comprehension up to the first whose condition fails."""

from __future__ import annotations

import re

import pytest

import rulesdsl
from rulesdsl.errors import RulesError

from .helpers import ROOT, run_cli

# Marking a cell scores the empty cells north of it, up to the first marked one.
RUNS = """
game: Runs
players: {count: 2}
board:
  grid: {columns: ab, rows: 4}
  directions: {north: [0, 1]}
pieces:
  mark: {attributes: {owner: [0, 1]}}
vars:
  score: {per: player, init: 0}
  seen: {init: "[]"}
moves:
  mark:
    params: {c: cells}
    when: ["empty(c)"]
    notation: "{c}"
    do:
      - "place(piece('mark', owner=me), c)"
      - "seen = take_while(str(x) for x in ray(c, 'north') if empty(x))"
      - "score[me] += size(seen)"
flow:
  steps:
    play:
      moves: [mark]
      next: end_turn
end:
  - when: "size(occupied()) == size(cells)"
scoring:
  score: "score[me]"
"""


def test_the_items_stop_at_the_first_that_fails(write):
    state = rulesdsl.load_game(write(RUNS)).new_initial_state()
    state.apply("a3")  # a4 is empty
    assert state.vars[0] == [1, 0] and state.vars[1] == ["a4"]
    state.apply("a1")  # a2 empty, then a3 marked: a4 is not counted, though empty
    assert state.vars[0] == [1, 1] and state.vars[1] == ["a2"]
    state.apply("a2")  # a3 marked at once
    assert state.vars[0] == [1, 1] and state.vars[1] == []
    state.apply("b1")
    assert state.vars[0] == [1, 4] and state.vars[1] == ["b2", "b3", "b4"]


@pytest.mark.parametrize("call", ["take_while(ray(c, 'north'))", "take_while(x for x in ray(c, 'north'))",
                                  "take_while(x for x in cells for y in cells if empty(y))"])
def test_without_one_condition_it_is_refused_where_it_is_called(write, call):
    text = RUNS.replace("take_while(str(x) for x in ray(c, 'north') if empty(x))", call)
    with pytest.raises(RulesError) as caught:
        rulesdsl.load_game(write(text))
    message = str(caught.value)
    assert re.search(r"game\.yaml:\d+:\d+: error: take_while\(\) takes one comprehension with a condition", message)
    assert "read as \"while\"" in message


def test_the_compiled_backend_takes_it(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path))  # (checked without compiling; tests/test_compiled.py plays it)
    code, out, _ = run_cli(capsys, "compile", str(ROOT / "tests" / "compiled_games" / "runs.yaml"), "--check")
    assert code == 0 and "runs.yaml: 5 of 5 rules compiled" in out


@pytest.mark.parametrize("text", ["take_while(x for x in xs if x < 3)", "take_while([x, y] for x in xs if x != y)",
                                  "take_while(x for x in xs if x > 0 if x != 2)", "take_while(x for x in [] if x)",
                                  "take_while(x // (x - 2) for x in xs if x > 0)"])
def test_the_compiled_expression_agrees_with_the_reference_evaluator(text):
    from .test_lang_properties import check_agreement

    check_agreement(text, {"xs": [1, 2, 3, 1], "y": 2})
