"""What an expression reads of a position, worked out from its syntax when the rules are compiled.

The answer is the parts of the position it reads (the cells, each zone and each variable, numbered as in
Position.changes) and whether it reads whose turn it is, the turn number or who has left the game; or None,
"anything", when it calls something whose reads are not declared. It may name more than the expression reads
on a given position (both branches of a condition count), never less: that is what makes it safe to keep a
value while the counts of the parts it reads stay where they were.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..lang import ast as A
from .values import LAST_MOVE_CODE, MOVER_CODE

# The names of the flow that rule code reads directly, by the code that reads them, and the code of their keys
# (`left` is a tuple, replaced, never changed, when a player leaves).
_FLOW = {"S.player": "player", "S.turn": "turn", LAST_MOVE_CODE: "last", MOVER_CODE: "last",
         "F_active_players(S)": "left"}
_FLOW_KEYS = {"player": "S.player", "turn": "S.turn", "last": "S.last", "left": "S.left"}


@dataclass(frozen=True)
class Reads:
    """The parts of a position an expression reads, and which names of the flow (player, turn, left)."""

    parts: frozenset = frozenset()
    flow: frozenset = frozenset()

    def __or__(self, other: "Reads | None") -> "Reads | None":
        if other is None:
            return None
        return Reads(self.parts | other.parts, self.flow | other.flow)


NOTHING = Reads()
# What a built-in taking the state declares it reads (Builtin.reads), besides its arguments.
_DECLARED = {"cells": Reads(frozenset([0])), "left": Reads(flow=frozenset(["left"]))}


class ReadAnalysis:
    """Reads of expressions in one compiled game: names resolve through `scope`, built-ins through their
    declarations, the file's own functions through their bodies (`bodies`: name -> syntax tree, or None for
    one that cannot be read, and so may read anything)."""

    def __init__(self, scope, builtins: dict, bodies: dict):
        self.scope, self.builtins, self.bodies = scope, builtins, bodies
        self._functions: dict = {}  # name -> Reads or None, worked out when first called

    def of(self, node) -> Reads | None:
        """What `node` reads (None: anything)."""
        found = NOTHING
        for inner in A.walk(node):
            if isinstance(inner, A.Name):
                found = found | self._name(inner.id)
            elif isinstance(inner, A.Call):
                found = found | self._call(inner.func)
            if found is None:
                return None
        return found

    def _name(self, name: str) -> Reads:
        binding = self.scope.lookup(name)
        if binding is None:  # a name the expression binds itself (a comprehension's, a function's parameter)
            return NOTHING
        if binding.part is not None:
            return Reads(frozenset([binding.part]))
        if binding.code in _FLOW:
            return Reads(flow=frozenset([_FLOW[binding.code]]))
        return NOTHING

    def _call(self, name: str) -> Reads | None:
        if name in self.bodies:
            if name not in self._functions:
                self._functions[name] = None  # while it is worked out: a function that calls itself reads anything
                body = self.bodies[name]
                self._functions[name] = None if body is None else self.of(body)
            return self._functions[name]
        b = self.builtins.get(name)
        if b is None or not b.state:  # a pure built-in reads only its arguments
            return NOTHING
        return _DECLARED.get(b.reads)


def key_code(reads: Reads) -> str:
    """Python source of a value that stays the same while nothing `reads` names is written: the counts of the
    writes to its parts, and the player, turn and last move where it reads them."""
    items = [f"S.changes[{p}]" for p in sorted(reads.parts)]
    items += [code for name, code in _FLOW_KEYS.items() if name in reads.flow]
    return "(" + "".join(f"{item}, " for item in items) + ")"
