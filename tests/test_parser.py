"""The expression grammar and parser: text -> AST (rulesdsl/lang/grammar.lark, parser.py, ast.py).

What belongs here: how a string of the rules language is read -- operator precedence and associativity,
every construct of docs/language.md's "Expressions" section, literals, statements (effects), the
character spans that AST nodes carry, and syntax errors with the offset and hint they report.
Nothing here knows names, values or built-ins: that is the compiler (tests/test_compiler.py); how an
offset becomes file:line:col is tests/test_source_positions.py.

Trees are compared with `==` on the dataclasses of rulesdsl/lang/ast.py, which ignores spans.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulesdsl.budget import TimeBudgetExceeded
from rulesdsl.lang import ast as A
from rulesdsl.lang import parser
from rulesdsl.lang.parser import SyntaxProblem, parse
from rulesdsl.limits import MAX_EXPR_CHARS, MAX_EXPR_DEPTH

from .helpers import ROOT


# -- small constructors, so that expected trees read like the text ------------------------------------------

def N(name):  # noqa: N802 - reads as a tree node
    return A.Name(name)


def C(value):  # noqa: N802
    return A.Const(value)


def B(op, left, right):  # noqa: N802
    return A.BinOp(op, left, right)


def syntax_problem(text: str, start: str = "expr") -> SyntaxProblem:
    with pytest.raises(SyntaxProblem) as info:
        parse(text, start)
    return info.value


# -- precedence and associativity ------------------------------------------------------------------------------

@pytest.mark.parametrize("text, tree", [
    # boolean operators: or < and < not < comparison
    ("a or b and c", A.BoolOp("or", N("a"), A.BoolOp("and", N("b"), N("c")))),
    ("a and b or c", A.BoolOp("or", A.BoolOp("and", N("a"), N("b")), N("c"))),
    ("not a and b", A.BoolOp("and", A.UnaryOp("not", N("a")), N("b"))),
    ("not a == b", A.UnaryOp("not", A.Compare(["=="], [N("a"), N("b")]))),
    ("not not a", A.UnaryOp("not", A.UnaryOp("not", N("a")))),
    ("a or b or c", A.BoolOp("or", A.BoolOp("or", N("a"), N("b")), N("c"))),
    # a conditional is the loosest, and nests to the right
    ("a or b if c else d", A.IfElse(N("c"), A.BoolOp("or", N("a"), N("b")), N("d"))),
    ("a if b else c if d else e", A.IfElse(N("b"), N("a"), A.IfElse(N("d"), N("c"), N("e")))),
    # a range binds tighter than a comparison and looser than arithmetic
    ("1..n + 1", A.Range(C(1), B("+", N("n"), C(1)))),
    ("x in 1..3", A.Compare(["in"], [N("x"), A.Range(C(1), C(3))])),
    ("a..b == c", A.Compare(["=="], [A.Range(N("a"), N("b")), N("c")])),
    # arithmetic: left associative within a level
    ("a - b - c", B("-", B("-", N("a"), N("b")), N("c"))),
    ("a - b + c", B("+", B("-", N("a"), N("b")), N("c"))),
    ("a / b // c % d", B("%", B("//", B("/", N("a"), N("b")), N("c")), N("d"))),
    ("a + b * c", B("+", N("a"), B("*", N("b"), N("c")))),
    ("a * b + c", B("+", B("*", N("a"), N("b")), N("c"))),
    # unary minus and power: -a ** 2 is -(a ** 2); ** nests to the right and takes a signed exponent
    ("-a ** 2", A.UnaryOp("-", B("**", N("a"), C(2)))),
    ("a ** -b", B("**", N("a"), A.UnaryOp("-", N("b")))),
    ("2 ** 3 ** 2", B("**", C(2), B("**", C(3), C(2)))),
    ("-a * b", B("*", A.UnaryOp("-", N("a")), N("b"))),
    ("x - -1", B("-", N("x"), A.UnaryOp("-", C(1)))),
    ("+a", A.UnaryOp("+", N("a"))),
    # access binds tightest
    ("-a.b[0]", A.UnaryOp("-", A.Index(A.Attr(N("a"), "b"), C(0)))),
    ("a.b ** 2", B("**", A.Attr(N("a"), "b"), C(2))),
    ("x[1][2]", A.Index(A.Index(N("x"), C(1)), C(2))),
    ("x.y.z", A.Attr(A.Attr(N("x"), "y"), "z")),
    # comparisons chain (not nest) and mix operators
    ("a <= b != c > d", A.Compare(["<=", "!=", ">"], [N("a"), N("b"), N("c"), N("d")])),
    ("a in b not in c", A.Compare(["in", "notin"], [N("a"), N("b"), N("c")])),
    # brackets override it all and leave no node of their own
    ("(a + b) * c", B("*", B("+", N("a"), N("b")), N("c"))),
    ("((a))", N("a")),
    ("(a if b else c) if d else e", A.IfElse(N("d"), A.IfElse(N("b"), N("a"), N("c")), N("e"))),
])
def test_precedence_and_associativity(text, tree):
    assert parse(text) == tree


# -- every construct of the language reference ------------------------------------------------------------------

@pytest.mark.parametrize("text, tree", [
    ("a if cond else b", A.IfElse(N("cond"), N("a"), N("b"))),
    ("x not in xs", A.Compare(["notin"], [N("x"), N("xs")])),
    ("2 <= c.x <= 7", A.Compare(["<=", "<="], [C(2), A.Attr(N("c"), "x"), C(7)])),
    ("1..6", A.Range(C(1), C(6))),
    ("money[me]", A.Index(N("money"), N("me"))),
    ("xs[1:3]", A.Slice(N("xs"), C(1), C(3))),
    ("xs[:2]", A.Slice(N("xs"), None, C(2))),
    ("xs[1:]", A.Slice(N("xs"), C(1), None)),
    ("xs[:]", A.Slice(N("xs"), None, None)),
    ("max(xs)", A.Call("max", [N("xs")], [])),
    ("f()", A.Call("f", [], [])),
    ("sorted(xs, reverse=true)", A.Call("sorted", [N("xs")], [("reverse", C(True))])),
    ("three_in_a_row(me)", A.Call("three_in_a_row", [N("me")], [])),  # a user function: called like a built-in
    ("[1, 2]", A.ListExpr([C(1), C(2)])),
    ("[1, 2,]", A.ListExpr([C(1), C(2)])),
    ("[]", A.ListExpr([])),
    ("(a, b)", A.TupleExpr([N("a"), N("b")])),
    ("(a,)", A.TupleExpr([N("a")])),
    ("{'k': 1}", A.DictExpr([(C("k"), C(1))])),
    ("{1: a, 2: b,}", A.DictExpr([(C(1), N("a")), (C(2), N("b"))])),
    ("{}", A.DictExpr([])),
    ("[c for c in cells if empty(c)]",
     A.Comprehension(N("c"), [A.For(["c"], N("cells"), [A.Call("empty", [N("c")], [])])])),
    ("[x for x in xs for y in ys if x if y]",
     A.Comprehension(N("x"), [A.For(["x"], N("xs"), []), A.For(["y"], N("ys"), [N("x"), N("y")])])),
    ("[x for i, x in enumerate(xs)]",
     A.Comprehension(N("x"), [A.For(["i", "x"], A.Call("enumerate", [N("xs")], []), [])])),
    ("sum(v for v in values if v > 0)",
     A.Call("sum", [A.Comprehension(N("v"), [A.For(["v"], N("values"), [A.Compare([">"], [N("v"), C(0)])])], True)],
            [])),
    ("max(x for x in xs, default=0)",
     A.Call("max", [A.Comprehension(N("x"), [A.For(["x"], N("xs"), [])], True)], [("default", C(0))])),
])
def test_constructs_of_the_reference(text, tree):
    assert parse(text) == tree


def _reference_examples() -> list[str]:
    """The code examples of the table in docs/language.md's "Expressions" section that are whole expressions
    (operator lists such as `+  -  *` and elided calls such as `any(...)` are left out)."""
    reference = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    section = reference.partition("\n## Expressions\n")[2].partition("\n## ")[0]
    table = section.partition("| construct | example |")[2].partition("\n\n")[0]
    spans = re.findall(r"`([^`]+)`", table)
    return [s for s in spans if re.search(r"[A-Za-z0-9'\"]", s) and "..." not in s and s != "for"]


def test_the_reference_table_is_found():
    examples = _reference_examples()
    assert "a if cond else b" in examples and "xs[1:3]" in examples and len(examples) >= 20


@pytest.mark.parametrize("text", _reference_examples())
def test_every_example_of_the_reference_parses(text):
    assert isinstance(parse(text), A.Node)


def test_lambdas_are_not_part_of_the_language():
    # 'lambda' is an ordinary name: the ':' after its "parameter" is where reading stops
    problem = syntax_problem("lambda x: x")
    assert problem.offset == 7 and problem.message == "unexpected 'x'"
    assert parse("lambda") == N("lambda")


@pytest.mark.parametrize("text", ["f(x)(y)", "x.f(1)", "(f)(1)"])
def test_only_a_name_can_be_called(text):
    problem = syntax_problem(text)
    assert problem.message == "unexpected '('" and problem.offset == text.rindex("(")


# -- literals ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, value", [
    ("12", 12), ("007", 7), ("0", 0), ("0.5", 0.5), ("12.25", 12.25), ("100.0", 100.0),
    ("true", True), ("false", False), ("none", None),
    ("'text'", "text"), ('"text"', "text"), ("''", ""),
    ("'it\\'s'", "it's"), ('"say \\"hi\\""', 'say "hi"'), ("'\"'", '"'), ('"\'"', "'"),
    ("'a\\\\b'", "a\\b"), ("'tab\\there'", "tab\there"), ("'\\u00e9'", "\u00e9"), ("'\u00e9t\u00e9'", "\u00e9t\u00e9"),
    ("'a # b'", "a # b"), ("'x + 1'", "x + 1"),
])
def test_literals(text, value):
    node = parse(text)
    assert isinstance(node, A.Const) and type(node.value) is type(value) and node.value == value


def test_a_number_is_never_a_negative_literal():
    assert parse("-3") == A.UnaryOp("-", C(3))


@pytest.mark.parametrize("text, offset, message", [
    ("1e5", 1, "unexpected 'e5'"),  # no exponents
    (".5", 0, "unexpected '.'"),  # no leading point
    ("1.", 2, "the expression ends too early"),  # '.' is attribute access
    ("'a' 'b'", 4, "unexpected \"'b'\""),  # no implicit concatenation
    ("'it''s'", 4, "unexpected \"'s'\""),  # YAML's '' is not an escape here
    ("'abc", 0, "unexpected character \"'\""),  # never closed
    ("x + 'abc", 4, "unexpected character \"'\""),
])
def test_literals_that_do_not_read(text, offset, message):
    problem = syntax_problem(text)
    assert (problem.offset, problem.message) == (offset, message)


def test_a_string_with_a_bad_escape_is_located_at_the_string():
    problem = syntax_problem("size(xs) + '\\x4'")
    assert problem.offset == 11
    assert problem.message.startswith("this string cannot be read: ") and "\\xXX" in problem.message
    assert problem.hint == "write a backslash in a string as \\\\"


def test_a_number_with_too_many_digits_is_located_at_the_number():
    problem = syntax_problem("1 + " + "9" * 5000)
    assert problem.offset == 4
    assert problem.message == "this number cannot be read: it has too many digits"
    assert problem.hint == "write a smaller number"


# -- names and keywords -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["order", "android", "notes", "iffy", "index", "elsewhere", "fortune", "trueish",
                                  "falsely", "nonesuch", "in_", "x1", "A", "snake_case_2"])
def test_names_that_begin_with_a_keyword_are_names(name):
    assert parse(name) == N(name)
    assert parse(f"{name} in {name}") == A.Compare(["in"], [N(name), N(name)])


@pytest.mark.parametrize("text, offset", [("_a", 0), ("a._b", 2), ("f(_x)", 2), ("[1 for _i in xs]", 7),
                                          ("f(x, _k=1)", 5)])
def test_names_beginning_with_an_underscore_are_reserved(text, offset):
    problem = syntax_problem(text)
    assert problem.offset == offset
    assert problem.message.endswith("names cannot begin with '_'")
    assert "reserved" in problem.hint


@pytest.mark.parametrize("text, offset", [("in", 0), ("x.if", 2), ("[x for in in xs]", 7), ("f(for=1)", 2)])
def test_keywords_are_not_names(text, offset):
    assert syntax_problem(text).offset == offset


# -- statements (effects) ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, tree", [
    ("x = 1", A.Assign(N("x"), "=", C(1))),
    ("money[me] -= fee", A.Assign(A.Index(N("money"), N("me")), "-=", N("fee"))),
    ("total += 2 * k", A.Assign(N("total"), "+=", B("*", C(2), N("k")))),
    ("n *= 3", A.Assign(N("n"), "*=", C(3))),
    ("n //= 2", A.Assign(N("n"), "//=", C(2))),
    ("grid[a][b] = none", A.Assign(A.Index(A.Index(N("grid"), N("a")), N("b")), "=", C(None))),
    ("p.colour = 'red'", A.Assign(A.Attr(N("p"), "colour"), "=", C("red"))),  # parsed; the compiler refuses it
    ("move(a, b)", A.CallStmt(A.Call("move", [N("a"), N("b")], []))),
    ("set_attr(c, travelling=true)", A.CallStmt(A.Call("set_attr", [N("c")], [("travelling", C(True))]))),
])
def test_statements(text, tree):
    assert parse(text, "stmt") == tree


@pytest.mark.parametrize("text, offset", [("x = 1", 2), ("a < b = c", 6), ("f(a) = 1", 5)])
def test_an_assignment_in_an_expression(text, offset):
    problem = syntax_problem(text)
    assert (problem.offset, problem.message) == (offset, "unexpected '='")
    assert problem.hint == "to compare, write '=='; '=' assigns, and only in effects"


def test_a_comparison_as_a_statement_is_located_at_the_second_equals_sign():
    problem = syntax_problem("x == 1", "stmt")
    assert (problem.offset, problem.message) == (3, "unexpected '='")


@pytest.mark.parametrize("text", ["x == 1", "x[1] == 2", "x.a==b", "f(x) == 1"])
def test_a_comparison_as_a_statement_gets_the_effect_hint(text):
    # after a target '==' is read as '=' then '=', and the hint said "to compare, write '=='"
    assert syntax_problem(text, "stmt").hint == "an effect assigns with '=' or calls an effect such as move(a, b)"


@pytest.mark.parametrize("text, offset", [("x **= 2", 2), ("x /= 2", 2), ("1 + 1", 0), ("x", 1), ("f(x) = 1", 5)])
def test_what_is_not_a_statement(text, offset):
    assert syntax_problem(text, "stmt").offset == offset


# -- spans ------------------------------------------------------------------------------------------------------

def _spans_point_at_their_text(text: str) -> None:
    """Every name's span is the name itself, every call's span starts with its function's name, every node's
    span lies within the text and inside its parent's."""
    root = parse(text)
    for node in A.walk(root):
        assert 0 <= node.start <= node.end <= len(text), node
        if isinstance(node, A.Name):
            assert text[node.start:node.end] == node.id
        if isinstance(node, A.Call):
            assert text[node.start:node.start + len(node.func) + 1] == node.func + "("
            assert text[node.end - 1] == ")"
        if isinstance(node, A.Const) and isinstance(node.value, str):
            assert text[node.start] in "'\"" and text[node.end - 1] == text[node.start]


