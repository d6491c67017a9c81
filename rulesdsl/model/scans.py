"""Scans of the board for pieces by attribute, read from where the position keeps them (Position.located).

`[x for x in R if not empty(x) and at(x).a in V and ...]`, R a constant region in board order (`cells`, or
a region listed in that order) and V not naming x, lists the same cells, in the same order, as
`S.located(R, 'a', V)` followed by the remaining conditions: the comprehension is compiled so, and finding
each side's pieces in turn reads the board once rather than once a side. `at(x) != none` may stand for
`not empty(x)`, and `at(x).a == v` for `at(x).a in [v]`.
"""

from __future__ import annotations

import keyword

from ..lang import ast as A
from ..lang.compiler import local
from ..lang.reach import python_names
from .values import Cell

_PYTHON_NAMES = python_names()


def located_scan(compiler, clause, scope):
    """(iterable code, conditions left) for a comprehension clause of the shape above; else None."""
    if len(clause.targets) != 1:
        return None
    item = clause.targets[0]
    conjuncts = [c for cond in clause.conds for c in _conjuncts(cond)]
    if len(conjuncts) < 2 or not _occupied_test(conjuncts[0], item):
        return None
    found = _attribute_test(conjuncts[1], item)
    if found is None:
        return None
    attribute, values, single = found
    known, region = compiler.const_value(clause.iterable, scope)
    if not known or not isinstance(region, (list, tuple)) or not region \
            or not all(type(c) is Cell for c in region) or any(a >= b for a, b in zip(region, region[1:])):
        return None
    compiler.check(conjuncts[1], scope.child(**{item: local(item)}))  # its names are checked as in the loop
    values_code = compiler.expr(values, scope)
    if single:
        values_code = f"({values_code}, )"
    compiler.read("S")
    return f"S.located({compiler.expr(clause.iterable, scope)}, {attribute!r}, {values_code})", conjuncts[2:]


def _conjuncts(node) -> list:
    """The operands of a chain of `and`, left to right."""
    if isinstance(node, A.BoolOp) and node.op == "and":
        return _conjuncts(node.left) + _conjuncts(node.right)
    return [node]


def _is_at(node, item: str) -> bool:
    """Whether node is at(item)."""
    return isinstance(node, A.Call) and node.func == "at" and not node.kwargs and len(node.args) == 1 \
        and isinstance(node.args[0], A.Name) and node.args[0].id == item


def _occupied_test(node, item: str) -> bool:
    """not empty(item), or at(item) != none."""
    if isinstance(node, A.UnaryOp) and node.op == "not":
        call = node.operand
        return isinstance(call, A.Call) and call.func == "empty" and not call.kwargs and len(call.args) == 1 \
            and isinstance(call.args[0], A.Name) and call.args[0].id == item
    return isinstance(node, A.Compare) and node.ops == ["!="] and _is_at(node.operands[0], item) \
        and isinstance(node.operands[1], A.Const) and node.operands[1].value is None


def _attribute_test(node, item: str):
    """(attribute, values node, whether it is a single value) of at(item).a in V or at(item).a == v, V not
    naming item; else None."""
    if not (isinstance(node, A.Compare) and len(node.ops) == 1 and node.ops[0] in ("in", "==")):
        return None
    attr, values = node.operands
    if not (isinstance(attr, A.Attr) and _is_at(attr.obj, item)) or keyword.iskeyword(attr.name) \
            or attr.name in _PYTHON_NAMES or attr.name.startswith("_") \
            or any(isinstance(n, A.Name) and n.id == item for n in A.walk(values)):
        return None
    return attr.name, values, node.ops[0] == "=="
