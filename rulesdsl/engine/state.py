"""Game state and play: legal moves, effects, turn flow, chance and simultaneous nodes, end and results."""

from __future__ import annotations

from functools import partial
from itertools import accumulate

from .. import budget, limits
from . import results
from ..errors import GameRuntimeError, IllegalMove, MoveError
from ..lang.builtins import RuleValueError, value_key
from ..lang.checked import DEEPENED, deepenings, depth
from ..lang.compiler import GUARDS
from ..lang.held import items
from ..limits import (GAME_SECONDS, MAX_AUTO_STEPS, MAX_CALLS, MAX_DRAWN, MAX_STATE_ITEMS, MAX_VALUE_DEPTH,
                      MOVE_SECONDS, LimitExceeded)
from ..lang.compiler import RULE_CODE_FILE
from ..model.position import Position
from ..model.rules import END_TURN, Move, MoveRule
from ..model.values import Cell, Piece, Record, text_of
from . import rule_values
from .arrange import sample_arrangement
from .draws import DrawPool, RefillPool
from .nodes import CHANCE, SIMULTANEOUS, TERMINAL
from .notation import parse_move
from .rng import Rng
from .serialize import observation, position_text, state_to_json, tally

_INFINITY = float("inf")
_BIG = 1 << 1000  # a whole number below this in size converts to a float


def _flat(items) -> bool:
    """Whether `items` (a list or tuple) hold no list or table, at any depth: whether they can be hashed, which
    Python finds in C, and lists and tables cannot (the values that can be hashed never change: numbers, text,
    cells, pieces, tuples of them, records of moves)."""
    if items and items[0].__class__ in (list, dict):  # (a list of places, most often: no need to ask)
        return False
    try:
        hash(tuple(items))
    except TypeError:
        return False
    return True


def _copy(value):
    """A starting value of a zone or variable as the state's own: a copy that shares no list or table with it, and
    whose constants (a let's table, say) are copies that effects may change."""
    if isinstance(value, list):
        return list(value) if _flat(value) else [_copy(v) for v in value]
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if value.__class__ is tuple and not _flat(value):
        return tuple(_copy(v) for v in value)
    return value


_HOLDERS = frozenset({list, dict, tuple})  # the values that may hold a list or table (see _cloned)


def _cloned(value):
    """A zone or variable value for a clone: every list and table in it copied, at any depth (in a tuple too), so
    that the clone and the state share nothing that changes; what never changes (numbers, text, cells, pieces,
    constants, records of moves) is shared."""
    kind = value.__class__
    if kind is list:  # (a clone copies many short lists: their items' classes are looked at in C)
        if not any(map(_HOLDERS.__contains__, map(type, value))):
            return value[:]
        return [_cloned(v) for v in value]
    if kind is dict:
        return {k: _cloned(v) for k, v in value.items()}  # (keys are values that never change)
    if kind is tuple and not _flat(value):
        return tuple(_cloned(v) for v in value)
    return value


_CAPACITY_LOOKED = ("capacities",)  # the key in Position.tallies of the writes counted when capacities last held
_CAPACITIES_LOOKED = ("capacities", "each")  # ... and of each bounded zone's or variable's count then
_NESTING_LOOKED = ("nesting",)  # ... and of the writes to each part counted when their nesting was last looked at


