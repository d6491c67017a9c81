"""The Python the interpreter runs, printed from the IR: expressions and statements (nodes.py) as Python source,
evaluated once into closures. Names are read through the compiler bindings their Refs carry (lang/compiler.py)."""

from __future__ import annotations

import inspect
import keyword
import re
from functools import lru_cache

from ..errors import close_names, suggestion
from ..lang import checked
from ..lang import emit as E
from ..lang import types as T
from ..lang.builtins import Builtin, RuleValueError
from ..lang.declare import CONDITIONED_LOOPS
from ..lang.compiler import ABSENT, EXISTING, GUARDS, RULE_CODE_FILE, SCALAR, Binding, CompileProblem, local
from ..lang.constants import frozen
from ..lang.held import items as held_items
from ..lang.reach import python_names
from ..lang.verify import verify
from ..limits import MAX_EXPR_DEPTH, MAX_VALUE_DEPTH, LimitExceeded
from . import nodes as N

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
_SCALAR_KINDS = frozenset({T.NONE, T.BOOL, T.INT, T.FLOAT, T.TEXT})  # values that hold no others
_NUMERIC_BUILTINS = {"size", "count", "abs", "int", "floor", "ceil", "index_of", "longest_run"}
# built-ins that make a list of the items of a comprehension given them: one level over those items
_COLLECTING = {"sorted", "distinct"}
# Names of generated code that are local to the function they are in (the state, the player, parameters, lets
# and loop variables, and `_cells`, bound from the state), and so are passed to a loop compiled as a function of
# its own; as they stand in the compiler's own text (a binding's code, a built-in's template), never an attribute.
_LOCAL = re.compile(r"(?<![\w.])(S|me|_cells|L_\w+|C\d+_\w+)\b")
# Arguments cheap and safe to read more than once: a call of a short function with only these is compiled into
# its caller (see Compiler._inline); and how short, in the syntax nodes of its body and the characters of its code.
_ATOM = re.compile(r"(L_\w+|C\d+_\w+|me|K\d+|S\.player|S\.turn|\(?-?\d+\)?|'[\w .-]*'|True|False|None)\Z")
INLINE_NODES, INLINE_CHARS = 40, 120
_PY_CMP = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "in": "in", "notin": "not in"}


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


def _hold(code: str, entry: int = 0) -> str:
    """`code` (a value about to be written into the position) counted towards what the position holds."""
    return f"G_hold(S, {code}, {entry})" if entry else f"G_hold(S, {code})"


def _span(node: N.Node) -> tuple[int, int]:
    """Where `node` is written in its rule-file string: the characters [start, end) a problem with it points at."""
    return node.at[1], node.at[2]


def _constant_assigned(name: N.Ref, target: N.Node) -> CompileProblem:
    """The problem of an assignment to a constant (data, a let, a region, the seats) or to an item of one."""
    hint = f"keep what changes in a variable declared under 'vars:' (e.g. init: {name.name})"
    if target is not name:  # an item: a changed copy may do
        hint += f", or change a copy: xs = list({name.name}), then xs[...] = ..."
    return CompileProblem(f"'{name.name}' is a constant of the rule file (data, a let, a region or a name of the "
                          "language) and cannot be changed", *_span(target), hint, code="not_assignable",
                          name=name.name)


def _refusal(name: str, exc: Exception) -> str:
    """The message of built-in `name` refusing constant arguments (named once, whoever raised it)."""
    text = str(exc)
    return text if text.startswith(f"{name}(): ") else f"{name}(): {text}"


def _root(node: N.Node) -> tuple[N.Node, int]:
    """The value an item is taken from (`xs` of `xs[i][j]`), and how many indexes deep the item is."""
    depth = 0
    while isinstance(node, N.Index):
        node, depth = node.obj, depth + 1
    return node, depth


