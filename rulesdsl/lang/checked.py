"""The checked operators compiled code uses to keep within the limits on what rule code may build.

A rule file is untrusted: one expression such as `2 ** 10 ** 10`, `repeat(1, 10 ** 10)` or `'x' * 10 ** 12`
would otherwise tie up a process inside a single step of Python's own C code, where no time budget can
interrupt it. Every operation that can build a large value in one step is checked before it runs. So is every
one that puts values inside a new one (see nested()): hashing a tuple recurses in C once per level, with no
limit, so a tuple a million deep would overflow the C stack.
"""

from __future__ import annotations

import operator

from ..limits import MAX_INT_BITS, MAX_ITEMS, MAX_VALUE_DEPTH, LimitExceeded


def existing_key(table: dict, key, name: str):
    """`key`, when it is one of the keys of a variable declared with `keys:`; a LookupError naming the variable
    otherwise (assigning to a new key would give the variable a place its declaration does not have)."""
    if key not in table:
        raise LookupError(f"{name}[{key}]: {key} is not one of the keys of '{name}'")
    return key


def replaced_places(old, new, name: str):
    """The new places of a variable with one value per seat (`old` a list) or per key (`old` a table), assigned as a
    whole from `new`: a list of one value per seat, or a table with exactly its keys; a ValueError naming the
    variable otherwise (its places are fixed by its declaration). A copy, so that no other name holds them."""
    if old.__class__ is list:
        if not isinstance(new, (list, tuple)) or len(new) != len(old):
            given = f"a list of {len(new)}" if isinstance(new, (list, tuple)) else "no list"
            raise ValueError(f"'{name}' holds one value per seat ({len(old)}): assign a list of {len(old)} values, "
                             f"not {given}")
        return nested(list(new))
    if not isinstance(new, dict) or new.keys() != old.keys():
        shown = ", ".join(str(k) for k in list(old)[:8]) + (", ..." if len(old) > 8 else "")
        raise ValueError(f"'{name}' holds one value per key ({shown}): assign a table of exactly those keys")
    return nested({key: new[key] for key in old})  # (in the declared order of the keys)


def too_many(n: int, what: str) -> LimitExceeded:
    return LimitExceeded(f"{what} would hold {n:,} items; the language allows at most {MAX_ITEMS:,}")


_SEQUENCES = (str, list, tuple)  # what a sum of values of the language can lengthen


def _is_seq(x) -> bool:
    return isinstance(x, (str, list, tuple))


def check_count(n, what: str = "the result") -> None:
    """LimitExceeded when `n` items are more than a list may hold."""
    if isinstance(n, int) and n > MAX_ITEMS:
        raise too_many(n, what)


def add(a, b):
    """a + b, refusing lists and strings beyond the limit (a sum can at most double a length)."""
    value = a + b
    if value.__class__ in _SEQUENCES and len(value) > MAX_ITEMS:
        raise too_many(len(value), "this value")
    return value


def _check_product(a, b) -> None:
    """LimitExceeded when a * b would be an integer beyond MAX_INT_BITS or a sequence beyond MAX_ITEMS."""
    if isinstance(a, int) and isinstance(b, int):
        if a.bit_length() + b.bit_length() > MAX_INT_BITS + 1:
            raise LimitExceeded(f"a product of a {a.bit_length()}-bit and a {b.bit_length()}-bit number is too "
                                f"large (numbers may have at most {MAX_INT_BITS} bits)")
    elif _is_seq(a) and isinstance(b, int):
        check_count(len(a) * b, "the repeated value")
    elif _is_seq(b) and isinstance(a, int):
        check_count(len(b) * a, "the repeated value")


def mul(a, b):
    """a * b, refusing integers beyond MAX_INT_BITS and repeated lists or strings beyond MAX_ITEMS."""
    if a.__class__ is not float and b.__class__ is not float:  # a fraction times anything is small or an error
        _check_product(a, b)
    return a * b


def no_real_power(a, b) -> ValueError:
    """The error of a ** b when Python's value is a complex number, which is no value of the language."""
    return ValueError(f"a negative number to a fractional power has no value: ({a}) ** {b}")


def pow_(a, b):
    """a ** b, refusing integer powers beyond MAX_INT_BITS and complex results."""
    if isinstance(a, int) and isinstance(b, int) and b > 0 and a not in (0, 1, -1):
        if (a.bit_length() - 1) * b > MAX_INT_BITS or b > MAX_INT_BITS:
            raise LimitExceeded(f"{a} ** {b} is too large (numbers may have at most {MAX_INT_BITS} bits)")
    value = a ** b
    if value.__class__ is complex:  # raised in the operator itself: engine/state.py then blames the rule
        raise no_real_power(a, b)
    return value


def mod(a, b):
    """a % b for numbers (Python's text formatting with '%' is no part of the language)."""
    if a.__class__ is not int and isinstance(a, (str, bytes)):
        raise TypeError("'%' is the remainder of a division and needs numbers")
    return a % b


def inclusive_range(low, high):
    """low..high: the whole numbers from low to high, both included, at most MAX_ITEMS of them."""
    if isinstance(low, int) and isinstance(high, int):
        check_count(high - low + 1, f"the range {low}..{high}")
    return range(low, high + 1)


