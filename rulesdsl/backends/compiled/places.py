"""Variables read and written in compiled code: each place's arrays in the packed vector, by its form (ir/forms.py).

A variable's place is one value (`per:` none) or one per seat (`per: player`). The forms taken are a single value
(a number, true or false, a seat, a cell, a piece, a text of an enumeration), none or one of those, and a list of
single values of at most its capacity (a declared `capacity:`, else the bound its type gives). A text is held as its
place in the enumeration and read as the module's number for it; every value written is checked against what its
array holds (a number against its dtype's range, a text against its enumeration, a list against its capacity), so
a write never lands outside its place nor is cut short silently: it is a located error instead.
"""

from __future__ import annotations

from ...ir import nodes as N
from ...ir.forms import Atom, Keyed, Many, Nothing, OneOf
from ...model.values import Cell
from .items import ItemPlaces
from .messages import ValueMessage

_SINGLE = ("int", "bool", "seat", "cell", "piece", "text")


class Places(ItemPlaces):
    """The code reading and writing the variables of one game, printed into `printer`'s module."""

    def __init__(self, printer, rules):
        self.p, self.m, self.rules = printer, printer.m, rules
        self.slots = printer.packing.layout.slots
        self.fields = printer.packing.fields
        self.capacities = {h.name: h.capacity for _, h in rules.bounded if not h.zone}
        self.keyed = {}  # variable -> (table, low, kind) of its keys (see _keys)

    # -- what a variable is -----------------------------------------------------------------------------------
    def slot(self, node):
        """The layout's slot of variable `node` (a Ref), with its form; Unsupported where it is not taken."""
        slot = self.slots.get(f"var.{node.name}")
        if slot is None or not slot.fits:
            raise self.p.unsupported(node, f"variable '{node.name}', held as Python values")
        if slot.places is not None and not self._by_seat(node.name):
            self._keys(node, slot)
        self._check(node, slot.form)
        return slot

    def _by_seat(self, name: str) -> bool:
        return any(h.name == name and h.per == "player" for h in self.rules.vars)

    def _keys(self, node, slot) -> tuple:
        """(table, low) finding the place of a key of a variable declared with `keys:`: table[code - low] is the
        place of the key whose code is `code`, or -1. Keys are whole numbers, cells or texts, all of one kind."""
        found = self.keyed.get(node.name)
        if found is None:
            kinds = {_key_kind(k) for k in slot.places}
            if len(kinds) != 1 or None in kinds:
                raise self.p.unsupported(node, f"variable '{node.name}', one value per key of several kinds")
            codes = [self.m.text(k) if isinstance(k, str) else int(k) for k in slot.places]
            low, high = min(codes), max(codes)
            if high - low + 1 > 4 * len(codes) + 1024:
                raise self.p.unsupported(node, f"variable '{node.name}', whose keys are far apart")
            rows = [-1] * (high - low + 1)
            for place, code in enumerate(codes):
                rows[code - low] = place
            found = self.keyed[node.name] = (self.m.table(("keys", node.name), rows), low, kinds.pop())
        return found

    def row(self, node, index, env, at, write: bool = False) -> str:
        """Code of the place of variable `node` (one per seat or per key) that `index` (an IR node) names: a seat
        as Python's list index takes it, a key found among the keys (a missing key: the Python engine's error,
        KeyError when read, LookupError when written)."""
        code = self.p.scalar(index, env)
        if self._by_seat(node.name):
            return f"_seat_at({code})"
        table, low, kind = self._keys(node, self.slot(node))
        if kind == "int" and _may_be_none(index):
            raise self.p.unsupported(index, "a key that may be none, of a variable whose keys are numbers")
        names, texts = self.p.t.rules.board.cells, self.m.texts

        def shown(code: int):  # (texts are numbered as the module is printed: looked up when shown)
            if kind == "int":
                return code
            if code == -1:
                return "None"
            if kind == "cell":
                return str(names[code]) if 0 <= code < len(names) else code
            text = next((t for t, n in texts.items() if n == code), None)
            return code if text is None else text if write else repr(text)

        if write:
            message = f"LookupError: {node.name}[{{0}}]: {{0}} is not one of the keys of '{node.name}'"
        else:
            message = "KeyError: {0}"
        error = self.m.code(ValueMessage(message, shown), at)
        return f"_rt.key_row({table}, {low}, {code}, {error!r})"

    def _check(self, node, form) -> None:
        if isinstance(form, Atom) and form.kind in _SINGLE:
            return
        if _optional(form) or _number_or_none(form):
            return
        if isinstance(form, Many) and (isinstance(form.item, Atom) and form.item.kind in _SINGLE
                                       or _optional(form.item)):
            return
        if isinstance(form, Many) and isinstance(form.item, Keyed) and isinstance(form.item.value, Atom) \
                and form.item.value.kind in _SINGLE:  # its items read and written one by one (items.py)
            return
        raise self.p.unsupported(node, f"variable '{node.name}' of {_describe(form)}")

    def per_seat(self, node) -> bool:
        return self.slot(node).places is not None

    # -- reading ----------------------------------------------------------------------------------------------
    def read(self, node, row: str = "0") -> tuple:
        """(code, rep) of the value of variable `node` at place `row` (code of a seat, already checked)."""
        form = self.slot(node).form
        if isinstance(form, Atom):
            return self._atom(form, row), "i"
        if _number_or_none(form):  # read as a number: none is an error where one is needed
            code = self.m.code(f"TypeError: '{node.name}' is none where a number is needed", node.at[0])
            return f"_rt.some({self._at(form.tag, row)}, {self._atom(form.members[1], row)}, {code!r})", "i"
        if isinstance(form, OneOf):
            tag, atom = self._at(form.tag, row), form.members[1]
            return f"({self._atom(atom, row)} if {tag} == 1 else {_absent(atom)})", "i"
        item, length = form.item, self._at(form.length, row)
        if isinstance(item, Keyed):
            raise self.p.unsupported(node, f"variable '{node.name}', a list of tables, read whole")
        if isinstance(item, OneOf):  # none or a value, item by item
            atom = item.members[1]
            tags = f"{self.fields[item.tag.name].ident} + {row} * {form.capacity}"
            start = f"{self.fields[atom.leaf.name].ident} + {row} * {form.capacity}"
            enum = self.enum(atom) if atom.kind == "text" else "_none()"
            return f"_rt.optionals(s, {tags}, {start}, {length}, {enum}, {atom.kind == 'text'}, {_absent(atom)})", "a"
        start = f"{self.fields[item.leaf.name].ident} + {row} * {form.capacity}"
        code = f"s[{start}:{start} + {length}].copy()"
        if item.kind == "text":
            code = f"{self.enum(item)}[{code}]"
        return code, "a"

    def whole(self, node) -> tuple:
        """(code, rep) of a variable with a place per seat read whole: a list of single numbers."""
        slot = self.slot(node)
        form = slot.form
        if not self._by_seat(node.name):
            raise self.p.unsupported(node, f"variable '{node.name}', one value per key, read whole")
        if not isinstance(form, Atom) or form.kind not in ("int", "bool", "seat"):
            raise self.p.unsupported(node, f"variable '{node.name}' read whole")
        ident = self.fields[form.leaf.name].ident
        return f"s[{ident}:{ident} + NS].copy()", "a"

    def _at(self, leaf, row: str) -> str:
        return f"s[{self.fields[leaf.name].ident} + {row}]"

    def _atom(self, atom, row: str) -> str:
        code = self._at(atom.leaf, row)
        return f"{self.enum(atom)}[{code}]" if atom.kind == "text" else code

    def enum(self, atom) -> str:
        """The table of the module's text numbers of an enumeration's values, by their place in it."""
        return self.m.table(("enum", atom.values), [self.m.text(v) for v in atom.values])

    def number_or_none(self, node) -> bool:
        """Whether `node` is a variable (of one place) holding a number or none."""
        if not (isinstance(node, N.Ref) and node.kind == "var"):
            return False
        slot = self.slots.get(f"var.{node.name}")
        return slot is not None and slot.fits and slot.places is None and _number_or_none(slot.form)

    def compared(self, node) -> str:
        """Code of a variable holding a number or none, as == and != compare it: none is NONE_NUMBER."""
        form = self.slot(node).form
        return f"({self._atom(form.members[1], '0')} if {self._at(form.tag, '0')} == 1 else {NONE_NUMBER})"

    def assign_number_or_none(self, node, env):
        """The lines of `v = value` to a variable holding a number or none: none, the same of another such
        variable, or a value that is never none; None for an assignment to another variable."""
        target, value = node.target, node.value
        if not self.number_or_none(target):
            return None
        form = self.slot(target).form
        tag, leaf = self._at(form.tag, "0"), self._at(form.members[1].leaf, "0")
        if node.op == "=" and isinstance(value, N.Const) and value.value is None:
            return [f"{tag} = 0", f"{leaf} = 0"]
        if node.op == "=" and self.number_or_none(value):
            other = self.slot(value).form
            return [f"{tag} = {self._at(other.tag, '0')}", f"{leaf} = {self._at(other.members[1].leaf, '0')}"]
        if _may_be_none(value, self.p.ir):
            raise self.p.unsupported(node, "a value that may be none written to a number held with none")
        return None  # (written as a number: write() sets the tag)

    # -- writing ----------------------------------------------------------------------------------------------
    def write(self, node, row: str, value: str, rep: str, at) -> list:
        """The lines writing `value` (code of rep `rep`) to variable `node` at place `row`; `at`, the statement's
        path, locates a value that does not fit."""
        form = self.slot(node).form
        if isinstance(form, Many):
            if rep != "a":
                raise self.p.unsupported(node, "a single value written where a list is held")
            return self._write_list(node, form, row, value, at)
        if rep != "i":
            raise self.p.unsupported(node, "a list written where a single value is held")
        if isinstance(form, Atom):
            return [f"{self._at(form.leaf, row)} = {self._number(form, value, at)}"]
        atom = form.members[1]
        if _number_or_none(form):
            return [f"{self._at(atom.leaf, row)} = {self._number(atom, value, at)}", f"{self._at(form.tag, row)} = 1"]
        return [f"x = {value}", f"if x == {_absent(atom)}:", f"    {self._at(form.tag, row)} = 0", "else:",
                f"    {self._at(atom.leaf, row)} = {self._number(atom, 'x', at)}", f"    {self._at(form.tag, row)} = 1"]

    def _number(self, atom, value: str, at) -> str:
        """Code of the number `value` is held as in the array of `atom`, checked."""
        kind = atom.kind
        if kind == "text":
            return f"_place({self.enum(atom)}, {value})"
        if kind == "bool":
            return f"(1 if {value} else 0)"
        if kind == "cell":
            return f"_cell({value})"
        import numpy as np  # (numpy comes with the compiled extra; the base install never gets here)

        info = np.iinfo(atom.leaf.dtype)
        if kind == "piece":
            return f"_fits({value}, 0, {self.p.packing.layout.pieces - 1}, {self._overflow(at)})"
        if atom.leaf.dtype == "int64":
            return value
        return f"_fits({value}, {info.min}, {info.max}, {self._overflow(at)})"

    def _overflow(self, at) -> str:
        return repr(self.m.code("a number beyond what the variable's array holds (its type's range)", at))

    def _write_list(self, node, form, row, value, at) -> list:
        capacity, declared = form.capacity, self.capacities.get(node.name)
        shown = node.name if row == "0" and self.slot(node).places is None else f"{node.name}[{{1}}]"
        if declared is not None:
            message = f"variable '{shown}' holds {{0:,}} items, more than its capacity {declared:,}"
            code = self.m.code(message, at, hint="raise its capacity: (or empty it sooner)", capacity=True)
        else:
            code = self.m.code(f"variable '{shown}' holds {{0:,}} items, more than the {capacity:,} its type "
                               "bounds it by", at)
        item = form.item
        lines = [f"xs = {value}", f"if xs.shape[0] > {capacity}:", f"    raise ValueError({code!r}, xs.shape[0], "
                 f"{row})",
                 f"{self._at(form.length, row)} = xs.shape[0]",
                 "for j in range(xs.shape[0]):"]
        if isinstance(item, OneOf):
            atom = item.members[1]
            tag = f"s[{self.fields[item.tag.name].ident} + {row} * {capacity} + j]"
            return lines + [f"    if xs[j] == {_absent(atom)}:", f"        {tag} = 0", "    else:",
                            f"        s[{self.fields[atom.leaf.name].ident} + {row} * {capacity} + j] = "
                            f"{self._number(atom, 'xs[j]', at)}", f"        {tag} = 1"]
        return lines + [f"    s[{self.fields[item.leaf.name].ident} + {row} * {capacity} + j] = "
                        f"{self._number(item, 'xs[j]', at)}"]


