"""The RL adapters and search agents on the compiled backend, against the Python engine: the vector environment
(integrations/vector.py) gives the games Gymnasium's own SyncVectorEnv of the single-seat environment gives, on both
backends, move for move, autoreset and illegal actions included; the batched step of every seat is the same on both
backends; MCTS chooses the same moves whichever backend plays its rollouts; the adapters take a backend."""

from __future__ import annotations

from functools import lru_cache

import pytest

pytest.importorskip("numba")
pytest.importorskip("gymnasium")

import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env, data_equivalence  # noqa: E402
from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402

from rulesdsl import load_game  # noqa: E402
from rulesdsl.agents import PlayerView, make_agent  # noqa: E402
from rulesdsl.backends.compiled.build import with_backend  # noqa: E402
from rulesdsl.engine.play import play, uniform  # noqa: E402
from rulesdsl.engine.rng import Rng  # noqa: E402
from rulesdsl.integrations.gymnasium import make  # noqa: E402
from rulesdsl.integrations.vector import make_batch, make_vec  # noqa: E402
from rulesdsl.loading import bundled_games  # noqa: E402

TUTORIAL = "examples/tutorial/three-in-a-row.yaml"
SIXES = "examples/tutorial/sixes.yaml"  # dice drawn at once, asked for by chance()


@lru_cache(maxsize=None)
def _games(path: str) -> tuple:
    python = load_game(path)
    return python, with_backend(python, "compiled")


def _actions(rng, mask, wrong: float):
    """A legal action of each game's mask, and now and then (`wrong`) any action at all."""
    return np.array([rng.choice(np.flatnonzero(m)) if m.any() and rng.random() >= wrong else
                     rng.integers(mask.shape[1]) for m in mask])


BIDS = "tests/compiled_games/blind-bids.yaml"  # simultaneous steps, a step whose actor is an expression
SHUTTLE = "tests/compiled_games/shuttle.yaml"  # repeated(n): the rows keep the positions their games left


@pytest.mark.parametrize("path, seat", [(TUTORIAL, 0), (TUTORIAL, 1), (bundled_games()["mabula"], 1), (BIDS, 1),
                                        (SHUTTLE, 0)])
def test_the_vector_env_plays_the_games_of_gymnasiums_sync_vector_env_on_both_backends(path, seat):
    n = 3
    sync = SyncVectorEnv([lambda: make(path, seat=seat) for _ in range(n)])
    envs = [sync, make_vec(path, n, seat=seat), make_vec(path, n, seat=seat, backend="compiled")]
    assert [e.backend for e in envs[1:]] == ["python", "compiled"]
    assert envs[2].metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    got = [e.reset(seed=11) for e in envs]
    rng = np.random.default_rng(seat)
    ended = illegal = 0
    for _ in range(120):
        for other in got[1:]:
            assert data_equivalence(got[0], other, exact=True)
        actions = _actions(rng, got[0][0]["action_mask"], 0.05)
        got = [e.step(actions) for e in envs]
        ended += int(got[0][2].sum() + got[0][3].sum())
        illegal += int(got[0][4].get("_illegal_action", np.zeros(n)).sum())
    assert ended > 10 and illegal > 0  # autoreset and illegal actions were met on the way


def test_the_same_seeds_give_the_same_games_and_other_seeds_others():
    def trail(seed):
        env = make_vec(TUTORIAL, 4, backend="compiled")
        observation, _ = env.reset(seed=seed)
        seen = []
        for _ in range(12):
            actions = [int(np.flatnonzero(m)[0]) if m.any() else 0 for m in observation["action_mask"]]
            observation, reward, *_ = env.step(actions)
            seen.append((observation["observation"].copy(), reward))
        return seen
    assert data_equivalence(trail(2), trail(2), exact=True)
    assert not data_equivalence(trail(2), trail(3), exact=True)


@pytest.mark.parametrize("path", [TUTORIAL, bundled_games()["mabula"], SIXES, BIDS])
def test_the_batched_step_of_every_seat_is_the_same_on_both_backends(path):
    a, b = make_batch(path, 3), make_batch(path, 3, backend="compiled")
    assert (a.backend, b.backend) == ("python", "compiled")
    got = a.reset(seed=4), b.reset(seed=4)
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(100):
        assert data_equivalence(got[0], got[1], exact=True)
        agent, _, mask = got[0][:3]
        assert all(mask[i].any() == (agent[i] >= 0) for i in range(3))  # a mask for the seat to choose, only
        actions = _actions(rng, mask, 0.0)
        got = a.step(actions), b.step(actions)
        ended += int(got[0][4].sum())
    assert ended > 5


