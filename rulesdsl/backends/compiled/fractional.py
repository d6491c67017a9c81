"""Scores, tiebreaks and returns that are fractions, printed for compiled code as float64, computed as the Python
engine computes them: `/`, + - * and unary minus where a fraction takes part, abs(), a condition choosing between two
fractions, float constants (data, options, literals). Python divides whole numbers exactly rounded; float64 does the
same for numbers within 2**53, so a division of larger whole numbers is an error located at it, never a number
that could differ. An expression that is a fraction on some paths and a whole number on others (which Python keeps
apart: 2 and 2.0 print differently) is not taken. Constants reach the source as the whole numbers of their bits."""

from __future__ import annotations

import struct

from ...ir import nodes as N

WHOLE, FRACTION = "i", "f"
_EXACT = 1 << 53  # whole numbers float64 holds exactly: dividing them is Python's exactly rounded division


def _bits(value: float) -> int:
    return struct.unpack("<q", struct.pack("<d", float(value)))[0]


class Fractions:
    """Prints fractional scoring expressions of one Printer `p` (its module, tables and whole-number printing)."""

    def __init__(self, p):
        self.p = p

    def kind(self, node) -> str | None:
        """WHOLE, FRACTION, or None for a value that is neither for sure (a mix, or a kind not taken here)."""
        if isinstance(node, N.Const):
            if type(node.value) is float:
                return FRACTION
            return WHOLE if type(node.value) is int else None  # (not true or false: no score, no returns)
        if isinstance(node, N.Ref) and node.const and node.binding is not None and node.binding.is_const \
                and type(node.binding.const) is float:
            return FRACTION
        if isinstance(node, N.Binary) and node.op in ("/", "+", "-", "*"):
            kinds = {self.kind(node.left), self.kind(node.right)}
            if not kinds <= {WHOLE, FRACTION}:
                return None
            return FRACTION if node.op == "/" or FRACTION in kinds else WHOLE
        if isinstance(node, N.Unary) and node.op in ("-", "+"):
            return self.kind(node.operand)
        if isinstance(node, N.Cond):
            then, other = self.kind(node.then), self.kind(node.other)
            return then if then == other else None
        if isinstance(node, N.Call) and node.target == "builtin" and node.func == "abs" and len(node.args) == 1 \
                and not node.kwargs:
            return self.kind(node.args[0])
        if self.p.whole_product(node):
            return WHOLE
        return WHOLE if self.p.whole_valued(node) or node.type.name == "seat" else None  # (a seat is its number)

    def code(self, node, env) -> str:
        """The code of a value of kind WHOLE (an int64) or FRACTION (a float64)."""
        if self.kind(node) == WHOLE:
            return self.p.scalar(node, env)
        if isinstance(node, N.Const) or isinstance(node, N.Ref):
            value = node.value if isinstance(node, N.Const) else node.binding.const
            return f"{self._constant(_bits(value))}[0]"
        if isinstance(node, N.Binary):
            left, right = self.code(node.left, env), self.code(node.right, env)
            if node.op != "/":
                return f"({left} {node.op} {right})"
            if self.kind(node.left) == self.kind(node.right) == WHOLE:
                self._helper("_ratio", RATIO)
                beyond = self.p.m.code("a division of whole numbers beyond 2**53, which compiled code does not "
                                       "divide exactly as Python does", node.at[0],
                                       "load the game with backend='python'")
                return f"_ratio({left}, {right}, {beyond!r})"
            self._helper("_fraction", FRACTION_DIVIDED)
            return f"_fraction({left}, {right})"
        if isinstance(node, N.Unary):
            return f"({node.op}{self.code(node.operand, env)})"
        if isinstance(node, N.Cond):
            return f"({self.code(node.then, env)} if {self.p.scalar(node.test, env)} else {self.code(node.other, env)})"
        return f"abs({self.code(node.args[0], env)})"  # (kind() takes no other node)

    def _constant(self, bits: int) -> str:
        """The name of a table holding one float64, given as the whole number of its bits."""
        tables = self.p.m.tables
        if ("float", bits) not in tables:
            name = f"K{len(tables)}"
            tables[("float", bits)] = (name, f"{name} = np.array([{bits!r}], np.int64).view(np.float64)")
        return tables[("float", bits)][0]

    def _helper(self, name: str, source: str) -> None:
        self.p.m.functions.setdefault(("helper", name), (name, source))

    # -- the scoring functions ------------------------------------------------------------------------------------
    def scoring(self, ir) -> bool:
        """Whether the score or the tiebreak is a fraction (then by_score() below prints both)."""
        return any(ir.scoring.get(k) is not None and self.kind(ir.scoring[k]) == FRACTION
                   for k in ("score", "tiebreak"))

    def by_score(self, ir) -> str:
        """`scores`, `by_score` and FRACTIONAL_SCORES (whether scores() gives floats) for a fractional score or
        tiebreak: as program.BY_SCORE, over float64 where the value is a fraction."""
        score, tiebreak = ir.scoring.get("score"), ir.scoring.get("tiebreak")
        fractional = score is not None and self.kind(score) == FRACTION
        nan = self.p.m.code("a score or tiebreak that is not a number (nan), which compiled code does not rank as "
                            "Python does", score.at[0] if score is not None else None,
                            "load the game with backend='python'")
        lines = [f"FRACTIONAL_SCORES = {fractional}", "", "", "@_jit", "def scores(s, into):",
                 "    for me in range(NS):", f"        into[me] = {self._per_seat(score)}", "", "",
                 "@_jit", "def by_score(s, draw):",
                 f"    scores = np.empty(NS, np.{'float64' if fractional else 'int64'})",
                 "    for me in range(NS):", f"        scores[me] = {self._per_seat(score)}",
                 "        if scores[me] != scores[me]:", f"            raise ValueError({nan!r})"]
        if tiebreak is not None:
            kind = self.kind(tiebreak)
            dtype = "float64" if kind == FRACTION else "int64"
            if kind not in (WHOLE, FRACTION):
                raise self.p.unsupported(tiebreak, "a tiebreak that is not a single number beside a fractional score")
            lines += [f"    ties = np.empty(NS, np.{dtype})", "    for me in range(NS):",
                      f"        ties[me] = {self.code(tiebreak, {})}",
                      "        if ties[me] != ties[me]:", f"            raise ValueError({nan!r})"]
        else:
            lines.append("    ties = np.zeros(NS, np.int64)")
        lines += [BY_SCORE.replace("TIES", "True" if tiebreak is not None else "False")]
        return "\n".join(lines)

    def _per_seat(self, node) -> str:
        if node is None:
            return "0"
        if self.kind(node) not in (WHOLE, FRACTION):
            raise self.p.unsupported(node, "a score that is not a single number beside a fractional tiebreak")
        return self.code(node, {})

    def own_returns(self, node) -> str:
        """OWN_RETURNS and own_returns(s, into) (program._own_returns) of returns that are fractions."""
        return ("OWN_RETURNS = True\n\n\n@_jit\ndef own_returns(s, into):\n    for me in range(NS):\n"
                f"        into[me] = {self.code(node, {})}")


