"""A game's state as flat typed arrays, derived from its IR: the form a compiled backend holds a state in.

Every part of a state is a slot: the board (a piece id per cell), each zone (per place, a bounded list of piece
ids and its length), each variable (per place, arrays by its type: see forms.py), and the engine's own fields
(whose turn, the step, counters, the winners, the random stream's key and counter, the last move, draws
waiting). Pieces are numbered in a table of every piece value the kinds allow (kind, then each attribute's value
by its place in the declared values). The history is a log beside them, one row per move. A slot whose type
no fixed arrays can hold says why (`fits` False, `why`, `decl` where the rule file declares what does not
fit), and is held as Python values instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..lang import types as T
from ..limits import MAX_CALLS, MAX_PARTS
from . import nodes as N
from .forms import MAX_VALUES, Atom, Choice, Fixed, Form, Forms, Leaf, Unfit, count_dtype, int_dtype

END_TURN = "end_turn"  # (model/rules.py's: where play goes at the end of a turn)


@dataclass(frozen=True)
class Kind:
    """A kind of piece in the table of piece values: ids `first` to `first + size - 1`, in the order of its
    attributes' values (mixed radix, the last attribute changing fastest)."""

    name: str
    attributes: tuple  # ((attribute, its values), ...) in declared order
    first: int

    @property
    def size(self) -> int:
        n = 1
        for _, values in self.attributes:
            n *= len(values)
        return n


@dataclass(frozen=True)
class MoveKind:
    """A rule moves are made by, as moves are numbered in the layout: `label` (a move's name, or STEP.outcome,
    STEP.pass, STEP.draw, STEP.arrangement), the rule's path in the rule file, its arguments' names in order
    (a chance step's or a part's inputs, then params and lets), and whether players make it (not chance)."""

    label: str
    path: tuple
    args: tuple
    player: bool


@dataclass
class Slot:
    """One part of the state. `kind`: board, zone, var, engine or log (the history: not read by rules).
    `form` says how its value is held (None where it does not fit: `why`, and `decl`, the path in the rule
    file of what does not fit); `places` names its rows (seats, keys), or is None for one value."""

    name: str
    kind: str
    form: Form | None
    why: str = ""
    decl: tuple | None = None
    places: tuple | None = None
    construct: bool = False  # (see forms.Unfit)

    @property
    def fits(self) -> bool:
        return self.form is not None

    @property
    def shape(self) -> tuple:
        return () if self.places is None else (len(self.places),)

    def leaves(self) -> list:
        """The arrays the slot is held in: one of Python values (dtype object) where it does not fit."""
        if self.form is None:
            return [Leaf(self.name, "object", (None,) if self.kind == "log" else self.shape)]
        return self.form.leaves()


POSITION_KINDS = ("board", "zone", "var")  # the kinds of slot a position is made of (see Layout.position_slots)


