"""Effects moving every piece of a zone's place at once (a mixin of printer.Printer): move_all(from, to), as the
Python built-in does it (model/builtins/places.py): the pieces go on top of the target's, in their order, and the
place they left is emptied (a place moved onto itself is emptied too, as Python's list.extend then clear leaves it).
A target that cannot hold them is the error zones.py gives a piece put into a full place."""

from __future__ import annotations


class ZoneMoves:
    """Effects (`e_<name>(call, env) -> lines`) as in printer.Printer."""

    def e_move_all(self, call, env) -> list:
        if len(call.args) != 2 or call.kwargs:
            raise self.unsupported(call, "move_all() with these arguments")
        return self.moved_all(call, call.args[0], call.args[1], env)

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
