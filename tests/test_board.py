"""Board geometry in rule files: regions and attributes may use directions; links name real cells."""

from __future__ import annotations

import pytest

import rulesdsl
from rulesdsl.errors import RulesError

GEO = """
game: Geo
players: {count: 1}
board:
  grid: {columns: abc, rows: 1}
  directions: {east: [1, 0]}
  regions:
    edge: "list(ray(cell('a1'), 'east'))"
  attributes:
    ahead: "step(c, 'east')"
  links:
    hop:
      next: "NEXT"
moves:
  stop: {notation: stop}
flow:
  steps:
    play: {moves: [stop]}
end:
  - when: "turn >= 1"
    winners: "[]"
"""


def load(tmp_path, hop="'c1' if c.name == 'a1' else none"):
    path = tmp_path / "geo.yaml"
    path.write_text(GEO.replace("NEXT", hop.replace('"', '\\\\"')), encoding="utf-8")
    return rulesdsl.load_game(str(path))


def test_regions_and_attributes_may_use_the_directions(tmp_path):
    board = load(tmp_path).rules.board
    assert [c.name for c in board.regions["edge"]] == ["b1", "c1"]
    assert [c.ahead for c in board.cells] == [board.by_name["b1"], board.by_name["c1"], None]


def test_a_link_may_name_its_target_and_an_unknown_name_is_reported(tmp_path):
    board = load(tmp_path).rules.board
    assert board.links["hop"][None][board.by_name["a1"]] is board.by_name["c1"]
    with pytest.raises(RulesError, match=r"link 'hop' from a1 gives 'z9', which is no cell"):
        load(tmp_path, "'z9' if c.name == 'a1' else none")


GRID = """
game: Grid from options
players: {count: 2}
options:
  size: {type: int, default: 4, min: 2, max: 9}
board:
  grid: {columns: COLUMNS, rows: ROWS}
pieces:
  stone: {}
moves:
  put:
    params: {c: "[c for c in cells if empty(c)]"}
    do: ["place(piece('stone'), c)"]
    notation: "{c}"
flow:
  start: play
  steps:
    play: {moves: [put]}
end:
  - when: "count(c for c in cells if empty(c)) == 0"
    winners: "[]"
"""


def grid(tmp_path, columns, rows="2", **options):
    path = tmp_path / "grid.yaml"
    path.write_text(GRID.replace("COLUMNS", columns).replace("ROWS", rows), encoding="utf-8")
    return rulesdsl.load_game(str(path), options=options or None)


def test_a_grid_takes_its_size_or_its_labels_from_an_expression(tmp_path):
    names = lambda game: [c.name for c in game.rules.board.cells]  # noqa: E731
    assert names(grid(tmp_path, '"option.size"', size="3")) == ["11", "21", "31", "12", "22", "32"]
    assert names(grid(tmp_path, "ab", "\"['x', 'y']\"")) == ["ax", "bx", "ay", "by"]
    assert names(grid(tmp_path, "\"[str(k) + '-' for k in 1..option.size]\"", "1", size="2")) == ["1-1", "2-1"]
    assert len(grid(tmp_path, "abcdefgh").rules.board.cells) == 16  # letters stay labels, as before


def test_grid_labels_that_repeat_are_refused_where_they_are_written(tmp_path):
    with pytest.raises(RulesError) as caught:
        grid(tmp_path, "aba")
    (problem,) = caught.value.problems
    assert problem.location.line == 7 and "the grid's columns repeat the label a" in problem.message
    assert "option.size" in problem.hint
    with pytest.raises(RulesError, match="rows repeat the label 1"):
        grid(tmp_path, "ab", "[1, 2, 1]")


def test_a_board_attribute_may_read_a_region_and_a_region_filter_by_an_attribute(tmp_path):
    text = GRID.replace("COLUMNS", "abc").replace("ROWS", "3").replace(
        "board:\n", "board:\n  regions:\n    middle: [b2]\n    ring: \"[c for c in cells if not c.central]\"\n"
                    "  attributes:\n    central: \"c in middle\"\n")
    (tmp_path / "regions.yaml").write_text(text)
    board = rulesdsl.load_game(str(tmp_path / "regions.yaml")).rules.board
    assert [c.name for c in board.cells if c.central] == ["b2"]
    assert [c.name for c in board.regions["ring"]] == ["a1", "b1", "c1", "a2", "c2", "a3", "b3", "c3"]


@pytest.mark.parametrize("columns, said", [('"10**12"', "cells is larger than"), ('"[str(i) for i in 1..10**7]"',
                                                                                  "the language allows at most")])
def test_a_grid_from_an_expression_is_bounded_like_any_grid(tmp_path, columns, said):
    with pytest.raises(RulesError) as caught:
        grid(tmp_path, columns)
    (problem,) = caught.value.problems
    assert said in problem.message and problem.location.line == 7 and problem.hint


HOPS = """\
game: Hops
players: {count: 2}
board:
  grid: {columns: abcd, rows: 4}
vars:
  at: {per: player, init: "cell(1, 1) if owner == 0 else cell(4, 4)"}
moves:
  hop:
    params:
      to: {in: "[d for d in [cell(at[me].x + dx, at[me].y + dy) for dx, dy in JUMPS] if d != none]"}
    do: ["at[me] = to"]
flow:
  steps:
    play: {moves: [hop], next: end_turn}
end:
  - when: "turn >= 6"
    winners: "[]"
"""
JUMPS = "[(1, 2), (2, 1), (-1, -2), (-2, -1), (1, -2), (-1, 2), (2, -1), (-2, 1)]"


def test_cell_of_grid_coordinates_is_that_cell_or_none_off_the_board(tmp_path):
    (tmp_path / "hops.yaml").write_text(HOPS.replace("JUMPS", JUMPS))
    state = rulesdsl.load_game(str(tmp_path / "hops.yaml"), backend="python").new_initial_state(0)
    assert [c.name for c in state.vars[0]] == ["a1", "d4"]
    assert [str(m) for m in state.legal_moves()] == ["hop b3", "hop c2"]  # the other six jumps leave the board
    state.apply("hop c2")
    assert [str(m) for m in state.legal_moves()] == ["hop c2", "hop b3"]  # the second seat's, from d4
    state.apply("hop b3")
    assert [str(m) for m in state.legal_moves()] == ["hop d4", "hop a1", "hop b4", "hop a3"]  # from c2, in order


def test_cell_of_coordinates_that_are_no_whole_numbers_is_a_located_error(tmp_path):
    text = HOPS.replace("JUMPS", JUMPS)
    (tmp_path / "text.yaml").write_text(text.replace("cell(at[me].x + dx, at[me].y + dy)", "cell('a', 1 + dx)"))
    state = rulesdsl.load_game(str(tmp_path / "text.yaml"), backend="python").new_initial_state(0)
    with pytest.raises(rulesdsl.GameRuntimeError, match="text.yaml:14:11: error: rule .play. failed on turn 0: cell.x, y.: the coordinates should be whole numbers"):
        state.legal_moves()
    (tmp_path / "float.yaml").write_text(text.replace("cell(at[me].x + dx, at[me].y + dy)", "cell(1.5, 1 + dx)"))
    with pytest.raises(rulesdsl.RulesError, match="float.yaml:10:.*cell\\(\\) needs a whole number or text"):
        rulesdsl.load_game(str(tmp_path / "float.yaml"), backend="python")
