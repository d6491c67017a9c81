"""Static types: what the checker infers, the type errors it reports at load time, and that it is sound.

Sound means: an expression the checker refuses fails whenever it runs, and the value of one it accepts is of
the kind its inferred type says. Random expressions that mix every kind of value (numbers, text, lists,
tuples, tables, none) test both against the compiled code.
"""

from __future__ import annotations

import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rulesdsl
from rulesdsl.errors import RulesError
from rulesdsl.lang import types as T
from rulesdsl.ir.python import Compiler
from rulesdsl.ir.infer import Typer
from rulesdsl.lang.builtins import pure_builtins
from rulesdsl.lang.compiler import Binding, CompileProblem, Scope
from rulesdsl.lang.parser import parse

from .helpers import lowered

ENV = {"n": 3, "f": 2.5, "s": "ab", "xs": [1, 2], "ts": (1, "a"), "t": {"k": 1}, "nothing": None, "yes": True}


def typer_and_scope(env=ENV):
    builtins = pure_builtins()
    scope = Scope({name: Binding(f"L_{name}", type=T.type_of_value(value)) for name, value in env.items()})
    return Typer(builtins), scope, builtins


def infer(text: str, env=ENV) -> T.Type:
    typer, scope, _ = typer_and_scope(env)
    return typer.expr(lowered(parse(text), scope))


def refused(text: str) -> CompileProblem:
    with pytest.raises(CompileProblem) as info:
        infer(text)
    assert info.value.code == "type_error"
    return info.value


# -- what is inferred -----------------------------------------------------------------------------------

@pytest.mark.parametrize("text, expected", [
    ("1 + 2", T.INT_T),
    ("n / 2", T.FLOAT_T),
    ("n // 2", T.INT_T),
    ("n + f", T.FLOAT_T),
    ("2 ** n", T.NUMBER),  # a negative power would be a fraction
    ("s + 'c'", T.TEXT_T),
    ("[1, 2] + [3]", T.list_(T.INT_T, 3)),
    ("n < 4", T.BOOL_T),
    ("ts[1]", T.enum("a")),
    ("size(xs)", T.INT_T),
    ("[x * 2 for x in xs]", T.list_(T.INT_T, 2)),  # (xs holds 2: so does what is made from it, at most)
    ("[x for x in xs if x > 1]", T.list_(T.INT_T, 2)),
    ("[x for x in size(xs)..9]", T.list_(T.INT_T)),
    ("repeat(0, 3)", T.list_(T.int_(0, 0), 3)),
    ("{'a': 1}['a']", T.INT_T),
    ("1..4", T.range_(1, 4)),
    ("s if yes else none", T.optional(T.enum("ab"))),
])
def test_types_are_inferred(text, expected):
    assert infer(text) == expected


# -- what is refused, and where ---------------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ("xs + ts", "cannot add a list of numbers and a tuple of 2 with '+'"),
    ("nothing < 3", "cannot compare none with the number 3 by '<'"),
    ("n.x", "the number 3 has no attributes ('.x')"),
    ("s - 1", "cannot subtract the text 'ab' and the number 1 with '-'"),
    ("3 in n", "'in' needs a collection on its right, not the number 3"),
    ("n[0]", "the number 3 cannot be indexed"),
    ("xs['a']", "a list of numbers is indexed by a whole number, not the text 'a'"),
    ("ts[2]", "index 2 is outside a tuple of 2"),
    ("[a for a, b in xs]", "2 names cannot be taken from a whole number"),
    ("[a for a, b, c in [(1, 2)]]", "3 names (a, b, c) cannot be taken from tuples of 2 items"),
    ("size(3)", "size() needs a list, a tuple, a range, text or a table as 'xs', not the number 3"),
    ("'a'..3", "a range runs between whole numbers, not the text 'a'"),
    ("-s", "'-' needs a number, not the text 'ab'"),
    ("[x for x in 5]", "cannot loop over the number 5"),
])
def test_type_errors_are_located_at_the_operation(text, message):
    problem = refused(text)
    assert problem.message == message
    assert 0 <= problem.start < problem.end <= len(text)