class State(Position):
    """One position of a game. Mutated in place by `apply`; `clone` gives an independent copy."""

    __slots__ = ("game", "rules", "ply", "pending", "terminal", "winners", "capped", "history", "_rng", "seed",
                 "_texts", "secret", "ended_by", "end_checked", "chance_kept", "returned", "positions", "seen")
    # besides the position's (see Position): `game` and `rules` are what the state is a state of
    # `positions`: the key of each position a move left, in order, in a game that counts them (repeated()); else ()
    DATA = Position.DATA + ("ply", "pending", "terminal", "winners", "capped", "history", "secret", "ended_by", "seed",
                            "_rng", "positions")
    # `seen`: how often each key occurs in `positions` (None: the game does not count them)
    MEMO = Position.MEMO + ("end_checked", "chance_kept", "_texts", "returned", "seen")

    def rebuild_memo(self) -> None:
        """Position.rebuild_memo, and the engine's own memo: end rules and chance tables found unchanged, and the
        history's notation."""
        Position.rebuild_memo(self)
        self.end_checked = [None] * len(self.rules.end_rules)
        self.chance_kept = {}
        self._texts = []
        self.returned = None  # the ended game's returns, once asked (see returns())
        self.seen = tally(self.positions) if self.rules.counts_positions else None

    # -- construction ------------------------------------------------------------------------
    @classmethod
    def initial(cls, game) -> "State":
        rules = game.rules
        S = cls.__new__(cls)
        S.game, S.rules = game, rules
        S.cells = list(rules.start_cells)
        S.player, S.step, S.turn, S.ply, S.last, S.revealed = 0, rules.start, 0, 0, None, frozenset()
        S.left = ()
        S.pending, S.terminal, S.winners, S.capped, S.history, S.goto, S.calls = {}, False, None, False, [], None, ()
        S._texts, S.returned = [], None
        S.secret, S.ended_by = {}, None  # ply -> players who saw that entry; which end rule ended the game
        S.positions, S.seen = ([], {}) if rules.counts_positions else ((), None)
        S._rng, S.seed = None, 0  # the state's own sampler is made when first used
        S.zones, S.vars = [], []
        S.changes, S.tallies = [0] * (1 + len(rules.zones) + len(rules.vars)), {}
        S.held = 0  # counted once the zones and variables have their first values
        S.chance_kept = {}  # step name -> (its `unchanged` value, its outcome table) when last listed
        S.end_checked = [None] * len(rules.end_rules)  # per end rule: its `unchanged` value when last found false
        budget.ensure_watchdog()
        with _rule_errors(S, "initial state"):
            for items, target in ((rules.zones, S.zones), (rules.vars, S.vars)):
                for holder in items:
                    fn, empty = holder.init_fn, [] if holder.zone else None
                    target.append(holder.build(rules.num_players, lambda owner, key: _copy(
                        fn(S, None, owner, key) if fn else empty)))
            if rules.first_player is not None:
                S.player = rules.first_player(S, None)
        S._check_player("first_player")
        deepened = deepenings()
        S._go(rules.start)
        S.check_held(None)
        if deepenings() != deepened:
            S.check_nesting(None)
        if S.rules.bounded:
            S.check_capacity(None)
        return S

    def __reduce__(self):
        """A State pickles as its game, its JSON (to_json) and its sampler: unpickled, it plays on as the original
        would, drawing the same chance outcomes."""
        return _state_again, (self.game, self.to_json(), self.seed, self._rng)

    def __copy__(self):
        return self.clone()

    def __deepcopy__(self, memo):
        return self.clone()

    def clone(self) -> "State":
        S = State.__new__(State)
        S.game, S.rules = self.game, self.rules
        S.cells = self.cells[:]
        S.zones = [_cloned(z) for z in self.zones]
        S.vars = [_cloned(v) for v in self.vars]
        S.player, S.step, S.turn, S.ply, S.last = self.player, self.step, self.turn, self.ply, self.last
        S.revealed, S.left = self.revealed, self.left
        S.changes, S.end_checked, S.tallies = self.changes[:], self.end_checked[:], {}
        S.held = self.held
        S.chance_kept = {}  # an outcome may hold a value of this state's own (a zone), never the copy's
        S.pending = dict(self.pending)
        S.terminal, S.winners, S.capped = self.terminal, self.winners, self.capped
        S.history = self.history[:]
        S._texts, S.returned = self._texts[:], self.returned
        S.secret, S.ended_by = dict(self.secret), self.ended_by
        S.goto, S.calls = None, self.calls
        S.seed, S._rng = self.seed, None
        S.positions, S.seen = self.positions[:], self.seen  # (a game that counts positions copies its tally below)
        if self.seen is not None:
            S.seen = dict(self.seen)
        if self._rng is not None:  # a copy of the sampler where it has drawn already
            S._rng = self._rng.copy()
        return S

    @property
    def rng(self) -> Rng:
        """The state's own seeded sampler (used by sample_chance() when no Rng is given)."""
        if self._rng is None:
            self._rng = Rng(self.seed)
        return self._rng

    @rng.setter
    def rng(self, value: Rng) -> None:
        self._rng = value

    # -- who moves ---------------------------------------------------------------------------
    def current_player(self) -> int:
        """The player to decide, or CHANCE, SIMULTANEOUS or TERMINAL."""
        if self.terminal:
            return TERMINAL
        step = self.rules.steps[self.step]
        if step.kind == "chance":
            return CHANCE
        if step.kind == "simultaneous":
            return SIMULTANEOUS
        return self._decider(step)

    def _decider(self, step) -> int:
        """Who decides at a decision step: the player whose turn it is, or the step's `actor`."""
        if step.turn_player_acts:
            return self.player
        try:
            return step.actor(self)
        except _CONVERTED as exc:
            raise _runtime_error(self, step, exc) from exc

    def is_terminal(self) -> bool:
        return self.terminal

    def is_chance_node(self) -> bool:
        return not self.terminal and self.rules.steps[self.step].kind == "chance"

    def is_simultaneous_node(self) -> bool:
        return not self.terminal and self.rules.steps[self.step].kind == "simultaneous"

    def acting_players(self) -> list[int]:
        """Players who still have to choose at this node (several at a simultaneous step)."""
        if self.terminal:
            return []
        step = self.rules.steps[self.step]
        if step.kind == "chance":
            return []
        if step.kind == "simultaneous":
            seats = step.fixed_actors
            if seats is None:
                try:
                    seats = _seats(step.actors(self), self.rules.num_players)
                except _CONVERTED as exc:
                    raise _runtime_error(self, step, exc) from exc
            if self.left:
                seats = [p for p in seats if p not in self.left]
            return [p for p in seats if p not in self.pending]
        return [self._decider(step)]

    # -- legal moves -------------------------------------------------------------------------
    def legal_moves(self, player: int | None = None) -> list[Move]:
        """The legal decisions of `player` (default: the player to move), in generation order.

        At a chance node, the enumerated outcomes; for a player who is not to choose here, []. When the
        player has no move, the step's `pass` move (an error if the step declares none).

        >>> from rulesdsl import load_game
        >>> state = load_game("three-in-a-row.yaml").new_initial_state()  # the tutorial's game
        >>> moves = state.legal_moves()
        >>> moves[0], moves[0].player, len(moves)
        (Move(a1), 0, 9)
        """
        if self.terminal:
            return []
        step = self.rules.steps[self.step]
        kind = step.kind
        if kind == "decision":
            turn = self._decider(step)
            if player is None:
                player = turn
            elif player != turn:
                return []
        elif kind == "chance":
            return [m for m, _ in self.chance_outcomes()]
        elif player is None:  # simultaneous: the first still to choose
            waiting = self.acting_players()
            if not waiting:
                return []
            player = waiting[0]
        elif player not in self.acting_players():
            return []
        moves = self._listed(step, player)
        if not moves:
            if step.pass_rule is None:
                raise _flow_error(self, step, f"{self.rules.player_names[player]} has no legal move and the step "
                                  "declares no 'pass'", "add 'pass: pass' to the step, or a move that is always legal")
            moves = [Move(step.pass_rule, (), player)]
        return moves

    def _listed(self, step, player: int) -> list[Move]:
        """The moves of `player` at decision or simultaneous step `step`, without its pass: maybe none."""
        new, make = tuple.__new__, Move
        try:
            if step.tiers:
                return self._tiered(step, player)
            moves = []
            for rule in step.moves:
                if rule.collect is not None:
                    rule.collect(self, player, moves)
                else:
                    moves.extend(new(make, (rule, args, player)) for args in rule.generate(self, player))
            return moves
        except _CONVERTED as exc:
            raise _runtime_error(self, step, exc) from exc

    def _tiered(self, step, player) -> list[Move]:
        """Moves of the first tier that has any; with fallback_by, chosen separately per value of that param."""
        moves, settled, keyed = [], set(), False
        group = step.fallback_by
        for tier in step.tiers:
            found = set()
            for rule in tier:
                index = rule.arg_names.index(group) if group is not None else None
                listed = []
                if rule.collect is not None:
                    # a later tier lists moves only for the values of the first param still without one
                    rule.collect(self, player, listed, settled if index == 0 and settled and not keyed else None)
                else:
                    listed = [Move(rule, args, player) for args in rule.generate(self, player)]
                for move in listed:
                    value = move[1][index] if index is not None else None
                    try:
                        if value in settled:
                            continue
                    except TypeError:  # a list or table: told apart by what it holds
                        value, keyed = value_key(value), True
                        if value in settled:
                            continue
                    found.add(value)
                    moves.append(move)
            settled |= found
            if group is None and moves:
                break
        return moves

    def _chance_table(self, step) -> tuple:
        """([(rule, args)], weights, running totals of the weights, total) of the enumerated outcomes with a
        positive weight; worked out once for a step whose outcomes and weights do not depend on the state."""
        table = step.chance_table
        if table is not None:
            return table
        if step.unchanged is not None:  # kept while nothing the outcomes and weights read is written
            key = step.unchanged(self)
            kept = self.chance_kept.get(step.name)
            if kept is not None and kept[0] == key:
                return kept[1]
        if step.arrangement is not None:
            raise IllegalMove("", f"step '{step.name}' draws a random arrangement; its outcomes are too many to "
                              "list", "name the arrangement (on the command line: --setup ARRANGEMENT, or an option "
                              "that fixes it), or draw one with sample_chance(rng)")
        outcomes, weights = [], []
        inputs = self.calls[1][1] if step.inputs else ()  # what the call of this step gave
        try:
            for rule in step.moves:
                weight = rule.weight
                for args in rule.generate(self, CHANCE, *inputs):
                    args = inputs + args
                    w = weight(self, CHANCE, *args)
                    if w.__class__ is not float:  # the common weights are converted here, the rest checked
                        w = float(w) if w.__class__ is int and -_BIG < w < _BIG else rule_values.weight(w, args)
                    if w > 0:
                        if w == _INFINITY:
                            raise RuleValueError(f"outcome {text_of(args)} has an infinite weight")
                        outcomes.append((rule, args))
                        weights.append(w)
        except _CONVERTED as exc:
            raise _runtime_error(self, step, exc) from exc
        if not outcomes:
            raise _flow_error(self, step, "the chance step has no outcome with a positive weight",
                              "some outcome needs a weight above 0 in every position the step is reached")
        table = outcomes, weights, list(accumulate(weights, initial=0.0))[1:], sum(weights)
        if step.state_free:
            step.chance_table = table
        elif step.unchanged is not None:
            self.chance_kept[step.name] = key, table
        return table

    def chance_outcomes(self) -> list[tuple[Move, float]]:
        """(outcome, probability) pairs at a chance node with enumerated outcomes.

        >>> from rulesdsl import load_game
        >>> state = load_game("sixes.yaml").new_initial_state()  # the tutorial's dice game
        >>> state.apply("roll")
        >>> outcomes = dict((str(move), p) for move, p in state.chance_outcomes())
        >>> len(outcomes), outcomes["dice 1 2 3 4 5"] == 120 / 6 ** 5
        (252, True)
        """
        step = self.rules.steps[self.step]
        if step.kind != "chance":
            return []
        if step.draw is not None:
            pool, inputs = self.draw_pool(step)
            try:
                listed = pool.outcomes()
            except RuleValueError as exc:
                raise _flow_error(self, step, str(exc), "draw one with sample_chance(rng), or name the items drawn "
                                  "(state.apply(...) in the step's notation)") from None
            rule = step.draw.rule
            return [(Move(rule, inputs + (drawn,), CHANCE), p) for drawn, p in listed]
        outcomes, weights, _, total = self._chance_table(step)
        return [(Move(rule, args, CHANCE), w / total) for (rule, args), w in zip(outcomes, weights)]

    def sample_chance(self, rng=None) -> Move:
        """Draw the outcome of the current chance node with `rng` (default: the state's own seeded Rng)."""
        rng = rng or self.rng
        step = self.rules.steps[self.step]
        if step.draw is not None:
            pool, inputs = self.draw_pool(step)
            return Move(step.draw.rule, inputs + (pool.sample(rng),), CHANCE)
        if step.arrangement is not None:
            arr = step.arrangement
            with _rule_errors(self, step):
                items = rule_values.items(arr.items(self, CHANCE))
                outcome = sample_arrangement(items, partial(arr.accept, self, CHANCE), rng)
            if outcome is not None:
                return Move(self.game.arrangement_rule(step), (tuple(outcome),), CHANCE)
            raise _flow_error(self, step, "no arrangement meets the requirements",
                              "the requirements may exclude every order of these items: check them together")
        outcomes, _, cumulative, total = self._chance_table(step)
        return Move(*outcomes[rng.pick(cumulative, total)], CHANCE)

    def draw_pool(self, step) -> tuple[DrawPool, tuple]:
        """What a `draw:` chance step draws from here, and the inputs its call gave."""
        inputs = self.calls[1][1] if self.calls else ()
        draw = step.draw
        with _rule_errors(self, step):
            items, count = draw.items(self, CHANCE, *inputs), draw.count(self, CHANCE, *inputs)
            if draw.refill is not None:
                refill = draw.refill(self, CHANCE, *inputs)  # (checked even when the pile holds enough)
                if count.__class__ is int and len(items) < count <= MAX_DRAWN:
                    return RefillPool(items, refill, count), inputs
            return DrawPool(items, count, draw.replace), inputs

    # -- position repetition -----------------------------------------------------------------
    def occurrences(self) -> int:
        """How often the position as it is now has occurred in this game, counting this one (repeated(n))."""
        if self.seen is None:  # (the rules call repeated() wherever this is asked: never here)
            raise RuleValueError("repeated(): this game does not count its positions")
        return self.seen.get(self.game.position_key(self), 0) + 1

    def snapshot(self) -> str:
        """The board, zones and variables in their JSON form (see Position.snapshot): exact, not a hash."""
        return position_text(self)

    def _leave_position(self) -> None:
        """Count the position a move is about to leave (see engine/repetition.py)."""
        key = self.game.position_key(self)
        self.positions.append(key)
        self.seen[key] = self.seen.get(key, 0) + 1

    # -- applying ----------------------------------------------------------------------------
    def apply(self, move, player: int | None = None) -> None:
        """Apply a move for the player to move (at a simultaneous step, the move's own player).

        A `Move` is applied as given: it is trusted to come from `legal_moves()` or `chance_outcomes()` of
        this very state, and is not checked again (search agents apply thousands). A string is read in the
        game's notation and checked: MoveError says why it is malformed, illegal or ambiguous.

        >>> from rulesdsl import load_game
        >>> state = load_game("three-in-a-row.yaml").new_initial_state()  # the tutorial's game
        >>> state.apply("b2")
        >>> state.history_texts()[-1], state.current_player()
        ('b2', 1)
        >>> state.apply("z9")
        Traceback (most recent call last):
        ...
        rulesdsl.errors.IllegalMove: illegal move 'z9': that is not a cell of the board ...
        """
        if self.terminal:
            raise IllegalMove(str(move), "the game is over")
        if isinstance(move, str):
            move = self.parse_move(move, player)
        rule, args, who = move
        try:
            step, turn, deepened = self.rules.steps[self.step], self.turn, DEEPENED[0]
            if rule.visible_to is not None:
                try:
                    # a tuple: the entry is shared by the state's clones, which copy only the table
                    self.secret[len(self.history)] = tuple(rule_values.seen_by(rule.visible_to(self, who, *args)))
                except _CONVERTED as exc:
                    raise _runtime_error(self, rule, exc) from exc
            self.history.append(move)
            self.ply += 1
            if who >= 0:
                self.last = move
            if step.kind == "simultaneous":
                self.pending[who] = move
                if self.acting_players():
                    return
                choices = [Record(**self.pending[p].params()) if p in self.pending else None
                           for p in range(self.rules.num_players)]
                self.pending = {}
                if self.seen is not None:  # the position the choices leave (they are no part of it)
                    self._leave_position()
                with _rule_errors(self, step):
                    step.effects(self, self.player, choices)
                self._advance(step, None, moved=True)
            else:
                if self.seen is not None:
                    self._leave_position()
                try:
                    rule.apply(self, who, *args)
                    if step.after is not None:
                        step.after(self, who, Record(**move.params()))
                except _CONVERTED as exc:
                    raise _runtime_error(self, rule, exc) from exc
                target, self.goto = self.goto, None
                if target is None:
                    target = step.next_target if rule.next is None else rule.next_target
                elif target.__class__ is tuple:
                    target = self._called(target, step, rule, who)
                if target is None:
                    self._advance(step, rule, who, who >= 0)
                else:
                    self._go(target, who >= 0)
            if self.held > MAX_STATE_ITEMS:  # perhaps: Position.held never falls short of what the position holds
                self.check_held(rule, turn)
            if DEEPENED[0] != deepened:  # a list held elsewhere was given an item that holds values
                self.check_nesting(rule, turn)
            parts = self.rules.capacity_parts
            if parts:  # the quick look: none is looked at again while nothing has written any of them since the last
                changes = self.changes
                # (counts only grow)
                written = changes[parts[0]] if len(parts) == 1 else sum([changes[p] for p in parts])
                if self.tallies.get(_CAPACITY_LOOKED) != written and self._over_capacity(written):
                    self.check_capacity(rule, turn)
        except budget.TimeBudgetExceeded as exc:  # it arrived between the calls of rule code: the move is to blame
            raise _runtime_error(self, rule, exc) from None

    def _over_capacity(self, written: int) -> bool:
        """Whether a zone or list variable written since the last look holds more than its capacity; when none
        does, `written` (the writes counted of them all) is kept as what the last look found within them, and the
        count of each as what it found within that one (so that the next look passes over those not written)."""
        zones, values, changes, parts = self.zones, self.vars, self.changes, self.rules.capacity_parts
        looked = self.tallies.get(_CAPACITIES_LOOKED)
        for k, (zone, i, capacity, whole) in enumerate(self.rules.capacities):
            if looked is not None and looked[k] == changes[parts[k]]:
                continue
            value = (zones if zone else values)[i]
            if whole:
                if value.__class__ in _SEQUENCES and len(value) > capacity:
                    return True
                continue
            for place in (value if value.__class__ is list else value.values()):
                if place.__class__ in _SEQUENCES and len(place) > capacity:
                    return True
        self.tallies[_CAPACITY_LOOKED] = written
        self.tallies[_CAPACITIES_LOOKED] = [changes[p] for p in parts]
        return False

    def check_capacity(self, what: MoveRule | None, turn: int = 0) -> None:
        """A located error naming `what` (the rule of the move just made on `turn`; None: the initial state, blamed
        on the declaration) when a zone or list variable holds more than its declared `capacity:`."""
        values = self.zones + self.vars
        for index, holder in self.rules.bounded:
            for key, place in holder.places(values[index]):
                if isinstance(place, (list, tuple)) and len(place) > holder.capacity:
                    kind = "zone" if holder.zone else "variable"
                    shown = holder.name if key is None else f"{holder.name}[{text_of(key)}]"
                    raise _flow_error(self, what or f"{kind} '{holder.name}'",
                                      f"{kind} '{shown}' holds {len(place):,} items, more than its capacity "
                                      f"{holder.capacity:,}", "raise its capacity: (or empty it sooner)",
                                      None if what else ("zones" if holder.zone else "vars", holder.name), turn)

    def check_nesting(self, what: MoveRule | None, turn: int = 0) -> None:
        """A located error naming `what` (the rule of the move just made on `turn`; None: the initial state, blamed
        on the zone or variable) when a value of a zone or variable nests deeper than limits.MAX_VALUE_DEPTH: an
        item stored in a list through a second name for it (or down several indexes) deepens what holds that list
        unseen by the item's own check, and a value nested without bound cannot be copied, saved or drawn."""
        values, changes = self.zones + self.vars, self.changes
        looked = self.tallies.get(_NESTING_LOOKED)  # the writes counted when they were last looked at
        for part, (holder, value) in enumerate(zip(self.rules.zones + self.rules.vars, values), 1):
            if looked is not None and looked[part] == changes[part]:
                continue  # not written since: as deep as it was then (an alias's write counts every part)
            for key, place in holder.places(value):
                if depth(place) > MAX_VALUE_DEPTH:
                    kind = "zone" if holder.zone else "variable"
                    shown = holder.name if key is None else f"{holder.name}[{text_of(key)}]"
                    raise _flow_error(self, what or f"{kind} '{holder.name}'",
                                      f"{kind} '{shown}' holds a value nested more than {MAX_VALUE_DEPTH} deep "
                                      "(lists, tuples, tables and records inside each other), the most the language "
                                      "allows", "a list changed through a second name for it deepens whatever "
                                      "holds it: build nested values with fewer levels",
                                      None if what else ("zones" if holder.zone else "vars", holder.name), turn)
        self.tallies[_NESTING_LOOKED] = changes[:]

    def check_held(self, what: MoveRule | None, turn: int = 0) -> None:
        """Count the items the zones and variables hold (Position.held becomes that number); a located error naming
        `what` (the rule of the move just made on `turn`; None: the initial state, blamed on the zone or variable
        holding the most) when they are more than limits.MAX_STATE_ITEMS: a game may not keep growing what it holds."""
        rules, total, most, bound = self.rules, 0, (-1, None), limits.MAX_STATE_ITEMS
        for holder, value in zip(rules.zones + rules.vars, self.zones + self.vars):
            count = items(value, bound - total)
            total, most = total + count, max(most, (count, holder), key=lambda found: found[0])
            if total > bound:
                name = f"{'zone' if holder.zone else 'variable'} '{most[1].name}'"
                raise _flow_error(self, what or name, f"the zones and variables would hold more than "
                                  f"{bound:,} items in all ({name} holds {most[0]:,} or more)",
                                  "a game keeps at most this many items from one move to the next: keep counts "
                                  "rather than lists, or empty what is no longer needed",
                                  None if what else ("zones" if most[1].zone else "vars", most[1].name), turn)
        self.held = total

    def _advance(self, step, rule: MoveRule | None, me: int | None = None, moved: bool = False) -> None:
        target, self.goto = self.goto, None
        if target is None:
            chooser = rule.next if rule is not None and rule.next is not None else step.next
            try:
                target = chooser(self, self.player if me is None or me < 0 else me)
            except _CONVERTED as exc:
                raise _runtime_error(self, step, exc) from exc
        elif target.__class__ is tuple:
            target = self._called(target, step, rule, me)
        self._go(target, moved)

    def _called(self, asked: tuple, step, rule: MoveRule | None, me: int | None) -> str:
        """Where play goes once the effects of `rule` at `step` (its own effects if None) asked for draws by
        chance(): `asked` is what Position.goto became. The first draw's step, the state keeping in `calls` the
        draws after it and where play resumes; with no draw left, where play resumes."""
        then, draws = asked[0], asked[1:]
        if self.calls:  # the outcome of a called draw: the draws it asked for come before those still waiting
            resume, waiting = self.calls[0], self.calls[2:]
            if then is not None:
                resume = (then,) + resume[1:]
        else:
            resume, waiting = (then, step.name, rule is not None and rule.is_pass, me), ()
        draws += waiting
        if len(draws) > MAX_CALLS:
            raise _flow_error(self, step, f"more than {MAX_CALLS:,} draws asked for by chance() are waiting",
                              "ask for fewer draws at a time: one draw can take many items at once ('draw:')")
        if draws:
            self.calls = (resume,) + draws
            return draws[0][0]
        self.calls = ()
        return self._resume(resume)

    def _resume(self, resume: tuple) -> str:
        """Where play goes after the draws a caller asked for: the step it asked for, else its `next` (worked out
        now, so that it sees what was drawn)."""
        then, name, is_pass, me = resume
        if then is not None:
            return then
        step = self.rules.steps[name]
        rule = step.pass_rule if is_pass else None
        chooser = rule.next if rule is not None and rule.next is not None else step.next
        try:
            return chooser(self, self.player if me is None or me < 0 else me)
        except _CONVERTED as exc:
            raise _runtime_error(self, step, exc) from exc

    def _go(self, target: str, moved: bool = False) -> None:
        """Play on from step `target` through automatic steps to where play waits (a decision, chance or simultaneous
        step), passing the turn at end_turn. The end rules are asked when a turn ends, before it passes, and where
        play waits within the turn of a seat's move that brought it here (`moved`); never after each automatic step,
        a chance outcome's own consequences or the turn passing."""
        rules = self.rules
        steps = rules.steps
        if self.player.__class__ is not int or not 0 <= self.player < rules.num_players:
            self._check_player("player")
        passes = 0  # turns passed in a row by seats with no legal move (no_moves: passes)
        for _ in range(MAX_AUTO_STEPS):
            if target == END_TURN:
                # a game that ends with this turn ends before the turn passes: the player who made its last
                # move is still `player`, and the turn count is that of the turn played
                if self.ply and self._check_end():
                    return
                moved = False  # once the turn has passed, the end is asked at its end only
                if rules.next_player is None:
                    self.player = (self.player + 1) % rules.num_players
                else:
                    try:
                        self.player = rules.next_player(self, self.player)
                    except _CONVERTED as exc:
                        raise _runtime_error(self, "next_player", exc) from exc
                    self._check_player("next_player")
                if self.left:
                    self._pass_over_left()
                self.turn += 1
                target = rules.turn_start
                cap = self.game.max_turns
                if cap is not None and self.turn >= cap:  # (a game that ends on the last allowed turn ended above)
                    self.step = target
                    self.terminal, self.capped, self.winners = True, True, []
                    return
            self.step = target
            step = steps[target]
            kind = step.kind
            if kind == "auto":
                self.goto = None
                try:  # (not `with _rule_errors`: a try costs nothing until something fails)
                    step.effects(self, self.player)
                    target, self.goto = self.goto, None
                    if target is None:
                        target = step.next(self, self.player)
                    elif target.__class__ is tuple:
                        target = self._called(target, step, None, None)
                except _CONVERTED as exc:
                    raise _runtime_error(self, step, exc) from exc
                continue
            if kind == "chance" and step.arrangement is not None and step.arrangement.fixed is not None:
                with _rule_errors(self, step):
                    fixed = step.arrangement.fixed(self, CHANCE)
                if fixed:
                    try:
                        move = self.parse_move(str(fixed))
                    except MoveError as exc:
                        raise IllegalMove(str(fixed), f"the fixed outcome of step '{target}' (from "
                                          f"{step.arrangement.fixed_text}) is not valid: {exc.reason}",
                                          exc.hint) from None
                    rule, args, _ = move
                    with _rule_errors(self, step):
                        rule.apply(self, CHANCE, *args)
                        target, self.goto = self.goto, None
                        if target is None:
                            target = step.next(self, self.player)
                        elif target.__class__ is tuple:
                            target = self._called(target, step, None, None)
                    continue
            # play waits here
            # (once play has begun; and not while draws a move asked for by chance() wait: they are the move's)
            if moved and not self.calls and self.ply and self._check_end():
                return
            if rules.no_moves is not None and kind != "chance" and self._no_moves(step, passes + 1):
                if self.terminal:
                    return
                passes += 1
                target = END_TURN
                continue
            return
        raise _flow_error(self, steps.get(target, target), "the flow went round automatic steps without reaching a decision",
                          "each round of automatic steps must reach a decision, chance or simultaneous step")

    def _no_moves(self, step, passes: int) -> bool:
        """Apply the file's no_moves rule where a seat to choose at `step` has no legal move (at a simultaneous step:
        any of its actors, all of those together), the step declaring no pass of its own: the game ends (then True),
        or, with `passes`, the turn passes (True; drawn once `passes` turns passed so in a row, one per seat still in
        the game). False: every seat to choose has a move."""
        if step.pass_rule is not None:
            return False
        seats = [self._decider(step)] if step.kind == "decision" else self.acting_players()
        stuck = [p for p in seats if not self._listed(step, p)]
        if not stuck:
            return False
        number = self.rules.no_moves
        word = self.rules.end_rules[number].no_moves
        if word == "passes" and passes < self.rules.num_players - len(self.left):
            return True
        playing = [p for p in range(self.rules.num_players) if p not in self.left]
        winners = [p for p in playing if p not in stuck] if word == "loses" else stuck if word == "wins" else []
        self.terminal, self.winners, self.ended_by = True, sorted(winners), number
        return True

    def settle(self, over: bool) -> None:
        """Whether a position read from a file is over: the rules say so, not the file. The end rules are asked
        where play stops after a seat's move in its turn (the last entry of the history is the last move, made by
        `player`, nobody's choice pending), in a position written without its history (nothing tells where in a
        turn it stands), or where the file says the game is over (`over`), which is then so only if an end rule
        holds, or a seat to choose has no legal move under the no_moves rule."""
        if not self.ply:
            return
        last, history = self.last, self.history
        if over or not history or (last is not None and last[2] == self.player and not self.pending
                                   and history[-1] == str(last)):
            if self._check_end():
                return
        step = self.rules.steps.get(self.step)
        if over and step is not None and self.rules.no_moves is not None and step.kind != "chance":
            self._no_moves(step, self.rules.num_players)

    def _check_player(self, what: str) -> None:
        """A located error unless the player whose turn it is is a seat (rule code may set it to anything)."""
        player = self.player
        if isinstance(player, int) and not isinstance(player, bool) and 0 <= player < self.rules.num_players:
            self.player = int(player)  # a seat held in a cell-like int subclass is a seat
            return
        shown = text_of(player) if isinstance(player, (int, str)) else type(player).__name__
        raise _flow_error(self, what, f"the player whose turn it is became {shown[:40]}, which is no seat",
                          f"seats are 0 to {self.rules.num_players - 1}")

    def _pass_over_left(self) -> None:
        """The turn goes on round the table past the players who left the game."""
        n = self.rules.num_players
        if len(self.left) >= n:
            raise _flow_error(self, "next_player" if self.rules.next_player is not None else "flow",
                              "every player has left the game, so nobody can take the next turn",
                              "end the game before the last player leaves, e.g. an end rule with "
                              "when: \"size(active_players) <= 1\"")
        while self.player in self.left:
            self.player = (self.player + 1) % n

    def _check_end(self) -> bool:
        checked = self.end_checked
        for number, end in enumerate(self.rules.end_rules):
            if end.when is None:  # the no_moves rule: applied where a seat has no move (see _no_moves)
                continue
            try:
                if end.unchanged is not None:  # asked again only once something the condition reads is written
                    key = end.unchanged(self)
                    if checked[number] == key:
                        continue
                    if not end.when(self):
                        checked[number] = key
                        continue
                elif not end.when(self):
                    continue
                if end.winners is not None:
                    winners = rule_values.winners(end.winners(self), self.rules.num_players)
                else:
                    winners = self._by_score(end.ties)
            except _CONVERTED as exc:
                raise _runtime_error(self, end, exc) from exc
            _no_draws_waiting(self, end)
            self.terminal, self.winners, self.ended_by = True, sorted(set(winners)), number
            return True
        return False

    def _by_score(self, ties: str) -> list[int]:
        """The players with the highest score; among those, the highest tiebreak (asked only of them). Only the
        players still in the game are ranked, while any is."""
        rules = self.rules
        players = range(rules.num_players)
        if self.left and len(self.left) < rules.num_players:
            players = [p for p in players if p not in self.left]
        scores = {p: rules.score(self, p) if rules.score is not None else 0 for p in players}
        best = rule_values.best(list(scores.values()), "scores")
        winners = [p for p in players if scores[p] == best]
        if len(winners) > 1 and rules.tiebreak is not None:
            # a player without a tiebreak value ranks below those with one
            keys = {p: () if (t := rules.tiebreak(self, p)) is None else (t,) for p in winners}
            top = rule_values.best(list(keys.values()), "tiebreaks")
            winners = [p for p in winners if keys[p] == top]
        if len(winners) > 1 and ties == "draw":
            return []
        return winners

    # -- results -----------------------------------------------------------------------------
    def returns(self) -> list[float]:
        """+1 for each winner and -1 for the others; 0 for everybody before the end. A game without winners is
        a draw, 0, for the players still in it and a loss, -1, for those who left; with one player, it is a
        loss unless the rules call it a draw (an end rule's `winners: draw`, or the turn cap). A file's
        `scoring: returns` gives them instead, evaluated once the game has ended, and held to its `utility:`
        (engine/results.py)."""
        n = self.rules.num_players
        if not self.terminal:
            return [0.0] * n
        if self.returned is None:
            self.returned = results.check(self.rules, self._returns(), self.turn)
        return list(self.returned)

    def _returns(self) -> list[float]:
        """The returns of the ended game: the file's `scoring: returns` for each seat, else by its winners."""
        n = self.rules.num_players
        if self.rules.returns is not None:
            with _rule_errors(self, "returns"):
                values = [self.rules.returns(self, p) for p in range(n)]
            try:
                return [results.result(v) for v in values]
            except RuleValueError as exc:
                raise _flow_error(self, "returns", str(exc), results.RETURNS_HINT) from None
        if self.winners:
            return [1.0 if p in self.winners else -1.0 for p in range(n)]
        if n == 1 and not self.capped and (self.ended_by is None or not self.rules.end_rules[self.ended_by].draw):
            return [-1.0]
        return [-1.0 if p in self.left else 0.0 for p in range(n)]

    def scores(self) -> list:
        """Each player's score as the rule file defines it (None when it defines none)."""
        if self.rules.score is None:
            return [None] * self.rules.num_players
        with _rule_errors(self, "score"):
            return [self.rules.score(self, p) for p in range(self.rules.num_players)]

    def evaluations(self) -> list:
        """How good the position is for each player, by the rule file's evaluation (else its score; else 0)."""
        fn = self.rules.evaluation or self.rules.score
        if fn is None:
            return [0] * self.rules.num_players
        with _rule_errors(self, "evaluation" if self.rules.evaluation is not None else "score"):
            return [fn(self, p) for p in range(self.rules.num_players)]

    def breakdowns(self) -> list:
        """Each player's score breakdown (a table of named numbers), or None when the rules define none."""
        if self.rules.breakdown is None:
            return [None] * self.rules.num_players
        with _rule_errors(self, "breakdown"):
            return [rule_values.table(self.rules.breakdown(self, p)) for p in range(self.rules.num_players)]

    # -- notation ----------------------------------------------------------------------------
    def parse_move(self, text: str, player: int | None = None) -> Move:
        """The legal move (or chance outcome) written `text`; raises MoveError saying why not."""
        return parse_move(self, text, player)

    def history_texts(self) -> list[str]:
        """Every move and outcome so far in notation (each printed once, then kept)."""
        texts = self._texts
        for move in self.history[len(texts):]:
            texts.append(str(move))
        return texts

    # -- serialisation -----------------------------------------------------------------------
    def to_json(self) -> dict:
        """The state as JSON-ready data (Game.state_from_json reads it back)."""
        return state_to_json(self)

    def observation(self, player: int) -> dict:
        """What `player` may see of this state (hidden zones and others' pending choices left out)."""
        return observation(self, player)

    def sight(self, holder, viewer: int, owner, key) -> bool:
        """Whether seat `viewer` sees the place of `owner` (a seat or None) and `key` (a key or None) of `holder`, a
        zone or variable whose `visible:` is an expression (see engine/observer.py, its one reader)."""
        rule = _Visible(holder)
        with _rule_errors(self, rule):
            seen = holder.sight(self, None, viewer, owner, key)
        if seen is True or seen is False:
            return seen
        raise _flow_error(self, rule, f"visible: gave {text_of(seen)[:40]}, not true or false",
                          "visible: is a condition, e.g. \"viewer != owner\" or \"viewer in told\"")

    def stopped(self, exc) -> GameRuntimeError:
        """The error for a budget overrun (`exc`) that arrived between two calls of rule code: it names the step
        and the turn the game is at."""
        return _runtime_error(self, self.rules.steps.get(self.step, "flow"), exc)

    def __repr__(self) -> str:
        who = "over" if self.terminal else f"step {self.step}, {self.rules.player_names[self.player]} to play"
        return f"<{self.rules.name} state: turn {self.turn}, {who}>"


