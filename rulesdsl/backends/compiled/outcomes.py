"""A chance step of weighted outcomes printed for compiled code: listed, weighed, drawn and applied as the Python
engine does (engine/state.py `_chance_table`, `sample_chance`, `apply`).

The outcomes are listed like a move's (their params in order, their checks), each weighed by its `weight`, those of
weight 0 or less left out; the one drawn is the first whose running total of weights exceeds uniform() times the
total, uniform() being the top 53 bits of the chance stream's next output times 2**-53. Weights are whole numbers
here, so their running totals are exact in float64 below 2**53, as Python's are; a total beyond that is an error
rather than a draw that could differ.

An outcome seen by some players only (`visible_to:`, one player) is marked as the Python engine marks it in its
secret entries: the scratch word `seen` holds 1 + the bit of each seat that sees the outcome just drawn (0: all
see it), which a playout writes into its log beside the outcome.
"""

from __future__ import annotations

from ...engine.nodes import CHANCE
from ...lang import types as T
from .unsupported import Unsupported

EXACT = 1 << 53  # whole numbers up to here are exact in float64


class Outcomes:
    """The outcomes of one chance step (`name`) of `program`: their listing, weights, draw and effects."""

    def __init__(self, program, name):
        self.program, self.name = program, name
        step = program.ir.steps[name]
        self.plan, self.decl = step.chance.outcomes, step.decl
        self.kind = program.kind_index[f"{name}.outcome"]
        self.args = program.kinds[self.kind].args
        weight = self.plan.weight
        env = {arg: (f"a{j}", "i") for j, arg in enumerate(self.args)}
        self.fractions = False  # whether weights may be fractions: drawn as floats (FRACTIONS)
        if weight is None:
            self.weight = "1"
        elif weight.type.name not in ("int", "bool"):
            code, rep = program.p.ex(weight, env)
            if rep not in ("i", "f"):  # (a lookup into data gives numbers only: constdata.py)
                raise Unsupported(program.m.locate(weight), "a weight that is not a number")
            self.weight, self.fractions = code, True
        else:
            self.weight = program.p.scalar(weight, env)
        self.seen = None if self.plan.visible_to is None else seen_by(program, self.plan.visible_to, env)

    def source(self, index: int) -> str:
        program = self.program
        m, listing = program.m, program.moves_of(self.name, plan=self.plan)
        params = "".join(f", a{j}" for j in range(len(self.args)))
        weigh = f"@_jit\ndef WT_{index}(s, me{params}):\n    return {self.weight}"
        args = "".join(f", row[{j + 1}]" for j in range(len(self.args)))
        none = m.error("the chance step has no outcome with a positive weight", self.decl)
        big = m.error("the weights of the outcomes add up to 2**53 or more, beyond what compiled code draws exactly",
                      self.decl)
        listed = "".join(f", out[i, {j + 1}]" for j in range(len(self.args)))
        listed_weight = f"WT_{index}(s, {CHANCE}{listed})"
        if self.weight == "1" and not self.fractions:
            draw = EVEN.format(index=index, chance=CHANCE, listing=listing, none=none, kind=self.kind)
        elif self.fractions:  # (as floats: see WEIGHED)
            infinite = m.error("an outcome has an infinite weight", self.decl)
            draw = WEIGHED.format(index=index, chance=CHANCE, listing=listing, none=none, kind=self.kind, zero="0.0",
                                  weight=f"np.float64({listed_weight})", guard="w == np.inf", refuse=infinite)
        else:
            draw = WEIGHED.format(index=index, chance=CHANCE, listing=listing, none=none, kind=self.kind, zero="0",
                                  weight=listed_weight, guard=f"w >= {EXACT} or total >= {EXACT} - w", refuse=big)
        if self.seen is not None:  # who sees it is worked out before its effects, as the Python engine does
            seen = f"@_jit\ndef SEEN_{index}(s, me{params}):\n" + "\n".join(self.seen)
            draw = seen + "\n\n\n" + draw.replace(f"    R_{index}(s, row)", f"    SEEN_{index}(s, {CHANCE}{args})\n"
                                                                          f"    R_{index}(s, row)")
        called = program.calls.prologue() if self.name in program.calls.called else []
        apply = [f"@_jit\ndef R_{index}(s, row):", "    st = s[O_step]", "    s[X_rule] = row[0] + 1",
                 "    s[X_turn] = s[O_turn]", "    s[O_ply] += 1", *program.positions.leave(), *called,
                 f"    A_{self.kind}(s, {CHANCE}{args})",
                 *program.then(f"s[O_player]", {self.name: None}, me_seat=str(CHANCE))]
        return "\n\n\n".join([weigh, draw, "\n".join(apply)])


