"""Lowering: the AST of one expression or statement (lang/ast.py) to the IR, each name resolved, where it is compiled.

A name is resolved twice over: to what the rule file says it is (its kind and declaration, see naming.py), and to
the compiler's binding for it in the scope where it is written (lang.compiler.Binding), which a backend prints.
Types are settled later, by the type pass over the IR (see infer.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from ..lang import ast as A
from ..lang.compiler import Binding, CompileProblem, Scope, local, unknown
from ..lang.types import NOTHING
from ..limits import MAX_EXPR_DEPTH, MAX_LOOP_DEPTH
from . import nodes as N
from .naming import Name, meaning

# How deep lowering goes before it refuses an expression as nested too deeply: deep enough for anything the Python
# backend prints (it counts a run of operators as one level, as lowering does, but not a comprehension handed to a
# call or a condition it rewrites: at most two levels for each of the 50 brackets an expression may nest), so that
# what it refuses is refused here too, never by Python's own recursion limit.
_DEEPEST = 3 * MAX_EXPR_DEPTH


@dataclass
class Lowerer:
    """Lowers the AST of one rule-file string (at `path`, its spans shifted by `offset`, `text` the string from
    there) written where `scope` holds the compiler's names and `names` (name -> naming.Name) the file's; `temps`:
    the names the effects of its rule assign (see naming.Naming.around), which a statement may add to; `given`:
    name -> the key that introduces a name the engine gives the rule (see naming.Naming.given)."""

    path: tuple
    names: dict
    scope: Scope
    offset: int = 0
    text: str = ""
    temps: dict = field(default_factory=dict)
    given: Callable = lambda name: None
    frames: list = field(default_factory=list)  # the names comprehension clauses bind, innermost last
    new: dict = field(default_factory=dict)  # the names a statement assigns first: name -> Binding
    depth: int = 0  # nesting of the expression being lowered
    loops: int = 0  # `for` clauses of the comprehensions around the node being lowered

    def at(self, node: A.Node) -> tuple:
        return (self.path, node.start + self.offset, node.end + self.offset)

    def lookup(self, name: str) -> Name:
        for frame in reversed(self.frames):
            if name in frame:
                return frame[name]
        binding = self.scope.lookup(name)
        return self.names.get(name) or meaning(binding, self.given(name) if binding is not None else None)

    def ref(self, node: A.Name, binding: Binding | None = None) -> N.Ref:
        meant = self.lookup(node.id)
        binding = binding or self.scope.lookup(node.id) or unknown(self.scope)
        return N.Ref(node.id, meant.kind, meant.decl, meant.decl_at, meant.const, binding=binding, at=self.at(node))

    # -- expressions ---------------------------------------------------------------------------------
    def expr(self, node: A.Node) -> N.Node:
        self.depth += 1
        try:
            if self.depth > _DEEPEST:
                _, start, end = self.at(node)
                raise CompileProblem(f"this expression is nested too deeply (more than {MAX_EXPR_DEPTH} levels)",
                                     start, max(start + 1, end), "split it into functions or lets",
                                     code="limit_exceeded", limit="MAX_EXPR_DEPTH")
            if isinstance(node, (A.BinOp, A.BoolOp)):
                return self._run(node)
            return getattr(self, "_" + type(node).__name__)(node)
        finally:
            self.depth -= 1

    def _run(self, node) -> N.Node:
        """A run of binary operators (a + b - c + ...), lowered down its left side without recursion: a long sum
        is a tree as deep as it is long."""
        run = []
        while isinstance(node, (A.BinOp, A.BoolOp)):
            run.append(node)
            node = node.left
        found = self.expr(node)
        for op in reversed(run):
            kind = N.Binary if isinstance(op, A.BinOp) else N.Logic
            found = kind(op.op, found, self.expr(op.right), at=self.at(op))
        return found

    def _Const(self, node):
        return N.Const(node.value, at=self.at(node))

    def _Name(self, node):
        return self.ref(node)

    def _ListExpr(self, node):
        return N.Display("list", tuple(map(self.expr, node.items)), at=self.at(node))

    def _TupleExpr(self, node):
        return N.Display("tuple", tuple(map(self.expr, node.items)), at=self.at(node))

    def _DictExpr(self, node):
        return N.Display("table", tuple((self.expr(k), self.expr(v)) for k, v in node.pairs), at=self.at(node))

    def _UnaryOp(self, node):
        return N.Unary(node.op, self.expr(node.operand), at=self.at(node))

    def _Compare(self, node):
        return N.Compare(tuple(node.ops), tuple(map(self.expr, node.operands)), at=self.at(node))

    def _IfElse(self, node):
        return N.Cond(self.expr(node.cond), self.expr(node.then), self.expr(node.other), at=self.at(node))

    def _Range(self, node):
        return N.Range(self.expr(node.low), self.expr(node.high), at=self.at(node))

    def _Attr(self, node):
        return N.Attr(self.expr(node.obj), node.name, at=self.at(node))

    def _Index(self, node):
        return N.Index(self.expr(node.obj), self.expr(node.index), at=self.at(node))

    def _Slice(self, node):
        low = None if node.low is None else self.expr(node.low)
        high = None if node.high is None else self.expr(node.high)
        return N.Slice(self.expr(node.obj), low, high, at=self.at(node))

    def _Call(self, node):
        meant = self.names.get(node.func)
        target, decl = ("builtin", None) if meant is None or meant.kind not in ("function", "procedure") \
            else (meant.kind, meant.decl)
        args = tuple(map(self.expr, node.args))
        kwargs = tuple((k, self.expr(v)) for k, v in node.kwargs)
        spans = {k: (a + self.offset, b + self.offset) for k, (a, b) in getattr(node, "keyword_spans", {}).items()}
        return N.Call(node.func, args, kwargs, target, decl, keyword_at=spans, at=self.at(node))

    def _Comprehension(self, node):
        outer, loops = self.scope, self.loops
        self.frames.append({})
        try:
            clauses = tuple(self._counted(c) for c in node.fors)
            elt = self.expr(node.elt)
        finally:
            self.frames.pop()
            self.scope, self.loops = outer, loops
        return N.Comp(elt, clauses, node.generator, at=self.at(node))

    def _counted(self, clause: A.For) -> N.Clause:
        """A comprehension's clause, counted among the loops around it: each is a loop of the code printed for
        the expression, and Python nests at most 20 blocks in a function."""
        self.loops += 1
        if self.loops > MAX_LOOP_DEPTH:
            _, start, end = self.at(clause)
            raise CompileProblem(f"loops are nested more than {MAX_LOOP_DEPTH} deep in this expression (each `for` "
                                 "of a comprehension, and of one inside it, is a loop)", start, max(start + 1, end),
                                 "work out the inner part in a function of its own, or a let",
                                 code="limit_exceeded", limit="MAX_LOOP_DEPTH")
        return self.clause(clause, self.frames[-1])

    def clause(self, clause: A.For, frame: dict, bindings: dict | None = None) -> N.Clause:
        """One `for` clause: its iterable read outside its names, its conditions inside; the names go in `frame`
        and, from here on, in the scope. `bindings`: name -> the compiler's binding of each name, when the caller
        has made them (a `for:` effect's); else each is a binding of its own, which a backend names as it prints
        the clause (see Binding.shadows)."""
        iterable = self.expr(clause.iterable)
        made, targets = {}, []
        for name, (start, end) in zip(clause.targets, self._target_spans(clause)):
            if bindings is not None:
                made[name] = bindings[name]
            else:
                made[name] = local(name)
                made[name].shadows = self.scope.lookup(name) is not None
            where = (self.path, start + self.offset, end + self.offset)
            frame[name] = Name("loop", None, where)
            targets.append(N.Ref(name, "loop", None, where, binding=made[name], at=where))
        self.scope = self.scope.child(**made)
        own = not self.frames or self.frames[-1] is not frame  # (a `for:` effect's head: no comprehension around)
        if own:
            self.frames.append(frame)
        try:
            conds = tuple(map(self.expr, clause.conds))
        finally:
            if own:
                self.frames.pop()
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
        """A statement; a name it assigns that nothing declares becomes one of the effects' own (in `new`, for the
        caller to add to the scope once the statement compiles)."""
        if isinstance(node, A.Assign):
            value = self.expr(node.value)
            root = node.target
            while isinstance(root, (A.Index, A.Attr)):
                root = root.obj
            found = self.scope.lookup(root.id) if isinstance(root, A.Name) else None
            hidden = found is not None and found.hideable and root is node.target and node.op == "="
            if isinstance(root, A.Name) and root.id not in self.names and (found is None or hidden):
                self.names[root.id] = self.temps[root.id] = Name("temp", None, self.at(root))  # theirs from here on
                if root is node.target and node.op == "=":
                    self.new[root.id] = temporary(root.id)
            target = self.ref(node.target, self.new.get(node.target.id)) if isinstance(node.target, A.Name) \
                else self.expr(node.target)
            return N.Assign(target, node.op, value, at=self.at(node))
        return N.Do(self._Call(node.call), at=self.at(node))


def temporary(name: str) -> Binding:
    """The binding of a name the effects make by assigning it: typed by every value they give it."""
    binding = local(name)
    binding.temp = True
    binding.type = NOTHING
    return binding
