"""Board scans by piece attribute read from the position's index (Position.located): the same cells, in the
same order, as the comprehension written, before and after the board changes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesdsl

from .helpers import position

SCAN = """
game: Scan
players: {count: 1}
board:
  grid: {columns: abcd, rows: 3}
  regions:
    backwards: "reversed([cells[i] for i in 0..size(cells) - 1 if i % 2 == 0])"
pieces:
  stone:
    attributes:
      colour: [red, blue, green]
      tag: {values: [0, 1], default: 0}
vars:
  wanted: {init: "['red']"}
  one: {init: "'blue'"}
functions:
  among: {value: "[x for x in cells if not empty(x) and at(x).colour in wanted]"}
  equal: {value: "[x for x in cells if at(x) != none and at(x).colour == one and x.x >= 0]"}
  odd_order: {value: "[x for x in backwards if not empty(x) and at(x).colour in wanted]"}
  untagged: {value: "count(x for x in cells if not empty(x) and at(x).colour in wanted and at(x).tag == 0)"}
moves:
  pick:
    params: {c: "among()"}
    notation: "{c}"
    do: ["set_attr(c, colour='green')"]
flow:
  steps:
    play:
      moves: [pick]
      pass: pass
      next: end_turn
end:
  - when: "turn > 50"
    winners: "[]"
"""

COLOURS = ["red", "blue", "green"]


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    path = tmp_path_factory.mktemp("scan") / "scan.yaml"
    path.write_text(SCAN)
    return rulesdsl.load_game(str(path))


def _call(state, name):
    """The value of the rule file's function `name` (no params) on `state`; cells by name."""
    value = state.rules.generated[f"function {name}"][0](state, 0)
    return value if isinstance(value, int) else [str(c) for c in value]


def test_the_scans_of_the_pattern_read_the_index_and_the_others_do_not(game):
    sources = {name: game.rules.generated[f"function {name}"][0].source
               for name in ("among", "equal", "odd_order", "untagged")}
    assert "S.located(" in sources["among"] and "S.located(" in sources["equal"]
    assert "S.located(" in sources["untagged"]  # a loop of its own (count) reads it too
    assert "S.located(" not in sources["odd_order"]  # a region out of board order keeps its own order


boards = st.dictionaries(st.sampled_from([f"{c}{r}" for c in "abcd" for r in "123"]),
                         st.tuples(st.sampled_from(COLOURS), st.sampled_from([0, 1])), max_size=12)


@settings(max_examples=60, deadline=None)
@given(board=boards, wanted=st.lists(st.sampled_from(COLOURS), max_size=4), one=st.sampled_from(COLOURS))
def test_a_scan_lists_what_the_comprehension_would(game, board, wanted, one):
    cells = {name: {"kind": "stone", "colour": colour, "tag": tag} for name, (colour, tag) in board.items()}
    state = position(game, cells, "play", vars={"wanted": wanted, "one": one})
    order = [str(c) for c in game.rules.board.cells]
    expected = [c for c in order if c in board and board[c][0] in wanted]
    assert _call(state, "among") == expected
    assert _call(state, "equal") == [c for c in order if c in board and board[c][0] == one]
    assert _call(state, "odd_order") == [c for c in reversed(order[::2]) if c in board and board[c][0] in wanted]
    assert _call(state, "untagged") == sum(1 for c in expected if board[c][1] == 0)
    assert [str(m) for m in state.legal_moves()] == (expected or ["pass"])


def test_the_index_follows_the_board_as_it_changes(game):
    state = position(game, {"a1": {"kind": "stone", "colour": "red"}, "c2": {"kind": "stone", "colour": "red"},
                            "b3": {"kind": "stone", "colour": "blue"}}, "play", vars={"wanted": ["red"]})
    assert [str(m) for m in state.legal_moves()] == ["a1", "c2"]
    copy = state.clone()
    state.apply("a1")  # the red stone on a1 turns green
    assert [str(m) for m in state.legal_moves()] == ["c2"]
    assert [str(m) for m in copy.legal_moves()] == ["a1", "c2"]  # a copy keeps its own
    copy.apply("c2")
    assert [str(m) for m in copy.legal_moves()] == ["a1"]


def test_a_piece_without_the_attribute_fails_in_the_rule(tmp_path):
    text = SCAN.replace("pieces:\n", "pieces:\n  coin: {attributes: {side: [heads, tails]}}\n")
    path = tmp_path / "scan.yaml"
    path.write_text(text)
    game = rulesdsl.load_game(str(path))
    state = position(game, {"a1": {"kind": "coin", "side": "heads"}}, "play")
    with pytest.raises(rulesdsl.GameRuntimeError, match=r"scan.yaml:\d+:\d+: .*has no attribute 'colour'"):
        state.legal_moves()
