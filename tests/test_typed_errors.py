"""Errors are typed: problems carry a code and fields (read here, never their wording), moves that fail raise a
subclass of MoveError, and a failure is blamed on the rule file only when its own code fails."""

from __future__ import annotations

import pickle
import re
import shlex
import tempfile
from pathlib import Path

import pytest

import rulesdsl
import rulesdsl.lang.builtins
from rulesdsl.cli import main
from rulesdsl.errors import (AmbiguousMove, GameRuntimeError, IllegalMove, Location, MalformedMove, MoveError,
                             Problem, RulesDslError, RulesError, UsageError, close_names, did_you_mean, suggestion)
from rulesdsl.schema import validate_structure
from rulesdsl.source import load_text

from .helpers import ROOT

BAD = ROOT / "tests" / "bad_rules"


def problems_of(case: str) -> list[Problem]:
    """The problems of tests/bad_rules/CASE.yaml, with the arguments in CASE.args, in the order they are shown."""
    path = BAD / f"{case}.yaml"
    args = path.with_suffix(".args")
    extra = shlex.split(args.read_text(encoding="utf-8")) if args.exists() else []
    variant, options = None, {}
    for flag, value in zip(extra[::2], extra[1::2]):
        if flag == "--variant":
            variant = value
        else:
            name, _, given = value.partition("=")
            options[name] = given
    with pytest.raises(RulesError) as caught:
        rulesdsl.load_game(str(path), variant, options)
    return sorted(caught.value.problems, key=Problem.sort_key)


@pytest.mark.parametrize("case, code, fields", [
    ("unknown_name", "unknown_name", {"name": "ringg", "candidates": ("ring",)}),
    ("for_loop_unknown_name", "unknown_name", {"name": "ringg", "candidates": ("ring",)}),
    ("notation_unknown_name", "unknown_name", {"name": "target"}),
    ("unknown_attribute", "unknown_attribute", {"name": "inwards", "candidates": ("inward",)}),
    ("unknown_option_in_expression", "unknown_option", {"name": "setpu", "candidates": ("setup",)}),
    ("option_unknown_on_command_line", "unknown_option", {"name": "setpu", "candidates": ("setup",)}),
    ("variant_unknown_on_command_line", "unknown_variant", {"name": "prodcut", "candidates": ("product",)}),
    ("option_default_wrong_type", "bad_option_value", {"option": "size", "value": "eight"}),
    ("expr_syntax_one_line", "syntax", {}),
    ("positional_after_keyword", "syntax", {}),
    ("expression_nested_too_deeply", "limit_exceeded", {"limit": "MAX_EXPR_DEPTH"}),
    ("yaml_nested_too_deep", "limit_exceeded", {"limit": "MAX_YAML_DEPTH"}),
    ("duplicate_key", "duplicate_key", {"key": "up"}),
    ("yaml_tab", "yaml_syntax", {}),
    ("yaml_unclosed_quote", "yaml_syntax", {}),
    ("yaml_not_utf8", "bad_text", {}),
    ("comments_only", "empty_file", {}),
    ("condition_unknown_key", "schema_unknown_key", {"key": "tset", "candidates": ("test",)}),
    ("unknown_top_level_key", "schema_unknown_key", {"path": (), "key": "bord", "candidates": ("board",)}),
    ("effect_wrong_type", "schema_type", {"path": ("moves", "push", "do", 0), "expected": ("string", "object")}),
    ("list_not_mapping", "schema_type", {"path": ()}),
    ("zone_visible_enum", "unknown_name", {"name": "everyone", "candidates": ()}),
    ("max_turns_negative", "schema_range", {"path": ("flow", "max_turns"), "value": -1}),
    ("direction_wrong_length", "schema_size", {"limit": 2, "size": 1}),
    ("extends_missing", "bad_extends", {"candidates": ("mabula",)}),
])
def test_a_bad_rule_file_s_problem_has_a_code_and_fields(case, code, fields):
    problem = problems_of(case)[0]
    assert problem.code == code
    for name, value in fields.items():
        assert problem.get(name) == value, (name, problem.fields)


def test_every_problem_of_several_has_its_own_code():
    codes = [p.code for p in problems_of("schema_and_expression_problems")]
    assert codes == ["schema_range", "unknown_name"]


def test_problems_in_a_notation_name_what_notation_may_use():
    problem = problems_of("notation_unknown_name")[0]
    assert problem.get("candidates") == ()  # none of the move's params is close to 'target'