@dataclass
class Layout:
    """How a state of one compiled game (a rule file with its variant and options) is held as arrays."""

    name: str
    seats: int
    cells: tuple  # cell names, by index
    kinds: tuple  # Kinds, by id
    pieces: int  # ids in the table of piece values, 0 (no piece) included
    piece_dtype: str
    steps: tuple  # step names, in file order
    moves: tuple  # MoveKinds
    zone_places: tuple  # (zone, seat or key or None) of every zone's place, in order: what `revealed` marks
    slots: dict = field(default_factory=dict)  # name -> Slot, in state order
    pieces_unfit: str | None = None  # why pieces cannot be numbered (an attribute without declared values)

    def unfit(self) -> list:
        """The slots held as Python values, with why (what `compile --check` reports)."""
        return [s for s in self.slots.values() if not s.fits]

    def leaves(self) -> list:
        return [leaf for slot in self.slots.values() for leaf in slot.leaves()]

    def position_slots(self) -> list:
        """The slots of the position proper (the board, the zones, the variables): what repeated() compares."""
        return [slot for slot in self.slots.values() if slot.kind in POSITION_KINDS]

    def position_in_words(self) -> bool:
        """Whether the position's slots are held as whole numbers of fixed shapes: then its words, in layout order,
        are the same in every backend that holds the layout (engine/repetition.py keys positions by them)."""
        found = self.__dict__.get("_in_words")  # (asked at every move of a game that counts positions)
        if found is None:
            found = self.__dict__["_in_words"] = all(
                slot.fits and all(leaf.dtype not in ("object", "float64") and None not in leaf.shape
                                  for leaf in slot.leaves()) for slot in self.position_slots())
        return found

    def position_keys(self) -> str:
        """How the positions of this layout's game are keyed (engine/repetition.py): `words` where it holds them in
        words, else `text` (their saved form)."""
        return "words" if self.position_in_words() else "text"

    def describe(self) -> str:
        """One line per array: name, dtype and shape; a slot that does not fit says why."""
        pieces = f"pieces not numbered: {self.pieces_unfit}" if self.pieces_unfit else \
            f"{self.pieces - 1} piece values ({self.piece_dtype})"
        lines = [f"{self.name}: {pieces}, {len(self.cells)} cells"]
        for slot in self.slots.values():
            if not slot.fits:
                lines.append(f"  {slot.name}: held as Python values: {slot.why}")
                continue
            for leaf in slot.leaves():
                shape = ", ".join("n" if d is None else str(d) for d in leaf.shape)
                lines.append(f"  {leaf.name}: {leaf.dtype}[{shape}]")
        return "\n".join(lines)


def layout_of(ir, rules, start) -> Layout:
    """The layout of the game `rules` (model/game.py Rules) compiled to `ir`; `start` is its initial position,
    whose pieces bound the zones where no rule makes new ones."""
    return _Builder(ir, rules, start).layout()