# What a rule can fail with while it runs (see _rule_fault for when it is the rule's failure, not ours).
_CONVERTED = (RuleValueError, ArithmeticError, LookupError, TypeError, AttributeError, ValueError, RecursionError,
              budget.TimeBudgetExceeded)
# Failures that are the rule file's wherever they are raised: a built-in refusing a value the rule handed it, a
# value too large, a budget overrun (raised wherever the code happens to be), functions of the file that recurse.
_ALWAYS_THE_RULES = (RuleValueError, LimitExceeded, budget.TimeBudgetExceeded, RecursionError)
# The checked operators generated code is compiled to (G_add...), Position.tally (a count over a zone) and
# Position.located (a scan of the board): they stand in for Python's own operators and loops, so what fails in
# them fails in the rule's code, as it would in the code they replace.
_OPERATORS = frozenset([*(fn.__code__ for fn in GUARDS.values()), Position.tally.__code__,
                        Position.located.__code__])
# Every method of State that calls the rule file's code itself runs under a budget (its own, even when called
# from inside another: the innermost that overruns is blamed). Moves are printed under one too (MoveRule.format),
# and so are typed moves read (notation.py), saved states read (serialize.py) and features (tensor.py).
for _fn, _what in ((State.apply, "applying a move"), (State.legal_moves, "listing the legal moves"),
                   (State.chance_outcomes, "listing the chance outcomes"),
                   (State.sample_chance, "drawing a chance outcome"), (State.initial, "setting up the game"),
                   (State._decider, "working out who decides"), (State.acting_players, "working out who chooses"),
                   (State.draw_pool, "listing what a draw draws from"), (State.scores, "scoring"),
                   (State.evaluations, "evaluating the position"), (State.breakdowns, "scoring"),
                   (State._returns, "working out the returns")):
    budget.guard(_fn, MOVE_SECONDS, _what)


