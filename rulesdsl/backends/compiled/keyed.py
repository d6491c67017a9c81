"""Variables holding a table (`{}`), one place, in compiled code: the layout holds, for each key the table's type
allows, its place in the table's order (-1: absent) and its value (ir/forms.py Keyed). Read as `key in t`,
`t[key]` and `values(t)` (in the order the keys were added), written as `t[key] = value`, as a Python dict
behaves: a new key goes last, a key written again keeps its place. Keys are texts, whole numbers, seats or cells;
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

    def _keys(self, node, form) -> str:
        """The table of the numbers the allowed keys are printed as."""
        numbers = []
        for key in form.keys:
            if key is None:
                numbers.append(-1)
            elif isinstance(key, str):
                numbers.append(self.m.text(key))
            elif isinstance(key, int) and not isinstance(key, bool):
                numbers.append(int(key))
            else:
                raise self.p.unsupported(node, f"variable '{node.name}', a table with keys of this kind")
        if len(set(numbers)) != len(numbers):  # none and -1 both allowed: they would read alike
            raise self.p.unsupported(node, f"variable '{node.name}', a table whose keys read alike")
        return self.m.table(("keys", node.name), numbers)

    def _runs(self, form) -> tuple:
        return self.fields[form.order.name].ident, self.fields[form.value.leaf.name].ident, len(form.keys)

    def _value(self, form, place: str) -> str:
        return self.p.places._atom(form.value, place)

    def contains(self, node, form, key: str) -> str:
        order, _, _ = self._runs(form)
        return f"_rt.key_index({self._keys(node, form)}, {key}) >= 0 and " \
               f"s[{order} + _rt.key_index({self._keys(node, form)}, {key})] >= 0"

    def read(self, index, form, env) -> tuple:
        """t[key]: an error where the table has no such key (as Python's KeyError)."""
        node = index.obj
        order, _, _ = self._runs(form)
        missing = self.m.code("KeyError: the table has no such key", index.at[0])
        self.m.functions.setdefault(("helper", "keyed_at"), ("_keyed_at", HELPER))
        at = f"_rt.key_index({self._keys(node, form)}, {self.p.scalar(index.index, env)})"
        return self._value(form, f"_keyed_at(s, {order}, {at}, {missing!r})"), "i"

    def values(self, node, form) -> tuple:
        order, value, n = self._runs(form)
        code = f"_rt.keyed_values(s, {order}, {value}, {n})"
        if form.value.kind == "text":
            code = f"{self.p.places.enum(form.value)}[{code}]"
        return code, "a"

    def write(self, target, form, value: str, env, at) -> list:
        """Lines writing `value` (a single value's code) at t[key]: a new key goes last."""
        node = target.obj
        order, values, n = self._runs(form)
        refused = self.m.code(f"variable '{node.name}': a key its type does not allow", at)
        return [f"ki = _rt.key_index({self._keys(node, form)}, {self.p.scalar(target.index, env)})",
                "if ki < 0:", f"    raise ValueError({refused!r})",
                f"kv = {value}",
                f"if s[{order} + ki] < 0:", f"    s[{order} + ki] = _rt.keyed_count(s, {order}, {n})",
                f"s[{values} + ki] = {self.p.places._number(form.value, 'kv', at)}"]


HELPER = '''@_jit
def _keyed_at(s, order, i, code):
    if i < 0 or s[order + i] < 0:
        raise ValueError(code)
    return i'''
