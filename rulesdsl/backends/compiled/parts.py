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
from ...ir.forms import Atom, Fixed, Many, OneOf
from .unsupported import Unsupported


class Listed(int):
    """The width of a list of at most `self - 1` single values in a row: its length, then room for the most (as the
    layout's Many holds it)."""


def width(t) -> int:
    """How many columns of a row a value of type `t` takes: a tuple's items one each (a move's param that is a
    pair, say), a list of single values its length and then room for the most it may hold (Listed), any other value
    one."""
    if t.name == "list" and t.items and t.high is not None and t.items[0].name not in ("list", "seq", "tuple"):
        return Listed(1 + t.high)
    return len(t.items) if t.name == "tuple" and t.items else 1


def bind(names_widths, column=lambda j: f"a{j}", start: int = 0) -> tuple:
    """(env binding each name to its columns, column(j) the code of column j, a tuple's as an array of them; the
    columns taken) of arguments given as (name, width) pairs."""
    env, at = {}, start
    for name, wide in names_widths:
        if isinstance(wide, Listed):  # its length, then its items
            items = ", ".join(column(at + 1 + j) for j in range(wide - 1))
            env[name] = (f"np.array([{items}], np.int64)[:{column(at)}]", "a")
        elif wide == 1:
            env[name] = (column(at), "i")
        else:
            env[name] = (f"np.array([{', '.join(column(at + j) for j in range(wide))}], np.int64)", "a")
        at += wide
    return env, at - start


def spread(bound, wide: int) -> list:
    """The codes of the columns of a value bound as (code, rep) that takes `wide` columns."""
    code, rep = bound
    if isinstance(wide, Listed):  # its length, then its items, 0 past its end
        if rep != "a":
            raise ValueError(rep)
        return [f"{code}.shape[0]"] + [f"({code}[{j}] if {code}.shape[0] > {j} else 0)" for j in range(wide - 1)]
    if wide == 1:
        if rep != "i":
            raise ValueError(rep)
        return [code]
    return [f"{code}[{j}]" for j in range(wide)]


def arg_widths(program, k: int) -> list:
    """(name, width) of each argument of move kind `k` (a compound move's parts excepted: see Parts)."""
    kind = program.kinds[k]
    plan = program._plan(kind)
    types = {}
    if plan is not None:
        types.update({p.name: p.type for p in plan.params})
        types.update({l.name: l.value.type for l in plan.lets if l.value is not None})
    widths = {name: width(t) for name, t in types.items()}
    if plan is not None and plan.repeat is not None:  # its parts: their count, then room for the most (repeats.py)
        widths["parts"] = 1 + program.repeats.most(plan) * program.repeats.part_width(plan)
    return [(name, widths.get(name, 1)) for name in kind.args]


def own_widths(program, k: int) -> list:
    """(name, width) of the own params and lets of move kind `k`, a move made of parts: its arguments but its
    parts."""
    return [(n, w) for n, w in arg_widths(program, k) if n != "parts"]


def flat(form) -> list:
    """The single values (Atoms, or none-or-a-value OneOfs) of an argument's form, in the order a row holds
    them: a tuple's items one after another."""
    if isinstance(form, Fixed):
        return [atom for item in form.items for atom in flat(item)]
    return [form]


def columns(form) -> int:
    """How many columns of a row an argument of `form` takes: a tuple's items one after another, the parts of a
    move of repeated parts (a Many) their count, then room for as many as it may have (repeats.py)."""
    if isinstance(form, Fixed):
        return sum(columns(item) for item in form.items)
    if isinstance(form, Many):
        return 1 + form.capacity * columns(form.item)
    return 1


def read(forms, row, at: int, single) -> tuple:
    """The values of arguments of `forms` read from `row` from column `at` (single(atom, number): one value), and
    the column after them."""
    found = []
    for form in forms:
        if isinstance(form, Fixed):
            value, at = read(form.items, row, at, single)
            found.append(value)
        elif isinstance(form, Many):  # the parts made, then room for the rest
            wide, count = columns(form.item), int(row[at])
            items = (read((form.item,), row, at + 1 + j * wide, single)[0][0] for j in range(count))
            found.append(list(items) if form.kind == "list" else tuple(items))
            at += columns(form)
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
        elif isinstance(form, Many):
            found.append(len(value))
            for item in value:
                found += write((form.item,), (item,), single)
            found += [0] * (columns(form) - 1 - len(value) * columns(form.item))
        else:
            found.append(single(form, value))
    return found


