"""Built-ins are declared once: arity, keywords and usage come from each function's own signature, and the
forms the reference documents are the forms the compiler accepts."""

from __future__ import annotations

import inspect
import re

import pytest

from rulesdsl.lang import ast as A
from rulesdsl.ir.python import Compiler
from rulesdsl.lang.builtins import RuleValueError, pure_builtins
from rulesdsl.lang.compiler import Binding, CompileProblem, Scope, local
from rulesdsl.lang.declare import GAME, STATE, builtin, source_text
from rulesdsl.lang.evaluator import evaluate
from rulesdsl.lang.parser import SyntaxProblem, parse
from rulesdsl.model.values import Record
from rulesdsl.model.builtins import DECLARED, game_builtins

from .helpers import ROOT, load, lowered

REFERENCE = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
EVERY = [*pure_builtins().values(), *DECLARED]
BY_NAME = {b.name: b for b in EVERY}
NOT_NAMES = {"for", "in", "if", "else", "and", "or", "not", "none", "true", "false"}


def free_names(text) -> set:
    """The names in `text` that are neither called nor keywords: each is bound to a local when compiled."""
    names = re.findall(r"\b[a-z_][a-z0-9_]*\b(?!\s*(?:\(|=(?!=)))", re.sub(r"'[^']*'", "", text))
    return set(names) - NOT_NAMES


@pytest.fixture(scope="module")
def game_table():
    return {**pure_builtins(), **game_builtins(load("mabula").rules)}


