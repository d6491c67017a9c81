"""Inferred bounds: a load-time superset of a move param's domain that reads the position (for integer actions)."""

from __future__ import annotations

from ..lang import ast as A

_ALL = {"cells": "cells", "players": "players"}  # what a built-in's items always are -> the name of all of them


def inferred_bound(node, analysis, builtins: dict):
    """A syntax tree that reads nothing of the position and lists every value `node` can give, or None.

    Known: a built-in declared to list only cells (or seats) is bounded by all cells (all players); a filter
    `[x for x in xs if ...]` is bounded by `xs`, or by the bound of `xs`; a choice `a if c else b` by a bound of
    each side, when both are the same name of everything."""
    reads = analysis.of(node)
    if reads is not None and not reads.parts and not reads.flow:
        return node
    if isinstance(node, A.Call) and node.func not in analysis.bodies:
        b = builtins.get(node.func)
        everything = _ALL.get(b.yields) if b is not None else None
        return A.Name(everything, start=node.start, end=node.end) if everything else None
    if isinstance(node, A.Comprehension) and not node.generator and len(node.fors) == 1:
        clause = node.fors[0]
        if len(clause.targets) == 1 and isinstance(node.elt, A.Name) and _named(clause.targets[0], node.elt.id):
            return inferred_bound(clause.iterable, analysis, builtins)
    if isinstance(node, A.IfElse):
        sides = [inferred_bound(n, analysis, builtins) for n in (node.then, node.other)]
        if all(isinstance(s, A.Name) and s.id in _ALL.values() for s in sides) and sides[0].id == sides[1].id:
            return sides[0]
    return None


def _named(target, name: str) -> bool:
    return (isinstance(target, A.Name) and target.id == name) or target == name
