"""A chance step of weighted outcomes printed for compiled code: listed, weighed, drawn and applied as the Python
engine does (engine/state.py `_chance_table`, `sample_chance`, `apply`).

The outcomes are listed like a move's (their params in order, their checks), each weighed by its `weight`, those of
weight 0 or less left out; the one drawn is the first whose running total of weights exceeds uniform() times the
total, uniform() being the top 53 bits of the chance stream's next output times 2**-53. Weights are whole numbers
here, so their running totals are exact in float64 below 2**53, as Python's are; a total beyond that is an error
rather than a draw that could differ.
"""

from __future__ import annotations

from ...engine.nodes import CHANCE
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
        if weight is None:
            self.weight = "1"
        else:
            if weight.type.name not in ("int", "bool"):
                raise Unsupported(program.m.locate(weight), "a weight that is not a whole number")
            self.weight = program.p.scalar(weight, env)

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
        draw = DRAW.format(index=index, chance=CHANCE, listing=listing, args=listed, none=none, big=big, exact=EXACT)
        apply = [f"@_jit\ndef R_{index}(s, row):", "    st = s[O_step]", "    s[X_rule] = row[0] + 1",
                 "    s[X_turn] = s[O_turn]", "    s[O_ply] += 1", f"    A_{self.kind}(s, {CHANCE}{args})",
                 *program.then(f"s[O_player]", {self.name: None})]
        return "\n\n\n".join([weigh, draw, "\n".join(apply)])


DRAW = '''@_jit
def P_{index}(s, rng, out, row):
    n = {listing}(s, {chance}, out, 0)
    cumulative = np.empty(n, np.float64)
    total = 0
    m = 0
    for i in range(n):
        w = WT_{index}(s, {chance}{args})
        if w > 0:
            if w >= {exact} or total >= {exact} - w:
                {big}
            total += w
            if m != i:
                out[m, :] = out[i, :]
            cumulative[m] = total
            m += 1
    if m == 0:
        {none}
    x = (np.float64(_rt.next64(rng, 0) >> np.uint64(11)) / 9007199254740992.0) * np.float64(total)
    k = 0
    while k < m and cumulative[k] <= x:
        k += 1
    if k == m:
        k = m - 1
    row[:] = out[k, :row.shape[0]]
    R_{index}(s, row)'''
