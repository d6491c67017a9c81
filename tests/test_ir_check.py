"""The IR made readable (its text round-trips through the parser, its outline), and `compile --check`: which rules lie
in the subset a compiled backend can take, and why the others do not, located exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings

import rulesdsl
from rulesdsl.ir import nodes as N
from rulesdsl.ir import subset
from rulesdsl.ir.lower import Lowerer
from rulesdsl.ir.show import outline, source, type_text
from rulesdsl.lang import ast as A
from rulesdsl.lang import types as T
from rulesdsl.lang.compiler import Scope
from rulesdsl.lang.parser import parse
from rulesdsl.loading import load_document, with_variant

from .helpers import ROOT, run_cli
from .test_lang_properties import expressions
from .test_parser import trees

FILES = sorted((ROOT / "games").glob("*.yaml")) + sorted((ROOT / "examples").glob("*/*.yaml"))
CORPUS = sorted((ROOT / "tests" / "fuzz_corpus").rglob("*.yaml"))


# -- source: the IR back as rules-language text ------------------------------------------------------------------
def lowered(node, text: str = "", statement: bool = False):
    """The IR of a parsed expression (or statement), lowered where no name is declared."""
    lowerer = Lowerer((), {}, Scope(), text=text)
    return lowerer.stmt(node) if statement else lowerer.expr(node)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=expressions())
@example(text="-(2 ** -1) ** 2 + (a if b else c)..(1 if xs else 2)")
@example(text="sum(x * 2 for x in xs if x > 1 if x < 9) + max([y for y in ys], default=0)")
@example(text="not (a in xs) == (b not in ys) and (s + 'it\\'s \"x\"')[1:] != s[:a]")
def test_the_text_of_a_lowered_expression_parses_back_to_its_tree(text):
    tree = parse(text)
    written = source(lowered(tree, text))
    assert parse(written) == tree, written


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=trees())
def test_the_text_of_any_lowered_tree_parses_back_to_it(tree):
    written = source(lowered(tree))
    assert parse(written) == tree, written


@pytest.mark.parametrize("text", [
    "x += 1", "money[me] -= fee(p)", "a.b[0] = [x for x in xs if x > 1]", "row_of[colour] = (1, 'a')",
    "place(piece('marble', colour='white' if outcome[i] == 'W' else 'black'), c)", "t = {'a': 1, (1, 2): [3]}",
])
def test_the_text_of_a_lowered_statement_parses_back_to_it(text):
    tree = parse(text, "stmt")
    assert parse(source(lowered(tree, text, statement=True)), "stmt") == tree


def test_a_long_sum_is_written_without_recursion():
    text = " + ".join(["x"] * 5000)
    assert source(lowered(parse(text), text)) == text


@pytest.mark.parametrize("value", [1e20, 1e-7, 12.5, 100.0, "it's \"x\"\n", True, None])
def test_constants_are_written_as_the_language_reads_them(value):
    assert parse(source(N.Const(value))) == A.Const(value)


def test_types_are_written_short():
    assert type_text(T.list_(T.CELL, 24)) == "list[cell; <=24]"
    assert type_text(T.optional(T.enum("up", "down"))) == "text{'down', 'up'} | none"
    assert type_text(T.int_(0, 5)) == "int 0..5" and type_text(T.tuple_(T.CELL, T.INT_T)) == "(cell, int)"
    assert type_text(T.table(T.SEAT, T.seq(T.CELL))) == "table[seat, tuple[cell, ...]]"


# -- the outline --------------------------------------------------------------------------------------------------
MABULA_PUSH = """\
move push
  params
    from: cell in ring
      why: only your own marbles that are still on the edge can be pushed
    to: cell in push_targets(from, from.inward, field)
      among: cells  # tuple[cell, ...; <=60]
      why: the marble stops in the field, and no pushed marble may end on an edge cell or leave the board
  when
    at(from) != none and at(from).owner == me  # bool
      why: only your own marbles that are still on the edge can be pushed
  notation: {from}-{to}
  do
    push(from, to)"""


def test_the_outline_of_mabulas_push(capsys):
    assert outline(rulesdsl.load_game("mabula").rules.ir, "move push") == MABULA_PUSH
    code, out, _ = run_cli(capsys, "compile", "mabula", "--ir", "--show", "push")
    assert code == 0 and out == MABULA_PUSH + "\n"
    assert MABULA_PUSH in (ROOT / "docs" / "language.md").read_text(encoding="utf-8")  # the reference shows it


def test_the_outline_of_a_game_has_every_rule_and_the_flow(capsys):
    code, out, _ = run_cli(capsys, "compile", "mark", "--ir")
    assert code == 0 and out.startswith("game MARK: 2 seats")
    for line in ("  var money: ", "  function held(p, r)", "  move sell", "    step bidding: simultaneous",
                 "      resolve", "  end 1", "    winners: highest_score", "    score: money[me]  # "):
        assert "\n" + line in out, line
    assert "    step roll: chance (outcomes)\n      params\n        a: text{'blue'" in out
    assert "        name_lot if die_a == 'hammer' and die_b == 'star'  # bool\n" in out


def test_a_compound_moves_parts_show_the_move_and_inputs_they_give():
    text = outline(rulesdsl.load_game("fast-track").rules.ir, "move split", types=False)
    assert "  part split[1]: split_part\n    steps: 7 - k\n    when\n      part.from != parts[0].to" in text


# -- compile --check ------------------------------------------------------------------------------------------------
PROBE = """\
game: Probe
players: {count: 2}
board: {cells: [a, b, c]}
pieces:
  stone: {attributes: {colour: [red, blue]}}
