"""Static types of the IR's expressions and statements, and the type errors found at load time rather than in play."""

from __future__ import annotations

from ..lang import types as T
from ..lang.compiler import Binding, CompileProblem
from . import nodes as N

# Which kinds of value each operator takes (see types.kinds): pairs (left, right) that Python runs.
_NUM = T.NUMBERS
_ARITHMETIC = {(a, b) for a in _NUM for b in _NUM}
_BINARY = {
    "+": _ARITHMETIC | {(T.TEXT, T.TEXT), (T.LIST, T.LIST), (T.TUPLE, T.TUPLE)},
    "*": _ARITHMETIC | {(s, n) for s in (T.LIST, T.TUPLE, T.TEXT) for n in (T.INT, T.BOOL)}
    | {(n, s) for s in (T.LIST, T.TUPLE, T.TEXT) for n in (T.INT, T.BOOL)},
    "-": _ARITHMETIC, "/": _ARITHMETIC, "//": _ARITHMETIC, "%": _ARITHMETIC, "**": _ARITHMETIC,
}
_ORDERED = _ARITHMETIC | {(T.TEXT, T.TEXT), (T.LIST, T.LIST), (T.TUPLE, T.TUPLE), (T.PIECE, T.PIECE)}
_VERB = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "//": "divide", "%": "take the remainder of",
         "**": "raise"}
_CONTAINERS = frozenset({T.LIST, T.TUPLE, T.RANGE, T.TABLE, T.TEXT})
_INDEXED = frozenset({T.LIST, T.TUPLE, T.RANGE, T.TEXT, T.TABLE})
_WITH_FIELDS = frozenset({T.PIECE, T.RECORD, T.INT})  # an int may be a cell, whose attributes are fields
_CELL_FIELDS = {"x": T.INT_T, "y": T.INT_T, "index": T.INT_T, "col": T.INT_T, "row": T.INT_T, "name": T.TEXT_T}


def _problem(message: str, node: N.Node, hint: str | None = None) -> CompileProblem:
    _, start, end = node.at
    return CompileProblem(message, start, max(start + 1, end), hint, code="type_error")


def _possible(pairs: set, left: T.Type, right: T.Type) -> bool:
    """Whether some kind of `left` goes with some kind of `right` in `pairs`."""
    return any((a, b) in pairs for a in T.kinds(left) for b in T.kinds(right))


