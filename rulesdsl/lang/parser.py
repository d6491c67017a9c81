"""Parse expression and statement strings with the Lark grammar into AST nodes with character positions."""

from __future__ import annotations

import ast as pyast
from functools import lru_cache
from importlib import resources

from lark import Lark, Token, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError
from lark.visitors import Transformer_NonRecursive

from . import ast as A
from ..budget import TimeBudgetExceeded
from ..limits import MAX_EXPR_CHARS, MAX_EXPR_DEPTH


# The words of the language: the grammar reads none of them as a name (its NAME token), so a file may not declare
# one as a name either (see model/names.py): it could never be read.
WORDS = frozenset(("and", "or", "not", "in", "if", "else", "for", "true", "false", "none"))


class SyntaxProblem(Exception):
    """An expression that does not parse: `offset` is the character it fails at; `code` is 'syntax', or
    'limit_exceeded' for one too long or nested too deeply to be read (with the limit in `fields`)."""

    def __init__(self, message: str, offset: int, hint: str | None = None, code: str = "syntax", **fields):
        super().__init__(message)
        self.message, self.offset, self.hint = message, offset, hint
        self.code, self.fields = code, fields


@lru_cache(maxsize=1)
def _lark() -> Lark:
    grammar = resources.files(__package__).joinpath("grammar.lark").read_text(encoding="utf-8")
    return Lark(grammar, start=["expr", "stmt"], parser="lalr", propagate_positions=True,
                maybe_placeholders=True)


def _span(meta_or_token):
    if isinstance(meta_or_token, Token):
        return {"start": meta_or_token.start_pos, "end": meta_or_token.end_pos}
    if getattr(meta_or_token, "empty", True):
        return {"start": 0, "end": 0}
    return {"start": meta_or_token.start_pos, "end": meta_or_token.end_pos}


_BINOPS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floordiv": "//", "mod": "%", "pow": "**"}


def _literal(token, convert, what: str):
    """The value of a number or string token, or a SyntaxProblem at it (a bad escape, a number too long)."""
    try:
        return convert(str(token))
    except (ValueError, SyntaxError, MemoryError) as exc:
        reason = ("it has too many digits" if "limit" in str(exc) else
                  str(exc).removeprefix("(unicode error) ").split(" (<unknown>", 1)[0])
        hint = "write a backslash in a string as \\\\" if what == "string" else "write a smaller number"
        raise SyntaxProblem(f"this {what} cannot be read: {reason}", token.start_pos, hint) from None


