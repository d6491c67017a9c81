"""Environment steps per second of every bundled game through the PettingZoo wrapper, beside the same random
play through rulesdsl's own State API, with each game's number of actions and observation shape.

Usage:  python benchmarks/rl_envs.py [--seconds 3] [--game mark]

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
from rulesdsl.loading import bundled_games  # noqa: E402


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
    game, rng, steps, seed = load_game(bundled_games()[name]), random.Random(1), 0, 0
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--game", action="append")
    args = parser.parse_args()
    print("| game | num_distinct_actions | observation shape | PettingZoo steps/s | State API steps/s |")
    print("|---|---:|---|---:|---:|")
    for name in args.game or sorted(bundled_games()):
        env = make_env(name)
        shape = env.observation_space(env.possible_agents[0])["observation"].shape
        print(f"| {name} | {env.action_space(env.possible_agents[0]).n:,} | {shape} | "
              f"{pettingzoo_rate(name, args.seconds):,.0f} | {api_rate(name, args.seconds):,.0f} |", flush=True)


if __name__ == "__main__":
    main()
