"""Compile-time names: what each name means where rule code is written (Binding, Scope), the problems that
compiling rule code reports, and the guards the code generated from it calls."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field

from . import checked, held
from .reach import read_field
from .types import ANY, Type

# what generated code may call besides the rule file's own functions: nothing else of Python is in reach
GUARDS = {"G_add": checked.add, "G_mul": checked.mul, "G_pow": checked.pow_, "G_mod": checked.mod,
          "G_range": checked.inclusive_range,
          "G_chain": checked.chain, "G_field": read_field, "G_key": checked.existing_key,
          "G_nest": checked.nested, "G_item": checked.item, "G_hold": held.hold,
          "G_deepen": checked.deepen, "G_places": checked.replaced_places}
# How the file name of every function generated from a rule file starts: a failure raised in one is the rule
# file's, one raised in the engine's own code is a bug in rulesdsl (see engine/state.py).
RULE_CODE_FILE = "<rules:"
# What the compiler knows of how deep a value nests (see Binding.depth): (absolute, relative) levels
ABSENT = -(1 << 20)  # no part of that kind
SCALAR = (0, ABSENT)  # never a list, tuple, table or record
EXISTING = (ABSENT, 0)  # a value that exists already: no deeper than it is


class CompileProblem(Exception):
    """A name, arity or structure error at characters [start, end) of the expression: `code` says which
    (see docs/errors.md) and `fields` what it is about (e.g. name=..., candidates=[...])."""

    def __init__(self, message: str, start: int, end: int, hint: str | None = None, quiet: bool = False,
                 code: str = "invalid", **fields):
        super().__init__(message)
        self.message, self.start, self.end, self.hint = message, start, end, hint
        self.quiet = quiet  # a consequence of a problem already reported elsewhere: not worth repeating
        self.code, self.fields = code, fields


@dataclass
class Binding:
    """What a name means: Python source to read it, whether it can be assigned, and a constant value if known."""

    code: str
    assignable: bool = False
    const: object = None
    is_const: bool = False
    # value | local | var | zone | option; or, for names that cannot be read here: later (computed after the
    # board, so unusable while building it) | broken (its definition failed, reported there) | unknown (nothing
    # declares it: `const` holds the names that are declared there, for the hint)
    kind: str = "value"
    numeric: bool = False  # always a number (e.g. a variable counting through a range)
    depth: tuple | None = None  # how deep the values it names nest, when more is known than of any value (depth_of)
    # the most items a value it holds may hold (see lang/held.py), when known: a param ranging over a constant
    # list of numbers and short texts holds none, or a text's characters
    held: int | None = None
    part: int | None = None  # the part of the position it names (see model.position.Position.changes)
    keyed: bool = False  # a variable with one value per key: an item may be assigned, never a new key
    type: Type = ANY  # its static type (of a constant: worked out from the value, see ir.infer.Typer)
    temp: bool = False  # a name the effects make by assigning it (typed by every value they give it, see ir/lower.py)
    # its type worked out when asked (from other names' types, in the type pass): a record of a move's values
    typed_by: object = None
    # a comprehension's variable that hides a name of the same name around it: compiled under a name of its own
    shadows: bool = False
    # a name the language gives that effects may hide by assigning a name of their own to it (`mover = ...`)
    hideable: bool = False
    # of a name that cannot be read here (kind unknown): what to say instead, where the language gives the name
    # elsewhere (`me` where the seat looking is `viewer`)
    hint: str | None = None


@dataclass
class Scope:
    """Compile-time names, chained to an enclosing scope."""

    names: dict = field(default_factory=dict)
    parent: "Scope | None" = None

    def lookup(self, name: str) -> Binding | None:
        scope = self
        while scope is not None:
            if name in scope.names:
                return scope.names[name]
            scope = scope.parent
        return None

    def child(self, /, **bindings) -> "Scope":  # positional-only: a rule's name may be `self`
        return Scope(dict(bindings), self)

    def all_names(self):
        scope, seen = self, set()
        while scope is not None:
            seen.update(scope.names)
            scope = scope.parent
        return seen


def local(name: str) -> Binding:
    """A binding for a local variable (parameter, loop variable or effect temporary)."""
    if not is_name(name):  # names reach generated code: only plain identifiers ever may
        raise ValueError(f"not a name of the language: {name!r}")
    return Binding(f"L_{name}", assignable=True, kind="local")


def typed_local(name: str, typed: Type) -> Binding:
    """local(name), of a known type (a name the engine gives a rule: the cell an attribute is worked out for)."""
    binding = local(name)
    binding.type = typed
    return binding


def unknown(scope: Scope) -> Binding:
    """What a name stands for that nothing declares where it is written (in `scope`): compiling a read of it is an
    error, whose hint names those that are declared there."""
    return Binding("", kind="unknown", const=frozenset(scope.all_names()))


def built(name: str, levels: int) -> Binding:
    """A binding for a local the engine builds `levels` levels over values that exist (a record of a move's
    values, say): what is built over it is checked as over anything that deep (see the Python backend's depth_of)."""
    binding = local(name)
    binding.depth = (ABSENT, levels)
    return binding


def loops_called(fn, namespace: dict) -> list:
    """The loop functions (see the Python backend's _loop) that generated function `fn` calls, directly or through one
    another, in the order first called."""
    found, codes = {}, [fn.__code__]
    while codes:
        code = codes.pop(0)
        codes += [c for c in code.co_consts if inspect.iscode(c)]  # comprehensions inside it
        for name in code.co_names:
            if name.startswith("H_") and name not in found and callable(namespace.get(name)):
                found[name] = namespace[name]
                codes.append(namespace[name].__code__)
    return list(found.values())


def is_name(name) -> bool:
    """Whether `name` may be declared by a rule file: a letter, then letters, digits and '_'."""
    return isinstance(name, str) and name.isidentifier() and name.isascii() and not name.startswith("_")
