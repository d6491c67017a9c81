"""The static types of the rules language: what each value may be, known at load time, for checks and backends."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# The kinds of value Python holds at run time. A static type stands for a set of them; an operation is a type
# error when no kind of its left operand goes with any kind of its right one (see ir/typing.py). Cells and seats
# are whole numbers at run time (a cell is an int that prints as its name).
NONE, BOOL, INT, FLOAT, TEXT = "none", "bool", "int", "float", "text"
LIST, TUPLE, RANGE, TABLE, PIECE, RECORD = "list", "tuple", "range", "table", "piece", "record"
ALL_KINDS = frozenset({NONE, BOOL, INT, FLOAT, TEXT, LIST, TUPLE, RANGE, TABLE, PIECE, RECORD})
NUMBERS = frozenset({BOOL, INT, FLOAT})
SEQUENCES = frozenset({LIST, TUPLE, RANGE, TEXT})


@dataclass(frozen=True)
class Type:
    """A static type: `name` says which (see the constructors below); `items` the types it holds (a list's
    item, a tuple's items, a table's key and value, a union's members, a record's field types), `names` the
    names that go with them (a record's fields) or the values an enumeration of text allows; `low`/`high` the
    range of a whole number, or the bound on a list's length (`high`) when known."""

    name: str
    items: tuple = ()
    names: tuple = ()
    low: int | None = None
    high: int | None = None

    def __str__(self) -> str:
        return describe(self)


ANY = Type("any")  # not known at load time: every operation is allowed, and checked as it runs
# no value yet: what a variable holds before the type pass has found any value given to it. Like ANY nothing
# is refused for it; unlike ANY it adds nothing to what it is joined with, and what is computed from it is
# NOTHING too (see model/compile_types.py)
NOTHING = Type("nothing")
NONE_T = Type("none")
BOOL_T = Type("bool")
FLOAT_T = Type("float")
TEXT_T = Type("text")
SEAT = Type("seat")
CELL = Type("cell")
PIECE_T = Type("piece")
RECORD_T = Type("record")  # a record whose fields are not known
NUMBER = Type("number")  # a whole number or a fraction


def int_(low: int | None = None, high: int | None = None) -> Type:
    """A whole number, between low and high (both included) where known."""
    return Type("int", low=low, high=high)


INT_T = int_()


def list_(item: Type = ANY, bound: int | None = None) -> Type:
    """A list of items of one type, at most `bound` long where known."""
    return Type("list", (item,), high=bound)


def seq(item: Type = ANY, bound: int | None = None) -> Type:
    """A tuple of any length whose items share one type (a region: cells in order)."""
    return Type("seq", (item,), high=bound)


def range_(low: int | None = None, high: int | None = None) -> Type:
    """The whole numbers low..high."""
    return Type("range", (int_(low, high),), high=None if low is None or high is None else max(0, high - low + 1))


def tuple_(*items: Type) -> Type:
    """A tuple of fixed length, one type per item."""
    return Type("tuple", tuple(items))


def table(key: Type = ANY, value: Type = ANY) -> Type:
    """A table from keys of one type to values of another."""
    return Type("table", (key, value))


def record(**fields: Type) -> Type:
    """A record with these named fields."""
    return Type("record", tuple(fields.values()), tuple(fields))


def enum(*values: str) -> Type:
    """Text that is one of these values (a direction, a kind of piece, a value of an attribute)."""
    return Type("text", names=tuple(sorted(set(values))))


def union(*members: Type) -> Type:
    """A value of any of these types (members that are the same or included in ANY collapse)."""
    flat: list[Type] = []
    for member in members:
        for m in (member.items if member.name == "union" else (member,)):
            if m.name == "any":
                return ANY
            if m not in flat and m.name != "nothing":
                flat.append(m)
    if len(flat) <= 1:
        return flat[0] if flat else NOTHING
    return Type("union", tuple(sorted(flat, key=_rank)))  # in one order: equal unions are equal types


_ORDER = ("int", "number", "float", "bool", "seat", "cell", "piece", "record", "list", "seq", "tuple", "range", "text",
          "table", "none")


def _rank(t: Type) -> tuple:
    return (_ORDER.index(t.name) if t.name in _ORDER else len(_ORDER), repr(t))


def optional(t: Type) -> Type:
    """A value of type t, or none."""
    return union(t, NONE_T)


# -- what a type stands for at run time --------------------------------------------------------------------
_KINDS = {"any": ALL_KINDS, "nothing": ALL_KINDS, "none": {NONE}, "bool": {BOOL}, "int": {INT, BOOL}, "float": {FLOAT}, "text": {TEXT},
          "seat": {INT}, "cell": {INT}, "piece": {PIECE}, "record": {RECORD}, "list": {LIST}, "seq": {TUPLE},
          "tuple": {TUPLE}, "range": {RANGE}, "table": {TABLE}, "number": NUMBERS}


def kinds(t: Type) -> frozenset:
    """The kinds of run-time value (see ALL_KINDS) that a value of type t may be."""
    if t.name == "union":
        return frozenset().union(*(kinds(m) for m in t.items))
    return frozenset(_KINDS.get(t.name, ALL_KINDS))


def item_type(t: Type) -> Type:
    """The type of an item of a collection of type t (a table's key, as a loop over it gives), or ANY."""
    if t.name == "nothing":
        return NOTHING
    if t.name in ("list", "seq", "range"):
        return t.items[0]
    if t.name == "tuple":
        return union(*t.items) if t.items else ANY
    if t.name == "table":
        return t.items[0]
    if t.name == "text":
        return TEXT_T
    if t.name == "union":
        found = [item_type(m) for m in t.items if m.name != "none"]
        return union(*found) if found else ANY
    return ANY


def join(a: Type, b: Type) -> Type:
    """The narrowest type of this file's types that holds values of both a and b."""
    if a == b or b.name == "nothing":
        return a
    if a.name == "nothing":
        return b
    if a.name == b.name == "int":
        low = None if a.low is None or b.low is None else min(a.low, b.low)
        high = None if a.high is None or b.high is None else max(a.high, b.high)
        return int_(low, high)
    if a.name == b.name and a.name in ("list", "seq"):
        bound = None if a.high is None or b.high is None else max(a.high, b.high)
        return Type(a.name, (join(a.items[0], b.items[0]),), high=bound)
    if a.name == b.name == "tuple" and len(a.items) == len(b.items):
        return tuple_(*(join(x, y) for x, y in zip(a.items, b.items)))
    if a.name == b.name == "text":
        return TEXT_T if not (a.names and b.names) else enum(*a.names, *b.names)
    return union(a, b)


def numeric(t: Type) -> bool:
    """Whether every value of type t is a number (bool, int or float)."""
    k = kinds(t)
    return bool(k) and k <= NUMBERS


# -- from values and from text ---------------------------------------------------------------------------
def type_of_value(value, depth: int = 0) -> Type:
    """The type of a value known at load time (a constant of the rule file), as precisely as it shows."""
    if value is None:
        return NONE_T
    if isinstance(value, bool):
        return BOOL_T
    declared = getattr(type(value), "static_type", None)  # the language's own values say what they are
    if declared is not None:
        return _NAMED[declared]
    if isinstance(value, int):
        return int_(value, value)
    if isinstance(value, float):
        return FLOAT_T
    if isinstance(value, str):
        return enum(value)
    if depth > 8:  # deep constants: their outer shape is what the checks use
        return ANY
    if isinstance(value, range):
        return range_(value.start, value.stop - 1) if value.step == 1 else list_(INT_T, len(value))
    if isinstance(value, (list, tuple)):
        items = list(value)[:64]
        item = NOTHING if not value else ANY  # (an empty list holds no item yet: what it is given types it)
        if items:
            item = type_of_value(items[0], depth + 1)
            for v in items[1:]:
                item = join(item, type_of_value(v, depth + 1))
            if len(value) > 64:
                item = widen(item)
        if isinstance(value, list):
            return list_(widen(item), len(value))
        if type(value) is tuple and len(value) <= 16:
            return tuple_(*(type_of_value(v, depth + 1) for v in value))
        return seq(widen(item), len(value))
    if isinstance(value, dict):
        keys, values = list(value)[:64], list(value.values())[:64]
        key = ANY if not keys else widen(_joined(type_of_value(k, depth + 1) for k in keys))
        val = ANY if not values else widen(_joined(type_of_value(v, depth + 1) for v in values))
        return table(key if len(value) <= 64 else ANY, val if len(value) <= 64 else ANY)
    return ANY


def _joined(types) -> Type:
    types = list(types)
    found = types[0]
    for t in types[1:]:
        found = join(found, t)
    return found


def widen(t: Type) -> Type:
    """t without what only one constant shows (the exact number, the one text): the type of the items of a list
    or table, which effects may change."""
    if t.name == "int":
        return INT_T
    if t.name == "text" and t.names:
        return TEXT_T if len(t.names) > 32 else t
    if t.name == "union":
        return union(*(widen(m) for m in t.items))
    if t.name == "tuple":
        return tuple_(*(widen(m) for m in t.items))
    return t


_NAMED = {"any": ANY, "none": NONE_T, "bool": BOOL_T, "int": INT_T, "float": FLOAT_T, "text": TEXT_T,
          "seat": SEAT, "cell": CELL, "piece": PIECE_T, "record": RECORD_T, "number": NUMBER,
          "list": list_(), "tuple": seq(), "table": table(), "range": range_()}


@lru_cache(maxsize=None)
def parse_type(text: str) -> Type:
    """A type written as the built-ins declare theirs: a name from _NAMED, `list[T]`, `tuple[T]` (any length),
    `table[K, V]`, and `A | B`. (Not for rule files: built-ins are declared by rulesdsl itself.)"""
    text = text.strip()
    read = re.fullmatch(r"(items|item|value|arg|pairs|none_with)\((\w+)\)", text)
    if read:  # of an argument, worked out at each call (see infer.returned): a built-in's declaration only
        return Type("of", names=read.groups())
    parts = _split(text, "|")
    if len(parts) > 1:
        return union(*(parse_type(p) for p in parts))
    if text.endswith("]") and "[" in text:
        head, inner = text[:-1].split("[", 1)
        args = [parse_type(p) for p in _split(inner, ",")]
        if head == "list" and len(args) == 1:
            return list_(args[0])
        if head == "tuple" and len(args) == 1:
            return seq(args[0])
        if head == "tuple":
            return tuple_(*args)
        if head == "table" and len(args) == 2:
            return table(*args)
        raise ValueError(f"no such type: {text!r}")
    if text not in _NAMED:
        raise ValueError(f"no such type: {text!r}")
    return _NAMED[text]


def _split(text: str, sep: str) -> list[str]:
    """text split at `sep` outside brackets."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "[") - (ch == "]")
        if ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def describe(t: Type) -> str:
    """A type in the words of the language, for messages: 'a list of cells', 'none', 'a number'..."""
    name = t.name
    if name in ("any", "nothing"):
        return "any value"
    if name == "none":
        return "none"
    if name == "union":
        words = [describe(m) for m in t.items]
        return ", ".join(words[:-1]) + " or " + words[-1]
    if name == "int":
        return "a whole number" if t.low is None or t.low != t.high else f"the number {t.low}"
    if name == "text":
        return f"the text '{t.names[0]}'" if len(t.names) == 1 else "text"
    if name in ("list", "seq", "range"):
        item = t.items[0]
        what = {"list": "a list", "seq": "a tuple", "range": "a range"}[name]
        return what if item.name in ("any", "nothing") or name == "range" else f"{what} of {_plural(item)}"
    if name == "tuple":
        return f"a tuple of {len(t.items)}" if t.items else "an empty tuple"
    if name == "table":
        return "a table"
    if name == "record":
        return "a record" + (f" ({', '.join(t.names)})" if t.names else "")
    return {"bool": "true or false", "float": "a number", "seat": "a seat", "cell": "a cell", "piece": "a piece",
            "number": "a number"}.get(name, name)


def _plural(t: Type) -> str:
    if t.name in ("int", "float", "number"):
        return "numbers"
    if t.name == "text":
        return "texts"
    words = {"seat": "seats", "cell": "cells", "piece": "pieces", "record": "records", "bool": "truth values",
             "list": "lists", "seq": "tuples", "tuple": "tuples", "table": "tables", "none": "nones"}
    return words.get(t.name, "values")
