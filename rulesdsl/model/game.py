"""The Rules object: everything compiled from one rule file (with its variant and options) that play needs."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..lang.builtins import RuleValueError
from .board import Board
from .rules import END_TURN


@dataclass
class Rules:
    """A compiled game description. The engine runs states against it; it holds no state itself."""

    END_TURN = END_TURN

    name: str = ""
    description: str = ""
    source: str = ""
    variant: str | None = None
    variants: dict = field(default_factory=dict)  # name -> description
    option_specs: dict = field(default_factory=dict)
    option_values: dict = field(default_factory=dict)
    num_players: int = 2
    player_names: list = field(default_factory=list)
    teams: tuple = ()  # each seat's team (seats with equal entries are partners); default: a team per seat
    board: Board = field(default_factory=Board)
    start_cells: list = field(default_factory=list)  # the piece on each cell (or None) when a game starts
    kinds: dict = field(default_factory=dict)
    zones: list = field(default_factory=list)  # Holders, in file order
    bounded: list = field(default_factory=list)  # (index in zones + vars, Holder) of those declaring a capacity
    capacities: list = field(default_factory=list)  # the same, as apply's quick look reads them
    capacity_parts: list = field(default_factory=list)  # their parts of the position (see Position.changes)
    vars: list = field(default_factory=list)  # Holders, in file order
    moves: dict = field(default_factory=dict)
    steps: dict = field(default_factory=dict)
    # the chance steps by name -> the inputs each declares (known before anything that calls one is compiled)
    chance_inputs: dict = field(default_factory=dict)
    called: set = field(default_factory=set)  # the chance steps that effects call with chance()
    start: str = ""
    turn_start: str = ""
    first_player: object = None
    next_player: object = None
    max_turns: int | None = None
    max_turns_clamped: bool = False  # the file asked for more than limits.MAX_TURNS_CAP, and got that
    warnings: list = field(default_factory=list)  # Problems (severity warning) found while compiling
    # whether the rules call a built-in that reads the positions the game has left (repeated()): only then does
    # play keep them (engine/repetition.py)
    counts_positions: bool = False
    end_rules: list = field(default_factory=list)
    no_moves: int | None = None  # the index in end_rules of the `no_moves:` rule, if the file has one
    score: object = None
    tiebreak: object = None
    evaluation: object = None  # for agents: how good a position is for 'me' (default: the score)
    breakdown: object = None  # for reports: a table of named numbers per player (e.g. points per colour)
    returns: object = None  # (S, me) -> the seat's result when the game ends (`scoring: returns`); None: win/loss
    utility: str = "general_sum"  # zero_sum | constant_sum | identical | general_sum: declared, else derived
    utility_declared: bool = False  # checked as each game ends only when the file declares it
    returns_range: tuple | None = None  # (lowest, highest) a seat's returns may be, when the file declares it
    # constant_sum: the sum of the returns of the first game checked with these rules (see engine/results.py)
    returns_sum: list = field(default_factory=list, repr=False)
    # integer actions: where moves of kinds whose params are computed during play are numbered by their place in
    # the legal list, how many places (`actions: max_legal`); chance outcomes per node (`actions: max_outcomes`)
    max_legal: int | None = None
    max_outcomes: int | None = None
    features: list = field(default_factory=list)  # [(name, (S, me) -> number, path)]: the file's own features
    render_rows: list = field(default_factory=list)  # [(label, [cells])] drawn one line each
    render_hide: set = field(default_factory=set)  # variables and zones left out of the terminal picture
    render_at: tuple | None = None  # per cell (index order): its (x, y) on a picture, when the file says
    render_colours: dict = field(default_factory=dict)  # a value (a colour attribute, a player) -> CSS colour
    render_shapes: dict = field(default_factory=dict)  # a kind of piece -> circle, square, diamond or triangle
    namespace: dict = field(default_factory=dict, repr=False)
    ir: object = field(default=None, repr=False)  # the typed rules IR (ir/game.py GameIR) the rules compiled to
    ir_data: dict = field(default_factory=dict, repr=False)  # the rule file's data the IR's paths lead into
    # what each named part of the rule file compiled to: a label such as "move advance", "step play",
    # "function side_cells", "procedure score_row", "end 1" or "scoring score" -> its generated functions, each
    # with .source (Python) and .tree (the emit form), in the order they were made
    generated: dict = field(default_factory=dict, repr=False)
    where: object = field(default=None, repr=False)  # (path in the rule file) -> Location, for runtime errors
    # code of generated functions -> {line: path in the rule file of the statement on that line}: a runtime error
    # is located at the effect statement that failed, not only at the rule it belongs to
    statements: dict = field(default_factory=dict, repr=False)

    def has_moves(self, S, player, step_name=None) -> bool:
        """True when `player` would have a legal (non-pass) move at the step (default: the current one)."""
        try:
            step = self.steps[step_name or S.step]
        except (KeyError, TypeError):  # no such step, or a value that cannot name one (a list)
            raise RuleValueError(f"can_move(): no step '{step_name}'") from None
        for rule in step.moves:
            if rule.exists is not None:
                if rule.exists(S, player):
                    return True
            else:
                for _ in rule.generate(S, player):
                    return True
        return False

    @property
    def has_chance(self) -> bool:
        return any(s.kind == "chance" for s in self.steps.values())

    @property
    def has_simultaneous(self) -> bool:
        return any(s.kind == "simultaneous" for s in self.steps.values())

    @property
    def has_hidden_information(self) -> bool:
        """Whether some seat may not see all there is: a place not visible to all, simultaneous choices, or a move
        or chance outcome (a secret draw) that only some see made (`visible_to`)."""
        return any(h.visible != "all" for h in self.zones + self.vars) or self.has_simultaneous or any(
            rule.visible_to is not None for step in self.steps.values()
            for rule in [*step.moves, *((step.draw.rule,) if step.draw is not None else ())])

    def summary(self) -> str:
        """A one-line description of the game for `validate`."""
        players = _counted(self.num_players, "player")
        if self.player_names and not all(n == f"p{i}" for i, n in enumerate(self.player_names)):
            players += f" ({', '.join(self.player_names)})"
        features = [players, _counted(len(self.board.cells), "cell"), _counted(len(self.moves), "move"),
                    _counted(len(self.steps), "step"),
                    "chance" if self.has_chance else "no chance",
                    "hidden information" if self.has_hidden_information else "perfect information",
                    self._simultaneous_summary() if self.has_simultaneous else "sequential moves"]
        if self.variants:
            features.append("variants: " + ", ".join(self.variants))
        if self.option_specs:
            features.append("options: " + ", ".join(self.option_specs))
        return f"{self.name}: " + ", ".join(features)


    def _simultaneous_summary(self) -> str:
        """How simultaneous choices are shown: to everybody once all have chosen, unless a move's visible_to keeps
        them secret."""
        moves = [m for s in self.steps.values() if s.kind == "simultaneous"
                 for m in s.moves or [m for tier in s.tiers for m in tier]]
        secret = sum(m.visible_to is not None for m in moves)
        if secret and secret == len(moves):
            return "simultaneous moves (choices kept secret by visible_to)"
        return "simultaneous moves (choices revealed when all have chosen" + (
            ", but those of moves with visible_to)" if secret else ")")


def _counted(n: int, noun: str) -> str:
    """'1 move', '2 moves'."""
    return f"{n} {noun}{'s' if n != 1 else ''}"
