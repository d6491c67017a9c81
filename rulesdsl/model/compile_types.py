"""The model compiler's type pass: variables' types worked out from every value the rules give them, then the
type of every expression compiled, with the type errors among them."""

from __future__ import annotations

from typing import Callable

from ..lang import types as T
from ..ir.infer import Typer
from ..lang.compiler import Binding, CompileProblem

ROUNDS = 8  # passes to settle variables' types; one still changing after them is left unknown (ANY)


class TypeChecker:
    """Part of the model compiler (see compile.ModelCompiler): records each expression and statement as it is
    compiled, and types them all once every value a variable can be given is known.

    A variable may be given values anywhere in the file (its `init:`, assignments in every move, step and
    procedure), and read anywhere, so its type is the smallest that holds all of them: worked out by passes
    over everything recorded, from the types of the initial values up, until no pass widens any variable. The
    last pass reports the type errors. The items of a list or table a variable holds may be changed through
    any name that holds the same list, so those are left unknown (see shallow())."""

    def start_types(self, typer: Typer) -> None:
        self.typer = typer
        typer.on_assign = self._assigned
        typer.on_call = self._called
        self._functions_typed: dict = {}  # name of a function or procedure of the file -> its params' bindings
        self._calls: dict = {}  # name -> the join of the argument types of its calls, per param, in this pass
        self._returned: dict = {}  # name -> the join of the types its value was found to have in this pass
        self._typing: list = []  # (path, IR node, what, then) in the order compiled
        self._var_places: dict = {}  # id(binding of a variable) -> (binding, (place type) -> binding type)
        self._given: dict = {}  # id(binding) -> the join of the place values given to it in this pass
        # (id(binding), levels) -> the join of the values given to items that many levels inside its places
        self._items_given: dict = {}
        self._aliased = False  # whether an item of a list is given through a name other than a variable's
        self._capacities: dict = {}  # id(binding) -> the capacity a variable declares
        self._keys_given: dict = {}  # (id(binding), levels) -> the join of the keys of the table entries given there
        self.loop_heads: dict = {}  # path of a `for:` effect's head -> its clause (for the IR)

    # -- recording -----------------------------------------------------------------------------------------
    def record_expr(self, path, node, then: Callable | None = None) -> None:
        """Type `node` (an IR expression, filed in the IR at `path`) in the type pass; `then(type)` is called with its
        type (to type a name bound to it)."""
        self._typing.append((path, node, self.typer.expr, then))

    def record_stmt(self, path, node) -> None:
        self._typing.append((path, node, self.typer.stmt, None))

    def type_now(self) -> T.Type:
        """Type the expression recorded last now, instead of in the type pass (a value worked out at load time,
        before it is evaluated: it reads no variable, so its type is known already). CompileProblem if it is a
        type error."""
        path, node, what, then = self._typing.pop()
        found = what(node)
        if then is not None:
            then(found)
        return found

    def variable(self, binding: Binding, whole: Callable, capacity: int | None = None) -> None:
        """Declare a variable's binding: `whole(place type)` is the type of the binding (a place, a list of
        places per seat or a table of places by key); `capacity` the most items a list it holds may hold."""
        self._var_places[id(binding)] = (binding, whole)
        if capacity is not None:
            self._capacities[id(binding)] = capacity

    def typed_function(self, name: str, params: list) -> None:
        """Declare a function's or procedure's params (bindings): each is typed by the arguments of every call."""
        self._functions_typed[name] = params

    def function_value(self, name: str):
        """then() of a function's value (see code()): what it gives is the type of calls of it."""
        def then(found):
            previous = self._returned.get(name)
            self._returned[name] = found if previous is None else T.join(previous, found)
        return then

    def input_given(self, name: str, k: int):
        """then() of the value a compound move gives input k of move `name`: typed as an argument of a call."""
        def then(found):
            count = len(self._functions_typed.get(("inputs", name), ()))
            self._called(("inputs", name), [found if i == k else T.NOTHING for i in range(count)])
        return then

    def _called(self, name, arg_types: list) -> None:
        if name in self._functions_typed:
            previous = self._calls.get(name)
            self._calls[name] = list(arg_types) if previous is None else \
                [T.join(a, b) for a, b in zip(previous, arg_types)]

    def _assigned(self, binding: Binding | None, value: T.Type, levels: int = 0, key: T.Type | None = None) -> None:
        if binding is None:  # an item given through a name that may hold a variable's list
            self._aliased = True
        elif id(binding) in self._var_places:
            given, at = (self._given, id(binding)) if levels == 0 else (self._items_given, (id(binding), levels))
            previous = given.get(at)
            given[at] = value if previous is None else T.join(previous, value)
            if key is not None and levels:  # the key of a table's entry given, at that level
                previous = self._keys_given.get(at)
                self._keys_given[at] = key if previous is None else T.join(previous, key)

    # -- the type pass -----------------------------------------------------------------------------------------
    def check_types(self) -> None:
        """Settle every variable's type, then type everything recorded, reporting each type error where it is."""
        places = {key: None for key in self._var_places}  # the type of each variable's places, once known
        # a function's params and value, typed like variables: from every call, and from what it gives
        args = {name: [None] * len(params) for name, params in self._functions_typed.items()}
        gives = dict.fromkeys(self._functions_typed)
        growing: set = set()  # variables whose lists a pass found longer than the pass before
        for _ in range(ROUNDS):
            for key, (binding, whole) in self._var_places.items():
                # a variable no pass has found a value for yet holds NOTHING: nothing is refused for it, and
                # what is computed from it adds nothing to what is given to variables
                binding.type = T.NOTHING if places[key] is None else whole(places[key])
            self._set_function_types(args, gives)
            self._given, self._calls, self._returned, self._items_given, self._keys_given = {}, {}, {}, {}, {}
            self._aliased = False
            self._pass(report=False)
            changed = False
            for key in self._var_places:
                given = self._given.get(key, T.NONE_T)  # (a variable with no initial value starts as none)
                place = T.widen(given)  # (worked out afresh: a pass before may have seen less)
                for (at, levels), item in self._items_given.items():
                    if at == key:
                        place = _with_items(place, item, levels, self._keys_given.get((at, levels)))
                # the items of its lists are followed where every change of them is seen: given through the
                # variable itself
                place = shallow(place) if self._aliased else place
                # its lists keep the bound on their length unless they grow: a pass finding them longer; or
                # the capacity it declares
                if key in self._capacities:
                    place = bounded(place, self._capacities[key])
                elif key in growing or places[key] is not None and place != places[key] and \
                        unbounded(place) == unbounded(places[key]):
                    growing.add(key)
                    place = unbounded(place)
                if place != places[key]:
                    places[key], changed = place, True
            for name in self._functions_typed:
                found = [_settle(None, new) for new in self._calls.get(name) or [None] * len(args[name])]
                value = _settle(None, self._returned.get(name))
                if found != args[name] or value != gives[name]:
                    args[name], gives[name], changed = found, value, True
            if not changed:
                break
        else:
            places = dict.fromkeys(places, T.ANY)
            args = {name: [T.ANY] * len(found) for name, found in args.items()}
            gives = dict.fromkeys(gives, T.ANY)
        for key, (binding, whole) in self._var_places.items():
            binding.type = whole(places[key])
        # a function never called, or whose value no pass could type, is typed by none of its calls: ANY
        self._set_function_types({n: [T.ANY if a is None else a for a in found] for n, found in args.items()},
                                 {n: T.ANY if g is None else g for n, g in gives.items()})
        self.typer.types = {}  # the last pass's types are the IR's nodes' (see ir/build.py)
        self._pass(report=True)

    def record_of(self, rules):
        """typed_by of a name holding a record of a move's values (last_move, a simultaneous step's choices):
        the fields of every move in `rules()` (params and lets), with `by` and `kind`, each typed as the move
        types it."""
        def typed() -> T.Type:
            fields = {"by": T.SEAT, "kind": T.TEXT_T}
            for rule in rules():
                for name, binding in getattr(rule, "bindings", {}).items():
                    found = self.typer.binding_type(binding)
                    fields[name] = found if name not in fields else T.join(fields[name], found)
            return T.record(**dict(sorted(fields.items())))
        return typed

    def _set_function_types(self, args: dict, gives: dict) -> None:
        for name, params in self._functions_typed.items():
            for binding, found in zip(params, args[name]):
                binding.type = T.NOTHING if found is None else found
            self.typer.returns[name] = T.NOTHING if gives[name] is None else gives[name]

    def ir_records(self) -> list:
        """Every expression and statement recorded: (path, IR node), for the IR."""
        return [(path, node) for path, node, _, _ in self._typing]

    def holder_type(self, name: str) -> T.Type:
        """The type the type pass gave a name of the file (a variable, a zone, a constant)."""
        b = self.root.lookup(name)
        return T.ANY if b is None else self.typer.binding_type(b)

    def _pass(self, report: bool) -> None:
        for path, node, what, then in self._typing:
            try:
                found = what(node)
            except CompileProblem as exc:
                if report:
                    self._expr_problem(path, exc, None)
                found = T.ANY  # (what it names is not typed further: no knock-on errors)
            if then is not None:
                try:
                    then(found)
                except CompileProblem as exc:
                    if report:
                        self._expr_problem(path, exc, None)