class _Builder:
    def __init__(self, ir, rules, start):
        self.ir, self.rules, self.start = ir, rules, start
        self.seats = rules.num_players
        self.kinds, self.pieces, self.unnumbered = _piece_table(rules.kinds)
        piece_dtype = "uint8" if self.pieces <= 1 << 8 else "uint16" if self.pieces <= 1 << 16 else "int32"
        self.forms = Forms(self.seats, len(rules.board.cells), piece_dtype,
                           self.unnumbered.reason if self.unnumbered else None)
        self.plans = _plans(ir)
        self.inputs = _input_types(ir, rules)
        self.moves = _move_kinds(rules)

    def layout(self) -> Layout:
        rules = self.rules
        places = tuple((h.name, owner) for h, value in zip(rules.zones, self.start.zones)
                       for owner, _ in h.places(value))
        layout = Layout(rules.name, self.seats, tuple(c.name for c in rules.board.cells), self.kinds, self.pieces,
                        self.forms.piece_dtype, tuple(rules.steps), tuple(self.moves), places,
                        pieces_unfit=self.unnumbered.reason if self.unnumbered else None)
        add = lambda slot: layout.slots.__setitem__(slot.name, slot)  # noqa: E731 - in state order
        cells = len(rules.board.cells)
        add(self._slot("cells", "board", ("board",), lambda: self._pieces("cells", (cells,))))
        capacity, why, where = self._zone_capacity()
        for holder in rules.zones:
            name, rows = f"zone.{holder.name}", self._places(holder)
            shape = () if rows is None else (len(rows),)
            room = holder.capacity if holder.capacity is not None else capacity  # declared, else worked out
            make = (lambda n=name, s=shape, c=room: self.forms.many(None, c, n, s, "list", form=self._pieces)) \
                if room is not None else _refuse(why + " (declare the zone's capacity:)")
            add(self._slot(name, "zone", ("zones", holder.name) if holder.capacity is not None else
                           where or ("zones", holder.name), make, rows))
        types = {h.name: h.type for h in self.ir.holders if h.kind == "var"}
        for holder in rules.vars:
            name, rows = f"var.{holder.name}", self._places(holder)
            place = place_type(types.get(holder.name, T.ANY), holder)
            shape = () if rows is None else (len(rows),)
            add(self._slot(name, "var", ("vars", holder.name), lambda n=name, s=shape, t=place: self.forms.of(t, n, s),
                           rows))
        for slot in self._engine(places):
            add(slot)
        return layout

    # -- slots ------------------------------------------------------------------------------------------------
    def _slot(self, name, kind, decl, make, places=None) -> Slot:
        try:
            return Slot(name, kind, make(), decl=decl, places=places)
        except Unfit as exc:
            return Slot(name, kind, None, exc.reason, exc.decl or decl, places, exc.construct)

    def _pieces(self, name: str, shape: tuple) -> Atom:
        if self.unnumbered:
            raise Unfit(self.unnumbered.reason, self.unnumbered.decl)
        return Atom("piece", Leaf(name, self.forms.piece_dtype, shape))

    def _places(self, holder) -> tuple | None:
        if holder.per == "player":
            return tuple(range(self.seats))
        if holder.keys is not None:
            return tuple(holder.keys)
        return None

    def _zone_capacity(self) -> tuple:
        """(how many pieces a zone's place may hold, or None; why not; where the rule file says so). Pieces are
        made only by place(): without one, no position holds more pieces than the first."""
        for node in self.ir.nodes():
            if isinstance(node, N.Call) and node.func == "place" and node.target == "builtin":
                return None, ("place() may put new pieces into a zone, so no bound on what a zone holds is "
                              "known"), node.at[0]
        held = sum(piece is not None for piece in self.start.cells)
        for holder, value in zip(self.rules.zones, self.start.zones):
            held += sum(len(place) for _, place in holder.places(value))
        return held, "", None

    def _engine(self, places: tuple) -> list:
        rules, seats, forms = self.rules, self.seats, self.forms
        steps = tuple(rules.steps)
        seat = T.int_(0, seats - 1)
        ends = len(rules.end_rules)
        found = [
            Slot("player", "engine", forms.of(T.SEAT, "player")),
            Slot("turn", "engine", Atom("int", Leaf("turn", "int64", ()))),
            Slot("ply", "engine", Atom("int", Leaf("ply", "int64", ()))),
            Slot("step", "engine", Atom("text", Leaf("step", int_dtype(0, len(steps)), ()), steps)),
            Slot("terminal", "engine", forms.of(T.BOOL_T, "terminal")),
            Slot("capped", "engine", forms.of(T.BOOL_T, "capped")),
            Slot("winners", "engine", forms.of(T.optional(T.list_(T.SEAT, seats)), "winners")),
            Slot("ended_by", "engine", forms.of(T.optional(T.int_(0, max(ends - 1, 0))), "ended_by")),
            Slot("left", "engine", forms.of(T.seq(seat, seats), "left")),
            Slot("revealed", "engine", Atom("bool", Leaf("revealed", "bool", (len(places),)))),
            Slot("rng", "engine", Atom("int", Leaf("rng", "uint64", (2,)))),
            Slot("pending", "engine", Atom("int", Leaf("pending", count_dtype(seats), ()))),
        ]
        players = [m for m in self.moves if m.player]
        found.append(self._slot("last", "engine", None, lambda: self._move_form(players, "last", ())))
        # the history's entry that is the last move itself (-1: none is): views find the last move's entry by
        # identity, to tell whether it was secret
        found.append(Slot("last_row", "engine", Atom("int", Leaf("last_row", "int64", ()))))
        found.append(self._slot("calls", "engine", None, self._calls))
        found.append(self._slot("history", "log", None, lambda: self._move_form(self.moves, "history", (None,))))
        found.append(Slot("secret", "log", Fixed((Atom("bool", Leaf("secret", "bool", (None,))),
                                                   Atom("bool", Leaf("secret.seen", "bool", (None, seats)))))))
        # the history's first entries where they were read from a saved state: their notation
        found.append(Slot("imported", "log", Atom("notation", Leaf("imported", "object", (None,)))))
        if self.rules.counts_positions:  # the key of each position a move left (engine/repetition.py)
            found.append(Slot("positions", "log", Atom("int", Leaf("positions", "uint64", (None,)))))
        return found

    def _move_form(self, kinds: list, name: str, shape: tuple) -> Choice:
        """Moves made by any of `kinds`: the rule, the player (-1: chance), and each rule's arguments."""
        members = []
        for kind in kinds:
            items = []
            for arg, t, decl in self._arg_types(kind):
                try:
                    items.append(self.forms.of(t, f"{name}.{kind.label}.{arg}", shape))
                except Unfit as exc:
                    if exc.construct:
                        raise
                    raise Unfit(f"{_what(kind)}, its {arg}: {exc.reason}", decl) from None
            members.append(Fixed(tuple(items)))
        return Choice(Leaf(f"{name}.rule", int_dtype(-1, len(kinds)), shape), tuple(k.label for k in kinds),
                      tuple(members), Leaf(f"{name}.player", int_dtype(-1, self.seats), shape))

    def _calls(self) -> Fixed:
        """Where play resumes once the draws chance() asked for are made, and the draws still waiting: per draw its
        step and that step's inputs (none wait in a game that never calls chance())."""
        rules, forms = self.rules, self.forms
        called = [s for s in rules.steps if s in rules.called]

        def draw(name: str, shape: tuple) -> Choice:
            members = []
            for step in called:
                items = []
                for i, t in enumerate(self.inputs.get(("flow", "steps", step, "chance"), ())):
                    try:
                        items.append(forms.of(t, f"{name}.{step}.{i}", shape))
                    except Unfit as exc:
                        raise Unfit(f"chance step '{step}', its input {rules.steps[step].inputs[i]}: {exc.reason}",
                                    ("flow", "steps", step, "inputs", i)) from None
                members.append(Fixed(tuple(items)))
            return Choice(Leaf(f"{name}.step", int_dtype(-1, len(called)), shape), tuple(called), tuple(members))

        targets = T.optional(T.enum(*rules.steps, END_TURN))
        return Fixed((forms.of(targets, "calls.then"), forms.of(T.enum(*rules.steps), "calls.step"),
                      forms.of(T.BOOL_T, "calls.pass"), forms.of(T.optional(T.int_(-1, self.seats - 1)), "calls.me"),
                      forms.many(None, MAX_CALLS if called else 0, "calls.draws", (), "tuple", form=draw)))

    def _arg_types(self, kind: MoveKind) -> list:
        """(name, type, where it is declared) of each argument of moves of `kind`, in order."""
        rule = self._rule(kind)
        plan = self.plans.get(kind.path)
        typed = {}
        if plan is not None:
            typed.update({p.name: (p.type, p.decl) for p in plan.params})
            typed.update({l.name: (l.value.type if l.value is not None else T.ANY, l.decl) for l in plan.lets})
        inputs = self.inputs.get(kind.path, ())
        found = [(name, inputs[i] if i < len(inputs) else T.ANY, kind.path + ("inputs", i))
                 for i, name in enumerate(rule.inputs)]
        for name in rule.arg_names:
            if name == "parts" and getattr(rule, "repeat", None) is not None:
                found.append((name, self._repeated_type(rule), kind.path + ("repeat",)))
            elif name == "parts" and rule.part_specs:
                found.append((name, self._parts_type(rule), kind.path + ("parts",)))
            elif name == "outcome" and kind.label.endswith((".draw", ".arrangement")):
                found.append((name, self._outcome_type(kind), kind.path))
            else:
                found.append((name, *typed.get(name, (T.ANY, kind.path))))
        return found

    def _parts_type(self, rule) -> T.Type:
        """A compound move's parts: per part, (its inputs, its params and lets)."""
        parts = []
        for k, (part, _, _) in enumerate(rule.parts):
            inputs = [_joined(self.ir.exprs.get(rule.path + ("parts", k, "inputs", name), ())) for name in part.inputs]
            kind = next(m for m in self.moves if m.path == part.path)
            args = [t for name, t, _ in self._arg_types(kind) if name not in part.inputs]
            parts.append(T.tuple_(T.tuple_(*inputs), T.tuple_(*args)))
        return T.tuple_(*parts)

    def _repeated_type(self, rule) -> T.Type:
        """A move of one part repeated (repeat:): a tuple of at most repeat_bound() parts, each (its inputs, its
        params and lets)."""
        part = rule.repeat.part
        inputs = [_joined(self.ir.exprs.get(rule.path + ("repeat", "inputs", name), ())) for name in part.inputs]
        kind = next(m for m in self.moves if m.path == part.path)
        args = [t for name, t, _ in self._arg_types(kind) if name not in part.inputs]
        return T.seq(T.tuple_(T.tuple_(*inputs), T.tuple_(*args)), repeat_bound(self.ir, rule))

    def _outcome_type(self, kind: MoveKind) -> T.Type:
        """What a draw or an arrangement draws: a tuple of the items drawn from, as many as are drawn."""
        step = self.rules.steps[kind.path[2]]
        chance = self.ir.steps[step.name].chance
        exprs = chance.exprs if chance is not None else {}
        inputs = dict(zip(step.inputs, self.inputs.get(kind.path, ())))
        typed = lambda node: T.ANY if node is None else (  # noqa: E731 - an input read: the values calls give it
            inputs.get(node.name, T.ANY) if isinstance(node, N.Ref) and node.kind == "input" else node.type)
        if step.draw is not None:
            items, count = typed(exprs.get("from")), typed(exprs.get("draw"))
            bound = count.high if count.name == "int" else None
            if bound is None and not step.draw.replace:
                bound = items.high
                if step.draw.refill is not None:  # the pile and its refill's pieces together
                    spare = typed(exprs.get("refill"))
                    bound = None if None in (bound, spare.high) else bound + spare.high
            return T.seq(T.item_type(items), bound)
        items = typed(exprs.get("arrangement"))
        return T.seq(T.item_type(items), items.high)

    def _rule(self, kind: MoveKind):
        """The compiled rule of a MoveKind (for its inputs and argument names)."""
        rules = self.rules
        if kind.path[0] == "moves":
            return rules.moves[kind.path[1]]
        step = rules.steps[kind.path[2]]
        if kind.label.endswith(".pass"):
            return step.pass_rule
        if kind.label.endswith(".draw"):
            return step.draw.rule
        if kind.label.endswith(".arrangement"):
            return _Arranged()
        return next(r for r in step.moves if r.path == kind.path)


