"""`last_move` (the last move a player made: its params and lets, `by`, `kind`) and the end checked before a
turn passes, in end conditions, winners, move conditions, saved states and players' views."""

from __future__ import annotations

import json

import pytest

import rulesdsl
from rulesdsl import RulesError
from rulesdsl.agents.view import PlayerView
from rulesdsl.engine.rng import Rng

from .helpers import SEALED, revealed

# Whoever marks the last cell of the row wins; nobody may mark right beside the cell just marked; a coin is
# tossed after every move (a chance outcome is nobody's move).
ROW = """
game: Row
players: {count: 2}
board:
  grid: {columns: abcde, rows: 1}
pieces:
  stone: {attributes: {owner: [0, 1]}}
moves:
  mark:
    params: {c: {in: cells}}
    let:
      far: "c.x == 5"
    when:
      - test: "empty(c)"
        why: the cell is taken
      - test: "last_move == none or abs(c.x - last_move.c.x) != 1"
        why: not beside the cell just marked
    notation: "{c}"
    do: ["place(piece('stone', owner=me), c)"]
flow:
  steps:
    play:
      moves: [mark]
      pass: pass
      next: toss
    toss:
      chance:
        outcomes:
          params: {side: "['heads', 'tails']"}
          notation: "{side}"
      next: end_turn
end:
  - when: "last_move != none and last_move.kind == 'mark' and last_move.far"
    winners: "[last_move.by]"
"""


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    path = tmp_path_factory.mktemp("last") / "row.yaml"
    path.write_text(ROW)
    return rulesdsl.load_game(str(path))


def test_a_move_condition_reads_the_move_before_it(game):
    state = game.new_initial_state()
    assert [str(m) for m in state.legal_moves()] == ["a1", "b1", "c1", "d1", "e1"]
    state.apply("c1")
    state.apply("heads")  # chance: last_move is still c1
    assert [str(m) for m in state.legal_moves()] == ["a1", "e1"]
    with pytest.raises(rulesdsl.MoveError, match="not beside the cell just marked"):
        state.apply("b1")


def test_the_winner_is_the_last_mover_and_the_turn_has_not_passed(game):
    state = game.new_initial_state()
    for move in ["a1", "tails", "c1", "heads"]:
        state.apply(move)
    assert (state.player, state.turn) == (0, 2)
    state.apply("e1")
    assert state.terminal and state.winners == [0]  # at once: the end is checked after every move
    assert (state.player, state.turn) == (0, 2)


def test_a_saved_state_keeps_the_last_move(game):
    state = game.new_initial_state()
    state.apply("b1")
    data = json.loads(json.dumps(state.to_json()))
    assert data["last_move"] == {"by": 0, "move": "mark", "args": [{"cell": "b1"}, False]}
    again = game.state_from_json(data)
    assert [str(m) for m in again.legal_moves()] == [str(m) for m in state.legal_moves()]
    data["last_move"] = {"by": 7, "move": "mark", "args": [{"cell": "b1"}, False]}
    with pytest.raises(RulesError, match="'last_move' should be"):
        game.state_from_json(data)
    data["last_move"] = {"by": 0, "move": "mark", "args": [{"cell": "z9"}, False]}
    with pytest.raises(RulesError, match="'last_move' holds a value that is not one of this game's"):
        game.state_from_json(data)


def test_another_players_secret_choice_is_not_seen_as_the_last_move():
    game = rulesdsl.load_game(SEALED)
    state = revealed(game)
    state.apply("bid 5", 1)
    assert state.observation(1)["last_move"] == {"by": 1, "move": "bid", "args": [5]}
    assert state.observation(0)["last_move"] is None and state.observation(2)["last_move"] is None
    assert PlayerView(state, 0).determinize(Rng(1)).last is None
    assert PlayerView(state, 1).determinize(Rng(1)).last == state.last


def test_last_move_is_an_error_where_there_is_no_game_yet(tmp_path):
    path = tmp_path / "early.yaml"
    path.write_text(ROW.replace("moves:\n  mark:", "let:\n  early: \"last_move\"\nmoves:\n  mark:"))
    with pytest.raises(RulesError, match="cannot compute this value"):
        rulesdsl.load_game(str(path))