def _settle(old: T.Type | None, new: T.Type | None) -> T.Type | None:
    """A param's or a value's type after a pass: what it was, joined with what the pass found (None: nothing
    yet), widened (a function is called with many numbers, not one). Unlike a variable's, the items of its lists
    keep their type: a value passed or given is not a place that other names change."""
    if new is None or new == T.NOTHING:
        return old
    return T.widen(new if old is None else T.join(old, new))


def _with_items(place: T.Type, item: T.Type, levels: int = 1, key: T.Type | None = None) -> T.Type:
    """A place's type, the items of its lists (or the values of its tables, their keys also of type `key`)
    `levels` deep also of type `item`."""
    inner = (lambda t: T.widen(T.join(t, item))) if levels == 1 else \
        (lambda t: _with_items(t, item, levels - 1, key))
    if place.name in ("list", "seq"):
        return T.Type(place.name, (inner(place.items[0]),), high=place.high)
    if place.name == "table":
        keys = T.widen(T.join(place.items[0], key)) if levels == 1 and key is not None else place.items[0]
        return T.table(keys, inner(place.items[1]))
    if place.name == "union":
        return T.union(*(_with_items(m, item, levels, key) for m in place.items))
    if place.name == "tuple" and levels == 1:  # (an item of a tuple is never given: tuples do not change)
        return place
    return T.ANY if place.name not in ("nothing", "none") else place