@pytest.mark.parametrize("text", [
    "money[me] >= 5 and not empty(c)",
    "sum(v * 2 for v in values if v > limit) + size('abc')",
    "[c.name for c in cells if c.x <= width] if ok else []",
    "max(xs, default=best) ** -k",
    "  a  +  b  ",
    "a +\n  b * zz",
])
def test_spans_point_at_their_text(text):
    _spans_point_at_their_text(text)


def test_spans_of_a_binary_operation_and_a_comparison():
    node = parse("aa + bbb * c")
    assert (node.start, node.end) == (0, 12)
    assert (node.right.start, node.right.end) == (5, 12)
    node = parse("x < yy")
    assert (node.start, node.end) == (0, 6)


# -- syntax errors and their offsets ----------------------------------------------------------------------------

@pytest.mark.parametrize("text, offset", [
    ("1 + * 2", 4),
    ("a +", 3),
    ("(1 + 2", 6),
    ("1 $ 2", 2),
    ("xs[1", 4),
    ("f(1,, 2)", 4),
    ("a < b <", 7),
])
def test_syntax_error_offset(text, offset):
    with pytest.raises(SyntaxProblem) as info:
        parse(text)
    assert info.value.offset == offset, info.value.message


@pytest.mark.parametrize("text, offset, message, hint", [
    ("x @ y", 2, "unexpected character '@'", "strings are quoted with ' or \"; cells and regions are names"),
    ("\u00e9t\u00e9", 0, "unexpected character '\u00e9'", "strings are quoted with ' or \"; cells and regions are names"),
    ("1 2", 2, "unexpected '2'", "expected an operator or the end of the expression"),
    ("size(xs]", 7, "unexpected ']'", "expected an operator or the end of the expression"),
    ("1 +* 2", 3, "unexpected '*'", "expected a value (a name, number, string, '(' or '[')"),
    ("a if b", 6, "the expression ends too early", "expected 'else', 'or'"),
    ("not", 3, "the expression ends too early", "expected a value (a name, number, string, '(' or '[')"),
    ("max(xs", 6, "the expression ends too early",
     "the '(' of 'max(' is never closed (expected an operator or the end of the expression)"),
    ("[1, 2", 5, "the expression ends too early", "a '[' is never closed (expected ')', ',', ']')"),
    ("f(k=1, 2)", 7, "positional argument after keyword argument",
     "put keyword arguments (name=value) after the positional ones"),
    ("a..b..c", 4, "unexpected '..'", "expected an operator or the end of the expression"),
    ("x[]", 2, "unexpected ']'", "expected a value (a name, number, string, '(' or '[')"),
    ("()", 1, "unexpected ')'", "expected a value (a name, number, string, '(' or '[')"),
])
def test_syntax_errors_say_what_was_expected(text, offset, message, hint):
    problem = syntax_problem(text)
    assert (problem.offset, problem.message, problem.hint) == (offset, message, hint)


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_an_empty_expression(text):
    problem = syntax_problem(text)
    assert (problem.offset, problem.message) == (0, "empty expression")
    assert problem.hint.startswith("write a condition or a value")