def _key_kind(key) -> str | None:
    if isinstance(key, Cell):
        return "cell"
    if isinstance(key, str):
        return "text"
    if isinstance(key, int) and not isinstance(key, bool):
        return "int"
    return None


def _may_be_none(node, ir=None, depth: int = 0) -> bool:
    """Whether the expression `node` may give none, by its type (min() or max() of several values never does, nor
    a function of the file, `ir`'s, whose value never does)."""
    if isinstance(node, N.Call) and node.target == "builtin" and node.func in ("min", "max") and len(node.args) > 1:
        return False
    if isinstance(node, N.Call) and node.target == "function" and ir is not None and depth < 16 \
            and node.func in ir.functions and ir.functions[node.func].kind == "function":
        return _may_be_none(ir.functions[node.func].value, ir, depth + 1)
    t = node.type
    return t.name in ("none", "any") or t.name == "union" and any(m.name == "none" for m in t.items)


NONE_NUMBER = "-9223372036854775808"  # how == and != see none beside numbers: no number a rule may write is it


def _number_or_none(form) -> bool:
    """Whether `form` holds none or a whole number (or true or false)."""
    return isinstance(form, OneOf) and len(form.members) == 2 and isinstance(form.members[0], Nothing) \
        and isinstance(form.members[1], Atom) and form.members[1].kind in ("int", "bool")


def _optional(form) -> bool:
    """Whether `form` holds none or a single value that -1 (0 for a piece) cannot be mistaken for."""
    return isinstance(form, OneOf) and len(form.members) == 2 and isinstance(form.members[0], Nothing) \
        and isinstance(form.members[1], Atom) and form.members[1].kind in ("seat", "cell", "piece", "text")


def _absent(atom) -> str:
    return "0" if atom.kind == "piece" else "-1"


def _describe(form) -> str:
    if isinstance(form, Many):
        return "lists of lists or of values of several kinds"
    if isinstance(form, OneOf):
        return "values of several kinds"
    return "this kind of value"

