"""A last check of generated Python before it runs: only the names and constructs the compiler emits.

Rule text reaches generated code only as quoted literals and as identifiers the compiler has checked; this
check makes that a property of the code itself, so that no mistake in a compiler part can let a rule file's
text become Python (an import, a call of a Python built-in, an attribute such as __globals__).
"""

from __future__ import annotations

import ast
import builtins
import re

# names generated code may use: the state, the player, locals, guards, built-ins, constants, user functions
_NAME = re.compile(r"(S|me|out|skip|append|MOVE|_cells|[LFGUPH]_\w+|K\d+|I?_?R_\d+|C\d+_\w+|moves_of\w*|[a-z]+_\w*\d+)\Z")
# the Python built-ins that generated code calls (nothing that reads files, imports or evaluates)
PYTHON_BUILTINS = ("len", "next", "sum", "all", "any", "range", "tuple", "list", "dict", "isinstance", "min", "max",
                   "enumerate", "zip", "sorted", "set", "frozenset", "iter", "int", "str", "bool", "float", "abs",
                   "reversed", "Exception", "StopIteration", "KeyError", "IndexError", "TypeError", "ValueError")
_ALLOWED_NODES = (
    ast.Module, ast.FunctionDef, ast.arguments, ast.arg, ast.Return, ast.Assign, ast.AugAssign, ast.Expr,
    ast.If, ast.For, ast.While, ast.Break, ast.Continue, ast.Pass, ast.Yield, ast.YieldFrom, ast.Try,
    ast.ExceptHandler, ast.Raise, ast.Name, ast.Attribute, ast.Subscript, ast.Slice, ast.Call, ast.keyword,
    ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set, ast.ListComp, ast.SetComp, ast.DictComp,
    ast.GeneratorExp, ast.comprehension, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.IfExp,
    ast.Starred, ast.NamedExpr, ast.Load, ast.Store, ast.Del, ast.operator, ast.unaryop, ast.boolop, ast.cmpop,
    ast.expr_context,
)


class UnsafeCode(Exception):
    """Generated code holds something the compiler never emits: a bug to report, never to run."""


def verify(source: str) -> None:
    """Raise UnsafeCode unless `source` uses only the constructs and names the compiler emits."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, _ALLOWED_NODES):
            raise UnsafeCode(f"generated code holds a {type(node).__name__}")
        if isinstance(node, ast.Name) and not (_NAME.match(node.id) or node.id in PYTHON_BUILTINS):
            raise UnsafeCode(f"generated code names {node.id!r}")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise UnsafeCode(f"generated code reads attribute {node.attr!r}")
        if isinstance(node, ast.arg) and not _NAME.match(node.arg):
            raise UnsafeCode(f"generated code takes argument {node.arg!r}")
        if isinstance(node, ast.FunctionDef) and not _NAME.match(node.name) or \
                isinstance(node, ast.arguments) and any(not isinstance(d, ast.Constant) for d in node.defaults):
            raise UnsafeCode("generated code defines an unexpected function")


def namespace_builtins() -> dict:
    """The only Python built-ins visible to generated code."""
    return {name: getattr(builtins, name) for name in PYTHON_BUILTINS}
