"""The pure built-ins every game can use (no game state needed), each declared once by its own signature."""

from __future__ import annotations

import itertools
import math

from . import checked
from .declare import Builtin, builtin, declared
from .reach import read_field
from ..limits import MAX_ITEMS, LimitExceeded


class RuleValueError(Exception):
    """A built-in was given a value it cannot work with (reported with the rule and turn)."""


def refused(name: str, exc: Exception) -> Exception:
    """What built-in `name` raises when `exc` stops it: a RuleValueError when Python refused the built-in's own
    work on a value rule code handed it (Python's words say why), which is the rule's mistake; `exc` itself when
    it was raised further down, in code of another module the built-in ran (a comprehension of the rule's own,
    a helper of the engine), which answers for it (see engine/state.py)."""
    tb = exc.__traceback__
    home = tb.tb_frame.f_code.co_filename  # the module of the built-in, which caught exc
    while tb.tb_next is not None:
        tb = tb.tb_next
        if tb.tb_frame.f_code.co_filename != home:
            return exc
    return RuleValueError(f"{name}(): {exc}")


def _list(name: str, xs) -> list:
    """The items of xs, which rule code handed built-in `name` as a collection."""
    try:
        return list(xs)
    except TypeError as exc:
        raise refused(name, exc) from None


def _kind(value) -> str:
    """A value as a message names it, briefly and in the words of the language."""
    if isinstance(value, (list, tuple, range)):
        return "a list"
    if value is None or isinstance(value, bool):
        return {None: "none", True: "true", False: "false"}[value]
    text = repr(value) if isinstance(value, str) else str(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _items(args):
    if len(args) == 1:
        (only,) = args
        if isinstance(only, (list, tuple, set, frozenset, range, dict, str)) or hasattr(only, "__iter__"):
            return list(only)
    return list(args)


# -- numbers and strings ---------------------------------------------------------------------------------
@builtin("numbers", fold=True)
def abs_(x: "number") -> "number":
    """Absolute value."""
    return _number("abs", abs, x)


@builtin("numbers", fold=True)
def floor(x: "number") -> "int":
    """Largest integer not above x."""
    return _number("floor", math.floor, x)


@builtin("numbers", fold=True)
def ceil(x: "number") -> "int":
    """Smallest integer not below x."""
    return _number("ceil", math.ceil, x)


@builtin("numbers", fold=True)
def int_(x: "number | text") -> "int":
    """Convert a number or digit string to an integer."""
    return _number("int", int, x)


def _number(name: str, convert, x):
    """convert(x), which Python refuses for what is not a number (or digits), or is infinite or nan."""
    return _refusing(name, convert, x, errors=(TypeError, ValueError, OverflowError))


def _refusing(name: str, work, *args, errors=(TypeError,)):
    """work(*args), where Python refusing a value rule code handed built-in `name` is the rule's mistake."""
    try:
        return work(*args)
    except errors as exc:
        raise refused(name, exc) from None


@builtin("strings", fold=True, compiled=False, why_not="it builds text")
def str_(x) -> "text":
    """The text of a value (cells and players print their names)."""
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


# -- collections -----------------------------------------------------------------------------------------
@builtin("collections", aggregate="f(x) for x in xs", fold=True)
def min_(xs, *more, default=None) -> "item(xs) | arg(default)":
    """Smallest item of xs, or of the values given (min(a, b)); `default` is returned for an empty
    collection."""
    return _extreme("min", min, (xs, *more), default)


@builtin("collections", aggregate="f(x) for x in xs", fold=True)
def max_(xs, *more, default=None) -> "item(xs) | arg(default)":
    """Largest item of xs, or of the values given (max(a, b)); `default` is returned for an empty
    collection."""
    return _extreme("max", max, (xs, *more), default)


def _extreme(name: str, pick, args: tuple, default):
    """The smallest or largest (`pick`) of the items of a collection, or of several values."""
    items = _items(args)
    if not items:
        if default is not None:
            return default
        raise RuleValueError(f"{name}() of an empty collection (give default=...)")
    return _refusing(name, pick, items)  # items that do not compare are refused


@builtin("collections", aggregate="f(x) for x in xs", fold=True, over_comprehension="sum([{0}])")
def sum_(xs, *more) -> "number":
    """Sum of the numbers of xs, or of the values given (0 when empty)."""
    try:
        return sum(_items((xs, *more)))
    except TypeError as exc:
        raise refused("sum", exc) from None


@builtin("collections", aggregate="f(x) for x in xs", fold=True)
def product(xs, *more) -> "number":
    """Product of the numbers of xs, or of the values given (1 when empty)."""
    value = 1
    items = _items((xs, *more))
    try:
        for x in items:
            value = checked.mul(value, x)
    except TypeError as exc:  # checked.mul is the language's '*': what it refuses is what the rule asked of it
        raise RuleValueError(f"product(): {exc}") from None
    return value


@builtin("collections", aggregate="x for x in xs if cond", fold=True, over_comprehension="len([{0}])")
def count(xs) -> "int":
    """Number of items (of a comprehension: that pass its conditions)."""
    return _refusing("count", _items_in, xs)


def _items_in(xs) -> int:
    return sum(1 for _ in xs)


@builtin("collections", fold=True)
def size(xs: "list | tuple | range | text | table") -> "int":
    """Number of items in a list, region, zone or string."""
    try:  # not through _refusing: rules call size() in their innermost loops
        return len(xs)
    except TypeError as exc:
        raise refused("size", exc) from None


@builtin("collections", aggregate="cond for x in xs", fold=True,
         loop="all")
def all_(xs: "list | tuple | range | text | table") -> "bool":
    """True when every item is true (true when empty)."""
    return _refusing("all", all, xs)


@builtin("collections", aggregate="cond for x in xs", fold=True,
         loop="any")
def any_(xs: "list | tuple | range | text | table") -> "bool":
    """True when some item is true."""
    return _refusing("any", any, xs)


@builtin("collections", aggregate="f(x) for x in xs", fold=True)
def sorted_(xs: "list | tuple | range | text | table", *, reverse=False) -> "items(xs)":
    """A sorted copy; lists compare item by item."""
    try:
        return sorted(xs, reverse=bool(reverse))
    except TypeError as exc:  # not a collection, or items that do not compare
        raise refused("sorted", exc) from None


@builtin("collections", fold=True)
def counts_by(xs: "list | tuple | range | text | table", attribute: "text") -> "table":
    """A table of how many items of xs have each value of an attribute, in first-seen order:
    counts_by(pile, 'rank')['K'] (one pass over xs for every value)."""
    if not isinstance(attribute, str):
        raise RuleValueError(f"counts_by(): the attribute should be a name in quotes, not {attribute!r}")
    counts: dict = {}
    try:
        for x in xs:
            value = read_field(x, attribute)
            counts[value] = counts.get(value, 0) + 1
    except TypeError as exc:  # not a collection, or values that cannot be keys (lists)
        raise refused("counts_by", exc) from None
    except AttributeError as exc:  # an item without the attribute
        raise RuleValueError(f"counts_by(): {exc}") from None
    return checked.nested(counts)  # its keys are values read from the items: one level deeper in it


@builtin("collections", aggregate="f(x) for x in xs", fold=True)
def distinct(xs: "list | tuple | range | text | table") -> "items(xs)":
    """The items without repeats, in first-seen order."""
    items = xs if isinstance(xs, (list, tuple)) else _list("distinct", xs)  # read twice below, if need be
    try:
        return list(dict.fromkeys(items))
    except TypeError:  # lists or tables among the items: told apart by what they hold
        found = {}
        for x in items:
            found.setdefault(value_key(x), x)
        return list(found.values())


def value_key(value):
    """A hashable stand-in for `value`, equal to another's exactly when the values are equal (==): lists and
    tuples by their items (a list never equals a tuple, as with ==), tables by their entries."""
    if isinstance(value, list):
        return list, tuple(value_key(v) for v in value)
    if isinstance(value, tuple):
        return tuple, tuple(value_key(v) for v in value)
    if isinstance(value, dict):
        return dict, frozenset((value_key(k), value_key(v)) for k, v in value.items())
    return value


@builtin("collections", aggregate="x for x in xs if cond", fold=True,
         loop="first")
def first(xs: "list | tuple | range | text | table", default=None) -> "item(xs) | arg(default)":
    """The first item, or the default when empty."""
    try:
        for x in xs:
            return x
    except TypeError as exc:
        raise refused("first", exc) from None
    return default


@builtin("collections", aggregate="x for x in xs if cond", loop="take_while")
def take_while(xs: "list | tuple | range | text | table") -> "items(xs)":
    """The items of a comprehension up to the first whose condition fails, which ends the list (its `if` reads
    "while"): take_while(c for c in ray(x, 'n') if empty(c)) is the empty cells before the first occupied one."""
    # only ever called on a generator comprehension with a condition (the compiler refuses any other call) and
    # compiled as a loop that stops (see Compiler._loop): a plain list here has already lost its condition
    raise RuleValueError("take_while() takes a comprehension with a condition: take_while(x for x in xs if cond)")


@builtin("collections", fold=True)
def last(xs: "list | tuple | range | text | table", default=None) -> "item(xs) | arg(default)":
    """The last item, or the default when empty."""
    if xs.__class__ is not list:  # a list is read as it is (the common case, and the fast one)
        xs = _list("last", xs)
    return xs[-1] if xs else default


@builtin("collections", fold=True)
def index_of(xs: "list | tuple | range | text | table", x) -> "int":
    """Position of x in xs (0-based); an error if absent."""
    xs = _list("index_of", xs)
    if x not in xs:
        raise RuleValueError(f"index_of: {x!r} is not in the collection")
    return xs.index(x)


@builtin("collections", fold=True)
def enumerate_(xs: "list | tuple | range | text | table", start: "int" = 0) -> "list[tuple[int, item(xs)]]":
    """Pairs (i, x); loop with `for i, x in ...`."""
    try:
        pairs = list(enumerate(xs, start))
    except TypeError as exc:  # not a collection, or a start that is not a whole number
        raise refused("enumerate", exc) from None
    return checked.nested(pairs)  # each item one level deeper, in its pair


@builtin("collections", fold=True)
def zip_(xs: "list | tuple | range | text | table", *more) -> "list":
    """Tuples of the items at the same position of each list."""
    lists = (xs, *more)
    if all(hasattr(x, "__len__") for x in lists):  # the tuples' items are counted before Python builds them
        checked.check_count(min(len(x) for x in lists) * len(lists), "zip()'s tuples together")
    try:
        tuples = list(zip(xs, *more))
    except TypeError as exc:
        raise refused("zip", exc) from None
    return checked.nested(tuples)  # each item one level deeper, in its tuple


def _choices(name: str, xs, k, ordered: bool) -> tuple[list, int]:
    """The items of xs and the size of each choice for combinations() (ordered: permutations()). The choices
    together (each of its k items, and the list holding it) are counted before any is built, and the count stops
    once past the limit: worked out whole, it can take longer than building what the limit allows."""
    items = _list(name, xs)
    n = len(items)
    if k is None:
        k = n
    if k.__class__ is not int or k < 0:
        raise RuleValueError(choice_size_refused(name, k))
    count, past = counted_choices(n, k, ordered, MAX_ITEMS // (k + 1))  # (k items and their list, each)
    if past:
        raise LimitExceeded(choices_past_limit(name, count, k))
    return items, k


def counted_choices(n: int, k: int, ordered: bool, most: int) -> tuple[int, bool]:
    """(how many choices of k of n items there are, False), combinations (ordered: permutations) counted factor by
    factor; or (the count reached, True) as soon as it passes `most`, never counted further."""
    count = 0 if k < 0 or k > n else 1
    for i in range(min(k, n) if ordered else min(k, n - k)):
        count = count * (n - i) if ordered else count * (n - i) // (i + 1)
        if count > most:
            return count, True
    return count, False


def choices_past_limit(name: str, count: int, k: int) -> str:
    """What combinations() or permutations() (`name`) says when its `count` choices of k items so far are past
    the limit (a compiled backend says the same)."""
    return (f"{name}() would give {count:,} or more lists of {k:,} items, more than the {MAX_ITEMS:,} items the "
            "language allows in one value")


def choice_size_refused(name: str, k) -> str:
    """What combinations() or permutations() (`name`) says of a size of each choice that is no whole number 0 or
    more."""
    return f"{name}(): the size of each choice should be a whole number 0 or more, not {k!r}"


def subsets_items(n: int) -> int:
    """The items subsets() of n items would hold together, as counted against the limit: 2 ** n lists of n / 2
    items on average (a count past 2 ** 64 is not worked out: it is far past the limit)."""
    return 2 ** min(n, 64) * (n + 2) // 2


@builtin("collections", fold=True)
def combinations(xs: "list | tuple | range | text | table", k: "int") -> "list[list[item(xs)]]; item_len(xs)":
    """Every choice of k items of xs, each a list in the order of xs: combinations([a, b, c], 2) is
    [[a, b], [a, c], [b, c]]."""
    items, k = _choices("combinations", xs, k, ordered=False)
    return checked.nested([list(c) for c in itertools.combinations(items, k)])  # each one level deeper


@builtin("collections", fold=True)
def permutations(xs: "list | tuple | range | text | table", k: "int | none" = None) \
        -> "list[list[item(xs)]]; item_len(xs)":
    """Every ordering of k items of xs (all of them by default), each a list, in the order of xs:
    permutations([a, b]) is [[a, b], [b, a]]."""
    items, k = _choices("permutations", xs, k, ordered=True)
    return checked.nested([list(c) for c in itertools.permutations(items, k)])


SUBSETS_HELD = "subsets()'s lists together"  # what subsets() past the limit names (checked.too_many)


@builtin("collections", fold=True)
def subsets(xs: "list | tuple | range | text | table") -> "list[list[item(xs)]]; item_len(xs)":
    """Every subset of xs, each a list in the order of xs, smallest first: subsets([a, b]) is
    [[], [a], [b], [a, b]]."""
    items = _list("subsets", xs)
    n = len(items)
    checked.check_count(subsets_items(n), SUBSETS_HELD)
    return checked.nested([list(c) for k in range(n + 1) for c in itertools.combinations(items, k)])


@builtin("collections", fold=True)
def reversed_(xs: "list | tuple | range | text | table") -> "items(xs)":
    """The items in reverse order."""
    return list(reversed(_list("reversed", xs)))


@builtin("collections", aggregate="f(x) for x in xs", over_comprehension="[{0}]")
def list_(xs: "list | tuple | range | text | table") -> "items(xs)":
    """A new list of the items: a copy an effect may change, even of a constant list."""
    return _list("list", xs)


@builtin("collections", fold=True)
def longest_run(xs: "list | tuple | range | text | table", *, cyclic=False) -> "int":
    """Length of the longest stretch of equal neighbouring items; cyclic: the last item neighbours the first."""
    if type(xs) is not list:
        xs = _list("longest_run", xs)
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


@builtin("collections", fold=True)
def has_run(xs: "list | tuple | range | text | table", length: "int", *, cyclic=False) -> "bool":
    """True when `length` neighbouring items in a row are equal (cyclic: the last item neighbours the first);
    faster than longest_run when only a limit matters."""
    if type(xs) is not list:
        xs = _list("has_run", xs)
    n = len(xs)
    try:
        if length <= 1:
            return n >= length
    except TypeError as exc:  # a length that is not a number
        raise refused("has_run", exc) from None
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


@builtin("collections", fold=True)
def repeat(x, n: "int") -> "list[arg(x)]; len(n)":
    """A list holding x n times."""
    checked.check_count(n, "repeat()")
    checked.nested([x])  # x, one level deeper: as deep as the list of n of it
    try:
        return [x] * n
    except TypeError as exc:  # a count that is not a whole number
        raise refused("repeat", exc) from None


@builtin("collections", fold=True)
def keys(table: "table") -> "list[item(table)]":
    """The keys of a table (mapping), in file order."""
    return _list("keys", table)


@builtin("collections", fold=True)
def values(table: "table") -> "list[value(table)]":
    """The values of a table (mapping), in key order."""
    try:
        return list(table.values())
    except AttributeError:
        raise RuleValueError(f"values(): {_kind(table)} is not a table") from None


@builtin("collections", fold=True)
def get(table: "table", key, default=None) -> "value(table) | arg(default)":
    """A table entry, or the default when missing."""
    try:
        if isinstance(table, dict):
            return table.get(key, default)
        return table[key] if 0 <= key < len(table) else default
    except TypeError as exc:  # a key a table cannot hold (a list), or a list read with a key that is no index
        raise refused("get", exc) from None


@builtin("collections", aggregate="(k, v) for k in ks")
def table(pairs: "list | tuple | range | text | table") -> "pairs(pairs)":
    """A new table (mapping) from (key, value) pairs, in order; a later pair with the same key wins."""
    found = {}
    for pair in _list("table", pairs):
        try:
            key, value = pair
        except (TypeError, ValueError):
            raise RuleValueError(f"table(): {pair!r} is not a (key, value) pair") from None
        try:
            found[key] = value
        except TypeError as exc:  # a key a table cannot hold (a list)
            raise refused("table", exc) from None
    return found


@builtin("checks")
def check(cond, message) -> "bool":
    """True when cond holds, otherwise an error with the message: in a `let`, a rule file (or option
    combination) that breaks an assumption is reported at load time."""
    if not cond:
        raise RuleValueError(str(message))
    return True


# -- strings ---------------------------------------------------------------------------------------------
@builtin("strings", fold=True, compiled=False, why_not="it builds text")
def join(xs: "list | tuple | range | text | table", sep: "text" = "") -> "text":
    """The items' text joined by sep."""
    parts = [str_(x) for x in _list("join", xs)]
    checked.check_count(sum(map(len, parts)) + len(str(sep)) * max(0, len(parts) - 1), "the joined text")
    return str(sep).join(parts)


@builtin("strings", fold=True, compiled=False, why_not="it builds a list of texts whose length only the text "
         "it splits bounds")
def split(s: "text", sep=None) -> "list[text]":
    """The characters of s, or its parts between sep."""
    try:
        return list(s) if sep is None else s.split(sep)
    except (TypeError, ValueError, AttributeError) as exc:  # not text, or an empty or non-text sep
        raise refused("split", exc) from None


_PURE = declared(globals())


def pure_builtins() -> dict[str, Builtin]:
    """The built-ins that need no game: arithmetic, collections and strings (a new table: a game adds its own)."""
    return {b.name: b for b in _PURE}
