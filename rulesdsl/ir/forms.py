"""How a value of a static type is held in flat typed arrays: the arrays (leaves) a form spreads it over.

A form is worked out from a type alone (lang/types.py). Its leaves are named arrays of one numpy dtype each;
their shape is that of the places around the value (a row per seat or key, a column per item of an enclosing
list), so that one array holds one field of every place. A type no fixed set of arrays can hold (not known at
load time, a list of unknown length, a table, text made at run time) raises Unfit with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..lang import types as T

# The most values one part of the state may spread over (a list of lists of lists multiplies): beyond it, a
# compiled backend would copy more than the position holds, so the part is kept as Python values.
MAX_VALUES = 1_000_000
_INTS = (("int8", 1 << 7), ("int16", 1 << 15), ("int32", 1 << 31), ("int64", 1 << 63))


def int_dtype(low: int | None, high: int | None) -> str:
    """The smallest signed dtype holding every whole number from low to high (int64 where either is unknown)."""
    if low is None or high is None:
        return "int64"
    return next((name for name, half in _INTS if -half <= low and high < half), "int64")


def count_dtype(most: int) -> str:
    """The dtype of a count from 0 to `most`."""
    return int_dtype(0, most)


class Unfit(Exception):
    """A value that fixed arrays cannot hold: `reason` says why, in the words of the language; `decl`, where
    the rule file declares what does not fit, where it is known."""

    def __init__(self, reason: str, decl: tuple | None = None, construct: bool = False):
        super().__init__(reason)
        # construct: what does not fit is a construct the backend does not take yet, whatever size is declared
        self.reason, self.decl, self.construct = reason, decl, construct


@dataclass(frozen=True)
class Leaf:
    """One array: its name, numpy dtype and shape; a `None` first dimension grows (a row per ply of a log)."""

    name: str
    dtype: str
    shape: tuple


@dataclass(frozen=True, eq=False)
class Form:
    """How one value is held. `leaves` lists the arrays it writes, in order."""

    def leaves(self) -> list:
        return []


@dataclass(frozen=True, eq=False)
class Nothing(Form):
    """The value none: held by no array."""


@dataclass(frozen=True, eq=False)
class Atom(Form):
    """One value in one array: `kind` bool, int, float, seat, cell (its index), piece (its id in the layout's table),
    text (its index in `values`, an enumeration), or notation (a move's text, kept as it is: see Layout)."""

    kind: str
    leaf: Leaf
    values: tuple = ()

    def leaves(self):
        return [self.leaf]


@dataclass(frozen=True, eq=False)
class Fixed(Form):
    """A tuple of fixed length: each item in arrays of its own."""

    items: tuple

    def leaves(self):
        return [leaf for item in self.items for leaf in item.leaves()]


@dataclass(frozen=True, eq=False)
class Many(Form):
    """A list (or a tuple of any length, `kind` tuple) of at most `capacity` items: its length in `length`, its
    items' arrays one column per item."""

    item: Form
    length: Leaf
    capacity: int
    kind: str = "list"

    def leaves(self):
        return [self.length, *self.item.leaves()]


@dataclass(frozen=True, eq=False)
class OneOf(Form):
    """A value of one of several types (none, or a number...): which one in `tag`, then each member's arrays.
    A value is held by the first member whose kind it is."""

    tag: Leaf
    members: tuple

    def leaves(self):
        return [self.tag, *(leaf for m in self.members for leaf in m.leaves())]


@dataclass(frozen=True, eq=False)
class Choice(Form):
    """A value of one of several shapes told apart by a label the value carries (the rule of a move, the step of
    a draw): the label's place in `labels` in `tag` (-1: none), then each shape's arrays. `player`: the seat a
    move is made by, for moves."""

    tag: Leaf
    labels: tuple
    members: tuple
    player: Leaf | None = None

    def leaves(self):
        head = [self.tag] + ([self.player] if self.player is not None else [])
        return head + [leaf for m in self.members for leaf in m.leaves()]


@dataclass(frozen=True, eq=False)
class Keyed(Form):
    """A table whose keys are drawn from a set fixed at load (`keys`: texts of an enumeration, seats, cells, whole
    numbers of a range): for each possible key, its place in the table's order in `order` (-1: not in the table),
    and its value in `value`'s arrays, one column per possible key."""

    keys: tuple
    order: Leaf
    value: Form

    def leaves(self):
        return [self.order, *self.value.leaves()]


class Forms:
    """Builds forms for one game: `seats` players, `cells` board cells, pieces as ids of dtype `piece_dtype` (or
    `pieces_unfit`, why pieces cannot be numbered)."""

    def __init__(self, seats: int, cells: int, piece_dtype: str, pieces_unfit: str | None = None):
        self.seats, self.cells = seats, cells
        self.piece_dtype, self.pieces_unfit = piece_dtype, pieces_unfit

    def of(self, t: T.Type, name: str, shape: tuple = ()) -> Form:
        """The form of a value of type `t`, its arrays named from `name`, inside places of `shape`."""
        kind = t.name
        if kind in ("any", "nothing"):
            raise Unfit("its type is not known when the game loads")
        if kind == "none":
            return Nothing()
        if kind == "union":
            return self._union(t, name, shape)
        if kind == "bool":
            return Atom("bool", Leaf(name, "bool", shape))
        if kind == "int":
            return Atom("int", Leaf(name, int_dtype(t.low, t.high), shape))
        if kind == "float":
            return Atom("float", Leaf(name, "float64", shape))
        if kind == "number":
            return self._union(T.Type("union", (T.INT_T, T.FLOAT_T)), name, shape)
        if kind == "seat":
            return Atom("seat", Leaf(name, int_dtype(-1, self.seats), shape))
        if kind == "cell":
            return Atom("cell", Leaf(name, int_dtype(-1, self.cells), shape))
        if kind == "piece":
            if self.pieces_unfit:
                raise Unfit(self.pieces_unfit)
            return Atom("piece", Leaf(name, self.piece_dtype, shape))
        if kind == "text":
            if not t.names:
                raise Unfit("text made while the game runs (only text from a fixed list of values can be numbered)")
            return Atom("text", Leaf(name, int_dtype(0, len(t.names)), shape), t.names)
        if kind == "tuple":
            return Fixed(tuple(self.of(item, f"{name}.{i}", shape) for i, item in enumerate(t.items)))
        if kind in ("list", "seq"):
            if t.high is None:
                raise Unfit(f"{T.describe(t)} of unknown length")
            return self.many(t.items[0], t.high, name, shape, "list" if kind == "list" else "tuple")
        if kind == "table":
            keys = self._keys(t.items[0] if t.items else T.ANY)
            if keys is None:
                raise Unfit(f"{T.describe(t)}: its keys are known only while the game runs")
            inner = shape + (len(keys),)
            if _size(inner) > MAX_VALUES:
                raise Unfit(f"a table of up to {len(keys):,} keys in {_size(shape):,} places: more values than "
                            f"{MAX_VALUES:,}")
            return Keyed(keys, Leaf(f"{name}.order", int_dtype(-1, len(keys)), inner),
                         self.of(t.items[1], f"{name}.value", inner))
        if kind == "record":
            raise Unfit(f"{T.describe(t)}: its fields are known only while the game runs")
        raise Unfit(f"{T.describe(t)} cannot be numbered")

    def _keys(self, t: T.Type) -> tuple | None:
        """Every value a table's key of type t may be, where that is a set fixed at load (else None)."""
        if t.name == "union":  # (texts of several enumerations, none...: every member's keys, each once)
            found = [self._keys(m) for m in t.items]
            return None if None in found else tuple(dict.fromkeys(k for keys in found for k in keys))
        if t.name == "none":
            return (None,)
        if t.name == "text" and t.names:
            return tuple(t.names)
        if t.name == "seat":
            return tuple(range(self.seats))
        if t.name == "bool":
            return (False, True)
        if t.name == "int" and t.low is not None and t.high is not None and t.high - t.low < MAX_VALUES:
            return tuple(range(t.low, t.high + 1))
        return None  # (cells are Cell values: a table keyed by cells is held per cell by `keys: cells`)

    def many(self, item: T.Type | None, capacity: int, name: str, shape: tuple, kind: str, form=None) -> Many:
        """A list of at most `capacity` items of type `item` (or held by `form(name, shape)`)."""
        if _size(shape) * max(capacity, 1) > MAX_VALUES:
            raise Unfit(f"a list of up to {capacity:,} items in {_size(shape):,} places: more values than "
                        f"{MAX_VALUES:,}")
        inner = shape + (capacity,)
        nested = item is not None and item.name in ("list", "seq")  # (its own length beside this one's)
        held = form(name, inner) if form is not None else self.of(item, f"{name}.item" if nested else name, inner)
        return Many(held, Leaf(f"{name}.len", count_dtype(capacity), shape), capacity, kind)

    def _union(self, t: T.Type, name: str, shape: tuple) -> Form:
        members = self._merged(t.items)
        if len(members) == 1:
            return self.of(members[0], name, shape)
        labels = [_label(m) for m in members]
        labels = [f"{label}{i}" if labels.count(label) > 1 else label for i, label in enumerate(labels)]
        forms = tuple(self.of(m, f"{name}.{label}", shape) for m, label in zip(members, labels))
        return OneOf(Leaf(f"{name}.tag", "int8", shape), forms)

    def _merged(self, members: tuple) -> list:
        """A union's members as forms tell them apart: the values of texts in one enumeration, and whole numbers in
        one range (a seat is a whole number when the game runs: with a number, it is a number)."""
        texts = [m for m in members if m.name == "text"]
        if any(not m.names for m in texts):
            raise Unfit("text made while the game runs (only text from a fixed list of values can be numbered)")
        found = [m for m in members if m.name not in ("text", "int", "seat")]
        ints = [m if m.name == "int" else T.int_(0, self.seats - 1) for m in members if m.name in ("int", "seat")]
        if ints:
            joined = ints[0]
            for other in ints[1:]:
                joined = T.join(joined, other)
            found.append(joined if any(m.name == "int" for m in members) else T.SEAT)
        if texts:
            found.append(T.enum(*(v for m in texts for v in m.names)))
        return sorted(found, key=lambda m: (m.name != "none", m.name, repr(m)))


def _label(t: T.Type) -> str:
    return {"seq": "tuple"}.get(t.name, t.name)


def _size(shape: tuple) -> int:
    n = 1
    for d in shape:
        n *= d if d is not None else 1
    return n
