"""What a seat observes for learning agents (engine/tensor.py): the tensor's entries, the strings, hidden
information kept hidden, and the rule file's own `features:`."""

from __future__ import annotations

import random

import pytest

from rulesdsl.api import load_game
from rulesdsl.engine.tensor import ObservationTensor, information_state_string, observation_string
from rulesdsl.errors import GameRuntimeError
from rulesdsl.loading import bundled_games

from .rl_games import TINY_POKER


def _dealt(game, first: int, second: int):
    state = game.new_initial_state()
    state.apply(f"deal {first}")
    state.apply(f"deal {second}")
    return state


def test_the_entries_of_a_dealt_hand(write):
    game = load_game(write(TINY_POKER))
    tensor = ObservationTensor(game)
    seen = dict(zip(tensor.describe(), tensor.values(_dealt(game, 1, 3), 0)))
    assert tensor.shape == (26,)
    # the deck holds the Q: seat 0 sees how many cards it has, not which
    assert [seen[f"zone deck {what}"] for what in ("size", "card", "card.rank=2")] == [1.0, 0.0, 0.0]
    assert [seen[f"zone hand[0] card.rank={r}"] for r in (1, 2, 3)] == [1.0, 0.0, 0.0]  # its own J
    assert [seen["zone hand[1] size"], seen["zone hand[1] card.rank=3"]] == [1.0, 0.0]  # the K unseen
    assert [seen["to move p0"], seen["to move p1"], seen["step act"], seen["feature my_card"]] == [1.0, 0.0, 1.0, 1.0]


def test_a_seat_sees_nothing_of_an_opponents_hidden_card(write):
    game = load_game(write(TINY_POKER))
    tensor = ObservationTensor(game)
    queen, king = _dealt(game, 1, 2), _dealt(game, 1, 3)
    for state in (queen, king):
        state.apply("bet")
    assert tensor.values(queen, 0) == tensor.values(king, 0)
    assert observation_string(queen, 0) == observation_string(king, 0)
    assert information_state_string(queen, 0) == information_state_string(king, 0)
    # the seat holding the card sees the difference
    assert tensor.values(queen, 1) != tensor.values(king, 1)
    assert information_state_string(queen, 1) != information_state_string(king, 1)


def test_the_information_state_holds_the_history_the_observation_does_not(write):
    game = load_game(write(TINY_POKER))
    checked, bet = _dealt(game, 1, 2), _dealt(game, 1, 2)
    checked.apply("check")
    bet.apply("bet")
    bet.apply("call")
    assert '"history":["deal 1","(hidden)","check"]' in information_state_string(checked, 0)
    assert "history" not in observation_string(checked, 0)


def test_a_feature_reads_only_what_the_seat_sees(write):
    game = load_game(write(TINY_POKER.replace("features:\n", "features:\n  peek: \"sum([c.rank for c in hand[1 - me]])\"\n")))
    tensor = ObservationTensor(game)
    assert tensor.describe()[-2:] == ["feature peek", "feature my_card"]
    assert tensor.values(_dealt(game, 1, 3), 0)[-2:] == [0.0, 1.0]
    assert tensor.values(_dealt(game, 1, 3), 1)[-2:] == [0.0, 3.0]


def test_a_feature_that_is_not_a_number_is_a_located_error(write):
    game = load_game(write(TINY_POKER.replace('my_card: "sum([c.rank for c in hand[me]])"', "my_card: \"'x'\"")))
    with pytest.raises(GameRuntimeError) as info:
        ObservationTensor(game).values(_dealt(game, 1, 3), 0)
    assert info.value.format().startswith(f"{game.path}:16:12: error:")
    assert "feature 'my_card' gave str 'x', not a number" in info.value.format()


@pytest.mark.parametrize("name", sorted(bundled_games()))
def test_a_bundled_game_gives_every_seat_a_tensor_of_its_shape(name):
    game = load_game(bundled_games()[name])
    tensor = ObservationTensor(game)
    assert len(tensor.describe()) == tensor.size
    state, rng = game.new_initial_state(seed=2), random.Random(2)
    for _ in range(40):
        if state.is_terminal():
            break
        for seat in range(game.num_players):
            values = tensor.values(state, seat)
            assert len(values) == tensor.size and all(isinstance(v, float) for v in values)
        state.apply(state.sample_chance() if state.is_chance_node() else rng.choice(state.legal_moves()))
