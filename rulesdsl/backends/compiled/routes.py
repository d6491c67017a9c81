"""route() and walk() along any declared links (model/builtins/links.py) in compiled code, and the lists of tuples
they give: links that run out somewhere (route and walk then give none), keyed by tuples (a colour and a lane, say),
named by a text worked out while playing.

A list that may be none is held with a first entry telling which (rep `m`: [1, items...] or [0]; rep `m2`: a first
row [1, 0...] or [0, 0...], then the rows). `== none` and `!= none` read that entry; any other use of the value
goes through _some1/_some2, which fail as Python fails on none where it is none, so a value is never read as a list
where Python has none. A tuple is a row of whole numbers, a nested tuple's items one column each (as a move's row
holds them: parts.width); lists of tuples are rows (rep `a2`), made by list comprehensions and displays of tuples.
"""

from __future__ import annotations

from ...ir import nodes as N
from ...limits import MAX_ITEMS
from .parts import width

MAYBE = {"m": "a", "m2": "a2"}

HELPERS = {
    "route": '''@_jit
def _route(names, keys, nexts, switches, name, key, c, steps, missing, many):
    row = -1
    for r in range(names.shape[0]):
        if names[r] == name and key.shape[0] == keys.shape[1] - 1:
            same = True
            for j in range(key.shape[0]):
                if keys[r, j + 1] != key[j]:
                    same = False
            if same:
                row = r
                break
    if row < 0:
        raise ValueError(missing)
    if steps > MAX_ROUTE:
        raise ValueError(many, steps)
    n = max(steps, 0)
    kw = keys.shape[1] - 1
    out = np.zeros((n + 1, 1 + kw), np.int64)
    for i in range(n):
        nxt = nexts[row, c]
        if nxt < 0:
            return out[:1]
        if switches[row, c] >= 0:
            row = switches[row, c]
        c = nxt
        out[i + 1, 0] = c
        for j in range(kw):
            out[i + 1, 1 + j] = keys[row, j + 1]
    out[0, 0] = 1
    return out''',
    "some1": '''@_jit
def _some1(xs, code):
    if xs[0] != 1:
        raise ValueError(code)
    return xs[1:]''',
    "some2": '''@_jit
def _some2(xs, code):
    if xs[0, 0] != 1:
        raise ValueError(code)
    return xs[1:]''',
    "rows_grown": '''@_jit
def _rows_grown(out):
    bigger = np.empty((2 * out.shape[0], out.shape[1]), np.int64)
    bigger[:out.shape[0]] = out
    return bigger''',
    "concat_rows": '''@_jit
def _concat_rows(a, b):
    if a.shape[1] != b.shape[1]:
        raise IndexError("rows of another length than the list's")
    if a.shape[0] + b.shape[0] > MAX_ROUTE:
        raise ValueError("a list of more than 1,000,000 items")
    out = np.empty((a.shape[0] + b.shape[0], a.shape[1]), np.int64)
    out[:a.shape[0]] = a
    out[a.shape[0]:] = b
    return out''',
    "last_row": '''@_jit
def _last_row(xs, code):
    if xs.shape[0] == 0:
        raise ValueError(code)
    return xs[xs.shape[0] - 1]''',
}


