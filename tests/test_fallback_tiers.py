"""Fallback tiers: a later tier is legal only where the earlier ones give nothing, per value with fallback_by."""

from __future__ import annotations

import pytest

import rulesdsl

# Cards 1 to 4 in hand; a card moves forward by its value while that stays on the track of 6 spaces, else
# backward; a card with neither is discarded. `backward` fails loudly for a card it is asked about while a
# forward move exists: it must never be listed for such a card.
TIERS = """
game: Tiers
players: {count: 1}
board: {grid: {columns: 7, rows: 1}}
options:
  at: {type: int, default: 0, min: 0, max: 6, help: where the token starts}
vars:
  pos: {init: "option.at"}
  hand: {init: "[1, 2, 3, 4]"}
moves:
  forward:
    params: {card: "hand"}
    when: ["pos + card <= 6"]
    notation: "{card} forward"
    do: ["pos = pos + card"]
  backward:
    params: {card: "hand"}
    when:
      - "1 // (0 if pos + card <= 6 else 1) >= 0"
      - "pos - card >= 0"
    notation: "{card} back"
    do: ["pos = pos - card"]
  discard:
    params: {card: "hand"}
    notation: "{card} discard"
flow:
  steps:
    play:
      moves: [[forward], [backward], [discard]]
      fallback_by: card
      after: ["hand = [c for c in hand if c != move.card]"]
      next: end_turn
end:
  - when: "hand == []"
    winners: "[0]"
"""


@pytest.fixture(scope="module")
def rules_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("tiers") / "tiers.yaml"
    path.write_text(TIERS)
    return str(path)


@pytest.mark.parametrize("at, expected", [
    (0, ["1 forward", "2 forward", "3 forward", "4 forward"]),
    (3, ["1 forward", "2 forward", "3 forward", "4 discard"]),
    (5, ["1 forward", "2 back", "3 back", "4 back"]),
    (6, ["1 back", "2 back", "3 back", "4 back"]),
])
def test_each_card_falls_back_on_its_own(rules_file, at, expected):
    state = rulesdsl.load_game(rules_file, options={"at": at}).new_initial_state()
    assert [str(m) for m in state.legal_moves()] == expected


def test_a_card_with_no_move_in_any_tier_reaches_the_last(rules_file):
    state = rulesdsl.load_game(rules_file, options={"at": 6}).new_initial_state()
    state.apply("4 back")  # at 2: a 4 would go to 6 forward, but the 4 is played
    state.apply("3 forward")  # at 5
    assert [str(m) for m in state.legal_moves()] == ["1 forward", "2 back"]
    state.apply("2 back")  # at 3
    assert [str(m) for m in state.legal_moves()] == ["1 forward"]
