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

    def b_product(self, node, env):
        if node.kwargs or not node.args:
            raise self.unsupported(node, "this call of product()")
        code = repr(self.m.code("product(): a whole number beyond 64 bits, which compiled code does not hold",
                                node.at[0], "load the game with backend='python', whose numbers have up to 8,192 "
                                            "bits"))
        self.m.functions.setdefault(("helper", "product"), ("_product", PRODUCT))
        self.m.functions.setdefault(("helper", "times"), ("_times", TIMES))
        if len(node.args) > 1 or node.args[0].type.name in _WHOLE:  # of the values given
            if any(a.type.name not in _WHOLE for a in node.args):
                raise self.unsupported(node, "product() of values that are not whole numbers")
            value = "1"
            for a in node.args:
                value = f"_times({value}, {self.scalar(a, env)}, {code})"
            return value, "i"
        xs = node.args[0]
        whole = self.whole_valued(xs.elt) if isinstance(xs, N.Comp) else _whole_items(xs.type)
        if not whole:
            raise self.unsupported(node, "product() of numbers that are not whole")
        seq, rep = self.ex(xs, env)
        if rep != "a":
            raise self.unsupported(node, "product() of this")
        return f"_product({seq}, {code})", "i"


TIMES = '''@_tiny
def _times(a, b, code):
    if a == 0 or b == 0:
        return 0
    p = a * b
    if (a == -1 and b == -(1 << 63)) or (b == -1 and a == -(1 << 63)) or p // b != a:
        raise ValueError(code)
    return p'''

PRODUCT = '''@_jit
def _product(xs, code):
    p = 1
    for i in range(xs.shape[0]):
        p = _times(p, xs[i], code)
    return p'''
