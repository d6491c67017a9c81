"""The compiled game model: steps, move rules and moves, ready for the engine to run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from .. import budget
from ..errors import Location, Problem, RulesError
from ..lang.constants import frozen
from ..limits import MOVE_SECONDS


END_TURN = "end_turn"


class Move(tuple):
    """A decision or chance outcome: (rule, args, player). Prints in the game's notation. A move is a value: its
    args are made read-only (a list or table among them becomes a constant one), as every position that holds the
    move (its history, last_move, a copy made by clone) holds the same args. The moves interned for a rule (see
    _MoveTree) have args that can be keys, which hold no list or table, and are made without this."""

    __slots__ = ()

    def __new__(cls, rule, args, player):
        try:
            hash(args)  # args that can be hashed hold no list or table: as they are
        except TypeError:
            args = tuple(map(frozen, args))
        return tuple.__new__(cls, (rule, args, player))

    @property
    def rule(self) -> "MoveRule":
        return self[0]

    @property
    def args(self) -> tuple:
        return self[1]

    @property
    def player(self) -> int:
        return self[2]

    @property
    def name(self) -> str:
        return self[0].name

    def params(self) -> dict:
        """The move's parameters and lets by name."""
        return dict(zip(self[0].arg_names, self[1]))

    def __str__(self) -> str:
        rule = self[0]
        try:  # notation depends on the move alone: each distinct move is printed once
            return rule.texts[self]
        except KeyError:
            if len(rule.texts) >= 1 << 16:
                rule.texts.clear()
            text = rule.texts[self] = rule.format(self[1], self[2])
            return text
        except TypeError:  # unhashable args
            return rule.format(self[1], self[2])

    def __repr__(self) -> str:
        return f"Move({self})"


class _MoveTree(dict):
    """One level of a rule's interned moves: the next argument -> the level below, or -> the Move once every
    argument is given. Each distinct move is made once and then reused (moves are immutable values, equal
    when their args are equal, so sharing one object changes nothing). Nested levels keyed by one argument
    each are cheaper to look up than a dict keyed by the args tuple."""

    __slots__ = ("rule", "player", "given", "left")

    def __init__(self, rule, player, given: tuple, left: int):
        super().__init__()
        self.rule, self.player, self.given, self.left = rule, player, given, left

    def __missing__(self, arg):
        if len(self) >= 1 << 12:  # an argument with a vast range of values: keep memory bounded
            self.clear()
        args = self.given + (arg,)
        found = self[arg] = (tuple.__new__(Move, (self.rule, args, self.player)) if self.left == 1 else
                             _MoveTree(self.rule, self.player, args, self.left - 1))
        return found


class InternedMoves(dict):
    """player -> the tree of that player's interned moves of one rule (see _MoveTree); for a rule without
    arguments, its one move."""

    __slots__ = ("rule", "arity")

    def __init__(self, rule, arity: int):
        super().__init__()
        self.rule, self.arity = rule, arity

    def __missing__(self, player):
        table = self[player] = (_MoveTree(self.rule, player, (), self.arity) if self.arity else
                                tuple.__new__(Move, (self.rule, (), player)))
        return table


@dataclass(eq=False)  # rules are compared (and hashed) by identity, so moves can be dict keys
class MoveRule:
    """One kind of move (or chance outcome), compiled: generator, effects, notation, explanation."""

    name: str
    path: tuple  # where it is defined in the rule file
    params: list[str]
    lets: list[str]
    generate: Callable = None  # (S, me) -> iterator of args tuples
    collect: Callable | None = None  # (S, me, out): appends every legal Move to `out` (not for compound moves)
    exists: Callable | None = None  # (S, me) -> True when there is a legal move (not for compound moves)
    apply: Callable = None  # (S, me, *args) -> None
    explain: Callable = None  # (S, me, *params) -> index of the first failing check, or -1
    candidates: Callable = None  # (S, me) -> every args tuple over the params' domains, legal or not
    checks: list = field(default_factory=list)  # [(description, why)] in explain order
    note: Callable = None  # (me, *args) -> notation text
    weight: Callable | None = None  # chance outcomes: (S, me, *args) -> relative weight
    visible_to: Callable | None = None  # (S, me, *args) -> the players who see it made (default: all)
    next: object = None  # overrides the step's next (a pass, say)
    next_target: str | None = None  # the step `next` always returns, when it is a constant
    is_pass: bool = False
    template: str = ""
    inputs: list = field(default_factory=list)  # values given by the compound move that uses this one
    part_specs: list = field(default_factory=list)  # a compound move's parts, as written
    repeat_spec: dict | None = None  # a move of one part move repeated (`repeat:`), as written
    parts: list = field(default_factory=list)  # compiled: [(rule, inputs_fn, when_fn)] (a repeated part: one)
    repeat: object = None  # compiled `repeat:` (parts.Repeat)
    one_per_position: bool = False  # moves whose parts reach the same position are listed once
    texts: dict = field(default_factory=dict, repr=False)  # Move -> its notation, once printed
    # where the notation prints expressions: per field, (the params it reads, (me, *args) -> its text)
    fields: list = field(default_factory=list, repr=False)
    domains: list = field(default_factory=list, repr=False)  # [ParamDomain] of the params, in order
    printed: frozenset = frozenset()  # the names the notation reads
    notation_at: Location | None = None  # where the rule file writes the notation (or the move, when it has none)

    @property
    def compound(self) -> bool:
        """Whether the move is made of parts (`parts:` or `repeat:`), its last arg the parts made."""
        return bool(self.part_specs) or self.repeat_spec is not None

    @property
    def arg_names(self) -> list[str]:
        parted = self.part_specs or self.repeat_spec is not None  # (compound, read without a second property)
        return self.params + self.lets + ["parts"] if parted else self.params + self.lets

    def format(self, args, player) -> str:
        """The move's notation: every move is printed through here, under a budget (registered below), so a
        notation that never ends is a located error wherever the move is printed (str(move) included)."""
        try:
            return self.note(player, *args)
        except budget.TimeBudgetExceeded as exc:
            raise RulesError([Problem(f"rule '{self.name}' failed: {exc}", self.notation_at,
                                      "a field of this notation runs too long: a notation prints the move's params "
                                      "and lets; work anything longer out in a let", code="limit_exceeded",
                                      fields={"limit": "MOVE_SECONDS"})]) from None


