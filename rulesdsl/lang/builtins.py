"""The built-in function registry and the pure built-ins every game can use (no game state needed)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from . import checked
from ..limits import MAX_ITEMS, LimitExceeded


@dataclass
class Builtin:
    """A function callable from expressions or effects."""

    name: str
    fn: Callable
    min_args: int
    max_args: int | None  # None: any number
    signature: str
    doc: str
    category: str = "values"
    state: bool = False  # fn takes the running state as its first argument
    effect: bool = False  # changes the state: allowed only in effects
    aggregate: bool = False  # accepts a comprehension: f(x for x in xs if ...)
    keywords: tuple = ()
    fold: bool = False  # pure: with constant arguments it is evaluated once, at compile time
    # ({position: value} of the constant args, keyword names in call order) -> (fn, positions it uses): fn
    # takes the state (if any), the other args, then the keyword values in that order, and does the work
    # that depends on the constants once, at compile time; None: the general call
    specialise: Callable | None = None
    # Python template for a call whose one argument is a generator comprehension ({0}: its text, without
    # brackets), e.g. "len([{0}])" for count: no generator handed to a Python-level built-in
    over_comprehension: str | None = None
    inline: str | None = None  # Python template, e.g. "_cells[{0}]" (a local bound to S.cells)


class RuleValueError(Exception):
    """A built-in was given a value it cannot work with (reported with the rule and turn)."""


def _items(args):
    if len(args) == 1:
        (only,) = args
        if isinstance(only, (list, tuple, set, frozenset, range, dict, str)) or hasattr(only, "__iter__"):
            return list(only)
    return list(args)


def _min(*args, default=None):
    items = _items(args)
    if not items:
        if default is not None:
            return default
        raise RuleValueError("min() of an empty collection (give default=...)")
    return min(items)


def _max(*args, default=None):
    items = _items(args)
    if not items:
        if default is not None:
            return default
        raise RuleValueError("max() of an empty collection (give default=...)")
    return max(items)


def _sum(*args):
    return sum(_items(args))


def _product(*args):
    value = 1
    for x in _items(args):
        value = checked.mul(value, x)
    return value


def _count(xs):
    return sum(1 for _ in xs)


def _size(xs):
    return len(xs)


def _all(xs):
    return all(xs)


def _any(xs):
    return any(xs)


def _sorted(xs, reverse=False):
    return sorted(xs, reverse=bool(reverse))


def _distinct(xs):
    return list(dict.fromkeys(xs))


def _first(xs, default=None):
    for x in xs:
        return x
    return default


def _last(xs, default=None):
    xs = list(xs)
    return xs[-1] if xs else default


def _index_of(xs, x):
    xs = list(xs)
    if x not in xs:
        raise RuleValueError(f"index_of: {x!r} is not in the collection")
    return xs.index(x)


def _join(xs, sep=""):
    parts = [_str(x) for x in xs]
    checked.check_count(sum(map(len, parts)) + len(str(sep)) * max(0, len(parts) - 1), "the joined text")
    return str(sep).join(parts)


def _str(x):
    if isinstance(x, bool):
        return "true" if x else "false"
    if x is None:
        return "none"
    if isinstance(x, (list, tuple, dict)):
        _check_text_size(x)
    return str(x)


def _check_text_size(value) -> None:
    """LimitExceeded when a nested value would print as more text than a string may hold (a list can hold
    the same long list many times over: its text is counted before Python builds it)."""
    budget, todo = MAX_ITEMS, [value]
    while todo:
        item = todo.pop()
        if isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
            budget -= 2 * len(item) + 2
        elif isinstance(item, (list, tuple)):
            todo.extend(item)
            budget -= 2 * len(item) + 2
        else:
            budget -= len(str(item)) if isinstance(item, str) else 8
        if budget < 0:
            raise LimitExceeded(f"the text of this value would be longer than {MAX_ITEMS:,} "
                                       "characters")


def _int(x):
    return int(x)


def _abs(x):
    return abs(x)


def _floor(x):
    return math.floor(x)


def _ceil(x):
    return math.ceil(x)


def _longest_run(xs, cyclic=False):
    """Length of the longest stretch of equal neighbours (round the end too when cyclic)."""
    if type(xs) is not list:
        xs = list(xs)
    n = len(xs)
    if n == 0:
        return 0
    best = run = 1
    prev = xs[0]
    for x in xs[1:]:
        if x == prev:
            run += 1
            if run > best:
                best = run
        else:
            run = 1
            prev = x
    if cyclic and best < n and xs[0] == xs[-1]:  # the runs at both ends join round the wrap
        lead = 1
        while xs[lead] == xs[0]:
            lead += 1
        trail = 1
        while xs[n - 1 - trail] == xs[-1]:
            trail += 1
        best = max(best, lead + trail)
    return best


def _has_run(xs, length, cyclic=False):
    """True when `length` neighbouring items in a row are equal; stops at the first such run."""
    if type(xs) is not list:
        xs = list(xs)
    n = len(xs)
    if length <= 1:
        return n >= length
    if n == 0:
        return False
    run, prev = 0, xs[0]
    for x in xs:  # the first item matches itself: run 1
        if x is prev or x == prev:
            run += 1
            if run >= length:
                return True
        else:
            run, prev = 1, x
    if cyclic and run < n and xs[0] == prev:  # the last run continues round the wrap into the first
        lead = 1
        while xs[lead] == prev:
            lead += 1
        return run + lead >= length
    return False


def _enumerate(xs, start=0):
    return list(enumerate(xs, start))


def _zip(*xss):
    return list(zip(*xss))


def _reversed(xs):
    return list(reversed(list(xs)))


def _list(xs):
    return list(xs)


def _split(s, sep=None):
    return list(s) if sep is None else s.split(sep)


def _repeat(x, n):
    checked.check_count(n, "repeat()")
    return [x] * n


def _keys(d):
    return list(d)


def _values(d):
    return list(d.values())


def _get(d, key, default=None):
    if isinstance(d, dict):
        return d.get(key, default)
    return d[key] if 0 <= key < len(d) else default


def _table(pairs):
    table = {}
    for pair in pairs:
        try:
            key, value = pair
        except (TypeError, ValueError):
            raise RuleValueError(f"table(): {pair!r} is not a (key, value) pair") from None
        table[key] = value
    return table


def _check(cond, message):
    if not cond:
        raise RuleValueError(str(message))
    return True


def pure_builtins() -> dict[str, Builtin]:
    """The built-ins that need no game: arithmetic, collections and strings."""
    B = Builtin
    table = [
        B("abs", _abs, 1, 1, "abs(x)", "Absolute value.", "numbers", fold=True),
        B("floor", _floor, 1, 1, "floor(x)", "Largest integer not above x.", "numbers", fold=True),
        B("ceil", _ceil, 1, 1, "ceil(x)", "Smallest integer not below x.", "numbers", fold=True),
        B("int", _int, 1, 1, "int(x)", "Convert a number or digit string to an integer.", "numbers", fold=True),
        B("str", _str, 1, 1, "str(x)", "The text of a value (cells and players print their names).",
          "strings", fold=True),
        B("min", _min, 1, None, "min(xs) | min(a, b, ...) | min(f(x) for x in xs)",
          "Smallest value; `default=` is returned for an empty collection.", "collections",
          aggregate=True, keywords=("default",), fold=True),
        B("max", _max, 1, None, "max(xs) | max(a, b, ...) | max(f(x) for x in xs)",
          "Largest value; `default=` is returned for an empty collection.", "collections",
          aggregate=True, keywords=("default",), fold=True),
        B("sum", _sum, 1, None, "sum(xs) | sum(f(x) for x in xs)", "Sum of numbers (0 when empty).",
          "collections", aggregate=True, fold=True, over_comprehension="sum([{0}])"),
        B("product", _product, 1, None, "product(xs) | product(f(x) for x in xs)",
          "Product of numbers (1 when empty).", "collections", aggregate=True, fold=True),
        B("count", _count, 1, 1, "count(xs) | count(x for x in xs if cond)",
          "Number of items (of a comprehension: that pass its conditions).", "collections",
          aggregate=True, fold=True, over_comprehension="len([{0}])"),
        B("size", _size, 1, 1, "size(xs)", "Number of items in a list, region, zone or string.",
          "collections", fold=True),
        B("all", _all, 1, 1, "all(cond for x in xs)", "True when every item is true (true when empty).",
          "collections", aggregate=True, fold=True, over_comprehension="all({0})"),
        B("any", _any, 1, 1, "any(cond for x in xs)", "True when some item is true.", "collections",
          aggregate=True, fold=True, over_comprehension="any({0})"),
        B("sorted", _sorted, 1, 1, "sorted(xs, reverse=false)", "A sorted copy; lists compare item by item.",
          "collections", aggregate=True, keywords=("reverse",), fold=True),
        B("distinct", _distinct, 1, 1, "distinct(xs)", "The items without repeats, in first-seen order.",
          "collections", aggregate=True, fold=True),
        B("first", _first, 1, 2, "first(xs, default=none)", "The first item, or the default when empty.",
          "collections", aggregate=True, fold=True, over_comprehension="next(({0}), None)"),
        B("last", _last, 1, 2, "last(xs, default=none)", "The last item, or the default when empty.",
          "collections", fold=True),
        B("index_of", _index_of, 2, 2, "index_of(xs, x)", "Position of x in xs (0-based); an error if absent.",
          "collections", fold=True),
        B("enumerate", _enumerate, 1, 2, "enumerate(xs, start=0)", "Pairs (i, x); loop with `for i, x in ...`.",
          "collections", fold=True),
        B("zip", _zip, 1, None, "zip(xs, ys, ...)", "Tuples of items at the same position.", "collections",
          fold=True),
        B("reversed", _reversed, 1, 1, "reversed(xs)", "The items in reverse order.", "collections", fold=True),
        B("list", _list, 1, 1, "list(xs) | list(f(x) for x in xs)",
          "A new list of the items: a copy an effect may change, even of a constant list.", "collections",
          aggregate=True, over_comprehension="[{0}]"),
        B("longest_run", _longest_run, 1, 1, "longest_run(xs, cyclic=false)",
          "Length of the longest stretch of equal neighbouring items; cyclic: the last item neighbours the first.",
          "collections", keywords=("cyclic",), fold=True),
        B("has_run", _has_run, 2, 2, "has_run(xs, length, cyclic=false)",
          "True when `length` neighbouring items in a row are equal (cyclic: the last item neighbours the "
          "first); faster than longest_run when only a limit matters.", "collections", keywords=("cyclic",),
          fold=True),
        B("repeat", _repeat, 2, 2, "repeat(x, n)", "A list holding x n times.", "collections", fold=True),
        B("keys", _keys, 1, 1, "keys(table)", "The keys of a table (mapping), in file order.", "collections",
          fold=True),
        B("values", _values, 1, 1, "values(table)", "The values of a table (mapping), in key order.",
          "collections", fold=True),
        B("get", _get, 2, 3, "get(table, key, default=none)", "A table entry, or the default when missing.",
          "collections", fold=True),
        B("table", _table, 1, 1, "table(pairs) | table((k, v) for k in ks)",
          "A new table (mapping) from (key, value) pairs, in order; a later pair with the same key wins.",
          "collections", aggregate=True),
        B("check", _check, 2, 2, "check(cond, message)",
          "True when cond holds, otherwise an error with the message: in a `let`, a rule file (or option "
          "combination) that breaks an assumption is reported at load time.", "checks"),
        B("join", _join, 1, 2, "join(xs, sep='')", "The items' text joined by sep.", "strings", fold=True),
        B("split", _split, 1, 2, "split(s, sep=none)", "The characters of s, or its parts between sep.",
          "strings", fold=True),
    ]
    return {b.name: b for b in table}
