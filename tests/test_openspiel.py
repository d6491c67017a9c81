"""The OpenSpiel game of a rule file (integrations/openspiel.py): game type and info, OpenSpiel's MCTS bot on a
bundled game, CFR and the full game tree of a small game with hidden information."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

pyspiel = pytest.importorskip("pyspiel")

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import cfr, exploitability, get_all_states, mcts  # noqa: E402

from rulesdsl.integrations.openspiel import load_game  # noqa: E402
from rulesdsl.loading import bundled_games  # noqa: E402

from .helpers import ROOT  # noqa: E402
from .rl_games import TINY_POKER, TINY_POKER_CHIPS  # noqa: E402


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


def test_a_random_arrangement_too_large_to_list_is_sampled_by_the_state():
    game = load_game("mabula")
    assert game.get_type().chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert game.max_chance_outcomes() == 0
    assert "mabula.yaml:75:9" in game.chance_note and "'setup' draws or arranges items" in game.chance_note
    state = game.new_initial_state()
    assert not state.is_chance_node() and state.current_player() == 0  # the setup is drawn already
    with pytest.raises(RuntimeError, match="samples its chance outcomes"):
        state.chance_outcomes()
    # the options name the arrangement: no chance at all; a chance step with outcomes to list: explicit
    assert load_game("mabula", options={"setup": "WWBB" * 6}).get_type().chance_mode == \
        pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert load_game("mark").get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC


def _setup(game) -> str:
    return str(game.new_initial_state())  # a sampled game's text starts with its setup


def test_a_sampled_game_draws_new_games_from_its_seed():
    seeded = [load_game("mabula", rng_seed=3) for _ in range(2)]
    first = [[_setup(game) for _ in range(3)] for game in seeded]
    assert first[0] == first[1] and len(set(first[0])) == 3  # reproducible, and each game a new one
    assert _setup(load_game("mabula", rng_seed=4)) != first[0][0]
    unseeded = load_game("mabula")  # rng_seed -1: the first game's seed comes from the operating system
    assert len({_setup(unseeded) for _ in range(5)}) > 1


def test_a_clone_plays_the_chance_of_its_original_and_draws_no_game_nor_does_reading_the_tensor():
    game = load_game("mabula", rng_seed=5)
    state = game.new_initial_state()
    clones = [state.clone() for _ in range(3)]
    assert {str(c) for c in clones} == {str(state)}
    assert len(state.observation_tensor(0)) == game.observation_tensor_size() == game.observation_tensor_shape()[0]
    assert _setup(load_game("mabula", rng_seed=5)) == str(state)
    following = load_game("mabula", rng_seed=5)
    following.new_initial_state().current_player()
    assert _setup(game) == _setup(following)  # the clones took no seed from the game's stream


FILES = ["fast-track", "mabula", "marble-chase", "mark", *sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "examples").rglob("*.yaml"))]
SLOW = {"fast-track", "marble-chase", "mark", "examples/overlays/mark-rich-start.yaml"}


@pytest.mark.parametrize("path", [pytest.param(f, marks=pytest.mark.slow) if f in SLOW else f for f in FILES])
def test_openspiels_random_simulation_test_passes_for_every_bundled_game_and_example(path):
    game = load_game(path if path in bundled_games() else str(ROOT / path), rng_seed=1)
    sampled = game.get_type().chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    # OpenSpiel serializes a sampled game with the game's RNG state, which its Python game API cannot give: the
    # states of such games are checked by test_a_sampled_state_serializes_and_plays_on_as_the_original
    pyspiel.random_sim_test(game, num_sims=1, serialize=not sampled, verbose=False)


def _random_play(state, rng, plies: int) -> list:
    for _ in range(plies):
        if state.is_terminal():
            break
        if state.is_chance_node():
            actions, probabilities = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=probabilities)))
        elif state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(state.num_players())])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return [str(state), state.history(), state.observation_tensor(0)]


def test_a_sampled_state_serializes_and_plays_on_as_the_original():
    game = load_game("mabula", rng_seed=2)
    state = game.new_initial_state()
    _random_play(state, np.random.RandomState(0), 6)
    again = game.deserialize_state(state.serialize())
    assert _random_play(again, np.random.RandomState(1), 60) == _random_play(state, np.random.RandomState(1), 60)


@pytest.mark.parametrize("name, options", [("mabula", {}), ("mark", {"money": 40})])
def test_games_and_states_pickle_and_play_on_as_the_originals(name, options):
    game = load_game(name, options=options, rng_seed=7)
    played = game.new_initial_state()
    _random_play(played, np.random.RandomState(2), 4)
    game_copy, state_copy = pickle.loads(pickle.dumps(game)), pickle.loads(pickle.dumps(played))
    assert str(game_copy) == str(game) and str(state_copy) == str(played)
    assert _random_play(state_copy, np.random.RandomState(3), 40) == _random_play(played, np.random.RandomState(3), 40)
    # as OpenSpiel's test of sampled games: the game's stream of new games goes on where it was
    assert [_setup(game_copy) for _ in range(2)] == [_setup(game) for _ in range(2)]


def test_a_pickled_game_of_a_rule_file_unpickles_in_another_process(poker):
    state = poker.new_initial_state()
    state.apply_action(1)
    expected = f"{poker.get_type().short_name} {state.legal_actions()} {state.history()}\n"
    script = ("import pickle, sys; state = pickle.loads(sys.stdin.buffer.read()); "
              "print(state.get_game().get_type().short_name, state.legal_actions(), state.history())")
    done = subprocess.run([sys.executable, "-c", script], input=pickle.dumps(state), capture_output=True,
                          check=True, cwd=ROOT)
    assert done.stdout.decode() == expected


def test_a_bundled_game_loads_by_name_in_a_new_process():
    script = ("import pyspiel, rulesdsl.integrations.openspiel; "
              "game = pyspiel.load_game('rulesdsl_mabula(variant=product,rng_seed=3)'); "
              "state = game.new_initial_state(); print(game.get_type().chance_mode, str(state).split()[0])")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, check=True, cwd=ROOT)
    expected = load_game("mabula", variant="product", rng_seed=3)
    assert done.stdout.decode().split() == [str(expected.get_type().chance_mode), _setup(expected).split()[0]]


def test_a_bundled_game_takes_its_options_as_parameters():
    game = pyspiel.load_game("rulesdsl_mark(players=3,variant=four-row-ending)")
    assert game.num_players() == 3 and game.get_parameters()["variant"] == "four-row-ending"
    assert load_game("mark", options={"players": 3}).num_players() == 3
    assert sorted(load_game("mark").get_parameters()) == ["backend", "money", "players", "rng_seed", "variant"]


def test_openspiels_mcts_bot_plays_a_sampled_game_to_the_end():
    game = load_game("mabula", rng_seed=1)
    rng = np.random.RandomState(1)
    bot = mcts.MCTSBot(game, 1.4, 4, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bot.step(state))
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])


def test_actions_read_as_moves(poker):
    state = poker.new_initial_state()
    assert [state.action_to_string(pyspiel.PlayerId.CHANCE, a) for a in (0, 1, 2)] == ["deal 1", "deal 2", "deal 3"]
    state.apply_action(0)
    state.apply_action(5)
    assert [state.action_to_string(0, a) for a in state.legal_actions()] == ["check", "bet"]


@pytest.fixture(scope="module")
def chips(tmp_path_factory):
    path = tmp_path_factory.mktemp("rl") / "poker-chips.yaml"
    path.write_text(TINY_POKER_CHIPS, encoding="utf-8")
    return load_game(str(path))


def test_a_game_played_for_chips_states_its_utility_and_range_and_solves(chips):
    assert chips.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM  # declared
    assert (chips.min_utility(), chips.max_utility(), chips.utility_sum()) == (-2.0, 2.0, 0.0)  # returns_range
    pyspiel.random_sim_test(chips, num_sims=20, serialize=True, verbose=False)  # returns within range, sum 0
    terminals = [s for s in get_all_states.get_all_states(chips, include_terminals=True).values() if s.is_terminal()]
    assert sorted({tuple(s.returns()) for s in terminals}) == [(-2.0, 2.0), (-1.0, 1.0), (1.0, -1.0), (2.0, -2.0)]
    solver = cfr.CFRSolver(chips)
    for _ in range(40):
        solver.evaluate_and_update_policy()
    assert exploitability.exploitability(chips, solver.average_policy()) < 0.05


def test_a_cooperative_game_is_identical_and_its_unknown_range_is_unbounded():
    game = load_game(str(ROOT / "tests" / "compiled_games" / "chip-duel.yaml"), variant="team")
    assert game.get_type().utility == pyspiel.GameType.Utility.IDENTICAL  # derived: its returns read no seat
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (float("-inf"), float("inf"), None)
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)
    zero_sum = load_game(str(ROOT / "tests" / "compiled_games" / "chip-duel.yaml"))
    assert zero_sum.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM and zero_sum.utility_sum() == 0.0


def test_a_constant_sum_game_states_the_sum_of_its_first_game(tmp_path):
    text = (ROOT / "tests" / "compiled_games" / "chip-duel.yaml").read_text()
    path = tmp_path / "chips.yaml"
    path.write_text(text.replace('returns: "chips[me] - 10"', 'returns: "chips[me]"')
                    .replace("utility: zero_sum", "utility: constant_sum"))
    game = load_game(str(path))
    assert game.get_type().utility == pyspiel.GameType.Utility.CONSTANT_SUM and game.utility_sum() == 20.0
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)  # every game's returns sum to it