def test_a_hint_says_how_to_join_a_list_and_a_tuple():
    assert refused("xs + ts").hint == "make both lists (list(xs)) or both tuples to join them"


def test_what_is_not_known_is_never_refused():
    unknown = {"u": object()}  # a value of no known type: ANY
    for text in ("u + 1", "u < 3", "u.x", "u[0]", "3 in u", "[a for a, b in u]", "size(u)"):
        infer(text, unknown)


# -- soundness against the compiled code -----------------------------------------------------------------

ATOMS = ["n", "f", "s", "xs", "ts", "t", "nothing", "yes", "0", "-2", "1.5", "'k'", "[]", "[1, 'a']", "(2, 3)",
         "none", "true", "(1..3)", "{'k': 2}"]
BINARY = ["+", "-", "*", "/", "//", "%", "<", ">=", "==", "!=", "in", "not in", "and", "or"]


LAZY = ["and", "or"]  # operators that may leave their right operand unevaluated


@st.composite
def mixed(draw, depth=3, lazy=True):
    """Expression text over values of every kind; with lazy=False, every part of it is evaluated when it runs
    (no and/or, no branch of an if, no comprehension that may loop zero times)."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.sampled_from(ATOMS))
    choice = draw(st.integers(0, 9 if lazy else 6))
    a, b = draw(mixed(depth - 1, lazy)), draw(mixed(depth - 1, lazy))
    if choice <= 4:
        return f"({a} {draw(st.sampled_from(BINARY if lazy else [op for op in BINARY if op not in LAZY]))} {b})"
    if choice == 5:
        return f"{a}[{b}]"
    if choice == 6:
        return f"(-{a})"
    if choice == 7:
        return f"({a} if {b} else {draw(mixed(depth - 1))})"
    if choice == 8:
        return f"[x for x in {a}]"
    fn = draw(st.sampled_from(["size", "sum", "str", "list", "sorted", "abs", "keys", "distinct", "first"]))
    return f"{fn}({a})"


def _run(text: str):
    """(True, value) of running the compiled expression, or (False, the exception)."""
    typer, scope, builtins = typer_and_scope()
    namespace: dict = {}
    compiler = Compiler(builtins, namespace)
    try:
        code = compiler.expr(lowered(parse(text), scope))
    except CompileProblem as exc:  # constants that can never work, found while folding them
        return False, exc
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        fn = eval(f"lambda {', '.join('L_' + k for k in ENV)}: {code}", namespace)  # noqa: S307 - test only
    try:
        return True, fn(*ENV.values())
    except Exception as exc:  # noqa: BLE001 - any failure counts as failing
        return False, exc


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mixed(lazy=False))
def test_the_checker_refuses_only_what_fails(text):
    # (a part that is never evaluated, such as the other branch of an if, is refused all the same, as in any
    # typed language: so this holds for expressions that evaluate every part)
    typer, scope, _ = typer_and_scope()
    try:
        typer.expr(lowered(parse(text), scope))
    except CompileProblem as problem:
        assert problem.code == "type_error"
        ran, _ = _run(text)
        assert not ran, f"{text!r} was refused ({problem.message}) but runs"


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mixed())
def test_what_runs_is_of_the_kind_inferred(text):
    typer, scope, _ = typer_and_scope()
    try:
        inferred = typer.expr(lowered(parse(text), scope))
    except CompileProblem:
        return
    ran, value = _run(text)
    if ran:
        kind = T.kinds(T.type_of_value(value))
        assert kind <= T.kinds(inferred), f"{text!r} gave {value!r}, not {T.describe(inferred)}"


def test_every_builtin_declares_types_the_checker_reads():
    # a declaration that names no type of the language fails as the module is imported; here: each is a Type
    from rulesdsl.model.builtins import all_builtins

    for b in [*pure_builtins().values(), *all_builtins()]:
        assert all(t is None or isinstance(t, T.Type) for t in b.arg_types), b.name
        assert b.returns is None or isinstance(b.returns, T.Type), b.name
        if b.effect:  # called for what it does
            assert b.returns == T.NONE_T, b.name


# -- in rule files ----------------------------------------------------------------------------------------

GAME = """game: typed
players: {count: 2}
board: {grid: {columns: [a, b], rows: ["1", "2"]}}
let:
  pairs: "[(1, 2, 3), (4, 5, 6)]"
