"""A variable with one value per seat or per key assigned whole (`marks = [0 for p in players]`, `pen = {'red': 2,
'blue': 0}`) in compiled code (a mixin of printer.Printer), as the Python engine assigns it (lang/checked.py
replaced_places): a list of exactly one value per seat, or a table written out whose keys are exactly the
variable's, each value written to its place and checked to fit as any value written there is; a list of another
length, or a table of other keys, is the Python engine's error, located."""

from __future__ import annotations

from ...ir import nodes as N
from ...ir.forms import Atom
from .places import _may_be_none


class SeatPlaces:
    """The assignment of a per-seat or per-key variable whole, for printer.Printer._assign."""

    def assign_seat_places(self, node, env) -> list | None:
        """The lines of `var = list` for a variable with a place per seat holding single values; None for any other
        assignment."""
        target = node.target
        if not (isinstance(target, N.Ref) and target.kind == "var" and self.places.per_seat(target)):
            return None
        slot = self.places.slot(target)
        if node.op != "=" or not isinstance(slot.form, Atom):
            return None  # (assigning this: refused as before)
        if not self.places._by_seat(target.name):
            return self._assign_key_places(node, slot, env)
        code, rep = self.ex(node.value, env)
        if rep != "a":
            raise self.unsupported(node, f"'{target.name}' assigned whole from anything but a list of single values")
        seats = self.t.seats
        wrong = self.m.code(f"ValueError: '{target.name}' holds one value per seat ({seats}): assign a list of "
                            f"{seats} values, not a list of {{0}}", node.at[0])
        return ([f"wv = {code}", "if wv.shape[0] != NS:", f"    raise ValueError({wrong!r}, wv.shape[0])",
                 "for wr in range(NS):"]
                + ["    " + line for line in self.places.write(target, "wr", "wv[wr]", "i", node.at[0])])

    def _assign_key_places(self, node, slot, env) -> list | None:
        """`var = {key: value, ...}` (or a choice of such tables, `a if c else b`) for a variable with a place per
        key: every pair worked out in order, then the keys checked to be exactly the variable's, then each value
        written to its key's place."""
        target, at = node.target, node.at[0]
        if not _written_out(node.value):
            return None  # (a table made otherwise: refused as before)
        table, low, kind = self.places._keys(target, slot)
        keys = list(slot.places)
        shown = ", ".join(str(k) for k in keys[:8]) + (", ..." if len(keys) > 8 else "")
        wrong = self.m.code(f"ValueError: '{target.name}' holds one value per key ({shown}): assign a table of "
                            "exactly those keys", at)
        lines = [f"kv = np.zeros({len(keys)}, np.int64)", f"ks = np.zeros({len(keys)}, np.int64)", "kbad = False"]
        lines += self._pairs(node.value, table, low, kind, env)
        lines += ["kn = 0", f"for wr in range({len(keys)}):", "    kn += ks[wr]",
                  f"if kbad or kn != {len(keys)}:", f"    raise ValueError({wrong!r})", f"for wr in range({len(keys)}):"]
        return lines + ["    " + line for line in self.places.write(target, "wr", "kv[wr]", "i", at)]

    def _pairs(self, value, table, low, kind, env) -> list:
        """The lines working out the pairs of a table written out (of the branch taken, for a choice) into kv, ks
        (its keys met) and kbad (a key not the variable's)."""
        if isinstance(value, N.Cond):
            return ([f"if {self.truth(value.test, env)}:"]
                    + ["    " + line for line in self._pairs(value.then, table, low, kind, env)]
                    + ["else:"] + ["    " + line for line in self._pairs(value.other, table, low, kind, env)])
        lines = []
        for key, item in value.items:
            if kind == "int" and _may_be_none(key):
                raise self.unsupported(key, "a key that may be none, of a variable whose keys are numbers")
            lines += [f"kr = _rt.key_row_or({table}, {low}, {self.scalar(key, env)})", f"kx = {self.scalar(item, env)}",
                      "if kr < 0:", "    kbad = True", "else:", "    kv[kr] = kx", "    ks[kr] = 1"]
        return lines or ["pass"]


def _written_out(value) -> bool:
    """Whether `value` is a table written out, or a choice between such tables."""
    if isinstance(value, N.Cond):
        return _written_out(value.then) and _written_out(value.other)
    return isinstance(value, N.Display) and value.kind == "table"