def bounded(t: T.Type, most: int) -> T.Type:
    """t, its lists (of a union's members) at most `most` long."""
    if t.name in ("list", "seq"):
        return T.Type(t.name, t.items, high=most)
    if t.name == "union":
        return T.union(*(bounded(m, most) for m in t.items))
    return t


def unbounded(t: T.Type) -> T.Type:
    """t with no bound on the length of its lists: a variable's list may grow by every move."""
    if t.name in ("list", "seq"):
        return T.Type(t.name, (unbounded(t.items[0]),))
    if t.name in ("tuple", "union", "table"):
        return T.Type(t.name, tuple(unbounded(i) for i in t.items), t.names, t.low, t.high) if t.name != "union" \
            else T.union(*(unbounded(i) for i in t.items))
    return t


def shallow(t: T.Type) -> T.Type:
    """t with the items of lists and the values of tables left unknown: any name holding the same list may
    change them, which no pass sees."""
    if t.name == "list":
        return T.list_()
    if t.name == "table":
        return T.table(t.items[0], T.ANY)
    if t.name in ("tuple", "seq"):
        return T.Type(t.name, tuple(shallow(i) for i in t.items), t.names, t.low, t.high)
    if t.name == "union":
        return T.union(*(shallow(m) for m in t.items))
    return t
