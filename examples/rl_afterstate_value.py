"""A tiny learning agent through the PettingZoo environment: Mabula, a linear value of what a seat observes.

Random self-play games give, for every move a seat made, the observation tensor it saw afterwards and how the
game ended for it; a least-squares fit of one weight vector per seat turns that into a value. The learned
agent then plays the move whose resulting position it values most (its afterstate), against `random`.

Usage:  python examples/rl_afterstate_value.py [--train 400] [--eval 60] [--seed 1]
"""

from __future__ import annotations

import argparse
import random

import numpy as np

from rulesdsl.integrations.pettingzoo import env as make_env


def random_games(env, games: int, rng: random.Random):
    """(seat, observation after its move, final return of the seat) for every move of random self-play."""
    samples = []
    for game in range(games):
        env.reset(seed=game)
        seen = []
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            seat = env.possible_agents.index(agent)
            env.step(rng.choice(observation["action_mask"].nonzero()[0].tolist()))
            if env.agents:
                seen.append((seat, env.observe(agent)["observation"]))
        returns = env.state.returns()
        samples += [(seat, obs, returns[seat]) for seat, obs in seen]
    return samples


def fit(samples, seats: int, size: int) -> np.ndarray:
    """Least-squares weights per seat (plus a bias) predicting the return from the observation."""
    weights = np.zeros((seats, size + 1))
    for seat in range(seats):
        rows = [(obs, ret) for s, obs, ret in samples if s == seat]
        x = np.array([np.append(obs, 1.0) for obs, _ in rows])
        y = np.array([ret for _, ret in rows])
        weights[seat] = np.linalg.lstsq(x, y, rcond=None)[0]
    return weights


def greedy(env, seat: int, legal: list, weights: np.ndarray) -> int:
    """The legal action whose resulting position the seat values most (ties: the first)."""
    state, loaded = env.state, env.loaded
    best, best_value = legal[0], -np.inf
    for action in legal:
        after = state.clone()
        after.apply(loaded.actions.move(after, action, seat))
        value = np.append(loaded.tensor.values(after, seat), 1.0) @ weights[seat]
        if value > best_value:
            best, best_value = action, value
    return best


def win_rate(env, weights, games: int, seed: int) -> float:
    """The learned agent's share of wins (a draw counts half) against random, half the games in each seat."""
    rng, score = random.Random(seed), 0.0
    for game in range(games):
        learner = game % 2
        env.reset(seed=10_000 + seed * games + game)
        for agent in env.agent_iter():
            observation, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            legal = observation["action_mask"].nonzero()[0].tolist()
            seat = env.possible_agents.index(agent)
            env.step(greedy(env, seat, legal, weights) if seat == learner and weights is not None
                     else rng.choice(legal))
        score += {1.0: 1.0, 0.0: 0.5}.get(env.state.returns()[learner], 0.0)
    return score / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=int, default=400, help="random self-play games to learn from")
    parser.add_argument("--eval", type=int, default=60, help="games against random, before and after")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    env = make_env("mabula")
    before = win_rate(env, None, args.eval, args.seed)
    samples = random_games(env, args.train, random.Random(args.seed))
    weights = fit(samples, len(env.possible_agents), env.loaded.tensor.size)
    after = win_rate(env, weights, args.eval, args.seed)
    print(f"Mabula, {args.train} random games learned from ({len(samples)} positions), {args.eval} games against "
          f"random: win rate {before:.0%} before training, {after:.0%} after")


if __name__ == "__main__":
    main()
