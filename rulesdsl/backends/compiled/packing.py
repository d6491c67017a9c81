"""A state's arrays (engine/arrays.py) packed into one int64 vector, the form compiled code reads and writes.

Each array of the layout that is not the history log gets a run of the vector at a fixed offset, in layout
order; unsigned 64-bit arrays (the random stream) keep their bits. Packing and unpacking are exact inverses for
arrays of the layout's dtypes.

A game that counts its positions (repeated()) keeps the key of each position it left in the vector too: their
number in a word kept after the scratch, the keys themselves after every fixed word (the *tail*, from `tail`), so
a state's vector is as long as its game needs; compiled code lengthens it (runtime.with_room) where it may, and
whoever holds a vector it cannot replace makes room first (`room`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .unsupported import Unsupported


_LOG = ("log",)  # slots kept beside the vector, as Python values
TAIL_ROOM = 64  # room for positions' keys a packed vector has at least, beyond those it holds
ROOM_AHEAD = 8  # room for positions' keys made before a move is applied (a move leaves one)
# Scratch words after the layout's arrays, which compiled code keeps while it applies a move and which no state
# holds between moves (packing gives them 0, unpacking leaves them out): where goto() sends play (its step's index
# + 1; 0: nowhere), and the move kind (+ 1) and the turn of the move being applied, which an error after it names;
# who sees the chance outcome just drawn (1 + a bit per seat; 0: every seat), which a playout logs; the draws that
# chance() asked for in the effects being applied, and whether they are an outcome's at a call (calls.py).
SCRATCH = ("goto", "rule", "turn", "seen", "asked", "called")


@dataclass(frozen=True)
class Field:
    """One array of the layout in the vector: its name, mangled name, offset, shape and dtype."""

    name: str
    ident: str
    offset: int
    shape: tuple
    dtype: str

    @property
    def size(self) -> int:
        return math.prod(self.shape)


class Packing:
    """Where each array of a layout lies in the vector."""

    def __init__(self, layout, where):
        self.layout, self.fields, self.log = layout, {}, []
        offset, taken = 0, set()
        for slot in layout.slots.values():
            if slot.kind in _LOG:
                self.log.extend(leaf.name for leaf in slot.leaves())
                continue
            if not slot.fits:
                raise Unsupported(where(slot.decl), f"{slot.kind} '{slot.name}' is held as Python values: {slot.why}")
            for leaf in slot.leaves():
                if leaf.dtype in ("object", "float64") or None in leaf.shape:
                    raise Unsupported(where(slot.decl), f"'{leaf.name}' is held as {leaf.dtype}")
                ident = mangle(leaf.name, taken)
                self.fields[leaf.name] = Field(leaf.name, ident, offset, leaf.shape, leaf.dtype)
                offset += self.fields[leaf.name].size
        # (name, start, end, shape, dtype, whether its bits are kept) of each array: what pack and unpack walk
        self._runs = [(f.name, f.offset, f.offset + f.size, f.shape, f.dtype, f.dtype == "uint64")
                      for f in self.fields.values()]
        self.scratch = {name: offset + i for i, name in enumerate(SCRATCH)}  # name -> offset
        self.size = offset + len(SCRATCH)
        self.kept = {}  # name -> offset of words reserved after the scratch (see reserve)
        # the number of positions' keys in the tail (a game that counts them, see the module's docstring)
        self.positions = self.reserve("positions", 1) if "positions" in layout.slots else None

    def reserve(self, name: str, size: int) -> int:
        """`size` words after the scratch that compiled code keeps between moves, though no array of the layout
        holds them (the choices made so far at a simultaneous step: the layout keeps those as the history's last
        moves); packing gives them 0, and whoever packs fills them. Their offset."""
        self.kept[name] = self.size
        self.size += size
        return self.kept[name]

    @property
    def tail(self) -> int:
        """Where the keys of the positions left begin: after every word at a fixed offset (reserve comes first)."""
        return self.size

    def pack(self, arrays: dict) -> np.ndarray:
        import numpy as np
        keys = np.asarray(arrays["positions"], np.uint64) if self.positions is not None else ()
        s = np.zeros(self.size + (len(keys) + max(len(keys), TAIL_ROOM) if self.positions is not None else 0),
                     np.int64)
        for name, start, end, _, _, bits in self._runs:
            a = np.asarray(arrays[name]).reshape(-1)
            s[start:end] = a.view(np.int64) if bits else a
        if self.positions is not None:
            s[self.positions] = len(keys)
            s[self.tail:self.tail + len(keys)] = keys.view(np.int64)
        return s

    def unpack(self, s: np.ndarray) -> dict:
        import numpy as np
        out = {}
        for name, start, end, shape, dtype, bits in self._runs:
            run = s[start:end]
            out[name] = (run.view(np.uint64).copy() if bits else run.astype(dtype)).reshape(shape)
        if self.positions is not None:
            out["positions"] = s[self.tail:self.tail + s[self.positions]].view(np.uint64).copy()
        return out

    def room(self, s: np.ndarray, keys: int) -> np.ndarray:
        """`s`, or a longer copy of it, with room in its tail for `keys` more positions' keys."""
        import numpy as np
        if self.positions is None:
            return s
        length = self.length_for(len(s), int(s[self.positions]), keys)
        if length == len(s):
            return s
        grown = np.zeros(length, np.int64)
        grown[:len(s)] = s
        return grown

    def length_for(self, length: int, held: int, keys: int) -> int:
        """The length of a vector of `length` words whose tail holds `held` keys, made to have room for `keys` more:
        as it is when they fit, else at least twice the room (so that a long game lengthens it rarely)."""
        if self.tail + held + keys <= length:
            return length
        return max(2 * length - self.tail, self.tail + held + keys + TAIL_ROOM)


def mangle(name: str, taken: set) -> str:
    """An identifier for generated code made from a layout or IR name (only letters, digits and _ survive), unique
    among `taken` (which it joins)."""
    base = "O_" + re.sub(r"[^A-Za-z0-9]", "_", name)
    ident, n = base, 1
    while ident in taken:
        ident, n = f"{base}_{n}", n + 1
    taken.add(ident)
    return ident
