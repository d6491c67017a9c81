"""The public entry points: load a rule file into a playable Game, and run seeded simulations."""

from __future__ import annotations

from pathlib import Path

from .backends.compiled.build import chosen_backend, random_agents_only, with_backend
from .engine.load import argument_problems
from .engine.load import load_game as load_python
from .sim.simulate import RunSpec
from .sim.simulate import simulate as run

__all__ = ["load_game", "simulate", "argument_problems"]


def load_game(path: str | Path, variant: str | None = None, options: dict | None = None,
              max_turns: int | None = None, inline: bool = True, backend: str | None = None):
    """Load, validate and compile a rule file (engine/load.py) on a backend: `python` (the interpreter),
    `compiled` (numba; a located error where it does not take the game yet) or `auto` (compiled where it takes
    the game, else Python, the Game's `backend_note` saying why). Either plays the same games, move for move. The
    default is `$RULESDSL_BACKEND`, else auto as the commands take it for work that goes move by move through the
    State API: the interpreter, as fast there with nothing to compile (name `compiled` or `auto` for whole
    playouts in compiled code: `state.playout`, `game.playouts`).

    >>> game = load_game("three-in-a-row.yaml")  # a rule file (here the tutorial's), or a bundled game's name
    >>> game.num_players, game.player_names
    (2, ['cross', 'nought'])
    """
    return with_backend(load_python(path, variant, options, max_turns, inline), backend or chosen_backend(None, False))


def simulate(path: str | Path, games: int, agents: list, seed: int = 0, variant: str | None = None,
             options: dict | None = None, max_turns: int | None = None, workers: int = 1, dask: str | None = None,
             out=None, chunk: int | None = None, backend: str | None = None):
    """Play `games` seeded games and return their Summary (see sim.simulate for the details).

    `agents` holds one entry per seat: a name such as 'mcts:iterations=100', or an Agent object
    (objects need workers=1, or a class importable by the worker processes). `dask` is a scheduler address
    or 'local'; `chunk` the games per task sent to a worker (default: sized from how fast games are played);
    `backend` as for load_game (the results are the same on either).

    >>> summary = simulate("three-in-a-row.yaml", games=4, agents=["random", "greedy"], seed=1)
    >>> summary.games, sum(summary.wins) + summary.draws
    (4, 4)
    """
    spec = RunSpec(str(path), variant, tuple(sorted((options or {}).items())), max_turns, tuple(agents), seed,
                   backend=chosen_backend(backend, random_agents_only(agents), games))
    return run(spec, games, out, workers, dask, chunk=chunk)