budget.guard(State.sight, MOVE_SECONDS, "working out who sees a place")


class _Visible:
    """What a failure of a zone's or variable's `visible:` expression names, and where it is written."""

    __slots__ = ("name", "path")

    def __init__(self, holder):
        self.name = f"visible of {holder.name}"
        self.path = ("zones" if holder.zone else "vars", holder.name, "visible")


# Where the named parts of a rule file that are not moves, steps or end rules are written.
_PARTS = {"next_player": ("flow", "next_player"), "first_player": ("flow", "first_player"),
          "score": ("scoring", "score"), "returns": ("scoring", "returns"), "evaluation": ("scoring", "evaluation"),
          "breakdown": ("scoring", "breakdown"),
          "flow": ("flow",)}
_RULE_FAILED = "the rule file lets play reach a position this rule does not handle"
_TOTAL_HINT = (f"the rules of one move share {MOVE_SECONDS:g} s and those of a whole game {GAME_SECONDS:g} s (times "
               "RULESDSL_TIME_SCALE): make the rules cheaper, or end games sooner (flow: max_turns)")


def _state_again(game, data: dict, seed: int, rng) -> State:
    """A pickled State again (State.__reduce__)."""
    state = game.state_from_json(data)
    state.seed, state._rng = seed, rng
    return state


