"""Items of list variables read and written in compiled code (a mixin of places.Places): `xs[i] = v` of a list
of single values, and a list of tables (forms.Keyed: per possible key, its place in the table's order and its
value) read as `t[i][k]`, written as `t[i][k] = v` and `t[i] = table(...)`, and listed by `values(t[i])`.

A list's index is taken as Python takes it (from the end when negative; out of range, Python's IndexError); a key
not in the table is Python's KeyError when read, and is added at the end of the table's order when assigned.
"""

from __future__ import annotations

from ...ir import nodes as N
from ...ir.forms import Atom, Keyed, Many
from .messages import ValueMessage

_READ = "IndexError: list index out of range"
_WRITTEN = "IndexError: list assignment index out of range"


class ItemPlaces:
    """The code of list variables' items, for places.Places."""

    def _list_var(self, node):
        """(the variable's Ref, its Many form) when `node` is a variable of one place holding a list, else None."""
        if not (isinstance(node, N.Ref) and node.kind == "var"):
            return None
        slot = self.slots.get(f"var.{node.name}")
        if slot is None or not slot.fits or slot.places is not None or not isinstance(slot.form, Many):
            return None
        return node, slot.form

    def _tables(self, node):
        """(Ref, Many form) of a variable holding a list of tables of single values, else None."""
        found = self._list_var(node)
        if found is None or not isinstance(found[1].item, Keyed) or not isinstance(found[1].item.value, Atom):
            return None
        return found

    def _row(self, form, index, env, message: str, at, place: str = "0") -> str:
        """Code of the item number `index` names in the list `form` holds (at `place`, a variable's place of one
        per seat or key), checked as Python checks it."""
        code = self.m.code(message, at)
        return f"_rt.list_index({self.p.scalar(index, env)}, {self._at(form.length, place)}, {code!r})"

    def _place_list(self, node):
        """(the variable's Ref, its Many form of single values) when `node` is a place of a variable of one place
        per seat or key holding lists (`xs[p]`), else None."""
        if not (isinstance(node, N.Index) and isinstance(node.obj, N.Ref) and node.obj.kind == "var"):
            return None
        slot = self.slots.get(f"var.{node.obj.name}")
        if slot is None or not slot.fits or slot.places is None or not isinstance(slot.form, Many) \
                or not isinstance(slot.form.item, Atom):
            return None
        return node.obj, slot.form

    def _key_codes(self, node, keyed) -> str:
        codes = []
        for key in keyed.keys:
            if key is None:  # (read as -1, the absent value; a key -1 beside it is refused below)
                codes.append(-1)
            elif isinstance(key, str):
                codes.append(self.m.text(key))
            elif isinstance(key, int) and not isinstance(key, bool):
                codes.append(int(key))
            else:
                raise self.p.unsupported(node, "a table whose keys are not all numbers, texts or none")
        if len(set(codes)) != len(codes):
            raise self.p.unsupported(node, "a table whose keys are numbers and texts, or none and -1")
        return self.m.table(("table keys", keyed.keys), codes)

    def _bases(self, form) -> tuple:
        """(where the tables' orders start, where their values start, the number of possible keys): table i's
        order and values are the `width` words from base + i * width."""
        keyed = form.item
        return self.fields[keyed.order.name].ident, self.fields[keyed.value.leaf.name].ident, len(keyed.keys)

    def _starts(self, form, row: str) -> tuple:
        """(code of where the order of table `row` starts, of where its values start, the number of keys)."""
        order, value, width = self._bases(form)
        return f"{order} + {row} * {width}", f"{value} + {row} * {width}", width

    def _key_error(self, keyed, at, write: bool = False) -> str:
        texts = self.m.texts

        def shown(code: int):
            if code == -1 and None in keyed.keys:
                return "None"
            if any(isinstance(k, str) for k in keyed.keys):
                text = next((t for t, n in texts.items() if n == code), None)
                return code if text is None else repr(text)
            return code

        message = "LookupError: a key the table's arrays do not hold: {0}" if write else "KeyError: {0}"
        return repr(self.m.code(ValueMessage(message, shown), at))

    # -- reading ----------------------------------------------------------------------------------------------
    def indexed(self, node, env):
        """(code, rep) of `t[i][k]`, an item of a list of tables; None for any other index."""
        if not isinstance(node.obj, N.Index):
            return None
        found = self._tables(node.obj.obj)
        if found is None:
            return None
        _, form = found
        at, keyed = node.at[0], form.item
        row = self._row(form, node.obj.index, env, _READ, at)
        order, value, width = self._bases(form)
        get = (f"_rt.table_get(s, {order}, {value}, {width}, {row}, {self._key_codes(node, keyed)}, "
               f"{self.p.scalar(node.index, env)}, {self._key_error(keyed, at)})")
        return self._read_value(keyed.value, get), "i"

    def _read_value(self, atom, code: str) -> str:
        return f"{self.enum(atom)}[{code}]" if atom.kind == "text" else code

    def table_values(self, node, env):
        """(code, rep) of values(t[i]) of a list of tables: its values in the table's order; None otherwise."""
        if not isinstance(node, N.Index):
            return None
        found = self._tables(node.obj)
        if found is None:
            return None
        _, form = found
        if form.item.value.kind == "text":
            raise self.p.unsupported(node, "values() of a table of texts")
        row = self._row(form, node.index, env, _READ, node.at[0])
        order, value, width = self._starts(form, row)
        return f"_rt.table_values(s, {order}, {value}, {width})", "a"

    # -- writing ----------------------------------------------------------------------------------------------
    def assign_item(self, node, env):
        """The lines of `xs[i] op= v` (a list of single values), `t[i][k] op= v` or `t[i] = table(...)` (a list of
        tables); None for any other assignment."""
        target, at = node.target, node.at[0]
        if not isinstance(target, N.Index):
            return None
        found = self._list_var(target.obj)
        if found is not None and isinstance(found[1].item, Atom):
            return self._list_item(node, found[1], env, at)
        if found is not None and self._tables(target.obj) is not None:
            return self._whole_table(node, found[1], env, at)
        if isinstance(target.obj, N.Index) and self._tables(target.obj.obj) is not None:
            return self._table_item(node, self._tables(target.obj.obj)[1], env, at)
        found = self._place_list(target.obj)
        if found is not None:  # xs[p][i] of a variable of a list per seat or key
            var, form = found
            lines = [f"lp = {self.row(var, target.obj.index, env, at, write=True)}"]
            return lines + self._list_item(node, form, env, at, "lp")
        return None

    def _combined(self, node, env, old: str) -> str:
        code, rep = self.p.ex(node.value, env)
        if rep != "i":
            raise self.p.unsupported(node, "a list written where a single value is held")
        if node.op == "=":
            return code
        op = node.op[:-1]
        if op in ("//", "%"):
            return f"_divided({old}, {code}, {op == '%'})"
        if op not in ("+", "-", "*"):
            raise self.p.unsupported(node, f"the assignment {node.op} of these values")
        return f"({old} {op} {code})"

    def _list_item(self, node, form, env, at, place: str | None = None) -> list:
        """The lines of `xs[i] op= v` of a list of single values (`place`: the code of the variable's place, one
        per seat or key, where it has several)."""
        atom = form.item
        message = _WRITTEN if node.op == "=" else _READ  # (x[i] += v reads x[i] first)
        start = self.fields[atom.leaf.name].ident
        if place is not None:  # (a place's items are the `capacity` words from its start)
            start = f"{start} + {place} * {form.capacity}"
        lines = [f"li = {self._row(form, node.target.index, env, message, at, place or '0')}"]
        value = self._combined(node, env, self._read_value(atom, f"s[{start} + li]"))
        return lines + [f"s[{start} + li] = {self._number(atom, value, at)}"]

    def _table_item(self, node, form, env, at) -> list:
        keyed = form.item
        order, value, width = self._starts(form, "ti")
        codes = self._key_codes(node, keyed)
        lines = [f"ti = {self._row(form, node.target.obj.index, env, _READ, at)}",
                 f"tk = _rt.table_column({codes}, {self.p.scalar(node.target.index, env)}, "
                 f"{self._key_error(keyed, at, write=True)})"]
        if node.op != "=":  # the item is read first: a missing key is a KeyError
            bases = self._bases(form)
            lines.append(f"_rt.table_get(s, {bases[0]}, {bases[1]}, {width}, ti, {codes}, {codes}[tk], "
                         f"{self._key_error(keyed, at)})")
        new = self._combined(node, env, self._read_value(keyed.value, f"s[{value} + tk]"))
        return lines + [f"tv = {self._number(keyed.value, new, at)}",
                        f"_rt.table_put(s, {order}, {width}, tk)", f"s[{value} + tk] = tv"]

    def _whole_table(self, node, form, env, at) -> list:
        made = node.value
        if node.op != "=" or not (isinstance(made, N.Call) and made.target == "builtin" and made.func == "table"
                                  and len(made.args) == 1 and not made.kwargs and isinstance(made.args[0], N.Comp)
                                  and isinstance(made.args[0].elt, N.Display) and len(made.args[0].elt.items) == 2):
            raise self.p.unsupported(node, "a table written whole but from table() of a comprehension of pairs")
        keyed, comp = form.item, made.args[0]
        codes = self._key_codes(node, keyed)
        order, value, width = self._starts(form, "ti")
        lines = ["tn = 0", "tw = np.empty(" + str(width) + ", np.int64)", "tw[:] = -1",
                 "tx = np.zeros(" + str(width) + ", np.int64)"]
        self.p.loops += 1
        loops, inner, pad = self.p._comprehension_loops(comp, dict(env), "", f"t{self.p.loops}_")
        lines += loops
        key, item = comp.elt.items
        lines += [f"{pad}tk = _rt.table_column({codes}, {self.p.scalar(key, inner)}, "
                  f"{self._key_error(keyed, at, write=True)})",
                  f"{pad}tv = {self._number(keyed.value, self.p.scalar(item, inner), at)}",
                  f"{pad}if tw[tk] < 0:", f"{pad}    tw[tk] = tn", f"{pad}    tn += 1", f"{pad}tx[tk] = tv"]
        return lines + [f"ti = {self._row(form, node.target.index, env, _WRITTEN, at)}",
                        f"for tj in range({width}):", f"    s[{order} + tj] = tw[tj]", f"    s[{value} + tj] = tx[tj]"]
