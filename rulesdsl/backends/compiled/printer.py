"""IR expressions and statements printed as numba-compiled Python: values as int64 scalars and arrays.

A value is printed as a scalar (`i`: a number, true or false, a seat, a cell's index, a piece's id in the
layout's table, a text's number in the module's table of texts), a list of scalars (`a`, a 1-d array) or a list
of tuples (`a2`, a 2-d array). Absent values are -1 (a cell, a text) or 0 (a piece: no piece). Comprehensions
and the file's functions become functions of their own, taking the state `s`, `me` and the locals they read.
Only names the printer makes reach the source: locals are `v_` and a number, tables `K` and a number, texts
their number; constants are printed by repr of whole numbers and booleans. What the printer does not take raises
Unsupported located at the node.
"""

from __future__ import annotations

from ...ir import nodes as N
from ...lang import types as T
from ...model.values import Cell
from .arith import NumberBuiltins
from .bounds import length_bound
from .coordinates import Coordinates
from .attrs import AttrBuiltins
from .dicts import ConstDicts
from .routes import MAYBE, RouteBuiltins
from .keyed import KeyedVars
from .links import LinkBuiltins
from .lists import ListBuiltins
from .constdata import ConstData
from .floats import FloatValues
from .mixed import MixedValues, is_mixed
from .places import NONE_NUMBER, Places
from .seat_places import SeatPlaces
from .zone_moves import ZoneMoves
from .procedures import ProcedureCalls
from .zones import Zones
from .unsupported import Unsupported
from .walks import Walks

_ARITH = {"+": "+", "-": "-", "*": "*", "//": "//", "%": "%"}
_COMPARE = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
_INT64 = (-(1 << 63), (1 << 63) - 1)


def _maybe(t: T.Type, name: str) -> bool:
    """Whether `t` is a value of kind `name` or none."""
    return t.name == "union" and {m.name for m in t.items} == {name, "none"}


def _empty(node) -> bool:
    """Whether `node` is [] written out."""
    return isinstance(node, N.Display) and node.kind == "list" and not node.items


def _plain_list(t: T.Type) -> bool:
    """Whether `t` is a list of single values of one kind that compiled code holds as numbers, the same number for
    the same value (whole numbers, truth values, seats, cells, texts of a list fixed at load, pieces)."""
    item = T.item_type(t) if t.name == "list" else None
    return item is not None and item.name in ("int", "bool", "seat", "cell", "text", "piece")


def _holds_piece(t: T.Type) -> bool:
    return t.name == "piece" or t.name == "union" and any(m.name == "piece" for m in t.items)


class Module:
    """What one generated module defines besides its fixed parts: tables, functions, texts and error codes."""

    def __init__(self, where):
        self.where = where  # rule-file path -> Location
        self.tables: dict = {}  # key -> (name, source line)
        self.functions: dict = {}  # key -> (name, source) in the order made
        self.texts: dict = {}  # text -> its number
        self.errors: list = []  # code -> (message, rule-file path, hint, whether it is a capacity's)
        self.wide_codes: dict = {}  # rule-file path -> the code of a whole number beyond 64 bits made there

    def table(self, key, rows, dims: int = 1) -> str:
        """The name of a constant int64 array of `rows` (whole numbers; lists of them for dims 2)."""
        if key not in self.tables:
            name = f"K{len(self.tables)}"
            self.tables[key] = (name, f"{name} = _table({_literal(rows)}, {dims})")
        return self.tables[key][0]

    def text(self, value: str) -> int:
        return self.texts.setdefault(value, len(self.texts))

    def error(self, message: str, at) -> str:
        """A raise statement for a located error: the message is kept here, the source holds only its number."""
        return f'raise ValueError("{self.code(message, at)}")'

    def code(self, message: str, at, hint: str | None = None, capacity: bool = False) -> str:
        """The code of a located error (`message` may format the values raised with the code: {0}, {1}...)."""
        self.errors.append((message, at, hint, capacity))
        return f"E{len(self.errors) - 1}"

    def locate(self, node):
        return self.where(node.at[0]) if node is not None and node.at[0] else None

    def function(self, key, make) -> str:
        """The name of the function made by `make(name) -> source`, made once per key."""
        if key not in self.functions:
            name = f"F{len(self.functions)}"
            self.functions[key] = (name, None)
            self.functions[key] = (name, make(name))
        return self.functions[key][0]


def _literal(rows) -> str:
    if isinstance(rows, (list, tuple)):
        return "[" + ", ".join(_literal(r) for r in rows) + "]"
    return repr(_whole(rows))


def _whole(value) -> int:
    if value.__class__ is bool:
        return int(value)
    if value.__class__ is not int and not isinstance(value, int):
        raise TypeError(f"not a whole number: {type(value).__name__}")
    value = int(value)
    if not _INT64[0] <= value <= _INT64[1]:
        raise OverflowError("beyond 64 bits")
    return value