def _seats(players, count: int) -> list:
    """`players` (a seat or a list of seats), checked: the actors of a simultaneous step."""
    try:
        seats = [players] if isinstance(players, int) and not isinstance(players, bool) else list(players)
    except TypeError:  # rule code gave neither a seat nor a list
        raise RuleValueError(f"the players to choose should be a seat or a list of seats, not "
                             f"{text_of(players)[:40]}") from None
    for p in seats:
        if not isinstance(p, int) or isinstance(p, bool) or not 0 <= p < count:
            raise RuleValueError(f"the players to choose should be seats from 0 to {count - 1}, not "
                                 f"{text_of(p)[:40]}")
    if not seats:  # nobody would ever choose: play could not go on
        raise RuleValueError("the players to choose at this simultaneous step are none")
    return seats


_SEQUENCES = (list, tuple)  # what a capacity counts the items of


def _flow_error(state, what, message: str, hint: str | None = None, at: tuple | None = None,
                turn: int | None = None) -> GameRuntimeError:
    """A GameRuntimeError about `what` (a move rule, step or end rule, or the name of another part of the
    rule file), located at its definition, or at `at` (the path of the statement of it that failed), on `turn`
    (default: the state's)."""
    if isinstance(what, str):
        name, path = what, _PARTS.get(what)
    else:
        name, path = getattr(what, "name", "end"), what.path
    path = at or path
    where = state.rules.where
    location = where(path) if where is not None and path is not None else None
    return GameRuntimeError(name, state.turn if turn is None else turn, message, location, hint)