class Typer:
    """Works out the static type of each IR expression, its names typed by their compiler bindings, and refuses
    (CompileProblem, code 'type_error') an operation that no value of its operands' types could run: a list added
    to a tuple, none compared by order, an attribute of a number, a pair unpacked from triples. What is not known
    at load time is ANY and checked as the game runs, so a file that loads is never refused for what it might do.
    A loop variable's binding is given the type of the items it runs over."""

    def __init__(self, builtins: dict):
        self.builtins = builtins  # name -> Builtin (the compiler's own table: the file's functions come later)
        self._const_types: dict = {}  # id(binding) -> (binding, the type of its constant)
        # called with (a variable's binding, the type of a value an assignment gives one of its places)
        self.on_assign = None
        # the types of cells' and pieces' attributes, as the model compiler finds them (see model/compile.py)
        self.cell_fields: dict = dict(_CELL_FIELDS)
        self.piece_fields: dict = {"kind": T.TEXT_T}
        # the file's own functions and procedures (category functions | procedures): each call tells
        # on_call(name, argument types); returns[name] is what a function gives, as the type pass finds it
        self.on_call = None
        self.returns: dict = {}
        # when set, id(node) -> the type found for each node typed: what the IR's nodes are given once the types
        # are settled (see build.py)
        self.types: dict | None = None

    # -- names ---------------------------------------------------------------------------------------
    def binding_type(self, b: Binding) -> T.Type:
        if b.is_const and b.kind != "option":
            found = self._const_types.get(id(b))
            if found is None or found[0] is not b:
                found = self._const_types[id(b)] = (b, T.type_of_value(b.const))
            return found[1]
        return b.type if b.typed_by is None else b.typed_by()

    # -- expressions ---------------------------------------------------------------------------------
    def expr(self, node: N.Node) -> T.Type:
        """The static type of `node`; CompileProblem if it can never be worked out."""
        method = getattr(self, "_" + type(node).__name__, None)
        found = T.ANY if method is None else method(node)
        if self.types is not None:
            self.types[id(node)] = found
        return found

    def _Const(self, node):
        return T.type_of_value(node.value)

    def _Ref(self, node):
        b = node.binding
        return T.ANY if b is None or b.kind == "unknown" else self.binding_type(b)

    def _Display(self, node):
        if node.kind == "list":
            types = [self.expr(i) for i in node.items]
            return T.list_(T.widen(_joined(types)), len(types))
        if node.kind == "tuple":
            return T.tuple_(*(self.expr(i) for i in node.items))
        keys = [self.expr(k) for k, _ in node.items]
        values = [self.expr(v) for _, v in node.items]
        return T.table(T.widen(_joined(keys)), T.widen(_joined(values)))

    def _Binary(self, node):
        # a long run of one operator is a deep left-leaning tree: walk it as a loop, not by recursion
        chain = []
        left = node
        while isinstance(left, N.Binary):
            chain.append(left)
            left = left.left
        value = self.expr(left)
        for op_node in reversed(chain):
            value = self.binary(op_node, value, self.expr(op_node.right))
            if self.types is not None:  # (each step of the run is a node of its own)
                self.types[id(op_node)] = value
        return value

    def binary(self, node: N.Node, left: T.Type, right: T.Type, op: str | None = None) -> T.Type:
        """The type of `left op right` (op: node.op unless given), refusing operands that never go together."""
        op = op or node.op
        if T.NOTHING in (left, right):
            return T.NOTHING
        if not _possible(_BINARY[op], left, right):
            raise _problem(f"cannot {_VERB[op]} {T.describe(left)} and {T.describe(right)} with '{op}'", node,
                           _binary_hint(op, left, right))
        # a value that may be none: the operation is refused as it runs when it is; else it gives what it gives
        left, right = _present(left), _present(right)
        if "union" in (left.name, right.name):  # what each pair of members that go together gives
            found = [self._binary(op, a, b) for a in _members(left) for b in _members(right)
                     if _possible(_BINARY[op], a, b)]
            return T.union(*found) if found else T.ANY
        return self._binary(op, left, right)

    @staticmethod
    def _binary(op: str, left: T.Type, right: T.Type) -> T.Type:
        if T.numeric(left) and T.numeric(right):
            if op == "/" or T.kinds(left) == {T.FLOAT} or T.kinds(right) == {T.FLOAT}:
                return T.FLOAT_T
            # (a whole number to a negative power is a fraction)
            return T.INT_T if T.FLOAT not in T.kinds(left) | T.kinds(right) and op != "**" else T.NUMBER
        if op == "+" and left.name == right.name and left.name in ("list", "seq"):
            bound = None if left.high is None or right.high is None else left.high + right.high
            return T.Type(left.name, (T.widen(T.join(left.items[0], right.items[0])),), high=bound)
        if op == "+" and T.kinds(left) == {T.TEXT} and T.kinds(right) == {T.TEXT}:
            return T.TEXT_T
        return T.ANY

    def _Unary(self, node):
        operand = self.expr(node.operand)
        if node.op == "not":
            return T.BOOL_T
        if operand == T.NOTHING:
            return operand
        if not T.kinds(operand) & _NUM:
            raise _problem(f"'{node.op}' needs a number, not {T.describe(operand)}", node)
        if node.op == "-" and operand.name == "int" and operand.low is not None and operand.low == operand.high:
            return T.int_(-operand.low, -operand.low)
        if T.kinds(operand) <= {T.INT, T.BOOL}:  # (the sign of true or false is a whole number)
            return T.INT_T
        return T.FLOAT_T if T.kinds(operand) == {T.FLOAT} else T.NUMBER if T.numeric(operand) else T.ANY

    def _Logic(self, node):
        # `a or b or ...` gives one of its operands; a long run is a deep tree: walked as a loop
        found, runs, todo = {}, [], [node]
        while todo:  # the operands typed from left to right
            item = todo.pop()
            if isinstance(item, N.Logic):
                runs.append(item)
                todo += [item.right, item.left]
            else:
                found[id(item)] = self.expr(item)
        for item in reversed(runs):  # then each step of the run, from the innermost out
            found[id(item)] = T.union(found[id(item.left)], found[id(item.right)])
            if self.types is not None:
                self.types[id(item)] = found[id(item)]
        return found[id(node)]

    def _Compare(self, node):
        types = [self.expr(o) for o in node.operands]
        for op, left, right in zip(node.ops, types, types[1:]):
            if op in ("<", "<=", ">", ">=") and not _possible(_ORDERED, left, right):
                raise _problem(f"cannot compare {T.describe(left)} with {T.describe(right)} by '{op}'", node,
                               "only numbers, texts, lists and pieces are ordered; test none with == or !=")
            if op in ("in", "notin"):
                if not T.kinds(right) & _CONTAINERS:
                    word = "in" if op == "in" else "not in"
                    raise _problem(f"'{word}' needs a collection on its right, not {T.describe(right)}", node,
                                   "a list, a tuple, a range, a table or text")
                if T.kinds(right) == {T.TEXT} and not T.kinds(left) & {T.TEXT}:
                    raise _problem(f"text can only contain text, not {T.describe(left)}", node)
        return T.BOOL_T

    def _Cond(self, node):
        self.expr(node.test)
        return T.join(self.expr(node.then), self.expr(node.other))

    def _Range(self, node):
        low, high = self.expr(node.low), self.expr(node.high)
        for end, t in ((node.low, low), (node.high, high)):
            if not T.kinds(t) & {T.INT, T.BOOL}:
                raise _problem(f"a range runs between whole numbers, not {T.describe(t)}", end)
        exact = all(t.name == "int" and t.low is not None and t.low == t.high for t in (low, high))
        return T.range_(low.low, high.high) if exact else T.range_()

    def _Attr(self, node):
        if isinstance(node.obj, N.Ref):
            b = node.obj.binding
            if b is not None and b.kind == "option":
                value = (b.const or {}).get(node.name) if isinstance(b.const, dict) else None
                return T.type_of_value(value) if value is not None else T.ANY
        obj = self.expr(node.obj)
        if obj == T.NOTHING:
            return obj
        if not T.kinds(obj) & _WITH_FIELDS or obj.name in ("int", "seat", "bool"):
            raise _problem(f"{T.describe(obj)} has no attributes ('.{node.name}')", node,
                           "attributes belong to cells, pieces and records")
        # of a piece or none, say: the attribute of each member that has attributes (the others fail as it runs)
        found = [self._field(m, node.name) for m in _members(obj) if T.kinds(m) & _WITH_FIELDS]
        return T.union(*found) if found else T.ANY

    def _field(self, obj: T.Type, name: str) -> T.Type:
        if obj.name in ("cell", "int"):  # (a whole number may be a cell)
            return self.cell_fields.get(name, T.ANY)
        if obj.name == "record" and name in obj.names:
            return obj.items[obj.names.index(name)]
        if obj.name == "piece":
            return self.piece_fields.get(name, T.ANY)
        return T.ANY

    def _Index(self, node):
        obj, index = self.expr(node.obj), self.expr(node.index)
        if obj == T.NOTHING:
            return obj
        if not T.kinds(obj) & _INDEXED:
            raise _problem(f"{T.describe(obj)} cannot be indexed", node,
                           "lists, tuples, texts and tables are indexed: xs[i], t[key]")
        if not T.kinds(obj) & {T.TABLE} and not T.kinds(index) & {T.INT, T.BOOL}:
            raise _problem(f"{T.describe(obj)} is indexed by a whole number, not {T.describe(index)}", node)
        if obj.name == "tuple" and index.name == "int" and index.low is not None and index.low == index.high:
            if -len(obj.items) <= index.low < len(obj.items):
                return obj.items[index.low]
            raise _problem(f"index {index.low} is outside {T.describe(obj)}", node,
                           f"its items are numbered 0 to {len(obj.items) - 1}")
        if obj.name == "union":  # a list or none, say: what indexing each member that can be indexed gives
            found = [_item_at(m, index) for m in obj.items if T.kinds(m) & _INDEXED]
            return T.union(*found) if found else T.ANY
        return _item_at(obj, index)

    def _Slice(self, node):
        obj = self.expr(node.obj)
        for end in (node.low, node.high):
            if end is not None:
                t = self.expr(end)
                if not T.kinds(t) & {T.INT, T.BOOL, T.NONE}:
                    raise _problem(f"a slice is bounded by whole numbers, not {T.describe(t)}", end)
        if obj == T.NOTHING:
            return obj
        if not T.kinds(obj) & {T.LIST, T.TUPLE, T.RANGE, T.TEXT}:
            raise _problem(f"{T.describe(obj)} cannot be sliced", node, "lists, tuples and texts are: xs[a:b]")
        return obj if obj.name in ("list", "seq", "text", "range") else T.ANY

    def _Comp(self, node):
        bounds: list = []
        self.clauses(node.clauses, bounds)
        most = None if None in bounds else _product(bounds)  # at most one item per value its loops run over
        return T.list_(T.widen(self.expr(node.elt)), most)

    def clauses(self, clauses, bounds: list | None = None) -> None:
        """Type the `for` clauses of a comprehension: their names, then their conditions; the most values each
        clause runs over is added to `bounds` (None: not known)."""
        for clause in clauses:
            iterable = self.expr(clause.iterable)
            if bounds is not None:
                bounds.append(_length_bound(iterable))
            self.targets(clause, iterable)
            for cond in clause.conds:
                self.expr(cond)

    def targets(self, clause: N.Clause, iterable: T.Type) -> list[T.Type]:
        """The types of the names of a `for` clause over a value of type `iterable`, given to their bindings."""
        if not T.kinds(iterable) & _CONTAINERS:
            raise _problem(f"cannot loop over {T.describe(iterable)}", clause.iterable,
                           "a loop runs over a list, a tuple, a range, a table's keys or text")
        found = self.unpack(clause, T.item_type(iterable))
        for target, typed in zip(clause.targets, found):
            target.binding.type = typed
            if self.types is not None:
                self.types[id(target)] = typed
        return found

    def unpack(self, clause: N.Clause, item: T.Type) -> list[T.Type]:
        """The types of a loop's targets, from the type of the items it runs over."""
        targets = [t.name for t in clause.targets]
        if len(targets) == 1:
            return [item]
        if item.name == "tuple" and len(item.items) != len(targets):
            raise _problem(f"{len(targets)} names ({', '.join(targets)}) cannot be taken from tuples of "
                           f"{len(item.items)} items", clause.iterable,
                           f"name each of the {len(item.items)} items, or loop over one name and index it")
        if item.name == "tuple":
            return list(item.items)
        if not T.kinds(item) & {T.LIST, T.TUPLE, T.TEXT, T.RANGE}:
            raise _problem(f"{len(targets)} names cannot be taken from {T.describe(item)}", clause.iterable,
                           "each item must be a tuple or list of as many values as names")
        return [T.item_type(item)] * len(targets)

    def _Call(self, node):
        b = self.builtins.get(node.func)
        arg_types = []
        for a in node.args:
            if isinstance(a, N.Comp) and a.generator:
                self.clauses(a.clauses)
                arg_types.append(T.list_(self.expr(a.elt)))
            else:
                arg_types.append(self.expr(a))
        kw_types = {k: self.expr(v) for k, v in node.kwargs}
        if b is None:
            return T.ANY
        if b.name == "chance" and node.args and isinstance(node.args[0], N.Const) and self.on_call is not None:
            self.on_call(("inputs", node.args[0].value), arg_types[1:])  # a chance step's inputs, given here
        if b.category in ("functions", "procedures"):  # the file's own: typed from the calls (see TypeChecker)
            if self.on_call is not None:
                self.on_call(b.name, arg_types)
            return self.returns.get(b.name, T.ANY) if b.category == "functions" else T.NONE_T
        wanted = getattr(b, "arg_types", ())
        for i, (a, t) in enumerate(zip(node.args, arg_types)):
            want = wanted[i] if i < len(wanted) else None
            if want is not None and not T.kinds(t) & T.kinds(want):
                name = b.params[i] if i < len(b.params) else f"argument {i + 1}"
                raise _problem(f"{b.name}() needs {T.describe(want)} as '{name}', not {T.describe(t)}", a,
                               f"usage: {b.signature}")
        found = returned(b, arg_types, kw_types)
        if b.length is not None and found.name in ("list", "seq"):  # as long as an argument says, at most
            at = b.params.index(b.length)
            size = arg_types[at] if at < len(arg_types) else kw_types.get(b.length)
            if size is not None and size.name == "int" and size.high is not None:
                found = T.Type(found.name, found.items, high=max(0, size.high))
        if b.item_length is not None and found.name in ("list", "seq") and found.items:  # choices of its items
            at = b.params.index(b.item_length)
            items, inner = arg_types[at] if at < len(arg_types) else None, found.items[0]
            if items is not None and items.name in ("list", "seq", "range") and items.high is not None \
                    and inner.name in ("list", "seq"):
                found = T.Type(found.name, (T.Type(inner.name, inner.items, high=items.high),), high=found.high)
        return found

    # -- statements ------------------------------------------------------------------------------------
    def stmt(self, node: N.Node) -> None:
        """Check one statement of an effect (its values and, for `+=` and the like, the operation)."""
        if isinstance(node, N.Assign):
            value = self.expr(node.value)
            if node.op != "=":
                target = self.expr(node.target) if _bound(node.target) else T.ANY
                value = self.binary(node, target, value, node.op[:-1])
            elif isinstance(node.target, N.Index) and _bound(node.target):
                self.expr(node.target)
            self._given(node.target, value)
        elif isinstance(node, N.Do):
            self._Call(node.call)

    def _given(self, target: N.Node, value: T.Type) -> None:
        if isinstance(target, N.Ref):  # a name of the effects' own: it holds every value they give it
            b = target.binding
            if b is not None and b.temp:
                b.type = T.join(b.type, T.widen(value))
                return
        self._variable_given(target, value)

    def _variable_given(self, target: N.Node, value: T.Type) -> None:
        """Tell on_assign of a value given to a place of a variable: the variable itself (`v = ...`), or one of
        its places per seat or per key (`v[p] = ...`), or inside a place (`v[p][i] = ...`: on_assign(b, value,
        levels below the place)). An item given through any other name (`xs[i] = ...`) may change a list a
        variable holds too: on_assign(None, value, levels)."""
        depth, key = 0, None
        if isinstance(target, N.Index) and self.on_assign is not None:  # (the key of a table's entry given)
            key = self.types.get(id(target.index)) if self.types else None
            key = key if key is not None else self.expr(target.index)
        while isinstance(target, N.Index):
            target, depth = target.obj, depth + 1
        b = target.binding if isinstance(target, N.Ref) else None
        if self.on_assign is None or b is None or b.kind == "unknown":
            return
        place = 0 if b.assignable else 1
        if b.kind == "var" and depth > place:
            self.on_assign(b, value, depth - place, key)
        elif b.kind == "var" and depth == place:
            self.on_assign(b, value, 0)
        elif b.kind == "var" and depth == place - 1:  # the whole of one with a place per seat or key: each place's
            self.on_assign(b, _held(value), 0)
        elif b.kind != "var" and depth:
            self.on_assign(None, value, depth)


