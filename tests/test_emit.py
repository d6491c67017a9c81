"""The emit form of generated functions: its rendering, how moves are laid out in it, and `rulesdsl compile`."""

from __future__ import annotations

import pytest

import rulesdsl
from rulesdsl.ir.python import Compiler
from rulesdsl.lang.builtins import pure_builtins
from rulesdsl.lang.compiler import Binding, Scope, loops_called
from rulesdsl.lang.evaluator import evaluate
from rulesdsl.lang.parser import parse
from rulesdsl.lang.verify import namespace_builtins, verify
from rulesdsl.loading import bundled_games
from rulesdsl.lang.emit import (Append, Assign, Comment, Continue, Effect, For, Function, Guard, If, Return, Try,
                                 Yield, expressions, outline, render)

from .helpers import lowered
from .helpers import run_cli as run

# A move whose checks each use a different last name: one uses none, one the first param, one the second
# param, one the let computed from both.
HOIST = """
game: Hoist
players: {count: 2}
board: {grid: {columns: 1, rows: 1}}
moves:
  pick:
    params:
      a: "[0, 1, 2]"
      b: "[1, 2, 3]"
    let:
      s: "a + b"
    when:
      - "turn >= 0"
      - "s < 5"
      - "a > 0"
      - "b != 2"
flow:
  steps:
    play:
      moves: [pick]
end:
  - when: "turn > 3"
"""


def _shape(stmts):
    """The statements as nested tuples of their kinds and leaves, for comparing layouts."""
    shaped = []
    for s in stmts:
        if isinstance(s, For):
            shaped.append(("for", s.names, _shape(s.body)))
        elif isinstance(s, Guard):
            shaped.append(("guard", s.test, type(s.exit).__name__, getattr(s.exit, "value", None)))
        elif isinstance(s, If):
            shaped.append(("if", s.test, _shape(s.body), _shape(s.orelse)))
        elif isinstance(s, Assign):
            shaped.append(("let", s.target))
        elif not isinstance(s, Comment):
            shaped.append((type(s).__name__.lower(), getattr(s, "value", None)))
    return shaped


@pytest.fixture(scope="module")
def hoist(tmp_path_factory):
    path = tmp_path_factory.mktemp("emit") / "hoist.yaml"
    path.write_text(HOIST, encoding="utf-8")
    return rulesdsl.load_game(str(path))


def test_nested_blocks_are_indented_and_empty_ones_hold_pass():
    fn = Function("gen_x_1", ("S", "me", "L_k=None"), [
        Assign("L_n", "0"),
        For(("L_a", "L_b"), "K0", [
            Guard("(L_a > 0)", Continue()),
            If("(L_b == 1)", [Effect("F_move(S, L_a, L_b)")], [If("(L_b == 2)", [], [Comment("why"), Yield("L_a")])]),
        ]),
        Try([Return("K1[L_n]")], "KeyError", []),
    ])
    assert render(fn) == (
        "def gen_x_1(S, me, L_k=None):\n"
        "    L_n = 0\n"
        "    for L_a, L_b in K0:\n"
        "        if not (L_a > 0): continue\n"
        "        if (L_b == 1):\n"
        "            F_move(S, L_a, L_b)\n"
        "        elif (L_b == 2):\n"
        "            pass\n"
        "        else:\n"
        "            # why\n"
        "            yield L_a\n"
        "    try:\n"
        "        return K1[L_n]\n"
        "    except KeyError:\n"
        "        pass\n")


def test_a_test_that_leaves_is_one_line_and_an_empty_function_passes():
    body = [If("(L_a in K0)", [Return("1")]), If("L_b", [Return("2")], [Return("3")]), Return()]
    assert render(Function("f_1", ("S",), body)).splitlines()[1:] == [
        "    if (L_a in K0): return 1", "    if L_b:", "        return 2", "    else:", "        return 3",
        "    return"]
    assert render(Function("f_2", ("S",), [])) == "def f_2(S):\n    pass\n"


def test_appending_looks_the_method_up_once():
    lines = render(Function("collect_1", ("S", "me", "out"), [For(("L_a",), "K0", [Append("L_a")])])).splitlines()
    assert lines[1].startswith("    append = out.append") and lines[3] == "        append(L_a)"


def test_walks_find_every_expression_and_the_outline_names_blocks():
    body = [For(("L_a",), "K0", [Guard("(L_a > 1)", Return("0")), Try([Yield("L_a")], "TypeError",
                                                                       [Append("K2")])])]
    assert list(expressions(body)) == ["K0", "(L_a > 1)", "0", "L_a", "K2"]
    assert outline(Function("f_1", ("S",), body)) == [
        "Function(name='f_1', params=('S',))",
        "  For(names=('L_a',), iterable='K0')",
        "    Guard(test='(L_a > 1)', exit=Return(value='0'))",
        "    Try(catch='TypeError')",
        "      body:",
        "        Yield(value='L_a')",
        "      handler:",
        "        Append(value='K2')"]


