"""What the integrations share: a rule file loaded by path or bundled name with its actions and observations."""

from __future__ import annotations

from pathlib import Path

from ..engine.actions import ActionMap
from ..engine.load import load_game
from ..engine.tensor import ObservationTensor
from ..loading import resolve_path


class Loaded:
    """A game with its integer actions and observation tensor, made once and shared by its environments."""

    def __init__(self, path_or_name: str | Path, variant: str | None = None, options: dict | None = None,
                 outcomes: bool = False):
        self.game = load_game(resolve_path(path_or_name), variant, options)
        self.actions = ActionMap(self.game)
        self.num_actions = self.actions.num_distinct_actions  # a located RulesError when moves cannot be numbered
        self.max_outcomes = self.actions.max_chance_outcomes if outcomes else 0
        self.tensor = ObservationTensor(self.game)
        self.agents = [f"player_{seat}" for seat in range(self.game.num_players)]  # the libraries' convention

    def __deepcopy__(self, memo):
        return self  # shared by every copy of a library's state: it holds no state of a game

    def resolve_chance(self, state) -> None:
        """Draw chance outcomes with the state's own seeded sampler until a player is to act or the game ends."""
        while state.is_chance_node():
            state.apply(state.sample_chance())