class Printer(ListBuiltins, LinkBuiltins, NumberBuiltins, ZoneMoves, Coordinates, SeatPlaces, Walks, MixedValues,
              ConstData, FloatValues, ProcedureCalls, ConstDicts, AttrBuiltins, RouteBuiltins):
    """Prints the IR of one game into a Module. `board`: the game's geometry tables (see program.Tables)."""

    def __init__(self, module: Module, tables, ir, packing):
        self.m, self.t, self.ir, self.packing = module, tables, ir, packing
        self.fields = packing.fields
        self.builtins = {name[2:]: getattr(self, name) for name in dir(self) if name.startswith("b_")}
        self.steps_exist = {}  # step name -> whether its moves exist (can_move), asked for
        self.loops = 0  # `for:` effects printed, which number their names
        self.places = Places(self, tables.rules)
        self.zones = Zones(self, tables.rules)
        self.keyed = KeyedVars(self)
        self.gotos = False  # whether effects printed so far call goto()
        self.given = {}  # names the engine gives the effects being printed (a simultaneous step's choices)
        self.part_fields = None  # while a repeat's expressions are printed: a part's field -> its column (repeats.py)
        self.positions = None  # the game's positions (positions.py), which repeated() counts: set by its program

    def unsupported(self, node, why: str) -> Unsupported:
        return Unsupported(self.m.locate(node), why)

    def field(self, name: str, plus: str = "") -> str:
        f = self.fields[name]
        return f"s[{f.ident}{' + ' + plus if plus else ''}]"

    # -- expressions --------------------------------------------------------------------------------------------
    def ex(self, node, env) -> tuple:
        """(source, rep) of an expression; `env` maps local names to (identifier, rep)."""
        method = getattr(self, "x_" + node.__class__.__name__, None)
        if method is None:
            raise self.unsupported(node, f"{node.__class__.__name__.lower()} expressions")
        code, rep = method(node, env)
        if rep in MAYBE:  # a list that may be none, read as a list (routes.py)
            return self.some(node, code, rep)
        return code, rep

    def truth(self, node, env) -> str:
        """A test: a single value, or a list (true when it holds any item, as in Python)."""
        code, rep = self.ex(node, env)
        return f"({code}.shape[0] > 0)" if rep in ("a", "a2", "ar", "recs") else code

    def scalar(self, node, env) -> str:
        code, rep = self.ex(node, env)
        if rep != "i":
            raise self.unsupported(node, "a list where a single value is needed")
        return code

    def x_Const(self, node, env):
        value = node.value
        if value is None:
            return ("0" if _holds_piece(node.type) else "-1"), "i"
        if isinstance(value, str):
            return repr(self.m.text(value)), "i"
        if isinstance(value, (bool, int)):
            try:
                return repr(_whole(value)), "i"
            except OverflowError:
                raise self.unsupported(node, "a whole number beyond 64 bits") from None
        if isinstance(value, float):
            return self.float_const(node)
        raise self.unsupported(node, f"a constant of type {T.describe(node.type)}")

    def x_Ref(self, node, env):
        if node.kind in N.LOCAL_KINDS or node.kind == "local":  # local: what a chance step's rules are given
            if node.name not in env and node.kind == "local" and node.name in self.given:
                return self.given[node.name]
            if node.name not in env:
                raise self.unsupported(node, f"'{node.name}' read where it is not bound")
            return env[node.name]
        if node.kind == "engine":
            name = node.name
            if name == "me":
                return "me", "i"
            if name in ("player", "turn"):
                return self.field(name), "i"
            if name == "mover":  # the seat of the last move, -1 (none) before the first
                return f"({self.field('last.player')} if {self.field('last_row')} >= 0 else -1)", "i"
            if name == "num_players":
                return "NS", "i"
            if name == "cells":
                return self.m.table("cells", list(range(self.t.cells))), "a"
            if name == "players":
                return self.m.table("players", list(range(self.t.seats))), "a"
        if node.kind == "region" and node.name in self.t.regions:
            return self.m.table(("region", node.name), self.t.regions[node.name]), "a"
        if node.kind == "zone":
            return self.zones.read(node, env)
        if node.kind == "var":
            return self.places.whole(node) if self.places.per_seat(node) else self.places.read(node)
        binding = node.binding
        if node.const and binding is not None and binding.is_const and node.kind in ("data", "global"):
            return self.constant(node, binding.const)
        raise self.unsupported(node, f"reading {node.kind} '{node.name}'")

    def constant(self, node, value) -> tuple:
        """(code, rep) of a value fixed at load: a single value, a list of them (a table), or a list of rows of one
        length."""
        single = self._single(value)
        if single is not None:
            return single, "i"
        if isinstance(value, (list, tuple)):
            items = [self._single(v) for v in value]
            if all(i is not None for i in items):
                return self.m.table(("const", repr(items)), [int(i) for i in items]), "a"
            rows = [[self._single(v) for v in row] if isinstance(row, (list, tuple)) else None for row in value]
            if value and all(r is not None and len(r) == len(rows[0]) and None not in r for r in rows):
                return self.m.table(("const2", repr(rows)), [[int(i) for i in r] for r in rows], 2), "a2"
        raise self.unsupported(node, f"the value of '{getattr(node, 'name', '')}', a {type(value).__name__}")

    def _single(self, value) -> str | None:
        """The code of a single value fixed at load, or None for a value that is not one."""
        if value is None:
            return "-1"
        if isinstance(value, str):
            return repr(self.m.text(value))
        if isinstance(value, Cell):
            return repr(int(value))
        if isinstance(value, (bool, int)):
            try:
                return repr(_whole(value))
            except OverflowError:
                return None
        return None

    def x_Unary(self, node, env):
        if node.op in ("-", "+") and self.fractional(node.operand):
            return self.float_unary(node, env)
        if node.op == "not":
            return f"(not {self.truth(node.operand, env)})", "i"
        code = self.scalar(node.operand, env)
        if node.op in ("-", "+") and node.type.name == "int":
            return f"({node.op}{code})", "i"
        raise self.unsupported(node, f"the operator {node.op} on {T.describe(node.operand.type)}")

    def x_Binary(self, node, env):
        if node.op == "+" and node.type.name in ("list", "seq", "tuple"):
            (left, a), (right, b) = self.ex(node.left, env), self.ex(node.right, env)
            if a == b == "a":
                return self.mixed_joined(node, env) or (f"_rt.concat({left}, {right})", "a")
            if {a, b} <= {"a", "a2"} and "a2" in (a, b) and self.empty_rows(node) \
                    and all(r == "a2" or _empty(n) for r, n in ((a, node.left), (b, node.right))):
                empty = self.empty_rows(node)  # lists of tuples (routes.py)
                return self.concat_rows(left if a == "a2" else empty, right if b == "a2" else empty), "a2"
        if self.fractional(node):
            return self.float_binary(node, env)
        if node.op not in _ARITH or node.type.name != "int" and not self.whole_valued(node):
            raise self.unsupported(node, f"the operator {node.op} on {T.describe(node.type)}")
        left = self.operand(node.left, node.right, node.op, env)
        right = self.operand(node.right, node.left, node.op, env, False)
        if node.op in ("//", "%"):
            return f"_divided({left}, {right}, {node.op == '%'})", "i"
        return self.arithmetic(_ARITH[node.op], left, right, node.left, node.right, node.at[0]), "i"

    def x_Logic(self, node, env):
        if node.type.name != "bool":
            raise self.unsupported(node, f"'{node.op}' of values that are not true or false")
        return f"({self.truth(node.left, env)} {node.op} {self.truth(node.right, env)})", "i"

    def x_Compare(self, node, env):
        found = self.none_test(node, env)  # a list that may be none (routes.py)
        if found is not None:
            return found, "i"
        parts, operands = [], node.operands
        for op, a, b in zip(node.ops, operands, operands[1:]):
            if op in ("in", "notin") and self.keyed.form(b) is not None:  # a key of a table
                found = self.keyed.contains(b, self.keyed.form(b), self.scalar(a, env))
                parts.append(f"{'not ' if op == 'notin' else ''}({found})")
                continue
            mixed = self.mixed_contains(a, b, env) if op in ("in", "notin") else None
            if mixed is not None:  # a cell or a text (mixed.py)
                parts.append(f"{'not ' if op == 'notin' else ''}_contains({mixed[1]}, {mixed[0]})")
                continue
            if op in ("in", "notin"):
                item, (seq, rep) = self.scalar(a, env), self.ex(b, env)
                if rep != "a":
                    raise self.unsupported(node, f"'in' over {T.describe(b.type)}")
                parts.append(f"{'not ' if op == 'notin' else ''}{self.held(seq, item)}")
                continue
            if op not in _COMPARE:
                raise self.unsupported(node, f"the comparison {op}")
            if op in ("==", "!=") and _plain_list(a.type) and _plain_list(b.type):  # item by item, as Python
                (left, lrep), (right, rrep) = self.ex(a, env), self.ex(b, env)
                if lrep == rrep == "a":
                    parts.append(f"{'not ' if op == '!=' else ''}_rt.same_items({left}, {right})")
                    continue
            if self.fractional(a) or self.fractional(b):
                parts.append(self.float_compare(a, b, op, env))
                continue
            mixed = self.mixed_compared(a, b, env) if op in ("==", "!=") else self.refuse_ordered_mixed(node, a, b)
            left, right = mixed or (self._compared(a, b, env, op), self._compared(b, a, env, op, False))
            parts.append(f"{left} {_COMPARE[op]} {right}")
        return "(" + " and ".join(f"({p})" for p in parts) + ")", "i"

    def _compared(self, node, other, env, op: str = "", left: bool = True) -> str:
        """A side of == or !=: none is the absent value of the other side's type (beside a variable holding a
        number or none, NONE_NUMBER)."""
        if op in ("==", "!=") and self.places.number_or_none(node):
            return self.places.compared(node)
        if isinstance(node, N.Const) and node.value is None:
            return "0" if _holds_piece(other.type) else NONE_NUMBER if self.places.number_or_none(other) else "-1"
        return self.operand(node, other, op, env, left, compare=True)

    def x_Cond(self, node, env):
        test = self.truth(node.test, env)
        (then, a), (other, b) = self.ex(node.then, env), self.ex(node.other, env)
        then, other = self.mixed_items(node, [then, other], [a, b])
        if {a, b} == {"i", "f"}:
            return self.float_cond(node, test, (then, a), (other, b))
        if {a, b} == {"a", "a2"} and _empty(node.then if a == "a" else node.other) and self.empty_rows(node):
            empty = self.empty_rows(node)  # [] beside a list of tuples (routes.py)
            then, other, a, b = empty if a == "a" else then, empty if b == "a" else other, "a2", "a2"
        if a != b:
            raise self.unsupported(node, "a condition choosing between a list and a single value")
        return f"({then} if {test} else {other})", a

    def x_Range(self, node, env):
        return f"_rt.span({self.scalar(node.low, env)}, {self.scalar(node.high, env)})", "a"

    def x_Attr(self, node, env):
        obj = node.obj
        if isinstance(obj, N.Ref) and obj.kind == "local" and f"{obj.name}.{node.name}" in env:
            return env[f"{obj.name}.{node.name}"]  # a field of a record its caller binds (the move made, after it)
        if isinstance(obj, N.Index) and isinstance(obj.obj, N.Ref) and obj.obj.kind == "local" \
                and isinstance(obj.index, N.Const) and f"{obj.obj.name}[{obj.index.value}].{node.name}" in env:
            return env[f"{obj.obj.name}[{obj.index.value}].{node.name}"]  # a field of an earlier part (parts.py)
        if self.part_fields is not None and obj.type.name == "record":  # a part's record (repeats.py)
            code, rep = self.ex(obj, env)
            if rep == "rec":
                field = self.part_fields.get(node.name)
                if field is None:
                    raise self.unsupported(node, f"the field '{node.name}' of a part")
                return (field[0], "i") if isinstance(field, tuple) else (f"{code}[{field}]", "i")
        if self._bound_rep(obj, env) == "choice" or isinstance(obj, N.Index) \
                and self._bound_rep(obj.obj, env) == "choices":
            return self.choice_field(node, self.ex(obj, env)[0]), "i"
        kind = obj.type.name
        if is_mixed(obj.type):  # a cell or a text (mixed.py)
            return f"{self.t.cell_attribute(self, node)}[{self.mixed_attribute_cell(obj, env, node.name)}]", "i"
        if _maybe(obj.type, "cell"):  # none's attribute: Python's AttributeError
            return self._optional_cell_attribute(node, env), "i"
        if kind == "cell":
            table = self.t.cell_attribute(self, node)
            return f"{table}[_cell({self.scalar(obj, env)})]", "i"
        if _holds_piece(obj.type):
            if any(node.name not in p.__dict__ for p in self.t.pieces(self, node)[1:]):
                return self._some_pieces_attribute(node, env), "i"
            table = self.t.piece_attribute(self, node)
            return f"{table}[_piece({self.scalar(obj, env)})]", "i"
        if isinstance(obj, N.Ref) and obj.kind == "option" and obj.binding is not None and obj.binding.is_const \
                and isinstance(obj.binding.const, dict) and node.name in obj.binding.const:
            return self.constant(node, obj.binding.const[node.name])
        raise self.unsupported(node, f"the attribute '{node.name}' of {T.describe(obj.type)}")

    def x_Index(self, node, env):
        found = self.const_lookup(node, env)  # into data fixed at load (constdata.py)
        if found is not None:
            return found
        obj = node.obj
        found = self.places.indexed(node, env)  # an item of a list of tables
        if found is not None:
            return found
        if isinstance(obj, N.Ref) and obj.kind == "zone":
            return self.zones.read(node, env)
        found = self.tuple_item(node, env)  # an item of a tuple of tuples (routes.py)
        if found is not None:
            return found
        if self.keyed.form(obj) is not None:
            return self.keyed.read(node, self.keyed.form(obj), env)
        if self._bound_rep(obj, env) == "choices":  # a seat's choice: its seat, read lazily
            return f"_seat_at({self.scalar(node.index, env)})", "choice"
        if self._bound_rep(obj, env) == "recs":  # a part made before (repeats.py)
            recs = self.ex(obj, env)[0]
            code = self.m.code("IndexError: list index out of range", node.at[0])
            return f"{recs}[_rt.list_index({self.scalar(node.index, env)}, {recs}.shape[0], {code!r})]", "rec"
        if isinstance(obj, N.Ref) and obj.kind == "region" and obj.name in self.t.keyed:
            return self._keyed_region(node, env)
        if isinstance(obj, N.Ref) and obj.kind == "var" and self.places.per_seat(obj):
            return self.places.read(obj, self.places.row(obj, node.index, env, node.at[0]))
        if self.const_dict(obj) is not None:  # a table fixed at load (dicts.py)
            return self.dict_lookup(node, self.const_dict(obj), node.index, env), "i"
        seq, rep = self.ex(obj, env)
        if rep == "a2":
            return f"_row({seq}, {self.scalar(node.index, env)})", "a"
        if rep != "a":
            raise self.unsupported(node, f"an index into {T.describe(node.obj.type)}")
        return f"_item({seq}, {self.scalar(node.index, env)})", "i"

    def _keyed_region(self, node, env):
        """region[key] of a region per key: its cells, found by the key's whole numbers."""
        keys, rows, lengths = self.t.keyed_tables(node.obj.name, self.m.text)
        key = node.index
        parts = key.items if isinstance(key, N.Display) and key.kind == "tuple" else (key,)
        if len(parts) != len(keys[0]):
            raise self.unsupported(node, "a key of another shape than the region's")
        tables = [self.m.table(("keyed", node.obj.name, what), value, dims)
                  for what, value, dims in (("keys", keys, 2), ("rows", rows, 2), ("lengths", lengths, 1))]
        code = ", ".join(self.scalar(p, env) for p in parts)
        error = self.m.code(f"no key of region '{node.obj.name}' is this one", node.at[0])
        if len(parts) <= 3:  # the key's parts given as numbers: no array made for it
            return f"_rt.keyed_row{len(parts)}({', '.join(tables)}, {code}, {error!r})", "a"
        return f"_rt.keyed_row({', '.join(tables)}, np.array([{code}], np.int64), {error!r})", "a"

    def x_Display(self, node, env):
        if node.kind == "tuple":  # a row (routes.py)
            return self.tuple_display(node, env)
        rows = self.rows_display(node, env) if node.kind == "list" else None
        if rows is not None:
            return rows
        if node.kind != "list":
            raise self.unsupported(node, f"a {node.kind} written out")
        if not node.items:
            return "_none()", "a"
        items = self.mixed_items(node, [self.scalar(item, env) for item in node.items], ["i"] * len(node.items))
        return f"np.array([{', '.join(items)}], np.int64)", "a"

    def x_Comp(self, node, env):
        if isinstance(node.elt, N.Display) and node.elt.kind == "tuple":  # rows (routes.py)
            return self.lifted_rows(node, env)
        return self.lifted(node, env, "list")

    def x_Call(self, node, env):
        if node.target == "function":
            return self.call_function(node, env)
        handler = self.builtins.get(node.func)
        if node.target != "builtin" or handler is None:
            raise self.unsupported(node, f"the built-in {node.func}()")
        return handler(node, env)

    # -- comprehensions and functions, lifted ---------------------------------------------------------------
    def lifted(self, comp, env, how: str, default=None):
        """A comprehension as a function of its own: `how` it is summed up (any, all, sum, list)."""
        free = self._free(comp, env)
        key = ("comp", id(comp), how, tuple(env[name][1] for name in free))
        name = self.m.function(key, lambda fname: self._comp_source(fname, comp, env, free, how))
        args = "".join(f", {env[name_][0]}" for name_ in free)
        return f"{name}(s, me{args})", "a" if how == "list" else "i"

    def _free(self, node, env) -> list:
        """The locals of `env` that `node` reads, in order of first reading."""
        found = []
        for n in N.walk(node):
            if isinstance(n, N.Ref) and (n.kind in N.LOCAL_KINDS or n.kind == "local") and n.name in env \
                    and n.name not in found:
                found.append(n.name)
        return found

    def _comp_source(self, fname, comp, env, free, how) -> str:
        inner = {name: (f"a{i}", env[name][1]) for i, name in enumerate(free)}
        params = "".join(f", {inner[name][0]}" for name in free)
        lines = []
        if how == "list":
            lines.append("    out = np.empty(8, np.int64)")
            lines.append("    n = 0")
        elif how in ("sum", "count"):
            lines.append("    total = 0")
        loops, inner, pad = self._comprehension_loops(comp, inner, "    ")
        lines += loops
        elt = comp.elt
        if how == "any":
            lines += [f"{pad}if {self.scalar(elt, inner)}:", f"{pad}    return True"]
            tail = "    return False"
        elif how == "all":
            lines += [f"{pad}if not {self.scalar(elt, inner)}:", f"{pad}    return False"]
            tail = "    return True"
        elif how == "sum":
            lines.append(pad + self.summed("total", self.scalar(elt, inner), elt, length_bound(comp, self.ir),
                                           comp.at[0]))
            tail = "    return total"
        elif how == "count":  # (each item worked out, as Python's generator does: it may fail)
            lines += [f"{pad}item = {self.scalar(elt, inner)}", f"{pad}total += 1"]
            tail = "    return total"
        else:
            lines += [f"{pad}if n == out.shape[0]:", f"{pad}    out = _grown(out)",
                      f"{pad}out[n] = {self.scalar(elt, inner)}", f"{pad}n += 1"]
            tail = "    return out[:n]"
        return "\n".join([f"@_jit\ndef {fname}(s, me{params}):", *lines, tail])

    def _comprehension_loops(self, comp, env, pad: str, tag: str = "") -> tuple:
        """The loops of a comprehension's clauses, each skipping the items its conditions refuse: (their lines, the
        names bound inside them, the indent of their body). `pad` indents the first loop; clause c's names end in
        `tag` and c."""
        lines, inner = [], env
        for c, clause in enumerate(comp.clauses):
            single = self.single_clause(clause, dict(inner), f"{tag}{c}", pad)  # `for x in [value]` (routes.py)
            if single is not None:
                inner = dict(inner)
                lines += self.single_clause(clause, inner, f"{tag}{c}", pad)
            else:
                seq, rep = self.ex(clause.iterable, inner)
                inner = dict(inner)
                lines += self._loop_head(clause, seq, rep, inner, f"{tag}{c}", pad, pure=True)
            pad += "    "
            for cond in clause.conds:
                lines += [f"{pad}if not {self.scalar(cond, inner)}:", f"{pad}    continue"]
        return lines, inner, pad

    def _loop_head(self, clause, seq, rep, env, tag: str, pad: str, pure: bool = False) -> list:
        """The head of a loop over `seq` binding the clause's targets in `env`: one name over a list or a list of
        rows, or one name per item of each row (`pure`: the loop's body writes nothing, see walks.py)."""
        targets = clause.targets
        walked = self.walk_head(clause.iterable, env, f"l{tag}", tag, pad, pure) \
            if rep == "a" and len(targets) == 1 else None
        if walked is not None:
            env[targets[0].name] = (f"l{tag}", "i")
            return walked
        if rep == "choices" and len(targets) == 1:  # each seat's choice in turn, as the seat it is read from
            env[targets[0].name] = (f"l{tag}", "choice")
            return [f"{pad}for l{tag} in range(NS):"]
        if rep == "ar" and len(targets) == 1:  # ragged rows (subsets()): each its length, then its items
            env[targets[0].name] = (f"l{tag}", "a")
            return [f"{pad}it{tag} = {seq}", f"{pad}for i{tag} in range(it{tag}.shape[0]):",
                    f"{pad}    l{tag} = it{tag}[i{tag}, 1:1 + it{tag}[i{tag}, 0]]"]
        if rep == "recs" and len(targets) == 1:  # each part made so far, its record a row (repeats.py)
            env[targets[0].name] = (f"l{tag}", "rec")
            return [f"{pad}for i{tag} in range({seq}.shape[0]):", f"{pad}    l{tag} = {seq}[i{tag}]"]
        if rep not in ("a", "a2") or len(targets) != 1 and rep != "a2":
            raise self.unsupported(clause, "a loop over this (names over a list, or over a list of rows)")
        lines = [f"{pad}it{tag} = {seq}", f"{pad}for i{tag} in range(it{tag}.shape[0]):"]
        if len(targets) == 1:
            env[targets[0].name] = (f"l{tag}", "i" if rep == "a" else "a")
            return lines + [f"{pad}    l{tag} = it{tag}[i{tag}]"]
        lines.append(f"{pad}    if it{tag}.shape[1] != {len(targets)}:")
        lines.append(f"{pad}        raise IndexError(\"rows of another length than the names given them\")")
        for j, target in enumerate(targets):
            env[target.name] = (f"l{tag}_{j}", "i")
            lines.append(f"{pad}    l{tag}_{j} = it{tag}[i{tag}, {j}]")
        return lines

    def call_function(self, node, env):
        fn = self.ir.functions.get(node.func)
        if fn is None or fn.kind != "function" or node.kwargs or len(node.args) != len(fn.params):
            raise self.unsupported(node, f"this call of '{node.func}'")
        args = self.mixed_args(fn, node.args, [self.ex(a, env) for a in node.args])
        key = ("function", node.func, tuple(rep for _, rep in args))
        name = self.m.function(key, lambda fname: self._function_source(fname, fn, [r for _, r in args]))
        return f"{name}(s, me{''.join(', ' + code for code, _ in args)})", \
            self._function_rep(fn, [r for _, r in args])

    def _function_env(self, fn, reps) -> dict:
        return {p: (f"a{i}", rep) for i, (p, rep) in enumerate(zip(fn.params, reps))}

    def _function_rep(self, fn, reps) -> str:
        env = self._function_env(fn, reps)
        for let in fn.lets:
            env[let.name] = ("", self.ex(let.value, env)[1])
        return self.ex(fn.value, env)[1]

    def _function_source(self, fname, fn, reps) -> str:
        env = self._function_env(fn, reps)
        lines = [f"@_jit\ndef {fname}(s, me{''.join(', ' + env[p][0] for p in fn.params)}):"]
        for i, let in enumerate(fn.lets):
            code, rep = self.ex(let.value, env)
            lines.append(f"    t{i} = {code}")
            env[let.name] = (f"t{i}", rep)
        lines.append(f"    return {self.ex(fn.value, env)[0]}")
        return "\n".join(lines)

    # -- built-ins ----------------------------------------------------------------------------------------------
    def _aggregate(self, node, env, how):
        if len(node.args) != 1 or node.kwargs or not isinstance(node.args[0], N.Comp):
            raise self.unsupported(node, f"{node.func}() of anything but a comprehension")
        return self.lifted(node.args[0], env, how)

    def b_any(self, node, env):
        return self._aggregate(node, env, "any")

    def b_all(self, node, env):
        return self._aggregate(node, env, "all")

    def b_sum(self, node, env):
        if len(node.args) == 1 and not node.kwargs and not isinstance(node.args[0], N.Comp) \
                and T.item_type(node.args[0].type).name in ("int", "bool"):  # whole numbers of a list
            seq, rep = self.ex(node.args[0], env)
            if rep == "a":
                return self.sum_of(seq, node.args[0], node.at[0]), "i"
        if len(node.args) == 1 and not node.kwargs and isinstance(node.args[0], N.Comp):
            found = self.float_sum(node, env)
            if found is not None:
                return found
        return self._aggregate(node, env, "sum")

    def b_count(self, node, env):
        if len(node.args) == 1 and not node.kwargs and isinstance(node.args[0], N.Comp):
            return self.lifted(node.args[0], env, "count")
        return self.b_size(node, env)

    def b_size(self, node, env):
        code, rep = self.ex(node.args[0], env)
        if rep == "choices":  # an entry per seat
            return "NS", "i"
        if rep not in ("a", "a2", "ar", "recs"):
            raise self.unsupported(node, "size() of a single value")
        return f"{code}.shape[0]", "i"

    def b_max(self, node, env):
        if len(node.args) > 1:
            return self.extreme_of_values(node, env, "max")
        kwargs = dict(node.kwargs)
        if len(node.args) != 1 or set(kwargs) - {"default"}:
            raise self.unsupported(node, "max() of anything but one list")
        seq, rep = self.ex(node.args[0], env)
        if rep != "a":
            raise self.unsupported(node, "max() of this")
        if "default" in kwargs:
            return f"_max_of({seq}, {self.scalar(kwargs['default'], env)}, True)[0]", "i"
        return f"_max_or({seq}, {self.m.code('max() of an empty list', node.at[0])!r})", "i"

    def b_at(self, node, env):
        self._arity(node, 1)
        if is_mixed(node.args[0].type):
            return self.field("cells", self.mixed_index_cell(node.args[0], env)), "i"
        return self.field("cells", f"_cell({self.scalar(node.args[0], env)})"), "i"

    def b_empty(self, node, env):
        self._arity(node, 1)
        if is_mixed(node.args[0].type):
            return f"({self.field('cells', self.mixed_index_cell(node.args[0], env))} == 0)", "i"
        return f"({self.field('cells', '_cell(' + self.scalar(node.args[0], env) + ')')} == 0)", "i"

    def b_occupied(self, node, env):
        self._arity(node, 0)
        return "_occupied(s)", "a"

    def b_owned(self, node, env):
        self._arity(node, 1)
        table = self.t.owner_table(self, node)
        return f"_owned(s, {table}, {self.scalar(node.args[0], env)})", "a"

    def b_lines(self, node, env):
        if len(node.args) != 1 or node.kwargs or not isinstance(node.args[0], N.Const):
            raise self.unsupported(node, "lines() of anything but a fixed length")
        return self.m.table(("lines", node.args[0].value), self.t.lines(node.args[0].value), 2), "a2"

    def b_enumerate(self, node, env):
        self._arity(node, 1)
        seq, rep = self.ex(node.args[0], env)
        if rep != "a":
            raise self.unsupported(node, "enumerate() of this")
        return f"_rt.enumerated({seq})", "a2"

    def b_has_run(self, node, env):
        kwargs = dict(node.kwargs)
        if len(node.args) != 2 or set(kwargs) - {"cyclic"}:
            raise self.unsupported(node, "has_run() with these arguments")
        seq, rep = self.ex(node.args[0], env)
        if rep != "a":
            raise self.unsupported(node, "has_run() of this")
        cyclic = self.scalar(kwargs["cyclic"], env) if "cyclic" in kwargs else "False"
        return f"_rt.has_run({seq}, {self.scalar(node.args[1], env)}, {cyclic})", "i"

    def b_group_sizes(self, node, env):
        self._arity(node, 1)
        seq, rep = self.ex(node.args[0], env)
        if rep != "a":
            raise self.unsupported(node, "group_sizes() of this")
        return f"_group_sizes({seq}, {self.m.table('adjacency', self.t.adjacency(), 2)})", "a"

    def b_push_targets(self, node, env):
        return f"_push_targets({self._push_targets_args(node, env)})", "a"

    def _push_targets_args(self, node, env) -> str:
        self._arity(node, 3)
        region = node.args[2]
        if not (isinstance(region, N.Ref) and region.kind == "region" and region.name in self.t.regions):
            raise self.unsupported(node, "push_targets() within anything but a region")
        mask = self.m.table(("mask", region.name), self.t.mask(region.name))
        direction = f"_direction({self.scalar(node.args[1], env)})"
        frm = f"_cell({self.scalar(node.args[0], env)})"
        return f"s, {self.fields['cells'].ident}, {self.rays()}, {direction}, {frm}, {mask}"

    def into(self, node, env, buffer: str):
        """(code writing the list `node` into `buffer` and giving its length, the buffer's size) for the built-ins
        that can fill a buffer made once rather than a list per call; None for the others."""
        if isinstance(node, N.Call) and node.target == "builtin" and node.func == "push_targets":
            args = self._push_targets_args(node, env)
            return f"_rt.push_targets_into({buffer}, {args})", f"{self.m.table('rays', self.t.rays()[0], 3)}.shape[2]"
        return None

    def b_can_move(self, node, env):
        if len(node.args) != 2 or node.kwargs or not isinstance(node.args[1], N.Const) \
                or node.args[1].value not in self.ir.steps:
            raise self.unsupported(node, "can_move() without a step named")
        self.steps_exist[node.args[1].value] = True
        return f"X_{self.t.step_index[node.args[1].value]}(s, _seat({self.scalar(node.args[0], env)}))", "i"

    def b_repeated(self, node, env):
        self._arity(node, 1)
        if node.args[0].type.name != "int":
            raise self.unsupported(node, f"repeated() of {T.describe(node.args[0].type)}")
        return self.positions.repeated(self.scalar(node.args[0], env)), "i"

    def b_step(self, node, env):
        self._arity(node, 2)
        cell, direction = (self.scalar(arg, env) for arg in node.args)
        return f"_step({self.rays()}, {cell}, _direction({direction}))", "i"

    def rays(self) -> str:
        rays, lengths = self.t.rays()
        return f"{self.m.table('rays', rays, 3)}, {self.m.table('ray_lengths', lengths, 2)}"

    def _arity(self, node, n: int) -> None:
        if len(node.args) != n or node.kwargs:
            raise self.unsupported(node, f"{node.func}() with these arguments")

    # -- statements ---------------------------------------------------------------------------------------------
    def st(self, node, env, pad: str) -> list:
        """The lines of a statement, indented by `pad`."""
        if isinstance(node, N.Do):
            call = node.call
            if call.target == "procedure":
                return [pad + line for line in self.procedure_call(call, env)]
            handler = getattr(self, "e_" + call.func, None)
            if call.target != "builtin" or handler is None:
                raise self.unsupported(node, f"the effect {call.func}()")
            return [pad + line for line in handler(call, env)]
        if isinstance(node, N.If):
            lines = [f"{pad}if {self.truth(node.test, env)}:"]
            lines += [line for s in node.then for line in self.st(s, env, pad + "    ")] or [pad + "    pass"]
            if node.other:
                lines.append(f"{pad}else:")
                lines += [line for s in node.other for line in self.st(s, env, pad + "    ")]
            return lines
        if isinstance(node, N.Loop):
            return self._loop(node, env, pad)
        if isinstance(node, N.Assign):
            return [pad + line for line in self._assign(node, env)]
        raise self.unsupported(node, f"the statement {node.__class__.__name__.lower()}")

    def _assign(self, node, env) -> list:
        """`target op value` to a variable (whole, or a seat's place) or to a name of the effects."""
        target, at = node.target, node.at[0]
        found = self.places.assign_item(node, env)  # an item of a list variable
        if found is None:
            found = self.places.assign_number_or_none(node, env)
        if found is None:
            found = self.assign_player(node, env)
        if found is None:
            found = self.assign_seat_places(node, env)  # a per-seat variable assigned whole (seat_places.py)
        if found is not None:
            return found
        if isinstance(target, N.Ref) and target.kind == "temp":
            code, rep = self._assigned(node, env, lambda: env[target.name] if target.name in env else None)
            name = f"tmp_{target.name}"
            if target.name in env and env[target.name] != (name, rep):
                raise self.unsupported(node, f"'{target.name}' given values of different shapes")
            env[target.name] = (name, rep)
            return [f"{name} = {code}"]
        if isinstance(target, N.Ref) and target.kind == "var" and not self.places.per_seat(target):
            code, rep = self._assigned(node, env, lambda: self.places.read(target))
            return self.places.write(target, "0", code, rep, at)
        if isinstance(target, N.Index) and self.keyed.form(target.obj) is not None:
            form = self.keyed.form(target.obj)
            code, rep = self._assigned(node, env, lambda: self.keyed.read(target, form, env))
            if rep != "i":
                raise self.unsupported(node, "a list written where a table holds single values")
            return self.keyed.write(target, form, code, env, at)
        if isinstance(target, N.Index) and isinstance(target.obj, N.Ref) and target.obj.kind == "var" \
                and self.places.per_seat(target.obj):
            var = target.obj
            lines = [f"r = {self.places.row(var, target.index, env, at, write=True)}"]
            code, rep = self._assigned(node, env, lambda: self.places.read(var, "r"))
            return lines + self.places.write(var, "r", code, rep, at)
        raise self.unsupported(node, "assigning this")

    def _assigned(self, node, env, current) -> tuple:
        """(code, rep) of the value an assignment writes: `value`, or the value read by `current()` combined with it
        by the operator."""
        code, rep = self.ex(node.value, env)
        if node.op == "=":
            return code, rep
        old = current()
        op = node.op[:-1]
        if old is None or old[1] != "i" or rep != "i" or op not in _ARITH:
            if old is not None and old[1] == rep == "a" and op == "+":
                return f"_rt.concat({old[0]}, {code})", "a"
            raise self.unsupported(node, f"the assignment {node.op} of these values")
        if op in ("//", "%"):
            return f"_divided({old[0]}, {code}, {op == '%'})", "i"
        return self.arithmetic(_ARITH[op], old[0], code, node.target, node.value, node.at[0]), "i"

    def e_goto(self, call, env) -> list:
        return [f"s[X_goto] = {self.t.step_index[call.args[0].value] + 1}"]

    def e_chance(self, call, env) -> list:
        calls = getattr(self, "calls", None)  # (calls.py, given by the program that prints the module)
        if calls is None or not calls.active:
            raise self.unsupported(call, "the effect chance()")
        return calls.ask(self, call, env)

    def e_end_turn(self, call, env) -> list:
        self._arity(call, 0)
        return [f"s[X_goto] = {len(self.t.step_index) + 1}"]

    def _loop(self, node, env, pad: str) -> list:
        """A `for:` effect: its body once per item (its names bound) that meets the clause's conditions."""
        self.loops += 1
        tag, clause, inner = f"f{self.loops}", node.clause, dict(env)
        seq, rep = self.ex(clause.iterable, env)
        lines = self._loop_head(clause, seq, rep, inner, tag, pad)
        body = pad + "    "
        for cond in clause.conds:
            lines += [f"{body}if not {self.scalar(cond, inner)}:", f"{body}    continue"]
        return lines + ([line for s in node.body for line in self.st(s, inner, body)] or [body + "pass"])

    def e_move_all(self, call, env) -> list:
        return self.zones.move_all(call, env)

    def e_place(self, call, env) -> list:
        self._arity(call, 2)
        where = call.args[1]
        into = self.zones.place_piece(call, env) if where.type.name != "cell" and not is_mixed(where.type) else None
        if into is not None:  # into a zone
            return into
        if where.type.name != "cell" and not is_mixed(where.type):
            raise self.unsupported(call, "place() anywhere but on a cell")
        piece = self.scalar(call.args[0], env)
        cell = self.field("cells", "c")
        at = self.mixed_cell(where, env, "place(): {0} is not a cell or zone") if is_mixed(where.type) else \
            f"_cell({self.scalar(where, env)})"
        return [f"c = {at}",
                f"if {cell} != 0:", "    " + self.m.error("place(): the cell is occupied", call.at[0]),
                f"{cell} = {piece}"]

    def e_push(self, call, env) -> list:
        self._arity(call, 2)
        frm, to = (f"_cell({self.scalar(a, env)})" for a in call.args)
        return [f"if _push(s, {self.fields['cells'].ident}, {self.rays()}, {frm}, {to}) != 0:",
                "    " + self.m.error("push: the target is on no straight line from the piece, or pieces would "
                                      "leave the board", call.at[0])]

    def b_distinct(self, node, env):
        self._arity(node, 1)
        if node.args[0].type.name not in ("list", "seq", "range"):
            raise self.unsupported(node, f"distinct() of {T.describe(node.args[0].type)}")
        code, rep = self.ex(node.args[0], env)
        if rep != "a":
            raise self.unsupported(node, "distinct() of a list that does not hold single values")
        return f"_rt.distinct({code})", "a"  # the items in the order they first appear

    def b_piece(self, node, env):
        if not node.args or not isinstance(node.args[0], N.Const) or len(node.args) != 1:
            raise self.unsupported(node, "piece() of a kind not named by a constant")
        return self.t.piece_id(self, node, {k: self.scalar(v, env) for k, v in node.kwargs}), "i"

    # -- choices at a simultaneous step, and built-ins they use ----------------------------------------------------
    def _bound_rep(self, node, env) -> str | None:
        """The rep of a name bound in `env` or given by the engine (None for anything else)."""
        if not isinstance(node, N.Ref):
            return None
        bound = env.get(node.name) if node.kind in N.LOCAL_KINDS or node.kind == "local" else None
        if bound is None and node.kind == "local":
            bound = self.given.get(node.name)
        return bound[1] if bound is not None else None

    def choice_field(self, node, seat: str) -> str:
        """choices[p].name: the argument `name` of the move seat p chose (an error where it chose none, or a move
        without that argument); the choices are kept in the vector (simultaneous.py)."""
        fields = [1 + kind.args.index(node.name) if node.name in kind.args else 0 for kind in self.packing.layout.moves]
        table = self.m.table(("choice field", node.name), fields)
        none = self.m.code(f"AttributeError: 'NoneType' object has no attribute '{node.name}'", node.at[0])
        missing = self.m.code(f"AttributeError: 'Record' object has no attribute '{node.name}'", node.at[0])
        return f"_choice(s, {seat}, {table}, {none!r}, {missing!r})"

    def e_move(self, call, env) -> list:
        return self.zones.move(call, env)

    def e_remove(self, call, env) -> list:
        return self.zones.remove(call, env)

    def b_abs(self, node, env):
        self._arity(node, 1)
        if self.fractional(node.args[0]):
            return self.float_abs(node, env)
        if node.args[0].type.name != "int":
            raise self.unsupported(node, "abs() of anything but a whole number")
        return f"abs({self.scalar(node.args[0], env)})", "i"

    def _some_pieces_attribute(self, node, env) -> str:
        """p.name where pieces of some kinds have no attribute `name` (Python's AttributeError for those)."""
        table = self.t.piece_attribute(self, node, missing=LACKED)
        code = self.m.code(f"AttributeError: 'Piece' object has no attribute '{node.name}'", node.at[0])
        self.m.functions.setdefault(("helper", "held"), ("_held", HELD))
        return f"_held({table}, _piece({self.scalar(node.obj, env)}), {code!r})"

    def _optional_cell_attribute(self, node, env) -> str:
        """c.name of a cell or none: none has no attributes (Python's AttributeError)."""
        table = self.t.cell_attribute(self, node)
        code = self.m.code(f"AttributeError: 'NoneType' object has no attribute '{node.name}'", node.at[0])
        self.m.functions.setdefault(("helper", "some_cell"), ("_some_cell", SOME_CELL))
        return f"{table}[_some_cell({self.scalar(node.obj, env)}, {code!r})]"


LACKED = -(1 << 63)  # a piece attribute's entry for pieces that do not have it
HELD = f'''@_jit
def _held(table, k, code):
    if table[k] == {LACKED}:
        raise ValueError(code)
    return table[k]'''


SOME_CELL = '''@_jit
def _some_cell(c, code):
    if c == -1:
        raise ValueError(code)
    return _cell(c)'''
