"""The PettingZoo environment of a rule file (integrations/pettingzoo.py): PettingZoo's own API test for every
bundled game, masks, seeded chance and rewards."""

from __future__ import annotations

import pickle

import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, parallel_api_test  # noqa: E402

from rulesdsl.integrations.pettingzoo import env, parallel_env  # noqa: E402
from rulesdsl.loading import bundled_games  # noqa: E402

from .rl_games import ODDS_AND_EVENS, PARITY_DIE, TINY_POKER, TINY_POKER_CHIPS  # noqa: E402

GAMES = [(name, None) for name in sorted(bundled_games())] + [("mark", "four-row-ending"), ("mabula", "product")]


@pytest.mark.parametrize("name, variant", GAMES)
def test_pettingzoos_api_test_passes(name, variant):
    api_test(env(name, variant), num_cycles=8)


def test_the_mask_holds_the_legal_actions_of_the_seat_to_act_only(write):
    game = env(write(TINY_POKER))
    game.reset(seed=4)
    # the cards are dealt inside reset: seat 0 checks (0) or bets (1)
    assert game.agent_selection == "player_0"
    assert list(game.observe("player_0")["action_mask"]) == [1, 1, 0, 0]
    assert list(game.observe("player_1")["action_mask"]) == [0, 0, 0, 0]
    game.step(1)
    assert game.agent_selection == "player_1"
    assert list(game.observe("player_1")["action_mask"]) == [0, 0, 1, 1]  # call or fold
    game.step(3)  # fold: seat 0 wins
    assert game.terminations == {"player_0": True, "player_1": True}
    assert game.rewards == {"player_0": 1.0, "player_1": -1.0}


def test_rewards_are_the_files_returns_when_it_gives_them(write):
    game = env(write(TINY_POKER_CHIPS))
    game.reset(seed=4)
    game.step(1)  # bet
    game.step(2)  # call: the showdown is for two chips
    assert game.terminations == {"player_0": True, "player_1": True}
    assert sorted(game.rewards.values()) == [-2.0, 2.0]
    assert list(game.rewards.values()) == game.state.returns()


def _play(path: str, seed: int) -> list:
    game = env(path)
    game.reset(seed=seed)
    trail = []
    for agent in game.agent_iter(max_iter=200):
        observation, reward, terminated, truncated, _ = game.last()
        trail.append((agent, reward, observation["observation"].tobytes()))
        mask = observation["action_mask"]
        game.step(None if terminated or truncated else int(mask.nonzero()[0][-1]))
    return trail


def test_chance_inside_step_follows_the_seed_given_to_reset():
    path = str(bundled_games()["mark"])
    assert _play(path, 11) == _play(path, 11)
    assert _play(path, 11) != _play(path, 12)


def test_a_game_of_simultaneous_choices_passes_the_parallel_api_test(write):
    parallel_api_test(parallel_env(write(ODDS_AND_EVENS)), num_cycles=20)


def test_the_parallel_environment_applies_every_choice_at_once(write):
    game = parallel_env(write(ODDS_AND_EVENS))
    observations, _ = game.reset(seed=0)
    assert [list(observations[a]["action_mask"]) for a in ("player_0", "player_1")] == [[1, 1], [1, 1]]
    for _ in range(3):  # 1 + 1 fingers: even, a point for the first player each round
        observations, rewards, terminations, _, _ = game.step({"player_0": 0, "player_1": 0})
    assert rewards == {"player_0": 1.0, "player_1": -1.0}
    assert terminations == {"player_0": True, "player_1": True} and game.agents == []


def test_a_game_with_turns_is_no_parallel_environment(write):
    with pytest.raises(ValueError, match="has steps where one player decides \\('act'\\)"):
        parallel_env(write(TINY_POKER))


def _setups(game, seeds) -> list:
    """The history at the start of each game `game.reset(seed)` starts, for each of `seeds`."""
    starts = []
    for seed in seeds:
        game.reset(seed=seed)
        starts.append(tuple(game.state.history_texts()))
    return starts


def test_aec_resets_without_a_seed_start_new_games_and_a_seed_replays_its_game():
    game = env("mabula")
    assert len(set(_setups(game, [None] * 5))) > 1
    first, _, again = _setups(game, [3, None, 3])
    assert first == again
    assert _setups(env("mabula"), [8, None, None]) == _setups(env("mabula"), [8, None, None])


def test_parallel_resets_without_a_seed_start_new_games_and_a_seed_replays_its_game(write):
    path = write(PARITY_DIE)
    game = parallel_env(path)
    assert len(set(_setups(game, [None] * 12))) > 1  # twelve rolls of a die all alike: 1 time in 6**11
    first, _, again = _setups(game, [3, None, 3])
    assert first == again
    assert _setups(parallel_env(path), [8, None, None]) == _setups(parallel_env(path), [8, None, None])


def test_an_unpickled_environment_plays_on_as_the_original():
    game = env("marble-chase")
    game.reset(seed=2)
    for _ in range(3):
        game.step(int(game.observe(game.agent_selection)["action_mask"].nonzero()[0][0]))
    copy = pickle.loads(pickle.dumps(game))

    def trail(aec) -> list:
        seen = []
        for agent in aec.agent_iter(max_iter=30):
            observation, reward, terminated, truncated, _ = aec.last()
            seen.append((agent, reward, observation["observation"].tobytes()))
            aec.step(None if terminated or truncated else int(observation["action_mask"].nonzero()[0][-1]))
        return seen
    assert trail(copy) == trail(game)
