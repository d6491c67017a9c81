"""A rule file as an OpenSpiel game, through OpenSpiel's Python game API (registered under a name per file)."""

from __future__ import annotations

import hashlib
import re

from ..engine.nodes import CHANCE, SIMULTANEOUS, TERMINAL
from ..errors import IllegalMove
from ..engine.tensor import information_state_string, observation_string
from .common import Loaded, engine_state

try:  # optional: the `rl` extra
    import numpy as np
    import pyspiel
except ImportError:  # pragma: no cover - without the extra the module is not usable
    np = pyspiel = None

_registered: dict = {}  # short name -> (game type, game info), one per rule file, variant and options


def load_game(path_or_name, variant: str | None = None, options: dict | None = None, backend: str = "python"):
    """The OpenSpiel game of a rule file (a path, or a bundled game's name) with its variant and options, played
    on `backend` (python, compiled or auto: see api.load_game).

    It is registered with pyspiel under `python_rulesdsl_<name>_<digest>` (the digest of the file's text,
    variant and options), so `pyspiel.load_game` finds it by that name afterwards too. A RulesError located
    at the rule file says which move or chance step keeps its moves from being numbered."""
    if pyspiel is None:
        raise ImportError("the OpenSpiel game needs the 'rl' extra: pip install 'rulesdsl[rl]'")
    loaded = Loaded(path_or_name, variant, options, outcomes=True, backend=backend)
    rules, game = loaded.game.rules, loaded.game
    digest = hashlib.sha256(repr((rules.source, variant, sorted((options or {}).items()), loaded.backend))
                            .encode()).hexdigest()[:12]
    short = f"python_rulesdsl_{re.sub(r'[^a-z0-9]+', '_', rules.name.lower()).strip('_')}_{digest}"
    two_sided = rules.num_players == 2
    game_type = pyspiel.GameType(
        short_name=short, long_name=f"rulesdsl {rules.name}",
        dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS if rules.has_simultaneous
        else pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if rules.has_chance
        else pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION if rules.has_hidden_information
        else pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM if two_sided else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=rules.num_players, min_num_players=rules.num_players,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True, parameter_specification={})
    game_info = pyspiel.GameInfo(
        num_distinct_actions=loaded.num_actions, max_chance_outcomes=loaded.max_outcomes,
        num_players=rules.num_players, min_utility=-1.0, max_utility=1.0,
        utility_sum=0.0 if two_sided else None, max_game_length=game.max_turns)
    if short not in _registered:
        _registered[short] = loaded

        class RegisteredGame(RulesGame):
            def __init__(self, params=None, _loaded=loaded, _type=game_type, _info=game_info):
                super().__init__(_loaded, _type, _info, params)

        pyspiel.register_game(game_type, RegisteredGame)
    return RulesGame(_registered[short], game_type, game_info)


class _Held:
    """The rulesdsl State of an OpenSpiel state: OpenSpiel copies a Python state's attributes with deepcopy, and
    a State copies itself with clone()."""

    __slots__ = ("state",)

    def __init__(self, state):
        self.state = state

    def __deepcopy__(self, memo):
        return _Held(self.state.clone())


if pyspiel is not None:
    class RulesGame(pyspiel.Game):
        """A rule file's game as OpenSpiel sees it: integer actions, chance outcomes, observers."""

        def __init__(self, loaded: Loaded, game_type, game_info, params=None):
            super().__init__(game_type, game_info, params or {})
            self.loaded = loaded

        def new_initial_state(self):
            return RulesState(self, self.loaded.game.new_initial_state())

        def make_py_observer(self, iig_obs_type=None, params=None):
            perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
            return RulesObserver(self.loaded, perfect_recall)

    class RulesState(pyspiel.State):
        """A rulesdsl State behind OpenSpiel's State API: actions are numbered by the game's ActionMap."""

        def __init__(self, game, state):
            super().__init__(game)
            self.loaded, self._held = game.loaded, _Held(state)

        @property
        def state(self):
            return self._held.state

        def current_player(self):
            player = self.state.current_player()
            return {CHANCE: pyspiel.PlayerId.CHANCE, SIMULTANEOUS: pyspiel.PlayerId.SIMULTANEOUS,
                    TERMINAL: pyspiel.PlayerId.TERMINAL}.get(player, player)

        def _legal_actions(self, player):
            return list(self.loaded.actions.legal(self.state, player))

        def chance_outcomes(self):
            return [(action, p) for action, _, p in self.loaded.actions.chance(self.state)]

        def _apply_action(self, action):
            self.state.apply(self.loaded.actions.move(self.state, action))

        def _apply_actions(self, actions):
            for seat in self.state.acting_players():
                self.state.apply(self.loaded.actions.move(self.state, actions[seat], seat))

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
else:  # pragma: no cover
    RulesGame = RulesState = RulesObserver = None

__all__ = ["load_game"]