def test_each_check_runs_in_the_loop_of_the_last_name_it_uses(hoist):
    rule = hoist.rules.moves["pick"]
    turn, s, a, b = (f"{c}" for c in ("(S.turn >= 0)", "(L_s < 5)", "(L_a > 0)", "(L_b != 2)"))
    assert _shape(rule.generate.tree.body) == [
        ("guard", turn, "Return", None),  # uses no param: checked once, before any loop
        ("for", ("L_a",), [
            ("guard", a, "Continue", None),  # uses a: before the loop over b
            ("for", ("L_b",), [
                ("guard", b, "Continue", None),  # uses b only: before the let
                ("let", "L_s"),
                ("guard", s, "Continue", None),  # uses the let: right after it
                ("yield", "(L_a, L_b, L_s, )")])])]
    # explain has the same order, each check returning its index (0, 1: the params' domains; then the whens)
    explain = _shape(rule.explain.tree.body)
    assert [step[0] for step in explain] == ["guard", "if", "guard", "if", "guard", "let", "guard", "return"]
    assert [step[3] if step[0] == "guard" else step[2] if step[0] == "if" else None for step in explain] == [
        "2", [("return", "0")], "4", [("return", "1")], "5", None, "3", None]
    state = hoist.new_initial_state()
    assert sorted(m.args for m in state.legal_moves()) == [(1, 1, 2), (1, 3, 4), (2, 1, 3)]


@pytest.mark.parametrize("name", sorted(bundled_games()))
def test_every_generated_function_renders_from_its_form_and_passes_verify(name):
    rules = rulesdsl.load_game(name).rules
    functions = [value for value in rules.namespace.values() if hasattr(value, "source")]
    assert len(functions) > 10
    for fn in functions:
        assert render(fn.tree) == fn.source
        verify(fn.source)
    filed = {fn for fns in rules.generated.values() for fn in fns}
    assert {label.split()[0] for label in rules.generated} >= {"move", "step", "end"}
    assert {f"move {m}" for m in rules.moves} <= set(rules.generated)
    assert {f"step {s}" for s in rules.steps} <= set(rules.generated)
    assert filed <= set(functions)


def test_generated_functions_are_filed_under_the_rule_files_names():
    generated = rulesdsl.load_game("fast-track").rules.generated
    assert "function side_cells" in generated and "procedure send_home" in generated
    split = [fn.__name__.rsplit("_", 1)[0] for fn in generated["move split"]]
    assert split[:5] == ["gen_split", "candidates_split", "explain_split", "do_split", "note_split"]
    assert "collect_split" not in split and "inputs_split_0" in split  # a compound move: its parts' inputs
    assert [fn.__name__.rsplit("_", 1)[0] for fn in generated["end 1"]] == ["expr", "expr"]  # winners, when


def test_compile_shows_a_moves_generated_functions(capsys):
    code, out, _ = run(capsys, "compile", "mabula", "--show", "push")
    assert code == 0 and out.startswith("# move push")
    for kind in ("gen", "collect", "exists", "candidates", "explain", "do", "note"):
        assert f"\ndef {kind}_push_" in out
    assert "        for L_to in " in out  # the second param's loop, inside the first's


def test_compile_lists_what_it_generated_and_shows_the_form(capsys):
    code, out, _ = run(capsys, "compile", "mark", "--option", "players=4")
    assert code == 0 and any(line.startswith("move bid ") for line in out.splitlines())
    code, out, _ = run(capsys, "compile", "mark", "--show", "end 1", "--emit")
    assert code == 0 and "Function(name='expr_" in out and "  Return(value=" in out


def test_compile_of_an_unknown_name_lists_the_names_with_a_hint(capsys):
    code, out, err = run(capsys, "compile", "mabula", "--show", "pusj")
    assert code == 2 and out == ""
    assert "no move, step, function, procedure or end rule named 'pusj'" in err
    assert "did you mean 'push'?" in err and "move push, step setup" in err


# -- any, all and first over a generator comprehension: loops of their own -----------------------------------
def _loop_function(text, env):
    """(value, source of the loop functions) of `text` compiled with locals `env`."""
    namespace = {"__builtins__": namespace_builtins()}
    code = Compiler(pure_builtins(), namespace).expr(lowered(parse(text), Scope({n: Binding(f"L_{n}") for n in env})))
    fn = eval("lambda " + ", ".join(f"L_{n}" for n in env) + ": " + code, namespace)  # noqa: S307
    return fn(*env.values()), "".join(loop.source for loop in loops_called(fn, namespace))


