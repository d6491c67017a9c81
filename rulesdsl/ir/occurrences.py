"""Every name a game's rules write, where it is written, what it names and where that is declared: the IR's
resolution of names as plain data (what an editor's hover and go-to-definition read)."""

from __future__ import annotations

from dataclasses import dataclass

from ..lang import types as T
from . import nodes as N
from .game import GameIR


@dataclass(frozen=True)
class Occurrence:
    """A name written at (path, start, end) of a rule-file string: `kind` what it names (a Ref's kind, or
    function, procedure, builtin for a call), `decl` the key that declares it, `decl_at` (path, start, end)
    where a name bound inside a string is written, `type` its static type in words."""

    path: tuple
    start: int
    end: int
    name: str
    kind: str
    decl: tuple | None
    decl_at: tuple | None
    type: str


def occurrences(game: GameIR) -> list[Occurrence]:
    """Every name read, called or bound in the game's rules, in no particular order."""
    found = []
    for path, nodes in game.exprs.items():
        for top in nodes:
            for node in N.walk(top):
                where, start, end = node.at
                if where != path:  # (a value the compiler worked out, filed where none is written)
                    continue
                if isinstance(node, N.Ref):
                    found.append(Occurrence(path, start, end, node.name, node.kind, node.decl, node.decl_at,
                                            T.describe(node.type)))
                elif isinstance(node, N.Call):  # the name is the start of the call
                    found.append(Occurrence(path, start, start + len(node.func), node.func, node.target, node.decl,
                                            None, T.describe(node.type)))
    return found