@dataclass
class ParamDomain:
    """A move param's domain as a function of its own, for numbering moves as integer actions."""

    name: str
    values: Callable  # (S, me, *inputs, *earlier params) -> the domain
    fixed: bool  # reads nothing of the position: the same in every state for a given seat and earlier params
    path: tuple  # where the domain is written
    bound: Callable | None = None  # (S, me, *inputs, *earlier params) -> a superset of the domain read from no position
    bound_path: tuple = ()  # where the bound is written: the param's `among:`, else its domain (inferred)
    declared: bool = False  # the bound is the param's `among:`


@dataclass
class Arrangement:
    """A chance step whose outcome is a uniformly random arrangement of given items."""

    items: Callable  # (S, me) -> list
    require: list  # [(check(S, me, outcome) -> bool, why)]
    accept: Callable  # (S, me, outcome) -> True when every requirement holds
    fixed: Callable | None  # (S, me) -> notation text or falsy
    apply: Callable  # (S, me, outcome)
    fixed_text: str = ""
    path: tuple = ()
    name: str = ""


@dataclass
class Draw:
    """A chance step whose outcome is several items drawn at once: dice, cards from a zone, a subset."""

    items: Callable  # (S, me, *inputs) -> the items drawn from
    count: Callable  # (S, me, *inputs) -> how many are drawn
    replace: bool  # each item drawn is put back before the next (dice), or not (cards)
    rule: MoveRule  # its outcome as a move: args (*inputs, outcome), outcome the tuple of the items drawn
    # (S, me, *inputs) -> the zone whose pieces go into the pile (the zone `items` is) when it holds fewer than
    # are drawn; None: a draw of more than the pile holds is an error
    refill: Callable | None = None


@dataclass
class Step:
    """A node type of the game's flow: who decides (a player, chance, several at once, nobody) and what next."""

    name: str
    kind: str  # decision | chance | simultaneous | auto
    path: tuple
    moves: list = field(default_factory=list)  # MoveRules (decisions, simultaneous) or outcome rules (chance)
    tiers: list = field(default_factory=list)  # [[MoveRule]]: a later tier is legal only where earlier ones are empty
    fallback_by: str | None = None  # tiers fall back separately for each value of this parameter
    actor: Callable | None = None  # decision: (S) -> player
    turn_player_acts: bool = False  # decision: the actor is the player whose turn it is (the default)
    actors: Callable | None = None  # simultaneous: (S) -> list of players
    fixed_actors: list | None = None  # simultaneous: the seats `actors` gives in every state, when it reads none
    pass_rule: MoveRule | None = None
    arrangement: Arrangement | None = None
    draw: Draw | None = None
    inputs: list = field(default_factory=list)  # chance: the values a call chance(step, ...) gives, by name
    effects: Callable | None = None  # auto: do; simultaneous: resolve  (S, me[, choices])
    after: Callable | None = None  # effects after every move made at this step: (S, me, move record)
    next: Callable = None  # (S, me) -> step name or END_TURN
    next_target: str | None = None  # the step `next` always returns, when it is a constant
    state_free: bool = False  # chance: the outcomes and their weights are the same in every state
    chance_table: tuple | None = None  # chance: the outcomes worked out once, when state_free
    # chance, not state_free: (S) -> a value that stays the same while nothing the outcomes and their weights
    # read is written (see model/reads.py); the engine keeps a state's table while it does. None: not known
    unchanged: Callable | None = None


@dataclass
class EndRule:
    """An end condition and how the winners are decided; or the file's `no_moves:` rule (then `when` is None)."""

    path: tuple
    when: Callable | None  # (S) -> bool; None: the no_moves rule, applied where a seat to choose has no move
    winners: Callable | None  # (S) -> list of players; None: by score
    ties: str = "draw"  # by score: draw | share
    draw: bool = False  # `winners: draw`: the game ends drawn (for one player too, where no winner is a loss)
    # (S) -> a value that stays the same while nothing `when` reads is written (see model/reads.py); None
    # when `when` may read anything. The engine does not ask `when` again while it stays the same.
    unchanged: Callable | None = None
    no_moves: str | None = None  # loses | wins | draws | passes: what a seat with no legal move at a decision does


budget.guard(MoveRule.format, MOVE_SECONDS, "printing a move")