class Compiler:
    """Prints IR nodes as Python source; constants and built-ins live in `namespace`.

    A name is printed as its Ref's binding says, but for the names the printer binds itself: a comprehension's
    variables (named as they are printed, see loop_local) and a function's parameters where its body is compiled
    into a caller (see _inline), looked up in `_bound` first."""

    def __init__(self, builtins: dict[str, Builtin], namespace: dict, attributes: set[str] | None = None):
        self.builtins = builtins
        self.namespace = namespace
        self.attributes = attributes  # known attribute names, for 'did you mean'; None: unchecked
        self._consts: dict = {}
        self._depths: dict = {}  # id of a constant -> (the constant, how deep it nests)
        self.attribute_depths: dict = {}  # attribute name -> how deep its values nest, where known (see depth_of)
        self.piece_attribute_depths: dict = {}  # the same for the attributes of pieces
        self._fresh = 0  # comprehension variables renamed so as not to hide an outer name (loop_local)
        self._loops: dict = {}  # source of a loop function -> its name (one function for loops written alike)
        self.code_file = RULE_CODE_FILE + "expression>"  # the file name loop functions are compiled under
        # Rewrites of a comprehension's loop that read the same items from somewhere cheaper: each is
        # fn(compiler, clause) -> (iterable code, the conditions still to test) or None (see _clause)
        self.scans: list = []
        # name -> (the bindings of its params, its body) of the rule file's functions that may be compiled into
        # their callers
        self.expansions: dict = {}
        self._inlining: list = []  # the functions being compiled into a caller, innermost last
        self._depth = 0  # nesting of the expression being compiled
        # id(binding of a Ref) -> (that binding, the binding printed instead) (see the class): one table per
        # function compiled into a caller, innermost last
        self._bound: list[dict] = [{}]
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

    # -- names ---------------------------------------------------------------------------------------
    def binding(self, ref: N.Ref) -> Binding:
        """What `ref` stands for where it is printed (see the class)."""
        key = id(ref.binding)
        for bound in reversed(self._bound):
            found = bound.get(key)
            if found is not None:
                return found[1]
        return ref.binding

    def bind(self, ref: N.Ref, binding: Binding) -> None:
        """Print `ref`, and every Ref of the same binding, as `binding` from here on."""
        self._bound[-1][id(ref.binding)] = (ref.binding, binding)  # (kept: while it lives, its id is its own)

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

    def check(self, node: N.Node) -> None:
        """Compile `node` for its problems only (CompileProblem); its code is dropped."""
        mark = self._mark()
        try:
            self.expr(node)
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
    def expr(self, node: N.Node) -> str:
        if not self._depth and not self._inlining:  # (what the printer bound for an expression before is done with)
            self._bound = [{}]
        self._depth += 1
        try:
            if self._depth > MAX_EXPR_DEPTH:
                start, end = _span(node)
                raise CompileProblem(f"this expression is nested too deeply (more than {MAX_EXPR_DEPTH} "
                                     "levels)", start, max(start + 1, end), "split it into functions or lets",
                                     code="limit_exceeded", limit="MAX_EXPR_DEPTH")
            return getattr(self, "_" + type(node).__name__)(node)
        finally:
            self._depth -= 1

    def const_value(self, node: N.Node):
        """(True, value) when the expression is a compile-time constant, else (False, None)."""
        if isinstance(node, N.Const):
            return True, node.value
        if isinstance(node, N.Ref):
            b = self.binding(node)
            if b.is_const:
                return True, b.const
        if isinstance(node, N.Attr) and isinstance(node.obj, N.Ref):
            b = self.binding(node.obj)
            if b.kind == "option":
                return True, self._option(node, b)
        if isinstance(node, N.Unary) and node.op == "-":  # -1
            known, value = self.const_value(node.operand)
            if known and type(value) in (int, float):
                return True, -value
        if isinstance(node, N.Call):  # a pure built-in of constants, e.g. size(colours), is folded too
            return self._folded(node)
        return False, None

    def _folded(self, node: N.Call):
        """(True, value) of a call of a pure built-in with constant arguments, else (False, None)."""
        b = self.builtins.get(node.func)
        if b is None or not b.fold or node.kwargs or any(isinstance(a, N.Comp) for a in node.args):
            return False, None
        values = [self.const_value(a) for a in node.args]
        if not all(known for known, _ in values):
            return False, None
        try:
            return True, b.fn(*(value for _, value in values))
        except Exception:  # noqa: BLE001 - not a constant after all: compiled as a call, which reports it
            return False, None

    def _Const(self, node):
        return self.const(node.value)

    def _Ref(self, node):
        b = self.binding(node)
        if b.kind == "unknown":
            start, end = _span(node)
            if node.name in self.builtins:
                raise CompileProblem(f"'{node.name}' is a function: call it as {self.builtins[node.name].signature}",
                                     start, end, code="misused_name", name=node.name)
            close = close_names(node.name, b.const | {"true", "false", "none"})
            hint = b.hint or suggestion(close) or "names are parameters, variables, zones, regions, tables and " \
                                                "'me', 'player', 'players'"
            raise CompileProblem(f"unknown name '{node.name}'", start, end, hint, code="unknown_name",
                                 quiet=node.name in self.withdrawn, name=node.name, candidates=close)
        if b.kind == "option":
            raise CompileProblem("write option.<name> to read an option", *_span(node), code="misused_name",
                                 name=node.name)
        if b.kind == "later":  # a let that waits for a later stage of the load (see _LATER)
            uses, built, hint = _LATER.get(b.const, _LATER["board"])
            raise CompileProblem(f"'{node.name}' {uses}, so it is worked out after {built}, which cannot read it",
                                 *_span(node), hint, code="misused_name", name=node.name)
        if b.kind == "broken":  # its definition has a problem, reported there
            raise CompileProblem(f"'{node.name}' is not defined (see its own error)", *_span(node), quiet=True)
        if b.is_const:
            return self.const(b.const)
        self.read(b.code)
        return b.code

    def _Display(self, node):
        return self._nested(self._display(node), self._holding(_display_items(node)))

    def _display(self, node: N.Display) -> str:
        """The Python of a list, tuple or table written out, as it is: unchecked."""
        if node.kind == "list":
            return "[" + ", ".join(self.expr(i) for i in node.items) + "]"
        if node.kind == "tuple":
            return "(" + "".join(self.expr(i) + ", " for i in node.items) + ")"
        return "{" + ", ".join(f"{self.expr(k)}: {self.expr(v)}" for k, v in node.items) + "}"

    def transient(self, node: N.Node) -> str:
        """The Python of an expression whose value is used and dropped, never kept: a key looked up, what `in`
        looks in, what a loop runs over. Written out as a list, tuple or table, it nests no value deeper than any
        kept, so it is built unchecked (what is kept of it, its items, exists already)."""
        if isinstance(node, N.Display):
            return self._display(node)
        return self.expr(node)

    # -- how deep values nest ------------------------------------------------------------------
    @staticmethod
    def _nested(code: str, depth: tuple) -> str:
        """The code of a value built to hold others, checked at run time (see checked.nested) unless what the
        compiler knows of it (`depth`, see depth_of) shows it can nest no deeper than the limit allows."""
        return code if fits(depth) else f"G_nest({code})"

    def _holding(self, items) -> tuple:
        """How deep a list, tuple or table of these items nests (see depth_of)."""
        found = [self.depth_of(item) for item in items]
        return (1 + max((a for a, _ in found), default=0), 1 + max((r for _, r in found), default=ABSENT))

    def depth_of(self, node: N.Node) -> tuple:
        """What the compiler knows of how deep an expression's values nest: (absolute, relative), the value nesting
        at most `absolute` deep, or at most `relative` levels deeper than some value that exists already
        (ABSENT: no part of that kind). A value that exists was built under these checks, or by the engine a
        few levels over such values, so only a value built over one (relative >= 1) can nest deeper than any
        before: a display of a variable, say, but not a comprehension of the items of a list (relative 0, as
        deep as the list at most), nor a display of numbers and constants (absolute, known here)."""
        known, value = self.const_value(node)
        if known:
            return self._const_depth(value), ABSENT
        if node.type is not None and T.kinds(node.type) <= _SCALAR_KINDS:  # typed a number, text or none
            return SCALAR
        if isinstance(node, N.Ref):
            binding = self.binding(node)
            if binding.numeric:
                return SCALAR
            return binding.depth if binding.depth is not None else EXISTING
        if isinstance(node, (N.Unary, N.Compare, N.Range)):  # a number, a truth value or a range, or an error
            return SCALAR
        if isinstance(node, N.Index):  # an item of a value
            a, r = self.depth_of(node.obj)
            return a - 1, r - 1
        if isinstance(node, N.Slice):
            return self.depth_of(node.obj)
        if isinstance(node, (N.Binary, N.Logic, N.Cond)):
            # the operands: no operator nests them deeper (a sum of lists holds the items of both; a or b is one)
            if isinstance(node, N.Binary) and self._numeric(node):
                return SCALAR
            parts, found = [node], []
            while parts:  # down long runs of operators without recursion
                part = parts.pop()
                if isinstance(part, (N.Binary, N.Logic)):
                    parts += [part.left, part.right]
                elif isinstance(part, N.Cond):
                    parts += [part.then, part.other]
                else:
                    found.append(self.depth_of(part))
            return max(a for a, _ in found), max(r for _, r in found)
        if isinstance(node, N.Display):
            return self._holding(_display_items(node))
        if isinstance(node, N.Call) and (node.func in _NUMERIC_BUILTINS or self._looped(node) is not None):
            return SCALAR
        if isinstance(node, N.Call) and node.func in self.builtins and self.builtins[node.func].yields is not None:
            return 1, ABSENT  # a list of cells or of players
        if isinstance(node, N.Attr):  # the attribute of a piece (at a cell), else of anything
            on_piece = isinstance(node.obj, N.Call) and node.obj.func == "at"
            return (self.piece_attribute_depths if on_piece else self.attribute_depths).get(node.name, EXISTING)
        if isinstance(node, N.Call) and node.func in ("first", "last") and node.args and not node.kwargs \
                and not (isinstance(node.args[0], N.Comp) and node.args[0].generator):
            # an item of the list, or the default
            (a, r), found = self.depth_of(node.args[0]), [self.depth_of(n) for n in node.args[1:]]
            return max([a - 1] + [d[0] for d in found]), max([r - 1] + [d[1] for d in found])
        # an attribute (a field or an attribute value, which exists), a call (a built-in builds under these
        # checks, or returns a value it was given; a function of the file is an expression compiled with them)
        return EXISTING

    def know_items(self, clause: N.Clause, bindings: list) -> None:
        """What is known of the variables of a comprehension's loop: a number, over a range; else items of the
        collection (one level inside it, two when a loop unpacks each item). Only of variables nothing assigns:
        what was known of a name would not hold after it is given another value (a loop of effects, say)."""
        if isinstance(clause.iterable, N.Range) and len(bindings) == 1:
            bindings[0].numeric = True
            return
        a, r = self.depth_of(clause.iterable)
        inside = 1 if len(bindings) == 1 else 2
        for binding in bindings:
            binding.depth = (a - inside, r - inside)

    def _const_depth(self, value) -> int:
        """How deep a constant nests (worked out once for each constant)."""
        key = id(value)
        found = self._depths.get(key)
        if found is None:  # the value is kept with it: while it lives, no other object takes its id
            found = self._depths[key] = (value, checked.depth(value))
        return found[1]

    def _Binary(self, node):
        # a run of left-associative operators of one precedence (a + b - c + ...) is read as one level,
        # so that a long sum neither nests Python's parentheses nor recurses
        operands, ops = [node.right], [node.op]
        left = node.left
        while isinstance(left, N.Binary) and node.op != "**" and _PRECEDENCE[left.op] == _PRECEDENCE[node.op]:
            operands.append(left.right)
            ops.append(left.op)
            left = left.left
        operands.append(left)
        operands.reverse()
        ops.reverse()
        codes = [self.expr(o) for o in operands]
        if len(ops) > LONG_CHAIN:
            return f"G_chain(({''.join(c + ', ' for c in codes)}), {tuple(ops)!r})"
        code, numeric = codes[0], self._numeric(operands[0])
        small = self._small_constant(operands[0])
        for op, operand, right in zip(ops, codes[1:], operands[1:]):
            code = f"({code} {_PY_BINOP[op]} {operand})" if self._plain(op, numeric, small, right) else \
                f"{_CHECKED[op]}({code}, {operand})"
            numeric, small = _NUMERIC_RESULT.get(op, False) or numeric and op == "+", False
        return code

    def _plain(self, op: str, left_numeric: bool, left_small: bool, right: N.Node) -> bool:
        """Whether `op` may run unchecked: it cannot build a large value, nor format text, in one step."""
        if op not in _CHECKED:
            return True
        if op == "+":  # a number plus anything is a number (or an error); a small constant adds little
            return left_numeric or left_small or self._numeric(right) or self._small_constant(right)
        if op == "%":
            return left_numeric
        if op == "*":  # a number times a fraction is a fraction (bounded), times 0, 1 or -1 no larger; times any
            # other whole number it grows a few bits each time, without end in a loop: checked
            known, value = self.const_value(right)
            return left_numeric and known and (type(value) is float or type(value) is int and abs(value) <= 1)
        return False

    def _small_constant(self, node: N.Node) -> bool:
        """Whether the expression is a constant that adding can only lengthen a little."""
        known, value = self.const_value(node)
        return known and (not isinstance(value, (str, list, tuple)) or len(value) <= _SMALL)

    def _numeric(self, node: N.Node) -> bool:
        """Whether the expression is certainly a number when it has a value (never a list or a string)."""
        while True:  # down the left of a long sum without recursion; the right side nests boundedly
            known, value = self.const_value(node)
            if known:
                return type(value) in (int, float, bool)
            if isinstance(node, N.Ref):
                return self.binding(node).numeric
            if isinstance(node, N.Unary):
                return node.op in "+-"
            if not isinstance(node, N.Binary):
                return isinstance(node, N.Call) and node.func in _NUMERIC_BUILTINS
            if _NUMERIC_RESULT.get(node.op, False):
                return True
            if node.op != "+" or self._numeric(node.right):
                return node.op == "+"
            node = node.left

    def _Unary(self, node):
        op = "not " if node.op == "not" else node.op
        return f"({op}{self.expr(node.operand)})"

    def _Logic(self, node):
        operands, left = [node.right], node.left
        while isinstance(left, N.Logic) and left.op == node.op:  # a or b or c ...: one level, not nested
            operands.append(left.right)
            left = left.left
        operands.append(left)
        return "(" + f" {node.op} ".join(self.expr(o) for o in reversed(operands)) + ")"

    def _Compare(self, node):
        parts = [self.expr(node.operands[0])]
        for op, before, operand in zip(node.ops, node.operands, node.operands[1:]):
            # x == none is x is None for every value of the language, and faster (not for a constant x: Python
            # warns of `3 is None`)
            is_none = isinstance(operand, N.Const) and operand.value is None and not self.const_value(before)[0]
            parts.append({"==": "is", "!=": "is not"}[op] if is_none and op in ("==", "!=") else _PY_CMP[op])
            known, value = self.const_value(operand)
            if op in ("in", "notin") and known and hasattr(value, "_members"):
                parts.append(self.const(value._members))  # membership in a region: a set lookup
            else:
                parts.append(self.transient(operand) if op in ("in", "notin") else self.expr(operand))
        return "(" + " ".join(parts) + ")"

    def _Cond(self, node):
        return f"({self.expr(node.then)} if {self.expr(node.test)} else {self.expr(node.other)})"

    def _Range(self, node):
        (low_known, low), (high_known, high) = self.const_value(node.low), self.const_value(node.high)
        if low_known and high_known and isinstance(low, int) and isinstance(high, int):
            try:
                return self.const(checked.inclusive_range(low, high))
            except LimitExceeded as exc:
                raise CompileProblem(str(exc), *_span(node), "ranges are for counting a few things: "
                                     "keep them small", code="limit_exceeded", limit="MAX_ITEMS") from None
        return f"G_range({self.expr(node.low)}, {self.expr(node.high)})"

    def _option(self, node: N.Attr, binding: Binding):
        options = binding.const
        if node.name not in options:
            close = close_names(node.name, options)
            end = node.at[2]
            raise CompileProblem(f"unknown option '{node.name}'", end - len(node.name), end,
                                 suggestion(close) or f"options of this game: {', '.join(sorted(options)) or 'none'}",
                                 code="unknown_option", name=node.name, candidates=close)
        return options[node.name]

    def _Attr(self, node):
        if isinstance(node.obj, N.Ref):
            b = self.binding(node.obj)
            if b.kind == "option":
                return self.const(self._option(node, b))
        if self.attributes is not None and node.name not in self.attributes:
            close = close_names(node.name, self.attributes)
            end = node.at[2]
            raise CompileProblem(f"unknown attribute '{node.name}'", end - len(node.name), end,
                                 suggestion(close) or "attributes are declared on cells, pieces and players",
                                 code="unknown_attribute", name=node.name, candidates=close)
        if node.name.startswith("_"):  # the parser refuses such names: this is a second line of defence
            raise CompileProblem(f"'{node.name}': names cannot begin with '_'", *_span(node), code="syntax")
        if keyword.iskeyword(node.name) or node.name in self._python_names:
            # a name Python gives some value (count, index, a keyword such as 'from'): read the field only
            return f"G_field({self.expr(node.obj)}, {node.name!r})"
        return f"({self.expr(node.obj)}).{node.name}"  # in brackets: a number folded at load, 1.x, is (1).x

    def _Index(self, node):
        return f"{self.expr(node.obj)}[{self.transient(node.index)}]"

    def _Slice(self, node):
        low = self.expr(node.low) if node.low else ""
        high = self.expr(node.high) if node.high else ""
        return f"{self.expr(node.obj)}[{low}:{high}]"

    def loop_local(self, name: str, shadows: bool) -> Binding:
        """A loop variable, `shadows` a name around it. Python makes a comprehension's variable local to the whole
        comprehension, while in the rules language (and the reference evaluator) the iterables and conditions
        before it still see an outer name it shadows: a shadowing variable therefore gets a Python name of its
        own (and a `for:` effect's never overwrites a parameter or local outside the loop)."""
        if not shadows and not self._inlining:
            binding = local(name)
        else:
            # (in a function compiled into its caller, every loop variable is renamed: it may otherwise take the
            # Python name of a caller's variable that a parameter stands for)
            self._fresh += 1
            binding = Binding(f"C{self._fresh}_{name}", assignable=True, kind="local")
        if self._binds:
            self._binds[-1].add(binding.code)
        return binding

    def _clause(self, clause: N.Clause) -> tuple[str, str, list]:
        """(iterable code, loop targets code, the conditions' code) of one `for` clause of a comprehension, its
        names bound from here on; a registered scan may read its items from somewhere cheaper, leaving some of
        its conditions to test."""
        conds = clause.conds
        for scan in self.scans:
            found = scan(self, clause)
            if found is not None:
                iterable, conds = found
                break
        else:
            iterable = self.transient(clause.iterable)
        bindings = [self.loop_local(t.name, t.binding.shadows) for t in clause.targets]
        self.know_items(clause, bindings)
        for target, binding in zip(clause.targets, bindings):
            self.bind(target, binding)
        return iterable, ", ".join(b.code for b in bindings), [self.expr(c) for c in conds]

    def _comprehension(self, node: N.Comp) -> tuple[str, tuple]:
        """The code of a comprehension's loop (without its brackets), and how deep its items nest (see depth_of)."""
        clauses = []
        for clause in node.clauses:
            iterable, targets, conds = self._clause(clause)
            clauses.append(f"for {targets} in {iterable}")
            clauses.extend(f"if {c}" for c in conds)
        return f"{self.expr(node.elt)} " + " ".join(clauses), self.depth_of(node.elt)

    def _Comp(self, node):
        code, (a, r) = self._comprehension(node)
        return self._nested("[" + code + "]", (a + 1, r + 1))

    def check_call(self, node: N.Call) -> Builtin:
        b = self.builtins.get(node.func)
        start, end = _span(node)
        if b is None:
            close = close_names(node.func, self.builtins)
            raise CompileProblem(f"unknown function '{node.func}'", start, start + len(node.func),
                                 suggestion(close) or _PYTHON_HINTS.get(node.func) or
                                 "see the language reference for the built-in functions", code="unknown_function",
                                 name=node.func, candidates=close)
        n = len(node.args)
        if n < b.min_args or (b.max_args is not None and n > b.max_args):
            want = (f"{b.min_args}" if b.min_args == b.max_args else
                    f"at least {b.min_args}" if b.max_args is None else f"{b.min_args} to {b.max_args}")
            raise CompileProblem(f"{b.name}() takes {want} argument{'' if want == '1' else 's'}, got {n}",
                                 start, end, f"usage: {b.signature}", code="wrong_arity", function=b.name,
                                 given=n, min=b.min_args, max=b.max_args)
        given = set()
        for name, value in node.kwargs:
            where = node.keyword_at.get(name, _span(value))
            if name in given:
                raise CompileProblem(f"{b.name}() is given '{name}' twice", *where, "give each keyword once",
                                     code="duplicate_keyword", function=b.name, keyword=name)
            given.add(name)
            if name not in b.keywords and "*" not in b.keywords:
                close = close_names(name, [k for k in b.keywords if k != "*"])
                raise CompileProblem(f"{b.name}() has no keyword '{name}'", *where,
                                     (suggestion(close) + " " if close else "") + f"usage: {b.signature}",
                                     code="unknown_keyword", function=b.name, keyword=name, candidates=close)
            if name in b.keywords and name in b.params[:n]:  # a parameter with a default, given by position too
                raise CompileProblem(f"{b.name}() is given '{name}' twice", *where, f"usage: {b.signature}",
                                     code="duplicate_keyword", function=b.name, keyword=name)
        if any(isinstance(a, N.Comp) and a.generator for a in node.args) and not b.aggregate:
            raise CompileProblem(f"{b.name}() does not take a comprehension", start, end,
                                 f"usage: {b.signature}; wrap it in brackets for a list: [x for x in xs]",
                                 code="bad_argument", function=b.name)
        if b.loop in CONDITIONED_LOOPS:
            comp = node.args[0] if n == 1 and not node.kwargs else None
            if not (isinstance(comp, N.Comp) and comp.generator and len(comp.clauses) == 1 and comp.clauses[0].conds):
                raise CompileProblem(f"{b.name}() takes one comprehension with a condition, which ends the list "
                                     "where it first fails", start, end,
                                     f"write {b.signature}, one `for` and its `if` read as \"while\", e.g. "
                                     f"{b.name}(c for c in ray(x, 'n') if empty(c))", code="bad_argument",
                                     function=b.name)
        if n > 1 and b.max_args is None and isinstance(node.args[0], N.Comp) and node.args[0].generator:
            # min(a, b) compares its arguments: a comprehension before more of them would be compared as one value
            raise CompileProblem(f"{b.name}() of a comprehension takes no other values", start, end,
                                 f"usage: {b.signature}", code="bad_argument", function=b.name)
        return b

    def _Call(self, node):
        b = self.check_call(node)
        if b.effect:
            raise CompileProblem(f"{b.name}() changes the game: use it as an effect, not in a condition",
                                 *_span(node), "effects are listed under 'do:'", code="effect_in_condition",
                                 function=b.name)
        return self.call_code(node, b)

    def _tally(self, node: N.Call, b: Builtin) -> str | None:
        """count(x for x in Z if x.a == v), Z a zone (or one of its places) and v not naming x, as
        Position.tally: the zone's items counted by attribute once, not once per value asked for."""
        comp = node.args[0] if b.name == "count" and len(node.args) == 1 and not node.kwargs else None
        if not (isinstance(comp, N.Comp) and comp.generator and len(comp.clauses) == 1):
            return None
        loop = comp.clauses[0]
        cond = loop.conds[0] if len(loop.targets) == 1 and len(loop.conds) == 1 else None
        if not (isinstance(cond, N.Compare) and cond.ops == ("==",) and isinstance(cond.operands[0], N.Attr)):
            return None
        item, (attr, value) = loop.targets[0], cond.operands
        zone, key = (loop.iterable.obj, loop.iterable.index) if isinstance(loop.iterable, N.Index) else \
            (loop.iterable, None)
        binding = self.binding(zone) if isinstance(zone, N.Ref) else None
        if binding is None or binding.kind != "zone" or not _reads(comp.elt, item) \
                or not _reads(attr.obj, item) or keyword.iskeyword(attr.name) \
                or attr.name in self._python_names \
                or any(_reads(n, item) for part in (value, key) if part is not None for n in N.walk(part)):
            return None
        self.bind(item, local(item.name))
        self.check(attr)  # reported as in the loop: an unknown attribute
        key_code = "None" if key is None else self.expr(key)
        self.read("S")
        return (f"S.tally({binding.part}, {key_code}, {self.expr(loop.iterable)}, {attr.name!r}, "
                f"{self.expr(value)})")

    def _loop(self, b: Builtin, comp: N.Comp) -> str:
        """any/all/first (a built-in with a `loop`) of a generator comprehension, as a call of a function whose
        body is the loop itself: it stops at the answer as the generator would, at a fraction of the cost (no
        generator, no built-in pulling from it). The locals it reads become the function's parameters."""
        clauses = []
        self._reads.append(set())
        self._binds.append(set())
        try:
            for clause in comp.clauses:
                iterable, targets, conds = self._clause(clause)
                clauses.append((tuple(targets.split(", ")), iterable, [E.Guard(c, E.Continue()) for c in conds]))
            if b.loop == "take_while":
                body = [E.Effect(f"out.append({self.expr(comp.elt)})")]
            else:
                body = [E.Return(self.expr(comp.elt))] if b.loop == "first" else self._decide(b.loop, comp.elt)
        finally:
            reads, binds = self._reads.pop(), self._binds.pop()
        if b.loop == "take_while":  # one clause (see check_call): its conditions end the loop instead of skipping
            names, iterable, guards = clauses[0]
            body = [E.Assign("out", "[]"),
                    E.For(names, iterable, [E.Guard(g.test, E.Break()) for g in guards] + body),
                    E.Return("out")]
        else:
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
        if b.loop == "take_while":  # a list of the items: as deep as they are, one more
            a, r = self.depth_of(comp.elt)
            return self._nested(call, (a + 1, r + 1))
        return call

    def _inline(self, node: N.Call) -> str | None:
        """A call of one of the rule file's short functions (see `expansions`) whose arguments are names or
        constants, as the function's own body with its parameters standing for them: the same value, with
        no call. None when it does not qualify (too long, recursive, or an argument that is worked out)."""
        params, body = self.expansions[node.func]
        if node.func in self._inlining or node.kwargs or len(node.args) != len(params):
            return None
        mark = self._mark()
        code = self._inlined(node, params, body)
        if code is None:  # (compiled as a call after all: what the body read is not in the code)
            self._back_to(mark)
        return code

    def _inlined(self, node: N.Call, params: list, body: N.Node) -> str | None:
        bindings = {}
        for param, arg in zip(params, node.args):
            known, value = self.const_value(arg)
            if known:
                bindings[id(param)] = (param, Binding("", const=value, is_const=True))
                continue
            mark = self._mark()  # (what it reads is read where the body reads the parameter, if it does)
            code = self.expr(arg)
            self._back_to(mark)
            if not _ATOM.match(code):
                return None
            found = self.binding(arg) if isinstance(arg, N.Ref) else None
            bindings[id(param)] = (param, Binding(code, numeric=found is not None and found.numeric, kind="local",
                                                  depth=found.depth if found is not None else None))
        self._inlining.append(node.func)
        self._bound.append(bindings)
        try:
            code = self.expr(body)
        except CompileProblem:  # reported where the function is defined
            return None
        finally:
            self._inlining.pop()
            self._bound.pop()
        return code if len(code) <= INLINE_CHARS else None

    def _looped(self, node) -> tuple | None:
        """(loop kind, comprehension) when `node` is any() or all() of a generator comprehension."""
        b = self.builtins.get(node.func) if isinstance(node, N.Call) else None
        if b is None or b.loop not in ("any", "all") or len(node.args) != 1 or node.kwargs:
            return None
        comp = node.args[0]
        return (b.loop, comp) if isinstance(comp, N.Comp) and comp.generator else None

    def _decide(self, kind: str, item: N.Node) -> list:
        """Statements, inside the loop of an any (`kind`) or all, that return its answer when `item` decides it
        and go on otherwise. An item that is itself an any or all runs as a loop in place: of the same kind,
        its items decide the outer answer directly; of the other kind (any of all: some line whose cells all
        hold), its one loop breaks at an item that settles its own answer the other way, and the answer is
        returned when the loop runs to its end (`else`)."""
        inner = self._looped(item)
        verdict = E.Return("True" if kind == "any" else "False")
        if inner is None or (inner[0] != kind and len(inner[1].clauses) != 1):
            code = self.expr(item)
            return [E.If(code, [verdict])] if kind == "any" else [E.Guard(code, verdict)]
        self.check_call(item)
        inner_kind, comp = inner
        levels = []
        for clause in comp.clauses:
            iterable, targets, conds = self._clause(clause)
            levels.append((tuple(targets.split(", ")), iterable, [E.Guard(c, E.Continue()) for c in conds]))
        if inner_kind == kind:
            body, orelse = self._decide(kind, comp.elt), []
        else:
            code = self.expr(comp.elt)
            body = [E.If(code, [E.Break()])] if inner_kind == "any" else [E.Guard(code, E.Break())]
            orelse = [verdict]
        for names, iterable, guards in reversed(levels):
            body, orelse = [E.For(names, iterable, guards + body, orelse)], []
        return body

    def call_code(self, node: N.Call, b: Builtin) -> str:
        tally = self._tally(node, b)
        if tally is not None:
            return tally
        if node.func in self.expansions:
            inlined = self._inline(node)
            if inlined is not None:
                return inlined
        if b.loop is not None and len(node.args) == 1 and not node.kwargs \
                and isinstance(node.args[0], N.Comp) and node.args[0].generator:
            return self._loop(b, node.args[0])
        args, items = [], None
        for a in node.args:
            if isinstance(a, N.Comp) and a.generator:
                code, items = self._comprehension(a)
                args.append("(" + code + ")")
            else:
                args.append(self.expr(a))
        # a keyword that is a Python word (e.g. set_attr(c, class=1)) is passed through a dict
        kwargs = [f"**{{{k!r}: {self.expr(v)}}}" if keyword.iskeyword(k) else f"{k}={self.expr(v)}"
                  for k, v in node.kwargs]
        if b.over_comprehension is not None and len(node.args) == 1 and not kwargs \
                and isinstance(node.args[0], N.Comp) and node.args[0].generator:
            code = b.over_comprehension.format(args[0][1:-1])
            if code.startswith("["):  # the call is the list of the items itself
                return self._nested(code, (items[0] + 1, items[1] + 1))
            return "(" + code + ")"
        if items is not None and node.func in _COLLECTING:
            return self._nested(self._call_code(node, b, args, kwargs), (items[0] + 1, items[1] + 1))
        return self._call_code(node, b, args, kwargs)

    def _call_code(self, node: N.Call, b: Builtin, args: list, kwargs: list) -> str:
        """The Python of a call of a built-in (or of a function of the file), given its arguments' code."""
        if b.fold and all(self.const_value(a)[0] for a in node.args) and \
                all(self.const_value(v)[0] for _, v in node.kwargs):
            values = [self.const_value(a)[1] for a in node.args]
            kw = {k: self.const_value(v)[1] for k, v in node.kwargs}
            try:
                return self.const(checked.within(b.fn(*values, **kw)))  # a value, as deep as one may be
            except Exception as exc:  # noqa: BLE001 - report the rule's own mistake at compile time
                raise CompileProblem(_refusal(b.name, exc), *_span(node), f"usage: {b.signature}",
                                     code="bad_argument", function=b.name) from None
        if b.specialise is not None:
            known = {}
            for i, a in enumerate(node.args):
                is_const, value = self.const_value(a)
                if is_const:
                    known[i] = value
            try:
                found = b.specialise(known, tuple(k for k, _ in node.kwargs), len(node.args))
            except RuleValueError as exc:  # a constant argument that can never work: say so at load time
                raise CompileProblem(_refusal(b.name, exc), *_span(node), f"usage: {b.signature}",
                                     code="bad_argument", function=b.name) from None
            if found is not None:
                fast, used = found
                if b.state:
                    self.read("S")
                rest = (["S"] if b.state else []) + [a for i, a in enumerate(args) if i not in used]
                rest += [self.expr(v) for _, v in node.kwargs]  # keyword values, in call order
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
            wanted = {slots.get(k): self.expr(v) for k, v in node.kwargs}
            if set(wanted) == set(range(len(args), len(args) + len(wanted))):
                return f"F_{b.name}({', '.join(args + [wanted[i] for i in sorted(wanted)])})"
        return f"F_{b.name}({', '.join(args + kwargs)})"

    # -- statements --------------------------------------------------------------------------
    def target(self, node: N.Node) -> tuple[str, str | None]:
        """Python source of an assignment target, and of the list or table it is an item of (None for a name). A
        name the statement assigns first is one of the effects' own, its binding made as it was lowered."""
        if isinstance(node, N.Ref):
            b = self.binding(node)
            if not b.assignable and b.kind == "var":
                index = "key" if b.keyed else "p"
                raise CompileProblem(f"'{node.name}' holds one value per player (or per key): it is changed one "
                                     "value at a time, or given all of them with =", *_span(node),
                                     f"change one of its values: {node.name}[{index}] += ...", code="not_assignable",
                                     name=node.name)
            if b.is_const and b.kind == "value":
                raise _constant_assigned(node, node)
            if not b.assignable:
                raise CompileProblem(f"'{node.name}' cannot be assigned", *_span(node),
                                     "assign to a variable declared under 'vars:' or to a new local name",
                                     code="not_assignable", name=node.name)
            return b.code, None
        if isinstance(node, N.Index):
            root, _ = _root(node)
            b = self.binding(root) if isinstance(root, N.Ref) else None
            if b is not None and b.kind == "zone":
                raise CompileProblem(f"the pieces of zone '{root.name}' cannot be assigned", *_span(node),
                                     "zones change through place(), move() and remove()", code="not_assignable",
                                     name=root.name)
            if b is not None and b.is_const and b.kind == "value":
                raise _constant_assigned(root, node)
            obj, index = self.expr(node.obj), self.expr(node.index)
            if b is not None and b.keyed and node.obj is root:  # the keys are fixed: a new one is refused
                return f"{obj}[G_key({obj}, {index}, {root.name!r})]", obj
            return f"{obj}[{index}]", obj
        if isinstance(node, N.Attr):
            raise CompileProblem("attributes cannot be assigned directly", *_span(node),
                                 "pieces are values: use set_attr(cell, name, value) to change a piece",
                                 code="not_assignable", name=node.name)
        raise CompileProblem("cannot assign to this", *_span(node), code="not_assignable")  # pragma: no cover

    def _counted_write(self, target: N.Node) -> str | None:
        """The line that counts an assignment to `target` as a write to the part of the position it changes
        (see model.position.Position.changes); None when it changes only a local name."""
        root, depth = _root(target)
        binding = self.binding(root) if isinstance(root, N.Ref) else None
        if binding is not None and binding.part is not None:
            return f"S.changes[{binding.part}] += 1"
        if depth and (binding is None or binding.kind == "local"):
            return "S.changed()"  # an item of a local value, which may be a zone's or variable's own table
        return None

    def _may_deepen(self, node: N.Assign) -> bool:
        """Whether storing this item may make a value nest deeper than its item check sees: the list or table it
        goes into is not a variable's own place (an item of a local, which may be held by a variable or by another
        list, or an item down several indexes), and the value may hold lists, tuples, tables or records."""
        root, depth = _root(node.target)
        binding = self.binding(root) if isinstance(root, N.Ref) else None
        if depth == 1 and binding is not None and binding.part is not None:
            return False  # (a place of a variable: the item check sees the whole of what it adds)
        absolute, relative = self.depth_of(node.value)
        return absolute > 0 or relative > ABSENT // 2

    def _fits_in_item(self, node: N.Node) -> bool:
        """Whether a value is known to fit as an item of any list or table: built from numbers and constants only
        (so it cannot hold the list or table itself), it nests less deep than the limit."""
        a, r = self.depth_of(node)
        return r < ABSENT // 2 and a < MAX_VALUE_DEPTH

    def held_bound(self, node: N.Node) -> int | None:
        """The most items the expression's value may hold (see lang/held.py), when known at compile time: none for a
        number, true or false, or none; a constant's own; a name's bound (see Binding.held). None: not known."""
        if isinstance(node, N.Cond):  # (nested only as deep as the expression: the limit on nesting)
            bounds = (self.held_bound(node.then), self.held_bound(node.other))
            return None if None in bounds else max(bounds)
        known, value = self.const_value(node)
        if known:
            count = held_items(value, _SMALL)
            return count if count <= _SMALL else None
        if isinstance(node, N.Ref):
            binding = self.binding(node)
            if binding.held is not None:
                return binding.held
        plain = isinstance(node, N.Compare) or isinstance(node, N.Unary) and node.op == "not" or \
            self._numeric(node)
        return 0 if plain else None

    def _held_write(self, target: N.Node) -> tuple[bool, int]:
        """How an assignment to `target` counts towards what the position holds (Position.held): (whether it may
        write into the position, how many items it may add besides those of its value: 2 where it may add an
        entry to a table). A local name is the function's own; an item of one may be a place of a zone or a
        variable, or inside one."""
        if isinstance(target, N.Ref):
            return self.binding(target).part is not None, 0
        root, depth = _root(target)
        binding = self.binding(root) if isinstance(root, N.Ref) else None
        # a place of a variable per player or per key is one it has: never a new entry
        existing = depth == 1 and binding is not None and binding.kind == "var" and not binding.assignable
        return True, 0 if existing else 2

    def stmt(self, node: N.Node) -> list[str]:
        """Python source lines for one statement."""
        if isinstance(node, N.Assign):
            value = self.expr(node.value)
            if node.op != "=" and isinstance(node.target, N.Ref) and node.target.binding.kind == "unknown":
                close = close_names(node.target.name, node.target.binding.const)
                raise CompileProblem(f"unknown name '{node.target.name}'", *_span(node.target), suggestion(close),
                                     code="unknown_name", quiet=node.target.name in self.withdrawn,
                                     name=node.target.name, candidates=close)
            if node.op == "=" and isinstance(node.target, N.Ref) and node.target.binding.kind == "var" \
                    and not node.target.binding.assignable:  # a variable per seat or per key, given every place
                binding, name = self.binding(node.target), node.target.name
                known, given = self.const_value(node.value)
                if known and not isinstance(given, dict if binding.keyed else (list, tuple)):  # (a table: its keys)
                    raise CompileProblem(
                        f"'{name}' holds one value per {'key' if binding.keyed else 'player'}: it is given all of "
                        f"them at once only as {'a table of its keys' if binding.keyed else 'a list, one per seat'}",
                        *_span(node.value), f"change one of its values: {name}[{'key' if binding.keyed else 'p'}] = "
                        "...", code="not_assignable", name=name)
                code = binding.code
                self.read(code)
                return [f"{code} = {_hold(f'G_places({code}, {value}, {name!r})')}",
                        self._counted_write(node.target)]
            target, holder = self.target(node.target)
            # what the position gains by the write counts towards what it holds (Position.held); an item that is
            # given a new value (op other than =) has one already, and is no new entry of a table
            counts, entry = self._held_write(node.target)
            entry = entry if node.op == "=" else 0
            # an item put into a list or table nests it deeper, and could be the list itself
            nests = holder is not None and node.op in ("=", "+=") and not self._fits_in_item(node.value)
            nest = (lambda rhs: f"G_item({holder}, {rhs})") if nests else (lambda rhs: rhs)
            lines = []
            if node.op in _AUGMENTED and not (node.op == "+=" and self._numeric(node.value)):
                # a new value, never the old one changed in place: a list held elsewhere too stays as it was
                if node.op == "+=":  # the new value holds the old one's items and the value's: those are new
                    bound = self.held_bound(node.value) if counts else 0
                    lines.append(f"{target} = {nest(f'G_add({target}, {_hold(value) if bound is None else value})')}")
                    if bound:
                        lines.append(f"S.held += {bound}")
                else:  # a list repeated holds its items as often: the whole new value counts
                    result = f"{_AUGMENTED[node.op]}({target}, {value})"
                    lines.append(f"{target} = {nest(_hold(result) if counts else result)}")
            else:
                bound = 0 if node.op != "=" else self.held_bound(node.value)
                if counts and bound is None:
                    lines.append(f"{target} = {nest(_hold(value, entry))}")
                else:  # what it holds is known (a number holds nothing): counted as a number, with no call
                    lines.append(f"{target} = {nest(value)}" if nests else f"{target} {node.op} {value}")
                    if counts and entry + bound:
                        lines.append(f"S.held += {entry + bound}")
            if holder is not None and node.op in ("=", "+=") and self._may_deepen(node):
                lines.append(f"G_deepen({target})")  # (what was stored, read back)
            counted = self._counted_write(node.target)
            return lines if counted is None else lines + [counted]
        if isinstance(node, N.Do):
            b = self.check_call(node.call)
            return [self.call_code(node.call, b)]
        raise CompileProblem("not a statement", *_span(node), code="syntax")  # pragma: no cover


# A let computed late (see ModelCompiler's lets), by the stage of the load it waits for: what it uses, what is
# built before it (which therefore cannot read it), and how to give those what they need
_LATER = {"board": ("uses the board", "the board", "compute what the board needs in lets that do not use cells or "
                    "regions"),
          "pieces": ("builds pieces", "the board and the kinds of pieces", "compute what those need in lets that "
                     "build no piece"),
          "functions": ("calls a function of the file", "the board, the pieces, zones, variables and functions",
                        "compute what those need in lets that call no function of the file")}


def _display_items(node: N.Display) -> list:
    """The values a list, tuple or table written out holds (a table's keys and values)."""
    return [n for item in node.items for n in (item if isinstance(item, tuple) else (item,))]


def _reads(node: N.Node, loop_variable: N.Ref) -> bool:
    """Whether `node` is a name of the loop variable a clause binds (`loop_variable`, its target)."""
    return isinstance(node, N.Ref) and node.name == loop_variable.name
