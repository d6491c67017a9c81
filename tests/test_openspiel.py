"""The OpenSpiel game of a rule file (integrations/openspiel.py): game type and info, OpenSpiel's MCTS bot on a
bundled game, CFR and the full game tree of a small game with hidden information."""

from __future__ import annotations

import pytest

pyspiel = pytest.importorskip("pyspiel")

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import cfr, exploitability, get_all_states, mcts  # noqa: E402

from rulesdsl.errors import RulesError  # noqa: E402
from rulesdsl.integrations.openspiel import load_game  # noqa: E402

from .rl_games import TINY_POKER  # noqa: E402


@pytest.fixture(scope="module")
def poker(tmp_path_factory):
    path = tmp_path_factory.mktemp("rl") / "poker.yaml"
    path.write_text(TINY_POKER, encoding="utf-8")
    return load_game(str(path))


def test_the_game_type_and_info_follow_the_rule_file(poker):
    kind = poker.get_type()
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    # check, bet, call, fold; three ranks dealt at each of two chance steps
    assert (poker.num_distinct_actions(), poker.max_chance_outcomes(), poker.num_players()) == (4, 6, 2)
    assert pyspiel.load_game(kind.short_name).num_distinct_actions() == 4  # registered under its name


def test_the_full_tree_of_the_small_game(poker):
    states = get_all_states.get_all_states(poker, include_terminals=True, include_chance_states=True)
    # chance: 1 + 3 deals; decisions: 6 deals x (check | bet) for seat 0, 6 x 2 for seat 1;
    # terminals: 6 x (check-check, bet-call, bet-fold)
    assert len(states) == 1 + 3 + 6 + 12 + 18
    state = poker.new_initial_state()
    state.apply_action(0)  # deal the J to seat 0
    state.apply_action(5)  # and the K to seat 1
    assert state.legal_actions() == [0, 1]
    assert state.information_state_string(0) != state.information_state_string(1)
    assert state.observation_tensor(0)[-1] == 1.0  # feature my_card: the J


def test_cfr_runs_and_its_average_policy_gets_less_exploitable(poker):
    solver = cfr.CFRSolver(poker)
    solver.evaluate_and_update_policy()
    first = exploitability.exploitability(poker, solver.average_policy())
    for _ in range(30):
        solver.evaluate_and_update_policy()
    later = exploitability.exploitability(poker, solver.average_policy())
    assert later < first / 4 and later < 0.05


def test_mcts_plays_a_bundled_game_to_the_end():
    game = load_game("mabula", options={"setup": "WWBB" * 6})
    rng = np.random.RandomState(1)
    bot = mcts.MCTSBot(game, 1.4, 4, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bot.step(state))
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])


def test_a_random_arrangement_cannot_be_listed_as_chance_outcomes():
    with pytest.raises(RulesError, match="'setup' draws or arranges items") as info:
        load_game("mabula")
    assert "mabula.yaml:75:9" in info.value.format()  # at the setup step


def test_actions_read_as_moves(poker):
    state = poker.new_initial_state()
    assert [state.action_to_string(pyspiel.PlayerId.CHANCE, a) for a in (0, 1, 2)] == ["deal 1", "deal 2", "deal 3"]
    state.apply_action(0)
    state.apply_action(5)
    assert [state.action_to_string(0, a) for a in state.legal_actions()] == ["check", "bet"]