class Parts:
    """The compound moves of one game (`program`, program.Program)."""

    def __init__(self, program):
        self.program = program
        for name, step in program.ir.steps.items():  # (a choice's fields are read by argument, one column each)
            for move in step.moves if step.kind == "simultaneous" else ():
                if any(w > 1 for _, w in arg_widths(program, program.kind_index[move])):
                    raise Unsupported(program.where(step.decl), "a simultaneous step's move with a tuple or list "
                                      "param")
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
        return self._own_width(plan) + sum(self._width(part) for part in plan.parts)

    def _own_width(self, plan) -> int:
        return sum(w for _, w in self._own_widths(plan))

    def _own_widths(self, plan) -> list:
        return own_widths(self.program, self.program.kind_index[plan.name])

    def _width(self, part) -> int:
        return sum(w for _, w in self._part_widths(part))

    def _part_widths(self, part) -> list:
        """(name, width) of what a part's columns hold: the inputs it gives, its move's params and lets."""
        return arg_widths(self.program, self.program.kind_index[part.move])

    # -- listing ----------------------------------------------------------------------------------------------
    def tail(self, plan, env, pad: str, exists: bool, bound: int) -> list:
        """The lines listing the moves of compound `plan` once its own params and lets are bound in `env`."""
        program = self.program
        kind = program.kind_index[plan.name]
        own = [c for name, wide in self._own_widths(plan) for c in spread(env[name], wide)]
        first = self._function(plan, 0, exists)
        lines = [f"{pad}prow = np.zeros(W, np.int64)", f"{pad}prow[0] = {kind}"]
        lines += [f"{pad}prow[{j + 1}] = {a}" for j, a in enumerate(own)]
        if exists:
            return lines + [f"{pad}if {first}(s, me, prow):", f"{pad}    return True"]
        for part in plan.parts:
            bound *= self._bound(part)
        program.capacity += bound
        if not program.rules.moves[plan.name].one_per_position:
            return lines + [f"{pad}n = {first}(s, me, out, n, prow)"]
        return lines + [f"{pad}pn0 = n", f"{pad}n = {first}(s, me, out, n, prow)",
                        *program.positions.first_per_position(kind, self.columns(plan.name), "pn0", pad)]

    def _bound(self, part) -> int:
        program, found = self.program, 1
        for param in self._target(part).params:
            found *= program._bound(param)
        return found

    def _names(self, plan, upto: int) -> dict:
        """The env of what a part's inputs and `when:` read from the row: the move's own params and lets, and
        `parts[i].<name>` of the parts before part `upto`."""
        at = lambda j: f"row[{j}]"  # noqa: E731
        env, column = bind(self._own_widths(plan), at, 1)
        column += 1
        for i, part in enumerate(plan.parts[:upto]):
            found, wide = bind([(f"parts[{i}].{n}", w) for n, w in self._part_widths(part)], at, column)
            env.update(found)
            column += wide
            env.update(self._record(f"parts[{i}]", part))
        return env

    def _record(self, name: str, part) -> dict:
        """What a part's record holds besides its params and lets: the seat that made it, and its move's name."""
        return {f"{name}.by": ("me", "i"), f"{name}.kind": (str(self.program.m.text(part.move)), "i")}

    def _start(self, plan, index: int) -> int:
        return 1 + self._own_width(plan) + sum(self._width(p) for p in plan.parts[:index])

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
            names = [name for name, _ in self._part_widths(part)]
            values = [c for name, wide in self._part_widths(part) for c in spread(env[name], wide)]
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
                                f"{pad}_rt.copy_into(out[n], row)", f"{pad}n += 1"]
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
        body = []
        for index, part in enumerate(plan.parts):
            start = self._start(plan, index) - 1
            args = "".join(f", a{start + j}" for j in range(self._width(part)))
            body.append(f"    A_{program.kind_index[part.move]}(s, me{args})")
        return applying(program, kind, plan, width, body), width


def applying(program, kind: int, plan, width: int, parts: list) -> str:
    """The source of A_<kind> for a move made of parts: `parts`, the lines applying its parts, then its own effects
    (which read its own params and lets, never its parts: a located refusal)."""
    for node in (n for statement in plan.effects for n in N.walk(statement)):
        if isinstance(node, N.Ref) and node.kind == "local" and node.name == "parts":
            raise Unsupported(program.m.locate(node), "a compound move's effects reading its parts")
    env, _ = bind(own_widths(program, kind))
    body = parts + [line for stmt in plan.effects for line in program.p.st(stmt, env, "    ")]
    params = "".join(f", a{j}" for j in range(width))
    return "\n".join([f"@_jit\ndef A_{kind}(s, me{params}):", *body])


def is_tuple(form) -> bool:
    """Whether an argument's form is a tuple of values (held flattened in a row)."""
    return isinstance(form, Fixed) and all(isinstance(a, (Atom, OneOf)) for a in flat(form))
