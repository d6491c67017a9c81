"""with_attr() and set_attr() in compiled code (model/builtins/pieces.py): a piece's id with some attributes
changed, worked out from the layout's table of pieces (ids of a kind in mixed radix over its attributes' values, the
last changing fastest: ir/layout.py Kind), one function per set of attributes changed."""

from __future__ import annotations


class AttrBuiltins:
    """Printer methods (mixed into printer.Printer) for pieces with attributes changed."""

    def b_with_attr(self, node, env):
        if len(node.args) != 1 or not node.kwargs:
            raise self.unsupported(node, "with_attr() with these arguments")
        return self._with_attr(node, self.scalar(node.args[0], env), env), "i"

    def e_set_attr(self, call, env) -> list:
        if len(call.args) != 1 or not call.kwargs or call.args[0].type.name != "cell":
            raise self.unsupported(call, "set_attr() with these arguments")
        cell = self.field("cells", "ac")
        return [f"ac = _cell({self.scalar(call.args[0], env)})", f"{cell} = {self._with_attr(call, cell, env)}"]

    def _with_attr(self, node, piece: str, env) -> str:
        """The code of the id of `piece` (code) with the attributes of `node`'s keywords changed."""
        names = tuple(name for name, _ in node.kwargs)
        self.t.pieces(self, node)  # (every piece can be made: else Unsupported here)
        empty = self.m.code("with_attr() of none: the cell is empty", node.at[0])
        key = ("with_attr", names)
        fname = self.m.function(key, lambda f: self._with_attr_source(f, node, names))
        values = "".join(f", {self.scalar(value, env)}" for _, value in node.kwargs)
        other = self.m.code("with_attr(): the value is not a piece", node.at[0])
        return f"{fname}({piece}, {empty!r}, {other!r}{values})"

    def _with_attr_source(self, fname: str, node, names: tuple) -> str:
        lines = [f"@_jit\ndef {fname}(p, empty, lacks{''.join(f', v{i}' for i in range(len(names)))}):",
                 "    if p <= 0:", "        raise ValueError(empty)"]
        for kind in self.t.layout.kinds:
            attributes = [a for a, _ in kind.attributes]
            lines.append(f"    if {kind.first} <= p < {kind.first + kind.size}:")
            missing = [n for n in names if n not in attributes]
            if missing:  # the Python engine's RuleValueError, from make()
                code = self.m.code(f"piece '{kind.name}' has no attribute '{sorted(missing)[0]}'", node.at[0])
                lines.append(f"        raise ValueError({code!r})")
                continue
            stride = 1
            strides = {}
            for attribute, values in reversed(kind.attributes):
                strides[attribute] = (stride, values)
                stride *= len(values)
            for i, name in enumerate(names):
                step, values = strides[name]
                numbers = [self.t._number(self, node, v, name) for v in values]
                table = self.m.table(("place", kind.name, name), numbers)
                lines.append(f"        p = p + {step} * (_place({table}, v{i}) - (p - {kind.first}) // {step} % "
                             f"{len(values)})")
            lines.append("        return p")
        lines.append("    raise ValueError(lacks)")
        return "\n".join(lines)
