"""Read-only lists and tables: the form constant values take in compiled rules, so no effect can change them."""

from __future__ import annotations

from .builtins import RuleValueError


def _refuse(self, *args, **kwargs):
    raise RuleValueError(f"{type(self).__name__.removeprefix('Constant').lower()} {_short(self)} is a constant "
                         "of the rule file and cannot be changed; change a copy: list(xs), or table((k, t[k]) for k in keys(t))")


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class ConstantList(list):
    """A list that refuses to change."""

    __slots__ = ()
    __setitem__ = __delitem__ = __iadd__ = __imul__ = _refuse
    append = extend = insert = pop = remove = clear = sort = reverse = _refuse

    def __reduce__(self):
        return ConstantList, (list(self),)


class ConstantTable(dict):
    """A table (mapping) that refuses to change."""

    __slots__ = ()
    __setitem__ = __delitem__ = __ior__ = _refuse
    pop = popitem = clear = update = setdefault = _refuse

    def __reduce__(self):
        return ConstantTable, (dict(self),)


def frozen(value):
    """`value` with every list and table inside it made read-only, those inside tuples too (other values are
    returned as they are: numbers, text, cells and pieces never change)."""
    if isinstance(value, list) and not isinstance(value, ConstantList):
        return ConstantList(frozen(v) for v in value)
    if isinstance(value, dict) and not isinstance(value, ConstantTable):
        return ConstantTable((k, frozen(v)) for k, v in value.items())
    if value.__class__ is tuple:  # (a tuple of the language; a region is a tuple of cells)
        try:
            hash(value)  # one that can be hashed holds no list or table: as it is
        except TypeError:
            return tuple(frozen(v) for v in value)
    return value
