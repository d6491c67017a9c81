"""Limits on the shape of rule code that a load enforces: loops nested in an expression or in effects, a move's
params, notation and cell-name templates, and the one budget a file's variants share in validate. Each is a
located error at the part that crosses it; one less than the limit loads and plays."""

from __future__ import annotations

import json
import time

import pytest

import rulesdsl
from rulesdsl import budget
from rulesdsl.errors import RulesError
from rulesdsl.findings import check_file
from rulesdsl.limits import MAX_LOOP_DEPTH, MAX_PARAMS, MAX_TEMPLATE_CHARS

GAME = """\
game: Shapes
players: {count: 2}
board: {grid: {columns: abc, rows: 3, name: NAME}}
data: {nums: [1, 2]}
pieces:
  stone: {attributes: {tag: {default: 0}}}
vars: {total: {init: 0}}
moves:
  put:
    params:
      c: {in: "[x for x in cells if empty(x)]"}
PARAMS    when: [WHEN]
    notation: NOTATION
    do:
      - "place(piece('stone'), c)"
      - DO
flow:
  steps:
    play: {moves: [put], pass: pass}
end:
  - when: "turn >= 2"
    winners: "[]"
"""


def game(write, when="true", do="total += 1", params=0, notation="{c}", name="{col}{row}") -> str:
    text = GAME.replace("WHEN", json.dumps(when)).replace("DO", json.dumps(do))
    text = text.replace("NOTATION", json.dumps(notation))
    text = text.replace("PARAMS", "".join(f"      p{i}: {{in: \"[0]\"}}\n" for i in range(params)))
    return write(text.replace("NAME", json.dumps(name)))


def refused(path: str, limit: str):
    """The one problem of a file that does not load, with the limit it names."""
    with pytest.raises(RulesError) as info:
        rulesdsl.load_game(path)
    (problem,) = info.value.problems
    assert problem.code == "limit_exceeded" and problem.get("limit") == limit, problem.format()
    assert problem.location.file == path and problem.location.line > 0
    return problem


def plays(path: str) -> None:
    state = rulesdsl.load_game(path).new_initial_state()
    state.apply(state.legal_moves()[0])


def nested_any(n: int) -> str:
    text = "true"
    for i in range(n):
        text = f"{'any' if i % 2 else 'all'}({text} for x{i} in nums)"
    return text


def nested_for(n: int, inner: str) -> list:
    block = [inner]
    for i in range(n):
        block = [{"for": f"i{i} in 0..1", "do": block}]
    return block


@pytest.mark.parametrize("make", [nested_any, lambda n: "sum(" * n + "1" + "".join(
    f" for x{i} in nums)" for i in range(n)) + " > 0", lambda n: f"any({nested_any(n - 2)} for a in nums "
    "for b in nums)"])
def test_loops_nested_past_the_limit_in_an_expression_are_located_at_the_clause(write, make):
    # (before the limit, Python refused the code printed for 20 nested loops: an internal error)
    problem = refused(game(write, when=make(MAX_LOOP_DEPTH + 1)), "MAX_LOOP_DEPTH")
    line = open(problem.location.file, encoding="utf-8").read().splitlines()[problem.location.line - 1]
    assert line[problem.location.col - 1:].startswith("for ")
    plays(game(write, when=make(MAX_LOOP_DEPTH)))


def test_for_blocks_nested_past_the_limit_are_located_at_the_innermost_too_many(write):
    path = write(open(game(write), encoding="utf-8").read().replace(
        '- "total += 1"', "- " + json.dumps({"if": "true", "then": nested_for(MAX_LOOP_DEPTH + 1, "total += 1")})))
    problem = refused(path, "MAX_LOOP_DEPTH")
    assert "'for:' blocks are nested more than" in problem.message
    plays(write(open(path, encoding="utf-8").read().replace(
        json.dumps({"if": "true", "then": nested_for(MAX_LOOP_DEPTH + 1, "total += 1")}),
        json.dumps({"if": "true", "then": nested_for(MAX_LOOP_DEPTH, "total += 1")})), "within"))


