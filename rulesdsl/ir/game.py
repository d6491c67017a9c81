"""The IR of a whole game: its layout, moves, functions, flow, chance, end rules and scoring, as typed trees."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..lang import types as T
from .nodes import walk


@dataclass
class Param:
    """A move's parameter: the values it ranges over (`domain`, the `in:` expression), the fixed list its actions
    are numbered by (`among`), and what a refused value is told (`why`)."""

    name: str
    decl: tuple
    type: T.Type = T.ANY
    domain: object = None
    among: object = None
    why: str | None = None


@dataclass
class Check:
    """A condition a move must meet, and what a move refused by it is told."""

    test: object
    why: str | None
    decl: tuple


@dataclass
class Let:
    name: str
    decl: tuple
    value: object


@dataclass
class MovePlan:
    """A move (or a chance step's outcomes, or a step's pass): how its legal values are found and what it does.
    `notation` is its printed form: text and the expressions of its fields, in order."""

    name: str
    decl: tuple
    kind: str = "move"  # move | outcome | pass | part
    inputs: list = field(default_factory=list)
    params: list = field(default_factory=list)
    lets: list = field(default_factory=list)
    checks: list = field(default_factory=list)
    notation: tuple = ()
    effects: tuple = ()
    weight: object = None
    visible_to: object = None
    parts: list = field(default_factory=list)  # a compound move's parts (MovePlans of kind part)
    # a move of one part repeated (`repeat:`): its part (a MovePlan of kind part, its `checks` the part's `when`),
    # and using, chain, prefer -> expression; max, min, stop -> as written
    repeat: MovePlan | None = None
    repeat_exprs: dict = field(default_factory=dict)
    repeat_rules: dict = field(default_factory=dict)
    one_per_position: bool = False  # moves whose parts reach the same position are one
    move: str | None = None  # a part's: the move it is made with
    given: list = field(default_factory=list)  # a part's: the values it gives that move's inputs (Lets)


@dataclass
class Function:
    """A function (a value: `value`) or a procedure (statements: `body`) of the file."""

    name: str
    decl: tuple
    kind: str  # function | procedure
    params: list
    lets: list = field(default_factory=list)
    value: object = None
    body: tuple = ()


@dataclass
class Branch:
    """One way on from a step: to `to` (a step's name, or an expression naming one) when `test` holds."""

    test: object
    to: object


@dataclass
class Chance:
    """A chance step: `kind` outcomes (a list of weighted outcomes, like a move's), arrangement (a whole
    permutation of a list, with requirements), or draw (items drawn from a collection)."""

    kind: str
    outcomes: MovePlan | None = None
    exprs: dict = field(default_factory=dict)  # arrangement, fixed, draw, from, refill, visible_to -> expression
    require: list = field(default_factory=list)  # Checks
    effects: tuple = ()


@dataclass
class Step:
    """A node of the flow machine. `kind`: move (a seat chooses among its moves), automatic (effects only),
    chance, or simultaneous (every acting seat chooses, then `resolve` runs)."""

    name: str
    decl: tuple
    kind: str
    actor: object = None
    moves: list = field(default_factory=list)  # names of the moves playable here
    effects: dict = field(default_factory=dict)  # do | after | resolve -> statements
    next: list = field(default_factory=list)  # Branches, first that holds
    chance: Chance | None = None
    passing: MovePlan | None = None


@dataclass
class Holder:
    """A zone or a variable: one place, one per seat (`per: player`) or one per key, visible to whom."""

    name: str
    decl: tuple
    kind: str  # zone | var
    per: str | None
    visible: str  # all | owner | team | none, or the text of `sight`
    type: T.Type = T.ANY
    init: object = None
    sight: object = None  # `visible:` as an expression: true or false, of `viewer`, `owner`, `key` and the state


@dataclass
class Board:
    """The board's layout: its cells in index order, and each cell attribute's type and values."""

    cells: list
    attributes: dict = field(default_factory=dict)  # name -> (type, per-cell values)
    directions: dict = field(default_factory=dict)  # name -> step (dx, dy) or None when given by a table
    regions: dict = field(default_factory=dict)  # name -> cell indices (a region per key: key -> cell indices)


@dataclass
class EndRule:
    decl: tuple
    when: object  # None: the no_moves rule
    winners: object = None
    exprs: dict = field(default_factory=dict)
    no_moves: str | None = None  # loses | wins | draws | passes: what a seat with no legal move at a decision does


@dataclass
class GameIR:
    """Everything the rules say, typed: what backends print code from, the checker checks, the editor reads."""

    name: str
    file: str
    seats: int
    board: Board
    holders: list = field(default_factory=list)
    data: dict = field(default_factory=dict)  # name -> (decl, type)
    functions: dict = field(default_factory=dict)
    moves: dict = field(default_factory=dict)
    steps: dict = field(default_factory=dict)
    start: str = ""
    end: list = field(default_factory=list)
    scoring: dict = field(default_factory=dict)  # score | tiebreak | evaluation | breakdown -> expression
    max_legal: int | None = None
    max_outcomes: int | None = None
    builtins: dict = field(default_factory=dict)  # name -> declaration (lang/declare.py) of each built-in a call names
    # every expression and statement of the file by the path of the string it is written in (several at one
    # path: a loop's collection and its conditions), including those no part above names (render, features...)
    exprs: dict = field(default_factory=dict)

    def nodes(self):
        """Every IR node of the game, each once."""
        for found in self.exprs.values():
            for node in found:
                yield from walk(node)
