"""Moves and chance outcomes as integer actions, numbered from the moves' parameter domains (for RL libraries).

Each kind of move gets a block of numbers, in the order the steps of the file list them: a move's number is its
block's offset plus the mixed-radix index of its params, each the place of its value in the param's domain.
A domain that reads nothing of the position (cells, a constant list, a range of options) is worked out once,
when the game is loaded, for every seat and every value of the params before it; a domain that reads the
position is numbered over its bound instead (the param's `among:`, or one the compiler infers: see
model/bounds.py). A kind with a param whose domain reads the position and has no bound, a compound move or a
move given inputs is numbered by its place among the legal moves of such kinds, in a shared block of
`actions: max_legal` numbers. Chance outcomes
are numbered the same way, on their own, with `actions: max_outcomes` for draws, arrangements and outcomes
whose params read the position.
"""

from __future__ import annotations

from itertools import product

from .. import budget
from ..errors import GameRuntimeError, IllegalMove, Location, Problem, RulesError
from ..lang.builtins import RuleValueError, value_key
from ..limits import LOAD_SECONDS, MAX_ACTIONS, VALUE_SECONDS
from ..model.rules import Move
from ..model.values import text_of
from .nodes import CHANCE

_KNOWN_MOVES = 100_000  # moves whose actions are remembered at once (see Numbering._number)
_FAILURES = (RuleValueError, ArithmeticError, LookupError, TypeError, ValueError, AttributeError)
_HINT = ("give the param the values it can take with 'among:' (params: {name: {in: ..., among: ...}}), or declare "
         "'actions: {max_legal: N}' at the top of the file: moves of kinds whose params read the position are then "
         "numbered by their place in the legal list, N at most")
_OUTCOME_HINT = ("declare 'actions: {max_outcomes: N}' at the top of the file: the outcomes of such a chance node "
                 "are then numbered by their place in its list, N at most")