def test_the_vector_env_observes_as_the_engine_observes():
    python, compiled = _games(TUTORIAL)
    env = make_vec(TUTORIAL, 2, backend="compiled")
    observation, _ = env.reset(seed=7)
    for _ in range(6):
        for i in range(2):
            state = env.state(i).python()
            expected = env.loaded.tensor.values(state, 0)
            assert observation["observation"][i].tolist() == expected
        actions = [int(np.flatnonzero(m)[-1]) if m.any() else 0 for m in observation["action_mask"]]
        observation, *_ = env.step(actions)


def test_an_opponent_other_than_random_is_played_by_the_engine():
    env = make_vec(TUTORIAL, 2, opponents=["first"], backend="compiled")
    assert env.backend == "python"
    sync = SyncVectorEnv([lambda: make(TUTORIAL, opponents=["first"]) for _ in range(2)])
    assert data_equivalence(env.reset(seed=1), sync.reset(seed=1), exact=True)


def test_the_single_seat_env_passes_gymnasiums_checker_on_the_compiled_backend():
    env = make(TUTORIAL, seat=1, backend="compiled")
    assert env.loaded.backend == "compiled"
    check_env(env, skip_render_check=True)


def test_a_game_the_compiled_backend_does_not_take_falls_back_saying_where():
    env = make_vec("tests/compiled_games/python-only.yaml", 1, backend="auto")
    assert env.backend == "python" and "python-only.yaml:" in env.loaded.backend_note


@pytest.mark.parametrize("path", [TUTORIAL, bundled_games()["mabula"], SIXES])
def test_compiled_rollouts_draw_what_the_play_loop_draws_from_one_stream(path):
    python, compiled = _games(path)
    for seed in range(8):
        a, b = python.new_initial_state(seed), compiled.new_initial_state(seed)
        ra, rb = Rng(seed + 100), Rng(seed + 100)
        play(a, uniform, ra, [ra] * python.num_players, limit=12 + seed)
        assert b.rollout(rb, 12 + seed) == len(a.history)
        assert a.history_texts() == b.history_texts() and a.to_json() == b.to_json()
        assert ra.getstate() == rb.getstate() and a.winners == b.winners


@pytest.mark.parametrize("path", [TUTORIAL, bundled_games()["mabula"]])
def test_mcts_chooses_the_same_moves_on_both_backends(path):
    python, compiled = _games(path)
    agent = make_agent("mcts:iterations=30:depth=15")
    for seed in range(2):
        a, b = python.new_initial_state(seed), compiled.new_initial_state(seed)
        for ply in range(6):
            if a.is_terminal():
                break
            if a.is_chance_node():
                a.apply(a.sample_chance())
                b.apply(b.sample_chance())
                continue
            p = a.current_player()
            move = agent.choose(PlayerView(a, p), a.legal_moves(), Rng(seed * 100 + ply))
            assert agent.choose(PlayerView(b, p), b.legal_moves(), Rng(seed * 100 + ply)) == move
            a.apply(move)
            b.apply(move)
        assert a.to_json() == b.to_json()


def test_pettingzoo_and_openspiel_play_the_same_games_on_the_compiled_backend():
    pytest.importorskip("pettingzoo")
    pytest.importorskip("pyspiel")
    from pettingzoo.test import api_test

    from rulesdsl.integrations.openspiel import load_game as spiel_game
    from rulesdsl.integrations.pettingzoo import env as pz_env
    env = pz_env(TUTORIAL, backend="compiled")
    assert env.loaded.backend == "compiled"
    api_test(env, num_cycles=30)
    games = [spiel_game(TUTORIAL), spiel_game(TUTORIAL, backend="compiled")]
    assert games[1].loaded.backend == "compiled"
    rng = np.random.default_rng(5)
    for _ in range(5):
        states = [g.new_initial_state() for g in games]
        while not states[0].is_terminal():
            legal = states[0].legal_actions()
            assert states[1].legal_actions() == legal
            assert states[0].observation_tensor() == states[1].observation_tensor()
            action = int(rng.choice(legal))
            for s in states:
                s.apply_action(action)
        assert states[1].is_terminal() and states[0].returns() == states[1].returns()
