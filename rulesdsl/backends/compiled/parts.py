"""Compound moves (a move made of parts) printed for compiled code as model/parts.py makes them in Python.

A compound move's row is its kind, its own params and lets, then per part the inputs it gives the part's move and
that move's params and lets, in order (tuples of values flattened: see `flat`). Its legal moves are listed by one
function per part, Q_<kind>_<part>(s, me, out, n, row): it works the part's inputs out from the row so far, lists
the part's legal moves as the part's move lists its own (with its checks, then the part's `when:`), writes each into
the row, and for every part but the last applies it to a copy of the position and calls the next part's function
on that copy, so that each part is legal exactly where it is made. The last part writes whole rows to `out`. The
order is the Python engine's: own params outermost, then each part's in turn. Applying the move applies each part's
effects in order, then the move's own.
"""

from __future__ import annotations

from ...ir import nodes as N
from ...ir.forms import Atom, Fixed, OneOf
from .unsupported import Unsupported


def flat(form) -> list:
    """The single values (Atoms, or none-or-a-value OneOfs) of an argument's form, in the order a row holds
    them: a tuple's items one after another."""
    if isinstance(form, Fixed):
        return [atom for item in form.items for atom in flat(item)]
    return [form]


def read(forms, row, at: int, single) -> tuple:
    """The values of arguments of `forms` read from `row` from column `at` (single(atom, number): one value), and
    the column after them."""
    found = []
    for form in forms:
        if isinstance(form, Fixed):
            value, at = read(form.items, row, at, single)
            found.append(value)
        else:
            found.append(single(form, int(row[at])))
            at += 1
    return tuple(found), at


def write(forms, values, single) -> list:
    """The row columns of arguments `values` of `forms` (single(atom, value): one number)."""
    found = []
    for form, value in zip(forms, values):
        if isinstance(form, Fixed):
            found += write(form.items, value, single)
        else:
            found.append(single(form, value))
    return found