@v_args(meta=True)
class _Builder(Transformer_NonRecursive):
    """Turn Lark parse trees into AST nodes (without recursion: a long sum makes a deep tree)."""

    def NAME(self, token):  # noqa: N802 - called for every NAME token
        if token.startswith("_"):
            raise SyntaxProblem(f"'{token}': names cannot begin with '_'", token.start_pos,
                                "names beginning with '_' are reserved; start the name with a letter")
        return token

    def int_(self, meta, children):
        return A.Const(_literal(children[0], int, "number"), **_span(children[0]))

    def float_(self, meta, children):
        return A.Const(_literal(children[0], float, "number"), **_span(children[0]))

    def string(self, meta, children):
        return A.Const(_literal(children[0], pyast.literal_eval, "string"), **_span(children[0]))

    def true(self, meta, children):
        return A.Const(True, **_span(meta))

    def false(self, meta, children):
        return A.Const(False, **_span(meta))

    def none(self, meta, children):
        return A.Const(None, **_span(meta))

    def name(self, meta, children):
        return A.Name(str(children[0]), **_span(children[0]))

    def list_(self, meta, children):
        return A.ListExpr([c for c in children if c is not None], **_span(meta))

    def tuple_(self, meta, children):
        return A.TupleExpr([c for c in children if c is not None], **_span(meta))

    def dict_(self, meta, children):
        return A.DictExpr([c for c in children if c is not None], **_span(meta))

    def pair(self, meta, children):
        return (children[0], children[1])

    def listcomp(self, meta, children):
        return A.Comprehension(children[0], children[1:], **_span(meta))

    def comp_for(self, meta, children):
        targets, iterable, *conds = children
        return A.For(targets, iterable, [c for c in conds if c is not None], **_span(meta))

    def targets(self, meta, children):
        return [str(c) for c in children]

    def ifelse(self, meta, children):
        then, cond, other = children
        return A.IfElse(cond, then, other, **_span(meta))

    def or_(self, meta, children):
        return A.BoolOp("or", children[0], children[1], **_span(meta))

    def and_(self, meta, children):
        return A.BoolOp("and", children[0], children[1], **_span(meta))

    def not_(self, meta, children):
        return A.UnaryOp("not", children[0], **_span(meta))

    def comp_op(self, meta, children):
        text = " ".join(str(c) for c in children)
        return "notin" if text == "not in" else text

    def compare(self, meta, children):
        operands, ops = children[0::2], children[1::2]
        return A.Compare(ops, operands, **_span(meta))

    def range_(self, meta, children):
        return A.Range(children[0], children[1], **_span(meta))

    def neg(self, meta, children):
        return A.UnaryOp("-", children[0], **_span(meta))

    def pos(self, meta, children):
        return A.UnaryOp("+", children[0], **_span(meta))

    def attr(self, meta, children):
        return A.Attr(children[0], str(children[1]), **_span(meta))

    def index(self, meta, children):
        return A.Index(children[0], children[1], **_span(meta))

    def slice(self, meta, children):
        return A.Slice(children[0], children[1], children[2], **_span(meta))

    def arguments(self, meta, children):
        return [c for c in children if c is not None]

    def keyword(self, meta, children):
        return ("kw", str(children[0]), children[1], _span(children[0]))

    def call(self, meta, children):
        name, args = children[0], children[1] or []
        return self._call(meta, name, args)

    def _call(self, meta, name, args):
        positional = [a for a in args if not isinstance(a, tuple)]
        keywords = [(a[1], a[2]) for a in args if isinstance(a, tuple)]
        after_keyword = False
        for a in args:
            if isinstance(a, tuple):
                after_keyword = True
            elif after_keyword:
                raise SyntaxProblem("positional argument after keyword argument", a.start,
                                    "put keyword arguments (name=value) after the positional ones")
        node = A.Call(str(name), positional, keywords, **_span(meta))
        node.keyword_spans = {a[1]: (a[3]["start"], a[3]["end"]) for a in args if isinstance(a, tuple)}
        return node

    def call_gen(self, meta, children):
        """f(x for x in xs, ...): the comprehension is the first argument; any others follow it."""
        name, elt, *rest = children
        fors = [c for c in rest if isinstance(c, A.For)]
        comp = A.Comprehension(elt, fors, True, start=elt.start, end=fors[-1].end)
        return self._call(meta, name, [comp] + [c for c in rest[len(fors):] if c is not None])

    def assign(self, meta, children):
        return A.Assign(children[0], "=", children[1], **_span(meta))

    def augassign(self, meta, children):
        return A.Assign(children[0], str(children[1]), children[2], **_span(meta))

    def call_stmt(self, meta, children):
        return A.CallStmt(self.call(meta, children), **_span(meta))


for _rule, _op in _BINOPS.items():
    def _make(op):
        def method(self, meta, children):
            return A.BinOp(op, children[0], children[1], **_span(meta))
        return method
    setattr(_Builder, _rule, v_args(meta=True)(_make(_op)))

_builder = _Builder()

_TOKEN_WORDS = {
    "RPAR": "')'", "LPAR": "'('", "RSQB": "']'", "LSQB": "'['", "COMMA": "','", "NAME": "a name",
    "INT": "a number", "FLOAT": "a number", "STRING": "a string", "COLON": "':'", "DOT": "'.'",
    "RBRACE": "'}'", "EQUAL": "'='", "AUGOP": "'+=', '-=', '*=' or '//='", "$END": "end of expression",
}


def _expected(tokens) -> str:
    if "NAME" in tokens and "INT" in tokens:
        return "a value (a name, number, string, '(' or '[')"
    words = sorted({_TOKEN_WORDS.get(t, f"'{t.lower()}'" if t.isalpha() else t) for t in tokens})
    if len(words) > 6:
        return "an operator or the end of the expression"
    return ", ".join(words)


def _brackets(text: str):
    """(position, character) of every bracket of `text` outside quoted strings."""
    quote, i = None, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in "([{)]}":
            yield i, ch
        i += 1