@pytest.mark.parametrize("text, value", [
    ("any(x > 2 for x in xs)", True), ("any(x > 9 for x in xs)", False),
    ("all(x > 0 for x in xs)", True), ("all(x > 1 for x in xs)", False),
    ("first(x for x in xs if x > 1)", 3), ("first(x for x in xs if x > 9)", None),
    ("first(x * 10 for x in xs for y in ys if x == y)", 30),
    ("any(all(c in xs for c in row) for row in rows)", True),
    ("all(any(c == x for c in row) for row in rows if x in row)", True),
    ("any(x == y for x in xs for y in xs if x > 1 and y < 3)", True),
    ("any(all(c in xs for c in row) for row in [[], [9]])", True),  # all of nothing holds
    ("all(any(c > 0 for c in row) for row in [[1], []])", False),  # any of nothing does not
    ("any(any(c == y for c in row for y in ys) for row in rows)", True),  # of the same kind: one loop nest
    ("all(all(c < y for c in row) for row in rows for y in ys if y > 4)", True),
    ("any(all(c in xs for c in row for d in row) for row in rows)", True),  # two clauses: a loop of its own
    ("any(x for x in xs if x > k)", True),  # the item itself, true when not 0
    ("[any(x > k for x in xs) for k in [1, 5]]", [True, False]),  # k is the outer loop's, passed in
    ("any(x > 2 for x in [x for x in xs if x < 3])", False),  # a name reused inside its own domain
])
def test_any_all_first_compile_to_loops_that_stop_at_the_answer(text, value):
    env = {"xs": [1, 3, 2], "ys": [3, 5], "rows": [[1, 3], [4]], "x": 4, "k": 2}
    found, source = _loop_function(text, env)
    assert found == value == evaluate(parse(text), env, pure_builtins())
    assert source.startswith("def H_") and "for " in source and "return " in source
    verify(source)


@pytest.mark.parametrize("text, heads", [
    ("any(x > 2 for x in xs)", ["def H_0(L_xs):"]),
    ("any(x > 2 for x in xs if x in ys)", ["def H_0(L_xs, L_ys):"]),
    ("[any(x > k for x in xs) for k in [1, 5]]", ["def H_0(C1_k, L_xs):"]),  # the outer loop's k, renamed
    ("any(x == 'L_ys' or 'me' in 'S.me' for x in xs)", ["def H_0(L_xs):"]),  # text that looks like names: text
    ("first(x for x in xs if any(y == x for y in ys))", ["def H_1(L_xs, L_ys):", "def H_0(C1_x, L_ys):"]),
])
def test_a_loop_function_takes_the_locals_its_code_reads(text, heads):
    env = {"xs": [1, 3, 2], "ys": [3, 5], "x": 4, "k": 2}
    _, source = _loop_function(text, env)
    assert [line for line in source.splitlines() if line.startswith("def ")] == heads


def test_an_any_of_alls_runs_the_inner_loop_in_place():
    _, source = _loop_function("any(all(c in xs for c in row) for row in rows)", {"xs": [1], "rows": [[1]]})
    assert source.count("def H_") == 1 and ": break" in source and "else:\n            return True" in source


def test_a_loop_is_one_function_for_every_place_it_is_written_alike():
    _, source = _loop_function("any(x > 2 for x in xs) or any(x > 2 for x in xs)", {"xs": [1]})
    assert source.count("def H_") == 1


def test_a_loop_over_the_board_reads_the_cells_itself(capsys):
    code, out, _ = run(capsys, "compile", "fast-track", "--show", "clear")
    assert code == 0
    caller, loop = out.split("\ndef H_")  # the function, then the loop it calls
    assert "return H_" in caller and "_cells = S.cells" in loop and "return False" in loop


def test_a_failure_inside_a_loop_is_the_rule_files(tmp_path):
    path = tmp_path / "bad.yaml"
    # (the value looped over is a whole number or a list, as far as the load-time checks can tell)
    path.write_text(HOIST.replace('"turn > 3"', '"any(x > 1 for x in get({\'k\': turn, \'j\': [1]}, \'k\'))"'))
    game = rulesdsl.load_game(str(path))
    state = game.new_initial_state()
    with pytest.raises(rulesdsl.GameRuntimeError, match="rule 'end' failed.*'int' object is not iterable"):
        state.apply(state.legal_moves()[0])