class _Arranged:
    """What an arrangement's rule takes (the engine makes the rule itself: engine/game.py)."""

    arg_names, part_specs, inputs = ["outcome"], [], []


def _refuse(why: str):
    def make():
        raise Unfit(why)
    return make


def _what(kind: MoveKind) -> str:
    if kind.path[0] == "moves":
        return f"move '{kind.label}'"
    step, what = kind.label.rsplit(".", 1)
    return {"pass": f"the pass of step '{step}'"}.get(what, f"the {what} of chance step '{step}'")


def _piece_table(kinds: dict) -> tuple:
    """(Kinds, the number of ids with 0 for no piece, an Unfit saying why pieces cannot be numbered or None)."""
    found, first, unfit = [], 1, None
    for name, kind in kinds.items():
        attributes = []
        for attribute, spec in kind.attributes.items():
            values = spec.get("values")
            if values is None:
                unfit = unfit or Unfit(f"attribute '{attribute}' of piece '{name}' declares no list of values",
                                       ("pieces", name, "attributes", attribute))
                values = ()
            attributes.append((attribute, tuple(values)))
        found.append(Kind(name, tuple(attributes), first))
        first += found[-1].size
    if unfit is None and first > MAX_VALUES:
        unfit = Unfit(f"the pieces' attributes allow {first - 1:,} different pieces, more than {MAX_VALUES:,}",
                      ("pieces",))
    return tuple(found), first, unfit


