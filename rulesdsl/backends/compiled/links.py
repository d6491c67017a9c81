"""The board's declared links printed for compiled code (a mixin of printer.Printer): walk(), as
model/builtins/links.py follows them, from tables of where each link leads from each cell, per key."""

from __future__ import annotations

from ...ir import nodes as N
from ...limits import MAX_ITEMS
from .unsupported import Unsupported


class LinkBuiltins:
    """walk(name, c, steps, key) over links that never run out (so that it never gives none)."""

    def b_walk(self, node, env):
        try:
            return self._walk_along(node, env)
        except Unsupported:  # links that run out, keyed by tuples, or named while playing (routes.py)
            return self.routed(node, env, "walk")

    def _walk_along(self, node, env):
        kwargs = dict(node.kwargs)
        args = list(node.args) + ([kwargs.pop("key")] if "key" in kwargs and len(node.args) == 3 else [])
        if kwargs or not 3 <= len(args) <= 4 or not isinstance(args[0], N.Const) or not isinstance(args[0].value, str):
            raise self.unsupported(node, "this call of walk() (a link named by a constant text)")
        name = args[0].value
        nexts, switches, keys = self._link_tables(node, name)
        at = node.at[0]
        key = self.scalar(args[3], env) if len(args) == 4 else "-1"
        if len(args) == 4 and args[3].type.name not in ("int", "seat"):
            raise self.unsupported(node, "walk() with a key that is not a number or a seat")
        missing = self.m.code(f"no link '{name}'" + (" for {0}" if len(args) == 4 else ""), at)
        many = self.m.code(f"the cells of walk() would hold {{0:,}} items; the language allows at "
                           f"most {MAX_ITEMS:,}", at)
        return (f"_rt.walk({nexts}, {switches}, {keys}, {key}, _cell({self.scalar(args[1], env)}), "
                f"{self.scalar(args[2], env)}, {missing!r}, {many!r})"), "a"

    def _link_tables(self, node, name: str) -> tuple:
        """(next cell per key row and cell, the key row a link switches to or -1, each key row's code) of link
        `name`; Unsupported for links that run out somewhere, or keyed by values other than numbers."""
        board = self.t.rules.board
        if name not in board.links:
            raise self.unsupported(node, f"walk() along '{name}', which is no link")
        tables, switches = board.links[name], board.link_switches[name]
        keys = list(tables)
        codes = []
        for k in keys:
            if k is None:
                codes.append(-1)
            elif isinstance(k, int) and not isinstance(k, bool):
                codes.append(int(k))
            else:
                raise self.unsupported(node, f"walk() along '{name}', keyed by values other than numbers")
        if len(set(codes)) != len(codes):
            raise self.unsupported(node, f"walk() along '{name}', keyed by none and by -1")
        if any(nxt is None for k in keys for nxt in tables[k]):
            raise self.unsupported(node, f"walk() along '{name}', which runs out at some cell (walk() may give none)")
        row = {k: i for i, k in enumerate(keys)}
        if any(to is not None and to not in row for k in keys for to in switches[k]):
            raise self.unsupported(node, f"walk() along '{name}', switching to a key it has no links for")
        nexts = [[int(c) for c in tables[k]] for k in keys]
        switched = [[-1 if to is None else row[to] for to in switches[k]] for k in keys]
        return (self.m.table(("links", name), nexts, 2), self.m.table(("switches", name), switched, 2),
                self.m.table(("link keys", name), codes))