def _held(t: T.Type) -> T.Type:
    """The type of each place of a variable with a place per seat or key, given a list or a table `t` whole."""
    if t.name == "union":
        return T.union(*(_held(m) for m in t.items))
    if t.name == "table" and len(t.items) == 2:
        return t.items[1]
    return T.item_type(t)


def returned(b, arg_types: list, kw_types: dict | None = None) -> T.Type:
    """The type a call of built-in `b` gives, from its declaration and its arguments' types."""
    rule = getattr(b, "returns", None)
    if rule is None:
        return T.ANY
    return _resolved(rule, b, arg_types, kw_types or {})


def _resolved(t: T.Type, b, arg_types: list, kw_types: dict) -> T.Type:
    """A declared type with what it reads of the arguments (see declare._returns) worked out."""
    if t.name == "of":
        what, name = t.names
        at = b.params.index(name) if name in b.params else None
        arg = arg_types[at] if at is not None and at < len(arg_types) else kw_types.get(name)
        if what == "none_with":  # none, when the argument is given (as cell(x, y) finds no cell there)
            return T.NOTHING if arg is None else T.NONE_T
        if arg is None:  # not given: its default (none; a required one is refused by the checks anyway)
            return T.NONE_T
        if what == "arg":
            return arg
        if what == "items":
            return T.list_(T.widen(T.item_type(arg)))
        if what == "value":
            return arg.items[1] if arg.name == "table" else T.ANY
        if what == "pairs":  # a table of the (key, value) pairs it holds
            pair = T.item_type(arg)
            return T.table(*(T.widen(i) for i in pair.items)) if pair.name == "tuple" and len(pair.items) == 2 \
                else T.table()
        if T.kinds(arg) & _CONTAINERS:  # item: one of its items
            return T.item_type(arg)
        return _joined(arg_types[at:])  # one of the arguments themselves: max(a, b)
    if not t.items:
        return t
    items = tuple(_resolved(i, b, arg_types, kw_types) for i in t.items)
    return T.union(*items) if t.name == "union" else T.Type(t.name, items, t.names, t.low, t.high)


