"""Runtime values of the rules language: cells (named integers), interned pieces and records."""

from __future__ import annotations

import re

from ..lang.reach import RuleValue


class Cell(int, RuleValue):
    """A board cell: an integer index (fast to use as a list index) that prints as its name."""

    static_type = "cell"

    def __new__(cls, index: int, name: str, /, **attributes):  # positional-only: attributes have any name
        cell = super().__new__(cls, index)
        cell.name = name
        cell.index = index
        cell.__dict__.update(attributes)
        return cell

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __reduce__(self):  # cells travel between processes as plain data
        return (Cell, (int(self), self.name), {k: v for k, v in self.__dict__.items() if k not in ("name", "index")})

    def __setstate__(self, state):
        self.__dict__.update(state)

    __hash__ = int.__hash__
    __eq__ = int.__eq__


class Piece(RuleValue):
    """An immutable, interned game piece: equal attributes mean the very same object."""

    __slots__ = ("kind", "base", "__dict__")
    fields = ("kind",)
    static_type = "piece"

    def __init__(self, kind: str, base: tuple, attributes: dict):
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "base", base)  # ((name, value), ...) of declared attributes
        self.__dict__.update(attributes)

    def __setattr__(self, name, value):
        raise AttributeError("pieces are values: use with_attr() or set_attr() to make a changed piece")

    def __repr__(self) -> str:
        symbol = self.__dict__.get("symbol")
        if symbol is not None:
            return str(symbol)
        return self.kind + "(" + ", ".join(f"{k}={v}" for k, v in self.base) + ")"

    __str__ = __repr__

    def __lt__(self, other):  # stable ordering for sorted() over pieces
        if not isinstance(other, Piece):  # Python then refuses the comparison, as for any two unlike values
            return NotImplemented
        return (self.kind, repr(self.base)) < (other.kind, repr(other.base))


def piece_json(piece: Piece) -> dict:
    """A piece as saved: its kind and declared attributes (a function, not a method: an attribute of the piece may
    have any name the file likes, `to_json` too, and would hide a method of that name)."""
    return {"kind": piece.kind, **dict(piece.base)}


class Record(RuleValue):
    """A small read-only bag of named values (e.g. each player's choice at a simultaneous step)."""

    static_type = "record"
    holds_values = True  # its fields count as a level of nesting (see lang/checked.py)

    def __init__(self, /, **fields):  # positional-only: a field may be named `self`
        self.__dict__.update(fields)

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{k}: {v}" for k, v in self.__dict__.items()) + "}"

    def __eq__(self, other):
        return isinstance(other, Record) and self.__dict__ == other.__dict__

    def __hash__(self):
        return hash(tuple(sorted(self.__dict__.items(), key=lambda kv: kv[0])))


def text_of(value) -> str:
    """How a value prints in notation and messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, (list, tuple)):
        return " ".join(text_of(v) for v in value)
    return str(value)


def notation_text(pieces: tuple) -> str:
    """A move written from its template's pieces: a field that printed nothing (an empty list, empty text)
    takes a space beside it away, so `keep {xs}` of no items is `keep`, not `keep ` (which reads as `keep`
    when typed, but would print unlike what is typed)."""
    text = "".join(pieces)
    if "  " in text or text[:1] == " " or text[-1:] == " ":
        return _SPACES.sub(" ", text).strip(" ")
    return text


_SPACES = re.compile(" {2,}")


# `last_move` in rule code: the record of the last move a player made (see Position.last), or none.
LAST_MOVE_CODE = "G_last_move(S.last)"


# `mover` in rule code: the seat that made the last move (see Position.last), or none before the first.
MOVER_CODE = "G_mover(S.last)"


def mover_of(move) -> int | None:
    """What `mover` reads: the seat that made the last move a player made, or None."""
    return None if move is None else move[2]


def last_move_record(move) -> Record | None:
    """What `last_move` reads: the move's params and lets by name, with `by` (the seat that made it) and `kind`
    (the move's name) unless a param or let of that name stands there."""
    if move is None:
        return None
    return Record(by=move[2], kind=move[0].name, **dict(zip(move[0].arg_names, move[1])))
