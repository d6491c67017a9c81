"""Built-ins of numbers printed for compiled code (a mixin of printer.Printer): product() of whole numbers, each
multiplication checked to stay within 64 bits (the Python engine's numbers grow to 8,192 bits: a product beyond 64
is an error located at the call, never a number wrapped round)."""

from __future__ import annotations

from ...ir import nodes as N

_WHOLE = frozenset({"int", "bool"})


def _whole_items(t) -> bool:
    """Whether every item of a list of type `t` is a whole number (or true or false)."""
    if t.name not in ("list", "seq", "range", "tuple") or not t.items:
        return t.name == "range"
    return all(item.name in _WHOLE for item in t.items)


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

PRODUCT = '''@_jit
def _product(xs, code):
    p = 1
    for i in range(xs.shape[0]):
        p = _times(p, xs[i], code)
    return p'''