def _bound(target: N.Node) -> bool:
    """Whether the name at the root of an assignment target is declared (a new local has no type yet)."""
    while isinstance(target, (N.Index, N.Attr)):
        target = target.obj
    return isinstance(target, N.Ref) and target.binding is not None and target.binding.kind != "unknown"


def _item_at(obj: T.Type, index: T.Type) -> T.Type:
    """The type of `obj[index]` (an index checked already)."""
    if obj.name == "tuple" and index.name == "int" and index.low is not None and index.low == index.high \
            and -len(obj.items) <= index.low < len(obj.items):
        return obj.items[index.low]
    if obj.name == "table":
        return obj.items[1]
    return T.item_type(obj)


def _length_bound(t: T.Type) -> int | None:
    """The most items a value of type t holds, where known."""
    if t.name in ("list", "seq", "range"):
        return t.high
    if t.name == "tuple":
        return len(t.items)
    return None


def _product(values: list) -> int:
    found = 1
    for v in values:
        found *= v
    return found


def _members(t: T.Type) -> tuple:
    return t.items if t.name == "union" else (t,)


def _present(t: T.Type) -> T.Type:
    """t without none, where it holds something else too."""
    if t.name == "union" and any(m.name == "none" for m in t.items) and len(t.items) > 1:
        return T.union(*(m for m in t.items if m.name != "none"))
    return t


def _joined(types: list) -> T.Type:
    if not types:  # (the items of an empty list: none yet, and what is added to it types them)
        return T.NOTHING
    found = types[0]
    for t in types[1:]:
        found = T.join(found, t)
    return found


def _binary_hint(op: str, left: T.Type, right: T.Type) -> str | None:
    kl, kr = T.kinds(left), T.kinds(right)
    if op == "+" and kl & {T.LIST, T.TUPLE} and kr & {T.LIST, T.TUPLE}:
        return "make both lists (list(xs)) or both tuples to join them"
    if op == "+" and (T.TEXT in kl) != (T.TEXT in kr):
        return "text joins only text: str(x) makes text of a value"
    if T.NONE in kl | kr:
        return "a value that may be none must be tested first: x if x != none else 0"
    return None