RATIO = '''@_tiny
def _ratio(a, b, code):
    if b == 0:
        raise ZeroDivisionError("division by zero")
    if a > 9007199254740992 or a < -9007199254740992 or b > 9007199254740992 or b < -9007199254740992:
        raise ValueError(code)
    return np.float64(a) / np.float64(b)'''

FRACTION_DIVIDED = '''@_tiny
def _fraction(a, b):
    if b == 0:
        raise ZeroDivisionError("float division by zero")
    return np.float64(a) / np.float64(b)'''

# (the rest of by_score: the best score, its ties broken by the tiebreak of each seat, as program.BY_SCORE)
BY_SCORE = '''    best = _rt.largest(scores)
    keep = np.zeros(NS, np.bool_)
    count = 0
    for p in range(NS):
        keep[p] = scores[p] == best
        count += keep[p]
    if count > 1 and TIES:
        top = -1
        for p in range(NS):
            if keep[p] and (top < 0 or ties[p] > ties[top]):
                top = p
        count = 0
        for p in range(NS):
            keep[p] = keep[p] and ties[p] == ties[top]
            count += keep[p]
    out = np.empty(NS, np.int64)
    n = 0
    if count > 1 and draw:
        return out[:0]
    for p in range(NS):
        if keep[p]:
            out[n] = p
            n += 1
    return out[:n]'''
