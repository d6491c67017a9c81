"""remove() and move() of a zone's piece by its position (at=): 0 its first, -1 its last, out of range a located
error."""

from __future__ import annotations

import pytest

import rulesdsl

HANDS = """\
game: Hands
players: {count: 2}
board:
  cells: [a]
pieces:
  card:
    attributes:
      rank: [1, 2, 3]
zones:
  hand: {per: player, init: "[piece('card', rank=r) for r in [1, 2, 3, 2]]"}
  pile: {init: "[]"}
moves:
  play:
    params:
      i: {in: "POSITIONS"}
    notation: "play #{i}"
    do: ["move(hand[me], pile, at=i)"]
  burn:
    params:
      i: {in: "[-1, 0]"}
    when: ["size(hand[me]) > 0"]
    do: ["remove(hand[me], at=i)"]
flow:
  steps:
    turn: {moves: [play, burn], next: end_turn}
end:
  - when: "size(hand[0]) == 0"
    winners: "[]"
"""


def _state(tmp_path, positions="0..size(hand[me]) - 1"):
    path = tmp_path / "hands.yaml"
    path.write_text(HANDS.replace("POSITIONS", positions))
    return rulesdsl.load_game(str(path), backend="python").new_initial_state(0)


def ranks(zone) -> list:
    return [card.rank for card in zone]


def test_a_zones_piece_is_moved_or_removed_by_its_position(tmp_path):
    state = _state(tmp_path)
    state.apply("play #1")  # seat 0 plays its second card, a 2
    assert ranks(state.zones[1]) == [2] and ranks(state.zones[0][0]) == [1, 3, 2]
    state.apply("burn -1")  # seat 1 burns its last card
    assert ranks(state.zones[0][1]) == [1, 2, 3]
    state.apply("burn 0")  # seat 0 its first
    assert ranks(state.zones[0][0]) == [3, 2]


@pytest.mark.parametrize("positions, shown", [("[4]", "4"), ("[-5]", "-5"), ("['x']", "x")])
def test_a_position_the_zone_does_not_have_is_a_located_error(tmp_path, positions, shown):
    state = _state(tmp_path, positions)
    with pytest.raises(rulesdsl.GameRuntimeError) as caught:
        state.apply(state.legal_moves()[0])
    message = str(caught.value)
    assert "hands.yaml:17:" in message and f"has no position {shown}" in message and "holds 4 pieces" in message


def test_a_piece_named_and_a_position_together_are_refused(tmp_path):
    path = tmp_path / "both.yaml"
    path.write_text(HANDS.replace("POSITIONS", "[0]").replace("move(hand[me], pile, at=i)",
                                                               "move(hand[me], pile, hand[me][0], at=i)"))
    state = rulesdsl.load_game(str(path), backend="python").new_initial_state(0)
    with pytest.raises(rulesdsl.GameRuntimeError, match="name the piece or its position"):
        state.apply("play #0")
