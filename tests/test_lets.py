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


STAGED = """\
game: Staged
players: {count: 2}
board:
  cells: [a, b, c]
pieces:
  stone:
    attributes:
      owner: [0, 1]
let:
  first_stone: "piece('stone', owner=0)"
  stones: "[with_attr(first_stone, owner=p) for p in players]"
  doubled: "twice(size(cells))"
functions:
  twice:
    params: [n]
    value: "n * 2"
moves:
  drop:
    params:
      c: {in: cells}
    when: ["empty(c)", "turn < doubled"]
    do: ["place(stones[me], c)"]
flow:
  steps:
    play: {moves: [drop], next: end_turn}
end:
  - when: "size(occupied()) == 3"
    winners: "[]"
"""


def test_a_let_may_build_pieces_and_call_the_files_functions(tmp_path):
    (tmp_path / "staged.yaml").write_text(STAGED)
    state = rulesdsl.load_game(str(tmp_path / "staged.yaml"), backend="python").new_initial_state(0)
    state.apply("drop a")
    state.apply("drop b")
    assert [state.cells[c].owner for c in range(2)] == [0, 1]


@pytest.mark.parametrize("change, message, at", [
    # a function that reads the position cannot be worked out at load
    (('value: "n * 2"', 'value: "n * 2 + size(occupied())"'), "'twice' reads the position, which a let cannot",
     'twice(size(cells))'),
    # what is built before a let cannot read it
    (('value: "n * 2"', 'value: "n * doubled"'), "'doubled' calls a function of the file, so it is worked out after",
     'doubled"'),
    (("\nmoves:", '\nvars:\n  prize: {init: "doubled"}\nmoves:'), "'doubled' calls a function of the file", 'doubled"}'),
])
def test_a_let_that_cannot_be_worked_out_where_it_is_read_is_located(tmp_path, change, message, at):
    text = STAGED.replace(*change, 1)
    (tmp_path / "staged.yaml").write_text(text)
    with pytest.raises(rulesdsl.RulesError) as caught:
        rulesdsl.load_game(str(tmp_path / "staged.yaml"), backend="python")
    (problem,) = caught.value.problems
    assert message in problem.message and problem.code == "misused_name"
    line = text.splitlines()[problem.location.line - 1]
    assert line[problem.location.col - 1:].startswith(at)