moves:
  mark:
    params: {c: "cells"}
    let:
%s
    when: "empty(c)"
    do: ["place(piece('stone', owner=me), c)"]
pieces: {stone: {attributes: {owner: {values: "players"}}}}
flow:
  steps:
    turn: {moves: [mark]}
end:
  - when: "size(occupied()) == 4"
    winners: "[]"
"""


@pytest.mark.parametrize("let, where, message", [
    ('      bad: "list(cells) + (1, 2)"', (10, 13), "cannot add a list of cells and a tuple of 2 with '+'"),
    ('      bad: "at(c) < c"', (10, 13), "cannot compare a piece or none with a cell by '<'"),
    ('      bad: "[a + b for a, b in pairs]"', (10, 32), "2 names (a, b) cannot be taken from tuples of 3 items"),
    ('      far: "c.x + 1"\n      bad: "far.owner"', (11, 13), "a whole number has no attributes ('.owner')"),
])
def test_type_errors_in_a_rule_file_are_reported_by_validate_at_file_line_col(tmp_path, let, where, message):
    path = tmp_path / "typed.yaml"
    path.write_text(GAME % let)
    with pytest.raises(RulesError) as info:
        rulesdsl.load_game(str(path))
    [problem] = info.value.problems
    assert (problem.location.line, problem.location.col) == where
    assert problem.message == message and problem.code == "type_error"


def test_a_well_typed_rule_file_loads(tmp_path):
    path = tmp_path / "typed.yaml"
    path.write_text(GAME % '      near: "[x for x in ray(c, \'n\') if x != c] if c.x > 0 else []"')
    rulesdsl.load_game(str(path))


VARS = GAME.replace("moves:\n", """vars:
  total: 0
  names: {init: "[]"}
  best: {per: player, init: "none"}
moves:
""")


@pytest.mark.parametrize("effects, message", [
    ('["total = total + \'x\'"]', "cannot add a whole number and the text 'x' with '+'"),
    ('["names = names + (1,)"]', "cannot add a list and a tuple of 1 with '+'"),
    ('["best[me] = c", "total = best[me] + \'x\'"]', "cannot add a cell or none and the text 'x' with '+'"),
])
def test_a_variable_has_the_type_of_every_value_the_rules_give_it(tmp_path, effects, message):
    path = tmp_path / "vars.yaml"
    path.write_text(VARS.replace("""    do: ["place(piece('stone', owner=me), c)"]""", f"    do: {effects}") % '      x: "1"')
    with pytest.raises(RulesError) as info:
        rulesdsl.load_game(str(path))
    assert [p.message for p in info.value.problems] == [message]


@pytest.mark.parametrize("effects", [
    '["total = \'ten\'", "total = total + 1 if total != \'ten\' else 0"]',  # text or a number: + may work
    '["names = names + [c]", "total = size(names)"]',
    '["best[me] = c", "total = best[me].x if best[me] != none else 0"]',
])
def test_what_a_variable_may_hold_is_never_refused(tmp_path, effects):
    path = tmp_path / "vars.yaml"
    path.write_text(VARS.replace("""    do: ["place(piece('stone', owner=me), c)"]""", f"    do: {effects}") % '      x: "1"')
    rulesdsl.load_game(str(path))
