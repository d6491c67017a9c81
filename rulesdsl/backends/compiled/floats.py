"""Fractions (a mixin of printer.Printer): float64 values, rep `f`, worked out as Python works out the same floats.

A fraction comes from data fixed at load (constdata.py) or a constant; + - * of numbers where either is a fraction,
unary minus, abs(), comparisons, a condition choosing between numbers, and sum() of a comprehension are printed
as the same IEEE operations in the same order as the Python engine makes them (Python's sum() adds from 0 left to
right), so the values are equal to the bit. A whole number beside a fraction is converted as Python converts it.
Division and other operators on fractions are not taken yet (Unsupported).
"""

from __future__ import annotations

import math

from ...lang import types as T

_FLOAT_OPS = {"+": "+", "-": "-", "*": "*"}


class FloatValues:
    """See the module's docstring."""

    def fractional(self, node) -> bool:
        """Whether `node` may give a fraction (its type says so, and it is not known to give a whole number)."""
        return T.FLOAT in T.kinds(node.type) and not self.whole_valued(node) and node.type.name != "any"

    def number(self, node, env) -> tuple:
        """(code, rep) of a single number, whole (`i`, a variable that may hold none checked as an operand is) or a
        fraction (`f`)."""
        code, rep = self.ex(node, env)
        if rep not in ("i", "f"):
            raise self.unsupported(node, "a list where a number is needed")
        return code, rep

    def float_const(self, node) -> tuple:
        if not math.isfinite(node.value):
            raise self.unsupported(node, "a fraction that is not finite")
        return f"np.float64({node.value!r})", "f"

    def float_binary(self, node, env) -> tuple:
        if node.op not in _FLOAT_OPS:
            raise self.unsupported(node, f"the operator {node.op} on fractions")
        (left, a), (right, b) = self._float_operand(node.left, node.right, node.op, env, True), \
            self._float_operand(node.right, node.left, node.op, env, False)
        return f"({left} {_FLOAT_OPS[node.op]} {right})", "f" if "f" in (a, b) else "i"

    def _float_operand(self, node, other, op, env, left, compare: bool = False) -> tuple:
        code, rep = self.number(node, env)
        if rep == "i":  # (a variable holding a number or none: checked to hold a number, as lists.operand does)
            return self.operand(node, other, op, env, left, compare), "i"
        return code, rep

    def float_unary(self, node, env) -> tuple:
        code, rep = self.number(node.operand, env)
        return f"({node.op}{code})", rep

    def float_compare(self, a, b, op: str, env) -> str:
        (left, _), (right, _) = self._float_operand(a, b, op, env, True, True), \
            self._float_operand(b, a, op, env, False, True)
        return f"{left} {op} {right}"

    def float_cond(self, node, test: str, then: tuple, other: tuple) -> tuple:
        """A condition choosing between a whole number and a fraction: a fraction either way (float64)."""
        (a, ra), (b, rb) = then, other
        if {ra, rb} - {"i", "f"}:
            raise self.unsupported(node, "a condition choosing between a list and a single value")
        return f"(np.float64({a}) if {test} else np.float64({b}))", "f"

    def float_abs(self, node, env) -> tuple:
        code, rep = self.number(node.args[0], env)
        return f"abs({code})", rep

    def float_sum(self, node, env) -> tuple | None:
        """sum() of a comprehension of fractions: from 0 left to right, as Python's sum(); None for whole numbers."""
        comp = node.args[0]
        if not self.fractional(comp.elt):
            return None
        free = self._free(comp, env)
        key = ("fsum", id(comp), tuple(env[name][1] for name in free))

        def source(fname):
            inner = {name: (f"a{i}", env[name][1]) for i, name in enumerate(free)}
            params = "".join(f", {inner[name][0]}" for name in free)
            loops, inner, pad = self._comprehension_loops(comp, inner, "    ")
            code, _ = self.number(comp.elt, inner)
            return "\n".join([f"@_jit\ndef {fname}(s, me{params}):", "    total = 0.0", *loops,
                              f"{pad}total += {code}", "    return total"])
        name = self.m.function(key, source)
        return f"{name}(s, me{''.join(', ' + env[n][0] for n in free)})", "f"

