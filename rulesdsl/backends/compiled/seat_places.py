"""A variable with one value per seat assigned whole (`marks = [0 for p in players]`) in compiled code (a mixin of
printer.Printer), as the Python engine assigns it (lang/checked.py replaced_places): a list of exactly one value
per seat, each written to its seat's place and checked to fit as any value written there is; a list of another
length is the Python engine's error, located."""

from __future__ import annotations

from ...ir import nodes as N
from ...ir.forms import Atom


class SeatPlaces:
    """The assignment of a per-seat variable whole, for printer.Printer._assign."""

    def assign_seat_places(self, node, env) -> list | None:
        """The lines of `var = list` for a variable with a place per seat holding single values; None for any other
        assignment."""
        target = node.target
        if not (isinstance(target, N.Ref) and target.kind == "var" and self.places.per_seat(target)):
            return None
        slot = self.places.slot(target)
        if node.op != "=" or not self.places._by_seat(target.name) or not isinstance(slot.form, Atom):
            return None  # (assigning this: refused as before)
        code, rep = self.ex(node.value, env)
        if rep != "a":
            raise self.unsupported(node, f"'{target.name}' assigned whole from anything but a list of single values")
        seats = self.t.seats
        wrong = self.m.code(f"ValueError: '{target.name}' holds one value per seat ({seats}): assign a list of "
                            f"{seats} values, not a list of {{0}}", node.at[0])
        return ([f"wv = {code}", "if wv.shape[0] != NS:", f"    raise ValueError({wrong!r}, wv.shape[0])",
                 "for wr in range(NS):"]
                + ["    " + line for line in self.places.write(target, "wr", "wv[wr]", "i", node.at[0])])
