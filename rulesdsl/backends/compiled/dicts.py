"""Tables fixed at load (data, or a `let:` of the file, whose value is a dict) read by key in compiled code: the keys
and the values as two constant arrays, the key searched for (a table of single values only)."""

from __future__ import annotations

from ...ir import nodes as N

LOOKUP = '''@_jit
def _lookup(keys, values, key, code):
    for i in range(keys.shape[0]):
        if keys[i] == key:
            return values[i]
    raise ValueError(code)'''


class ConstDicts:
    """Printer methods (mixed into printer.Printer) for tables fixed at load."""

    def const_dict(self, node) -> dict | None:
        """The dict a name fixed at load holds, or None where `node` is no such name."""
        binding = getattr(node, "binding", None)
        if isinstance(node, N.Ref) and node.const and node.kind in ("data", "global") and binding is not None \
                and binding.is_const and isinstance(binding.const, dict):
            return binding.const
        return None

    def dict_lookup(self, node, table: dict, key, env) -> str:
        """table[key] (KeyError where it has no such key, as in Python), `node` the expression reading it."""
        keys = [self._single(k) for k in table]
        values = [self._single(v) for v in table.values()]
        if None in keys or None in values:
            raise self.unsupported(node, "a table fixed at load whose keys or values are not single values")
        shown = getattr(node, "name", "") or getattr(getattr(node, "obj", None), "name", "")
        name = (shown, tuple(table))  # (tables of one name differ between options: keyed by their keys too)
        ks = self.m.table(("dict-keys", repr(keys)), [int(k) for k in keys])
        vs = self.m.table(("dict-values", name, repr(values)), [int(v) for v in values])
        code = self.m.code("KeyError: a key the table does not hold", node.at[0])
        self.m.functions.setdefault(("helper", "lookup"), ("_lookup", LOOKUP))
        return f"_lookup({ks}, {vs}, {self.scalar(key, env)}, {code!r})"
