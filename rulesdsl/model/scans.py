"""Scans of the board for pieces by attribute, read from where the position keeps them (Position.located).

`[x for x in R if not empty(x) and at(x).a in V and ...]`, R a constant region in board order (`cells`, or
a region listed in that order) and V not naming x, lists the same cells, in the same order, as
`S.located(R, 'a', V)` followed by the remaining conditions: the comprehension is compiled so, and finding
each side's pieces in turn reads the board once rather than once a side. `at(x) != none` may stand for
`not empty(x)`, and `at(x).a == v` for `at(x).a in [v]`.
"""

from __future__ import annotations

import keyword

from ..ir import nodes as N
from ..lang.compiler import local
from ..lang.reach import python_names
from .values import Cell

_PYTHON_NAMES = python_names()


def located_scan(compiler, clause: N.Clause):
    """(iterable code, conditions left) for a comprehension clause (IR) of the shape above; else None."""
    if len(clause.targets) != 1:
        return None
    target = clause.targets[0]
    item = target.name
    conjuncts = [c for cond in clause.conds for c in _conjuncts(cond)]
    if len(conjuncts) < 2 or not _occupied_test(conjuncts[0], item):
        return None
    found = _attribute_test(conjuncts[1], item)
    if found is None:
        return None
    attribute, values, single = found
    known, region = compiler.const_value(clause.iterable)
    if not known or not isinstance(region, (list, tuple)) or not region \
            or not all(type(c) is Cell for c in region) or any(a >= b for a, b in zip(region, region[1:])):
        return None
    compiler.bind(target, local(item))
    compiler.check(conjuncts[1])  # its names are checked as in the loop
    values_code = compiler.expr(values)
    if single:
        values_code = f"({values_code}, )"
    compiler.read("S")
    return f"S.located({compiler.expr(clause.iterable)}, {attribute!r}, {values_code})", conjuncts[2:]


def _conjuncts(node) -> list:
    """The operands of a chain of `and`, left to right."""
    if isinstance(node, N.Logic) and node.op == "and":
        return _conjuncts(node.left) + _conjuncts(node.right)
    return [node]


def _is_at(node, item: str) -> bool:
    """Whether node is at(item)."""
    return isinstance(node, N.Call) and node.func == "at" and not node.kwargs and len(node.args) == 1 \
        and isinstance(node.args[0], N.Ref) and node.args[0].name == item


def _occupied_test(node, item: str) -> bool:
    """not empty(item), or at(item) != none."""
    if isinstance(node, N.Unary) and node.op == "not":
        call = node.operand
        return isinstance(call, N.Call) and call.func == "empty" and not call.kwargs and len(call.args) == 1 \
            and isinstance(call.args[0], N.Ref) and call.args[0].name == item
    return isinstance(node, N.Compare) and node.ops == ("!=",) and _is_at(node.operands[0], item) \
        and isinstance(node.operands[1], N.Const) and node.operands[1].value is None


def _attribute_test(node, item: str):
    """(attribute, values node, whether it is a single value) of at(item).a in V or at(item).a == v, V not
    naming item; else None."""
    if not (isinstance(node, N.Compare) and len(node.ops) == 1 and node.ops[0] in ("in", "==")):
        return None
    attr, values = node.operands
    if not (isinstance(attr, N.Attr) and _is_at(attr.obj, item)) or keyword.iskeyword(attr.name) \
            or attr.name in _PYTHON_NAMES or attr.name.startswith("_") \
            or any(isinstance(n, N.Ref) and n.name == item for n in N.walk(values)):
        return None
    return attr.name, values, node.ops[0] == "=="
