"""A loaded game: the compiled rules with their options, and the factory of states."""

from __future__ import annotations

from ..ir.layout import Layout, layout_of
from ..limits import DEFAULT_MAX_TURNS
from ..model.rules import MoveRule
from ..model.values import text_of
from .repetition import position_key
from .serialize import state_from_json
from .state import State


class Game:
    """One rule file compiled with a variant and options; creates states (OpenSpiel-style)."""

    def __init__(self, rules, path: str, variant: str | None, options: dict, max_turns: int | None = None):
        self.rules = rules
        self.path = path
        self.variant = variant
        self.options = dict(options)  # only the options given explicitly (defaults live in the rules)
        self.max_turns = next(cap for cap in (max_turns, rules.max_turns, DEFAULT_MAX_TURNS) if cap is not None)
        self.cap_source = "given" if max_turns is not None else "limit" if rules.max_turns_clamped \
            else "rule file" if rules.max_turns is not None else "default"
        self._arrangement_rules: dict = {}
        self._layout: Layout | None = None
        self.bundle = None  # the rule files' bytes: given by a RuleBundle, else read when first pickled (load.py)

    def __copy__(self):
        return self  # a Game holds no position: copies of states share it

    def __deepcopy__(self, memo):
        return self

    @property
    def name(self) -> str:
        return self.rules.name

    @property
    def num_players(self) -> int:
        return self.rules.num_players

    @property
    def player_names(self) -> list[str]:
        return self.rules.player_names

    def new_initial_state(self, seed: int | None = None) -> State:
        """The state before the first decision or chance event; `seed` seeds the state's own sampler.

        >>> from rulesdsl import load_game
        >>> state = load_game("three-in-a-row.yaml").new_initial_state(seed=7)  # the tutorial's game
        >>> state.is_chance_node(), state.current_player(), len(state.legal_moves())
        (False, 0, 9)
        """
        state = State.initial(self)
        state.seed = 0 if seed is None else seed
        return state

    def state_from_json(self, data: dict, source: str = "state", text: str | None = None) -> State:
        """A state saved with State.to_json(), checked entry by entry (`text`: the JSON it was read from).

        >>> from rulesdsl import load_game
        >>> game = load_game("three-in-a-row.yaml")  # the tutorial's game
        >>> state = game.new_initial_state()
        >>> state.apply("b2")
        >>> game.state_from_json(state.to_json()).to_json() == state.to_json()
        True
        """
        return state_from_json(self, data, source, text)

    @property
    def layout(self) -> Layout:
        """How a state of this game is held as flat typed arrays (ir/layout.py; engine/arrays.py converts)."""
        if self._layout is None:
            self._layout = layout_of(self.rules.ir, self.rules, State.initial(self))
        return self._layout

    def position_key(self, state) -> int:
        """The key of the position of `state`, one of this game's states (engine/repetition.py)."""
        return position_key(state)

    def arrangement_rule(self, step) -> MoveRule:
        """The move rule standing for 'this arrangement' at an arrangement chance step."""
        rule = self._arrangement_rules.get(step.name)
        if rule is None:
            arr = step.arrangement

            def apply(S, me, outcome, _apply=arr.apply):
                _apply(S, me, list(outcome))

            def note(me, outcome):
                single = all(isinstance(i, str) and len(i) == 1 for i in outcome)
                return ("" if single else " ").join(text_of(i) for i in outcome)

            rule = MoveRule(step.name, arr.path, ["outcome"], [], apply=apply, note=note, template="{outcome}")
            self._arrangement_rules[step.name] = rule
        return rule

    def summary(self) -> str:
        return self.rules.summary()
