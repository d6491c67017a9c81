"""The IR's expressions and statements: typed trees with every name resolved to what it names.

Each node has a static type (lang/types.py) and `at`, where it is written: the path of the rule-file string it
comes from and its character span in that string (see source.Document.locate). A name is resolved to a Ref
that says what kind of thing it names and where that is declared, so a reader needs no scope of its own.

The model compiler lowers each expression and statement once, as it compiles it (see lower.py); the backends print
code from these nodes. A node's type is settled by the type pass, after every rule is lowered (see typed()).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..lang import types as T

# What a Ref can name. Locals are a rule's own: `param`, `let`, `loop` (a `for:` effect's or a comprehension's
# variable), `arg` (a function's or procedure's parameter), `input` (a part or chance step's input), `temp` (a name
# an effect assigns). The game's: `var`, `zone`, `data` (a constant table), `global` (a file-level let), `option`,
# `engine` (me, player, turn, last_move, active_players, the board's names...).
LOCAL_KINDS = frozenset({"param", "let", "loop", "arg", "input", "temp"})


@dataclass(frozen=True, eq=False)
class Node:
    """Base of the IR's nodes. `at`: (path of the rule-file string, start, end) of what it was written as."""

    type: T.Type = field(default=T.ANY, kw_only=True)
    at: tuple = field(default=((), 0, 0), kw_only=True, repr=False)

    def children(self) -> tuple:
        return ()


@dataclass(frozen=True, eq=False)
class Const(Node):
    value: object


@dataclass(frozen=True, eq=False)
class Ref(Node):
    """A name read (or assigned): `kind` says what it names (see LOCAL_KINDS), `decl` the path of the rule-file
    key that declares it (None: the engine's own, or a name with no key of its own such as a loop variable,
    which `decl_at` places at the loop that binds it)."""

    name: str
    kind: str
    decl: tuple | None = None
    decl_at: tuple | None = None  # (path, start, end) of the binding occurrence, for names bound inside strings
    const: bool = False  # a value fixed when the game loads
    # what the compiler's scope says of the name where it is written (lang.compiler.Binding): how the Python
    # backend reads it, whether it may be assigned, its value when it is a constant
    binding: object = field(default=None, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, eq=False)
class Unary(Node):
    op: str  # - + not
    operand: Node

    def children(self):
        return (self.operand,)


@dataclass(frozen=True, eq=False)
class Binary(Node):
    op: str  # + - * / // % **
    left: Node
    right: Node

    def children(self):
        return (self.left, self.right)


@dataclass(frozen=True, eq=False)
class Logic(Node):
    op: str  # and / or
    left: Node
    right: Node

    def children(self):
        return (self.left, self.right)


@dataclass(frozen=True, eq=False)
class Compare(Node):
    ops: tuple  # == != < <= > >= in notin
    operands: tuple

    def children(self):
        return self.operands


@dataclass(frozen=True, eq=False)
class Cond(Node):
    test: Node
    then: Node
    other: Node

    def children(self):
        return (self.test, self.then, self.other)


@dataclass(frozen=True, eq=False)
class Range(Node):
    low: Node
    high: Node  # included

    def children(self):
        return (self.low, self.high)


@dataclass(frozen=True, eq=False)
class Attr(Node):
    obj: Node
    name: str

    def children(self):
        return (self.obj,)


@dataclass(frozen=True, eq=False)
class Index(Node):
    obj: Node
    index: Node

    def children(self):
        return (self.obj, self.index)


@dataclass(frozen=True, eq=False)
class Slice(Node):
    obj: Node
    low: Node | None
    high: Node | None

    def children(self):
        return tuple(n for n in (self.obj, self.low, self.high) if n is not None)


@dataclass(frozen=True, eq=False)
class Display(Node):
    """A list, tuple or table written out: `kind` list | tuple | table; a table's items are (key, value) pairs."""

    kind: str
    items: tuple

    def children(self):
        return tuple(n for item in self.items for n in (item if isinstance(item, tuple) else (item,)))


@dataclass(frozen=True, eq=False)
class Call(Node):
    """A call: `target` says of what: builtin (the engine's, declared with @builtin), function or procedure (the
    file's own, `decl` its key), effect (a built-in that changes the state)."""

    func: str
    args: tuple
    kwargs: tuple  # ((name, node), ...)
    target: str = "builtin"
    decl: tuple | None = None
    # name -> (start, end) of each keyword where it is written, for a problem with it
    keyword_at: dict = field(default_factory=dict, compare=False, repr=False, kw_only=True)

    def children(self):
        return self.args + tuple(v for _, v in self.kwargs)


@dataclass(frozen=True, eq=False)
class Clause(Node):
    """One `for targets in iterable if conds` of a comprehension or a loop; its targets are Refs of kind loop."""

    targets: tuple
    iterable: Node
    conds: tuple

    def children(self):
        return self.targets + (self.iterable,) + self.conds


@dataclass(frozen=True, eq=False)
class Comp(Node):
    """`[elt for ...]`; `generator`: the bare form handed to an aggregate built-in (`sum(x for x in xs)`)."""

    elt: Node
    clauses: tuple
    generator: bool = False

    def children(self):
        return self.clauses + (self.elt,)


# -- statements --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Assign(Node):
    target: Node
    op: str  # = += -= *= //=
    value: Node

    def children(self):
        return (self.target, self.value)


@dataclass(frozen=True, eq=False)
class Do(Node):
    """A call made for what it does (an effect, a procedure)."""

    call: Call

    def children(self):
        return (self.call,)


@dataclass(frozen=True, eq=False)
class If(Node):
    test: Node
    then: tuple
    other: tuple

    def children(self):
        return (self.test,) + self.then + self.other


@dataclass(frozen=True, eq=False)
class Loop(Node):
    """A `for:` effect: its body runs once per value of the clause that passes its conditions."""

    clause: Clause
    body: tuple

    def children(self):
        return (self.clause,) + self.body


def typed(node: Node, found: T.Type) -> None:
    """Give `node` the type the type pass settled on: the one change a node sees once it is made."""
    object.__setattr__(node, "type", found)


def walk(node):
    """`node` and every node below it, parents first (without recursion)."""
    todo = [node]
    while todo:
        node = todo.pop()
        yield node
        todo.extend(reversed(node.children()))