def write(tmp_path, text: str, name: str = "game.yaml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


GAME = """
game: Typed
players: {count: 2}
board:
  grid: {columns: abc, rows: 1}
pieces:
  stone: {}
vars:
  total: 0
moves:
  put:
    params: {c: cells}
    when: ["WHEN"]
    notation: "put {c}"
    do: ["place(piece('stone'), c)", "DO"]
flow:
  steps:
    play: {moves: [put], pass: pass}
end:
  - when: "turn >= 3"
    winners: "[]"
"""


def game_text(when: str = "true", do: str = "total = total + 1") -> str:
    return GAME.replace("WHEN", when).replace("DO", do)


@pytest.mark.parametrize("expression, code, fields", [
    ("scroe > 0", "unknown_name", {"name": "scroe", "candidates": ("score",)}),
    ("sise(cells) > 0", "unknown_function", {"name": "sise", "candidates": ("size",)}),
    ("size(cells, cells) > 0", "wrong_arity", {"function": "size", "given": 2, "min": 1, "max": 1}),
    ("sorted(cells, revers=true) == []", "unknown_keyword",
     {"function": "sorted", "keyword": "revers", "candidates": ("reverse",)}),
    ("option.sise == 1", "unknown_option", {"name": "sise"}),
    ("c.colour == 1", "unknown_attribute", {"name": "colour"}),
    ("place(piece('stone'), c)", "effect_in_condition", {"function": "place"}),
    ("size > 1", "misused_name", {"name": "size"}),
    ("(c == ", "syntax", {}),
    ("1.." + "9" * 8 + " == []", "limit_exceeded", {"limit": "MAX_ITEMS"}),
])
def test_an_expression_s_problem_has_a_code_and_fields(tmp_path, expression, code, fields):
    text = game_text(expression.replace('"', "'")).replace("vars:\n  total: 0", "vars:\n  total: 0\n  score: 0")
    with pytest.raises(RulesError) as caught:
        rulesdsl.load_game(write(tmp_path, text))
    [problem] = caught.value.problems
    assert problem.code == code, problem.format()
    for name, value in fields.items():
        assert problem.get(name) == value, (name, problem.fields)


def test_declaring_a_name_twice_is_a_duplicate_name(tmp_path):
    text = game_text().replace("vars:\n  total: 0", "data:\n  total: 1\nvars:\n  total: 0")
    with pytest.raises(RulesError) as caught:
        rulesdsl.load_game(write(tmp_path, text))
    assert [(p.code, p.get("name")) for p in caught.value.problems] == [("duplicate_name", "total")]


def test_several_missing_keys_are_each_a_schema_required_problem():
    doc = load_text("description: nothing else\n", "bare.yaml")
    problems = validate_structure(doc)
    assert sorted((p.code, p.get("missing"), p.get("path")) for p in problems) == [
        ("schema_required", "flow", ()), ("schema_required", "game", ())]


def test_a_misspelt_required_key_is_one_unknown_key_problem():
    doc = load_text("game: x\nflowz: {}\n", "misspelt.yaml")
    [problem] = validate_structure(doc)
    assert (problem.code, problem.get("key"), problem.get("candidates")) == ("schema_unknown_key", "flowz", ("flow",))


# -- Problem itself --------------------------------------------------------------------------------------------

def test_a_problem_with_fields_is_hashable_and_formats_as_before():
    plain = Problem("unknown name 'x'", Location("f.yaml", 2, 3), "did you mean 'y'?")
    typed = Problem("unknown name 'x'", Location("f.yaml", 2, 3), "did you mean 'y'?", code="unknown_name",
                    fields={"name": "x", "candidates": ["y"], "path": ["moves", 0]})
    assert typed.format() == plain.format() and typed.sort_key() == plain.sort_key()
    assert typed.fields == (("name", "x"), ("candidates", ("y",)), ("path", ("moves", 0)))
    assert hash(typed) == hash(Problem(**{**typed.__dict__}))
    assert typed.get("candidates") == ("y",) and typed.get("missing") is None
    assert plain.code == "invalid" and plain.fields == ()
    assert pickle.loads(pickle.dumps(RulesError([typed]))).problems == [typed]


def test_close_names_is_what_the_hint_is_built_from():
    close = close_names("scroe", ["score", "store", "board"])
    assert close == ["score", "store"]
    assert did_you_mean("scroe", ["score", "store", "board"]) == suggestion(close) == \
        "did you mean 'score' or 'store'?"
    assert close_names("zzz", ["score"]) == [] and suggestion([]) is None


# -- moves -----------------------------------------------------------------------------------------------------

def test_moves_that_fail_raise_the_subclass_of_their_kind(tmp_path):
    state = rulesdsl.load_game(write(tmp_path, game_text("empty(c)"))).new_initial_state()
    state.apply("put a1")
    with pytest.raises(MalformedMove) as malformed:
        state.apply("jump a1")
    with pytest.raises(IllegalMove) as illegal:
        state.apply("put a1")
    assert (malformed.value.kind, illegal.value.kind) == (MoveError.MALFORMED, MoveError.ILLEGAL)
    # (a condition reads c: that its moves print alike is not certain at load, and is found when typed)
    ambiguous = rulesdsl.load_game(write(tmp_path, game_text("empty(c)").replace('"put {c}"', "put"), "same.yaml"))
    with pytest.raises(AmbiguousMove) as caught:
        ambiguous.new_initial_state().apply("put")
    assert caught.value.kind == MoveError.AMBIGUOUS


@pytest.mark.parametrize("error", [
    MalformedMove("jump", "not a move", "moves look like 'put {c}'"), IllegalMove("put a1", "the cell is taken"),
    AmbiguousMove("put", "several moves", None), MoveError(MoveError.ILLEGAL, "put a1", "taken")])
def test_move_errors_survive_pickling_with_their_class(error):
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error) and isinstance(copy, MoveError)
    assert (copy.kind, copy.text, copy.reason, copy.hint, str(copy)) == \
        (error.kind, error.text, error.reason, error.hint, str(error))


