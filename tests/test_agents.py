"""Agents play from their own player's view, decide reproducibly, and search agents beat random play."""

from __future__ import annotations

import pytest

import rulesdsl
from rulesdsl import Rng
from rulesdsl.agents import PlayerView, make_agent

from .helpers import load


def _bidding_state(game, bid_of_p2):
    state = game.new_initial_state()
    state.apply("first p1")
    state.apply("roll hammer red")
    state.apply(f"bid {bid_of_p2}", 1)  # p2's secret bid; p1 has yet to choose
    return state


@pytest.mark.parametrize("spec", ["random", "greedy", "mcts:iterations=30:depth=20"])
def test_same_view_same_decision(spec):
    game = load("mark")
    a, b = _bidding_state(game, 0), _bidding_state(game, 25)
    assert a.observation(0) == b.observation(0)  # p1 cannot tell them apart
    legal = a.legal_moves(0)
    assert [str(m) for m in legal] == [str(m) for m in b.legal_moves(0)]
    agent = make_agent(spec)
    first = agent.choose(PlayerView(a, 0), legal, Rng(3))
    second = make_agent(spec).choose(PlayerView(b, 0), b.legal_moves(0), Rng(3))
    assert str(first) == str(second)


def test_hidden_hands_are_resampled_from_the_view():
    game = load("fast-track")
    state = game.new_initial_state()
    rng = Rng(1)
    while state.current_player() < 0:
        state.apply(state.sample_chance(rng))
    me = state.current_player()
    other = 1 - me
    view = PlayerView(state, me)
    seen = view.observation()
    samples = {tuple(sorted(str(c) for c in view.determinize(Rng(s)).zones[2][other])) for s in range(20)}
    assert len(samples) > 1, "the opponent's hand is dealt anew from the unseen cards"
    for s in range(5):
        sampled = view.determinize(Rng(s))
        assert sampled.observation(me) == seen  # consistent with what the player sees
        assert sorted(map(str, sampled.zones[2][me])) == sorted(map(str, state.zones[2][me]))


def test_opponents_draws_are_hidden_in_the_history():
    game = load("fast-track")
    state = game.new_initial_state()
    rng = Rng(4)
    while state.current_player() < 0:
        state.apply(state.sample_chance(rng))
    p = state.current_player()
    mine = [t for t in state.observation(p)["history"] if t.startswith("draw")]
    hidden = [t for t in state.observation(p)["history"] if t == "(hidden)"]
    assert len(mine) == 5 and len(hidden) == 5


def test_agent_settings_are_checked():
    with pytest.raises(ValueError, match="settings: iterations, seconds, c, depth"):
        make_agent("mcts:iters=5")
    with pytest.raises(ValueError, match="NAME=VALUE"):
        make_agent("mcts:5")


def test_mcts_beats_random_on_mabula():
    # It wins about 93% of these games: 16 of 20 leaves room for an unlucky draw of setups.
    summary = rulesdsl.simulate(load("mabula").path, 20, ["mcts:iterations=60", "random"], seed=1)
    assert summary.wins[0] >= 16


def test_greedy_beats_random_on_mark():
    summary = rulesdsl.simulate(load("mark").path, 30, ["greedy", "random"], seed=2)
    assert summary.wins[0] >= 18  # 19 here; about 68% of 120 games with this seed


def test_mcts_searches_its_own_choice_at_a_simultaneous_step():
    from .helpers import ROOT

    game = rulesdsl.load_game(str(ROOT / "examples" / "games" / "sealed-bids.yaml"))
    state = game.new_initial_state()
    state.apply("prize 4")
    state.apply("bid 0", 0)  # seat 0 has chosen in secret; seat 1 is still to choose
    legal = state.legal_moves(1)
    move = make_agent("mcts:iterations=30").choose(PlayerView(state, 1), legal, Rng(3))
    assert move in legal and move.player == 1
