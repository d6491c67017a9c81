"""A decision step's moves in tiers, and its effects after every move, printed for compiled code as the Python
engine does them (engine/state.py `_tiered`; `apply`, step.after).

Tiers: the moves of the first tier that has any; with `fallback_by`, chosen per value of that param: a tier's moves
whose value of it an earlier tier already had are left out. Every tier is listed into the same buffer (room for
all of them is counted) and those left out are removed in place, so the order is the Python engine's.
After-effects read the move made as `move.<param or let>`; they run after the move's own effects, for the mover.
"""

from __future__ import annotations

from ...ir import nodes as N
from .parts import arg_widths, bind
from .unsupported import Unsupported


class Tiers:
    """The listing of a decision step's moves in tiers (`name`, a step of `program`)."""

    def __init__(self, program, name):
        self.program, self.name = program, name
        model = program.rules.steps[name]
        self.tiers = [[program.ir.moves[rule.name] for rule in tier] for tier in model.tiers]
        self.group = model.fallback_by
        self.columns = {}  # move kind -> the column of the fallback_by param in its row
        if self.group is not None:
            for tier, rules in zip(self.tiers, model.tiers):
                for plan, rule in zip(tier, rules):
                    if self.group not in rule.arg_names:
                        raise Unsupported(program.where(rule.path), f"a move without the param '{self.group}' "
                                          "that fallback_by names")
                    param = next((p for p in plan.params if p.name == self.group), None)
                    if param is not None and param.type.name in ("list", "seq", "tuple", "table", "record"):
                        raise Unsupported(program.where(rule.path), "fallback_by a param that holds several values")
                    self.columns[program.kind_index[plan.name]] = 1 + rule.arg_names.index(self.group)

    def lines(self, index: int) -> list:
        """The lines of legal() at this step: `n`, the moves listed into `out`."""
        program = self.program
        names = []
        for t, tier in enumerate(self.tiers):
            fname = f"LT_{index}_{t}"
            body = ["@_jit", f"def {fname}(s, me, out, n):"]
            for plan in tier:
                body += program._generate(plan, False)
            body.append("    return n")
            program.m.functions[("tier", self.name, t)] = (fname, "\n".join(body))
            names.append(fname)
        if self.group is None:  # the first tier with any move
            lines, pad = [], "        "
            for t, fname in enumerate(names):
                lines.append(f"{pad}n = {fname}(s, me, out, 0)")
                if t < len(names) - 1:
                    lines.append(f"{pad}if n == 0:")
                    pad += "    "
            return lines
        columns = [0] * len(program.kinds)
        for kind, column in self.columns.items():
            columns[kind] = column
        table = program.m.table(("fallback_by", self.name), columns)
        lines = [f"        n = {names[0]}(s, me, out, 0)"]
        for fname in names[1:]:
            lines += [f"        m = {fname}(s, me, out, n)", f"        n = _rt.unsettled(out, n, m, {table})"]
        return lines


def after_effects(program) -> tuple:
    """(functions, lines of apply()) running each step's after-effects for the move just made (`k`, its row
    `row`), the mover `who`, at the step `st` it was made at."""
    functions, lines = [], []
    for name, step in program.ir.steps.items():
        after = step.effects.get("after")
        if not after:
            continue
        index = program.t.step_index[name]
        model = program.rules.steps[name]
        rules = [rule for tier in model.tiers for rule in tier] if model.tiers else list(model.moves)
        rules += [model.pass_rule] if model.pass_rule is not None else []
        lines.append(f"    if st == {index}:")
        for rule in rules:
            kind = program.kind_index[f"{name}.pass" if rule.is_pass else rule.name]
            # (a tuple takes a column per item; a compound move's parts, its last argument, are not read here)
            env, columns = bind([(f"move.{n}", w) for n, w in arg_widths(program, kind) if n != "parts"])
            for n in (node for statement in after for node in N.walk(statement)):
                if isinstance(n, N.Attr) and isinstance(n.obj, N.Ref) and n.obj.kind == "local" \
                        and n.obj.name == "move" and f"move.{n.name}" not in env:
                    raise Unsupported(program.m.locate(n), f"after-effects reading move.{n.name}, which the move "
                                      f"'{rule.name}' does not have")
            fname = f"AF_{index}_{kind}"
            params = "".join(f", a{j}" for j in range(columns))
            body = [line for stmt in after for line in program.p.st(stmt, env, "    ")] or ["    pass"]
            functions.append("\n".join([f"@_jit\ndef {fname}(s, me{params}):", *body]))
            call = "".join(f", row[{j + 1}]" for j in range(columns))
            lines += [f"        if k == {kind}:", f"            {fname}(s, who{call})"]
    return functions, lines
