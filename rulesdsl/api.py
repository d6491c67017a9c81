"""The public entry points: load a rule file into a playable Game, and run seeded simulations."""

from __future__ import annotations

from pathlib import Path

from .engine.load import argument_problems, load_game
from .sim.simulate import RunSpec
from .sim.simulate import simulate as run

__all__ = ["load_game", "simulate", "argument_problems"]


def simulate(path: str | Path, games: int, agents: list, seed: int = 0, variant: str | None = None,
             options: dict | None = None, max_turns: int | None = None, workers: int = 1, dask: str | None = None,
             out=None, chunk: int | None = None):
    """Play `games` seeded games and return their Summary (see sim.simulate for the details).

    `agents` holds one entry per seat: a name such as 'mcts:iterations=100', or an Agent object
    (objects need workers=1, or a class importable by the worker processes). `dask` is a scheduler address
    or 'local'; `chunk` the games per task sent to a worker (default: sized from how fast games are played).

    >>> summary = simulate("three-in-a-row.yaml", games=4, agents=["random", "greedy"], seed=1)
    >>> summary.games, sum(summary.wins) + summary.draws
    (4, 4)
    """
    spec = RunSpec(str(path), variant, tuple(sorted((options or {}).items())), max_turns, tuple(agents), seed)
    return run(spec, games, out, workers, dask, chunk=chunk)
