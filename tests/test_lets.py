"""`let:` blocks of functions and end conditions: names computed once, in order, read by what follows."""

from __future__ import annotations

import pytest

import rulesdsl
from rulesdsl import RulesError

LETS = """
game: Lets
players: {count: 2}
board: {grid: {columns: abc, rows: 1}}
pieces:
  stone: {attributes: {owner: [0, 1]}}
vars:
  bonus: {per: player, init: 0}
functions:
  score_of:
    params: [p]
    let:
      mine: "[c for c in cells if not empty(c) and at(c).owner == p]"
      n: "size(mine)"
    value: "n * 10 + (1 if cell('a1') in mine else 0) + bonus[p]"
moves:
  put:
    params: {c: {in: cells}}
    when: ["empty(c)"]
    notation: "{c}"
    do: ["place(piece('stone', owner=me), c)"]
  boost:
    notation: "boost"
    do: ["bonus[me] += 100"]
flow:
  steps:
    play:
      moves: [put, boost]
      next: end_turn
end:
  - let:
      best: "max(score_of(p) for p in players)"
    when: "best >= 200"
    winners: "[p for p in players if score_of(p) == best]"
scoring:
  score: "score_of(me)"
"""


def _load(tmp_path, text=LETS):
    path = tmp_path / "lets.yaml"
    path.write_text(text)
    return rulesdsl.load_game(str(path))


def test_a_functions_lets_are_computed_in_order_and_read_by_its_value(tmp_path):
    state = _load(tmp_path).new_initial_state()
    for move in ["a1", "b1", "c1"]:
        state.apply(move)
    assert state.scores() == [21, 10]
    source = _load(tmp_path).rules.generated["function score_of"][0].source
    assert source.count("L_mine = ") == 1 and "L_n = " in source


def test_an_end_conditions_lets_see_what_it_reads_change(tmp_path):
    state = _load(tmp_path).new_initial_state()
    state.apply("boost")  # 100: not yet
    assert not state.terminal
    state.apply("a1")
    state.apply("boost")  # 200: only a variable was written, and the condition's let reads it
    assert state.terminal and state.winners == [0]


@pytest.mark.parametrize("change, message", [
    ('      n: "size(mine)"', "'p' is declared twice in function 'score_of'"),
    ('      n: "size(mien)"', "unknown name 'mien'"),
])
def test_mistakes_in_lets_are_located(tmp_path, change, message):
    text = LETS.replace('      n: "size(mine)"', change.replace("n:", "p:") if "twice" in message else change)
    with pytest.raises(RulesError) as caught:
        _load(tmp_path, text)
    problem = caught.value.problems[0]
    assert message in problem.message
    assert problem.location.line == text.splitlines().index(
        next(line for line in text.splitlines() if line.startswith("      p:" if "twice" in message else "      n:"))) + 1
