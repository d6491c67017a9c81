"""Built-ins of numbers printed for compiled code (a mixin of printer.Printer): min() of a list, and product() of
whole numbers, each multiplication checked to stay within 64 bits (the Python engine's numbers grow to 8,192 bits:
a product beyond 64 is an error located at the call, never a number wrapped round)."""

from __future__ import annotations

from ...ir import nodes as N
from ...lang import types as T

_WHOLE = frozenset({"int", "bool"})
_ORDERED = frozenset({"int", "seat", "cell", "bool"})  # kinds whose order is their whole number's order


def _whole_items(t) -> bool:
    """Whether every item of a list of type `t` is a whole number (or true or false)."""
    if t.name not in ("list", "seq", "range", "tuple") or not t.items:
        return t.name == "range"
    return all(item.name in _WHOLE for item in t.items)


def _ordered(t) -> bool:
    kinds = {m.name for m in t.items} if t.name == "union" else {t.name}
    return kinds <= _ORDERED


class NumberBuiltins:
    """Built-ins (`b_<name>(node, env) -> (code, rep)`) as in printer.Printer."""

    def whole_product(self, node) -> bool:
        """Whether `node` is a product() this prints (of whole numbers: a whole number, though typed a number)."""
        if not (isinstance(node, N.Call) and node.target == "builtin" and node.func == "product") \
                or node.kwargs or not node.args:
            return False
        if len(node.args) > 1 or node.args[0].type.name in _WHOLE:
            return all(a.type.name in _WHOLE for a in node.args)
        xs = node.args[0]
        return self.whole_valued(xs.elt) if isinstance(xs, N.Comp) else _whole_items(xs.type)

    def min_of_list(self, node, env):
        """min(xs) and min(xs, default=d) of whole numbers, seats or cells (an empty list without a default: the
        Python engine's error)."""
        kwargs = dict(node.kwargs)
        if len(node.args) != 1 or set(kwargs) - {"default"}:
            raise self.unsupported(node, "this call of min()")
        item = T.item_type(node.args[0].type)
        given = kwargs.get("default")
        if not _ordered(item) or given is not None and not _ordered(given.type):
            raise self.unsupported(node, "min() of a list of anything but whole numbers, seats or cells")
        seq, rep = self.ex(node.args[0], env)
        if rep != "a":
            raise self.unsupported(node, "min() of this")
        empty = self.m.code("min() of an empty collection (give default=...)", node.at[0])
        self.m.functions.setdefault(("helper", "min_of"), ("_min_of", MIN_OF))
        default = self.scalar(given, env) if given is not None else "0"
        return f"_min_of({seq}, {default}, {given is not None}, {empty!r})", "i"

    def b_product(self, node, env):
        if node.kwargs or not node.args:
            raise self.unsupported(node, "this call of product()")
        code = repr(self.m.code("product(): a whole number beyond 64 bits, which compiled code does not hold",
                                node.at[0], "load the game with backend='python', whose numbers have up to 8,192 "
                                            "bits"))
        self.m.functions.setdefault(("helper", "product"), ("_product", PRODUCT))
        self.m.functions.setdefault(("helper", "times"), ("_times", TIMES))
        if not self.whole_product(node):
            raise self.unsupported(node, "product() of numbers that are not whole")
        if len(node.args) > 1 or node.args[0].type.name in _WHOLE:  # of the values given
            value = "1"
            for a in node.args:
                value = f"_times({value}, {self.scalar(a, env)}, {code})"
            return value, "i"
        seq, rep = self.ex(node.args[0], env)
        if rep != "a":
            raise self.unsupported(node, "product() of this")
        return f"_product({seq}, {code})", "i"


# (checked before multiplying, by divisions that round toward zero, as C's: the compiler may take a product that
# wrapped round, divided back, for the factor)
TIMES = '''@_tiny
def _toward_zero(x, y):
    q = x // y
    if q < 0 and q * y != x:
        q += 1
    return q


@_tiny
def _times(a, b, code):
    top = 9223372036854775807
    low = -top - 1
    if a > 0:
        wraps = a > _toward_zero(top, b) if b > 0 else b < _toward_zero(low, a)
    elif a < 0:
        wraps = a < _toward_zero(low, b) if b > 0 else b != 0 and b < _toward_zero(top, a)
    else:
        wraps = False
    if wraps:
        raise ValueError(code)
    return a * b'''

MIN_OF = '''@_jit
def _min_of(xs, default, has_default, code):
    if xs.shape[0] == 0:
        if not has_default:
            raise ValueError(code)
        return default
    best = xs[0]
    for i in range(1, xs.shape[0]):
        if xs[i] < best:
            best = xs[i]
    return best'''

PRODUCT = '''@_jit
def _product(xs, code):
    p = 1
    for i in range(xs.shape[0]):
        p = _times(p, xs[i], code)
    return p'''
