"""Effects moving every piece of a zone's place at once (a mixin of printer.Printer): move_all(from, to), as the
Python built-in does it (model/builtins/places.py): the pieces go on top of the target's, in their order, and the
place they left is emptied (a place moved onto itself is emptied too, as Python's list.extend then clear leaves it).
A target that cannot hold them is the error zones.py gives a piece put into a full place."""

from __future__ import annotations


class ZoneMoves:
    """Effects (`e_<name>(call, env) -> lines`) as in printer.Printer, and the piece at a position taken (zones.py)."""

    def taken_at(self, call, where, piece, at, env, fn: str) -> list:
        """Lines leaving in `mp` the piece at position `at` (at=: 0 the first, -1 the last) taken out of the zone
        place `where`: Python's list.pop(at), and its errors (a piece named as well, no such position)."""
        found = self.zones.place(where, env)
        if found is None:
            raise self.unsupported(call, f"{fn}() from anything but a cell or a zone")
        if at.type.name != "int":
            raise self.unsupported(at, f"{fn}() at a position that is not always a whole number")
        base, length, cap, _, _ = found
        both = self.m.error(f"{fn}(): name the piece or its position (at=), not both", call.at[0])
        missing = self.m.code(f"{fn}(): the zone holds {{0}} pieces, and has no position {{1}} (0 is its first, -1 "
                              "its last)", call.at[0])
        self.m.functions.setdefault(("helper", "zone_take_at"), ("_zone_take_at", ZONE_TAKE_AT))
        lines = []
        if piece is not None and piece.type.name != "none":  # (a piece that is none is no piece named: 0)
            lines += [f"if {self.scalar(piece, env)} != 0:", "    " + both]
        return lines + [f"mi = {self.scalar(at, env)}", f"mp = _zone_take_at(s, {base}, {length}, {cap}, mi)",
                        "if mp == -1:", f"    raise ValueError({missing!r}, s[{length}], mi)"]

    def moved_all(self, call, source, target, env, pad: str = "") -> list:
        """Lines moving every piece of the zone place `source` onto `target` (both zone places, else Unsupported)."""
        places = [self.zones.place(where, env) for where in (source, target)]
        if None in places:
            raise self.unsupported(call, "moving every piece of anything but a zone's place")
        (base, length, cap, _, _), (to_base, to_length, to_cap, ref, row) = places
        declared = self.zones.declared.get(ref.name)
        shown = ref.name if row == "0" else f"{ref.name}[{{1}}]"
        if declared is not None:  # (as zones.py: the Python engine's error, once it has made the move)
            full = self.m.code(f"zone '{shown}' holds {{0:,}} items, more than its capacity {declared:,}", call.at[0],
                               hint="raise its capacity: (or empty it sooner)", capacity=True)
        else:
            full = self.m.code(f"zone '{shown}' holds {{0:,}} items, more than the {to_cap:,} pieces of the game",
                               call.at[0])
        self.m.functions.setdefault(("helper", "move_all"), ("_move_all", MOVE_ALL))
        lines = [f"mr = {row}",
                 f"mf = _move_all(s, {base}, {length}, {cap}, {to_base}, {to_length}, {to_cap})",
                 "if mf >= 0:", f"    raise ValueError({full!r}, mf, mr)"]
        return [pad + line for line in lines]


MOVE_ALL = '''@_jit
def _move_all(s, base, at_length, capacity, to_base, to_length, to_capacity):
    """Every piece of one zone place put last into another, in order, the first emptied: -1, else (nothing moved)
    how many pieces the target would hold."""
    moved = _rt.zone_items(s, base, at_length, capacity)
    if base != to_base:
        held = _rt.zone_items(s, to_base, to_length, to_capacity)
        if held.shape[0] + moved.shape[0] > to_capacity:
            return held.shape[0] + moved.shape[0]
        for i in range(moved.shape[0]):
            _rt.zone_put(s, to_base, to_length, to_capacity, moved[i])
    for i in range(moved.shape[0]):
        s[base + i] = 0
    s[at_length] = 0
    return -1'''


ZONE_TAKE_AT = '''@_jit
def _zone_take_at(s, base, at_length, capacity, i):
    """Take the piece at position i (from the end when negative) out of a zone's place, the pieces after it moving
    down (Python's list.pop(i)): the piece, or -1 for no such position."""
    n = s[at_length]
    if n < 0 or n > capacity:
        raise IndexError("a zone's length beyond its place")
    if i < -n or i >= n:
        return -1
    if i < 0:
        i += n
    taken = s[base + i]
    for j in range(i, n - 1):
        s[base + j] = s[base + j + 1]
    s[base + n - 1] = 0
    s[at_length] = n - 1
    return taken'''
