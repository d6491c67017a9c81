"""Variables holding a table (`{}`), one place, in compiled code: the layout holds, for each key the table's type
allows, its place in the table's order (-1: absent) and its value (ir/forms.py Keyed), as an item of a list of
tables is held (items.py, whose code and runtime helpers this shares: the table is row 0). Read as `key in t`,
`t[key]` and `values(t)` (in the order the keys were added), written as `t[key] = value`, as a Python dict
behaves: a new key goes last, a key written again keeps its place. Keys are texts, whole numbers, seats or none;
values single whole numbers, texts, seats or cells. Anything else is Unsupported, located."""

from __future__ import annotations

from ...ir import nodes as N
from ...ir.forms import Atom, Keyed

_VALUES = ("int", "seat", "cell", "text")


class KeyedVars:
    """The code reading and writing the table variables of one game, printed into `printer`'s module."""

    def __init__(self, printer):
        self.p, self.m = printer, printer.m
        self.slots, self.fields = printer.packing.layout.slots, printer.packing.fields

    def form(self, node):
        """The Keyed form of variable `node` when it holds a table in one place, else None."""
        if not isinstance(node, N.Ref) or node.kind != "var":
            return None
        slot = self.slots.get(f"var.{node.name}")
        if slot is None or not slot.fits or not isinstance(slot.form, Keyed):
            return None
        if slot.places is not None:
            raise self.p.unsupported(node, f"variable '{node.name}', a table per seat or key")
        value = slot.form.value
        if not isinstance(value, Atom) or value.kind not in _VALUES:
            raise self.p.unsupported(node, f"variable '{node.name}', a table of values of several kinds")
        return slot.form

    def _runs(self, form) -> tuple:
        """(where the table's order starts, where its values start, the number of possible keys)."""
        return self.fields[form.order.name].ident, self.fields[form.value.leaf.name].ident, len(form.keys)

    def contains(self, node, form, key: str) -> str:
        order, _, _ = self._runs(form)
        return f"_rt.table_has(s, {order}, {self.p.places._key_codes(node, form)}, {key})"

    def read(self, index, form, env) -> tuple:
        """t[key]: Python's KeyError where the table has no such key."""
        places, (order, value, width) = self.p.places, self._runs(form)
        get = (f"_rt.table_get(s, {order}, {value}, {width}, 0, {places._key_codes(index, form)}, "
               f"{self.p.scalar(index.index, env)}, {places._key_error(form, index.at[0])})")
        return places._read_value(form.value, get), "i"

    def values(self, node, form) -> tuple:
        order, value, width = self._runs(form)
        return self.p.places._read_value(form.value, f"_rt.table_values(s, {order}, {value}, {width})"), "a"

    def write(self, target, form, value: str, env, at) -> list:
        """Lines writing `value` (a single value's code) at t[key]: a new key goes last."""
        places, (order, values, width) = self.p.places, self._runs(form)
        return [f"tk = _rt.table_column({places._key_codes(target, form)}, {self.p.scalar(target.index, env)}, "
                f"{places._key_error(form, at, write=True)})",
                f"tv = {places._number(form.value, value, at)}",
                f"_rt.table_put(s, {order}, {width}, tk)", f"s[{values} + tk] = tv"]