def test_not_a_string():
    problem = syntax_problem(12)
    assert (problem.offset, problem.message) == (0, "expected an expression string, got int")


def test_brackets_nested_up_to_the_limit_parse_and_one_more_is_located():
    deepest = "(" * MAX_EXPR_DEPTH + "1" + ")" * MAX_EXPR_DEPTH
    assert parse(deepest) == C(1)
    problem = syntax_problem("[" + deepest + "]")
    assert problem.offset == MAX_EXPR_DEPTH  # the bracket that goes one deeper than allowed
    assert problem.message == f"brackets nested more than {MAX_EXPR_DEPTH} deep"


def test_brackets_inside_strings_do_not_count():
    text = "'" + "(" * (MAX_EXPR_DEPTH + 5) + "'"
    assert parse(text) == C("(" * (MAX_EXPR_DEPTH + 5))
    assert syntax_problem("size(xs" + " + '('" * 3).hint.startswith("the '(' of 'size(' is never closed")


def test_an_expression_longer_than_the_limit_is_refused_before_parsing():
    assert isinstance(parse("a" * MAX_EXPR_CHARS), A.Name)
    problem = syntax_problem("a" * (MAX_EXPR_CHARS + 1))
    assert problem.offset == MAX_EXPR_CHARS
    assert problem.message == f"this expression is {MAX_EXPR_CHARS + 1:,} characters long; the limit is {MAX_EXPR_CHARS:,}"


