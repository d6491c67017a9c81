"""rulesdsl: tabletop games described as YAML data, run by one generic interpreter."""

from .api import load_game, simulate
from .engine.game import Game
from .engine.nodes import CHANCE, SIMULTANEOUS, TERMINAL
from .engine.rng import Rng, derive_seed
from .engine.state import State
from .errors import (AmbiguousMove, GameRuntimeError, IllegalMove, MalformedMove, MoveError, Problem, RulesDslError,
                     RulesError)
from .model.rules import Move

__all__ = ["load_game", "simulate", "Game", "State", "Move", "Rng", "derive_seed", "CHANCE", "SIMULTANEOUS", "TERMINAL",
           "RulesError", "MoveError", "MalformedMove", "IllegalMove", "AmbiguousMove", "GameRuntimeError",
           "RulesDslError", "Problem"]
__version__ = "0.1.0"
