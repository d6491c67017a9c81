"""Environment steps per second of every bundled game through the PettingZoo wrapper, beside the same random
play through rulesdsl's own State API, with each game's number of actions and observation shape; then the vector
environment (integrations/vector.py) on both backends beside OpenSpiel's own C++ connect_four, in the same run.

Usage:  python benchmarks/rl_envs.py [--seconds 3] [--game mark] [--envs 256] [--vector-only]

Vector rows: a step is one action of one game (so a call of step() with N games is N steps), with the observation
tensors and legal-action masks of all N games made as NumPy arrays, random legal actions drawn from the masks with
NumPy. `SeatVectorEnv` (one learning seat, a random opponent played inside the step: two moves a step in a game of
turns) and `TurnBatch` (every seat learns: one move a step). OpenSpiel connect_four: a step is legal_actions(),
observation_tensor() and apply_action() of a random legal action on one pyspiel state (C++), from Python, as an
agent steps it (tic_tac_toe is the game three-in-a-row describes). One process, one core: steps per second of
processor time.

A PettingZoo step is one call of env.step with a random action of the mask, after env.last() (an observation
tensor and a mask, as a learning agent reads them each step); chance is drawn inside step. An API step is one
legal_moves() and one apply() of a random move, chance outcomes sampled and not counted. Times are CPU time
(time.process_time), so other processes on a shared machine do not count.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rulesdsl.api import load_game  # noqa: E402
from rulesdsl.integrations.pettingzoo import env as make_env  # noqa: E402
from rulesdsl.integrations.vector import make_batch, make_vec  # noqa: E402
from rulesdsl.loading import bundled_games  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
VECTOR_GAMES = {"three-in-a-row": str(ROOT / "examples/tutorial/three-in-a-row.yaml"),
                "mabula": bundled_games()["mabula"]}  # the games the compiled backend takes


def pettingzoo_rate(name: str, seconds: float) -> float:
    env, rng, steps, seed = make_env(name), random.Random(1), 0, 0
    env.reset(seed=seed)
    start = time.process_time()
    while time.process_time() - start < seconds:
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            seed += 1
            env.reset(seed=seed)
            continue
        env.step(rng.choice(observation["action_mask"].nonzero()[0].tolist()))
        steps += 1
    return steps / (time.process_time() - start)


def api_rate(name: str, seconds: float) -> float:
    game, rng, steps, seed = load_game(bundled_games()[name], backend="python"), random.Random(1), 0, 0
    state = game.new_initial_state(seed=seed)
    start = time.process_time()
    while time.process_time() - start < seconds:
        if state.is_terminal():
            seed += 1
            state = game.new_initial_state(seed=seed)
        elif state.is_chance_node():
            state.apply(state.sample_chance())
        else:
            state.apply(rng.choice(state.legal_moves()))
            steps += 1
    return steps / (time.process_time() - start)


def vector_rate(path: str, backend: str, envs: int, seconds: float, batch: bool) -> tuple[float, str]:
    """(steps per processor second, backend used) of a vector env of `envs` games; compiling happens before."""
    import numpy as np
    env = make_batch(path, envs, backend=backend) if batch else make_vec(path, envs, backend=backend)
    rng = np.random.default_rng(1)
    got = env.reset(seed=0)
    mask = got[2] if batch else got[0]["action_mask"]
    got = env.step(np.argmax(rng.random(mask.shape) * mask, axis=1))  # (kernels compiled here)
    mask = got[2] if batch else got[0]["action_mask"]
    steps, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        got = env.step(np.argmax(rng.random(mask.shape) * mask, axis=1))  # games that ended ignore theirs
        mask = got[2] if batch else got[0]["action_mask"]
        steps += envs
    return steps / (time.process_time() - start), env.backend


def openspiel_rate(name: str, seconds: float) -> float:
    """Steps per processor second of an OpenSpiel C++ game played at random from Python."""
    import pyspiel
    game, rng, steps = pyspiel.load_game(name), random.Random(1), 0
    state = game.new_initial_state()
    start = time.process_time()
    while time.process_time() - start < seconds:
        if state.is_terminal():
            state = game.new_initial_state()
        legal = state.legal_actions()
        state.observation_tensor()
        state.apply_action(legal[rng.randrange(len(legal))])
        steps += 1
    return steps / (time.process_time() - start)


def vector_table(seconds: float, envs: int) -> None:
    print(f"\n| environment ({envs} games a call where vector) | backend | steps/s per core |")
    print("|---|---|---:|")
    for name in ("connect_four", "tic_tac_toe"):
        print(f"| OpenSpiel {name} (C++), one state from Python | - | {openspiel_rate(name, seconds):,.0f} |",
              flush=True)
    for name, path in VECTOR_GAMES.items():
        for batch in (False, True):
            for backend in ("python", "compiled"):
                rate, used = vector_rate(path, backend, envs, seconds, batch)
                print(f"| {name}, {'TurnBatch' if batch else 'SeatVectorEnv'} | {used} | {rate:,.0f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--game", action="append")
    parser.add_argument("--envs", type=int, default=256, help="games per vector env (default 256)")
    parser.add_argument("--vector-only", action="store_true", help="only the vector environments and OpenSpiel")
    args = parser.parse_args()
    if args.vector_only:
        vector_table(args.seconds, args.envs)
        return
    print("| game | num_distinct_actions | observation shape | PettingZoo steps/s | State API steps/s |")
    print("|---|---:|---|---:|---:|")
    for name in args.game or sorted(bundled_games()):
        env = make_env(name)
        shape = env.observation_space(env.possible_agents[0])["observation"].shape
        print(f"| {name} | {env.action_space(env.possible_agents[0]).n:,} | {shape} | "
              f"{pettingzoo_rate(name, args.seconds):,.0f} | {api_rate(name, args.seconds):,.0f} |", flush=True)
    vector_table(args.seconds, args.envs)


if __name__ == "__main__":
    main()