def _unclosed(text: str):
    """The innermost bracket of `text` left open (its character and position), or None."""
    stack = []
    for i, ch in _brackets(text):
        if ch in "([{":
            stack.append(i)
        elif stack:
            stack.pop()
    return (text[stack[-1]], stack[-1]) if stack else None


def _early_hint(text: str, expected) -> str:
    hint = f"expected {_expected(expected)}"
    open_ = _unclosed(text)
    if open_ is None:
        return hint
    ch, at = open_
    name = text[:at].rstrip()
    name = name[len(name.rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")):]
    what = f"the '{ch}' of '{name}{ch}'" if name and at == len(text[:at].rstrip()) and name[0].isalpha() \
        else f"a '{ch}'"
    return f"{what} is never closed ({hint})"


def _check_size(text: str) -> None:
    """SyntaxProblem for an expression too long or nested too deeply to be worth parsing."""
    if len(text) > MAX_EXPR_CHARS:
        raise SyntaxProblem(f"this expression is {len(text):,} characters long; the limit is {MAX_EXPR_CHARS:,}",
                            MAX_EXPR_CHARS, "split it into functions or lets", "limit_exceeded", limit="MAX_EXPR_CHARS")
    depth = 0
    for i, ch in _brackets(text):
        depth += 1 if ch in "([{" else -1
        if depth > MAX_EXPR_DEPTH:
            raise SyntaxProblem(f"brackets nested more than {MAX_EXPR_DEPTH} deep", i,
                                "split the expression into functions or lets", "limit_exceeded", limit="MAX_EXPR_DEPTH")


def parse(text: str, start: str = "expr") -> A.Node:
    """Parse `text` (an expression, or a statement when start='stmt'); raises SyntaxProblem."""
    if not isinstance(text, str):
        raise SyntaxProblem(f"expected an expression string, got {type(text).__name__}", 0)
    if not text.strip():
        raise SyntaxProblem("empty expression", 0, "write a condition or a value, e.g. 'money[me] >= 5'")
    _check_size(text)
    try:
        tree = _lark().parse(text, start=start)
        return _builder.transform(tree)
    except VisitError as exc:
        # a budget overrun raised by the watchdog while a long expression is being built is the caller's to
        # report, like one raised anywhere else
        if isinstance(exc.orig_exc, (SyntaxProblem, TimeBudgetExceeded)):
            raise exc.orig_exc from None
        raise
    except UnexpectedCharacters as exc:
        raise SyntaxProblem(f"unexpected character {text[exc.pos_in_stream]!r}", exc.pos_in_stream,
                            "strings are quoted with ' or \"; cells and regions are names") from None
    except UnexpectedEOF as exc:
        raise SyntaxProblem("the expression ends too early", len(text), _early_hint(text, exc.expected)) from None
    except UnexpectedToken as exc:
        if exc.token.type == "$END":
            raise SyntaxProblem("the expression ends too early", len(text),
                                _early_hint(text, exc.expected)) from None
        hint = f"expected {_expected(exc.expected)}"
        token, at = str(exc.token), exc.token.start_pos
        # after a target the lexer reads '==' as '=' then '=': the unexpected token is the second '='
        if start == "stmt" and (token == "==" or token == "=" and text.startswith("==", at - 1)):
            hint = "an effect assigns with '=' or calls an effect such as move(a, b)"
        elif token == "=":
            hint = "to compare, write '=='; '=' assigns, and only in effects"
        elif token == "for":  # Python allows a bare generator as a sole argument; rules, as the first
            hint = "a comprehension without brackets may only be a call's first argument: write it first, or " \
                   "in brackets as a list, [x for x in xs]"
        raise SyntaxProblem(f"unexpected {token!r}", at, hint) from None
    except UnexpectedInput as exc:  # pragma: no cover - other lark input errors
        raise SyntaxProblem(str(exc).splitlines()[0], getattr(exc, "pos_in_stream", 0) or 0) from None


def tokens(text: str) -> list[Token]:
    """The tokens of an expression or statement, with their offsets, up to the first character no token can
    start (text being typed need not parse: editors find the names in it)."""
    found = []
    try:
        found.extend(_lark().lex(text))
    except UnexpectedInput:
        pass
    return found


def keywords() -> list[str]:
    """The words of the grammar that are not names: and, or, not, in, if, else, for, true, false, none."""
    return sorted(t.pattern.value for t in _lark().terminals if t.pattern.type == "str" and t.pattern.value.isalpha())
