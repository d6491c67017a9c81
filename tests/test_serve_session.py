"""A playground game: the same game as `simulate` plays from a seed, and undo brings back the same dice."""

from __future__ import annotations

import pytest

from rulesdsl.agents import make_agent
from rulesdsl.api import load_game
from rulesdsl.errors import UsageError
from rulesdsl.serve.session import Session
from rulesdsl.sim.runner import play_game


@pytest.mark.parametrize("name", ["mabula", "mark", "marble-chase", "fast-track"])
def test_agents_at_every_seat_play_the_game_simulate_plays_with_that_seed(name):
    game = load_game(name, max_turns=30)
    session = Session(game, 4, ["random", "first"])
    record = play_game(game, [make_agent("random"), make_agent("first")], 4)
    logged = [text.split(" ", 1)[1] if text.startswith("@") else text for text in record.moves]  # '@seat move'
    assert session.state.terminal and session.state.history_texts() == logged


def test_undo_goes_back_to_before_the_human_move_and_the_dice_repeat():
    game = load_game("marble-chase")
    session = Session(game, 7, ["human", "human"])
    start = list(session.state.history_texts())
    first = session.legal()[0]
    session.play(first)
    after = list(session.state.history_texts())
    assert after[:len(start) + 1] == start + [first] and len(after) > len(start) + 1  # the shot's outcome
    assert session.undo() and session.state.history_texts() == start
    session.play(first)
    assert session.state.history_texts() == after  # the chance stream was rewound too
    assert session.undo() and not session.undo()


def test_seats_are_checked():
    game = load_game("mabula")
    with pytest.raises(UsageError, match="2 players; 3 seats"):
        Session(game, 0, ["human", "human", "human"])
    with pytest.raises(UsageError, match="wizard"):
        Session(game, 0, ["human", "wizard"])