def _no_draws_waiting(state, end) -> None:
    """A located error at the end rule `end` if the game would end while draws asked for by chance() wait: they
    would never be drawn (what their outcomes do would silently not happen)."""
    if state.calls:
        waiting = state.calls[1:]
        raise _flow_error(state, end, draws_waiting_message(waiting[0][0], len(waiting)), DRAWS_WAITING_HINT)


def draws_waiting_message(step: str, count) -> str:
    """What the error says of a game ended while draws wait (`count`: how many, or a format field)."""
    return (f"the game ended while draws asked for by chance() were waiting, the next at step '{step}' ({count} "
            "waiting): they would never be drawn")


DRAWS_WAITING_HINT = ("end the game after the draws: make the change that ends it in the called step's do, or in "
                      "the step play goes to once the draws are made (the end is tested at every step reached)")


def _rule_fault(exc: BaseException) -> bool:
    """Whether `exc` is the rule file's own failure rather than a bug in rulesdsl: one of _ALWAYS_THE_RULES, or
    an exception raised in code generated from the rule file itself (directly, or in an operator it uses), not
    inside an engine helper or built-in it called (those refuse a wrong value with RuleValueError)."""
    if isinstance(exc, _ALWAYS_THE_RULES):
        return True
    innermost, tb = None, exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code not in _OPERATORS:
            innermost = tb.tb_frame.f_code
        tb = tb.tb_next
    return innermost is not None and innermost.co_filename.startswith(RULE_CODE_FILE)