_OPERATORS = {"+": add, "-": operator.sub, "*": mul, "/": operator.truediv, "//": operator.floordiv, "%": mod,
              "**": pow_}


def chain(operands: tuple, ops: tuple):
    """A long run of operators of one precedence, worked out left to right with the checks above."""
    value = operands[0]
    for op, operand in zip(ops, operands[1:]):
        value = _OPERATORS[op](value, operand)
    return value


# -- nesting --------------------------------------------------------------------------------------------------
# class -> whether its values hold other values: lists, tuples and tables (and their read-only and named kinds),
# and records (a class of the model that says so with `holds_values`). Anything else is a leaf: numbers, text,
# cells, pieces (hashed by identity), ranges (which hold numbers only).
_PLAIN = frozenset({list, tuple})  # containers whose items are read as they are
_HOLDS: dict = {tuple: True, list: True, dict: True, int: False, str: False, bool: False, float: False,
                type(None): False}


def _holds(cls) -> bool:
    kind = _HOLDS.get(cls)
    if kind is None:
        kind = _HOLDS[cls] = issubclass(cls, (tuple, list, dict)) or bool(getattr(cls, "holds_values", False))
    return kind


def _inside(value):
    """The values a list, tuple, table (its keys and values) or record (its fields) holds."""
    if isinstance(value, (tuple, list)):
        return value
    if isinstance(value, dict):
        return [*value, *value.values()]
    return [v for k, v in vars(value).items() if not k.startswith("_")]


def _levels(value, most: int, holder=None) -> int:
    """How deep `value` nests, counted up to `most` + 1 (meaning: deeper than `most`); -1 when it holds `holder`.
    A walk down its values a level at a time that stops a level below `most`: its cost is bounded by the size of
    the value (a container held many times over is walked once a level)."""
    holds, found = _HOLDS, 0
    level = [value] if _holds(value.__class__) else []
    while level:
        found += 1
        if found > most:
            return found
        below = []
        for container in level:
            for item in container if container.__class__ in _PLAIN else _inside(container):
                kind = holds.get(item.__class__)
                if kind or kind is None and _holds(item.__class__):
                    if item is holder:
                        return -1
                    below.append(item)
        level = list({id(item): item for item in below}.values()) if len(below) > 16 else below
    return found


def _too_deep() -> LimitExceeded:
    return LimitExceeded(f"this value would nest more than {MAX_VALUE_DEPTH} deep (lists, tuples, tables and records "
                         "inside each other), the most the language allows")


def nested(value):
    """`value`, a list, tuple or table rule code has just built from other values; LimitExceeded when it nests
    more than MAX_VALUE_DEPTH deep. Quick when its items hold no values themselves (numbers, text, cells)."""
    holds = _HOLDS
    for item in value if value.__class__ is not dict else (*value, *value.values()):
        kind = holds.get(item.__class__)
        if kind or kind is None and _holds(item.__class__):
            break
    else:
        return value
    if _levels(value, MAX_VALUE_DEPTH) > MAX_VALUE_DEPTH:
        raise _too_deep()
    return value


def within(value):
    """`value`, of any kind; LimitExceeded when it nests more than MAX_VALUE_DEPTH deep (a built-in's result
    worked out at load, say)."""
    if _levels(value, MAX_VALUE_DEPTH) > MAX_VALUE_DEPTH:
        raise _too_deep()
    return value


def item(holder, value):
    """`value`, about to be stored as an item of `holder` (a list or table); LimitExceeded when it would make
    `holder` nest more than MAX_VALUE_DEPTH deep, or when it holds `holder` itself (which would nest it without
    end)."""
    if not _holds(value.__class__):
        return value
    found = -1 if value is holder else _levels(value, MAX_VALUE_DEPTH - 1, holder)
    if found < 0:
        raise LimitExceeded("this value holds the list or table it is being stored in; a value cannot hold itself")
    if found > MAX_VALUE_DEPTH - 1:
        raise _too_deep()
    return value


# Stores that may have deepened a value from inside (see deepen), counted by the process: the engine compares the
# count before and after a move, and looks at how deep the position's values nest when it has moved.
_deepened = [0]  # read as DEEPENED[0] where a call per move counts (engine/state.py)
DEEPENED = _deepened


def deepen(stored) -> None:
    """Rule code stored `stored` as an item of a list or table that may itself lie inside another (reached through
    a second name for it, or down several indexes): the check of the item (see item) sees only the list it is
    stored in, so what holds that list may now nest deeper than the limit, if `stored` holds values (a number or a
    text stored deepens nothing)."""
    if _HOLDS.get(stored.__class__) is not False and _holds(stored.__class__):
        _deepened[0] += 1


def deepenings() -> int:
    """How many such stores the process has made (see deepen)."""
    return _deepened[0]


def depth(value) -> int:
    """How deep `value` nests (0: it holds no other values), counted up to MAX_VALUE_DEPTH + 1."""
    return _levels(value, MAX_VALUE_DEPTH)
