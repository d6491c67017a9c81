"""Zones in compiled code: each place of a zone is a run of piece numbers in the vector with its length (the
layout's list form, ir/forms.py), read as a list (a copy) and changed by move() and remove() as the Python
built-ins change it (model/builtins/places.py): a piece named is the first equal one, the pieces after it moving
down; none named is the last (the top of a stack); a piece put into a zone goes last. A zone whose pieces are not
numbered is Unsupported, located. A zone of one place per key finds the place of a key among its keys."""

from __future__ import annotations

from ...ir import nodes as N
from ...ir.forms import Atom, Many
from .messages import ValueMessage


class Zones:
    """The code reading and changing the zones of one game, printed into `printer`'s module."""

    def __init__(self, printer, rules):
        self.p, self.m = printer, printer.m
        self.slots, self.fields = printer.packing.layout.slots, printer.packing.fields
        self.declared = {h.name: h.capacity for _, h in rules.bounded if h.zone}

    def _form(self, node):
        """The list form of zone `node` (a Ref), and whether it has a place per seat."""
        slot = self.slots.get(f"zone.{node.name}")
        if slot is None or not slot.fits or not isinstance(slot.form, Many) or not isinstance(slot.form.item, Atom) \
                or slot.form.item.kind != "piece":
            raise self.p.unsupported(node, f"zone '{node.name}', held as Python values")
        return slot.form, slot.places is not None

    def place(self, node, env):
        """(base, where its length is, capacity, the zone's Ref, code of its seat or "0") of the zone place `node`
        is (a zone, or a zone per seat indexed), or None when `node` is no zone place."""
        if isinstance(node, N.Ref) and node.kind == "zone":
            form, per_seat = self._form(node)
            if per_seat:
                raise self.p.unsupported(node, f"zone '{node.name}' without the seat whose place it is")
            ref, row = node, "0"
        elif isinstance(node, N.Index) and isinstance(node.obj, N.Ref) and node.obj.kind == "zone":
            form, per_seat = self._form(node.obj)
            if not per_seat:
                raise self.p.unsupported(node, f"an index into zone '{node.obj.name}'")
            ref, row = node.obj, self._row(node, env)
        else:
            return None
        cap = form.capacity
        base = f"{self.fields[form.item.leaf.name].ident} + {row} * {cap}"
        return base, f"{self.fields[form.length.name].ident} + {row}", cap, ref, row

    def _row(self, node, env) -> str:
        """The code of the place zone[index] is: a seat's, or a key's found among the zone's keys."""
        ref = node.obj
        if any(h.name == ref.name and h.per == "player" for h in self.p.t.rules.zones):
            return f"_seat_at({self.p.scalar(node.index, env)})"
        slot = self.slots[f"zone.{ref.name}"]
        table, low, kind = self.p.places._keys(ref, slot)
        texts = self.m.texts

        def shown(code: int):  # (texts are numbered as the module is printed: looked up when shown)
            text = next((t for t, n in texts.items() if n == code), None) if kind == "text" else None
            return code if text is None else repr(text)

        error = self.m.code(ValueMessage("KeyError: {0}", shown), node.at[0])
        return f"_rt.key_row({table}, {low}, {self.p.scalar(node.index, env)}, {error!r})"

    def read(self, node, env) -> tuple:
        base, length, cap, _, _ = self.place(node, env)
        return f"_rt.zone_items(s, {base}, {length}, {cap})", "a"

    # -- effects ----------------------------------------------------------------------------------------------
    def move(self, call, env) -> list:
        """move(from, to[, piece]): between cells and zones."""
        if not 2 <= len(call.args) <= 3 or set(dict(call.kwargs)) - {"at"}:
            raise self.p.unsupported(call, "move() with these arguments")
        lines = self._take(call, call.args[0], call.args[2] if len(call.args) > 2 else None, env, "move")
        return lines + self._put(call, call.args[1], env)

    def place_piece(self, call, env) -> list | None:
        """place(piece, zone): the piece put last into the zone (none is not a piece); None where `zone` is none."""
        if self.place(call.args[1], env) is None:
            return None
        empty = self.m.code("place(): None is not a piece", call.at[0])
        return [f"mp = {self.p.scalar(call.args[0], env)}", "if mp <= 0:", f"    raise ValueError({empty!r})",
                *self._put(call, call.args[1], env)]

    def move_all(self, call, env) -> list:
        """move_all(from, to): every piece of one zone's place put last into another's, in order; `from` emptied."""
        if len(call.args) != 2 or call.kwargs:
            raise self.p.unsupported(call, "move_all() with these arguments")
        found = [self.place(where, env) for where in call.args]
        if None in found:
            raise self.p.unsupported(call, "move_all() of anything but zones")
        (base, length, cap, _, _) = found[0]
        # (a place moved onto itself ends empty, as Python's list.extend of itself, then clear())
        lines = [f"ma = _rt.zone_items(s, {base}, {length}, {cap})", f"s[{base}:{base} + ma.shape[0]] = 0",
                 f"s[{length}] = 0", f"if ({base}) != ({found[1][0]}):", "    for mi in range(ma.shape[0]):",
                 "        mp = ma[mi]"]
        return lines + ["        " + line for line in self._put(call, call.args[1], env)]

    def remove(self, call, env) -> list:
        """remove(where[, piece]): off a cell, or out of a zone."""
        if not 1 <= len(call.args) <= 2 or set(dict(call.kwargs)) - {"at"}:
            raise self.p.unsupported(call, "remove() with these arguments")
        return self._take(call, call.args[0], call.args[1] if len(call.args) > 1 else None, env, "remove")

    def _take(self, call, where, piece, env, fn: str) -> list:
        """Lines leaving the piece taken from `where` in `mp`."""
        at = call.at[0]
        if _cell_or_none(where.type):
            cell = self.p.field("cells", "mc")
            names = self.p.t.rules.board.cells  # (the Python engine names the cell)
            empty = self.m.code(ValueMessage(f"{fn}(): cell {{0}} is empty", lambda c: str(names[c])), at)
            return [*self._cell(where, env, fn, at), f"mp = {cell}",
                    "if mp == 0:", f"    raise ValueError({empty!r}, mc)", f"{cell} = 0"]
        if "at" in dict(call.kwargs):  # the piece at a position (zone_moves.py)
            return self.p.taken_at(call, where, piece, dict(call.kwargs)["at"], env, fn)
        found = self.place(where, env)
        if found is None:
            raise self.p.unsupported(call, f"{fn}() from anything but a cell or a zone")
        base, length, cap, _, _ = found
        want = self.p.scalar(piece, env) if piece is not None else "-1"
        return [f"mp = _rt.zone_take(s, {base}, {length}, {cap}, {want})",
                "if mp == -1:", "    " + self.m.error(f"{fn}(): the zone is empty", at),
                "if mp == -2:", "    " + self.m.error(f"{fn}(): no such piece in the zone", at)]

    def _cell(self, where, env, fn: str, at) -> list:
        """Lines leaving in `mc` the cell `where` is (none is neither a cell nor a zone)."""
        lines = [f"mc = {self.p.scalar(where, env)}"]
        if where.type.name != "cell":
            lines += ["if mc == -1:", "    " + self.m.error(f"{fn}(): none is not a cell or zone", at)]
        return lines + ["mc = _cell(mc)"]

    def _put(self, call, where, env) -> list:
        """Lines putting the piece in `mp` on the cell or into the zone `where`."""
        at = call.at[0]
        if _cell_or_none(where.type):
            cell = self.p.field("cells", "mc")
            return [*self._cell(where, env, "move", at), f"if {cell} != 0:",
                    "    " + self.m.error("move(): the cell is occupied", at), f"{cell} = mp"]
        found = self.place(where, env)
        if found is None:
            raise self.p.unsupported(call, "move() to anything but a cell or a zone")
        base, length, cap, ref, row = found
        declared = self.declared.get(ref.name)
        shown = ref.name if row == "0" else f"{ref.name}[{{1}}]"
        if declared is not None:  # the Python engine's error, once it has made the move
            code = self.m.code(f"zone '{shown}' holds {{0:,}} items, more than its capacity {declared:,}", at,
                               hint="raise its capacity: (or empty it sooner)", capacity=True)
        else:
            code = self.m.code(f"zone '{shown}' holds {{0:,}} items, more than the {cap:,} pieces of the game", at)
        return [f"mr = {row}", f"if not _rt.zone_put(s, {base}, {length}, {cap}, mp):",
                f"    raise ValueError({code!r}, s[{length}] + 1, mr)"]


def _cell_or_none(t) -> bool:
    return t.name == "cell" or t.name == "union" and sorted(m.name for m in t.items) == ["cell", "none"]
