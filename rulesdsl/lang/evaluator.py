"""A tiny tree-walking reference evaluator, kept beside the compiler so tests can check that they agree."""

from __future__ import annotations

import operator

from . import ast as A
from .checked import no_real_power


def _pow(a, b):
    """a ** b, refused as compiled code refuses it when Python's value is a complex number."""
    value = a ** b
    if isinstance(value, complex):
        raise no_real_power(a, b)
    return value


_BIN = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
        "//": operator.floordiv, "%": operator.mod, "**": _pow}
_CMP = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
        ">=": operator.ge, "in": lambda a, b: a in b, "notin": lambda a, b: a not in b}


def evaluate(node: A.Node, env: dict, builtins: dict, state=None):
    """Value of an expression AST; names come from `env`, functions from `builtins`."""
    ev = lambda n, e=env: evaluate(n, e, builtins, state)  # noqa: E731
    match node:
        case A.Const(value=v):
            return v
        case A.Name(id=name):
            return env[name]
        case A.ListExpr(items=items):
            return [ev(i) for i in items]
        case A.TupleExpr(items=items):
            return tuple(ev(i) for i in items)
        case A.DictExpr(pairs=pairs):
            return {ev(k): ev(v) for k, v in pairs}
        case A.BinOp(op=op, left=left, right=right):
            return _BIN[op](ev(left), ev(right))
        case A.UnaryOp(op="not", operand=x):
            return not ev(x)
        case A.UnaryOp(op="-", operand=x):
            return -ev(x)
        case A.UnaryOp(op="+", operand=x):
            return +ev(x)
        case A.BoolOp(op="and", left=left, right=right):
            return ev(left) and ev(right)
        case A.BoolOp(op="or", left=left, right=right):
            return ev(left) or ev(right)
        case A.Compare(ops=ops, operands=operands):
            left = ev(operands[0])
            for op, operand in zip(ops, operands[1:]):
                right = ev(operand)
                if not _CMP[op](left, right):
                    return False
                left = right
            return True
        case A.IfElse(cond=cond, then=then, other=other):
            return ev(then) if ev(cond) else ev(other)
        case A.Range(low=low, high=high):
            return range(ev(low), ev(high) + 1)
        case A.Attr(obj=obj, name=name):
            value = ev(obj)
            return value[name] if isinstance(value, dict) else getattr(value, name)
        case A.Index(obj=obj, index=index):
            return ev(obj)[ev(index)]
        case A.Slice(obj=obj, low=low, high=high):
            return ev(obj)[ev(low) if low else None: ev(high) if high else None]
        case A.Comprehension(generator=False):
            return list(_generate(node, env, builtins, state))
        case A.Call(func=func, args=args, kwargs=kwargs):
            b = builtins[func]
            if b.loop == "take_while":  # its condition ends the list rather than skipping an item
                return _take_while(args[0], env, builtins, state)
            values = [_generate(a, env, builtins, state) if isinstance(a, A.Comprehension) and a.generator
                      else ev(a) for a in args]
            kw = {k: ev(v) for k, v in kwargs}
            return b.fn(state, *values, **kw) if b.state else b.fn(*values, **kw)
    raise TypeError(f"cannot evaluate {type(node).__name__}")  # pragma: no cover


def _generate(comp: A.Comprehension, env, builtins, state):
    def clauses(i, scope):
        if i == len(comp.fors):
            yield evaluate(comp.elt, scope, builtins, state)
            return
        clause = comp.fors[i]
        for item in evaluate(clause.iterable, scope, builtins, state):
            inner = _bound(scope, clause.targets, item)
            if all(evaluate(c, inner, builtins, state) for c in clause.conds):
                yield from clauses(i + 1, inner)
    return clauses(0, env)


def _bound(scope: dict, targets: list, item) -> dict:
    """`scope` with a comprehension clause's targets bound to `item` (unpacked when there are several)."""
    inner = dict(scope)
    if len(targets) == 1:
        inner[targets[0]] = item
    else:
        inner.update(zip(targets, item))
    return inner


def _take_while(comp: A.Comprehension, env, builtins, state) -> list:
    (clause,) = comp.fors
    taken = []
    for item in evaluate(clause.iterable, env, builtins, state):
        inner = _bound(env, clause.targets, item)
        if not all(evaluate(c, inner, builtins, state) for c in clause.conds):
            break
        taken.append(evaluate(comp.elt, inner, builtins, state))
    return taken