class _Kind:
    """One kind of move numbered from its params' domains: `values[i]` lists param i's values in order."""

    __slots__ = ("rule", "offset", "values", "places", "strides", "size")

    def outside(self, args) -> int | None:
        """The index of the first param whose value is not among its numbered values, or None."""
        return next((i for i, (value, places) in enumerate(zip(args, self.places))
                     if value_key(value) not in places), None)

    def __init__(self, rule, offset: int, values: list[list]):
        self.rule, self.offset, self.values = rule, offset, values
        self.places = [{value_key(v): i for i, v in enumerate(vs)} for vs in values]
        self.strides, size = [], 1
        for vs in reversed(values):
            self.strides.insert(0, size)
            size *= len(vs)
        self.size = size

    def number(self, args) -> int | None:
        """The action of a move of this kind with these args (its params first), or None if a value is unknown."""
        n = self.offset
        for value, places, stride in zip(args, self.places, self.strides):
            place = places.get(value_key(value))
            if place is None:
                return None
            n += place * stride
        return n

    def args(self, action: int) -> tuple:
        """The params' values of an action of this kind."""
        rest, found = action - self.offset, []
        for vs, stride in zip(self.values, self.strides):
            found.append(vs[rest // stride])
            rest %= stride
        return tuple(found)


class Numbering:
    """The numbers of one set of move rules (a game's decisions, or its chance outcomes): a block per kind
    numbered from its domains, then one block of `cap` numbers for the kinds numbered by their place in a list.
    `blocker` is the Problem that keeps it from being used (a kind to number by place, and no cap declared)."""

    def __init__(self, rules, kinds: list, by_place: list, cap: int | None, cap_path: tuple, blocker: Problem | None):
        self._rules, self.kinds, self.by_place = rules, kinds, by_place
        self._of_rule = {id(k.rule): k for k in kinds}
        self.cap, self._cap_path, self.blocker = cap, cap_path, blocker
        self.place_offset = sum(k.size for k in kinds)
        self._known: dict = {}  # move -> its action, for moves of kinds numbered from their domains

    @property
    def size(self) -> int:
        """How many numbers there are (RulesError when some kind cannot be numbered)."""
        if self.blocker is not None:
            raise RulesError([self.blocker])
        return self.place_offset + (self.cap if self.by_place else 0)

    def numbered(self, state, moves) -> dict[int, Move]:
        """action -> move for `moves`, listed at `state`, in order of action."""
        if self.blocker is not None:
            raise RulesError([self.blocker])
        found, placed = {}, 0
        for move in moves:
            kind = self._of_rule.get(id(move[0]))
            if kind is not None:
                action = self._number(state, move, kind)
            else:
                if placed >= self.cap:
                    raise self._error(state, move, f"more than {self.cap:,} moves of kinds numbered by their place "
                                      "are legal at once", "raise the cap in 'actions:'", at=self._cap_path)
                action, placed = self.place_offset + placed, placed + 1
            found[action] = move
        return dict(sorted(found.items()))

    def describe(self, action: int) -> str:
        """What an action stands for: the move it numbers, or 'legal move N of <kinds>'."""
        for kind in self.kinds:
            if kind.offset <= action < kind.offset + kind.size:
                args = kind.args(action)
                if not kind.rule.lets:
                    try:  # the notation, where it can be printed without a seat
                        return kind.rule.format(args, None)
                    except _FAILURES:
                        pass
                return " ".join([kind.rule.name, *map(text_of, args)])
        return f"legal move {action - self.place_offset} of {', '.join(sorted({r.name for r in self.by_place}))}"

    def _number(self, state, move, kind: _Kind) -> int:
        """The action of a move of a kind numbered from its domains, remembered: legal moves are interned, so
        the same few recur from state to state."""
        try:
            return self._known[move]
        except KeyError:
            pass
        except TypeError:  # unhashable args: a move of its own, not remembered
            return self._number_of(state, move, kind)
        if len(self._known) >= _KNOWN_MOVES:
            self._known.clear()
        action = self._known[move] = self._number_of(state, move, kind)
        return action

    def _number_of(self, state, move, kind: _Kind) -> int:
        action = kind.number(move[1])
        if action is None:
            raise self._outside(state, move, kind)
        return action

    def _outside(self, state, move, kind: _Kind) -> GameRuntimeError:
        """The error for a legal move with a param value that its kind's numbering does not list."""
        i = kind.outside(move[1])
        domain = move[0].domains[i]
        value = text_of(move[1][i])
        if domain.fixed:
            return self._error(state, move, f"move '{move}' has a value of '{domain.name}' ({value}) outside its "
                               "domain as worked out when the game was loaded", "a domain that reads nothing of "
                               "the position gives the same values in every state")
        if domain.declared:
            return self._error(state, move, f"param '{domain.name}' of '{move[0].name}' is {value}, which its "
                               "'among:' does not list", "'among' must list every value the param can take in "
                               "any position: add this one", at=domain.bound_path)
        return self._error(state, move, f"param '{domain.name}' of '{move[0].name}' is {value}, outside the "
                           "values it was inferred to be among", "declare its values with 'among:'",
                           at=domain.bound_path)

    def _error(self, state, move, message: str, hint: str, at: tuple | None = None) -> GameRuntimeError:
        where = self._rules.where
        path = at or move[0].path
        return GameRuntimeError(move[0].name, state.turn, message, where(path) if where else None, hint)


class ActionMap:
    """A game's integer actions: `moves` numbers its decisions, `outcomes` its chance outcomes (see module)."""

    def __init__(self, game):
        self.game = game
        rules = game.rules
        start = game.new_initial_state()  # the domains worked out here read nothing of it
        decisions, chances = _kinds(game, start)
        self.moves = _numbering(rules, start, decisions, list(range(rules.num_players)), rules.max_legal,
                                "max_legal", _HINT)
        self.outcomes = _numbering(rules, start, chances, [CHANCE], rules.max_outcomes, "max_outcomes",
                                   _OUTCOME_HINT)

    @property
    def num_distinct_actions(self) -> int:
        return self.moves.size

    @property
    def max_chance_outcomes(self) -> int:
        return self.outcomes.size if self.game.rules.has_chance else 0

    def legal(self, state, player: int | None = None) -> dict[int, Move]:
        """action -> legal move of `player` (default: the player to move), in order of action."""
        return self.moves.numbered(state, state.legal_moves(player))

    def chance(self, state) -> list[tuple[int, Move, float]]:
        """(action, outcome, probability) at a chance node, in order of action."""
        outcomes = state.chance_outcomes()
        numbered = self.outcomes.numbered(state, [m for m, _ in outcomes])
        probability = {id(m): p for m, p in outcomes}
        return [(a, m, probability[id(m)]) for a, m in numbered.items()]

    def move(self, state, action: int, player: int | None = None) -> Move:
        """The legal move (or chance outcome) numbered `action` at `state`; IllegalMove if there is none."""
        if state.is_chance_node():
            found = {a: m for a, m, _ in self.chance(state)}
        else:
            found = self.legal(state, player)
        move = found.get(action)
        if move is None:
            shown = ", ".join(map(str, list(found)[:10])) + (" ..." if len(found) > 10 else "")
            raise IllegalMove(str(action), "no legal move has this number", f"legal actions: {shown or 'none'}")
        return move

    def action(self, state, move: Move) -> int:
        """The number of a legal move (or outcome) of `state`."""
        numbering = self.outcomes if move[2] == CHANCE else self.moves
        moves = [m for m, _ in state.chance_outcomes()] if move[2] == CHANCE else state.legal_moves(move[2])
        for action, found in numbering.numbered(state, moves).items():
            if found == move:
                return action
        raise IllegalMove(str(move), "it is not a legal move of this state")


def _fixed(arrangement, start) -> bool:
    """Whether an arrangement is named by the rule file at the start (`fixed:`, say from an option)."""
    if arrangement.fixed is None:
        return False
    try:
        return bool(arrangement.fixed(start, CHANCE))
    except _FAILURES:
        return False


def chance_numbering(game) -> Numbering:
    """The numbering of a game's chance outcomes alone (ActionMap's `outcomes`), without its decisions'."""
    start = game.new_initial_state()
    return _numbering(game.rules, start, _kinds(game, start)[1], [CHANCE], game.rules.max_outcomes, "max_outcomes",
                      _OUTCOME_HINT)


def _kinds(game, start) -> tuple[list, list]:
    """(the move rules of the game's decisions, those of its chance outcomes), each rule once."""
    decisions, chances = [], []
    for step in game.rules.steps.values():
        if step.kind == "chance":
            if step.arrangement is not None and _fixed(step.arrangement, start):
                continue  # the options name the arrangement: play never stops at this chance node
            chances += [step.draw.rule] if step.draw is not None else \
                [game.arrangement_rule(step)] if step.arrangement is not None else step.moves
        else:
            decisions += step.moves + [r for tier in step.tiers for r in tier]
            decisions += [step.pass_rule] if step.pass_rule is not None else []
    return _unique(decisions), _unique(chances)


def _unique(rules: list) -> list:
    seen, found = set(), []
    for rule in rules:
        if id(rule) not in seen:
            seen.add(id(rule))
            found.append(rule)
    return found


def _numbering(rules, start, kinds: list, seats: list, cap: int | None, cap_name: str, hint: str) -> Numbering:
    numbered, by_place, blocker, offset = [], [], None, 0
    for rule in kinds:
        values, why = _domains(rules, start, rule, seats)
        if values is None:
            by_place.append(rule)
            if cap is None and blocker is None:
                blocker = Problem(why[0], why[1], hint, code="unnumbered_actions", fields={"move": rule.name})
            continue
        kind = _Kind(rule, offset, values)
        offset += kind.size
        if offset > MAX_ACTIONS:
            raise _too_many(rules, rule.path, f"the moves of '{rule.name}' bring the actions to more than "
                            f"{MAX_ACTIONS:,}")
        numbered.append(kind)
    return Numbering(rules, numbered, by_place, cap, ("actions", cap_name), blocker)


def _domains(rules, start, rule, seats: list):
    """Each param's values in order, worked out from its domain (or else its bound) for every seat and every
    value of the params before it; (None, (why, location)) when a domain reads the position and has no bound
    (or the kind has parts or inputs).
    RulesError, located at the domain, when the values are too many or take too long to work out."""
    if rule.compound or rule.inputs or len(rule.domains) != len(rule.params):
        what = "is a compound move" if rule.compound else "takes inputs" if rule.inputs else \
            "draws or arranges items"
        return None, (f"'{rule.name}' {what}, so its moves cannot be numbered from its params",
                      _at(rules, rule.path))
    values: list[list] = []
    combinations = 1  # of the values of the params before this one: the kind has at least this many moves
    for i, domain in enumerate(rule.domains):
        listed = domain.values if domain.fixed else domain.bound
        if listed is None:
            return None, (f"param '{domain.name}' of '{rule.name}' takes its values from the position, so its moves "
                          "cannot be numbered from the rule file alone", _at(rules, domain.path))
        found, keys = [], set()
        try:
            for me in seats:
                for earlier in product(*values[:i]):
                    try:
                        items = list(listed(start, me, *earlier))
                    except _FAILURES:
                        continue  # no such combination: the moves' own checks would fail the same way
                    for item in items:
                        key = value_key(item)
                        if key not in keys:
                            keys.add(key)
                            found.append(item)
                    if combinations * len(found) > MAX_ACTIONS:
                        raise _too_many(rules, domain.bound_path if listed is domain.bound else domain.path,
                                        f"the moves of '{rule.name}' would be more than "
                                        f"{MAX_ACTIONS:,} actions")
        except budget.TimeBudgetExceeded as exc:
            at = domain.path if listed is domain.values else domain.bound_path
            raise _too_many(rules, at, f"numbering the moves of '{rule.name}': {exc}") from None
        values.append(found)
        combinations *= max(1, len(found))
    return values, None


def _too_many(rules, path: tuple, message: str) -> RulesError:
    return RulesError([Problem(message, _at(rules, path), "give the params smaller domains, or number the moves by "
                               "their place in the legal list ('actions: max_legal')", code="too_many_actions")])


def _at(rules, path: tuple) -> Location | None:
    return rules.where(path) if rules.where is not None else None


budget.guard(ActionMap.__init__, LOAD_SECONDS, "numbering the moves as actions")
# each kind's values (its params' `among:`, or their domains) have a budget of their own: one that never ends is
# located at the values that take the time
budget.guard(_domains, VALUE_SECONDS, "working out the values of a move's params")
