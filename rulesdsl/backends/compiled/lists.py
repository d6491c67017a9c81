"""More built-ins and effects printed for compiled code (a mixin of printer.Printer): sorted() (reversed too),
combinations(), permutations() and subsets(), first(), last(), take_while(), min() and max() of values,
next_seat(), values(), remove(), `player = seat`, and operands that may hold none, each as the Python engine
computes it (its errors too)."""

from __future__ import annotations

from ...ir import nodes as N
from ...lang import types as T
from ...lang.builtins import SUBSETS_HELD, choice_size_refused, choices_past_limit, subsets_items
from ...lang.checked import too_many
from .messages import MadeMessage
from .places import _may_be_none

_ORDERED = frozenset({"int", "seat", "cell", "bool"})  # kinds whose order is their whole number's order


def _holds_piece(t) -> bool:
    return t.name == "piece" or t.name == "union" and any(m.name == "piece" for m in t.items)


def _ordered(t) -> bool:
    kinds = {m.name for m in t.items} if t.name == "union" else {t.name}
    return kinds <= _ORDERED


class ListBuiltins:
    """Built-ins (`b_<name>(node, env) -> (code, rep)`) and effects (`e_<name>(call, env) -> lines`) as in
    printer.Printer."""

    def b_sorted(self, node, env):
        reverse = dict(node.kwargs).get("reverse")
        if len(node.args) != 1 or set(dict(node.kwargs)) - {"reverse"}:
            raise self.unsupported(node, "sorted() with a key")
        item = node.type.items[0] if node.type.name == "list" and node.type.items else node.type
        seq, rep = self.ex(node.args[0], env)
        if rep != "a" or not _ordered(item):
            raise self.unsupported(node, "sorted() of anything but whole numbers, seats or cells")
        if reverse is not None:  # (equal items are the same number: reversed, the order is Python's stable one)
            self.m.functions.setdefault(("helper", "sorted_down"), ("_sorted_down", SORTED_DOWN))
            return f"_sorted_down({seq}, {self.scalar(reverse, env)})", "a"
        return f"_rt.sorted_copy({seq})", "a"

    def b_combinations(self, node, env):
        return self._choices(node, env, "combinations", 2)

    def b_permutations(self, node, env):
        return self._choices(node, env, "permutations", 1)

    def b_subsets(self, node, env):
        """subsets(xs) of a list of single values: ragged rows ("ar": each row its length, then its items), which
        only a loop or a param's values read."""
        if node.kwargs or len(node.args) != 1:
            raise self.unsupported(node, "this call of subsets()")
        seq, rep = self.ex(node.args[0], env)
        if rep != "a":
            raise self.unsupported(node, "subsets() of anything but a list of single values")
        limit = self.m.code(MadeMessage(lambda n: str(too_many(subsets_items(n), SUBSETS_HELD))), node.at[0])
        return f"_rt.subsets({seq}, {limit!r})", "ar"

    def _choices(self, node, env, name: str, least: int):
        """combinations(xs, k) or permutations(xs, k=len(xs)) of a list of single values: rows of k items."""
        if node.kwargs or not least <= len(node.args) <= 2:
            raise self.unsupported(node, f"this call of {name}()")
        seq, rep = self.ex(node.args[0], env)
        if rep != "a":
            raise self.unsupported(node, f"{name}() of anything but a list of single values")
        size = self.scalar(node.args[1], env) if len(node.args) == 2 else f"{seq}.shape[0]"
        if len(node.args) == 2 and _may_be_none(node.args[1], self.ir):
            raise self.unsupported(node.args[1], f"a size of {name}() that may be none")
        at = node.at[0]
        size_code = self.m.code(MadeMessage(lambda k: choice_size_refused(name, k)), at)
        limit_code = self.m.code(MadeMessage(lambda count, k: choices_past_limit(name, count, k)), at)
        return f"_rt.{name}({seq}, {size}, {size_code!r}, {limit_code!r})", "a2"

    def b_list(self, node, env):
        """list(xs) of a list of single values: the same items (compiled code never changes a list in place)."""
        if len(node.args) != 1 or node.kwargs:
            raise self.unsupported(node, "this call of list()")
        seq, rep = self.ex(node.args[0], env)
        if rep != "a":
            raise self.unsupported(node, "list() of anything but a list of single values")
        return seq, "a"

    def b_first(self, node, env):
        kwargs = dict(node.kwargs)
        if len(node.args) + len(kwargs) > 2 or set(kwargs) - {"default"}:
            raise self.unsupported(node, "this call of first()")
        given = node.args[1] if len(node.args) > 1 else kwargs.get("default")
        default = self._default(node, given, env)
        xs = node.args[0]
        if isinstance(xs, N.Comp):  # items worked out one by one up to the first, as Python's generator does
            free = self._free(xs, env)
            key = ("first", id(xs), tuple(env[name][1] for name in free))
            name = self.m.function(key, lambda fname: self._first_source(fname, xs, env, free))
            return f"{name}(s, me{''.join(', ' + env[n][0] for n in free)}, {default})", "i"
        seq, rep = self.ex(xs, env)
        if rep != "a":
            raise self.unsupported(node, "first() of this")
        return f"_rt.first_or({seq}[:1], {default})", "i"

    def _default(self, node, given, env) -> str:
        """The code of first()'s or last()'s default: `given`, else none (a number has no code left for none)."""
        if given is not None:
            return self.scalar(given, env)
        kinds = {m.name for m in node.type.items} if node.type.name == "union" else {node.type.name}
        if not kinds <= {"cell", "seat", "piece", "text", "none"}:
            raise self.unsupported(node, f"{node.func}() of numbers with no default (none is not told from -1)")
        return "0" if _holds_piece(node.type) else "-1"

    def _first_source(self, fname, comp, env, free) -> str:
        """A function giving the comprehension's first item, or its last argument when there is none (no list
        made: it runs at every ask)."""
        inner = {name: (f"a{i}", env[name][1]) for i, name in enumerate(free)}
        params = "".join(f", {inner[name][0]}" for name in free)
        lines, inner, pad = self._comprehension_loops(comp, inner, "    ")
        lines += [f"{pad}return {self.scalar(comp.elt, inner)}"]
        return "\n".join([f"@_jit\ndef {fname}(s, me{params}, otherwise):", *lines, "    return otherwise"])

    def b_take_while(self, node, env):
        comp = node.args[0]  # one comprehension with one `for` and a condition: the compiler refuses any other call
        free = self._free(comp, env)
        key = ("take_while", id(comp), tuple(env[name][1] for name in free))
        name = self.m.function(key, lambda fname: self._take_while_source(fname, comp, env, free))
        return f"{name}(s, me{''.join(', ' + env[n][0] for n in free)})", "a"

    def _take_while_source(self, fname, comp, env, free) -> str:
        """A function giving the comprehension's items up to the first whose condition fails (the loop ends
        there), as a list comprehension's function gives its items."""
        inner = {name: (f"a{i}", env[name][1]) for i, name in enumerate(free)}
        params = "".join(f", {inner[name][0]}" for name in free)
        (clause,) = comp.clauses
        seq, rep = self.ex(clause.iterable, inner)
        inner = dict(inner)
        lines = ["    out = np.empty(8, np.int64)", "    n = 0"]
        lines += self._loop_head(clause, seq, rep, inner, "0", "    ")
        for cond in clause.conds:
            lines += [f"        if not {self.scalar(cond, inner)}:", "            break"]
        lines += ["        if n == out.shape[0]:", "            out = _grown(out)",
                  f"        out[n] = {self.scalar(comp.elt, inner)}", "        n += 1"]
        return "\n".join([f"@_jit\ndef {fname}(s, me{params}):", *lines, "    return out[:n]"])

    def extreme_of_values(self, node, env, how: str):
        """max(a, b, ...) or min(a, b, ...) of whole numbers."""
        if node.kwargs or any(not _ordered(a.type) for a in node.args):
            raise self.unsupported(node, f"{how}() of values that are not whole numbers")
        return f"{how}({', '.join(self.scalar(a, env) for a in node.args)})", "i"

    def b_min(self, node, env):
        if len(node.args) > 1:
            return self.extreme_of_values(node, env, "min")
        return self.min_of_list(node, env)  # (arith.py)

    def b_next_seat(self, node, env):
        # nobody leaves a game compiled code plays (leave() is not taken), so no seat is passed over
        kwargs = dict(node.kwargs)
        if not 1 <= len(node.args) <= 2 or set(kwargs) - {"k"} or len(node.args) == 2 and kwargs:
            raise self.unsupported(node, "this call of next_seat()")
        given = node.args[1] if len(node.args) == 2 else kwargs.get("k")
        step = self.scalar(given, env) if given is not None else "1"
        return f"(({self.scalar(node.args[0], env)} + {step}) % NS)", "i"

    def b_last(self, node, env):
        kwargs = dict(node.kwargs)
        if len(node.args) + len(kwargs) > 2 or set(kwargs) - {"default"} or not node.args:
            raise self.unsupported(node, "this call of last()")
        given = node.args[1] if len(node.args) > 1 else kwargs.get("default")
        seq, rep = self.ex(node.args[0], env)
        if rep == "a2" and given is None:  # a list of tuples: its last row (routes.py)
            return self.last_row(node, seq), "a"
        default = self._default(node, given, env)
        if rep != "a":
            raise self.unsupported(node, "last() of this")
        return f"_rt.first_or({seq}[::-1], {default})", "i"

    def whole_valued(self, node) -> bool:
        """Whether `node` gives a whole number though its type says only a number: a sum of whole numbers, or
        + - * // % of such values (the type pass types a sum() of a comprehension as a number)."""
        if node.type.name == "int" or self.whole_product(node):  # (a product of whole numbers: arith.py)
            return True
        if isinstance(node, N.Binary) and node.op in ("+", "-", "*", "//", "%"):
            return self.whole_valued(node.left) and self.whole_valued(node.right)
        if isinstance(node, N.Call) and node.target == "builtin" and node.func == "sum" and len(node.args) == 1 \
                and not node.kwargs and isinstance(node.args[0], N.Comp):
            return self.whole_valued(node.args[0].elt)
        return False

    def b_values(self, node, env):
        if len(node.args) != 1 or node.kwargs:
            raise self.unsupported(node, "this call of values()")
        form = self.keyed.form(node.args[0])  # a table variable (keyed.py)
        if form is not None:
            return self.keyed.values(node.args[0], form)
        found = self.places.table_values(node.args[0], env)
        if found is None:
            raise self.unsupported(node, "values() of anything but a table variable or an item of a list of tables")
        return found

    def assign_player(self, node, env):
        """The lines of `player = seat`: whose turn it is, checked to be a seat as the Python engine checks it
        when play goes on; None for an assignment to anything else."""
        target = node.target
        if not (isinstance(target, N.Ref) and target.kind == "engine" and target.name == "player"):
            return None
        if node.op != "=":
            raise self.unsupported(node, f"the assignment {node.op} to player")
        error = self.m.code("the player whose turn it is became {0}, which is no seat", node.at[0],
                            f"seats are 0 to {self.t.seats - 1}")
        return [f"s[O_player] = _fits({self.scalar(node.value, env)}, 0, NS - 1, {error!r})"]

    def operand(self, node, other, op: str, env, left: bool = True, compare: bool = False) -> str:
        """Code of an operand of `op` (`other` the other operand): a variable holding a number or none is
        checked to hold a number, failing with the TypeError Python gives for none there."""
        if not self.places.number_or_none(node):
            return self.scalar(node, env)
        kind = other.type.name
        named = "bool" if kind == "bool" else "NoneType" if kind == "none" else "int"
        pair = ("'NoneType'", f"'{named}'") if left else (f"'{named}'", "'NoneType'")
        if compare:
            message = f"TypeError: '{op}' not supported between instances of {pair[0]} and {pair[1]}"
        else:
            message = f"TypeError: unsupported operand type(s) for {op}: {pair[0]} and {pair[1]}"
        form = self.places.slot(node).form
        code = self.m.code(message, node.at[0])
        return (f"_rt.some({self.places._at(form.tag, '0')}, {self.places._atom(form.members[1], '0')}, "
                f"{code!r})")


SORTED_DOWN = '''@_jit
def _sorted_down(xs, reverse):
    up = _rt.sorted_copy(xs)
    return up[::-1].copy() if reverse else up'''
