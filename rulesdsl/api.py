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
