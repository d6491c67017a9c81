"""Check names and arity in expression ASTs and compile them to Python source, evaluated once into closures."""

from __future__ import annotations

import inspect
import keyword
import re
from dataclasses import dataclass, field
from functools import lru_cache

from ..errors import close_names, suggestion
from ..limits import MAX_EXPR_DEPTH, MAX_VALUE_DEPTH, LimitExceeded
from . import ast as A
from . import checked, held
from .held import items as held_items
from . import emit as E
from .builtins import Builtin, RuleValueError
from .constants import frozen
from .reach import python_names, read_field
from .types import ANY, NOTHING, Type
from .verify import verify

# Python functions people reach for, and what the rule language has instead.
_PYTHON_HINTS = {
    "len": "the length of a list is size(xs)",
    "range": "a range of whole numbers is written low..high (both included), e.g. 1..num_players",
    "filter": "filter with a comprehension: [x for x in xs if condition]",
    "map": "transform with a comprehension: [f(x) for x in xs]",
}
_PY_BINOP = {"+": "+", "-": "-", "*": "*", "/": "/", "//": "//", "%": "%", "**": "**"}
# operators that can build a large value in one step run through a checked function (see checked.py)
_CHECKED = {"+": "G_add", "*": "G_mul", "**": "G_pow", "%": "G_mod"}
_PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2, "//": 2, "%": 2, "**": 3}
_AUGMENTED = {"+=": "G_add", "*=": "G_mul"}
_NUMERIC_RESULT = {"-": True, "/": True, "//": True, "%": True, "**": True}  # or an error: never a list or text
LONG_CHAIN = 32  # a run of more operators of one kind than this compiles to one checked call
_SMALL = 1000  # items of a constant that may be added unchecked (a loop adding it grows by that much a turn)
_NUMERIC_BUILTINS = {"size", "count", "abs", "int", "floor", "ceil", "index_of", "longest_run"}
# built-ins that make a list of the items of a comprehension given them: one level over those items
_COLLECTING = {"sorted", "distinct"}
# what generated code may call besides the rule file's own functions: nothing else of Python is in reach
GUARDS = {"G_add": checked.add, "G_mul": checked.mul, "G_pow": checked.pow_, "G_mod": checked.mod,
          "G_range": checked.inclusive_range,
          "G_chain": checked.chain, "G_field": read_field, "G_key": checked.existing_key,
          "G_nest": checked.nested, "G_item": checked.item, "G_hold": held.hold}
# How the file name of every function generated from a rule file starts: a failure raised in one is the rule
# file's, one raised in the engine's own code is a bug in rulesdsl (see engine/state.py).
RULE_CODE_FILE = "<rules:"
# Names of generated code that are local to the function they are in (the state, the player, parameters, lets
# and loop variables, and `_cells`, bound from the state), and so are passed to a loop compiled as a function of
# its own; as they stand in the compiler's own text (a binding's code, a built-in's template), never an attribute.
_LOCAL = re.compile(r"(?<![\w.])(S|me|_cells|L_\w+|C\d+_\w+)\b")
# Arguments cheap and safe to read more than once: a call of a short function with only these is compiled into
# its caller (see Compiler._inline); and how short, in the syntax nodes of its body and the characters of its code.
_ATOM = re.compile(r"(L_\w+|C\d+_\w+|me|K\d+|S\.player|S\.turn|\(?-?\d+\)?|'[\w .-]*'|True|False|None)\Z")
INLINE_NODES, INLINE_CHARS = 40, 120
_PY_CMP = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "in": "in", "notin": "not in"}
# What the compiler knows of how deep a value nests (see Compiler.depth_of): (absolute, relative) levels
ABSENT = -(1 << 20)  # no part of that kind
SCALAR = (0, ABSENT)  # never a list, tuple, table or record
EXISTING = (ABSENT, 0)  # a value that exists already: no deeper than it is


@lru_cache(maxsize=4096)
def _locals_in(code: str) -> frozenset:
    """The locals (see _LOCAL) that a piece of the compiler's own text reads."""
    return frozenset(_LOCAL.findall(code))


def fits(depth: tuple) -> bool:
    """Whether a value built as `depth` says (see Compiler.depth_of) nests within the limit without a check."""
    absolute, relative = depth
    return absolute <= MAX_VALUE_DEPTH and relative <= 0


@lru_cache(maxsize=4096)
def _parameter_slots(fn) -> dict:
    """name -> position of each parameter of fn that may be given by position."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # no signature to read (a C function, say)
        return {}
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    slots = {}
    for i, p in enumerate(parameters):
        if p.kind not in kinds:
            break
        slots[p.name] = i
    return slots


class CompileProblem(Exception):
    """A name, arity or structure error at characters [start, end) of the expression: `code` says which
    (see docs/errors.md) and `fields` what it is about (e.g. name=..., candidates=[...])."""

    def __init__(self, message: str, start: int, end: int, hint: str | None = None, quiet: bool = False,
                 code: str = "invalid", **fields):
        super().__init__(message)
        self.message, self.start, self.end, self.hint = message, start, end, hint
        self.quiet = quiet  # a consequence of a problem already reported elsewhere: not worth repeating
        self.code, self.fields = code, fields


def _hold(code: str, entry: int = 0) -> str:
    """`code` (a value about to be written into the position) counted towards what the position holds."""
    return f"G_hold(S, {code}, {entry})" if entry else f"G_hold(S, {code})"


def _constant_assigned(name: A.Name, target: A.Node) -> CompileProblem:
    """The problem of an assignment to a constant (data, a let, a region, the seats) or to an item of one."""
    hint = f"keep what changes in a variable declared under 'vars:' (e.g. init: {name.id})"
    if target is not name:  # an item: a changed copy may do
        hint += f", or change a copy: xs = list({name.id}), then xs[...] = ..."
    return CompileProblem(f"'{name.id}' is a constant of the rule file (data, a let, a region or a name of the "
                          "language) and cannot be changed", target.start, target.end, hint, code="not_assignable",
                          name=name.id)


def _refusal(name: str, exc: Exception) -> str:
    """The message of built-in `name` refusing constant arguments (named once, whoever raised it)."""
    text = str(exc)
    return text if text.startswith(f"{name}(): ") else f"{name}(): {text}"


@dataclass
class Binding:
    """What a name means: Python source to read it, whether it can be assigned, and a constant value if known."""

    code: str
    assignable: bool = False
    const: object = None
    is_const: bool = False
    # value | local | var | zone | option; or, for names that cannot be read here: later (computed after the
    # board, so unusable while building it) | broken (its definition failed, reported there)
    kind: str = "value"
    numeric: bool = False  # always a number (e.g. a variable counting through a range)
    depth: tuple | None = None  # how deep the values it names nest, when more is known than of any value (depth_of)
    # the most items a value it holds may hold (see lang/held.py), when known: a param ranging over a constant
    # list of numbers and short texts holds none, or a text's characters
    held: int | None = None
    part: int | None = None  # the part of the position it names (see model.position.Position.changes)
    keyed: bool = False  # a variable with one value per key: an item may be assigned, never a new key
    type: Type = ANY  # its static type (of a constant: worked out from the value, see infer.Typer)
    temp: bool = False  # a name the effects make by assigning it (typed by every value they give it)
    # its type worked out when asked (from other names' types, in the type pass): a record of a move's values
    typed_by: object = None


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


def built(name: str, levels: int) -> Binding:
    """A binding for a local the engine builds `levels` levels over values that exist (a record of a move's
    values, say): what is built over it is checked as over anything that deep (see Compiler.depth_of)."""
    binding = local(name)
    binding.depth = (ABSENT, levels)
    return binding


def loops_called(fn, namespace: dict) -> list:
    """The loop functions (see Compiler._loop) that generated function `fn` calls, directly or through one
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


