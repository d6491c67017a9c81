"""A rule file as an OpenSpiel game, through OpenSpiel's Python game API; each bundled game is registered with pyspiel
by name when this module is imported, and any other rule file under a name of its own when it is loaded."""

from __future__ import annotations

import hashlib
import re

from ..engine.actions import chance_numbering
from ..engine.load import bundle_of
from ..engine.load import load_game as load_python
from ..engine.nodes import CHANCE, SIMULTANEOUS, TERMINAL
from ..engine.tensor import information_state_string, observation_string
from ..errors import IllegalMove
from ..loading import bundled_games, load_document
from ..sim.runner import random_playout
from .common import Loaded, Seeds, engine_state, restored_state, saved_state
from .type_facts import TypeFacts, facts_of

try:  # optional: the `openspiel` extra
    import numpy as np
    import pyspiel
except ImportError:  # pragma: no cover - without the extra the module is not usable
    np = pyspiel = None

PREFIX = "rulesdsl_"  # a bundled game's name in pyspiel: rulesdsl_ and its name, '-' read as '_'
FIXED = {"variant": "", "backend": "python", "rng_seed": -1}  # the parameters of every bundled game, and defaults
_OPTION_TYPES = {"int": int, "float": float, "bool": bool}  # any other option is a string to OpenSpiel
_tables: dict = {}  # short name -> _Table, every name registered with pyspiel in this process
_MADE_KEPT = 16  # the games of different parameters a name keeps made


def load_game(path_or_name, variant: str | None = None, options: dict | None = None, backend: str = "python",
              rng_seed: int = -1):
    """The OpenSpiel game of a rule file (a path, or a bundled game's name) with its variant and options, played
    on `backend` (python, compiled or auto: see api.load_game).

    A bundled game is `pyspiel.load_game("rulesdsl_<name>(variant=...,backend=...,rng_seed=...,<option>=...)")`
    (see bundled_name). Another rule file is registered with pyspiel under `python_rulesdsl_<name>_<digest>` (the
    digest of the file's text, variant, options and backend; its one parameter is rng_seed), so `pyspiel.load_game`
    finds it by that name afterwards too, in this process. Where chance outcomes cannot be listed (a random
    arrangement too large to list) the game is SAMPLED_STOCHASTIC: a state draws them from its own sampler, and
    the game's `chance_note` says why; `rng_seed` seeds the games it starts (-1: from the operating system)."""
    if pyspiel is None:
        raise ImportError("the OpenSpiel game needs the 'openspiel' extra: pip install 'rulesdsl[openspiel]'")
    name = bundled_name(path_or_name)
    if name is not None and name in _tables:
        params = dict(_tables[name].spec, variant=variant or "", backend=backend, rng_seed=rng_seed)
        params.update(options or {})
        return _tables[name].make(params)
    loaded = Loaded(path_or_name, variant, options, outcomes=True, backend=backend)
    rules = loaded.game.rules
    digest = hashlib.sha256(repr((rules.source, variant, sorted((options or {}).items()), loaded.backend))
                            .encode()).hexdigest()[:12]
    short = f"python_rulesdsl_{_snake(rules.name)}_{digest}"
    if short not in _tables:
        _register(_Table(short, {"rng_seed": -1}, lambda params, _loaded=loaded: _loaded, loaded))
    return _tables[short].make({"rng_seed": rng_seed})


def bundled_name(path_or_name) -> str | None:
    """The pyspiel name of a bundled game's name (PREFIX and the name, `-` read as `_`), None for a path."""
    name = str(path_or_name)
    return PREFIX + _snake(name) if name in bundled_games() else None


