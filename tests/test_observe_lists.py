"""Observations of lists (engine/tensor.py, engine/observe_lists.py): a variable's list counted per item value and
one-hot per slot, a zone's slots with `observe: slots`, and feature families; each against positions played."""

from __future__ import annotations

from pathlib import Path

import pytest

from rulesdsl.api import load_game
from rulesdsl.engine.rng import Rng
from rulesdsl.engine.tensor import ObservationTensor
from rulesdsl.errors import GameRuntimeError, RulesError

HAND_ORDER = str(Path(__file__).resolve().parent / "compiled_games" / "hand-order.yaml")
RANKS = ("ace", "king", "queen")

ROW = """
game: Row
players: {count: 2}
pieces:
  chip: {attributes: {colour: {values: [red, blue]}}}
zones:
  row: {init: "[]", capacity: 3, observe: slots}
  heap: {init: "[]", capacity: 3}
vars:
  laid: {init: "[]", capacity: 3}
moves:
  lay:
    params: {c: "['red', 'blue']"}
    notation: "lay {c}"
    do: ["place(piece('chip', colour=c), row)", "place(piece('chip', colour=c), heap)", "laid += [piece('chip', colour=c)]",
         "end_turn()"]
flow:
  steps:
    play: {moves: [lay]}
end:
  - when: "size(row) == 3"
    winners: "[]"
"""


@pytest.fixture(scope="module")
def hands():
    game = load_game(HAND_ORDER, backend="python")
    return game, ObservationTensor(game)


def _after(game, *moves):
    state = game.new_initial_state()
    for move in moves:
        state.apply(move)
    return state


def _seen(tensor, state, seat: int, prefix: str) -> dict:
    return {n: v for n, v in zip(tensor.describe(), tensor.values(state, seat)) if n.startswith(prefix)}


def test_two_different_hands_give_different_vectors(hands):
    game, tensor = hands
    ace, king = _after(game, "take ace"), _after(game, "take king")
    assert tensor.values(ace, 0) != tensor.values(king, 0)
    for state, held in ((ace, "ace"), (king, "king")):
        counts = _seen(tensor, state, 0, "var hand[0] count")
        assert counts == {f"var hand[0] count {r}": float(r == held) for r in RANKS}
        assert tensor.describe()[tensor.describe().index("var hand[0]")] == "var hand[0]"  # the old entry stays


def test_the_slots_follow_the_order_the_counts_do_not(hands):
    game, tensor = hands
    first = _after(game, "take ace", "take queen", "take king")  # seat 0 holds [ace, king]
    second = _after(game, "take king", "take queen", "take ace")  # seat 0 holds [king, ace]
    assert _seen(tensor, first, 0, "var hand[0] count") == _seen(tensor, second, 0, "var hand[0] count")
    for state, order in ((first, ("ace", "king")), (second, ("king", "ace"))):
        slots = _seen(tensor, state, 0, "var hand[0] slot")
        assert len(slots) == 3 * len(RANKS)  # capacity 3
        assert [r for i in range(3) for r in RANKS if slots[f"var hand[0] slot {i} {r}"] == 1.0] == list(order)
        assert sum(slots.values()) == 2.0  # the third slot is empty
    # a list of seats: who played in turn, slot by slot
    order = _seen(tensor, first, 1, "var order slot")
    assert [order[f"var order slot {i} north"] for i in range(4)] == [1.0, 0.0, 1.0, 0.0]
    assert [order[f"var order slot {i} south"] for i in range(4)] == [0.0, 1.0, 0.0, 0.0]


def test_an_unseen_hand_is_zeros_for_the_other_seat(hands):
    game, tensor = hands
    ace, king = _after(game, "take ace"), _after(game, "take king")
    assert set(_seen(tensor, ace, 1, "var hand[0]").values()) == {0.0}
    assert tensor.values(ace, 1) == tensor.values(king, 1)
    assert sum(_seen(tensor, ace, 0, "var hand[0]").values()) == 2.0  # the owner sees it: a count and a slot


def test_a_feature_family_is_named_and_valued_per_item(hands):
    game, tensor = hands
    names = tensor.describe()
    assert names[-4:] == ["feature held[0]", "feature held[1]", "feature held[2]", "feature kings"]
    state = _after(game, "take king", "take ace", "take king", "take queen")
    for seat, held in ((0, [0.0, 2.0, 0.0]), (1, [1.0, 0.0, 1.0])):
        assert tensor.values(state, seat)[-4:] == held + [held[1]]