def test_a_long_flat_sum_parses_without_recursion():
    text = " + ".join(["x"] * 3000)
    node = parse(text)
    depth = 0
    while isinstance(node, A.BinOp):
        assert node.right == N("x")
        node, depth = node.left, depth + 1
    assert depth == 2999 and node == N("x")


# -- property: printing a tree with as few brackets as precedence allows, and parsing it, gives the tree back ---

IFELSE, OR, AND, NOT, CMP, RANGE, SUM, TERM, FACTOR, POWER, ATOM = range(11)
NAMES = ["a", "b", "xs", "me", "order", "android", "notes", "iffy", "index", "nonesuch", "fortune"]
_LEVEL = {"+": SUM, "-": SUM, "*": TERM, "/": TERM, "//": TERM, "%": TERM}


def show(node) -> tuple[str, int]:
    """(text, precedence level) of a tree, bracketed only where the grammar needs it."""
    def sub(child, need):
        text, level = show(child)
        return f"({text})" if level < need else text

    match node:
        case A.Name(id=name):
            return name, ATOM
        case A.Const(value=bool() | None as v):
            return {True: "true", False: "false", None: "none"}[v], ATOM
        case A.Const(value=str() as v):
            return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'", ATOM
        case A.Const(value=v):
            return repr(v), ATOM
        case A.BinOp(op="**", left=left, right=right):
            return f"{sub(left, ATOM)} ** {sub(right, FACTOR)}", POWER
        case A.BinOp(op=op, left=left, right=right):
            level = _LEVEL[op]
            return f"{sub(left, level)} {op} {sub(right, level + 1)}", level
        case A.UnaryOp(op="not", operand=x):
            return f"not {sub(x, NOT)}", NOT
        case A.UnaryOp(op=op, operand=x):
            return f"{op}{sub(x, FACTOR)}", FACTOR
        case A.BoolOp(op="and", left=left, right=right):
            return f"{sub(left, AND)} and {sub(right, NOT)}", AND
        case A.BoolOp(op="or", left=left, right=right):
            return f"{sub(left, OR)} or {sub(right, AND)}", OR
        case A.Compare(ops=ops, operands=operands):
            text = sub(operands[0], RANGE)
            for op, operand in zip(ops, operands[1:]):
                text += f" {'not in' if op == 'notin' else op} {sub(operand, RANGE)}"
            return text, CMP
        case A.Range(low=low, high=high):
            return f"{sub(low, SUM)}..{sub(high, SUM)}", RANGE
        case A.IfElse(cond=cond, then=then, other=other):
            return f"{sub(then, OR)} if {sub(cond, OR)} else {sub(other, IFELSE)}", IFELSE
        case A.Attr(obj=obj, name=name):
            return f"{sub(obj, ATOM)}.{name}", ATOM
        case A.Index(obj=obj, index=index):
            return f"{sub(obj, ATOM)}[{sub(index, IFELSE)}]", ATOM
        case A.ListExpr(items=items):
            return "[" + ", ".join(sub(i, IFELSE) for i in items) + "]", ATOM
        case A.Call(func=func, args=args, kwargs=kwargs):
            parts = [sub(a, IFELSE) for a in args] + [f"{k}={sub(v, IFELSE)}" for k, v in kwargs]
            return f"{func}({', '.join(parts)})", ATOM
        case A.Comprehension(elt=elt, fors=fors):
            clauses = " ".join(f"for {', '.join(f.targets)} in {sub(f.iterable, OR)}"
                               + "".join(f" if {sub(c, OR)}" for c in f.conds) for f in fors)
            return f"[{sub(elt, IFELSE)} {clauses}]", ATOM
    raise AssertionError(f"no printer for {node!r}")