def _plans(ir) -> dict:
    """Every move plan of the IR by its path: moves, passes, chance outcomes."""
    found = {plan.decl: plan for plan in ir.moves.values()}
    for step in ir.steps.values():
        if step.passing is not None:
            found[step.passing.decl] = step.passing
        if step.chance is not None and step.chance.outcomes is not None:
            found[step.chance.outcomes.decl] = step.chance.outcomes
    return found


def _move_kinds(rules) -> list:
    """Every rule a move can be made by, numbered: the file's moves, then per step its outcomes, pass, draw or
    arrangement."""
    found = [MoveKind(name, rule.path, tuple(rule.inputs) + tuple(rule.arg_names), True)
             for name, rule in rules.moves.items()]
    for name, step in rules.steps.items():
        path = ("flow", "steps", name, "chance")
        for rule in step.moves if step.kind == "chance" else ():
            found.append(MoveKind(f"{name}.outcome", rule.path, tuple(step.inputs) + tuple(rule.arg_names), False))
        if step.pass_rule is not None:
            found.append(MoveKind(f"{name}.pass", step.pass_rule.path, tuple(step.pass_rule.arg_names), True))
        if step.draw is not None:
            found.append(MoveKind(f"{name}.draw", step.draw.rule.path, (*step.inputs, "outcome"), False))
        if step.arrangement is not None:
            found.append(MoveKind(f"{name}.arrangement", path, ("outcome",), False))
    return found