def test_a_feature_family_of_another_length_in_play_is_a_located_error(write):
    path = write(Path(HAND_ORDER).read_text(encoding="utf-8").replace(
        'held: "[count(c for c in hand[me] if c == r) for r in ranks]"', 'held: "[1 for c in hand[me]]"'))
    game = load_game(path, backend="python")
    tensor = ObservationTensor(game)
    assert [n for n in tensor.describe() if n.startswith("feature held")] == []  # empty on the starting position
    with pytest.raises(GameRuntimeError) as caught:
        tensor.values(_after(game, "take ace"), 0)
    line = 1 + Path(path).read_text(encoding="utf-8").splitlines().index('  held: "[1 for c in hand[me]]"')
    text = str(caught.value)
    assert "gave a list of 1 numbers, where it gave 0 on the starting position" in text and f"{path}:{line}:" in text


def test_a_zone_observed_by_slots_shows_its_order_and_one_without_does_not(write):
    game = load_game(write(ROW), backend="python")
    tensor = ObservationTensor(game)
    names = tensor.describe()
    assert not [n for n in names if n.startswith("zone heap slot")]  # not asked: counts only, as before
    assert len([n for n in names if n.startswith("zone row slot")]) == 3 * 3  # chip, red, blue per slot
    red_blue, blue_red = _after(game, "lay red", "lay blue"), _after(game, "lay blue", "lay red")
    assert _seen(tensor, red_blue, 0, "zone heap") == _seen(tensor, blue_red, 0, "zone heap")
    for state, order in ((red_blue, ["red", "blue"]), (blue_red, ["blue", "red"])):
        slots = _seen(tensor, state, 0, "zone row slot")
        assert [c for i in range(3) for c in ("red", "blue") if slots[f"zone row slot {i} chip.colour={c}"]] == order
        assert [slots[f"zone row slot {i} chip"] for i in range(3)] == [1.0, 1.0, 0.0]
        # a variable holding pieces is coded as a zone is: by kind and attribute value
        laid = _seen(tensor, state, 1, "var laid slot")
        assert [c for i in range(3) for c in ("red", "blue") if laid[f"var laid slot {i} chip.colour={c}"]] == order
        assert _seen(tensor, state, 1, "var laid count") == {"var laid count chip": 2.0,
                                                             "var laid count chip.colour=red": 1.0,
                                                             "var laid count chip.colour=blue": 1.0}


def test_dice_of_a_known_range_are_counted_by_face():
    game = load_game(str(Path(__file__).resolve().parent.parent / "examples" / "tutorial" / "sixes.yaml"),
                     backend="python")
    tensor = ObservationTensor(game)
    state, chance = game.new_initial_state(3), Rng(3)
    while not state.vars[2]:  # until dice are rolled (last_roll, the third variable)
        state.apply(state.sample_chance(chance) if state.is_chance_node() else state.legal_moves()[0])
    counts = _seen(tensor, state, 0, "var last_roll count")
    assert list(counts) == [f"var last_roll count {face}" for face in range(1, 7)]
    assert counts == {f"var last_roll count {f}": float(state.vars[2].count(f)) for f in range(1, 7)}
    slots = _seen(tensor, state, 0, "var last_roll slot")
    assert len(slots) == 5 * 6 and [f for i in range(5) for f in range(1, 7)
                                    if slots[f"var last_roll slot {i} {f}"]] == list(state.vars[2])


def test_observing_slots_without_a_capacity_is_a_located_error(write):
    path = write(ROW.replace("row: {init: \"[]\", capacity: 3, observe: slots}", "row: {init: \"[]\", observe: slots}"))
    with pytest.raises(RulesError) as caught:
        load_game(path, backend="python")
    assert f"{path}:7:" in str(caught.value) and "observe: slots needs the zone's capacity" in str(caught.value)


def test_an_observation_too_large_in_all_is_refused_before_it_is_built(write):
    # each place's slots are within their bound (1,000 x 3 entries), but 400 places of them are too many together
    text = ROW.replace('row: {init: "[]", capacity: 3, observe: slots}',
                       'row: {keys: "1..400", init: "[]", capacity: 1000, observe: slots}')
    game = load_game(write(text), backend="python")
    with pytest.raises(GameRuntimeError, match="would have 1,2[0-9,]+ entries, more than the 1,000,000 allowed"):
        ObservationTensor(game)