vars:
  points: {per: player, init: 0}
  log: {init: "''"}
  word: {init: "'a,b'"}
FUNCTIONS
moves:
  put:
    params: {c: "[x for x in cells if empty(x)]"}
    notation: "put {c} {str(c) + '!'}"
    do:
      - "place(piece('stone', colour='red'), c)"
      - "points[me] += 1"
      - DO
flow:
  steps:
    play: {moves: [put], pass: pass}
end:
  - when: "turn >= 2"
    winners: "[]"
scoring:
  score: "points[me]"
"""


def probe(write, do: str = "points[me] += 0", functions: str = "", var: str = "") -> str:
    """The probe game (every rule in the subset) with one more effect of `put`, functions, and one more var."""
    text = PROBE.replace("DO", f'"{do}"').replace("FUNCTIONS", functions)
    return write(text.replace("  word:", f"  {var}\n  word:") if var else text, "probe")


def checked(capsys, path: str) -> tuple[int, dict]:
    code, out, _ = run_cli(capsys, "compile", path, "--check", "--format", "json")
    return code, json.loads(out)


def test_a_file_in_the_subset_passes(capsys, write):
    path = probe(write)  # text in its notation is fine: play never runs it compiled
    code, out, _ = run_cli(capsys, "compile", path, "--check")
    assert code == 0
    assert out.splitlines() == ["move put: compiled", "step play: compiled", "flow first_player: compiled",
                                "end 1: compiled", "scoring score: compiled", "probe.yaml: 5 of 5 rules compiled"]


PLAYED = 'played: {init: "[]"}'


@pytest.mark.parametrize("do, functions, var, rules, code, line, col, says", [
    ("points[me] += 0", "functions:\n  double: {params: [n], value: \"n * 2\"}", "", ["function double"], "untyped",
     11, 33, "the type of the argument 'n' is not known at load"),
    ("log = log + str(c)", "", "", ["move put", "var.log"], "runtime_text", 18, 16,
     "text is built while playing ('+' on text)"),
    ("played = played + [c]", "", PLAYED, ["move put", "var.played"], "unbounded_list", 19, 10,
     "the variable 'played' grows here, and no bound on its length is known"),
    ("points[me] += size(split(word, ','))", "", "", ["move put"], "unsupported", 18, 29,
     "'split()' has no compiled form"),
    ("points[me] += 0", "", PLAYED, ["var.played"], "unfit_state", 9, 11,
     "'var.played' cannot be held in a fixed size: its type is not known when the game loads"),
])
def test_each_reason_is_located_at_what_causes_it(capsys, write, do, functions, var, rules, code, line, col, says):
    path = probe(write, do, functions, var)
    exit_code, report = checked(capsys, path)
    assert exit_code == 1 and report["compiled"] is False
    failing = [r for r in report["rules"] if not r["compiled"]]
    assert [r["rule"] for r in failing] == rules  # a rule, then the state it leaves unfit
    [reason] = failing[0]["reasons"]
    assert (reason["code"], reason["line"], reason["column"], reason["severity"]) == (code, line, col, "warning")
    assert reason["message"].startswith(says) and reason["hint"]
    assert report["counts"][code] == 1 and sum(report["counts"].values()) == len(rules)
    game = rulesdsl.load_game(path)
    verdict = next(v for v in subset.check(game.rules.ir) + subset.state(game.layout) if not v.compiled)
    [problem] = subset.problems(verdict, with_variant(load_document(path), None))
    assert problem.format().startswith(f"{path}:{line}:{col}: warning: {says}")


def test_a_capacity_bounds_a_list_that_grows(capsys, write):
    code, report = checked(capsys, probe(write, "played = played + [c]", var='played: {init: "[]", capacity: 3}'))
    assert code == 0 and report["compiled"] is True


def test_check_of_one_rule(capsys, write):
    path = probe(write, "log = log + str(c)")
    code, out, _ = run_cli(capsys, "compile", path, "--check", "--show", "play")
    assert code == 0 and out.splitlines()[0] == "step play: compiled"
    code, out, _ = run_cli(capsys, "compile", path, "--check", "--show", "put")
    assert code == 1 and out.startswith("move put: python (1 reason)\n")


def test_text_and_calls_worked_out_at_load_are_fine(write):
    path = probe(write, "log = word + str(1) + join(['a', 'b'])")
    [put] = [v for v in subset.check(rulesdsl.load_game(path).rules.ir) if v.rule == "move put"]
    assert [r.code for r in put.reasons] == ["runtime_text"]  # word is read while playing; the rest is constant


def test_compile_usage(capsys):
    code, _, err = run_cli(capsys, "compile", "mabula", "--emit")
    assert code == 2 and "--show RULE" in err
    code, _, err = run_cli(capsys, "compile", "mabula", "--format", "json")
    assert code == 2 and "--check" in err
    code, _, err = run_cli(capsys, "compile", "mabula", "--ir", "--show", "pusj")
    assert code == 2 and "did you mean 'push'?" in err


def _located(path) -> tuple[list, dict]:
    """The verdicts of a bundled file and its problems, each checked to be located in the file's own text."""
    game = rulesdsl.load_game(path)
    doc = with_variant(load_document(path), None)
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    verdicts = subset.check(game.rules.ir) + subset.state(game.layout)
    for verdict in verdicts:
        problems = subset.problems(verdict, doc)
        assert len(problems) == len(verdict.reasons)
        for problem in problems:
            assert problem.code in subset.CODES and problem.severity == "warning"
            loc = problem.location
            assert loc.file == str(path) and 1 <= loc.line <= len(lines) and 1 <= loc.col <= len(lines[loc.line - 1])
            assert problem.source_line == lines[loc.line - 1] + "\n" or problem.source_line == lines[loc.line - 1]
    return verdicts, subset.counts(verdicts)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_bundled_game_is_checked_with_located_reasons(capsys, path):
    verdicts, counts = _located(path)
    code, out, _ = run_cli(capsys, "compile", str(path), "--check")
    assert code == (0 if all(v.compiled for v in verdicts) else 1)
    assert out.count(": warning: ") == sum(counts.values())


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_bundled_game_lies_in_the_compiled_subset(path):
    verdicts, counts = _located(path)
    assert all(v.compiled for v in verdicts), f"reasons by code: {counts}"


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_hostile_files_that_load_are_checked_and_outlined(path):
    try:
        game = rulesdsl.load_game(path)
    except rulesdsl.RulesError:
        return
    doc = with_variant(load_document(path), None)
    for verdict in subset.check(game.rules.ir):
        subset.problems(verdict, doc)
    assert outline(game.rules.ir, data=game.rules.ir_data).startswith("game ")