"""Reading into data fixed at load (a mixin of printer.Printer): `d[k1][k2]...` where `d` is the file's data or a
global let whose value is known when the game loads (lists and tables nested, their leaves numbers or texts), and
the keys are worked out while playing.

The whole chain of indexes is printed as one lookup in a flat table of the leaves it can reach: per key worked out
while playing, a dimension (a list's positions, or a table's keys found through a table of their codes); keys
written as constants are applied as the module is printed. A call of one of the file's functions whose value is
such a chain (no lets) is read through, its params bound to the caller's values. A key that is not there fails as
Python's indexing fails (IndexError, KeyError with the key); a leaf that is a fraction makes a fraction (rep `f`).
"""

from __future__ import annotations

import math

from ...ir import nodes as N
from ...lang import types as T
from ...model.values import Cell
from .messages import ValueMessage
from .unsupported import Unsupported

MAX_TABLE = 1 << 16  # the most leaves one lookup's table holds
EXACT = 1 << 53  # a whole number beside fractions in one table is exact in float64 below this


class _Missing:
    """A leaf the keys do not reach: the error Python gives there."""

    def __init__(self, message: str):
        self.message = message


class ConstData:
    """See the module's docstring."""

    def const_lookup(self, node, env):
        """(code, rep) of an index into data fixed at load reaching numbers or texts, else None."""
        if not isinstance(node, N.Index) or not self._rooted(node):
            return None
        value, keys = self._const_chain(node, env)
        return self._lookup(node, value, keys)

    def _rooted(self, node, depth: int = 0) -> bool:
        """Whether `node` is a chain of indexes into data fixed at load (read through the file's functions)."""
        while isinstance(node, N.Index):
            node = node.obj
        if isinstance(node, N.Ref) and node.kind in ("data", "global") and node.const:
            binding = node.binding
            return binding is not None and binding.is_const and isinstance(binding.const, (list, tuple, dict))
        if isinstance(node, N.Call) and node.target == "function" and depth < 16:
            fn = self.ir.functions.get(node.func)
            return fn is not None and fn.kind == "function" and not fn.lets and not node.kwargs \
                and len(node.args) == len(fn.params) and self._rooted(fn.value, depth + 1)
        return False

    def _const_chain(self, node, env):
        """(the fixed value at the root, [(key node, its env)...]) of a chain of indexes (see _rooted)."""
        if isinstance(node, N.Index):
            value, keys = self._const_chain(node.obj, env)
            return value, keys + [(node.index, env)]
        if isinstance(node, N.Ref):
            return node.binding.const, []
        fn = self.ir.functions[node.func]  # (the params bound to the caller's values, worked out once each)
        args = self.mixed_args(fn, node.args, [self.ex(a, env) for a in node.args])
        return self._const_chain(fn.value, dict(zip(fn.params, args)))

    def _lookup(self, node, value, keys):
        entries = {(): value}  # positions along the dimensions so far -> the value there
        dims = []  # (code of the position, its size)
        for key, env in keys:
            if isinstance(key, N.Const):
                entries = {at: _apply(v, key.value) for at, v in entries.items()}
                continue
            live = [v for v in entries.values() if not isinstance(v, _Missing)]
            if not live:
                break
            if all(isinstance(v, (list, tuple)) for v in live):
                size = len(live[0])
                if any(len(v) != size for v in live) or not T.kinds(key.type) <= {T.INT, T.BOOL}:
                    raise Unsupported(self.m.locate(key), "an index into lists of different lengths, or not by "
                                      "a whole number (one that may be none, too)")
                error = self.m.code("IndexError: list index out of range", key.at[0])
                dims.append((f"_rt.list_index({self.scalar(key, env)}, {size}, {error!r})", size))
                entries = {at + (j,): (v[j] if not isinstance(v, _Missing) else v)
                           for at, v in entries.items() for j in range(size)}
            elif all(isinstance(v, dict) for v in live):
                dims.append(self._key_dim(key, env, live))
                order = self._key_order
                entries = {at + (j,): (v.get(k, _Missing(f"KeyError: {k!r}")) if not isinstance(v, _Missing)
                                       else v) for at, v in entries.items() for j, k in enumerate(order)}
            else:
                raise Unsupported(self.m.locate(key), "an index into data of different kinds")
            if len(entries) > MAX_TABLE:
                raise Unsupported(self.m.locate(node), f"a lookup into data of more than {MAX_TABLE} values")
        return self._leaves(node, entries, dims)

    def _key_dim(self, key, env, tables) -> tuple:
        """The dimension of a table's keys (texts, or whole numbers), found through a table of their codes."""
        keys = []
        for t in tables:
            keys += [k for k in t if k not in keys]
        kinds = T.kinds(key.type) - {T.NONE}  # (none is no key: KeyError: None)
        if all(isinstance(k, str) for k in keys) and kinds <= {T.TEXT}:
            codes = [self.m.text(k) for k in keys]
        elif keys and all(isinstance(k, int) and not isinstance(k, bool) for k in keys) \
                and T.kinds(key.type) <= {T.INT, T.BOOL}:  # (not a number that may be none: none's code is one)
            codes = list(keys)
        else:
            raise Unsupported(self.m.locate(key), "a key of data that is not a text or a whole number of its keys")
        self._key_order = keys
        low = min(codes, default=0)
        if codes and max(codes) - low >= MAX_TABLE:
            raise Unsupported(self.m.locate(key), "the keys of data spread too far apart")
        rows = [-1] * ((max(codes) - low + 1) if codes else 0)
        for j, c in enumerate(codes):
            rows[c - low] = j
        table = self.m.table(("data keys", tuple(codes)), rows)
        texts, text_keys = self.m.texts, isinstance(keys[0], str) if keys else False

        def shown(code: int):  # (texts are numbered as the module is printed: looked up when shown)
            if code == -1 and text_keys:
                return "None"
            text = next((t for t, n in texts.items() if n == code), None) if text_keys else None
            return repr(text) if text is not None else code
        error = self.m.code(ValueMessage("KeyError: {0}", shown), key.at[0])
        return f"_rt.key_row({table}, {low}, {self.scalar(key, env)}, {error!r})", len(keys)

    def _leaves(self, node, entries, dims):
        values = list(entries.values())
        live = [v for v in values if not isinstance(v, _Missing)]
        if not live:
            raise Unsupported(self.m.locate(node), "a lookup into data that reaches no value")
        floats = any(isinstance(v, float) for v in live)
        if all(isinstance(v, str) for v in live):
            leaves, rep = [self.m.text(v) for v in live], "i"
        elif all(isinstance(v, (int, float)) and not isinstance(v, Cell) for v in live):
            if floats and not all(isinstance(v, float) and math.isfinite(v) or isinstance(v, int) and -EXACT < v < EXACT
                                  for v in live):
                raise Unsupported(self.m.locate(node), "data of fractions beside numbers a fraction does not hold")
            leaves, rep = live, "f" if floats else "i"
        else:  # lists, tables, cells: read as the other lookups into data read them (dicts.py, routes.py)
            return None
        at, stride = [], 1
        for code, size in reversed(dims):
            at.append(f"{code} * {stride}" if stride != 1 else code)
            stride *= size
        flat = " + ".join(reversed(at)) or "0"
        it = iter(leaves)
        full = [(0.0 if floats else 0) if isinstance(v, _Missing) else next(it) for v in values]
        table = self.float_table(full) if floats else self.m.table(("data", repr(full)), [int(v) for v in full])
        missing = [v.message if isinstance(v, _Missing) else None for v in values]
        if not any(missing):
            return f"{table}[{flat}]", rep
        messages = sorted({m for m in missing if m})
        marks = self.m.table(("data missing", repr(missing)), [messages.index(m) if m else -1 for m in missing])
        error = self.m.code(ValueMessage("{0}", lambda i: messages[i]), node.at[0])
        return f"{table}[_rt.data_at({marks}, {flat}, {error!r})]", rep

    def float_table(self, values) -> str:
        """The name of a constant float64 array of `values` (each exact in its repr)."""
        key = ("floats", repr(values))
        if key not in self.m.tables:
            name = f"K{len(self.m.tables)}"
            self.m.tables[key] = (name, f"{name} = np.array({[float(v) for v in values]!r}, np.float64)")
        return self.m.tables[key][0]


def _apply(value, key):
    """value[key] for a key written as a constant, or the error Python gives."""
    if isinstance(value, _Missing):
        return value
    if isinstance(value, (list, tuple)):
        if not isinstance(key, int):
            return _Missing(f"TypeError: list indices must be integers or slices, not {type(key).__name__}")
        return value[key] if -len(value) <= key < len(value) else _Missing("IndexError: list index out of range")
    if isinstance(value, dict):
        return value[key] if key in value else _Missing(f"KeyError: {key!r}")
    return _Missing(f"TypeError: '{type(value).__name__}' object is not subscriptable")