def _input_types(ir, rules) -> dict:
    """The type of each input of the chance steps that chance() calls (joined over every call), and of the moves
    that parts of compound moves call with inputs: rule path -> [type per input]."""
    found: dict = {}
    calls = [n for n in ir.nodes() if isinstance(n, N.Call) and n.func == "chance" and n.target == "builtin"]
    for name, step in rules.steps.items():
        if not step.inputs:
            continue
        given = [c.args[1:] for c in calls if not isinstance(c.args[0], N.Const) or c.args[0].value == name]
        if any(not isinstance(c.args[0], N.Const) for c in calls) or not given:
            types = [T.ANY] * len(step.inputs)
        else:
            types = [_joined([args[i] for args in given if i < len(args)]) for i in range(len(step.inputs))]
        for path in {("flow", "steps", name, "chance"), *(r.path for r in step.moves if step.kind == "chance")}:
            found[path] = types
    for rule in rules.moves.values():
        for k, (part, _, _) in enumerate(rule.parts):
            at = rule.path + (("repeat",) if rule.repeat is not None else ("parts", k))  # a repeated part: one
            given = [_joined(ir.exprs.get(at + ("inputs", n), ())) for n in part.inputs]
            old = found.get(part.path)
            found[part.path] = given if old is None else [T.join(a, b) for a, b in zip(old, given)]
    return found


def repeat_bound(ir, rule) -> int:
    """The most parts a move of one part repeated (repeat:) has: its max:, else the most items its using: list
    holds, and never more than limits.MAX_PARTS."""
    most = rule.repeat.most if rule.repeat.most is not None else MAX_PARTS
    using = [t for path, found in ir.exprs.items() if path[:len(rule.path) + 2] == rule.path + ("repeat", "using")
             and len(path) == len(rule.path) + 3 for t in [_joined(found)]]
    if using and using[0].high is not None:
        most = min(most, using[0].high)
    return max(0, min(most, MAX_PARTS))


def _joined(nodes) -> T.Type:
    """The join of the types of `nodes` (ANY for none)."""
    nodes = list(nodes)
    if not nodes:
        return T.ANY
    found = nodes[0].type
    for node in nodes[1:]:
        found = T.join(found, node.type)
    return found


def place_type(t: T.Type, holder) -> T.Type:
    """The type of one place of a variable whose whole value has type `t`."""
    if holder.per == "player":
        return t.items[0] if t.name == "list" and t.items else T.ANY
    if holder.keys is not None:
        return t.items[1] if t.name == "table" and len(t.items) == 2 else T.ANY
    return t
