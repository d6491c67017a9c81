"""Lists read where they lie rather than made (a mixin of printer.Printer): a loop over low..high counts through
the numbers, a loop over [x, y] runs over the items worked out, a loop over a + b walks a then b, and `x in xs` of a
zone, a list variable or a table's values reads the state vector; each checks what the list it stands for would
have checked (its size), so play and errors are those of the list made."""

from __future__ import annotations

from ...ir import nodes as N
from .mixed import is_mixed

# list-making helpers whose `x in` form reads the same arguments in place (runtime.py), by the helper's name
_HELD = {"_rt.zone_items(": "_rt.zone_has(", "_rt.optionals(": "_rt.optionals_has(",
         "_rt.table_values(": "_rt.table_values_has("}


def _one_call(code: str, prefix: str) -> bool:
    """Whether `code` is exactly one call `prefix...)` (its parenthesis closed at the last character only)."""
    if not code.startswith(prefix) or not code.endswith(")"):
        return False
    depth = 0
    for i, ch in enumerate(code[len(prefix) - 1:], len(prefix) - 1):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return i == len(code) - 1
    return False


class Walks:
    """Loop heads and membership tests that make no list, for printer.Printer."""

    def held(self, seq: str, item: str) -> str:
        """The code of `item in seq` (seq a list's code)."""
        for made, read in _HELD.items():
            if _one_call(seq, made):
                return f"{read}{seq[len(made):-1]}, {item})"
        return f"_contains({seq}, {item})"

    def walk_head(self, node, env, name: str, tag: str, pad: str, pure: bool) -> list | None:
        """The lines of a loop binding `name` to each item of the list `node` without making it, or None where
        the list is made: low..high as numbers counted, a list written out as its items; with `pure` (the loop's
        body writes nothing), a + b as a then b (the two lists worked out first, as the sum would be). Not a list
        whose items may be cells or texts: those are written as the list is made (mixed.py)."""
        if node.type.name in ("list", "seq", "tuple") and node.type.items and \
                any(is_mixed(item) for item in node.type.items):
            return None
        if isinstance(node, N.Range):
            low, high = self.scalar(node.low, env), self.scalar(node.high, env)
            return [f"{pad}lo{tag} = {low}", f"{pad}for {name} in range(lo{tag}, _rt.span_stop(lo{tag}, {high})):"]
        if isinstance(node, N.Display) and node.kind == "list" and node.items:  # the items worked out first
            items = ", ".join(f"np.int64({self.scalar(item, env)})" for item in node.items)
            return [f"{pad}for {name} in ({items},):"]
        if pure and isinstance(node, N.Binary) and node.op == "+" and node.type.name in ("list", "seq", "tuple"):
            (left, a), (right, b) = self.ex(node.left, env), self.ex(node.right, env)
            if a == b == "a":
                fa, fb, i = f"fa{tag}", f"fb{tag}", f"i{tag}"
                return [f"{pad}{fa} = {left}", f"{pad}{fb} = {right}",
                        f"{pad}for {i} in range(_rt.joined_size({fa}, {fb})):",
                        f"{pad}    {name} = {fa}[{i}] if {i} < {fa}.shape[0] else {fb}[{i} - {fa}.shape[0]]"]
        return None