class RouteBuiltins:
    """Printer methods (mixed into printer.Printer) for route(), walk() along any links, and lists of tuples."""

    def helper(self, name: str) -> str:
        self.m.functions.setdefault(("helper", name), (f"_{name}", HELPERS[name].replace("MAX_ROUTE", str(MAX_ITEMS))))
        return f"_{name}"

    # -- values that may be none ------------------------------------------------------------------------------
    def raw(self, node, env) -> tuple:
        """(code, rep) of an expression, a list that may be none left as it is (rep m or m2)."""
        method = getattr(self, "x_" + node.__class__.__name__, None)
        if method is None:
            raise self.unsupported(node, f"{node.__class__.__name__.lower()} expressions")
        return method(node, env)

    def some(self, node, code: str, rep: str) -> tuple:
        """A list that may be none, read as a list: Python's failure where it is none."""
        error = self.m.code("TypeError: 'NoneType' object is not iterable", node.at[0])
        return f"{self.helper('some1' if rep == 'm' else 'some2')}({code}, {error!r})", MAYBE[rep]

    def none_test(self, node, env) -> str | None:
        """`x == none` or `x != none` of a list that may be none, else None."""
        if len(node.ops) != 1 or node.ops[0] not in ("==", "!="):
            return None
        a, b = node.operands
        if isinstance(a, N.Const) and a.value is None or _empty(a):
            a, b = b, a
        if _empty(b) and not _empty(a):  # a list against [] written out: whether it holds anything
            code, rep = self.ex(a, env)
            if rep in ("a", "a2"):
                return f"({code}.shape[0] {'==' if node.ops[0] == '==' else '!='} 0)"
            return None
        if not (isinstance(b, N.Const) and b.value is None) or not _maybe_list(a.type):
            return None
        code, rep = self.raw(a, env)
        if rep not in MAYBE:
            return None
        flag = f"{code}[0]" if rep == "m" else f"{code}[0, 0]"
        return f"({flag} {'!=' if node.ops[0] == '==' else '=='} 1)"

    def single_clause(self, clause, env, tag: str, pad: str) -> list | None:
        """`for x in [value]`: x bound to the value itself (a list that may be none kept as it is), in a loop run
        once (so that the clause's conditions may skip it); None for any other clause."""
        items = clause.iterable.items if isinstance(clause.iterable, N.Display) else None
        if clause.iterable.__class__ is not N.Display or clause.iterable.kind != "list" or len(items) != 1 \
                or len(clause.targets) != 1:
            return None
        code, rep = self.raw(items[0], env)
        env[clause.targets[0].name] = (f"l{tag}", rep)
        return [f"{pad}for i{tag} in range(1):", f"{pad}    l{tag} = {code}"]

    # -- route() and walk() -----------------------------------------------------------------------------------
    def b_route(self, node, env):
        return self.routed(node, env, "route")

    def routed(self, node, env, fn: str) -> tuple:
        """route() (rep m2: rows of the cell and the key's columns) or walk() (rep m: cells) along any links."""
        kwargs = dict(node.kwargs)
        args = list(node.args) + ([kwargs.pop("key")] if "key" in kwargs and len(node.args) == 3 else [])
        if kwargs or not 3 <= len(args) <= 4:
            raise self.unsupported(node, f"this call of {fn}()")
        name = args[0]
        names = [name.value] if isinstance(name, N.Const) else list(name.type.names) if name.type.name == "text" \
            and name.type.names else None
        if not names or not all(isinstance(n, str) for n in names):
            raise self.unsupported(node, f"{fn}() along links not named by a text known at load")
        tables = self._route_tables(node, names)
        if len(args) == 4:
            key, rep = self.ex(args[3], env)
            if rep == "i":
                key = f"np.array([{key}], np.int64)"
            elif rep != "a":
                raise self.unsupported(node, f"{fn}() with a key that is not a value or a tuple of values")
        else:
            key = "np.empty(0, np.int64)"
        at = node.at[0]
        missing = self.m.code(f"no link '{names[0]}' for this key" if len(names) == 1 else "no such link for this key",
                              at)
        many = self.m.code(f"the cells of {fn}() would hold {{0:,}} items; the language allows at most "
                           f"{MAX_ITEMS:,}", at)
        code = (f"{self.helper('route')}({', '.join(tables)}, {self.scalar(name, env)}, {key}, "
                f"_cell({self.scalar(args[1], env)}), {self.scalar(args[2], env)}, {missing!r}, {many!r})")
        if fn == "walk":
            return f"{code}[:, 0]", "m"
        return code, "m2"

    def _route_tables(self, node, names) -> tuple:
        """(each row's link name, each row's key columns after a first 0, next cell per row and cell or -1, the row
        a link switches to or -1) over every (link, key) of the links `names`."""
        board = self.t.rules.board
        rows, widths = [], set()
        for name in names:
            if name not in board.links:
                raise self.unsupported(node, f"a link named '{name}', which is no link")
            for key in board.links[name]:
                columns = self._key_columns(node, key)
                widths.add(len(columns))
                rows.append((name, key, columns))
        if len(widths) > 1:
            raise self.unsupported(node, "links keyed by values of several shapes")
        index = {(name, key): r for r, (name, key, _) in enumerate(rows)}
        nexts, switched = [], []
        for name, key, _ in rows:
            nexts.append([-1 if c is None else int(c) for c in board.links[name][key]])
            to = board.link_switches[name][key]
            if any(k is not None and (name, k) not in index for k in to):
                raise self.unsupported(node, f"the link '{name}' switching to a key it has no links for")
            switched.append([-1 if k is None else index[name, k] for k in to])
        label = tuple(names)
        return (self.m.table(("route names", label), [self.m.text(name) for name, _, _ in rows]),
                self.m.table(("route keys", label), [[0, *columns] for _, _, columns in rows], 2),
                self.m.table(("route next", label), nexts, 2), self.m.table(("route switch", label), switched, 2))

    def _key_columns(self, node, key) -> list:
        parts = () if key is None else key if isinstance(key, tuple) else (key,)
        found = [self._single(part) for part in parts]
        if None in found or any(isinstance(p, (tuple, list)) for p in parts):
            raise self.unsupported(node, "links keyed by values other than numbers, texts, cells or tuples of them")
        return [int(f) for f in found]

    # -- tuples and lists of them -----------------------------------------------------------------------------
    def tuple_display(self, node, env) -> tuple:
        """A tuple written out: a row of its items (a nested tuple's items one column each)."""
        columns = []
        for item in node.items:
            code, rep = self.ex(item, env)
            if rep == "i":
                columns.append(code)
            elif rep == "a" and item.type.name == "tuple":
                columns += [f"{code}[{j}]" for j in range(width(item.type))]
            else:
                raise self.unsupported(item, "a tuple holding a list")
        return f"np.array([{', '.join(columns)}], np.int64)", "a"

    def rows_display(self, node, env) -> tuple | None:
        """A list of tuples written out (rows of one length), else None."""
        if not node.items or not all(isinstance(i, N.Display) and i.kind == "tuple" for i in node.items):
            return None
        rows = [self.tuple_display(item, env)[0][len("np.array(["):-len("], np.int64)")] for item in node.items]
        if len({width(i.type) for i in node.items}) != 1:
            raise self.unsupported(node, "a list of tuples of several lengths")
        return f"np.array([{', '.join('[' + r + ']' for r in rows)}], np.int64)", "a2"

    def empty_rows(self, node) -> str | None:
        """The code of an empty list of the tuples of type node.type, or None when they are not tuples."""
        item = node.type.items[0] if node.type.name in ("list", "seq") and node.type.items else None
        if item is None or item.name != "tuple":
            return None
        return f"np.zeros((0, {width(item)}), np.int64)"

    def tuple_item(self, node, env) -> tuple | None:
        """tuple[i] (i a constant) of a tuple holding tuples: its columns, else None."""
        t = node.obj.type
        if t.name == "union" and len([m for m in t.items if m.name != "none"]) == 1:  # (last() of a list of tuples)
            t = next(m for m in t.items if m.name != "none")
        if t.name != "tuple" or not t.items or not isinstance(node.index, N.Const) \
                or not any(item.name == "tuple" for item in t.items):
            return None
        i = node.index.value
        if not isinstance(i, int) or not -len(t.items) <= i < len(t.items):
            return None
        i %= len(t.items)
        seq, rep = self.ex(node.obj, env)
        if rep != "a":
            return None
        start = sum(width(item) for item in t.items[:i])
        wide = width(t.items[i])
        return (f"{seq}[{start}:{start + wide}]", "a") if t.items[i].name == "tuple" else (f"{seq}[{start}]", "i")

    def lifted_rows(self, comp, env) -> tuple:
        """A list comprehension of tuples as a function of its own, filling rows."""
        free = self._free(comp, env)
        key = ("comp rows", id(comp), tuple(env[name][1] for name in free))
        name = self.m.function(key, lambda fname: self._rows_source(fname, comp, env, free))
        return f"{name}(s, me{''.join(f', {env[n][0]}' for n in free)})", "a2"

    def _rows_source(self, fname, comp, env, free) -> str:
        inner = {name: (f"a{i}", env[name][1]) for i, name in enumerate(free)}
        wide = width(comp.elt.type)
        loops, inner, pad = self._comprehension_loops(comp, inner, "    ")
        row, _ = self.tuple_display(comp.elt, inner)
        lines = [f"    out = np.empty((8, {wide}), np.int64)", "    n = 0", *loops,
                 f"{pad}if n == out.shape[0]:", f"{pad}    out = {self.helper('rows_grown')}(out)",
                 f"{pad}out[n] = {row}", f"{pad}n += 1"]
        params = "".join(f", a{i}" for i in range(len(free)))
        return "\n".join([f"@_jit\ndef {fname}(s, me{params}):", *lines, "    return out[:n]"])

    def last_row(self, node, seq: str) -> str:
        code = self.m.code("TypeError: 'NoneType' object is not subscriptable", node.at[0])
        return f"{self.helper('last_row')}({seq}, {code!r})"

    def concat_rows(self, left: str, right: str) -> str:
        return f"{self.helper('concat_rows')}({left}, {right})"



def _empty(node) -> bool:
    return isinstance(node, N.Display) and node.kind == "list" and not node.items


def _maybe_list(t) -> bool:
    return t.name == "union" and {m.name for m in t.items} == {"none", "list"}
