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