def test_a_move_with_too_many_params_is_located_at_the_first_one_too_many(write):
    path = game(write, params=MAX_PARAMS)  # with c, one more than allowed
    problem = refused(path, "MAX_PARAMS")
    assert open(path, encoding="utf-8").read().splitlines()[problem.location.line - 1].strip().startswith(
        f"p{MAX_PARAMS - 1}:")
    plays(game(write, params=MAX_PARAMS - 1))


def test_a_notation_template_longer_than_the_limit_is_refused(write):
    refused(game(write, notation="{c}" + "-" * MAX_TEMPLATE_CHARS), "MAX_TEMPLATE_CHARS")
    plays(game(write, notation="{c}" + "-" * (MAX_TEMPLATE_CHARS - 3)))


def test_a_cell_name_template_longer_than_the_limit_is_refused(write):
    refused(game(write, name="{col}{row}" + "x" * MAX_TEMPLATE_CHARS), "MAX_TEMPLATE_CHARS")


def test_the_variants_of_a_file_share_one_load_budget(write, monkeypatch):
    # each variant's value takes its whole budget (3 s, scaled): with a budget each, 12 variants took 12 times it
    monkeypatch.setenv("RULESDSL_TIME_SCALE", "0.05")
    budget.ensure_watchdog()
    slow = "sum(i * j % 7 for i in 0..100000 for j in 0..100000)"
    variants = "variants:\n" + "".join(f"  v{i}:\n    changes:\n      let:\n        slow: \"{slow}\"\n"
                                       for i in range(12))
    text = open(game(write), encoding="utf-8").read().replace("moves:", "let: {slow: '1'}\nmoves:", 1)
    path = write(text.replace("board:", variants + "board:", 1), "variants")
    report = check_file(path)
    stopped = [name for name, problems in report.broken.items()
               if any("not loaded" in p.message for p in problems)]
    # the shared 1 s (scaled) holds a few of the 0.15 s values: the rest are never worked out
    assert len(report.broken) == 12 and 0 < len(stopped) < 12
    assert stopped == [f"v{i}" for i in range(12 - len(stopped), 12)]  # the last ones
    for name in stopped:
        (problem,) = report.broken[name]
        assert problem.location.line == open(path, encoding="utf-8").read().splitlines().index(f"  {name}:") + 1


def test_a_load_time_value_whose_budget_runs_out_while_it_is_compiled_is_located_at_it(write, monkeypatch):
    # the budget of a let covers compiling it too: a long sum takes longer to compile than to add up, and its
    # budget running out there was an error with no line
    from rulesdsl.model.compile import ModelCompiler
    monkeypatch.setitem(budget._sections, ModelCompiler.evaluate_now.__code__, (0.001, "working it out"))
    budget.ensure_watchdog()
    compile_expr = ModelCompiler.expr

    def slow_to_compile(self, path, text, *rest, **options):  # the sum compiles in less than the watchdog's
        if str(text).startswith("1 + 1 + 1"):  # tick on a fast machine: its compile is made to take as long as need be
            end = time.process_time() + 30
            while time.process_time() < end:
                pass
        return compile_expr(self, path, text, *rest, **options)

    monkeypatch.setattr(ModelCompiler, "expr", slow_to_compile)
    text = open(game(write), encoding="utf-8").read().replace("moves:", "let:\n  long: \"" + " + ".join(
        ["1"] * 3000) + "\"\nmoves:", 1)
    path = write(text, "long")
    with pytest.raises(RulesError) as caught:
        rulesdsl.load_game(path)
    line = text.splitlines().index("  long: \"" + " + ".join(["1"] * 3000) + "\"") + 1
    assert f"{path}:{line}:" in str(caught.value) and "took longer than" in str(caught.value)
