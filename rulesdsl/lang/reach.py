"""What rule code may reach of a value: the fields of the language's own values, never a Python attribute."""

from __future__ import annotations

import types
from functools import lru_cache


class RuleValue:
    """Base of the language's own values (cells, pieces, records): `a.b` reads only their declared fields."""

    __slots__ = ()
    fields: tuple = ()  # fields held outside the instance dict (in slots), readable as a.name
    static_type: str = "any"  # its type in the language (see types.py): "cell", "piece", "record"
    holds_values = False  # its fields are values rule code put in it (a record), not attributes made once: read it
    # from the class, as an instance's own field may have any name


def read_field(obj, name: str):
    """`obj.name` for a value of the language; AttributeError for anything else."""
    if isinstance(obj, RuleValue):
        found = obj.__dict__.get(name, read_field)
        if found is not read_field:
            return found
        if name in type(obj).fields:
            return getattr(obj, name)
    raise AttributeError(f"{_describe(obj)} has no attribute '{name}'")


def _describe(obj) -> str:
    if obj is None:
        return "none"
    if isinstance(obj, (bool, int, float, str, RuleValue)):
        text = repr(obj) if isinstance(obj, str) else str(obj)
        return text if len(text) <= 40 else text[:37] + "..."
    return {list: "a list", tuple: "a list", dict: "a table", range: "a range"}.get(type(obj), "this value")


_PYTHON_TYPES = (object, type, bool, int, float, complex, str, bytes, bytearray, list, tuple, dict, set, frozenset,
                 range, slice, type(None), types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                 types.GeneratorType, types.ModuleType, types.CodeType, types.FrameType, types.TracebackType)


def _subclasses(cls) -> list:
    found, todo = [], [cls]
    while todo:
        for sub in todo.pop().__subclasses__():
            found.append(sub)
            todo.append(sub)
    return found


@lru_cache(maxsize=8)
def _python_names(value_classes: tuple) -> frozenset:
    names = set().union(*(dir(t) for t in _PYTHON_TYPES))
    for cls in value_classes:
        names |= set(dir(cls)) - set(cls.fields)
    return frozenset(names)


def python_names() -> frozenset:
    """Attribute names that Python itself gives some value rule code can hold: `a.b` with such a name is
    read through read_field, so that it reaches a declared field or nothing (never a method or internals)."""
    return _python_names(tuple(_subclasses(RuleValue)))
