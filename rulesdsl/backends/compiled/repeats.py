"""Moves of one part repeated (`repeat:`) printed for compiled code as model/parts.py `repeated` makes them in Python.

A row of such a move holds its kind, its own params and lets, how many parts it has, then each part's columns (the
inputs it gives the part's move, that move's params and lets) with room for the most parts it may have, the
columns after the last part zero. Its moves are listed by R_<kind>(s, me, out, n, row, first): a search depth
first over a stack of positions, one per part made, in the Python engine's order: at each depth the part's moves
(C_<kind> lists them on the position the parts before leave, each checked by the repeat's `when:` and `chain:`),
with `using:` item by item, an item equal to one tried before at that depth skipped. `stop:` says which sequences
are listed (any, stuck, longest), `prefer:` keeps the best, and `one_per_position` the first of those leaving each
position (positions.py). Applying the move applies each part in order, then the move's own effects.
"""

from __future__ import annotations

from ...ir.layout import repeat_bound
from .parts import applying, arg_widths, bind, own_widths, spread
from .unsupported import Unsupported

MAX_CANDIDATES = 1 << 12  # the most moves of the part listed at one depth (a located error beyond; fewer where the
# part's params bound them)
MAX_SEQUENCES = 1 << 12  # the most moves of one kind a position lists (a located error beyond)
# the most parts the search for one listing tries (each a copy of the position): a search that lists few moves may
# still try parts by the billion (min: deeper than most sequences go), which compiled code, where no budget can
# interrupt it, stops with a located error
MAX_TRIED = 1 << 20


# a part made at depth d (candidate c): written into the row, applied to a copy of the position, and the search one
# deeper
_MADE = """\
        if have:
            tried += 1
            if tried > {most_tried}:
                {too_many}
            c = ci[d]
            ci[d] += 1
            ext[d] = True
            for j in range({wide}):
                row[{start} + d * {wide} + j] = cb[d, c, j]
            _rt.copy_into(st[d + 1], st[d])
            A_{applied}(st[d + 1], me{args})
            um[d + 1] = um[d] | (1 << cur[d])
            d += 1
            row[{count}] = d
            cn[d] = 0
            ci[d] = 0
            ii[d] = 0
            ext[d] = False
            listed[d] = False"""


