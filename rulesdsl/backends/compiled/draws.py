"""A chance step drawing several items at once (`draw:`, dice or cards) printed for compiled code, drawn as the
Python engine draws it (engine/draws.py DrawPool: the items tallied in the order they first appear, then `count`
uniform picks among them, each put back or not) and applied.

The outcome, the items drawn, is written to the playout's `drawn` buffer at `at`; its row holds its kind, `at`,
how many items it holds, then the inputs of the call that asked for it. A draw with no room left in the buffer
returns -1 before it reads the stream, and the playout hands back for a fresh buffer.
"""

from __future__ import annotations

from ...engine.nodes import CHANCE
from ...lang import types as T
from ...limits import MAX_DRAWN
from ...model.rules import Move
from .outcomes import seen_by
from .piece_ids import piece_of
from .refills import Refill
from .unsupported import Unsupported


class Draw:
    """The draw of one chance step (`name`) of `program`: its inputs, items, count, effects and who sees it."""

    def __init__(self, program, name):
        self.program, self.name = program, name
        step, p = program.ir.steps[name], program.p
        chance, self.decl = step.chance, step.decl
        model = program.rules.steps[name]
        self.rule = model.draw.rule
        self.replace = bool(model.draw.replace)
        self.kind = program.kind_index[f"{name}.draw"]
        self.inputs = list(model.inputs)
        if self.inputs and name not in program.calls.inputs:
            raise Unsupported(program.where(step.decl), "a draw whose inputs no chance() gives")
        self.columns = program.calls.inputs.get(name, [])
        env = {arg: (f"in{j}", "i") for j, arg in enumerate(self.inputs)}
        items = chance.exprs["from"]
        item = T.item_type(items.type)
        names = {m.name for m in item.items} if item.name == "union" else {item.name}
        self.pieces = names == {"piece"} and T.kinds(item) == {T.PIECE}  # pieces by their ids (refills.py)
        if T.kinds(item) <= {T.INT, T.BOOL} and "bool" not in names or self.pieces:  # (true and false would print
            self.texts = False  # otherwise)
        elif T.kinds(item) == {T.TEXT}:
            self.texts = True
        else:
            raise Unsupported(program.m.locate(items), "a draw of items that are not whole numbers or texts")
        self.items, rep = p.ex(items, env)
        if rep != "a":
            raise Unsupported(program.m.locate(items), "a draw from items that are not a list of single values")
        self.count = p.scalar(chance.exprs["draw"], env)
        self.refill = Refill(program, step, env) if model.draw.refill is not None else None
        inner = dict(env, outcome=("outcome", "a"))
        self.effects = [line for stmt in chance.effects for line in p.st(stmt, inner, "    ")]
        seen = chance.exprs.get("visible_to")
        self.seen = None if seen is None else seen_by(program, seen, inner)

    @property
    def width(self) -> int:
        """The length of the row of one of its outcomes."""
        return 3 + len(self.inputs)

    def source(self, index: int) -> str:
        program = self.program
        m, calls = program.m, program.calls
        ins = "".join(f", in{j}" for j in range(len(self.inputs)))
        read = [f"    in{j} = s[{column}]" for j, column in enumerate(self.columns)]
        if self.inputs:
            read = ["    if s[O_calls_draws_len] == 0:",
                    "        " + m.error("the step takes inputs, which only chance() gives", self.decl), *read]
        at = self.decl
        rows = "\n".join(f"    row[{3 + j}] = in{j}" for j in range(len(self.inputs))) or "    pass"
        seen = f"    SEEN_{index}(s, {CHANCE}{ins}, outcome)" if self.seen is not None else "    pass"
        refill = ""
        if self.refill is not None:  # the pile refilled: drawn there, and the outcome applied as below
            tail = DRAW[DRAW.index("    row[0] = {kind}"):].format(kind=self.kind, rows=rows, seen=seen, index=index,
                                                                      ins=ins)
            refill = self.refill.fields()["refill"].replace("MOST", str(MAX_DRAWN)).replace(
                "        return DONE(s, row, at, count, outcome{ins})", "\n".join("    " + t for t in tail.split("\n")))
        draw = DRAW.format(
            index=index, read="\n".join(read) or "    pass", items=self.items, count=self.count, most=MAX_DRAWN,
            replace=self.replace, kind=self.kind, ins=ins, rows=rows, seen=seen, refill=refill,
            bad_count=m.code(f"the number of items drawn should be a whole number from 0 to {MAX_DRAWN:,}, not {{0}}",
                             at),
            too_many=m.code("cannot draw {0} items from {1}", at), no_items=m.code("cannot draw from no items", at))
        parts = [draw]
        if self.seen is not None:
            parts.insert(0, f"@_jit\ndef SEEN_{index}(s, me{ins}, outcome):\n" + "\n".join(self.seen))
        apply = [f"@_jit\ndef RD_{index}(s, row, outcome{ins}):", "    st = s[O_step]", "    s[X_rule] = row[0] + 1",
                 "    s[X_turn] = s[O_turn]", "    s[O_ply] += 1", *program.positions.leave(), f"    me = {CHANCE}",
                 *(calls.prologue() if self.name in calls.called else []),
                 *(self.refill.before_effects(program.ir.steps[self.name].chance.exprs["refill"])
                   if self.refill is not None else []), *self.effects,
                 *program.then("s[O_player]", {self.name: None}, has_me="1", me_seat=str(CHANCE))]
        return "\n\n\n".join(parts + ["\n".join(apply)])

    def move(self, row, drawn, texts: dict):
        """The Move (as the Python engine holds it) of an outcome's row, its items in `drawn`."""
        at, size = int(row[1]), int(row[2])
        items = [int(v) for v in drawn[at:at + size]]
        outcome = tuple(texts[v] for v in items) if self.texts else \
            tuple(piece_of(self.program, v) for v in items) if self.pieces else tuple(items)
        inputs = tuple(int(v) for v in row[3:3 + len(self.inputs)])
        return Move(self.rule, inputs + (outcome,), CHANCE)


DRAW = '''@_jit
def DR_{index}(s, rng, drawn, at, row):
{read}
    items = {items}
    count = {count}
{refill}
    if count < 0 or count > {most}:
        raise ValueError("{bad_count}", count)
    if not {replace} and count > items.shape[0]:
        raise ValueError("{too_many}", count, items.shape[0])
    if {replace} and count > 0 and items.shape[0] == 0:
        raise ValueError("{no_items}")
    if at + count > drawn.shape[0]:
        return -1
    kinds, counts = _rt.tally(items)
    outcome = drawn[at:at + count]
    _rt.draw_items(rng, 0, kinds, counts, count, {replace}, outcome)
    row[0] = {kind}
    row[1] = at
    row[2] = count
{rows}
{seen}
    RD_{index}(s, row, outcome{ins})
    return count'''
