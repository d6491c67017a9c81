"""What the integrations share: a rule file loaded by path or bundled name with its actions and observations."""

from __future__ import annotations

import secrets
from pathlib import Path

from ..backends.compiled.build import with_backend
from ..engine.actions import ActionMap
from ..engine.load import load_game
from ..engine.rng import derive_seed
from ..engine.tensor import ObservationTensor
from ..loading import resolve_path

try:  # optional: the `rl` extra
    import numpy as np
except ImportError:  # pragma: no cover - without the extra only observe() is not usable
    np = None


class Loaded:
    """A game with its integer actions and observation tensor, made once and shared by its environments. `backend`
    says what plays it (api.load_game's: python, compiled, or auto, which falls back to Python where the compiled
    backend does not take the game, `backend_note` saying why)."""

    def __init__(self, path_or_name: str | Path, variant: str | None = None, options: dict | None = None,
                 outcomes: bool = False, backend: str = "python"):
        self.game = with_backend(load_game(resolve_path(path_or_name), variant, options), backend)
        self.backend = getattr(self.game, "backend", "python")
        self.backend_note = getattr(self.game, "backend_note", None)
        self.actions = ActionMap(self.game)
        self.num_actions = self.actions.num_distinct_actions  # a located RulesError when moves cannot be numbered
        self.max_outcomes = self.actions.max_chance_outcomes if outcomes else 0
        self.tensor = ObservationTensor(self.game)
        self.agents = [f"player_{seat}" for seat in range(self.game.num_players)]  # the libraries' convention

    def __deepcopy__(self, memo):
        return self  # shared by every copy of a library's state: it holds no state of a game

    def observe(self, state, seat: int):
        """The observation tensor of `seat` at `state` (of either backend), float32."""
        return np.asarray(self.tensor.values(engine_state(state), seat), np.float32)

    def resolve_chance(self, state) -> None:
        """Draw chance outcomes with the state's own seeded sampler until a player is to act or the game ends."""
        while state.is_chance_node():
            state.apply(state.sample_chance())


def next_seed(seed: int) -> int:
    """The seed of the game an environment starts after the game of `seed` when it is reset without a seed."""
    return derive_seed(seed, "next")


def fresh_seed() -> int:
    """A seed from the operating system's entropy, for an environment's first game when no seed was given."""
    return secrets.randbits(63)


class Seeds:
    """The seed of each game an environment starts, as Gymnasium seeds its generator: `reset(seed=S)` plays the
    game of seed S (reproducible); `reset()` plays the game after the last one (next_seed), so that the first seed
    given seeds all the games after it; `reset()` before any seed was given draws one from fresh_seed()."""

    def __init__(self):
        self.last = None

    def next(self, seed: int | None) -> int:
        """The seed of the game `reset(seed)` starts."""
        if seed is None:
            seed = fresh_seed() if self.last is None else next_seed(self.last)
        self.last = int(seed)
        return self.last


def engine_state(state):
    """The Python engine's State of a state of either backend (what the observer, strings and pictures read)."""
    convert = getattr(state, "python", None)
    return convert() if convert is not None else state