class Repeats:
    """The moves of repeated parts of one game (`program`, program.Program)."""

    def __init__(self, program):
        self.program = program
        self.plans = {name: plan for name, plan in program.ir.moves.items() if plan.repeat is not None}
        for name, plan in self.plans.items():
            rule = program.rules.moves[name]
            if [g.name for g in plan.repeat.given] != list(rule.repeat.part.inputs) or any(
                    w != 1 for _, w in self._part_widths(plan)):
                raise Unsupported(program.where(plan.decl), "a repeated part whose inputs are given in another "
                                  "order than its move declares them, or whose params hold tuples")

    def _target(self, plan):
        return self.program.ir.moves[plan.repeat.move]

    def most(self, plan) -> int:
        """The most parts a move of `plan` has (repeat_bound)."""
        return repeat_bound(self.program.ir, self.program.rules.moves[plan.name])

    def _own_widths(self, plan) -> list:
        return own_widths(self.program, self.program.kind_index[plan.name])

    def _part_widths(self, plan) -> list:
        return arg_widths(self.program, self.program.kind_index[plan.repeat.move])

    def _own_width(self, plan) -> int:
        return sum(w for _, w in self._own_widths(plan))

    def part_width(self, plan) -> int:
        return len(self._part_widths(plan))

    def columns(self, name: str) -> int:
        """How many columns after the kind a row of this move takes."""
        plan = self.plans[name]
        return self._own_width(plan) + 1 + self.most(plan) * self.part_width(plan)

    def _count_column(self, plan) -> int:
        return 1 + self._own_width(plan)

    def _fields(self, plan) -> dict:
        """A part's record as compiled code reads it from its row: field -> column, or ('me' | text code, None)."""
        fields = {name: j for j, (name, _) in enumerate(self._part_widths(plan))}
        fields["by"] = ("me", None)
        fields["kind"] = (str(self.program.m.text(plan.repeat.move)), None)
        return fields

    def _scope(self, plan, item: bool) -> dict:
        """The env of what the repeat's expressions read: the move's own params and lets (from `row`), `parts`
        (the records so far, `recs`), and using:'s item (`it`)."""
        env, _ = bind(self._own_widths(plan), lambda j: f"row[{j}]", 1)
        env["parts"] = ("recs", "recs")
        if item:
            env[self._item_name(plan)] = ("it", "i")
        return env

    def _item_name(self, plan) -> str | None:
        using = self.program.rules.moves[plan.name].repeat_spec.get("using")
        return next(iter(using)) if isinstance(using, dict) and using else None

    def _records(self, plan) -> str:
        start, wide = self._count_column(plan) + 1, self.part_width(plan)
        return f"recs = row[{start}:{start} + cnt * {wide}].reshape(cnt, {wide})"

    # -- listing ----------------------------------------------------------------------------------------------
    def tail(self, plan, env, pad: str, exists: bool, bound: int) -> list:
        """The lines listing the moves of `plan` once its own params and lets are bound in `env`."""
        program = self.program
        kind = program.kind_index[plan.name]
        own = [c for name, wide in self._own_widths(plan) for c in spread(env[name], wide)]
        lines = [f"{pad}prow = np.zeros(W, np.int64)", f"{pad}prow[0] = {kind}"]
        lines += [f"{pad}prow[{j + 1}] = {a}" for j, a in enumerate(own)]
        listing = self._listing(plan)
        if exists:
            return lines + [f"{pad}if {listing}(s, me, np.empty((1, W), np.int64), 0, prow, True) > 0:",
                            f"{pad}    return True"]
        program.capacity += bound * MAX_SEQUENCES
        return lines + [f"{pad}n = {listing}(s, me, out, n, prow, False)"]

    def _part_bound(self, plan) -> int:
        """The most moves the part lists at one depth: its params' bounds multiplied (at most MAX_CANDIDATES)."""
        found = 1
        for param in self._target(plan).params:
            found = min(found * self.program._bound(param), MAX_CANDIDATES)
        return max(found, 1)

    def _listing(self, plan) -> str:
        """The function listing the moves of `plan` for one value of its own params and lets: its name."""
        program = self.program
        key = ("repeat", plan.name)
        if key in program.m.functions:
            return program.m.functions[key][0]
        k = program.kind_index[plan.name]
        fname = f"R_{k}"
        program.m.functions[key] = (fname, None)
        rules = plan.repeat_rules
        stop, least = rules.get("stop", "stuck"), rules.get("min", 1)
        most, wide, count = self.most(plan), self.part_width(plan), self._count_column(plan)
        candidates = self._candidates(plan)
        using = plan.repeat_exprs.get("using")
        scope = self._scope(plan, False)
        p = program.p
        lines = [f"@_jit\ndef {fname}(s, me, out, n, row, first):", "    n0 = n",
                 f"    st = np.empty(({most + 1}, s.shape[0]), np.int64)", "    _rt.copy_into(st[0], s)",
                 f"    cb = np.empty(({most + 1}, {self._part_bound(plan)}, {wide}), np.int64)",
                 f"    cn = np.zeros({most + 1}, np.int64)", f"    ci = np.zeros({most + 1}, np.int64)",
                 f"    ext = np.zeros({most + 1}, np.bool_)", f"    listed = np.zeros({most + 1}, np.bool_)",
                 f"    ii = np.zeros({most + 1}, np.int64)", f"    cur = np.zeros({most + 1}, np.int64)",
                 f"    um = np.zeros({most + 1}, np.int64)",
                 f"    lens = np.empty({MAX_SEQUENCES}, np.int64)", f"    vals = np.empty({MAX_SEQUENCES}, np.int64)"]
        if using is not None:
            pool, rep = p.ex(using, scope)
            if rep != "a":
                raise Unsupported(program.m.locate(using), "using: of anything but a list of single values")
            long = program.m.error("using: gives a list of more than 64 items, more than compiled code tells apart "
                                   "(the Python engine takes it)", plan.decl)
            lines += [f"    pool = {pool}", "    if pool.shape[0] > 64:", f"        {long}",
                      f"    most = min({most}, pool.shape[0])"]
        else:
            lines += ["    pool = np.zeros(1, np.int64)", f"    most = {most}"]
        lines += [f"    row[{count}] = 0", "    d = 0", "    tried = 0", "    while True:", "        have = False",
                  "        while d < most:", "            if ci[d] < cn[d]:", "                have = True",
                  "                break"]
        if using is not None:  # the next item not used by the parts before, nor equal to one tried at this depth
            lines += ["            i = ii[d]", "            found = -1", "            while i < pool.shape[0]:",
                      "                if (um[d] >> i) & 1 == 0:", "                    dup = False",
                      "                    for k in range(i):",
                      "                        if (um[d] >> k) & 1 == 0 and pool[k] == pool[i]:",
                      "                            dup = True", "                            break",
                      "                    if not dup:", "                        found = i",
                      "                        break", "                i += 1", "            if found < 0:",
                      "                break", "            ii[d] = found + 1", "            cur[d] = found",
                      f"            cn[d] = {candidates}(st[d], me, row, d, pool[found], cb[d])",
                      "            ci[d] = 0"]
        else:
            lines += ["            if listed[d]:", "                break", "            listed[d] = True",
                      f"            cn[d] = {candidates}(st[d], me, row, d, 0, cb[d])", "            ci[d] = 0"]
        emit = self._emit(plan, stop)
        args = "".join(f", cb[d, c, {j}]" for j in range(wide))
        too_many = program.m.error(f"the search for the parts of a move tried more than {MAX_TRIED:,} parts",
                                   plan.decl)
        lines += _MADE.format(wide=wide, start=count + 1, count=count, args=args, most_tried=MAX_TRIED,
                              too_many=too_many, applied=program.kind_index[plan.repeat.move]).splitlines()
        if stop == "any":
            lines += [f"            if d >= {least}:", *("                " + line for line in emit)]
        lines += ["        else:"]
        if stop != "any":
            lines += [f"            if not ext[d] and d >= {least}:", *("                " + line for line in emit)]
        lines += ["            if d == 0:", "                break", "            d -= 1",
                  f"            row[{count}] = d"]
        lines += self._kept(plan, stop)
        lines.append("    return n")
        program.m.functions[key] = (fname, "\n".join(lines))
        return fname

    def _emit(self, plan, stop: str) -> list:
        """The lines writing the row of the sequence of `d` parts made (and its length, and its prefer: value)."""
        program = self.program
        count, wide = self._count_column(plan), self.part_width(plan)
        lines = ["if first:  # (asked only whether there is a move)", "    return n + 1",
                 "if n >= out.shape[0] or n - n0 >= lens.shape[0]:",
                 "    " + program.m.error("more moves are legal at once than the layout bounds", plan.decl),
                 "_rt.copy_into(out[n], row)",
                 f"out[n, {count + 1} + d * {wide}:{count + 1} + {self.most(plan)} * {wide}] = 0",
                 "lens[n - n0] = d"]
        prefer = plan.repeat_exprs.get("prefer")
        if prefer is not None:
            lines += ["cnt = d", self._records(plan),
                      f"vals[n - n0] = {self._scalar(plan, prefer, self._scope(plan, False), True)}"]
        return lines + ["n += 1"]

    def _kept(self, plan, stop: str) -> list:
        """The lines keeping, of the rows listed from n0, those `stop: longest`, `prefer:` and one_per_position keep,
        in order."""
        lines = []
        if stop == "longest":
            lines += self._keep("lens", "_rt.largest(lens[:n - n0])")
        if plan.repeat_exprs.get("prefer") is not None:
            lines += self._keep("vals", "_rt.largest(vals[:n - n0])")
        if self.program.rules.moves[plan.name].one_per_position:
            lines += self.program.positions.first_per_position(self.program.kind_index[plan.name],
                                                               self.columns(plan.name), "n0", "    ")
        return lines

    @staticmethod
    def _keep(values: str, best: str) -> list:
        return ["    if n > n0:", f"        best = {best}", "        m = n0", "        for r in range(n0, n):",
                f"            if {values}[r - n0] == best:", "                _rt.copy_into(out[m], out[r])",
                "                lens[m - n0] = lens[r - n0]", "                vals[m - n0] = vals[r - n0]",
                "                m += 1", "        n = m"]

    def _scalar(self, plan, node, env, number: bool = False) -> str:
        """The code of a single value the repeat works out (`number`: a whole number, as prefer: gives), reading
        the parts' records by field."""
        p = self.program.p
        p.part_fields = self._fields(plan)
        try:
            code, rep = p.ex(node, env)
        finally:
            p.part_fields = None
        if rep != "i" or node.type.name == "float" or number and node.type.name not in ("int", "bool", "number"):
            raise Unsupported(self.program.m.locate(node), "a value of a repeat that is not a single value (prefer: "
                              "a whole number)")
        return code

    def _candidates(self, plan) -> str:
        """The function listing the part's moves on position `s` after `cnt` parts (`row`), with using:'s item
        `it`, that the repeat's `when:` and `chain:` let follow: each into a row of `cb`. Its name."""
        program = self.program
        key = ("repeat part", plan.name)
        if key in program.m.functions:
            return program.m.functions[key][0]
        fname = f"C_{program.kind_index[plan.name]}"
        program.m.functions[key] = (fname, None)
        part, target = plan.repeat, self._target(plan)
        outer = self._scope(plan, self._item_name(plan) is not None)
        head = [f"@_jit\ndef {fname}(s, me, row, cnt, it, cb):", "    n = 0", "    " + self._records(plan)]
        given = {}
        for j, let in enumerate(part.given):
            head.append(f"    g{j} = {self._scalar(plan, let.value, outer)}")
            given[let.name] = (f"g{j}", "i")
        chain = plan.repeat_exprs.get("chain")
        names = [name for name, _ in self._part_widths(plan)]

        def emit(env, pad, bound):
            values = [c for name, wide in self._part_widths(plan) for c in spread(env[name], wide)]
            scope = dict(outer, **{f"part.{name}": env[name] for name in names},
                         **{"part.by": ("me", "i"), "part.kind": (str(program.m.text(part.move)), "i")})
            lines = []
            for check in part.checks:  # the repeat's when:
                lines += [f"{pad}if not {self._scalar(plan, check.test, scope)}:", f"{pad}    continue"]
            if chain is not None:
                lines += [f"{pad}if cnt > 0 and not {self._scalar(plan, chain, scope)}:", f"{pad}    continue"]
            lines += [f"{pad}if n >= cb.shape[0]:",
                      f"{pad}    " + program.m.error("more moves of a part are legal at once than compiled code "
                                                     "lists", plan.decl)]
            lines += [f"{pad}cb[n, {j}] = {v}" for j, v in enumerate(values)]
            return lines + [f"{pad}n += 1"]

        body = program._generate(target, False, given=given, tail=emit)
        program.m.functions[key] = (fname, "\n".join([*head, *body, "    return n"]))
        return fname

    # -- applying ---------------------------------------------------------------------------------------------
    def apply_source(self, kind: int, plan) -> tuple:
        """(the source of A_<kind>, which applies each part made in order then the move's own effects; how many
        columns it takes)."""
        program = self.program
        width = self.columns(plan.name)
        count, wide, applied = self._count_column(plan) - 1, self.part_width(plan), program.kind_index[plan.repeat.move]
        args = ", ".join(f"a[{count + 1} + j * {wide} + {c}]" for c in range(wide))
        parts = [f"    a = np.array([{', '.join(f'a{j}' for j in range(width))}], np.int64)",
                 f"    for j in range(a[{count}]):", f"        A_{applied}(s, me, {args})"]
        return applying(program, kind, plan, width, parts), width
