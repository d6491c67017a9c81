"""Values of two kinds, a cell or a text (a mixin of printer.Printer): a chance outcome or a param that is a slot of
the board or a word such as 'out', held in one whole number.

A cell is its index (0 and up), none is -1, and text number t is -2 - t, so that a value of either kind is told by
its sign and none stays none when a text becomes a value of two kinds. A text (or a list of texts) meeting a value
of two kinds, in ==, !=, in or a list joined by +, is turned into this form first; a value of two kinds used where
a cell is needed (place(), at(), empty(), an attribute of a cell) is checked to be one, failing as the Python
engine fails on a text there.
"""

from __future__ import annotations

from ...ir import nodes as N
from ...lang import types as T
from .messages import ValueMessage
from .unsupported import Unsupported

_MIXED = '''@_jit
def _mixed_cell(x, code):
    if x < 0:
        raise ValueError(code, x)
    return _cell(x)


@_jit
def _mixed_texts(xs):
    out = np.empty(xs.shape[0], np.int64)
    for i in range(xs.shape[0]):
        out[i] = -2 - xs[i]
    return out'''


def kinds(t: T.Type) -> set:
    """The kinds a value of type `t` may be."""
    return {m.name for m in t.items} if t.name == "union" else {t.name}


def is_mixed(t: T.Type) -> bool:
    """Whether a value of type `t` may be a cell or a text (or none), both kinds among them."""
    found = kinds(t)
    return {"cell", "text"} <= found and found <= {"cell", "text", "none"}


def _item(t: T.Type) -> T.Type | None:
    return t.items[0] if t.name in ("list", "seq") and t.items else None


class MixedValues:
    """Printing values that are a cell or a text; see the module's docstring."""

    def mixed_helpers(self) -> None:
        self.m.functions.setdefault(("helper", "mixed"), ("_mixed_cell", _MIXED))

    def as_mixed(self, node, code: str, rep: str) -> str:
        """`code` (of `node`, a single value or a list) as values of two kinds: texts turned, cells as they are."""
        t = node.type if rep == "i" else _item(node.type)
        if t is None:
            raise Unsupported(self.m.locate(node), "a list of values of two kinds whose items are not known")
        found = kinds(t)
        if is_mixed(t) or found <= {"cell", "none"}:
            return code
        if found <= {"text", "none"}:
            self.mixed_helpers()
            return f"(-2 - {code})" if rep == "i" else f"_mixed_texts({code})"
        raise Unsupported(self.m.locate(node), f"{T.describe(t)} beside values of two kinds (a cell or a text)")

    def mixed_cell(self, node, env, message: str) -> str:
        """The cell a value of two kinds (`node`) holds; the located error `message` ({0}: the value) when it is a
        text or none."""
        self.mixed_helpers()
        code = self.m.code(ValueMessage(message, self._mixed_shown(repr_text=False)), node.at[0])
        return f"_mixed_cell({self.scalar(node, env)}, {code!r})"

    def _mixed_shown(self, repr_text: bool):
        texts = self.m.texts

        def shown(x: int):
            if x == -1:
                return "None"
            text = next((t for t, n in texts.items() if n == -2 - x), None)
            return x if text is None else repr(text) if repr_text else text
        return shown

    def mixed_index_cell(self, node, env) -> str:
        """at() or empty() of a value of two kinds: Python indexes the board with it (a text: TypeError)."""
        self.mixed_helpers()
        code = self.m.code(ValueMessage("TypeError: list indices must be integers or slices, not {0}",
                                        lambda x: "NoneType" if x == -1 else "str"), node.at[0])
        return f"_mixed_cell({self.scalar(node, env)}, {code!r})"

    def mixed_attribute_cell(self, node, env, name: str) -> str:
        """The cell whose attribute `name` is read, of a value of two kinds (a text: AttributeError)."""
        self.mixed_helpers()
        code = self.m.code(ValueMessage(f"AttributeError: '{{0}}' object has no attribute '{name}'",
                                        lambda x: "NoneType" if x == -1 else "str"), node.at[0])
        return f"_mixed_cell({self.scalar(node, env)}, {code!r})"

    def mixed_compared(self, a, b, env) -> tuple | None:
        """The codes of the sides of == or != when one is a value of two kinds (the other turned to match), else
        None."""
        if not (is_mixed(a.type) or is_mixed(b.type)):
            return None
        if isinstance(a, N.Const) and a.value is None or isinstance(b, N.Const) and b.value is None:
            return None
        return tuple(self.as_mixed(n, self.scalar(n, env), "i") for n in (a, b))

    def mixed_contains(self, a, b, env) -> tuple | None:
        """(item, list) codes of `a in b` when either holds values of two kinds, else None."""
        item = _item(b.type)
        if not (is_mixed(a.type) or item is not None and is_mixed(item)):
            return None
        seq, rep = self.ex(b, env)
        if rep != "a":
            return None
        return self.as_mixed(a, self.scalar(a, env), "i"), self.as_mixed(b, seq, "a")

    def mixed_joined(self, node, env) -> tuple | None:
        """A list of values of two kinds joined by +, else None."""
        item = _item(node.type)
        if item is None or not is_mixed(item):
            return None
        (left, a), (right, b) = self.ex(node.left, env), self.ex(node.right, env)
        if a != "a" or b != "a":
            return None
        return f"_rt.concat({self.as_mixed(node.left, left, 'a')}, {self.as_mixed(node.right, right, 'a')})", "a"

    def mixed_items(self, node, items: list, reps: list) -> list:
        """The codes of a list's items written out (`node`, a Display) or of a condition's two branches (a Cond),
        turned into values of two kinds where the list or the condition gives them."""
        t = _item(node.type) if isinstance(node, N.Display) else node.type
        if t is None or not is_mixed(t):
            return items
        parts = node.items if isinstance(node, N.Display) else (node.then, node.other)
        return [self.as_mixed(part, code, rep) if rep == "i" else code for part, code, rep in zip(parts, items, reps)]

    def mixed_args(self, fn, nodes, args: list) -> list:
        """The (code, rep) of a call's arguments, those given to a param that holds values of two kinds turned into
        that form (a text given where a cell may be given too)."""
        out = []
        for name, node, (code, rep) in zip(fn.params, nodes, args):
            typed = next((n.type for n in N.walk(fn.value) if isinstance(n, N.Ref) and n.kind == "arg"
                          and n.name == name), None)
            if typed is None and fn.lets:
                typed = next((n.type for let in fn.lets for n in N.walk(let.value) if isinstance(n, N.Ref)
                              and n.kind == "arg" and n.name == name), None)
            if typed is not None and is_mixed(typed) and rep == "i":
                code = self.as_mixed(node, code, rep)
            out.append((code, rep))
        return out

    def refuse_ordered_mixed(self, node, a, b) -> None:
        """<, <=, > and >= between a value of two kinds and another are not taken (Python's order of a cell and a
        text is a TypeError)."""
        if is_mixed(a.type) or is_mixed(b.type):
            raise Unsupported(self.m.locate(node), "an order comparison of values that may be a cell or a text")

