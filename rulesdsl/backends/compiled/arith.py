"""Whole-number arithmetic printed for compiled code (a mixin of printer.Printer): + - * and sum() checked to stay
within 64 bits wherever the bounds of their operands (their types, constants) do not show that they do, product(),
and min() of a list. The Python engine's numbers grow to 8,192 bits: a number beyond 64 is an error located at the
expression that made it, never a number wrapped round."""

from __future__ import annotations

from ...ir import nodes as N
from ...lang import types as T
from .bounds import length_bound

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


_TOP = (1 << 63) - 1
_LOW = -(1 << 63)
_BOUNDED = {"+": lambda a, b: (a[0] + b[0], a[1] + b[1]), "-": lambda a, b: (a[0] - b[1], a[1] - b[0]),
            "*": lambda a, b: (min(x * y for x in a for y in b), max(x * y for x in a for y in b))}
_HELPERS = {"+": "_plus", "-": "_minus", "*": "_times"}
WIDE = "a whole number beyond 64 bits, which compiled code does not hold"
WIDE_HINT = "load the game with backend='python', whose numbers have up to 8,192 bits"


def bounds(node, depth: int = 0) -> tuple | None:
    """(lowest, highest) whole number `node` can give, where its type or its parts say; else None."""
    if depth > 32:
        return None
    if isinstance(node, N.Const):
        value = node.value
        return (int(value), int(value)) if isinstance(value, (int, bool)) else None
    t = node.type
    if t is not None and t.name == "int" and t.low is not None and t.high is not None:
        return t.low, t.high
    if t is not None and t.name == "bool":
        return 0, 1
    if isinstance(node, N.Unary) and node.op == "-":
        found = bounds(node.operand, depth + 1)
        return None if found is None else (-found[1], -found[0])
    if isinstance(node, N.Binary) and node.op in _BOUNDED:
        a, b = bounds(node.left, depth + 1), bounds(node.right, depth + 1)
        return None if a is None or b is None else _BOUNDED[node.op](a, b)
    if isinstance(node, N.Cond):
        a, b = bounds(node.then, depth + 1), bounds(node.other, depth + 1)
        return None if a is None or b is None else (min(a[0], b[0]), max(a[1], b[1]))
    return None


def _fits(found) -> bool:
    return found is not None and _LOW <= found[0] and found[1] <= _TOP


class NumberBuiltins:
    """Built-ins (`b_<name>(node, env) -> (code, rep)`) as in printer.Printer, and checked arithmetic."""

    def arithmetic(self, op: str, left: str, right: str, a, b, at) -> str:
        """`left op right` (+, - or *) of whole numbers, the nodes `a` and `b` (None: not known): checked to stay
        within 64 bits (an error located at `at`) unless their bounds show it does."""
        ka = None if a is None else bounds(a)
        kb = None if b is None else bounds(b)
        if ka is not None and kb is not None and _fits(_BOUNDED[op](ka, kb)):
            return f"({left} {op} {right})"
        self.m.functions.setdefault(("helper", "times"), ("_times", TIMES))
        self.m.functions.setdefault(("helper", "plus"), ("_plus", PLUS))
        return f"{_HELPERS[op]}({left}, {right}, {self.wide_code(at)!r})"

    def wide_code(self, at) -> str:
        """The code of the error of a whole number beyond 64 bits made at `at` (one per place)."""
        codes = self.m.wide_codes
        if at not in codes:
            codes[at] = self.m.code(WIDE, at, WIDE_HINT)
        return codes[at]

    def summed(self, total: str, item: str, elt, count: int | None, at) -> str:
        """The statement adding `item` (the node `elt`) to `total` in a sum of at most `count` items (None: not
        known), checked as arithmetic() is."""
        found = bounds(elt) if count is not None else None
        if found is not None and _fits((min(0, found[0] * count), max(0, found[1] * count))):
            return f"{total} += {item}"
        return f"{total} = {self.arithmetic('+', total, item, None, None, at)}"

    def sum_of(self, seq: str, xs, at) -> str:
        """sum() of the whole numbers of the array `seq` (the node `xs`), checked as arithmetic() is."""
        count = length_bound(xs, self.ir)
        found = bounds_of_items(xs)
        if count is not None and found is not None and _fits((min(0, found[0] * count), max(0, found[1] * count))):
            return f"np.sum({seq})"
        self.m.functions.setdefault(("helper", "times"), ("_times", TIMES))
        self.m.functions.setdefault(("helper", "plus"), ("_plus", PLUS))
        self.m.functions.setdefault(("helper", "sum"), ("_sum64", SUM64))
        return f"_sum64({seq}, {self.wide_code(at)!r})"

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


def bounds_of_items(xs) -> tuple | None:
    """(lowest, highest) of the whole numbers a list `xs` holds, where its type says."""
    item = xs.type.items[0] if xs.type is not None and xs.type.name in ("list", "seq") and xs.type.items else None
    if item is None or item.name not in _WHOLE:
        return None
    return (0, 1) if item.name == "bool" else (item.low, item.high) if None not in (item.low, item.high) else None


# (the sign of a sum that wrapped round differs from both of its operands')
PLUS = '''@_tiny
def _plus(a, b, code):
    r = a + b
    if ((a ^ r) & (b ^ r)) < 0:
        raise ValueError(code)
    return r


@_tiny
def _minus(a, b, code):
    r = a - b
    if ((a ^ b) & (a ^ r)) < 0:
        raise ValueError(code)
    return r'''

# a whole list folded by a checked operation: sum() by _plus from 0, product() by _times from 1
FOLD = '''@_jit
def {name}(xs, code):
    acc = {start}
    for i in range(xs.shape[0]):
        acc = {step}(acc, xs[i], code)
    return acc'''
SUM64 = FOLD.format(name="_sum64", start=0, step="_plus")

# (checked before multiplying, by divisions that round toward zero, as C's: the compiler may take a product that
# wrapped round, divided back, for the factor; factors within 32 bits cannot wrap)
TIMES = '''@_tiny
def _toward_zero(x, y):
    q = x // y
    if q < 0 and q * y != x:
        q += 1
    return q


@_tiny
def _times(a, b, code):
    if -2147483648 <= a <= 2147483647 and -2147483648 <= b <= 2147483647:
        return a * b
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

PRODUCT = FOLD.format(name="_product", start=1, step="_times")
