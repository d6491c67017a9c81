"""Small AST dataclasses for expressions and statements, each carrying its character span in the source string."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Node:
    """Base of every AST node: `start` and `end` are character offsets in the source string."""

    start: int = field(default=0, kw_only=True, compare=False)
    end: int = field(default=0, kw_only=True, compare=False)


@dataclass
class Const(Node):
    value: object


@dataclass
class Name(Node):
    id: str


@dataclass
class ListExpr(Node):
    items: list


@dataclass
class TupleExpr(Node):
    items: list


@dataclass
class DictExpr(Node):
    pairs: list  # [(key_node, value_node)]


@dataclass
class BinOp(Node):
    op: str  # + - * / // % **
    left: Node
    right: Node


@dataclass
class UnaryOp(Node):
    op: str  # - + not
    operand: Node


@dataclass
class BoolOp(Node):
    op: str  # and / or
    left: Node
    right: Node


@dataclass
class Compare(Node):
    ops: list  # == != < <= > >= in notin
    operands: list


@dataclass
class IfElse(Node):
    cond: Node
    then: Node
    other: Node


@dataclass
class Range(Node):
    low: Node
    high: Node  # inclusive


@dataclass
class Attr(Node):
    obj: Node
    name: str


@dataclass
class Index(Node):
    obj: Node
    index: Node


@dataclass
class Slice(Node):
    obj: Node
    low: Node | None
    high: Node | None


@dataclass
class Call(Node):
    func: str
    args: list
    kwargs: list  # [(name, node)]


@dataclass
class For(Node):
    """One `for targets in iterable if cond...` clause of a comprehension."""

    targets: list
    iterable: Node
    conds: list


@dataclass
class Comprehension(Node):
    """`[elt for ...]`, or (`generator`) the bare `elt for ...` handed to an aggregate built-in: `f(elt for ...)`."""

    elt: Node
    fors: list
    generator: bool = False


@dataclass
class Assign(Node):
    target: Node
    op: str  # = += -= *= //=
    value: Node


@dataclass
class CallStmt(Node):
    call: Call


def free_names(node) -> set:
    """The names `node` reads from around it: every name but a comprehension's own variables where they are bound
    (its first iterable is read outside them, each later part of it inside those before)."""
    found, todo = set(), [(node, frozenset())]
    while todo:
        node, bound = todo.pop()
        if isinstance(node, Name):
            if node.id not in bound:
                found.add(node.id)
        elif isinstance(node, Comprehension):
            inner = bound
            for clause in node.fors:
                todo.append((clause.iterable, inner))
                inner = inner | set(clause.targets)
                todo.extend((cond, inner) for cond in clause.conds)
            todo.append((node.elt, inner))
        else:
            todo.extend((below, bound) for below in _children(node))
    return found


def _children(node) -> list:
    below = []
    for value in vars(node).values():
        if isinstance(value, Node):
            below.append(value)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, Node):
                    below.append(item)
                elif isinstance(item, tuple):
                    below.extend(sub for sub in item if isinstance(sub, Node))
    return below


def walk(node):
    """Yield `node` and all nodes below it (without recursion: a long sum is a deep tree)."""
    todo = [node]
    while todo:
        node = todo.pop()
        yield node
        todo.extend(reversed(_children(node)))
