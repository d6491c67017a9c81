"""Positions compared in compiled code, as the Python engine compares them (State.snapshot: the board, zones and
variables), for `one_per_position`: moves made of parts whose parts leave one position are one move; and keyed,
as engine/repetition.py keys them, for repeated(n): each move applied leaves the key of the position it starts from
in the vector's tail (packing.py), and repeated(n) counts the current position's key among them.

Compiled code leaves words behind that hold nothing: the items past a list's length, the members of a value of
several types other than the one it holds, the values of a table's keys it lacks. `_canon(t)` clears them, so that
two positions are the same exactly when the words of their board, zones and variables (`POSITION`, their offsets
in the vector) are; what it clears is what engine/arrays.py leaves zero when it writes a state.
"""

from __future__ import annotations

import math

from ...ir.forms import Atom, Choice, Fixed, Keyed, Many, Nothing, OneOf
from ...ir.layout import POSITION_KINDS as _PARTS
from .packing import ROOM_AHEAD
from .unsupported import Unsupported


class Positions:
    """The positions of one game (`program`, program.Program) as compiled code compares them."""

    def __init__(self, program):
        self.program = program
        self.fields = program.packing.fields
        self.used = False  # whether a move lists one move per position (the module then holds POSITION)
        self.counted = program.packing.positions is not None  # whether the game counts the positions it leaves

    def first_per_position(self, kind: int, columns: int, start: str, pad: str) -> list:
        """Lines keeping, of the rows of `out` from `start` to n (moves of kind `kind`, of `columns` columns after
        the kind, listed on position `s` for one value of its own params), the first of those whose move leaves
        each position, in their order."""
        self.used = True
        self.program.m.functions.setdefault(("helper", "canon"), ("_canon", self.canon()))
        self.program.m.functions.setdefault(("helper", "same"), ("_same_at", SAME_AT))
        args = "".join(f", out[r, {j}]" for j in range(1, columns + 1))
        return [f"{pad}if n - {start} > 1:", f"{pad}    seen = np.empty((n - {start}, POSITION.shape[0]), np.int64)",
                f"{pad}    m = {start}", f"{pad}    for r in range({start}, n):", f"{pad}        t = s.copy()",
                f"{pad}        A_{kind}(t, me{args})", f"{pad}        _canon(t)",
                f"{pad}        if not _same_at(seen, m - {start}, t, POSITION):",
                f"{pad}            for j in range(POSITION.shape[0]):",
                f"{pad}                seen[m - {start}, j] = t[POSITION[j]]",
                f"{pad}            _rt.copy_into(out[m], out[r])", f"{pad}            m += 1", f"{pad}    n = m"]

    def leave(self, pad: str = "    ") -> list:
        """The lines of a move's application (before its effects) leaving the position it starts from, as the
        Python engine's State.apply does; none where the game does not count positions."""
        if not self.counted:
            return []
        self._keyed()
        return [f"{pad}_leave(s)"]

    def repeated(self, times: str) -> str:
        """An expression: whether the position has occurred `times` times in this game, counting this one."""
        self._keyed()
        return f"_repeated(s, {times})"

    def _keyed(self) -> None:
        """The module's functions keying, keeping and counting positions (once)."""
        self.used = True
        functions = self.program.m.functions
        functions.setdefault(("helper", "canon"), ("_canon", self.canon()))
        if ("helper", "keyed") not in functions:
            full = self.program.m.code("the position cannot be kept: the state has no room left for its positions",
                                       None)
            functions[("helper", "keyed")] = ("_position", KEYED.format(full=full))

    def header(self) -> list:
        """The table of the offsets the position's words lie at (where a move asked for them), and where the keys
        of the positions left lie (where the game counts them)."""
        lines = [f"POSITION = _table({self.words()!r}, 1)  # the words of the board, zones and variables"] \
            if self.used else []
        if self.counted:
            packing = self.program.packing
            lines += [f"POSITIONS = {packing.positions}  # how many positions' keys the tail holds",
                      f"TAIL = {packing.tail}  # where they begin",
                      f"ROOM_AHEAD = {ROOM_AHEAD}  # room for keys a playout makes before each move"]
        return lines

    def words(self) -> list:
        """The offsets in the vector of the words of the board, the zones and the variables."""
        found = []
        for slot in self.program.layout.slots.values():
            if slot.kind in _PARTS:
                for leaf in slot.leaves():
                    field = self.fields[leaf.name]
                    found += range(field.offset, field.offset + field.size)
        return found

    def canon(self) -> str:
        """The source of `_canon(t)`, clearing the words of position `t` that hold nothing."""
        lines = []
        for slot in self.program.layout.slots.values():
            if slot.kind in _PARTS:
                lines += self._clear(slot.form, slot.shape, slot.name)
        return "\n".join(["@_jit\ndef _canon(t):", *(lines or ["    pass"])])

    def _clear(self, form, prefix: tuple, name: str) -> list:
        """Lines clearing the words `form` (inside places of shape `prefix`) leaves holding nothing."""
        places = math.prod(prefix)
        if isinstance(form, (Atom, Nothing)):
            return []
        if isinstance(form, Fixed):
            return [line for item in form.items for line in self._clear(item, prefix, name)]
        if isinstance(form, Many):
            cap, length = form.capacity, self.fields[form.length.name]
            lines = [f"    for p in range({places}):", f"        for i in range(t[{length.offset} + p], {cap}):"]
            lines += [f"            {self._zero(leaf, len(prefix) + 1, f'p * {cap} + i')}"
                      for leaf in form.item.leaves()] or ["            pass"]
            return lines + self._clear(form.item, prefix + (cap,), name)
        if isinstance(form, OneOf):
            tag, lines = self.fields[form.tag.name], []
            for m, member in enumerate(form.members):
                leaves = member.leaves()
                if leaves:
                    lines += [f"    for p in range({places}):", f"        if t[{tag.offset} + p] != {m}:"]
                    lines += [f"            {self._zero(leaf, len(prefix), 'p')}" for leaf in leaves]
                lines += self._clear(member, prefix, name)
            return lines
        if isinstance(form, Keyed):
            keys, order = len(form.keys), self.fields[form.order.name]
            lines = [f"    for q in range({places * keys}):", f"        if t[{order.offset} + q] == -1:"]
            lines += [f"            {self._zero(leaf, len(prefix) + 1, 'q')}" for leaf in form.value.leaves()] \
                or ["            pass"]
            return lines + self._clear(form.value, prefix + (keys,), name)
        if isinstance(form, Choice):
            raise Unsupported(None, f"one move per position where '{name}' holds moves")
        raise Unsupported(None, f"one move per position where '{name}' is held so")

    def _zero(self, leaf, outer: int, at: str) -> str:
        """The statement clearing the block of `leaf` at index `at` of its first `outer` dimensions."""
        field = self.fields[leaf.name]
        inner = math.prod(field.shape[outer:])
        start = f"{field.offset} + ({at}) * {inner}"
        return f"t[{start}:{start} + {inner}] = 0"


# whether row `k` of `t`'s words at `at` were seen already: the first k rows of `seen`
SAME_AT = '''@_jit
def _same_at(seen, k, t, at):
    for q in range(k):
        same = True
        for j in range(at.shape[0]):
            if seen[q, j] != t[at[j]]:
                same = False
                break
        if same:
            return True
    return False'''


# the key of the position of `s` (its words with what holds nothing cleared, on a copy), the position left by the
# move being applied, and repeated(n) (engine/repetition.py)
KEYED = '''@_jit
def _position(s):
    t = np.empty(TAIL, np.int64)
    _rt.copy_into(t, s)
    _canon(t)
    return _rt.position_key(t, POSITION)


@_jit
def _leave(s):
    n = s[POSITIONS]
    if TAIL + n >= s.shape[0]:  # (its caller made room: a vector of some other length)
        raise ValueError("{full}")
    s[TAIL + n] = _position(s)
    s[POSITIONS] = n + 1


@_jit
def _repeated(s, times):
    return times <= 1 or _rt.occurrences(s, _position(s), POSITIONS, TAIL) + 1 >= times'''
