"""The PettingZoo environment of a rule file (integrations/pettingzoo.py): PettingZoo's own API test for every
bundled game, masks, seeded chance and rewards."""

from __future__ import annotations

import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test  # noqa: E402

from rulesdsl.integrations.pettingzoo import env  # noqa: E402
from rulesdsl.loading import bundled_games  # noqa: E402

from .rl_games import TINY_POKER  # noqa: E402

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
