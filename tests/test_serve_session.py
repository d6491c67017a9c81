"""A playground game: the same game as `simulate` plays from a seed, and undo brings back the same dice."""

from __future__ import annotations

import pytest

from rulesdsl import budget
from rulesdsl.agents import make_agent
from rulesdsl.api import load_game
from rulesdsl.errors import GameRuntimeError, UsageError
from rulesdsl.serve.session import Session
from rulesdsl.sim.runner import play_game

from .helpers import SEALED


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


def test_a_game_s_record_plays_back_the_same_game_with_its_undo_points():
    game = load_game("marble-chase")
    session = Session(game, 7, ["human", "random"])
    for _ in range(3):
        session.play(session.legal()[0])
    record = session.record()
    assert record["plies"] == session.state.history_texts() and len(record["humans"]) == 3
    again = Session(game, 7, ["human", "random"], record)  # no agent asked, nothing drawn: the plies applied
    assert again.state.history_texts() == session.state.history_texts() and again.since == session.since
    assert again.view(0) == session.view(0)
    assert again.undo() and session.undo() and again.record() == session.record()
    move = session.legal()[-1]
    session.play(move)
    again.play(move)  # what follows a human move is drawn from the same streams in both
    assert again.state.history_texts() == session.state.history_texts()


def test_simultaneous_choices_are_recorded_with_their_seat_and_played_back():
    game = load_game(SEALED)
    session = Session(game, 3, ["human", "random", "random"])
    session.play(session.legal()[0])  # the human's secret bid, with the agents' at the same step
    record = session.record()
    bids = [text for text in record["plies"] if text.startswith("@")]
    assert {text.split(" ")[0] for text in bids[:3]} == {"@0", "@1", "@2"}
    again = Session(game, 3, ["human", "random", "random"], record)
    assert again.state.history_texts() == session.state.history_texts() and again.view(0) == session.view(0)


# forty rules that each move one of the player's own stones to the first row of a board of 10,000 cells
RULE = """\
  step{i}:
    params:
      from: {{in: "[c for c in cells if at(c) != none and at(c).owner == me]", why: you move only your own stone}}
      to: {{in: "[c for c in cells if c.y == 1]"}}
    notation: "{{from}}-{{to}} {i}"
    do: ["move(from, to)"]
"""
WIDE = """\
game: Wide
players: {count: 2}
board:
  grid: {columns: 100, rows: 100}
  init: {"11": "piece('stone', owner=0)"}
pieces:
  stone: {attributes: {owner: [0, 1]}}
moves:
RULES
flow:
  steps:
    play: {moves: [STEPS], next: end_turn}
end:
  - when: "false"
    winners: "[]"
"""


def test_explaining_a_click_has_a_budget_and_names_the_rule(write, monkeypatch):
    text = WIDE.replace("RULES\n", "".join(RULE.format(i=i) for i in range(40)))
    game = load_game(write(text.replace("STEPS", ", ".join(f"step{i}" for i in range(40)))))
    session = Session(game, 0, ["human", "human"])
    # a click on an empty cell is explained by each rule's checks with every cell as its target: 400,000 of them,
    # within the budget on any machine (scaled up here as on a slow one), and not within a hundredth of it
    monkeypatch.setenv(budget.TIME_SCALE_VARIABLE, "20")
    assert session.click(["5050"]) == {"why": "you move only your own stone"}
    # the explanation's own 5 s are now 0.05 s (scaled as above), listing the moves keeps its budget
    monkeypatch.setitem(budget._sections, Session._why_not.__code__,
                        (0.05 / 20, "explaining why no move takes the cells clicked"))
    budget.ensure_watchdog()
    with pytest.raises(GameRuntimeError) as info:
        session.click(["5050"])
    error = info.value
    assert error.message == "explaining why no move takes the cells clicked took longer than the 0.05 s allowed"
    assert error.rule.startswith("step") and error.location == game.rules.where(("moves", error.rule))
    assert session.legal()  # listing the moves stays within its budget: the game goes on
