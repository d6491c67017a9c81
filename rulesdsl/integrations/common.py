"""What the integrations share: a rule file loaded by path or bundled name with its actions and observations."""

from __future__ import annotations

import secrets
from pathlib import Path

from collections import OrderedDict

from ..backends.compiled.build import with_backend
from ..bundle import RuleBundle
from ..engine.actions import ActionMap
from ..engine.load import bundle_of, load_game
from ..engine.rng import derive_seed
from ..engine.tensor import ObservationTensor
from ..loading import resolve_path

try:  # optional: numpy, in each of the rl extras
    import numpy as np
except ImportError:  # pragma: no cover - without the extra only observe() is not usable
    np = None


_LOADED: OrderedDict = OrderedDict()  # the last few games unpickled: the states of one game share one Loaded
_LOADED_KEPT = 8


class Loaded:
    """A game with its integer actions and observation tensor, made once and shared by its environments. `backend`
    says what plays it (api.load_game's: python, compiled, or auto, which falls back to Python where the compiled
    backend does not take the game, `backend_note` saying why). With `outcomes`, chance outcomes are numbered
    too where they can be listed (`sampled` is None); where they cannot (a random arrangement too large to list),
    `sampled` is the located problem that says why, and a state draws them from its own seeded sampler."""

    def __init__(self, path_or_name: str | Path | RuleBundle, variant: str | None = None, options: dict | None = None,
                 outcomes: bool = False, backend: str = "python"):
        source = path_or_name if isinstance(path_or_name, RuleBundle) else resolve_path(path_or_name)
        self.python_game = load_game(source, variant, options)
        self.game = with_backend(self.python_game, backend)
        self.arguments = (variant, dict(options or {}), outcomes, backend)
        self.backend = getattr(self.game, "backend", "python")
        self.backend_note = getattr(self.game, "backend_note", None)
        self.actions = ActionMap(self.game)
        self.num_actions = self.actions.num_distinct_actions  # a located RulesError when moves cannot be numbered
        blocker = self.actions.outcomes.blocker if outcomes and self.game.rules.has_chance else None
        self.sampled = blocker.format() if blocker is not None else None
        self.max_outcomes = self.actions.max_chance_outcomes if outcomes and blocker is None else 0
        self.tensor = ObservationTensor(self.game)
        self.agents = [f"player_{seat}" for seat in range(self.game.num_players)]  # the libraries' convention

    def __deepcopy__(self, memo):
        return self  # shared by every copy of a library's state: it holds no state of a game

    def __reduce__(self):
        # as the rule files' bytes and the arguments: unpickled (in another process too), it is made again
        return loaded_from_bundle, (bundle_of(self.python_game), *self.arguments)

    def observe(self, state, seat: int):
        """The observation tensor of `seat` at `state` (of either backend), float32."""
        return np.asarray(self.tensor.values(engine_state(state), seat), np.float32)

    def resolve_chance(self, state) -> None:
        """Draw chance outcomes with the state's own seeded sampler until a player is to act or the game ends."""
        while state.is_chance_node():
            state.apply(state.sample_chance())


def loaded_from_bundle(bundle: RuleBundle, variant, options: dict, outcomes: bool, backend: str) -> Loaded:
    """A pickled Loaded again, shared with the last ones unpickled from the same rules and arguments (a state of an
    environment or of OpenSpiel unpickles with its game: not compiled anew for each)."""
    key = (bundle.digest, variant, repr(sorted(options.items())), outcomes, backend)
    loaded = _LOADED.get(key)
    if loaded is None:
        loaded = _LOADED[key] = Loaded(bundle, variant, options, outcomes, backend)
        if len(_LOADED) > _LOADED_KEPT:
            _LOADED.popitem(last=False)
    _LOADED.move_to_end(key)
    return loaded


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


def saved_state(state) -> tuple:
    """What an environment's or OpenSpiel's pickle holds of a state of either backend: its JSON, seed and sampler
    (restored by restored_state against the game the environment holds: a State pickled alone would bring a game of
    its own, whose moves the environment's ActionMap does not number)."""
    python = engine_state(state)
    return python.to_json(), python.seed, python.rng.copy()


def restored_state(loaded: Loaded, saved: tuple):
    """A state saved by saved_state, as a state of `loaded`'s game (and backend)."""
    data, seed, rng = saved
    state = loaded.game.state_from_json(data)
    state.seed, state.rng = seed, rng.copy()  # a copy: the saved tuple may be restored more than once
    return state


class PicklesState:
    """An environment that pickles with its game's state saved by saved_state (in its `state` attribute)."""

    def __getstate__(self):
        held = dict(self.__dict__)
        if held.get("state") is not None:
            held["state"] = saved_state(held["state"])
        return held

    def __setstate__(self, held: dict) -> None:
        if held.get("state") is not None:
            held["state"] = restored_state(held["loaded"], held["state"])
        self.__dict__.update(held)


def engine_state(state):
    """The Python engine's State of a state of either backend (what the observer, strings and pictures read)."""
    convert = getattr(state, "python", None)
    return convert() if convert is not None else state
