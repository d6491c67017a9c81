"""The single-agent Gymnasium environment (integrations/gymnasium.py): Gymnasium's env checker, play against
fixed agents, illegal actions and seeding."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

pytest.importorskip("gymnasium")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from rulesdsl.engine.play import play, start, streams, uniform  # noqa: E402
from rulesdsl.integrations.gymnasium import env_id, make  # noqa: E402
from rulesdsl.loading import bundled_games  # noqa: E402

from .helpers import ROOT  # noqa: E402

from .rl_games import TINY_POKER  # noqa: E402


def test_the_seat_plays_against_a_fixed_agent(write):
    env = make(write(TINY_POKER), seat=1, opponents=["first"])
    observation, _ = env.reset(seed=3)
    # 'first' checks for seat 0 (its first legal move); seat 1 may only check back
    assert list(observation["action_mask"]) == [1, 0, 0, 0]
    assert env.state.history_texts()[-1] == "check"
    _, reward, terminated, truncated, _ = env.step(0)
    assert terminated and not truncated
    ranks = [hand[0].rank for hand in env.state.zones[1]]
    assert reward == (1.0 if ranks[1] > ranks[0] else -1.0)


def test_an_illegal_action_ends_the_episode_as_a_loss(write):
    env = make(write(TINY_POKER), seat=1, opponents=["first"])
    env.reset(seed=3)
    _, reward, terminated, _, info = env.step(3)  # fold: there is no bet to fold to
    assert (reward, terminated, info) == (-1.0, True, {"illegal_action": 3})


def test_the_same_seed_gives_the_same_game():
    def trail(seed):
        env = make("mark", seat=0)
        observation, _ = env.reset(seed=seed)
        rewards = []
        for _ in range(30):
            action = int(observation["action_mask"].nonzero()[0][0])
            observation, reward, terminated, truncated, _ = env.step(action)
            rewards.append(reward)
            if terminated or truncated:
                break
        return env.state.history_texts()
    assert trail(4) == trail(4)
    assert trail(4) != trail(5)


def test_a_seed_gives_the_game_simulate_plays_with_that_seed():
    # the learner picks as the random agent does, from its own seat's stream: the very game of the play loop
    env = make("marble-chase", seat=0, opponents=["random"])
    game = env.loaded.game
    observation, _ = env.reset(seed=11)
    chooser = streams(11, game.num_players)[1][0]
    terminated = truncated = False
    while not (terminated or truncated):
        legal = env.state.legal_moves(0)
        move = legal[chooser.below(len(legal))]
        action = next(a for a, m in env.loaded.actions.legal(env.state, 0).items() if m == move)
        assert observation["action_mask"][action] == 1
        observation, _, terminated, truncated, _ = env.step(action)
    expected = start(game, 11)
    play(expected, uniform, None, streams(11, game.num_players)[1])
    assert env.state.history_texts() == expected.history_texts() and len(expected.history) > 50


def test_resets_without_a_seed_start_new_games_and_a_seed_replays_its_game():
    env = make("mabula", seat=0)
    setups = set()
    for _ in range(5):
        env.reset()
        setups.add(env.state.history_texts()[0])  # the random arrangement of the board
    assert len(setups) > 1
    env.reset(seed=3)
    first = env.state.history_texts()
    env.reset()
    env.reset(seed=3)
    assert env.state.history_texts() == first


def test_the_first_seed_given_seeds_the_games_after_it():
    def games(seed):
        env = make("mabula", seat=0)
        env.reset(seed=seed)
        trail = []
        for _ in range(3):
            env.reset()
            trail.append(env.state.history_texts()[0])
        return trail
    assert games(8) == games(8)
    assert games(8) != games(9)


@pytest.mark.parametrize("name", sorted(bundled_games()))
def test_each_bundled_game_is_registered_with_gymnasium_and_passes_its_env_checker(name):
    import gymnasium
    env = gymnasium.make(env_id(name), seat=1, opponents=["first"])
    assert env.spec.id == env_id(name) and env.unwrapped.loaded.game.name == make(name).loaded.game.name
    check_env(env.unwrapped, skip_render_check=True)
    observation, _ = env.reset(seed=2)
    action = int(observation["action_mask"].nonzero()[0][0])
    assert env.step(action)[0]["observation"].shape == env.observation_space["observation"].shape


def test_the_ids_and_a_new_process_finds_them_by_the_module_name():
    assert [env_id(n) for n in ("mabula", "marble-chase")] == ["rulesdsl/Mabula-v0", "rulesdsl/MarbleChase-v0"]
    script = ("import gymnasium; env = gymnasium.make('rulesdsl.integrations.gymnasium:rulesdsl/Mabula-v0'); "
              "print(env.reset(seed=1)[0]['observation'].shape)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, check=True, cwd=ROOT)
    assert done.stdout.decode().strip() == str(make("mabula").observation_space["observation"].shape)


def _steps(env, observation, count: int) -> list:
    """`count` steps of the last legal action: each observation, reward and ending."""
    trail = []
    for _ in range(count):
        observation, reward, terminated, truncated, _ = env.step(int(observation["action_mask"].nonzero()[0][-1]))
        trail.append((observation["observation"].tobytes(), reward, terminated, truncated))
        if terminated or truncated:
            break
    return trail


def test_an_unpickled_environment_plays_on_as_the_original():
    env = make("marble-chase", seat=0, opponents=["random"])  # dice and a random opponent: both streams carry on
    observation, _ = env.reset(seed=6)
    observation, *_ = env.step(int(observation["action_mask"].nonzero()[0][0]))
    copy = pickle.loads(pickle.dumps(env))
    assert _steps(copy, observation, 25) == _steps(env, observation, 25)