class Compiler:
    """Turns AST nodes into Python source; constants and built-ins live in `namespace`."""

    def __init__(self, builtins: dict[str, Builtin], namespace: dict, attributes: set[str] | None = None):
        self.builtins = builtins
        self.namespace = namespace
        self.attributes = attributes  # known attribute names, for 'did you mean'; None: unchecked
        self._consts: dict = {}
        self._depths: dict = {}  # id of a constant -> (the constant, how deep it nests)
        self.attribute_depths: dict = {}  # attribute name -> how deep its values nest, where known (see depth_of)
        self.piece_attribute_depths: dict = {}  # the same for the attributes of pieces
        self._fresh = 0  # comprehension variables renamed so as not to hide an outer name (_loop_local)
        self._loops: dict = {}  # source of a loop function -> its name (one function for loops written alike)
        self.code_file = RULE_CODE_FILE + "expression>"  # the file name loop functions are compiled under
        # Rewrites of a comprehension's loop that read the same items from somewhere cheaper: each is
        # fn(compiler, clause, scope) -> (iterable code, the conditions still to test) or None (see _clause)
        self.scans: list = []
        # name -> (params, body, scope) of the rule file's functions that may be compiled into their callers
        self.expansions: dict = {}
        self._inlining: list = []  # the functions being compiled into a caller, innermost last
        self._depth = 0  # nesting of the expression being compiled
        # while a loop is compiled as a function of its own (see _loop): the locals its code reads, and those it binds
        self._reads: list[set] = []
        self._binds: list[set] = []
        self.withdrawn: set = set()  # names whose declaration was refused: their uses are not reported again
        self._python_names = python_names()
        self.namespace.update(GUARDS)
        self.add_builtins(builtins)

    def add_builtins(self, builtins: dict[str, Builtin]) -> None:
        """Make more built-ins callable (e.g. those of a game, once its players are known)."""
        self.builtins.update(builtins)
        for b in builtins.values():
            self.namespace[f"F_{b.name}"] = b.fn

    # -- what a loop compiled as a function reads ----------------------------------------------------
    def read(self, code: str) -> None:
        """Note the locals that `code` (the compiler's own text: a binding's code, a template) reads, for the loop
        being compiled as a function, if any (see _loop)."""
        if self._reads:
            self._reads[-1].update(_locals_in(code))

    def _mark(self) -> tuple | None:
        return (set(self._reads[-1]), set(self._binds[-1])) if self._reads else None

    def _back_to(self, mark: tuple | None) -> None:
        """Forget what was noted since `mark`: code compiled and then dropped is not in the loop."""
        if mark is not None:
            self._reads[-1], self._binds[-1] = mark

    def check(self, node: A.Node, scope: Scope) -> None:
        """Compile `node` for its problems only (CompileProblem); its code is dropped."""
        mark = self._mark()
        try:
            self.expr(node, scope)
        finally:
            self._back_to(mark)

    # -- constants ---------------------------------------------------------------------------
    def const(self, value) -> str:
        """Python source for a constant value (a literal, or a name bound in the namespace)."""
        if value is None or isinstance(value, (bool, int, float, str)) and type(value) in (bool, int, float, str) \
                and not (isinstance(value, float) and value != value or value in (float("inf"), float("-inf"))):
            text = repr(value)
            return f"({text})" if text.startswith("-") else text  # -3 ** 2 would be -(3 ** 2) in Python
        key = (type(value), id(value))
        found = self._consts.get(key)
        if found is None:
            # the value itself is kept too: while it lives, no other object can take its id
            found = self._consts[key] = (f"K{len(self._consts)}", value)
            self.namespace[found[0]] = frozen(value)  # shared by every state: effects must not change it
        return found[0]

    # -- expressions -------------------------------------------------------------------------
    def expr(self, node: A.Node, scope: Scope) -> str:
        self._depth += 1
        try:
            if self._depth > MAX_EXPR_DEPTH:
                raise CompileProblem(f"this expression is nested too deeply (more than {MAX_EXPR_DEPTH} "
                                     "levels)", node.start, max(node.start + 1, node.end),
                                     "split it into functions or lets", code="limit_exceeded",
                                     limit="MAX_EXPR_DEPTH")
            return getattr(self, "_" + type(node).__name__)(node, scope)
        finally:
            self._depth -= 1

    def const_value(self, node: A.Node, scope: Scope):
        """(True, value) when the expression is a compile-time constant, else (False, None)."""
        if isinstance(node, A.Const):
            return True, node.value
        if isinstance(node, A.Name):
            b = scope.lookup(node.id)
            if b is not None and b.is_const:
                return True, b.const
        if isinstance(node, A.Attr) and isinstance(node.obj, A.Name):
            b = scope.lookup(node.obj.id)
            if b is not None and b.kind == "option":
                return True, self._option(node, b)
        if isinstance(node, A.UnaryOp) and node.op == "-":  # -1
            known, value = self.const_value(node.operand, scope)
            if known and type(value) in (int, float):
                return True, -value
        if isinstance(node, A.Call):  # a pure built-in of constants, e.g. size(colours), is folded too
            return self._folded(node, scope)
        return False, None

    def _folded(self, node: A.Call, scope: Scope):
        """(True, value) of a call of a pure built-in with constant arguments, else (False, None)."""
        b = self.builtins.get(node.func)
        if b is None or not b.fold or node.kwargs or any(isinstance(a, A.Comprehension) for a in node.args):
            return False, None
        values = [self.const_value(a, scope) for a in node.args]
        if not all(known for known, _ in values):
            return False, None
        try:
            return True, b.fn(*(value for _, value in values))
        except Exception:  # noqa: BLE001 - not a constant after all: compiled as a call, which reports it
            return False, None

    def _Const(self, node, scope):
        return self.const(node.value)

    def _Name(self, node, scope):
        b = scope.lookup(node.id)
        if b is None:
            if node.id in self.builtins:
                raise CompileProblem(f"'{node.id}' is a function: call it as {self.builtins[node.id].signature}",
                                     node.start, node.end, code="misused_name", name=node.id)
            close = close_names(node.id, scope.all_names() | {"true", "false", "none"})
            hint = suggestion(close) or "names are parameters, variables, zones, regions, tables and " \
                                        "'me', 'player', 'players'"
            raise CompileProblem(f"unknown name '{node.id}'", node.start, node.end, hint, code="unknown_name",
                                 quiet=node.id in self.withdrawn, name=node.id, candidates=close)
        if b.kind == "option":
            raise CompileProblem("write option.<name> to read an option", node.start, node.end, code="misused_name",
                                 name=node.id)
        if b.kind == "later":
            raise CompileProblem(f"'{node.id}' uses the board, so it is computed after the board and cannot be "
                                 "used to build it", node.start, node.end,
                                 "compute what the board needs in lets that do not use cells or regions",
                                 code="misused_name", name=node.id)
        if b.kind == "broken":  # its definition has a problem, reported there
            raise CompileProblem(f"'{node.id}' is not defined (see its own error)", node.start, node.end, quiet=True)
        if b.is_const:
            return self.const(b.const)
        self.read(b.code)
        return b.code

    def _ListExpr(self, node, scope):
        return self._nested(self._display(node, scope), self._holding(node.items, scope))

    def _TupleExpr(self, node, scope):
        return self._nested(self._display(node, scope), self._holding(node.items, scope))

    def _DictExpr(self, node, scope):
        return self._nested(self._display(node, scope), self._holding([n for pair in node.pairs for n in pair], scope))

    def _display(self, node: A.Node, scope: Scope) -> str:
        """The Python of a list, tuple or table written out, as it is: unchecked."""
        if isinstance(node, A.ListExpr):
            return "[" + ", ".join(self.expr(i, scope) for i in node.items) + "]"
        if isinstance(node, A.TupleExpr):
            return "(" + "".join(self.expr(i, scope) + ", " for i in node.items) + ")"
        return "{" + ", ".join(f"{self.expr(k, scope)}: {self.expr(v, scope)}" for k, v in node.pairs) + "}"

    def transient(self, node: A.Node, scope: Scope) -> str:
        """The Python of an expression whose value is used and dropped, never kept: a key looked up, what `in`
        looks in, what a loop runs over. Written out as a list, tuple or table, it nests no value deeper than any
        kept, so it is built unchecked (what is kept of it, its items, exists already)."""
        if isinstance(node, (A.ListExpr, A.TupleExpr, A.DictExpr)):
            return self._display(node, scope)
        return self.expr(node, scope)

    # -- how deep values nest ------------------------------------------------------------------
    @staticmethod
    def _nested(code: str, depth: tuple) -> str:
        """The code of a value built to hold others, checked at run time (see checked.nested) unless what the
        compiler knows of it (`depth`, see depth_of) shows it can nest no deeper than the limit allows."""
        return code if fits(depth) else f"G_nest({code})"

    def _holding(self, items, scope: Scope) -> tuple:
        """How deep a list, tuple or table of these items nests (see depth_of)."""
        found = [self.depth_of(item, scope) for item in items]
        return (1 + max((a for a, _ in found), default=0), 1 + max((r for _, r in found), default=ABSENT))

    def depth_of(self, node: A.Node, scope: Scope) -> tuple:
        """What the compiler knows of how deep an expression's values nest: (absolute, relative), the value nesting
        at most `absolute` deep, or at most `relative` levels deeper than some value that exists already
        (ABSENT: no part of that kind). A value that exists was built under these checks, or by the engine a
        few levels over such values, so only a value built over one (relative >= 1) can nest deeper than any
        before: a display of a variable, say, but not a comprehension of the items of a list (relative 0, as
        deep as the list at most), nor a display of numbers and constants (absolute, known here)."""
        known, value = self.const_value(node, scope)
        if known:
            return self._const_depth(value), ABSENT
        if isinstance(node, A.Name):
            binding = scope.lookup(node.id)
            if binding is not None and binding.numeric:
                return SCALAR
            return binding.depth if binding is not None and binding.depth is not None else EXISTING
        if isinstance(node, (A.UnaryOp, A.Compare, A.Range)):  # a number, a truth value or a range, or an error
            return SCALAR
        if isinstance(node, A.Index):  # an item of a value
            a, r = self.depth_of(node.obj, scope)
            return a - 1, r - 1
        if isinstance(node, A.Slice):
            return self.depth_of(node.obj, scope)
        if isinstance(node, (A.BinOp, A.BoolOp, A.IfElse)):
            # the operands: no operator nests them deeper (a sum of lists holds the items of both; a or b is one)
            if isinstance(node, A.BinOp) and self._numeric(node, scope):
                return SCALAR
            parts, found = [node], []
            while parts:  # down long runs of operators without recursion
                part = parts.pop()
                if isinstance(part, (A.BinOp, A.BoolOp)):
                    parts += [part.left, part.right]
                elif isinstance(part, A.IfElse):
                    parts += [part.then, part.other]
                else:
                    found.append(self.depth_of(part, scope))
            return max(a for a, _ in found), max(r for _, r in found)
        if isinstance(node, (A.ListExpr, A.TupleExpr)):
            return self._holding(node.items, scope)
        if isinstance(node, A.DictExpr):
            return self._holding([n for pair in node.pairs for n in pair], scope)
        if isinstance(node, A.Call) and (node.func in _NUMERIC_BUILTINS or self._looped(node) is not None):
            return SCALAR
        if isinstance(node, A.Call) and node.func in self.builtins and self.builtins[node.func].yields is not None:
            return 1, ABSENT  # a list of cells or of players
        if isinstance(node, A.Attr):  # the attribute of a piece (at a cell), else of anything
            on_piece = isinstance(node.obj, A.Call) and node.obj.func == "at"
            return (self.piece_attribute_depths if on_piece else self.attribute_depths).get(node.name, EXISTING)
        if isinstance(node, A.Call) and node.func in ("first", "last") and node.args and not node.kwargs \
                and not (isinstance(node.args[0], A.Comprehension) and node.args[0].generator):
            # an item of the list, or the default
            (a, r), found = self.depth_of(node.args[0], scope), [self.depth_of(n, scope) for n in node.args[1:]]
            return max([a - 1] + [d[0] for d in found]), max([r - 1] + [d[1] for d in found])
        # an attribute (a field or an attribute value, which exists), a call (a built-in builds under these
        # checks, or returns a value it was given; a function of the file is an expression compiled with them)
        return EXISTING

    def know_items(self, clause, bindings: dict, scope: Scope) -> None:
        """What is known of the variables of a comprehension's loop: a number, over a range; else items of the
        collection (one level inside it, two when a loop unpacks each item). Only of variables nothing assigns:
        what was known of a name would not hold after it is given another value (a loop of effects, say)."""
        if isinstance(clause.iterable, A.Range) and len(bindings) == 1:
            next(iter(bindings.values())).numeric = True
            return
        a, r = self.depth_of(clause.iterable, scope)
        inside = 1 if len(bindings) == 1 else 2
        for binding in bindings.values():
            binding.depth = (a - inside, r - inside)

    def _const_depth(self, value) -> int:
        """How deep a constant nests (worked out once for each constant)."""
        key = id(value)
        found = self._depths.get(key)
        if found is None:  # the value is kept with it: while it lives, no other object takes its id
            found = self._depths[key] = (value, checked.depth(value))
        return found[1]

    def _BinOp(self, node, scope):
        # a run of left-associative operators of one precedence (a + b - c + ...) is read as one level,
        # so that a long sum neither nests Python's parentheses nor recurses
        operands, ops = [node.right], [node.op]
        left = node.left
        while isinstance(left, A.BinOp) and node.op != "**" and _PRECEDENCE[left.op] == _PRECEDENCE[node.op]:
            operands.append(left.right)
            ops.append(left.op)
            left = left.left
        operands.append(left)
        operands.reverse()
        ops.reverse()
        codes = [self.expr(o, scope) for o in operands]
        if len(ops) > LONG_CHAIN:
            return f"G_chain(({''.join(c + ', ' for c in codes)}), {tuple(ops)!r})"
        code, numeric = codes[0], self._numeric(operands[0], scope)
        small = self._small_constant(operands[0], scope)
        for op, operand, right in zip(ops, codes[1:], operands[1:]):
            code = f"({code} {_PY_BINOP[op]} {operand})" if self._plain(op, numeric, small, right, scope) else \
                f"{_CHECKED[op]}({code}, {operand})"
            numeric, small = _NUMERIC_RESULT.get(op, False) or numeric and op == "+", False
        return code

    def _plain(self, op: str, left_numeric: bool, left_small: bool, right: A.Node, scope: Scope) -> bool:
        """Whether `op` may run unchecked: it cannot build a large value, nor format text, in one step."""
        if op not in _CHECKED:
            return True
        if op == "+":  # a number plus anything is a number (or an error); a small constant adds little
            return left_numeric or left_small or self._numeric(right, scope) or self._small_constant(right, scope)
        if op == "%":
            return left_numeric
        if op == "*":  # a number times a fraction is a fraction (bounded), times 0, 1 or -1 no larger; times any
            # other whole number it grows a few bits each time, without end in a loop: checked
            known, value = self.const_value(right, scope)
            return left_numeric and known and (type(value) is float or type(value) is int and abs(value) <= 1)
        return False

    def _small_constant(self, node: A.Node, scope: Scope) -> bool:
        """Whether the expression is a constant that adding can only lengthen a little."""
        known, value = self.const_value(node, scope)
        return known and (not isinstance(value, (str, list, tuple)) or len(value) <= _SMALL)

    def _numeric(self, node: A.Node, scope: Scope) -> bool:
        """Whether the expression is certainly a number when it has a value (never a list or a string)."""
        while True:  # down the left of a long sum without recursion; the right side nests boundedly
            known, value = self.const_value(node, scope)
            if known:
                return type(value) in (int, float, bool)
            if isinstance(node, A.Name):
                binding = scope.lookup(node.id)
                return binding is not None and binding.numeric
            if isinstance(node, A.UnaryOp):
                return node.op in "+-"
            if not isinstance(node, A.BinOp):
                return isinstance(node, A.Call) and node.func in _NUMERIC_BUILTINS
            if _NUMERIC_RESULT.get(node.op, False):
                return True
            if node.op != "+" or self._numeric(node.right, scope):
                return node.op == "+"
            node = node.left

    def _UnaryOp(self, node, scope):
        op = "not " if node.op == "not" else node.op
        return f"({op}{self.expr(node.operand, scope)})"

    def _BoolOp(self, node, scope):
        operands, left = [node.right], node.left
        while isinstance(left, A.BoolOp) and left.op == node.op:  # a or b or c ...: one level, not nested
            operands.append(left.right)
            left = left.left
        operands.append(left)
        return "(" + f" {node.op} ".join(self.expr(o, scope) for o in reversed(operands)) + ")"

    def _Compare(self, node, scope):
        parts = [self.expr(node.operands[0], scope)]
        for op, before, operand in zip(node.ops, node.operands, node.operands[1:]):
            # x == none is x is None for every value of the language, and faster (not for a constant x: Python
            # warns of `3 is None`)
            is_none = isinstance(operand, A.Const) and operand.value is None and not self.const_value(before, scope)[0]
            parts.append({"==": "is", "!=": "is not"}[op] if is_none and op in ("==", "!=") else _PY_CMP[op])
            known, value = self.const_value(operand, scope)
            if op in ("in", "notin") and known and hasattr(value, "_members"):
                parts.append(self.const(value._members))  # membership in a region: a set lookup
            else:
                parts.append(self.transient(operand, scope) if op in ("in", "notin") else self.expr(operand, scope))
        return "(" + " ".join(parts) + ")"

    def _IfElse(self, node, scope):
        return f"({self.expr(node.then, scope)} if {self.expr(node.cond, scope)} else {self.expr(node.other, scope)})"

    def _Range(self, node, scope):
        (low_known, low), (high_known, high) = self.const_value(node.low, scope), self.const_value(node.high, scope)
        if low_known and high_known and isinstance(low, int) and isinstance(high, int):
            try:
                return self.const(checked.inclusive_range(low, high))
            except LimitExceeded as exc:
                raise CompileProblem(str(exc), node.start, node.end, "ranges are for counting a few things: "
                                     "keep them small", code="limit_exceeded", limit="MAX_ITEMS") from None
        return f"G_range({self.expr(node.low, scope)}, {self.expr(node.high, scope)})"

    def _option(self, node, binding):
        options = binding.const
        if node.name not in options:
            close = close_names(node.name, options)
            raise CompileProblem(f"unknown option '{node.name}'", node.end - len(node.name), node.end,
                                 suggestion(close) or f"options of this game: {', '.join(sorted(options)) or 'none'}",
                                 code="unknown_option", name=node.name, candidates=close)
        return options[node.name]

    def _Attr(self, node, scope):
        if isinstance(node.obj, A.Name):
            b = scope.lookup(node.obj.id)
            if b is not None and b.kind == "option":
                return self.const(self._option(node, b))
        if self.attributes is not None and node.name not in self.attributes:
            close = close_names(node.name, self.attributes)
            raise CompileProblem(f"unknown attribute '{node.name}'", node.end - len(node.name), node.end,
                                 suggestion(close) or "attributes are declared on cells, pieces and players",
                                 code="unknown_attribute", name=node.name, candidates=close)
        if node.name.startswith("_"):  # the parser refuses such names: this is a second line of defence
            raise CompileProblem(f"'{node.name}': names cannot begin with '_'", node.start, node.end, code="syntax")
        if keyword.iskeyword(node.name) or node.name in self._python_names:
            # a name Python gives some value (count, index, a keyword such as 'from'): read the field only
            return f"G_field({self.expr(node.obj, scope)}, {node.name!r})"
        return f"({self.expr(node.obj, scope)}).{node.name}"  # in brackets: a number folded at load, 1.x, is (1).x

    def _Index(self, node, scope):
        return f"{self.expr(node.obj, scope)}[{self.transient(node.index, scope)}]"

    def _Slice(self, node, scope):
        low = self.expr(node.low, scope) if node.low else ""
        high = self.expr(node.high, scope) if node.high else ""
        return f"{self.expr(node.obj, scope)}[{low}:{high}]"

    def loop_local(self, name: str, scope: Scope) -> Binding:
        """A comprehension variable. Python makes it local to the whole comprehension, while in the rules
        language (and the reference evaluator) the iterables and conditions before it still see an outer
        name it shadows: a shadowing variable therefore gets a Python name of its own."""
        if scope.lookup(name) is None and not self._inlining:
            binding = local(name)
        else:
            # (in a function compiled into its caller, every loop variable is renamed: it may otherwise take the
            # Python name of a caller's variable that a parameter stands for)
            self._fresh += 1
            binding = Binding(f"C{self._fresh}_{name}", assignable=True, kind="local")
        if self._binds:
            self._binds[-1].add(binding.code)
        return binding

    def _clause(self, clause, scope: Scope) -> tuple[str, str, Scope, list]:
        """(iterable code, loop targets code, the scope inside the loop, the conditions' code) of one `for`
        clause of a comprehension; a registered scan may read its items from somewhere cheaper, leaving
        some of its conditions to test."""
        conds = clause.conds
        for scan in self.scans:
            found = scan(self, clause, scope)
            if found is not None:
                iterable, conds = found
                break
        else:
            iterable = self.transient(clause.iterable, scope)
        bindings = {t: self.loop_local(t, scope) for t in clause.targets}
        self.know_items(clause, bindings, scope)
        inner = scope.child(**bindings)
        return iterable, ", ".join(bindings[t].code for t in clause.targets), inner, \
            [self.expr(c, inner) for c in conds]

    def _comprehension(self, node: A.Comprehension, scope: Scope) -> tuple[str, tuple]:
        """The code of a comprehension's loop (without its brackets), and how deep its items nest (see depth_of)."""
        clauses = []
        inner = scope
        for clause in node.fors:
            iterable, targets, inner, conds = self._clause(clause, inner)
            clauses.append(f"for {targets} in {iterable}")
            clauses.extend(f"if {c}" for c in conds)
        return f"{self.expr(node.elt, inner)} " + " ".join(clauses), self.depth_of(node.elt, inner)

    def _Comprehension(self, node, scope):
        code, (a, r) = self._comprehension(node, scope)
        return self._nested("[" + code + "]", (a + 1, r + 1))

    def check_call(self, node: A.Call) -> Builtin:
        b = self.builtins.get(node.func)
        if b is None:
            close = close_names(node.func, self.builtins)
            raise CompileProblem(f"unknown function '{node.func}'", node.start, node.start + len(node.func),
                                 suggestion(close) or _PYTHON_HINTS.get(node.func) or
                                 "see the language reference for the built-in functions", code="unknown_function",
                                 name=node.func, candidates=close)
        n = len(node.args)
        if n < b.min_args or (b.max_args is not None and n > b.max_args):
            want = (f"{b.min_args}" if b.min_args == b.max_args else
                    f"at least {b.min_args}" if b.max_args is None else f"{b.min_args} to {b.max_args}")
            raise CompileProblem(f"{b.name}() takes {want} argument{'' if want == '1' else 's'}, got {n}",
                                 node.start, node.end, f"usage: {b.signature}", code="wrong_arity", function=b.name,
                                 given=n, min=b.min_args, max=b.max_args)
        given = set()
        for name, value in node.kwargs:
            if name in given:
                start, end = getattr(node, "keyword_spans", {}).get(name, (value.start, value.end))
                raise CompileProblem(f"{b.name}() is given '{name}' twice", start, end, "give each keyword once",
                                     code="duplicate_keyword", function=b.name, keyword=name)
            given.add(name)
            if name not in b.keywords and "*" not in b.keywords:
                start, end = getattr(node, "keyword_spans", {}).get(name, (value.start, value.end))
                close = close_names(name, [k for k in b.keywords if k != "*"])
                raise CompileProblem(f"{b.name}() has no keyword '{name}'", start, end,
                                     (suggestion(close) + " " if close else "") + f"usage: {b.signature}",
                                     code="unknown_keyword", function=b.name, keyword=name, candidates=close)
            if name in b.keywords and name in b.params[:n]:  # a parameter with a default, given by position too
                start, end = getattr(node, "keyword_spans", {}).get(name, (value.start, value.end))
                raise CompileProblem(f"{b.name}() is given '{name}' twice", start, end, f"usage: {b.signature}",
                                     code="duplicate_keyword", function=b.name, keyword=name)
        if any(isinstance(a, A.Comprehension) and a.generator for a in node.args) and not b.aggregate:
            raise CompileProblem(f"{b.name}() does not take a comprehension", node.start, node.end,
                                 f"usage: {b.signature}; wrap it in brackets for a list: [x for x in xs]",
                                 code="bad_argument", function=b.name)
        if n > 1 and b.max_args is None and isinstance(node.args[0], A.Comprehension) and node.args[0].generator:
            # min(a, b) compares its arguments: a comprehension before more of them would be compared as one value
            raise CompileProblem(f"{b.name}() of a comprehension takes no other values", node.start, node.end,
                                 f"usage: {b.signature}", code="bad_argument", function=b.name)
        return b

    def _Call(self, node, scope):
        b = self.check_call(node)
        if b.effect:
            raise CompileProblem(f"{b.name}() changes the game: use it as an effect, not in a condition",
                                 node.start, node.end, "effects are listed under 'do:'", code="effect_in_condition",
                                 function=b.name)
        return self.call_code(node, b, scope)

    def _tally(self, node: A.Call, b: Builtin, scope: Scope) -> str | None:
        """count(x for x in Z if x.a == v), Z a zone (or one of its places) and v not naming x, as
        Position.tally: the zone's items counted by attribute once, not once per value asked for."""
        comp = node.args[0] if b.name == "count" and len(node.args) == 1 and not node.kwargs else None
        if not (isinstance(comp, A.Comprehension) and comp.generator and len(comp.fors) == 1):
            return None
        loop = comp.fors[0]
        cond = loop.conds[0] if len(loop.targets) == 1 and len(loop.conds) == 1 else None
        if not (isinstance(cond, A.Compare) and cond.ops == ["=="] and isinstance(cond.operands[0], A.Attr)):
            return None
        item, (attr, value) = loop.targets[0], cond.operands
        zone, key = (loop.iterable.obj, loop.iterable.index) if isinstance(loop.iterable, A.Index) else \
            (loop.iterable, None)
        binding = scope.lookup(zone.id) if isinstance(zone, A.Name) else None
        if binding is None or binding.kind != "zone" or not isinstance(comp.elt, A.Name) or comp.elt.id != item \
                or not isinstance(attr.obj, A.Name) or attr.obj.id != item or keyword.iskeyword(attr.name) \
                or attr.name in self._python_names \
                or any(isinstance(n, A.Name) and n.id == item for part in (value, key) if part is not None
                       for n in A.walk(part)):
            return None
        self.check(attr, scope.child(**{item: local(item)}))  # reported as in the loop: an unknown attribute
        key_code = "None" if key is None else self.expr(key, scope)
        self.read("S")
        return (f"S.tally({binding.part}, {key_code}, {self.expr(loop.iterable, scope)}, {attr.name!r}, "
                f"{self.expr(value, scope)})")

    def _loop(self, b: Builtin, comp: A.Comprehension, scope: Scope) -> str:
        """any/all/first (a built-in with a `loop`) of a generator comprehension, as a call of a function whose
        body is the loop itself: it stops at the answer as the generator would, at a fraction of the cost (no
        generator, no built-in pulling from it). The locals it reads become the function's parameters."""
        clauses, inner = [], scope
        self._reads.append(set())
        self._binds.append(set())
        try:
            for clause in comp.fors:
                iterable, targets, inner, conds = self._clause(clause, inner)
                clauses.append((tuple(targets.split(", ")), iterable, [E.Guard(c, E.Continue()) for c in conds]))
            body = [E.Return(self.expr(comp.elt, inner))] if b.loop == "first" else \
                self._decide(b.loop, comp.elt, inner)
        finally:
            reads, binds = self._reads.pop(), self._binds.pop()
        for names, iterable, guards in reversed(clauses):
            body = [E.For(names, iterable, guards + body)]
        body.append(E.Return({"any": "False", "all": "True", "first": "None"}[b.loop]))
        loads = reads - binds
        if "_cells" in loads:  # at(x) reads the board as _cells[x]: bound here, as in every generated function
            body.insert(0, E.Assign("_cells", "S.cells"))
            loads |= {"S"}
        params = tuple(sorted(loads - {"_cells"}, key=lambda n: (n not in ("S", "me"), n)))
        key = E.render(E.Function("f", params, body))
        name = self._loops.get(key)
        if name is None:
            name = self._loops[key] = f"H_{len(self._loops)}"
            tree = E.Function(name, params, body)
            source = E.render(tree)
            verify(source)
            exec(compile(source, self.code_file, "exec"), self.namespace)  # noqa: S102 - verified generated code
            self.namespace[name].source, self.namespace[name].tree = source, tree
        call = f"{name}({', '.join(params)})"
        self.read(call)
        return call

    def _inline(self, node: A.Call, scope: Scope) -> str | None:
        """A call of one of the rule file's short functions (see `expansions`) whose arguments are names or
        constants, as the function's own body with its parameters standing for them: the same value, with
        no call. None when it does not qualify (too long, recursive, or an argument that is worked out)."""
        params, body, home = self.expansions[node.func]
        if node.func in self._inlining or node.kwargs or len(node.args) != len(params):
            return None
        mark = self._mark()
        code = self._inlined(node, params, body, home, scope)
        if code is None:  # (compiled as a call after all: what the body read is not in the code)
            self._back_to(mark)
        return code

    def _inlined(self, node: A.Call, params: list, body: A.Node, home: Scope, scope: Scope) -> str | None:
        bindings = {}
        for param, arg in zip(params, node.args):
            known, value = self.const_value(arg, scope)
            if known:
                bindings[param] = Binding("", const=value, is_const=True)
                continue
            mark = self._mark()  # (what it reads is read where the body reads the parameter, if it does)
            code = self.expr(arg, scope)
            self._back_to(mark)
            if not _ATOM.match(code):
                return None
            found = scope.lookup(arg.id) if isinstance(arg, A.Name) else None
            bindings[param] = Binding(code, numeric=found is not None and found.numeric, kind="local",
                                      depth=found.depth if found is not None else None)
        self._inlining.append(node.func)
        try:
            code = self.expr(body, home.child(**bindings))
        except CompileProblem:  # reported where the function is defined
            return None
        finally:
            self._inlining.pop()
        return code if len(code) <= INLINE_CHARS else None

    def _looped(self, node) -> tuple | None:
        """(loop kind, comprehension) when `node` is any() or all() of a generator comprehension."""
        b = self.builtins.get(node.func) if isinstance(node, A.Call) else None
        if b is None or b.loop not in ("any", "all") or len(node.args) != 1 or node.kwargs:
            return None
        comp = node.args[0]
        return (b.loop, comp) if isinstance(comp, A.Comprehension) and comp.generator else None

    def _decide(self, kind: str, item: A.Node, scope: Scope) -> list:
        """Statements, inside the loop of an any (`kind`) or all, that return its answer when `item` decides it
        and go on otherwise. An item that is itself an any or all runs as a loop in place: of the same kind,
        its items decide the outer answer directly; of the other kind (any of all: some line whose cells all
        hold), its one loop breaks at an item that settles its own answer the other way, and the answer is
        returned when the loop runs to its end (`else`)."""
        inner = self._looped(item)
        verdict = E.Return("True" if kind == "any" else "False")
        if inner is None or (inner[0] != kind and len(inner[1].fors) != 1):
            code = self.expr(item, scope)
            return [E.If(code, [verdict])] if kind == "any" else [E.Guard(code, verdict)]
        self.check_call(item)
        inner_kind, comp = inner
        levels = []
        for clause in comp.fors:
            iterable, targets, scope, conds = self._clause(clause, scope)
            levels.append((tuple(targets.split(", ")), iterable, [E.Guard(c, E.Continue()) for c in conds]))
        if inner_kind == kind:
            body, orelse = self._decide(kind, comp.elt, scope), []
        else:
            code = self.expr(comp.elt, scope)
            body = [E.If(code, [E.Break()])] if inner_kind == "any" else [E.Guard(code, E.Break())]
            orelse = [verdict]
        for names, iterable, guards in reversed(levels):
            body, orelse = [E.For(names, iterable, guards + body, orelse)], []
        return body

    def call_code(self, node: A.Call, b: Builtin, scope: Scope) -> str:
        tally = self._tally(node, b, scope)
        if tally is not None:
            return tally
        if node.func in self.expansions:
            inlined = self._inline(node, scope)
            if inlined is not None:
                return inlined
        if b.loop is not None and len(node.args) == 1 and not node.kwargs \
                and isinstance(node.args[0], A.Comprehension) and node.args[0].generator:
            return self._loop(b, node.args[0], scope)
        args, items = [], None
        for a in node.args:
            if isinstance(a, A.Comprehension) and a.generator:
                code, items = self._comprehension(a, scope)
                args.append("(" + code + ")")
            else:
                args.append(self.expr(a, scope))
        # a keyword that is a Python word (e.g. set_attr(c, class=1)) is passed through a dict
        kwargs = [f"**{{{k!r}: {self.expr(v, scope)}}}" if keyword.iskeyword(k) else f"{k}={self.expr(v, scope)}"
                  for k, v in node.kwargs]
        if b.over_comprehension is not None and len(node.args) == 1 and not kwargs \
                and isinstance(node.args[0], A.Comprehension) and node.args[0].generator:
            code = b.over_comprehension.format(args[0][1:-1])
            if code.startswith("["):  # the call is the list of the items itself
                return self._nested(code, (items[0] + 1, items[1] + 1))
            return "(" + code + ")"
        if items is not None and node.func in _COLLECTING:
            return self._nested(self._call_code(node, b, scope, args, kwargs), (items[0] + 1, items[1] + 1))
        return self._call_code(node, b, scope, args, kwargs)

    def _call_code(self, node: A.Call, b: Builtin, scope: Scope, args: list, kwargs: list) -> str:
        """The Python of a call of a built-in (or of a function of the file), given its arguments' code."""
        if b.fold and all(self.const_value(a, scope)[0] for a in node.args) and \
                all(self.const_value(v, scope)[0] for _, v in node.kwargs):
            values = [self.const_value(a, scope)[1] for a in node.args]
            kw = {k: self.const_value(v, scope)[1] for k, v in node.kwargs}
            try:
                return self.const(checked.within(b.fn(*values, **kw)))  # a value, as deep as one may be
            except Exception as exc:  # noqa: BLE001 - report the rule's own mistake at compile time
                raise CompileProblem(_refusal(b.name, exc), node.start, node.end, f"usage: {b.signature}",
                                     code="bad_argument", function=b.name) from None
        if b.specialise is not None:
            known = {}
            for i, a in enumerate(node.args):
                is_const, value = self.const_value(a, scope)
                if is_const:
                    known[i] = value
            try:
                found = b.specialise(known, tuple(k for k, _ in node.kwargs), len(node.args))
            except RuleValueError as exc:  # a constant argument that can never work: say so at load time
                raise CompileProblem(_refusal(b.name, exc), node.start, node.end, f"usage: {b.signature}",
                                     code="bad_argument", function=b.name) from None
            if found is not None:
                fast, used = found
                if b.state:
                    self.read("S")
                rest = (["S"] if b.state else []) + [a for i, a in enumerate(args) if i not in used]
                rest += [self.expr(v, scope) for _, v in node.kwargs]  # keyword values, in call order
                return f"{self.const(fast)}({', '.join(rest)})"
        if b.inline is not None and not kwargs:
            self.read(b.inline)
            return "(" + b.inline.format(*args) + ")"
        if b.state:
            self.read("S")
            args.insert(0, "S")
        if kwargs and b.fn is not None:
            # keywords that are simply the next parameters are passed by position: a cheaper call
            slots = _parameter_slots(b.fn)
            wanted = {slots.get(k): self.expr(v, scope) for k, v in node.kwargs}
            if set(wanted) == set(range(len(args), len(args) + len(wanted))):
                return f"F_{b.name}({', '.join(args + [wanted[i] for i in sorted(wanted)])})"
        return f"F_{b.name}({', '.join(args + kwargs)})"

    # -- statements --------------------------------------------------------------------------
    def target(self, node: A.Node, scope: Scope, declare: dict) -> tuple[str, str | None]:
        """Python source of an assignment target, and of the list or table it is an item of (None for a name); a
        new bare name becomes an effect-local variable."""
        if isinstance(node, A.Name):
            b = scope.lookup(node.id)
            if b is None:
                b = local(node.id)
                b.temp, b.type = True, NOTHING  # typed by every value the effects give it (see infer.Typer._given)
                declare[node.id] = b
                scope.names[node.id] = b
                return b.code, None
            if not b.assignable and b.kind == "var":
                index = "key" if b.keyed else "p"
                raise CompileProblem(f"'{node.id}' holds one value per player (or per key) and cannot be assigned "
                                     "as a whole", node.start, node.end,
                                     f"assign one of its values: {node.id}[{index}] = ...", code="not_assignable",
                                     name=node.id)
            if b.is_const and b.kind == "value":
                raise _constant_assigned(node, node)
            if not b.assignable:
                raise CompileProblem(f"'{node.id}' cannot be assigned", node.start, node.end,
                                     "assign to a variable declared under 'vars:' or to a new local name",
                                     code="not_assignable", name=node.id)
            return b.code, None
        if isinstance(node, A.Index):
            root = node.obj
            while isinstance(root, A.Index):
                root = root.obj
            b = scope.lookup(root.id) if isinstance(root, A.Name) else None
            if b is not None and b.kind == "zone":
                raise CompileProblem(f"the pieces of zone '{root.id}' cannot be assigned", node.start, node.end,
                                     "zones change through place(), move() and remove()", code="not_assignable",
                                     name=root.id)
            if b is not None and b.is_const and b.kind == "value":
                raise _constant_assigned(root, node)
            obj, index = self.expr(node.obj, scope), self.expr(node.index, scope)
            if b is not None and b.keyed and node.obj is root:  # the keys are fixed: a new one is refused
                return f"{obj}[G_key({obj}, {index}, {root.id!r})]", obj
            return f"{obj}[{index}]", obj
        if isinstance(node, A.Attr):
            raise CompileProblem("attributes cannot be assigned directly", node.start, node.end,
                                 "pieces are values: use set_attr(cell, name, value) to change a piece",
                                 code="not_assignable", name=node.name)
        raise CompileProblem("cannot assign to this", node.start, node.end, code="not_assignable")  # pragma: no cover

    def _counted_write(self, target: A.Node, scope: Scope) -> str | None:
        """The line that counts an assignment to `target` as a write to the part of the position it changes
        (see model.position.Position.changes); None when it changes only a local name."""
        item = isinstance(target, A.Index)
        while isinstance(target, A.Index):
            target = target.obj
        binding = scope.lookup(target.id) if isinstance(target, A.Name) else None
        if binding is not None and binding.part is not None:
            return f"S.changes[{binding.part}] += 1"
        if item and (binding is None or binding.kind == "local"):
            return "S.changed()"  # an item of a local value, which may be a zone's or variable's own table
        return None

    def _fits_in_item(self, node: A.Node, scope: Scope) -> bool:
        """Whether a value is known to fit as an item of any list or table: built from numbers and constants only
        (so it cannot hold the list or table itself), it nests less deep than the limit."""
        a, r = self.depth_of(node, scope)
        return r < ABSENT // 2 and a < MAX_VALUE_DEPTH

    def held_bound(self, node: A.Node, scope: Scope) -> int | None:
        """The most items the expression's value may hold (see lang/held.py), when known at compile time: none for a
        number, true or false, or none; a constant's own; a name's bound (see Binding.held). None: not known."""
        if isinstance(node, A.IfElse):  # (nested only as deep as the expression: the limit on nesting)
            bounds = (self.held_bound(node.then, scope), self.held_bound(node.other, scope))
            return None if None in bounds else max(bounds)
        known, value = self.const_value(node, scope)
        if known:
            count = held_items(value, _SMALL)
            return count if count <= _SMALL else None
        if isinstance(node, A.Name):
            binding = scope.lookup(node.id)
            if binding is not None and binding.held is not None:
                return binding.held
        plain = isinstance(node, A.Compare) or isinstance(node, A.UnaryOp) and node.op == "not" or \
            self._numeric(node, scope)
        return 0 if plain else None

    def _held_write(self, target: A.Node, scope: Scope) -> tuple[bool, int]:
        """How an assignment to `target` counts towards what the position holds (Position.held): (whether it may
        write into the position, how many items it may add besides those of its value: 2 where it may add an
        entry to a table). A local name is the function's own; an item of one may be a place of a zone or a
        variable, or inside one."""
        if isinstance(target, A.Name):
            binding = scope.lookup(target.id)
            return binding is not None and binding.part is not None, 0
        root, depth = target, 0
        while isinstance(root, A.Index):
            root, depth = root.obj, depth + 1
        binding = scope.lookup(root.id) if isinstance(root, A.Name) else None
        # a place of a variable per player or per key is one it has: never a new entry
        existing = depth == 1 and binding is not None and binding.kind == "var" and not binding.assignable
        return True, 0 if existing else 2

    def stmt(self, node: A.Node, scope: Scope) -> list[str]:
        """Python source lines for one statement."""
        if isinstance(node, A.Assign):
            value = self.expr(node.value, scope)
            if node.op != "=" and isinstance(node.target, A.Name) and scope.lookup(node.target.id) is None:
                close = close_names(node.target.id, scope.all_names())
                raise CompileProblem(f"unknown name '{node.target.id}'", node.target.start, node.target.end,
                                     suggestion(close), code="unknown_name", quiet=node.target.id in self.withdrawn,
                                     name=node.target.id, candidates=close)
            target, holder = self.target(node.target, scope, {})
            # what the position gains by the write counts towards what it holds (Position.held); an item that is
            # given a new value (op other than =) has one already, and is no new entry of a table
            counts, entry = self._held_write(node.target, scope)
            entry = entry if node.op == "=" else 0
            # an item put into a list or table nests it deeper, and could be the list itself
            nests = holder is not None and node.op in ("=", "+=") and not self._fits_in_item(node.value, scope)
            nest = (lambda rhs: f"G_item({holder}, {rhs})") if nests else (lambda rhs: rhs)
            lines = []
            if node.op in _AUGMENTED and not (node.op == "+=" and self._numeric(node.value, scope)):
                # a new value, never the old one changed in place: a list held elsewhere too stays as it was
                if node.op == "+=":  # the new value holds the old one's items and the value's: those are new
                    bound = self.held_bound(node.value, scope) if counts else 0
                    lines.append(f"{target} = {nest(f'G_add({target}, {_hold(value) if bound is None else value})')}")
                    if bound:
                        lines.append(f"S.held += {bound}")
                else:  # a list repeated holds its items as often: the whole new value counts
                    result = f"{_AUGMENTED[node.op]}({target}, {value})"
                    lines.append(f"{target} = {nest(_hold(result) if counts else result)}")
            else:
                bound = 0 if node.op != "=" else self.held_bound(node.value, scope)
                if counts and bound is None:
                    lines.append(f"{target} = {nest(_hold(value, entry))}")
                else:  # what it holds is known (a number holds nothing): counted as a number, with no call
                    lines.append(f"{target} = {nest(value)}" if nests else f"{target} {node.op} {value}")
                    if counts and entry + bound:
                        lines.append(f"S.held += {entry + bound}")
            counted = self._counted_write(node.target, scope)
            return lines if counted is None else lines + [counted]
        if isinstance(node, A.CallStmt):
            b = self.check_call(node.call)
            return [self.call_code(node.call, b, scope)]
        raise CompileProblem("not a statement", node.start, node.end, code="syntax")  # pragma: no cover