def test_every_error_formats_itself_for_the_command_line():
    assert RulesDslError("charts need matplotlib").format() == "error: charts need matplotlib"
    assert IllegalMove("put a1", "taken", "legal now: put b1").format() == \
        "error: illegal move 'put a1': taken (hint: legal now: put b1)"
    assert UsageError("bad", "try this").format() == "error: bad\n  hint: try this"
    assert GameRuntimeError("put", 3, "boom", Location("g.yaml", 4, 5)).format() == \
        "g.yaml:4:5: error: rule 'put' failed on turn 3: boom"


# -- whose failure: the rule file's, or rulesdsl's -------------------------------------------------------------

@pytest.mark.parametrize("do, message", [
    # (`unknown` is a value of no type known at load time, else these would be refused as the file loads)
    ("total = 'points: ' + unknown", "TypeError: can only concatenate str"),  # in the generated code itself
    ("total = str(turn) + unknown", "TypeError: can only concatenate str"),  # in a checked operator it uses
    ("total = size(unknown)", "size(): object of type 'int' has no len()"),  # a built-in refusing a value
    ("total = max(x + 's' for x in [unknown])", "TypeError: unsupported operand"),  # in a comprehension handed to one
    ("total = repeat(0, 10 ** 7)", "repeat() would hold 10,000,000 items"),  # a limit
])
def test_a_failure_of_the_rule_s_own_code_is_blamed_on_the_rule(tmp_path, do, message):
    do = do.replace("unknown", "get({'k': 1, 'j': 'x'}, 'k')")  # a whole number or text, as far as load can tell
    state = rulesdsl.load_game(write(tmp_path, game_text(do=do))).new_initial_state()
    with pytest.raises(GameRuntimeError) as caught:
        state.apply("put a1")
    assert caught.value.rule == "put" and message in caught.value.message


def test_the_command_blames_the_rule_for_its_own_type_error(tmp_path, capsys):
    # (a whole number or text, as far as load can tell)
    path = write(tmp_path, game_text(when="size(occupied()) + get({'k': 'x', 'j': 1}, 'k') == 0"))
    code = main(["moves", path])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert re.search(r"game\.yaml:\d+:\d+: error: rule 'play' failed on turn 0: TypeError: ", err), err  # its step


def _broken(*args, **kwargs):
    """A built-in with a bug of its own."""
    raise TypeError("planted bug")


def test_a_bug_in_a_built_in_is_an_internal_error(tmp_path, monkeypatch):
    monkeypatch.setattr(rulesdsl.lang.builtins.size.builtin, "fn", _broken)
    state = rulesdsl.load_game(write(tmp_path, game_text(when="size(occupied()) >= 0"))).new_initial_state()
    with pytest.raises(TypeError, match="planted bug"):
        state.legal_moves()


def test_the_command_reports_a_bug_in_a_built_in_as_one(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(rulesdsl.lang.builtins.size.builtin, "fn", _broken)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the crash report goes
    path = write(tmp_path, game_text(when="size(occupied()) >= 0"))
    code = main(["profile", path, "--games", "1"])  # rule code run in this process, where the bug is planted
    err = capsys.readouterr().err
    assert code == 3 and "Traceback" not in err
    assert "internal error (TypeError: planted bug): this is a bug in rulesdsl" in err
    [report] = tmp_path.glob("rulesdsl-crash-*.txt")
    assert str(report) in err and "planted bug" in report.read_text(encoding="utf-8")
    assert "_broken" in Path(report).read_text(encoding="utf-8")  # the traceback, down to the failing helper