def _snake(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


class _Table:
    """A name registered with pyspiel: its parameters with their defaults, and the Loaded game of given
    parameters (each made once)."""

    def __init__(self, short: str, spec: dict, load, sample: Loaded | None = None):
        self.short, self.spec, self._load, self._made = short, spec, load, {}
        self.sample = sample  # the game of the default parameters, when already made

    def loaded(self, params: dict) -> Loaded:
        key = repr(sorted((k, v) for k, v in params.items() if k != "rng_seed"))
        if key not in self._made:
            if len(self._made) >= _MADE_KEPT:  # bounded: a program may try many options
                del self._made[next(iter(self._made))]
            self._made[key] = self._load(params)
        return self._made[key]

    def make(self, params: dict):
        """The game of `params` (the defaults filled in), with its own game type and info."""
        params = {**self.spec, **(params or {})}
        unknown = sorted(set(params) - set(self.spec))
        if unknown:
            raise ValueError(f"{self.short} has no parameter '{unknown[0]}' (parameters: {', '.join(self.spec)})")
        loaded = self.loaded(params)
        return RulesGame(loaded, _game_type(self.short, loaded, self.spec), _game_info(loaded), params)


def _game_type(short: str, loaded: Loaded, spec: dict):
    """The game type of a game made: its chance SAMPLED_STOCHASTIC where its outcomes cannot be listed."""
    rules = loaded.game.rules
    return _type_of(short, TypeFacts(rules.name, rules.num_players, rules.has_simultaneous,
                                     rules.has_hidden_information, rules.utility, bool(loaded.sampled),
                                     loaded.max_outcomes), spec)


def _type_of(short: str, facts: TypeFacts, spec: dict):
    chance = pyspiel.GameType.ChanceMode
    return pyspiel.GameType(
        short_name=short, long_name=f"rulesdsl {facts.name}",
        dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS if facts.simultaneous
        else pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=chance.SAMPLED_STOCHASTIC if facts.sampled else chance.EXPLICIT_STOCHASTIC if facts.outcomes
        else chance.DETERMINISTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION if facts.hidden_information
        else pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=getattr(pyspiel.GameType.Utility, facts.utility.upper()),  # (declared, else derived: model/results.py)
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=facts.num_players, min_num_players=facts.num_players,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True, parameter_specification=dict(spec))


def _game_info(loaded: Loaded):
    rules = loaded.game.rules
    low, high = _utility_range(rules)
    return pyspiel.GameInfo(
        num_distinct_actions=loaded.num_actions, max_chance_outcomes=loaded.max_outcomes,
        num_players=rules.num_players, min_utility=low, max_utility=high,
        utility_sum=_utility_sum(loaded.game), max_game_length=loaded.game.max_turns)


def _utility_range(rules) -> tuple:
    """The least and most a seat's returns can be: -1 and 1 for win and loss, a file's `returns_range`, else not
    known: OpenSpiel asks for two numbers, and the widest, -inf and inf, say nothing false."""
    if rules.returns is None and not rules.returns_range:
        return -1.0, 1.0
    return rules.returns_range or (float("-inf"), float("inf"))


def _utility_sum(game) -> float | None:
    """What every game's returns add up to, as OpenSpiel's constant-sum and zero-sum games state it (None for the
    others). A constant-sum game's is that of a game played with random moves from seed 0, the first game its
    check of the sum compares the others with (engine/results.py)."""
    utility = game.rules.utility
    if utility == "zero_sum":
        return 0.0
    if utility != "constant_sum":
        return None
    if not game.rules.returns_sum:
        random_playout(game, 0).returns()  # (sets the sum: returns() checks it as the game ends)
    return game.rules.returns_sum[0]


def _register(table: _Table, game_type=None) -> None:
    """Register `table` with pyspiel, under `game_type` (default: that of the game of its default parameters)."""
    game_type = game_type or _game_type(table.short, table.sample or table.loaded(table.spec), table.spec)
    # pyspiel keeps the factory past the interpreter's end; a class (which refers to itself, through its __mro__)
    # is never freed by then, where a function would be, after Python has stopped: a crash on exit
    factory = type(f"Make_{table.short}", (), {"__new__": staticmethod(lambda cls, params=None: table.make(params))})
    pyspiel.register_game(game_type, factory)
    _tables[table.short] = table


def _register_bundled(name: str, path) -> None:
    """Register a bundled game under the game type of its default parameters, worked out from its rules without
    numbering its moves, and kept on disk (what makes importing this module quick): its actions are numbered when
    it is loaded."""
    table = _bundled_table(name, path)
    _register(table, _type_of(table.short, facts_of(path, lambda: _facts(load_python(path))), table.spec))


def _facts(game) -> TypeFacts:
    """What the game type of `game` says of it."""
    rules = game.rules
    chance = chance_numbering(game) if rules.has_chance else None
    sampled = chance is not None and chance.blocker is not None
    return TypeFacts(rules.name, rules.num_players, rules.has_simultaneous, rules.has_hidden_information,
                     rules.utility, sampled, chance.size if chance is not None and not sampled else 0)


def _bundled_table(name: str, path) -> _Table:
    """The table of a bundled game: its variant, backend and rng_seed, and each option it declares, as
    parameters (an option named like one of those cannot be given through pyspiel)."""
    data = load_document(path).data
    spec = dict(FIXED)
    for option, declared in (data.get("options") or {}).items():
        declared = declared if isinstance(declared, dict) else {}
        if option not in spec and "default" in declared:
            kind = _OPTION_TYPES.get(declared.get("type"), str)
            try:
                spec[option] = kind(declared["default"])
            except (TypeError, ValueError):  # a default the loader will refuse: it says where, when loaded
                spec[option] = str(declared["default"])
    defaults = dict(spec)

    def load(params: dict, _path=path, _defaults=defaults) -> Loaded:
        options = {k: v for k, v in params.items() if k not in FIXED and v != _defaults[k]}
        return Loaded(_path, params["variant"] or None, options, outcomes=True, backend=params["backend"])

    return _Table(PREFIX + _snake(name), spec, load)


def _game_again(short: str, params: dict, source: tuple | None, last: int | None, first: int | None):
    """A pickled RulesGame again: its name registered again where needed (a rule file's own, in another
    process: `source` is its bundle and Loaded's arguments), its parameters and where its stream of games had got
    to (the last seed drawn, or the first to draw)."""
    if short not in _tables:
        loaded = Loaded(*source)
        _register(_Table(short, {"rng_seed": -1}, lambda p, _loaded=loaded: _loaded, loaded))
    game = _tables[short].make(params)
    game.seeds.last, game._first = last, first
    return game


def _state_again(game, text: str):
    """A pickled RulesState again: its game, and the state as OpenSpiel serializes it."""
    return game.deserialize_state(text)


class _Held:
    """The rulesdsl State of an OpenSpiel state, made when first needed: OpenSpiel makes a new initial state to
    copy another into (deepcopy, which a State does with clone()) or to deserialize one into, which then never
    draws a game of its own. Pickled (OpenSpiel's serialize), it is its JSON and sampler, read back against the
    game of the state it is restored into."""

    __slots__ = ("_state", "_game", "_saved")

    def __init__(self, state=None, game=None, saved: tuple | None = None):
        self._state, self._game, self._saved = state, game, saved

    def get(self, loaded: Loaded):
        if self._state is None:
            if self._saved is not None:
                self._state = restored_state(loaded, self._saved)
            else:
                self._state = self._game.start()
            self._game = self._saved = None
        return self._state

    def __deepcopy__(self, memo):
        if self._state is None and self._saved is not None:
            return _Held(saved=self._saved)
        return _Held(self.get(None).clone())  # a new game is drawn here, for the original, not the copy

    def __reduce__(self):
        if self._state is None and self._saved is not None:
            return _held_again, self._saved
        return _held_again, saved_state(self.get(None))


def _held_again(data: dict, seed: int, rng) -> _Held:
    return _Held(saved=(data, seed, rng))


if pyspiel is not None:
    class RulesGame(pyspiel.Game):
        """A rule file's game as OpenSpiel sees it: integer actions, chance outcomes (where they can be listed),
        observers."""

        def __init__(self, loaded: Loaded, game_type, game_info, params=None):
            super().__init__(game_type, game_info, params or {})
            self.loaded, self.params = loaded, dict(params or {})
            self.chance_note = loaded.sampled  # why chance is sampled, not listed (None where it is listed)
            self.seeds = Seeds()
            seed = self.params.get("rng_seed", -1)
            self._first = None if seed is None or seed < 0 else int(seed)

        def new_initial_state(self, *args):
            return RulesState(self)

        def start(self):
            """A new game's rulesdsl State; where chance is sampled, drawn from the next seed of the game's stream
            (rng_seed, then the games after it: common.Seeds), its chance at the start drawn."""
            if not self.loaded.sampled:
                return self.loaded.game.new_initial_state()
            seed, self._first = self.seeds.next(self._first), None
            state = self.loaded.game.new_initial_state(seed=seed)
            self.loaded.resolve_chance(state)
            return state

        # OpenSpiel's C++ side works the tensor's shape out on a new initial state, which would take a game from the
        # stream of a sampled game; read from Python, the shape is the rule file's, and no game is drawn for it
        def observation_tensor_shape(self):
            return [self.loaded.tensor.size]

        def observation_tensor_size(self):
            return self.loaded.tensor.size

        def make_py_observer(self, iig_obs_type=None, params=None):
            perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
            return RulesObserver(self.loaded, perfect_recall)

        def __deepcopy__(self, memo):
            return self

        def __reduce__(self):
            short = self.get_type().short_name
            own = None if short.startswith(PREFIX) else (bundle_of(self.loaded.python_game), *self.loaded.arguments)
            return _game_again, (short, self.params, own, self.seeds.last, self._first)

    class RulesState(pyspiel.State):
        """A rulesdsl State behind OpenSpiel's State API: actions are numbered by the game's ActionMap. Where chance
        is sampled, there are no chance nodes: each action is followed by the chance it leads to, drawn by the
        state's own seeded sampler."""

        def __init__(self, game):
            super().__init__(game)
            self._held = _Held(game=game)  # its only attribute: what OpenSpiel copies and serializes

        @property
        def state(self):
            return self._held.get(self.loaded)

        @property
        def loaded(self):
            return self.get_game().loaded

        def current_player(self):
            player = self.state.current_player()
            return {CHANCE: pyspiel.PlayerId.CHANCE, SIMULTANEOUS: pyspiel.PlayerId.SIMULTANEOUS,
                    TERMINAL: pyspiel.PlayerId.TERMINAL}.get(player, player)

        def observation_tensor(self, player=None):
            """The observation tensor of `player` (default: the player to move), as a list (see
            RulesGame.observation_tensor_shape for why this is read here)."""
            seat = self.current_player() if player is None else player
            return self.loaded.observe(self.state, seat).tolist()

        def _legal_actions(self, player):
            return list(self.loaded.actions.legal(self.state, player))

        def chance_outcomes(self):
            if self.loaded.sampled:
                raise RuntimeError(f"this game samples its chance outcomes: {self.loaded.sampled}")
            return [(action, p) for action, _, p in self.loaded.actions.chance(self.state)]

        def _apply_action(self, action):
            self.state.apply(self.loaded.actions.move(self.state, action))
            self._sampled_chance()

        def _apply_actions(self, actions):
            for seat in self.state.acting_players():
                self.state.apply(self.loaded.actions.move(self.state, actions[seat], seat))
            self._sampled_chance()

        def _sampled_chance(self) -> None:
            if self.loaded.sampled:
                self.loaded.resolve_chance(self.state)

        def _action_to_string(self, player, action):
            try:  # a legal action here reads as its move; another as what its number stands for
                return str(self.loaded.actions.move(self.state, action, None if player < 0 else player))
            except IllegalMove:
                numbering = self.loaded.actions.outcomes if player == pyspiel.PlayerId.CHANCE \
                    else self.loaded.actions.moves
                return numbering.describe(action)

        def is_terminal(self):
            return self.state.is_terminal()

        def returns(self):
            return self.state.returns()

        def __str__(self):
            return " ".join(self.state.history_texts())

        def __reduce__(self):
            return _state_again, (self.get_game(), self.serialize())

    class RulesObserver:
        """OpenSpiel's observer interface over the rule file's observation tensor and strings."""

        def __init__(self, loaded: Loaded, perfect_recall: bool):
            self.loaded, self.perfect_recall = loaded, perfect_recall
            self.tensor = np.zeros(loaded.tensor.size, np.float32)
            self.dict = {"observation": self.tensor}

        def set_from(self, state, player):
            self.tensor[:] = self.loaded.observe(state.state, player)

        def string_from(self, state, player):
            text = information_state_string if self.perfect_recall else observation_string
            return text(engine_state(state.state), player)

    for _name, _path in sorted(bundled_games().items()):  # pyspiel.load_game("rulesdsl_<name>") in any process
        _register_bundled(_name, _path)
else:  # pragma: no cover
    RulesGame = RulesState = RulesObserver = None


__all__ = ["load_game", "bundled_name", "PREFIX"]
