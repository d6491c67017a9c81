"""rulesdsl: tabletop games described as YAML data, run by one generic interpreter."""

from .api import load_game, simulate
from .engine.game import Game
from .engine.rng import Rng, derive_seed
from .engine.state import CHANCE, SIMULTANEOUS, TERMINAL, State
from .errors import GameRuntimeError, MoveError, Problem, RulesDslError, RulesError
from .model.rules import Move

__all__ = ["load_game", "simulate", "Game", "State", "Move", "Rng", "derive_seed", "CHANCE", "SIMULTANEOUS", "TERMINAL",
           "RulesError", "MoveError", "GameRuntimeError", "RulesDslError", "Problem"]
__version__ = "0.1.0"
