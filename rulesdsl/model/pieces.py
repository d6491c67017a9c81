"""Piece kinds: declared attributes with their domains, derived attributes, and interning of piece values."""

from __future__ import annotations

from ..lang.builtins import RuleValueError
from ..lang.constants import frozen
from ..limits import MAX_ITEMS, LimitExceeded
from .values import Piece

_REMEMBERED = 1 << 16  # pieces remembered by the attribute values they were asked for (a cache: cleared when full)


def _unhashable(value) -> bool:
    """Whether `value` holds a list or a table (anywhere in it: a tuple of lists too)."""
    try:
        hash(value)
    except TypeError:
        return True
    return False


class PieceKind:
    """One kind of piece; `make` returns the single interned Piece for a set of attribute values."""

    def __init__(self, name: str, attributes: dict, derived: dict):
        self.name = name
        self.attributes = attributes  # name -> {"values": list | None, "default": value}
        self.derived = derived  # name -> callable(**attrs) -> value, filled in by the compiler
        self._interned: dict[tuple, Piece] = {}
        self._seen: dict[tuple, Piece] = {}  # the attributes as given (in call order) -> piece

    def make(self, given: dict) -> Piece:
        try:  # the common case: these very attribute values were asked for before
            return self._seen[tuple(given.items())]
        except KeyError:
            pass
        except TypeError:  # unhashable values: the full path reports them
            return self._make(given)
        if len(self._seen) >= _REMEMBERED:
            self._seen.clear()
        piece = self._seen[tuple(given.items())] = self._make(given)
        return piece

    def maker(self, names: tuple):
        """make() for attributes given by position in the order of `names`: f(*values) -> Piece."""
        remembered: dict = {}

        def make_by_values(*values):
            try:
                return remembered[values]
            except KeyError:
                if len(remembered) >= _REMEMBERED:
                    remembered.clear()
                piece = remembered[values] = self._make(dict(zip(names, values)))
                return piece
            except TypeError:  # unhashable values: the full path reports them
                return self._make(dict(zip(names, values)))

        return make_by_values

    def _make(self, given: dict) -> Piece:
        key = []
        for attr, spec in self.attributes.items():
            if attr in given:
                value = given[attr]
            elif "default" in spec:
                value = spec["default"]
            else:
                raise RuleValueError(f"piece '{self.name}' needs a value for '{attr}'")
            values = spec.get("values")
            if values is not None and value not in values:
                raise RuleValueError(f"'{value}' is not a possible {attr} of piece '{self.name}' "
                                     f"(one of: {', '.join(map(str, values))})")
            key.append((attr, value))
        unknown = set(given) - set(self.attributes)
        if unknown:
            raise RuleValueError(f"piece '{self.name}' has no attribute '{sorted(unknown)[0]}'")
        key = tuple(key)
        try:
            piece = self._interned.get(key)
        except TypeError:  # a list or a table: pieces are values, each made once, and none may change
            bad = next(attr for attr, value in key if _unhashable(value))
            raise RuleValueError(f"piece '{self.name}': the value of '{bad}' cannot be a list or a table (pieces "
                                 "never change); a tuple, (a, b), may be") from None
        if piece is None:
            if len(self._interned) >= MAX_ITEMS:  # pieces are interned for good: their number is bounded
                raise LimitExceeded(f"the game has made {MAX_ITEMS:,} different pieces of kind '{self.name}', the "
                                    "most it may make")
            values = dict(key)
            attributes = dict(values)
            for name, fn in self.derived.items():  # read-only: a piece is made once, for every position
                attributes[name] = frozen(fn(values))
            attributes.setdefault("owner", None)
            piece = Piece(self.name, key, attributes)
            self._interned[key] = piece
        return piece
