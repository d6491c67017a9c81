"""reveal() and hide() of a zone's place, and remove_all() of a place, a cell or cells: what each player sees,
what agents may resample, and saved states."""

from __future__ import annotations

import json

import pytest

import rulesdsl
from rulesdsl import RulesError
from rulesdsl.agents.view import PlayerView
from rulesdsl.engine.rng import Rng
from rulesdsl.render import render_state

# Each player holds one secret card; `show` turns both face up, `cover` face down again, `fold` empties the
# mover's hand, `sweep` clears the board's row.
SHOWDOWN = """
game: Showdown
players: {count: 2}
board: {grid: {columns: abc, rows: 1}}
pieces:
  card: {attributes: {rank: [1, 2, 3]}}
  stone: {attributes: {owner: [0, 1]}}
zones:
  hand: {per: player, visible: owner, init: "[piece('card', rank=1 + owner)]"}
  deck: {visible: none, init: "[piece('card', rank=3)]"}
moves:
  show:
    notation: "show"
    do: ["reveal(hand[0])", "reveal(hand[1])"]
  cover:
    notation: "cover"
    do: ["hide(hand[me])"]
  fold:
    notation: "fold"
    do: ["remove_all(hand[me])"]
  refill:
    notation: "refill"
    do: ["move(deck, hand[me], first(deck))"]
  stone:
    params: {c: {in: cells}}
    when: ["empty(c)"]
    notation: "{c}"
    do: ["place(piece('stone', owner=me), c)"]
  sweep:
    notation: "sweep"
    do: ["remove_all([c for c in cells if not empty(c)])", "remove_all(cell('a1'))"]
  misuse:
    notation: "misuse"
    do: ["reveal([1, 2])"]
flow:
  steps:
    play:
      moves: [show, cover, fold, refill, stone, sweep, misuse]
      next: end_turn
end:
  - when: "turn > 20"
    winners: "[]"
"""


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    path = tmp_path_factory.mktemp("show") / "showdown.yaml"
    path.write_text(SHOWDOWN)
    return rulesdsl.load_game(str(path))


def hands(state, viewer):
    return state.observation(viewer)["zones"]["hand"]


CARD1, CARD2 = [{"piece": {"kind": "card", "rank": 1}}], [{"piece": {"kind": "card", "rank": 2}}]


def test_a_revealed_place_is_seen_by_everyone_until_hidden(game):
    state = game.new_initial_state()
    assert hands(state, 1) == [{"hidden": 1}, CARD2]
    state.apply("show")
    assert hands(state, 1) == [CARD1, CARD2] and hands(state, 0) == [CARD1, CARD2]
    assert "rank" not in json.dumps(state.observation(0)["zones"]["deck"])  # other places stay as declared
    hand_line = next(line for line in render_state(state, 1).splitlines() if line.startswith("hand"))
    assert "hidden" not in hand_line
    state.apply("cover")  # player 1 turns their own card face down again
    assert hands(state, 0) == [CARD1, {"hidden": 1}] and hands(state, 1) == [CARD1, CARD2]


def test_agents_do_not_resample_what_was_revealed(game):
    state = game.new_initial_state()
    state.apply("show")
    for seed in range(5):
        sampled = PlayerView(state, 1).determinize(Rng(seed))
        assert sampled.to_json()["zones"]["hand"] == [CARD1, CARD2]


def test_removing_all_empties_a_place_and_turns_it_face_down(game):
    state = game.new_initial_state()
    state.apply("show")
    state.apply("fold")  # player 1's hand is emptied: refilled, it is secret again
    assert hands(state, 0)[1] == {"hidden": 0}  # face down again, and empty
    state.apply("a1")
    state.apply("refill")
    assert hands(state, 0)[1] == {"hidden": 1} and hands(state, 1)[0] == CARD1  # player 0's stays revealed
    assert state.to_json()["revealed"] == [["hand", 0]]


def test_removing_all_from_cells(game):
    state = game.new_initial_state()
    state.apply("a1")
    state.apply("c1")
    state.apply("sweep")
    assert state.to_json()["cells"] == {}
    state.apply("sweep")  # nothing left to take: a list of no cells is no mistake
    assert state.to_json()["cells"] == {}


def test_saved_states_keep_what_is_revealed(game):
    state = game.new_initial_state()
    state.apply("show")
    data = json.loads(json.dumps(state.to_json()))
    assert data["revealed"] == [["hand", 0], ["hand", 1]]
    again = game.state_from_json(data)
    assert again.observation(0)["zones"]["hand"] == [CARD1, CARD2]
    for bad in (["hand", 5], ["pile", 0], "hand", ["deck", 0]):
        data["revealed"] = [bad]
        with pytest.raises(RulesError, match="'revealed' entry .* should name a zone and one of its places"):
            game.state_from_json(data)


def test_revealing_what_is_no_zone_is_the_rule_files_mistake(game):
    state = game.new_initial_state()
    with pytest.raises(rulesdsl.GameRuntimeError, match=r"showdown.yaml:\d+:\d+: .*reveal\(\): the list \[1 2\] is not a zone"):
        state.apply("misuse")
