"""The public entry point: load a rule file (with variant and options) into a playable Game."""

from __future__ import annotations

from pathlib import Path

from .engine.game import Game
from .errors import RulesError
from .loading import load_document
from .model.compile import ModelCompiler
from .schema import validate_structure


def load_game(path: str | Path, variant: str | None = None, options: dict | None = None,
              max_turns: int | None = None) -> Game:
    """Load, validate and compile a rule file; raises RulesError listing every problem found."""
    doc = load_document(path, variant)
    problems = validate_structure(doc)
    if problems:
        raise RulesError(problems)
    rules = ModelCompiler(doc, options or {}, variant).compile()
    return Game(rules, str(path), variant, options or {}, max_turns)


def simulate(path: str | Path, games: int, agents: list, seed: int = 0, variant: str | None = None,
             options: dict | None = None, max_turns: int | None = None, workers: int = 1, dask: str | None = None,
             out=None):
    """Play `games` seeded games and return their Summary (see sim.simulate for the details).

    `agents` holds one entry per seat: a name such as 'mcts:iterations=100', or an Agent object
    (objects need workers=1, or a class importable by the worker processes).
    """
    from .sim.simulate import RunSpec
    from .sim.simulate import simulate as run

    spec = RunSpec(str(path), variant, tuple(sorted((options or {}).items())), max_turns, tuple(agents), seed)
    return run(spec, games, out, workers, dask)