class Parts:
    """The compound moves of one game (`program`, program.Program)."""

    def __init__(self, program):
        self.program = program
        self.plans = {name: plan for name, plan in program.ir.moves.items() if plan.parts}
        for name, plan in self.plans.items():
            rule = program.rules.moves[name]
            for part, (target, _, _) in zip(plan.parts, rule.parts):
                if target.inputs and [g.name for g in part.given] != list(target.inputs) \
                        or target.arg_names != [p.name for p in self._target(part).params] \
                        + [l.name for l in self._target(part).lets]:
                    raise Unsupported(program.where(part.decl), "a part whose inputs or arguments are given in "
                                      "another order than its move declares them")

    def _target(self, part):
        return self.program.ir.moves[part.move]

    def columns(self, name: str) -> int:
        """How many columns after the kind a compound move's row takes."""
        plan = self.plans[name]
        return len(plan.params) + len(plan.lets) + sum(self._width(part) for part in plan.parts)

    def _width(self, part) -> int:
        target = self._target(part)
        return len(part.given) + len(target.params) + len(target.lets)

    # -- listing ----------------------------------------------------------------------------------------------
    def tail(self, plan, env, pad: str, exists: bool, bound: int) -> list:
        """The lines listing the moves of compound `plan` once its own params and lets are bound in `env`."""
        program = self.program
        kind = program.kind_index[plan.name]
        own = [env[p.name][0] for p in plan.params] + [env[l.name][0] for l in plan.lets]
        first = self._function(plan, 0, exists)
        lines = [f"{pad}prow = np.zeros(W, np.int64)", f"{pad}prow[0] = {kind}"]
        lines += [f"{pad}prow[{j + 1}] = {a}" for j, a in enumerate(own)]
        if exists:
            return lines + [f"{pad}if {first}(s, me, prow):", f"{pad}    return True"]
        for part in plan.parts:
            bound *= self._bound(part)
        program.capacity += bound
        return lines + [f"{pad}n = {first}(s, me, out, n, prow)"]

    def _bound(self, part) -> int:
        program, found = self.program, 1
        for param in self._target(part).params:
            found *= program._bound(param)
        return found

    def _names(self, plan, upto: int) -> dict:
        """The env of what a part's inputs and `when:` read from the row: the move's own params and lets, and
        `parts[i].<name>` of the parts before part `upto`."""
        env, column = {}, 1
        for name in [p.name for p in plan.params] + [l.name for l in plan.lets]:
            env[name] = (f"row[{column}]", "i")
            column += 1
        for i, part in enumerate(plan.parts[:upto]):
            target = self._target(part)
            names = [g.name for g in part.given] + [p.name for p in target.params] + [l.name for l in target.lets]
            for name in names:
                env[f"parts[{i}].{name}"] = (f"row[{column}]", "i")
                column += 1
            env.update(self._record(f"parts[{i}]", part))
        return env

    def _record(self, name: str, part) -> dict:
        """What a part's record holds besides its params and lets: the seat that made it, and its move's name."""
        return {f"{name}.by": ("me", "i"), f"{name}.kind": (str(self.program.m.text(part.move)), "i")}

    def _start(self, plan, index: int) -> int:
        return 1 + len(plan.params) + len(plan.lets) + sum(self._width(p) for p in plan.parts[:index])

    def _function(self, plan, index: int, exists: bool) -> str:
        """The function listing part `index` of `plan` (and the parts after it) on the position `s`: its name."""
        program = self.program
        key = ("part", plan.name, index, exists)
        if key in program.m.functions:
            return program.m.functions[key][0]
        fname = f"Q{'X' if exists else ''}_{program.kind_index[plan.name]}_{index}"
        program.m.functions[key] = (fname, None)
        part, last = plan.parts[index], index + 1 == len(plan.parts)
        target = self._target(part)
        outer = self._names(plan, index)
        head = [f"def {fname}(s, me, row):" if exists else f"def {fname}(s, me, out, n, row):"]
        given = {}
        for j, let in enumerate(part.given):
            code, rep = program.p.ex(let.value, outer)
            if rep != "i":
                raise Unsupported(program.where(let.decl), "a part's input that is not a single value")
            head.append(f"    g{j} = {code}")
            given[let.name] = (f"g{j}", "i")
        after = self._function(plan, index + 1, exists) if not last else None
        start = self._start(plan, index)

        def emit(env, pad, bound):
            names = [g.name for g in part.given] + [p.name for p in target.params] + [l.name for l in target.lets]
            values = [env[name][0] for name in names]
            lines = []
            for check in part.checks:  # the part's `when:`, over the part's record and the earlier parts'
                scope = dict(outer, **{f"part.{name}": env[name] for name in names}, **self._record("part", part))
                lines += [f"{pad}if not {program.p.scalar(check.test, scope)}:", f"{pad}    continue"]
            lines += [f"{pad}row[{start + j}] = {v}" for j, v in enumerate(values)]
            if last and exists:
                return lines + [f"{pad}return True"]
            if last:
                return lines + [f"{pad}if n >= out.shape[0]:",
                                f"{pad}    " + program.m.error("more moves are legal at once than the layout "
                                                               "bounds", plan.decl),
                                f"{pad}out[n, :] = row", f"{pad}n += 1"]
            applied = program.kind_index[part.move]
            lines += [f"{pad}t = s.copy()", f"{pad}A_{applied}(t, me{''.join(', ' + v for v in values)})"]
            if exists:
                return lines + [f"{pad}if {after}(t, me, row):", f"{pad}    return True"]
            return lines + [f"{pad}n = {after}(t, me, out, n, row)"]

        body = program._generate(target, exists, given=given, tail=emit)
        source = "\n".join(["@_jit", *head[:1], *head[1:], *body, "    return False" if exists else "    return n"])
        program.m.functions[key] = (fname, source)
        return fname

    # -- applying ---------------------------------------------------------------------------------------------
    def apply_source(self, kind: int, plan) -> tuple:
        """(the source of A_<kind>, which applies each part in order then the move's own effects; how many
        columns it takes)."""
        program = self.program
        width = self.columns(plan.name)
        own = [p.name for p in plan.params] + [l.name for l in plan.lets]
        env = {name: (f"a{j}", "i") for j, name in enumerate(own)}
        body = []
        for index, part in enumerate(plan.parts):
            start = self._start(plan, index) - 1
            args = "".join(f", a{start + j}" for j in range(self._width(part)))
            body.append(f"    A_{program.kind_index[part.move]}(s, me{args})")
        for node in (n for statement in plan.effects for n in N.walk(statement)):
            if isinstance(node, N.Ref) and node.kind == "local" and node.name == "parts":
                raise Unsupported(program.m.locate(node), "a compound move's effects reading its parts")
        body += [line for stmt in plan.effects for line in program.p.st(stmt, env, "    ")]
        params = "".join(f", a{j}" for j in range(width))
        return "\n".join([f"@_jit\ndef A_{kind}(s, me{params}):", *body]), width


def is_tuple(form) -> bool:
    """Whether an argument's form is a tuple of values (held flattened in a row)."""
    return isinstance(form, Fixed) and all(isinstance(a, (Atom, OneOf)) for a in flat(form))