def _runtime_error(state, what, exc) -> GameRuntimeError:
    """The error that blames `what` for `exc`, a failure of the rule file's code; an exception that is not the
    rule file's (see _rule_fault) is raised again as it is: an internal error, reported as a bug in rulesdsl."""
    if not _rule_fault(exc):
        raise exc
    if isinstance(exc, budget.TotalBudgetExceeded):
        return _flow_error(state, what, str(exc), _TOTAL_HINT)
    if isinstance(exc, budget.MemoryBudgetExceeded):
        return _flow_error(state, what, str(exc), "this rule builds values too large: build smaller lists and "
                           "tables, or keep counts rather than lists")
    if isinstance(exc, budget.TimeBudgetExceeded):
        return _flow_error(state, what, str(exc), "a loop in this rule runs too long: loop over fewer items, or "
                           "keep what a loop works out in a variable")
    message = str(exc) if isinstance(exc, (RuleValueError, LimitExceeded)) else f"{type(exc).__name__}: {exc}"
    return _flow_error(state, what, message, _RULE_FAILED, _failed_statement(state.rules, exc))


def _failed_statement(rules, exc) -> tuple | None:
    """Where the rule file writes the innermost effect statement that was running when `exc` was raised (the
    statement itself, or the one that called the function or procedure that failed), or None."""
    frames, tb = [], exc.__traceback__
    while tb is not None:
        frames.append((tb.tb_frame.f_code, tb.tb_lineno))
        tb = tb.tb_next
    for code, line in reversed(frames):
        places = rules.statements.get(code)
        if places is not None and line in places:
            return places[line]
    return None


class _rule_errors:
    """Turn a failure inside generated rule code into a GameRuntimeError naming the rule and turn."""

    __slots__ = ("state", "rule")

    def __init__(self, state, rule):
        self.state, self.rule = state, rule

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc is None or isinstance(exc, (GameRuntimeError, MoveError)):
            return False
        if isinstance(exc, _CONVERTED) and _rule_fault(exc):
            raise _runtime_error(self.state, self.rule, exc) from exc
        return False  # anything else goes on as it is (an internal error when it is not the rule file's)


__all__ = ["State", "CHANCE", "SIMULTANEOUS", "TERMINAL", "Cell", "Piece", "text_of"]