# -- the declarations ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("b", EVERY, ids=lambda b: b.name)
def test_arity_keywords_and_usage_come_from_the_signature(b):
    parameters = list(inspect.signature(b.fn).parameters.values())
    engine = [p.name for p in parameters[:2] if p.name in (GAME, STATE)]
    assert b.game == (GAME in engine) and b.state == (STATE in engine)
    rest = parameters[len(engine):]
    positional = [p for p in rest if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    assert b.min_args == sum(p.default is p.empty for p in positional)
    assert b.max_args == (None if any(p.kind is p.VAR_POSITIONAL for p in rest) else len(positional))
    assert b.params == tuple(p.name.removesuffix("_") for p in positional)
    named = {p.name for p in rest if p.default is not p.empty and p.kind is not p.POSITIONAL_ONLY}
    assert set(b.keywords) == named | ({"*"} if any(p.kind is p.VAR_KEYWORD for p in rest) else set())
    usage = b.signature.split(" | ")[0]
    assert usage.startswith(f"{b.name}(") and b.name == b.fn.__name__.removesuffix("_")
    for p in rest:  # every parameter shows, a default as the language writes it (or as its declaration says)
        name = p.name.removesuffix("_")
        assert re.search(rf"[(, ]{name}\b", usage) or p.kind is p.VAR_POSITIONAL, (name, usage)
        if p.default is not p.empty and p.kind is not p.VAR_KEYWORD:
            assert f"{name}=" in usage
    assert b.doc and b.doc == " ".join(inspect.getdoc(b.fn).split("\n\n")[0].split())
    assert all(k not in (GAME, STATE) for k in b.params)


def test_the_usage_line_is_written_from_the_python_signature():
    @builtin("collections", aggregate="x for x in xs if cond", shown={"within": "all cells"})
    def pick_(g, S, xs, from_, *more, within=None, label="", flag=False, **attribute):
        """First line of the doc
        continues here.

        Notes for the developer, not shown."""

    b = pick_.builtin
    assert b.name == "pick" and b.state and b.game and b.aggregate
    assert b.signature == ("pick(xs, from, ..., within=all cells, label='', flag=false, attribute=value, ...) | "
                           "pick(x for x in xs if cond)")
    assert (b.min_args, b.max_args, b.keywords) == (2, None, ("within", "label", "flag", "*"))
    assert b.doc == "First line of the doc continues here."
    assert [source_text(v) for v in (None, True, False, 0, "a", 1.5)] == ["none", "true", "false", "0", "'a'", "1.5"]


def test_a_parameter_given_by_name_keeps_the_language_name():
    with pytest.raises(TypeError):
        @builtin("collections")
        def bad(xs, class_=None):
            """A keyword rules could not write."""


def test_known_usage_lines():
    table = {b.name: b.signature for b in EVERY}
    assert table["first"] == "first(xs, default=none) | first(x for x in xs if cond)"
    assert table["get"] == "get(table, key, default=none)"
    assert table["join"] == "join(xs, sep='')"
    assert table["piece"] == "piece(kind, attribute=value, ...)"
    assert table["can_move"] == "can_move(player, step=current step)"
    assert table["push_targets"] == "push_targets(from, direction, within)"
    assert table["longest_run"] == "longest_run(xs, cyclic=false)"
    assert table["min"] == "min(xs, ..., default=none) | min(f(x) for x in xs)"


def test_game_builtins_are_bound_once_per_game(game_table):
    step, ray = game_table["step"], game_table["ray"]
    assert not step.game and step.fn.__self__ is ray.fn.__self__  # one context for the whole game, bound once
    assert inspect.ismethod(step.fn) and not inspect.ismethod(game_table["at"].fn)  # at needs no game


# -- the forms once refused ----------------------------------------------------------------------------------
ENV = {"xs": [1, 5, 2], "empty_list": [], "t": {"a": 1}, "words": ["x", "y"]}


def both(text, env=ENV):
    """The value of `text` compiled, checked against the reference evaluator."""
    builtins = pure_builtins()
    namespace: dict = {}
    code = Compiler(builtins, namespace).expr(lowered(parse(text), Scope({n: Binding(f"L_{n}") for n in env})))
    compiled = eval("lambda " + ", ".join("L_" + n for n in env) + ": " + code, namespace)(*env.values())  # noqa: S307
    assert compiled == evaluate(parse(text), env, builtins), text
    return compiled


@pytest.mark.parametrize("text, value", [
    ("first(xs, default=7)", 1),
    ("first(empty_list, default=7)", 7),
    ("first([], default=0)", 0),
    ("last([], default=0)", 0),
    ("last(xs, default=0)", 2),
    ("get(t, 'k', default=0)", 0),
    ("get(t, 'a', default=0)", 1),
    ("get(t, 'k', 0)", 0),
    ("join(words, sep=',')", "x,y"),
    ("join([1, 2], sep='-')", "1-2"),
    ("split('a,b', sep=',')", ["a", "b"]),
    ("enumerate(words, start=1)", [(1, "x"), (2, "y")]),
    ("first(x for x in xs if x > 2, -1)", 5),
    ("first(x for x in xs if x > 9, -1)", -1),
    ("first(x for x in xs if x > 9, default=-1)", -1),
    ("first(x for x in xs if x > 9)", None),
    ("max(x for x in empty_list, default=0)", 0),
    ("min(xs, default=0)", 1),
    ("min(3, 4)", 3),
    ("sum(x * 2 for x in xs)", 16),
    ("zip(xs, words)", [(1, "x"), (5, "y")]),
    ("sorted(x for x in xs, reverse=true)", [5, 2, 1]),
])
def test_documented_forms_compile_and_evaluate(text, value):
    assert both(text) == value


# -- refusals show the right usage ---------------------------------------------------------------------------
def problem(text, builtins=None):
    scope = Scope({n: local(n) for n in free_names(text)})
    with pytest.raises(CompileProblem) as caught:
        Compiler(builtins or pure_builtins(), {}).expr(lowered(parse(text), scope))
    return caught.value


@pytest.mark.parametrize("text, message, hint", [
    ("first(xs, 1, 2)", "first() takes 1 to 2 arguments, got 3",
     "usage: first(xs, default=none) | first(x for x in xs if cond)"),
    ("get(t)", "get() takes 2 to 3 arguments, got 1", "usage: get(table, key, default=none)"),
    ("sorted(xs, true)", "sorted() takes 1 argument, got 2",
     "usage: sorted(xs, reverse=false) | sorted(f(x) for x in xs)"),
    ("first(xs, 0, default=1)", "first() is given 'default' twice",
     "usage: first(xs, default=none) | first(x for x in xs if cond)"),
    ("join(xs, separator=',')", "join() has no keyword 'separator'", "usage: join(xs, sep='')"),
    ("count(x for x in xs, 1)", "count() takes 1 argument, got 2", "usage: count(xs) | count(x for x in xs if cond)"),
    ("min(x for x in xs, 3)", "min() of a comprehension takes no other values",
     "usage: min(xs, ..., default=none) | min(f(x) for x in xs)"),
    ("last(x for x in xs)", "last() does not take a comprehension",
     "usage: last(xs, default=none); wrap it in brackets for a list: [x for x in xs]"),
])
def test_a_wrong_call_shows_the_usage(text, message, hint):
    found = problem(text)
    assert (found.message, found.hint) == (message, hint)


def test_a_wrong_game_call_shows_the_usage(game_table):
    found = problem("owned(me, c, c)", game_table)
    assert (found.message, found.hint) == ("owned() takes 1 to 2 arguments, got 3",
                                           "usage: owned(player, within=all cells)")


def test_a_comprehension_must_come_first():
    with pytest.raises(SyntaxProblem) as caught:
        parse("f(a, x for x in xs)")
    assert "first argument" in caught.value.hint
    call = parse("first(x for x in xs, 7)")
    assert isinstance(call.args[0], A.Comprehension) and call.args[0].generator and call.args[1] == A.Const(7)


# -- the reference (that its tables are generated: tests/test_docs.py) -----------------------------------------
def _forms():
    """Every call the docs' built-in tables show, as a rule can write it: `...` dropped, and a default the
    declaration describes in words (within=all cells) left out."""
    section = REFERENCE.split("<!-- builtins:start -->", 1)[1].split("<!-- builtins:end -->", 1)[0]
    for usage in re.findall(r"^\| `(.+?)` \| ", section, re.M):
        for form in usage.split(r" \| "):
            form = re.sub(r",\s*\.\.\.", "", form).replace("f(x)", "abs(x)")  # f: any function
            name, inner = re.fullmatch(r"(\w+)\((.*)\)", form).groups()
            kept = []
            parameters = inspect.signature(BY_NAME[name].fn).parameters
            for arg in filter(None, (a.strip() for a in inner.split(", ") if " for " not in inner)):
                keyword, _, default = arg.partition("=")
                if default and keyword in parameters and default != source_text(parameters[keyword].default):
                    continue  # a default described in words
                kept.append(arg)
            yield form if " for " in inner else f"{name}({', '.join(kept)})"


def _compile(text, table):
    node = parse(text)
    scope = Scope({n: local(n) for n in free_names(text) - {"me"}} | {"me": Binding("me")})
    compiler = Compiler(dict(table), {})
    if isinstance(node, A.Call) and table[node.func].effect:
        return compiler.stmt(lowered(parse(text, "stmt"), scope))
    return compiler.expr(lowered(node, scope))


@pytest.mark.parametrize("form", list(_forms()))
def test_every_form_in_the_tables_compiles(form, game_table):
    _compile(form, game_table)


def test_every_keyword_may_be_given_by_name(game_table):
    for b in game_table.values():
        for k in b.keywords:
            _compile(f"{b.name}({', '.join(b.params[:b.min_args])}, {'colour' if k == '*' else k}=value)"
                     .replace("(, ", "("), game_table)


def _prose_calls():
    """Inline code elsewhere in the reference that calls a built-in, e.g. `has_run(outcome, 3)`."""
    names = {b.name for b in EVERY}
    for span in re.findall(r"`([^`\n]+)`", REFERENCE.split("<!-- builtins:start -->")[0]):
        bare = re.fullmatch(r"\w+\(\)", span)  # `product()`: the built-in named, not called
        if "..." not in span and not bare and any(re.search(rf"\b{n}\(", span) for n in names):
            yield span


@pytest.mark.parametrize("text", list(_prose_calls()))
def test_every_call_the_reference_shows_compiles(text, game_table):
    try:
        _compile(text, game_table)
    except CompileProblem as exc:  # a constant this test's game lacks (a cell, a step): the call itself is fine
        assert re.match(r"\w+\(\): ", exc.message), (text, exc.message)


def test_counts_by_counts_each_value_of_an_attribute_in_first_seen_order():
    records = [Record(rank="K"), Record(rank="2"), Record(rank="K")]
    assert both("counts_by(rs, 'rank')", {"rs": records}) == {"K": 2, "2": 1}
    assert list(both("counts_by(rs, 'rank')", {"rs": records})) == ["K", "2"]
    assert both("counts_by(rs, 'rank')['K'] + get(counts_by([], 'rank'), 'Q', 0)", {"rs": records}) == 2
    for text, message in [("counts_by(rs, 'suit')", "has no attribute 'suit'"),
                          ("counts_by(rs, 3)", "the attribute should be a name in quotes"),
                          ("counts_by(n, 'rank')", "counts_by")]:
        with pytest.raises(RuleValueError, match=message):
            both(text, {"rs": records, "n": 5})
