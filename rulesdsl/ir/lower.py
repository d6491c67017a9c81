"""Lowering: a checked expression or statement (lang/ast.py) to the IR, its names resolved and its nodes typed."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from ..lang import ast as A
from ..lang import types as T
from . import nodes as N


@dataclass(frozen=True)
class Name:
    """What a name means where an expression is written: the kind of thing it names and its declaration."""

    kind: str
    decl: tuple | None = None
    decl_at: tuple | None = None
    const: bool = False
    type: T.Type = T.ANY


@dataclass
class Lowerer:
    """Lowers the AST of one rule-file string (at `path`, its spans shifted by `offset`) with the names around it
    (`names`: name -> Name) and the types the type pass gave its nodes (`types`: id(node) -> Type).
    `fallback(name)` says what a name not in `names` means (the engine's own names)."""

    path: tuple
    names: dict
    types: dict
    fallback: object
    offset: int = 0
    text: str = ""  # the string itself (where a comprehension's names are written)
    type_of_name: object = lambda name: T.ANY  # (name) -> the type of what it names where the string is
    frames: list = field(default_factory=list)  # the names comprehension clauses bind, innermost last

    def at(self, node: A.Node) -> tuple:
        return (self.path, node.start + self.offset, node.end + self.offset)

    def type_of(self, node: A.Node) -> T.Type:
        return self.types.get(id(node), T.ANY)

    def lookup(self, name: str) -> Name:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        return self.names.get(name) or self.fallback(name)

    # -- expressions ---------------------------------------------------------------------------------
    def expr(self, node: A.Node) -> N.Node:
        method = getattr(self, "_" + type(node).__name__)
        return method(node)

    def _Const(self, node):
        return N.Const(node.value, type=self.type_of(node), at=self.at(node))

    def _Name(self, node):
        meant = self.lookup(node.id)
        found = self.types.get(id(node))
        if found is None:  # a name assigned, which the type pass does not read: the type of what it names
            found = meant.type if meant.type != T.ANY else self.type_of_name(node.id)
        return N.Ref(node.id, meant.kind, meant.decl, meant.decl_at, meant.const,
                     type=found if found != T.ANY else meant.type, at=self.at(node))

    def _ListExpr(self, node):
        return N.Display("list", tuple(map(self.expr, node.items)), type=self.type_of(node), at=self.at(node))

    def _TupleExpr(self, node):
        return N.Display("tuple", tuple(map(self.expr, node.items)), type=self.type_of(node), at=self.at(node))

    def _DictExpr(self, node):
        return N.Display("table", tuple((self.expr(k), self.expr(v)) for k, v in node.pairs),
                         type=self.type_of(node), at=self.at(node))

    def _BinOp(self, node):
        return self._run(node, A.BinOp, N.Binary)

    def _UnaryOp(self, node):
        return N.Unary(node.op, self.expr(node.operand), type=self.type_of(node), at=self.at(node))

    def _BoolOp(self, node):
        return self._run(node, A.BoolOp, N.Logic)

    def _run(self, node, kind, make):
        """A run of operators (`1 + 1 + ...`, `a or b or ...`) is a deep left-leaning tree, of any length the
        compiler takes: lowered as a loop, not by recursion."""
        spine = []
        while isinstance(node, kind):
            spine.append(node)
            node = node.left
        lowered = self.expr(node)
        for item in reversed(spine):
            lowered = make(item.op, lowered, self.expr(item.right), type=self.type_of(item), at=self.at(item))
        return lowered

    def _Compare(self, node):
        return N.Compare(tuple(node.ops), tuple(map(self.expr, node.operands)), type=self.type_of(node),
                         at=self.at(node))

    def _IfElse(self, node):
        return N.Cond(self.expr(node.cond), self.expr(node.then), self.expr(node.other), type=self.type_of(node),
                      at=self.at(node))

    def _Range(self, node):
        return N.Range(self.expr(node.low), self.expr(node.high), type=self.type_of(node), at=self.at(node))

    def _Attr(self, node):
        return N.Attr(self.expr(node.obj), node.name, type=self.type_of(node), at=self.at(node))

    def _Index(self, node):
        return N.Index(self.expr(node.obj), self.expr(node.index), type=self.type_of(node), at=self.at(node))

    def _Slice(self, node):
        low = None if node.low is None else self.expr(node.low)
        high = None if node.high is None else self.expr(node.high)
        return N.Slice(self.expr(node.obj), low, high, type=self.type_of(node), at=self.at(node))

    def _Call(self, node):
        meant = self.names.get(node.func)
        target, decl = ("builtin", None) if meant is None or meant.kind not in ("function", "procedure") \
            else (meant.kind, meant.decl)
        args = tuple(map(self.expr, node.args))
        kwargs = tuple((k, self.expr(v)) for k, v in node.kwargs)
        return N.Call(node.func, args, kwargs, target, decl, type=self.type_of(node), at=self.at(node))

    def _Comprehension(self, node):
        self.frames.append({})
        try:
            clauses = tuple(self.clause(c, self.frames[-1]) for c in node.fors)
            elt = self.expr(node.elt)
        finally:
            self.frames.pop()
        typed = self.type_of(node)
        if typed == T.ANY and node.generator:  # (typed through its items, as the argument of an aggregate)
            typed = T.list_(T.widen(elt.type))
        return N.Comp(elt, clauses, node.generator, type=typed, at=self.at(node))

    def clause(self, clause: A.For, frame: dict) -> N.Clause:
        """One `for` clause: its iterable read outside its names, its conditions inside; the names go in `frame`."""
        iterable = self.expr(clause.iterable)
        target_types = self.types.get(id(clause)) or [T.ANY] * len(clause.targets)
        spans = self._target_spans(clause)
        targets = []
        for name, typed, (start, end) in zip(clause.targets, target_types, spans):
            where = (self.path, start + self.offset, end + self.offset)
            frame[name] = Name("loop", None, where, type=typed)
            targets.append(N.Ref(name, "loop", None, where, type=typed, at=where))
        conds = tuple(map(self.expr, clause.conds))
        return N.Clause(tuple(targets), iterable, conds, at=self.at(clause))

    def _target_spans(self, clause: A.For) -> list:
        """Where each name of a clause is written (between its `for` and its iterable)."""
        spans, start = [], clause.start
        for name in clause.targets:
            found = re.search(rf"\b{re.escape(name)}\b", self.text[start:clause.iterable.start])
            if found is None:
                spans.append((clause.start, clause.start))
            else:
                spans.append((start + found.start(), start + found.end()))
                start += found.end()
        return spans

    # -- statements -----------------------------------------------------------------------------------
    def stmt(self, node: A.Node) -> N.Node:
        if isinstance(node, A.Assign):
            value = self.expr(node.value)
            root = node.target
            while isinstance(root, (A.Index, A.Attr)):
                root = root.obj
            if isinstance(root, A.Name) and root.id not in self.names and not any(root.id in f for f in self.frames) \
                    and self.fallback(root.id).kind in ("unknown", "local"):
                # a new name the effects assign (which the compiler may have declared already): theirs from here on,
                # of the type of the value it is first given
                self.names[root.id] = Name("temp", None, self.at(root), type=value.type if root is node.target
                                           else T.ANY)
            return N.Assign(self.expr(node.target), node.op, value, at=self.at(node))
        call = self._Call(node.call)
        if call.type == T.ANY:  # called for what it does: a value it may give is dropped
            call = replace(call, type=T.NONE_T)
        return N.Do(call, at=self.at(node))
