"""The `games` command: list the bundled games, each summarised."""

from __future__ import annotations

from ..api import load_game
from ..errors import RulesError
from ..findings import count_problems
from ..loading import bundled_games

HELP = "list the bundled games"


def register(p) -> None:
    """games takes no arguments."""


def run(args) -> int:
    """Print each bundled game's name and summary."""
    for name, path in bundled_games().items():
        try:
            print(f"{name:<14} {load_game(path).summary()}")
        except RulesError as exc:
            print(f"{name:<14} (invalid: {count_problems(len(exc.problems))})")
    return 0