@st.composite
def trees(draw, depth=3):
    names = st.sampled_from(NAMES)
    if depth == 0 or draw(st.integers(0, 4)) == 0:
        leaf = draw(st.integers(0, 5))
        if leaf <= 1:
            return N(draw(names))
        if leaf == 2:
            return C(draw(st.integers(0, 10**6)))
        if leaf == 3:
            return C(draw(st.sampled_from([0.5, 1.25, 12.5, 100.0])))
        if leaf == 4:
            return C(draw(st.text(alphabet="ab '\"\\#:", max_size=5)))
        return C(draw(st.sampled_from([True, False, None])))
    sub = trees(depth=depth - 1)
    kind = draw(st.integers(0, 13))
    if kind <= 2:
        return B(draw(st.sampled_from(["+", "-", "*", "/", "//", "%", "**"])), draw(sub), draw(sub))
    if kind == 3:
        return A.UnaryOp(draw(st.sampled_from(["-", "+", "not"])), draw(sub))
    if kind == 4:
        return A.BoolOp(draw(st.sampled_from(["and", "or"])), draw(sub), draw(sub))
    if kind == 5:
        n = draw(st.integers(1, 3))
        ops = draw(st.lists(st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "in", "notin"]), min_size=n, max_size=n))
        return A.Compare(ops, [draw(sub) for _ in range(n + 1)])
    if kind == 6:
        return A.Range(draw(sub), draw(sub))
    if kind == 7:
        return A.IfElse(draw(sub), draw(sub), draw(sub))
    if kind == 8:
        return A.Attr(draw(sub), draw(names))
    if kind == 9:
        return A.Index(draw(sub), draw(sub))
    if kind == 10:
        return A.ListExpr(draw(st.lists(sub, max_size=3)))
    if kind == 11:
        keywords = draw(st.lists(st.sampled_from(["default", "key", "order"]), max_size=2, unique=True))
        return A.Call(draw(names), draw(st.lists(sub, max_size=2)), [(k, draw(sub)) for k in keywords])
    fors = [A.For(draw(st.lists(names, min_size=1, max_size=2)), draw(sub), draw(st.lists(sub, max_size=2)))
            for _ in range(draw(st.integers(1, 2)))]
    return A.Comprehension(draw(sub), fors)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=trees())
def test_printing_with_minimal_brackets_parses_back_to_the_tree(tree):
    text, _ = show(tree)
    assert parse(text) == tree, text
    _spans_point_at_their_text(text)


def test_a_budget_overrun_while_building_the_tree_is_not_wrapped(monkeypatch):
    # the watchdog raises wherever the code is: inside Lark's transformer it must still reach the caller as itself
    def overrun(*args):
        raise TimeBudgetExceeded()
    monkeypatch.setattr(parser._Builder, "add", overrun)
    with pytest.raises(TimeBudgetExceeded):
        parse("1 + 2")


def test_the_words_of_the_language_are_never_read_as_names():
    for word in parser.WORDS:
        assert not isinstance(_as_assigned(word), A.Name), word  # model/names.py refuses each as a declared name
    for near in ("none_", "If", "format", "self", "nothing", "fore"):
        assert isinstance(_as_assigned(near), A.Name), near


def _as_assigned(word: str):
    """What `word = 1` assigns to, or None when that does not parse."""
    try:
        return parse(f"{word} = 1", "stmt").target
    except SyntaxProblem:
        return None
