"""The most items a list expression can hold, worked out from the IR where its type does not say: a list fixed
at load, a comprehension over such lists, a function of the file returning one, a choice between two."""

from __future__ import annotations

from ...ir import nodes as N
from ...lang.builtins import counted_choices

_DEPTH = 16  # functions calling functions: deeper than this, no bound is claimed
_MOST = 1_000_000  # a bound beyond this is none: no list compiled code makes holds more


def length_bound(node, ir, depth: int = 0) -> int | None:
    """An upper bound on the length of the list `node` gives, or None where none is known (or beyond _MOST)."""
    found = _bound(node, ir, depth)
    return found if found is not None and found <= _MOST else None


def _bound(node, ir, depth: int) -> int | None:
    if node is None or depth > _DEPTH:
        return None
    t = node.type
    if t is not None and t.name in ("list", "seq", "range") and t.high is not None:
        return t.high
    if isinstance(node, N.Ref):
        if node.kind == "engine" and node.name == "players":
            return ir.seats
        binding = node.binding
        if node.const and binding is not None and binding.is_const and isinstance(binding.const, (list, tuple)):
            return len(binding.const)
        return None
    if isinstance(node, N.Range):
        low, high = constant(node.low, ir), constant(node.high, ir)
        if _whole(low) and _whole(high):
            return max(high - low + 1, 0)
        return None
    if isinstance(node, N.Display) and node.kind == "list":
        return len(node.items)
    if isinstance(node, N.Cond):
        a, b = length_bound(node.then, ir, depth + 1), length_bound(node.other, ir, depth + 1)
        return None if a is None or b is None else max(a, b)
    if isinstance(node, N.Comp) and not node.generator:
        total = 1
        for clause in node.clauses:  # conditions only leave items out
            found = length_bound(clause.iterable, ir, depth + 1)
            if found is None:
                return None
            total *= found
        return total
    if isinstance(node, N.Call) and node.target == "builtin" and node.func == "distinct" and len(node.args) == 1:
        return _distinct(node.args[0], ir, depth)
    if isinstance(node, N.Call) and node.target == "builtin" and node.func in ("combinations", "permutations") \
            and node.args and not node.kwargs:
        return _choices(node, ir, depth)
    if isinstance(node, N.Call) and node.target == "builtin" and node.func == "subsets" and len(node.args) == 1:
        n = length_bound(node.args[0], ir, depth + 1)
        return None if n is None or n > 20 else 2 ** n
    if isinstance(node, N.Call) and node.target == "function" and node.func in ir.functions:
        fn = ir.functions[node.func]
        return length_bound(fn.value, ir, depth + 1) if fn.kind == "function" else None
    return None


def _choices(node, ir, depth: int) -> int | None:
    """The most lists combinations() or permutations() of a list of at most n items gives: for a size fixed at
    load, that many choices of n; else the most of any size (None past _MOST: counted up to it, never further)."""
    n = length_bound(node.args[0], ir, depth + 1)
    if n is None:
        return None
    ordered = node.func == "permutations"
    k = constant(node.args[1], ir) if len(node.args) > 1 else n if ordered else _NOT_KNOWN
    sizes = [k] if _whole(k) else range(n + 1)
    most = 0
    for size in sizes:
        count, past = counted_choices(n, size, ordered, _MOST)
        if past:
            return None
        most = max(most, count)
    return most


def _distinct(xs, ir, depth: int) -> int | None:
    """The most items distinct() of `xs` gives: as many as its items' type has values (texts or whole numbers
    named by it), else as many as `xs` holds."""
    item = xs.type.items[0] if xs.type is not None and xs.type.name in ("list", "seq") and xs.type.items else None
    if item is not None and item.name == "text" and item.names:
        return len(item.names)
    if item is not None and item.name == "int" and item.low is not None and item.high is not None:
        return max(item.high - item.low + 1, 0)
    if isinstance(xs, N.Comp):  # (a generator's items, as its list's)
        total = 1
        for clause in xs.clauses:
            found = length_bound(clause.iterable, ir, depth + 1)
            if found is None:
                return None
            total *= found
        return total
    return length_bound(xs, ir, depth + 1)


_NOT_KNOWN = object()
_ARITH = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def constant(node, ir, depth: int = 0):
    """The value of an expression fixed at load (constants, names fixed at load, a pure built-in of them, + - * of
    whole numbers), or a marker object where it is not one."""
    if depth > _DEPTH:
        return _NOT_KNOWN
    if isinstance(node, N.Const):
        return node.value
    if isinstance(node, N.Ref):
        binding = node.binding
        return binding.const if node.const and binding is not None and binding.is_const else _NOT_KNOWN
    if isinstance(node, N.Unary) and node.op == "-":
        value = constant(node.operand, ir, depth + 1)
        return -value if _whole(value) else _NOT_KNOWN
    if isinstance(node, N.Binary) and node.op in _ARITH:
        a, b = constant(node.left, ir, depth + 1), constant(node.right, ir, depth + 1)
        return _ARITH[node.op](a, b) if _whole(a) and _whole(b) else _NOT_KNOWN
    if isinstance(node, N.Call) and node.target == "builtin" and not node.kwargs:
        declared = ir.builtins.get(node.func)
        if declared is None or not getattr(declared, "fold", False):
            return _NOT_KNOWN
        args = [constant(a, ir, depth + 1) for a in node.args]
        if any(a is _NOT_KNOWN for a in args):
            return _NOT_KNOWN
        try:
            return declared.fn(*args)
        except Exception:  # noqa: BLE001 - not a constant after all: printed as a call, which reports it
            return _NOT_KNOWN
    return _NOT_KNOWN