# Weights drawn as the Python engine draws them (engine/state.py `_chance_table`, Rng.pick): those above 0 kept (a
# NaN is not), their running totals added in order, the total the last of them; the outcome drawn is the first whose
# running total exceeds uniform() times the total. Whole weights are added as whole numbers, refused (`guard`) where
# their total reaches 2**53, beyond what a float64 holds exactly; weights that may be fractions are added as float64
# from 0.0 (Python's sum() of floats adds the same way), an infinite one refused.
WEIGHED = '''@_jit
def P_{index}(s, rng, out, row):
    s[X_rule] = 0  # listing and weighing: an error here is the step's (state.py failure)
    n = {listing}(s, {chance}, out, 0)
    cumulative = np.empty(n, np.float64)
    total = {zero}
    m = 0
    for i in range(n):
        w = {weight}
        if w > 0:
            if {guard}:
                {refuse}
            total += w
            if m != i:
                _rt.copy_into(out[m], out[i])
            cumulative[m] = total
            m += 1
    if m == 0:
        {none}
    s[X_rule] = {kind} + 1
    x = (np.float64(_rt.next64(rng, 0) >> np.uint64(11)) / 9007199254740992.0) * np.float64(total)
    k = 0
    while k < m and cumulative[k] <= x:
        k += 1
    if k == m:
        k = m - 1
    _rt.copy_into(row, out[k])
    R_{index}(s, row)'''


# Outcomes of weight 1 each: the running totals are 1, 2, ... n, so the first exceeding x is item floor(x) (x below
# n; at most the last), drawn from the same output of the stream with nothing weighed or kept.
EVEN = '''@_jit
def P_{index}(s, rng, out, row):
    s[X_rule] = 0  # listing: an error here is the step's (state.py failure)
    n = {listing}(s, {chance}, out, 0)
    if n == 0:
        {none}
    s[X_rule] = {kind} + 1
    x = (np.float64(_rt.next64(rng, 0) >> np.uint64(11)) / 9007199254740992.0) * np.float64(n)
    k = min(np.int64(x), n - 1)
    _rt.copy_into(row, out[k])
    R_{index}(s, row)'''


def seen_by(program, node, env: dict) -> list:
    """The body of a function of (s, me, args...) setting the scratch word `seen` to 1 + the bits of the seats
    that see a move: `node`, its visible_to, names one player or a list of players."""
    if program.t.seats > 62:
        raise Unsupported(program.m.locate(node), "visible_to in a game of more than 62 seats")
    wrong = program.m.code("visible_to should give players (seats from 0 to the number of players - 1), not {0}",
                           node.at[0])
    twice = program.m.code("visible_to names player {0} twice", node.at[0])
    code, rep = program.p.ex(node, env)
    if rep == "i" and T.kinds(node.type) <= {T.INT, T.BOOL}:  # (a bool is seat 0 or 1, as Python's int(True) is)
        return ["    p = " + code, "    if p < 0 or p >= NS:", f'        raise ValueError("{wrong}", p)',
                "    s[X_seen] = 1 + (1 << p)"]
    if rep != "a" or not T.kinds(T.item_type(node.type)) <= {T.INT, T.BOOL}:
        raise Unsupported(program.m.locate(node), "visible_to naming something other than players")
    return ["    ps = " + code, "    bits = 0", "    for i in range(ps.shape[0]):", "        p = ps[i]",
            "        if p < 0 or p >= NS:", f'            raise ValueError("{wrong}", p)',
            "        if bits >> p & 1:", f'            raise ValueError("{twice}", p)',
            "        bits |= 1 << p", "    s[X_seen] = 1 + bits"]
