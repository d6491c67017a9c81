"""Rule files are untrusted input: shared overlays cannot read other files, and no YAML makes loading hang,
crash or construct objects. Every attack is a located RulesError, fast, that echoes nothing it should not."""

from __future__ import annotations

import json
import keyword
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import rulesdsl
from rulesdsl.errors import RulesError
from rulesdsl.lang.verify import PYTHON_BUILTINS
from rulesdsl.loading import bundled_games
from rulesdsl.overrides import override_problems
from rulesdsl.source import MAX_FILE_BYTES, MAX_YAML_DEPTH, MAX_YAML_NODES, Document, load_text

from .helpers import GAMES, game_path

SECRET = "SECRET-MARKER-5f1e"
GUARD = 5.0  # seconds: a generous guard against hangs, not a speed measurement


def refused(path) -> RulesError:
    """The RulesError of loading `path` (which must fail, and soon)."""
    start = time.process_time()
    with pytest.raises(RulesError) as info:
        rulesdsl.load_game(str(path))
    assert time.process_time() - start < GUARD
    assert SECRET not in str(info.value)
    return info.value


def only_problem(error: RulesError):
    assert len(error.problems) == 1, error.format()
    return error.problems[0]


def secret_file(folder: Path, name: str = "secret.yaml") -> Path:
    """A file that must never be echoed: a YAML mapping whose lines would each be an 'unknown key'."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"{SECRET}: 1\npassword: {SECRET}-hunter2\nroot: x:0:0:{SECRET}\n", encoding="utf-8")
    return path


def overlay(folder: Path, extends: str, name: str = "overlay.yaml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"extends: {extends}\ngame: House rules\n", encoding="utf-8")
    return path


def at_extends(problem, path: Path) -> None:
    """The problem is located at the value of 'extends:' on line 1 of `path`."""
    assert (problem.location.file, problem.location.line, problem.location.col) == (str(path), 1, 10)
    assert problem.hint


# -- extends: only bundled games and files in the overlay's own folder ------------------------------------

def test_extends_an_absolute_path_is_refused_without_reading_it(tmp_path):
    secret = secret_file(tmp_path / "private")
    path = overlay(tmp_path / "shared", str(secret))
    problem = only_problem(refused(path))
    at_extends(problem, path)
    assert "is an absolute path" in problem.message
    assert "bundled game" in problem.hint and "this overlay's folder" in problem.hint


def test_extends_a_system_file_is_refused(tmp_path):
    path = overlay(tmp_path, "/etc/passwd")
    problem = only_problem(refused(path))
    at_extends(problem, path)
    assert "root:" not in refused(path).format()


def test_extends_with_dot_dot_leading_outside_is_refused(tmp_path):
    secret_file(tmp_path / "private")
    path = overlay(tmp_path / "shared" / "games", "../../private/secret.yaml")
    problem = only_problem(refused(path))
    at_extends(problem, path)
    assert "outside this overlay's folder" in problem.message


def test_extends_through_a_symbolic_link_leading_outside_is_refused(tmp_path):
    secret = secret_file(tmp_path / "private")
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "base.yaml").symlink_to(secret)
    path = overlay(shared, "base.yaml")
    problem = only_problem(refused(path))
    at_extends(problem, path)
    assert "through a symbolic link, outside" in problem.message


def test_extends_a_missing_file_outside_the_folder_says_the_same(tmp_path):
    path = overlay(tmp_path / "shared", "../private/missing.yaml")
    problem = only_problem(refused(path))
    assert "outside this overlay's folder" in problem.message  # whether it exists is not told


def test_extends_may_name_a_file_below_the_overlay_or_a_bundled_game(tmp_path):
    base = (GAMES / "mabula.yaml").read_text(encoding="utf-8")
    (tmp_path / "bases").mkdir()
    (tmp_path / "bases" / "mine.yaml").write_text(base.replace("game: Mabula", "game: Mine"), encoding="utf-8")
    (tmp_path / "link.yaml").symlink_to(tmp_path / "bases" / "mine.yaml")
    for extends in ("bases/mine.yaml", "./bases/../bases/mine.yaml", "link.yaml", "mabula", "mabula.yaml",
                    game_path("mabula")):
        path = overlay(tmp_path, extends, "ok.yaml")
        assert rulesdsl.load_game(str(path)).name == "House rules", extends


def test_an_overlay_of_an_overlay_in_a_sub_folder(tmp_path):
    overlay(tmp_path / "a" / "b", "mark", "inner.yaml")
    outer = overlay(tmp_path / "a", "b/inner.yaml", "outer.yaml")
    assert rulesdsl.load_game(str(outer)).name == "House rules"


def test_the_main_file_may_be_anywhere(tmp_path, monkeypatch):
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    path = overlay(tmp_path / "shared", "mark")
    assert rulesdsl.load_game(os.path.relpath(path)).name == "House rules"


# -- a base file that is not a rule file: one problem, at 'extends:', without its content --------------------

NOT_RULE_FILES = {
    "a list": f"- {SECRET}\n- two\n",
    "a single value": f"{SECRET}=1\nTOKEN={SECRET}\n",
    "no game key": f"{SECRET}: 1\nuser: {SECRET}\n",
    "unknown top-level keys": f"game: x\n{SECRET}: 1\nflow: {{}}\n",
    "empty": "# nothing\n",
    "not YAML": f"{SECRET}: [\n  {{: :\n",
    "binary": f"{SECRET}\x00\x01\x02",
    "not UTF-8": f"{SECRET}: caf",
}


@pytest.mark.parametrize("kind", NOT_RULE_FILES)
def test_a_base_that_is_not_a_rule_file_is_one_problem_at_extends(tmp_path, kind):
    data = NOT_RULE_FILES[kind].encode("utf-8") + (b"\xe9\n" if kind == "not UTF-8" else b"")
    (tmp_path / "x.yaml").write_bytes(data)
    path = overlay(tmp_path, "x.yaml")
    problem = only_problem(refused(path))
    at_extends(problem, path)
    assert problem.message == "'x.yaml' is not a rule file"
    assert problem.source_line is None


# -- YAML aliases: a budget of nodes, counted before anything is expanded ------------------------------------

def alias_bomb(levels: int) -> str:
    """A 'billion laughs': each level is ten aliases of the level before, 10**levels values in all."""
    names = "abcdefghijklmnop"
    text = f"game: bomb\ndata:\n  {names[0]}: &{names[0]} [x, x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, levels):
        text += f"  {names[i]}: &{names[i]} [" + ", ".join([f"*{names[i - 1]}"] * 10) + "]\n"
    return text


@pytest.mark.parametrize("levels", [6, 9])
def test_an_alias_bomb_is_refused_at_the_alias_that_crosses_the_budget(tmp_path, levels):
    path = tmp_path / "bomb.yaml"
    path.write_text(alias_bomb(levels), encoding="utf-8")
    assert path.stat().st_size < 600
    problem = only_problem(refused(path))
    loc = problem.location
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[loc.line - 1][loc.col - 1] == "*"
    assert "makes the document too large" in problem.message and f"{MAX_YAML_NODES:,}" in problem.message
    assert "alias" in problem.hint


def test_aliases_within_the_budget_are_copies_with_positions(tmp_path):
    doc = load_text("game: x\ndata:\n  a: &row [1, 2, {k: 3}]\n  b: *row\n  c: [*row, *row]\n", "f.yaml")
    assert doc.data["data"]["b"] == doc.data["data"]["c"][1] == [1, 2, {"k": 3}]
    assert doc.data["data"]["b"] is not doc.data["data"]["a"]
    assert doc.info(("data", "c", 1, 2, "k")).loc.line == 3
    assert doc.info(("data", "b")).key_loc.line == 4


def test_an_alias_inside_its_own_anchor_is_refused():
    with pytest.raises(RulesError, match=r"alias '\*a' is inside its own anchor") as info:
        load_text("game: x\ndata: &a [1, *a]\n", "f.yaml")
    assert str(info.value.problems[0].location) == "f.yaml:2:14"


def test_a_document_beyond_the_budget_without_aliases_is_refused():
    text = "game: x\ndata: [" + "1, " * MAX_YAML_NODES + "]\n"
    with pytest.raises(RulesError, match="the document is too large") as info:
        load_text(text, "f.yaml")
    assert info.value.problems[0].location.line == 2


def test_the_bundled_games_are_far_below_the_limits():
    for path in bundled_games().values():
        text = path.read_text(encoding="utf-8")
        assert len(text.encode("utf-8")) * 10 < MAX_FILE_BYTES
        nodes, depth, deepest = 0, 0, 0
        import yaml

        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            nodes += isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent, yaml.CollectionStartEvent))
            depth += isinstance(event, yaml.CollectionStartEvent) - isinstance(event, yaml.CollectionEndEvent)
            deepest = max(deepest, depth)
        assert nodes * 20 < MAX_YAML_NODES and deepest * 5 < MAX_YAML_DEPTH, path.name


# -- nesting depth: a located problem, never a RecursionError ----------------------------------------------

def deep_flow(n: int, opener: str) -> str:
    """`n` lists or mappings in each other, written on one line with `opener` ('[', '{' or '{a: ')."""
    return f"game: deep\ndata:\n  x: {opener * n}{(']' if opener == '[' else '}') * n}\n"


def deep_block(n: int, sequence: bool) -> str:
    if sequence:
        return "game: deep\ndata:\n  x:\n" + "".join(" " * (4 + 2 * i) + "-\n" for i in range(n))
    return "game: deep\ndata:\n" + "".join(" " * (2 + i) + f"k{i}:\n" for i in range(n))


# where the level beyond MAX_YAML_DEPTH opens: the root mapping and 'data' are levels 1 and 2
D = MAX_YAML_DEPTH - 2


@pytest.mark.parametrize("text, line, col", [
    pytest.param(deep_flow(1000, "["), 3, 5 + D + 1, id="1000 ["),
    pytest.param(deep_flow(100_000, "["), 3, 5 + D + 1, id="100000 ["),
    pytest.param(deep_flow(1000, "{a: "), 3, 5 + 4 * D + 1, id="1000 {a: "),
    pytest.param(deep_flow(100_000, "{"), 3, 5 + D + 1, id="100000 {"),
    pytest.param(deep_block(400, False), 3 + D + 1, 2 + D + 2, id="400 block mappings"),
    pytest.param(deep_block(300, True), 4 + D, 4 + 2 * D + 1, id="300 block lists"),
])
def test_deep_nesting_is_a_located_problem(tmp_path, text, line, col):
    path = tmp_path / "deep.yaml"
    path.write_text(text, encoding="utf-8")
    problem = only_problem(refused(path))
    assert f"more than {MAX_YAML_DEPTH} levels deep" in problem.message and problem.hint
    assert (problem.location.line, problem.location.col) == (line, col)


def test_deep_nesting_through_aliases_is_refused_at_the_alias():
    text = "game: x\ndata:\n  a: &a " + "[" * 60 + "]" * 60 + "\n  b: &b " + "[" * 45 + "*a" + "]" * 45 + "\n"
    with pytest.raises(RulesError, match="this alias nests lists and mappings more than") as info:
        load_text(text, "f.yaml")
    loc = info.value.problems[0].location
    assert (loc.line, text.splitlines()[loc.line - 1][loc.col - 1]) == (4, "*")


def test_nesting_up_to_the_limit_is_fine():
    value, levels = load_text(deep_flow(MAX_YAML_DEPTH - 2, "["), "f.yaml").data["data"]["x"], 0
    while isinstance(value, list):
        value, levels = value[0] if value else None, levels + 1
    assert levels == MAX_YAML_DEPTH - 2
    with pytest.raises(RulesError, match="levels deep"):
        load_text(deep_flow(MAX_YAML_DEPTH - 1, "["), "f.yaml")


# -- tags: only the plain YAML types, and nothing is ever constructed ---------------------------------------

@pytest.mark.parametrize("tag, value", [
    ("!foo", "x"), ("!!python/object/apply:os.system", "[echo]"), ("!!python/name:os.system", "''"),
    ("!!python/object:builtins.dict", "{}"), ("!!binary", "aGVsbG8="), ("!!set", "{a, b}"),
    ("!!omap", "[a: 1]"), ("!!timestamp", "2020-01-01"), ("!<tag:example.com,2024:x>", "1"),
])
def test_unknown_tags_are_located_problems(tag, value):
    shown = tag.strip("!<>") if tag.startswith("!<") else tag
    with pytest.raises(RulesError, match=f"unknown YAML tag '{re.escape(shown)}'") as info:
        load_text(f"game: x\ndata:\n  v: {tag} {value}\n", "f.yaml")
    problem = only_problem(info.value)
    assert str(problem.location) == "f.yaml:3:6" and "remove it" in problem.hint


def test_python_tags_never_construct_anything(tmp_path):
    marker = tmp_path / "created"
    path = tmp_path / "evil.yaml"
    path.write_text(f"game: x\ndata:\n  v: !!python/object/apply:os.system ['touch {marker}']\n"
                    f"  w: !!python/object/apply:builtins.exec ['open(\"{marker}\", \"w\")']\n", encoding="utf-8")
    error = refused(path)
    assert len(error.problems) == 2 and not marker.exists()


def test_tags_on_the_wrong_kind_of_node_and_values_that_do_not_fit():
    with pytest.raises(RulesError) as info:
        load_text("a: !!int {x: 1}\nb: !!str [1]\nc: !!map x\nd: !!int abc\ne: !!bool maybe\n", "f.yaml")
    messages = [p.message for p in info.value.problems]
    assert messages == ["the YAML tag '!!int' cannot be used on a mapping",
                        "the YAML tag '!!str' cannot be used on a list",
                        "the YAML tag '!!map' cannot be used on a single value",
                        "'abc' cannot be read as a whole number", "'maybe' cannot be read as true or false"]


def test_plain_tags_and_plain_values_still_work():
    doc = load_text("a: !!str 12\nb: !!int '7'\nc: !!float 1\nd: !!bool yes\ne: !!null x\nf: !!seq [1]\n"
                    "g: !!map {k: v}\nh: 2024-01-31\ni: =\nj: yes\nk: ~\n", "f.yaml")
    assert doc.data == {"a": "12", "b": 7, "c": 1.0, "d": True, "e": None, "f": [1], "g": {"k": "v"},
                        "h": "2024-01-31", "i": "=", "j": True, "k": None}


# -- encoding and characters YAML does not allow ------------------------------------------------------------

def test_invalid_utf8_is_located_at_the_bad_byte(tmp_path):
    path = tmp_path / "latin1.yaml"
    path.write_bytes("game: x\ndescription: café au lait\n".encode("latin-1"))
    problem = only_problem(refused(path))
    assert str(problem.location) == f"{path}:2:17"
    assert "not valid UTF-8" in problem.message and "0xE9" in problem.message and "UTF-8" in problem.hint


@pytest.mark.parametrize("char, where", [("\x00", "2:11"), ("\x07", "2:11"), ("\x1b", "2:11"), ("\ufffe", "2:11")])
def test_characters_yaml_does_not_allow_are_located(tmp_path, char, where):
    path = tmp_path / "control.yaml"
    path.write_text(f"game: x\ndata: {{a: {char}b}}\n", encoding="utf-8")
    problem = only_problem(refused(path))
    assert str(problem.location) == f"{path}:{where}"
    assert f"U+{ord(char):04X}" in problem.message and "is not allowed in a YAML file" in problem.message
    assert char not in problem.format()  # shown as U+FFFD, not sent to the terminal


def test_a_byte_order_mark_is_fine(tmp_path):
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + (GAMES / "mabula.yaml").read_bytes())
    assert rulesdsl.load_game(str(path)).name == "Mabula"


def test_a_file_beyond_the_size_limit_is_refused_without_reading_it_all(tmp_path):
    path = tmp_path / "huge.yaml"
    path.write_text("game: x\n# " + "x" * MAX_FILE_BYTES + "\n", encoding="utf-8")
    problem = only_problem(refused(path))
    assert f"larger than {MAX_FILE_BYTES:,} bytes" in problem.message
    assert (problem.location.line, problem.location.col) == (2, MAX_FILE_BYTES - 8 + 1)


# -- the command: exit 1, located, no traceback, nothing of the secret --------------------------------------

def attack_files(tmp_path: Path) -> dict[str, Path]:
    """One file per attack, all in a 'shared' folder; the secret lives beside it."""
    secret = secret_file(tmp_path / "private")
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "link.yaml").symlink_to(secret)
    (shared / "list.yaml").write_text(f"- {SECRET}\n", encoding="utf-8")
    files = {
        "absolute": f"extends: {secret}\n",
        "dot-dot": "extends: ../private/secret.yaml\n",
        "symlink": "extends: link.yaml\n",
        "not a rule file": "extends: list.yaml\n",
        "alias bomb": alias_bomb(9),
        "deep [": deep_flow(100_000, "["),
        "deep {": deep_flow(100_000, "{"),
        "python tag": "game: x\ndata: !!python/object/apply:os.system [echo]\n",
        "unknown tag": "game: x\ndata: !foo x\n",
        "control character": "game: x\ndata: \x07\n",
    }
    paths = {}
    for name, text in files.items():
        paths[name] = shared / f"{name.replace(' ', '-')}.yaml"
        paths[name].write_text(text, encoding="utf-8")
    paths["not UTF-8"] = shared / "not-utf8.yaml"
    paths["not UTF-8"].write_bytes(b"game: x\ndata: \xff\xfe\n")
    return paths


ATTACKS = ["absolute", "dot-dot", "symlink", "not a rule file", "alias bomb", "deep [", "deep {", "python tag",
           "unknown tag", "control character", "not UTF-8"]


@pytest.mark.parametrize("attack", ATTACKS)
def test_the_command_reports_each_attack_in_one_located_line(tmp_path, attack):
    path = attack_files(tmp_path)[attack]
    run = subprocess.run([sys.executable, "-m", "rulesdsl", "validate", str(path)], capture_output=True,
                         text=True, encoding="utf-8", errors="replace", timeout=60)  # a guard against a hang
    assert run.returncode == 1, run.stderr
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr
    assert SECRET not in run.stdout + run.stderr
    errors = [line for line in run.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and re.match(rf"{re.escape(str(path))}:\d+:\d+: error: ", errors[0]), run.stderr
    assert "hint:" in run.stderr


def test_a_long_chain_of_overlays_is_refused(tmp_path):
    from rulesdsl.limits import MAX_EXTENDS

    for i in range(3 * MAX_EXTENDS):
        base = f"chain{i + 1}.yaml" if i + 1 < 3 * MAX_EXTENDS else "mabula"
        (tmp_path / f"chain{i}.yaml").write_text(f"extends: {base}\n", encoding="utf-8")
    with pytest.raises(RulesError) as info:
        rulesdsl.load_game(str(tmp_path / "chain0.yaml"))
    (problem,) = info.value.problems
    assert f"more than {MAX_EXTENDS} files extend one another" in problem.message and problem.location.line == 1
    (tmp_path / f"chain{MAX_EXTENDS - 2}.yaml").write_text("extends: mabula\n", encoding="utf-8")
    assert rulesdsl.load_game(str(tmp_path / "chain0.yaml")).rules.name == "Mabula"


@pytest.mark.parametrize("values", ['"1..2000000"', '"repeat(0, 10 ** 9)"'])
def test_attribute_values_from_an_expression_are_bounded(tmp_path, values):
    path = tmp_path / "huge.yaml"
    path.write_text(f"""
game: Huge
pieces:
  card:
    attributes:
      rank: {values}
flow:
  steps:
    play: {{moves: [pass_]}}
moves:
  pass_: {{notation: pass}}
""")
    with pytest.raises(rulesdsl.RulesError, match=r":6:1[34]: error: .*the language allows at most 1,000,000"):
        rulesdsl.load_game(str(path))


def test_a_list_option_with_a_huge_number_of_items_is_refused(tmp_path):
    path = tmp_path / "heaps.yaml"
    path.write_text("""
game: Heaps
options:
  heaps: {type: list, items: int, default: [1]}
flow:
  steps:
    play: {moves: [pass_]}
moves:
  pass_: {notation: pass}
""")
    with pytest.raises(rulesdsl.RulesError, match="an option holds at most 1,000"):
        rulesdsl.load_game(str(path), options={"heaps": [1] * 10 ** 6})


def test_an_overlay_that_adds_as_many_unread_names_as_a_file_can_hold_is_checked_in_linear_time():
    # each added name is looked up in words counted once, and compared with the base's names only
    n = MAX_YAML_NODES // 2
    lets = {"rows": "2", **{f"unread_{i}": "1" for i in range(n)}}
    doc = Document({"let": lets, "end": [{"when": "rows > 1"}]}, "many.yaml",
                   overrides=[(("let", f"unread_{i}"), "added") for i in range(n)])
    start = time.process_time()
    problems = override_problems(doc)
    assert time.process_time() - start < 5
    assert len(problems) == n and {p.code for p in problems} == {"override_unread"}


def test_numbering_huge_domains_as_actions_is_refused_at_the_domain(tmp_path):
    # two params of a million values each would make 10^12 integer actions: refused while the second domain is
    # worked out, located at it, without listing a million values a million times
    from rulesdsl.api import load_game
    from rulesdsl.engine.actions import ActionMap

    path = tmp_path / "huge.yaml"
    path.write_text("game: Huge\nmoves:\n  pick:\n    params:\n      a: \"1..1000000\"\n      b: \"1..1000000\"\n"
                    "flow:\n  steps:\n    play:\n      moves: [pick]\n      next: end_turn\n", encoding="utf-8")
    game = load_game(str(path))
    with pytest.raises(RulesError) as info:
        ActionMap(game)
    assert info.value.format().startswith(f"{path}:6:10: error: the moves of 'pick' would be more than 1,000,000")


# -- rule bundles: what a run sends its workers is checked like a file -----------------------------------------
def _bundle_refused(files, digest=None) -> RulesError:
    from rulesdsl.bundle import RuleBundle, bundle_document

    bundle = RuleBundle.of(files)
    with pytest.raises(RulesError) as info:
        bundle_document(RuleBundle(bundle.files, digest or bundle.digest))
    return info.value


def test_a_bundle_that_does_not_match_its_hash_is_refused():
    from rulesdsl.bundle import RuleBundle

    real = RuleBundle.of([("mabula.yaml", GAMES.joinpath("mabula.yaml").read_bytes())])
    tampered = [("mabula.yaml", real.files[0][1].replace(b"Mabula", b"Mabulb", 1))]
    assert _bundle_refused(tampered, real.digest).problems[0].code == "bad_bundle"


def test_a_bundle_of_too_many_or_too_large_files_is_refused_before_parsing():
    start = time.process_time()
    huge = _bundle_refused([("big.yaml", b"game: x\n" + b"#" * (MAX_FILE_BYTES + 1))])
    assert huge.problems[0].code == "limit_exceeded" and "larger than" in huge.problems[0].message
    many = _bundle_refused([(f"f{i}.yaml", b"extends: next\n") for i in range(10_000)])
    assert many.problems[0].code == "limit_exceeded" and "not 10000" in many.problems[0].message
    assert _bundle_refused([]).problems[0].code == "limit_exceeded"
    assert time.process_time() - start < GUARD


def test_a_bundle_whose_files_do_not_extend_one_another_in_order_is_refused():
    base = GAMES.joinpath("mabula.yaml").read_bytes()
    out_of_order = _bundle_refused([("mabula.yaml", base), ("overlay.yaml", b"extends: mabula\n")])
    assert out_of_order.problems[0].code == "bad_bundle"
    dangling = _bundle_refused([("overlay.yaml", b"extends: mabula\ngame: x\n")])
    assert dangling.problems[0].code == "bad_bundle"


# -- names: a file's names never collide with the names of generated code, nor with the language's own ----------
NAMED = """
game: Names
players: {count: 2}
board:
  grid: {columns: abc, rows: 1}
  BOARD
pieces:
  stone:
    attributes:
      zcolour: {values: [red, blue], default: red}
      ATTRIBUTE
    DERIVED
SECTIONS
vars:
  zseen: {init: "none"}
  zgot: {init: "none"}
  VARS
moves:
  put:
    params:
      zc: "[x for x in cells if empty(x)]"
      PARAM
    LET
    do: ["place(piece('stone', zcolour='red' KEYWORD), zc)", DO]
  COMPOUND
flow:
  steps:
    play:
      moves: [MOVE]
      AFTER
      next: NEXT
    CHANCE
end:
  - when: "last_move != none and last_move.kind == 'MOVE' END"
    winners: "[last_move.by]"
"""
# the names the template itself uses, which a name under test would hide where it is declared
TEMPLATE_NAMES = {"zc", "zseen", "zgot", "zf", "zg", "zk", "zp", "zq", "zo", "zd", "zcolour", "x"}


def named(role: str, name: str) -> tuple[str, dict]:
    """The template game with `name` declared as `role`, and what its variables `zseen` and `zgot` hold after the
    first move if the name behaves as that name (a value, or a function of the cell `zc` the move took)."""
    q = json.dumps
    fill = dict(BOARD="", ATTRIBUTE="", DERIVED="", SECTIONS="", VARS="", PARAM="", LET="", KEYWORD="", DO="",
                COMPOUND="", MOVE="put", AFTER="", NEXT="end_turn", CHANCE="", END="")
    chance = {  # the chance step the move calls, by role: its effects read the name
        "outcome_param": f"outcomes:\n          params: {{{name}: {q('[5]')}}}\n          do: [{q('zgot = ' + name)}]",
        "step_input": f"outcomes:\n          params: {{zo: {q('[1]')}}}\n          do: [{q('zgot = ' + name)}]",
        "draw_input": f"draw: '1'\n        from: '[1]'\n        do: [{q('zgot = ' + name)}]",
    }
    if role == "move_param":
        fill.update(PARAM=f"{name}: {q('[5]')}", DO=q(f"zseen = {name}"), AFTER=f"after: [{q(f'zgot = move.{name}')}]",
                    END=f"and last_move.{name} == 5")
        expected = {"zseen": 5, "zgot": 5}
    elif role == "move_let":
        fill.update(LET=f"let: {{{name}: {q('zc.x + 100')}}}", DO=q(f"zseen = {name}"),
                    AFTER=f"after: [{q(f'zgot = move.{name}')}]", END=f"and last_move.{name} > 100")
        expected = {"zseen": lambda c: c.x + 100, "zgot": lambda c: c.x + 100}
    elif role == "function_param":
        fill.update(SECTIONS=f"functions:\n  zf:\n    params: [{name}]\n    value: {q(name + ' + 1')}\n"
                             f"  zg:\n    params: [{name}]\n    let: {{zk: {q(name + ' * 2')}}}\n"
                             f"    value: {q('zk + ' + name)}",
                    DO=q("zseen = zf(4)") + ", " + q("zgot = zg(2)"))
        expected = {"zseen": 5, "zgot": 6}
    elif role == "function_let":
        fill.update(SECTIONS=f"functions:\n  zf:\n    params: [zq]\n    let: {{{name}: {q('zq + 1')}}}\n"
                             f"    value: {q(name)}", DO=q("zseen = zf(4)"))
        expected = {"zseen": 5}
    elif role == "procedure_param":
        fill.update(SECTIONS=f"procedures:\n  zp:\n    params: [{name}]\n    do: [{q('zseen = ' + name)}]",
                    DO=q("zp(5)"))
        expected = {"zseen": 5}
    elif role == "board_attribute":
        fill.update(BOARD=f"attributes: {{{name}: {q('c.x * 10')}}}", DO=q(f"zseen = zc.{name}") + ", " +
                    q("zgot = [zc.name, zc.index, zc.x, zc.y, zc.col, zc.row]"))
        expected = {"zseen": lambda c: c.x * 10,
                    "zgot": lambda c: ["abc"[c.x - 1] + "1", c.x - 1, c.x, 1, "abc"[c.x - 1], "1"]}
    elif role in ("piece_attribute", "derived_attribute"):
        declared = f"{name}: {{values: [1, 2], default: 2}}" if role == "piece_attribute" else ""
        fill.update(ATTRIBUTE=declared, DERIVED="" if declared else f"derived: {{{name}: {q('1')}}}",
                    KEYWORD=f", {name}=1" if declared else "",
                    DO=q(f"zseen = at(zc).{name}") + ", " + q("zgot = at(zc).kind"))
        expected = {"zseen": 1, "zgot": "stone"}
    elif role == "variable":
        fill.update(VARS=f"{name}: 0", DO=q(f"{name} = 5") + ", " + q(f"zseen = {name}"))
        expected = {"zseen": 5}
    elif role == "zone":
        fill.update(SECTIONS=f"zones:\n  {name}: {{init: {q('[]')}}}",
                    DO=q(f"place(piece('stone'), {name})") + ", " + q(f"zseen = size({name})"))
        expected = {"zseen": 1}
    elif role in ("data", "let"):
        fill.update(SECTIONS=f"data:\n  {name}: 5" if role == "data" else f"let:\n  {name}: {q('2 + 3')}",
                    DO=q(f"zseen = {name}"))
        expected = {"zseen": 5}
    elif role == "region":
        fill.update(BOARD=f"regions: {{{name}: [a1, b1]}}", DO=q(f"zseen = size({name})"))
        expected = {"zseen": 2}
    elif role in chance:
        inputs = f"inputs: [{name}]\n      " if role != "outcome_param" else ""
        fill.update(DO=q("chance('roll', 5)" if inputs else "chance('roll')"), END="and zgot != none",
                    CHANCE=f"roll:\n      {inputs or 'inputs: [zo]'}\n      chance:\n        {chance[role]}")
        expected = {"zgot": 5}
    elif role == "compound_param":
        fill.update(MOVE="two", COMPOUND=f"two:\n    params: {{{name}: {q('[5]')}}}\n    parts:\n      - move: put\n"
                                         f"        when: {q('part.zc != none')}\n    do: [{q('zseen = ' + name)}]")
        expected = {"zseen": 5}
    else:
        raise ValueError(role)
    text = NAMED
    for key in sorted(fill, key=len, reverse=True):  # longer keys first: MOVE is inside COMPOUND's text
        text = text.replace(key, fill[key])
    return text, expected


ROLES = ["move_param", "move_let", "function_param", "function_let", "procedure_param", "board_attribute",
         "piece_attribute", "derived_attribute", "variable", "zone", "data", "let", "region", "outcome_param",
         "step_input", "draw_input", "compound_param"]


def behaves_or_is_refused(tmp_path: Path, role: str, name: str) -> str:
    """'ok' when the game with `name` as `role` loads and the name reads as itself, 'refused' when loading is a
    RulesError located in the file; anything else fails the test."""
    text, expected = named(role, name)
    path = tmp_path / "names.yaml"
    path.write_text(text, encoding="utf-8")
    try:
        game = rulesdsl.load_game(str(path))
    except RulesError as exc:
        assert all(p.location.file == str(path) and p.location.line >= 1 for p in exc.problems), exc.format()
        return "refused"
    state = game.new_initial_state(1)
    while not state.is_terminal():
        state.apply(state.sample_chance() if state.is_chance_node() else state.legal_moves()[0])
    held = dict(zip((h.name for h in game.rules.vars), state.vars))
    cell = state.last[1][0] if role != "compound_param" else state.last[1][-1][0][1][0]
    got = {k: held[k] for k in expected}
    assert got == {k: v(cell) if callable(v) else v for k, v in expected.items()}, (role, name, text)
    assert state.winners == [0]
    saved = state.to_json()
    assert game.state_from_json(json.loads(json.dumps(saved))).to_json() == saved
    return "ok"


@pytest.mark.parametrize("role, name, outcome", [
    ("move_param", "self", "ok"), ("move_param", "by", "refused"), ("move_param", "kind", "refused"),
    ("move_let", "by", "refused"), ("board_attribute", "name", "refused"), ("board_attribute", "x", "refused"),
    ("board_attribute", "real", "refused"), ("piece_attribute", "kind", "refused"),
    ("piece_attribute", "to_json", "ok"), ("piece_attribute", "self", "ok"), ("derived_attribute", "to_json", "ok"),
    ("function_param", "self", "ok"),
    ("zone", "cells", "refused"), ("data", "none", "refused"), ("draw_input", "outcome", "refused"),
    ("compound_param", "parts", "refused"), ("compound_param", "part", "refused"), ("variable", "S", "ok"),
    ("let", "K0", "ok"), ("function_param", "L_zq", "ok"), ("move_let", "moves_of", "ok"),
    ("move_param", "x", "ok"),  # a comprehension's `x` in an earlier param's domain is not this later param
])
def test_each_name_attack_behaves_or_is_a_located_error(tmp_path, role, name, outcome):
    assert behaves_or_is_refused(tmp_path, role, name) == outcome


def test_cells_without_a_grid_may_have_attributes_x_y_col_and_row(tmp_path):
    path = tmp_path / "track.yaml"
    path.write_text("""
game: Track
board:
  cells: [a, b]
  attributes: {x: "c.index * 2", y: "1", col: "'c'", row: "'r'"}
moves:
  wait: {}
flow:
  steps:
    play: {moves: [wait], next: end_turn}
""", encoding="utf-8")
    b = rulesdsl.load_game(str(path)).rules.board.by_name["b"]
    assert (b.name, b.index, b.x, b.y, b.col, b.row) == ("b", 1, 2, 1, "c", "r")


def test_reserved_names_are_located_at_the_name_with_the_reason(tmp_path):
    path = tmp_path / "by.yaml"
    text, _ = named("move_param", "by")
    path.write_text(text, encoding="utf-8")
    problem = only_problem(refused(path))
    line = text.splitlines().index("      by: \"[5]\"") + 1
    assert (problem.location.line, problem.location.col, problem.code) == (line, 7, "reserved_name")
    assert "last_move.by" in problem.hint


def test_a_step_input_named_as_its_outcome_param_is_declared_twice(tmp_path):
    text, _ = named("step_input", "zo")
    path = tmp_path / "twice.yaml"
    path.write_text(text, encoding="utf-8")
    problem = only_problem(refused(path))
    assert problem.code == "duplicate_name" and problem.message == "'zo' is declared twice in step 'roll'"


def test_a_function_named_like_a_generated_name_of_another_is_still_itself(tmp_path):
    # each function became U_<name> and was defined as U_<name>_<n>: f's U_f_3 replaced the function f_3
    lets = "".join(f"  f_{k}:\n    let: {{z: '{k}'}}\n    value: 'z'\n" for k in range(1, 8))
    text = GAME_WITH_FUNCTIONS.replace("FUNCTIONS", lets + "  f:\n    let: {z: '0'}\n    value: 'z'\n")
    path = tmp_path / "functions.yaml"
    path.write_text(text, encoding="utf-8")
    rules = rulesdsl.load_game(str(path)).rules
    state = rulesdsl.load_game(str(path)).new_initial_state()
    assert [fn(state, 0) for _, fn, _ in rules.features] == list(range(8))


GAME_WITH_FUNCTIONS = """
game: Functions
board: {cells: [a]}
functions:
FUNCTIONS
moves:
  wait: {}
flow:
  steps:
    play: {moves: [wait], next: end_turn}
features:
  f0: "f()"
""" + "".join(f"  f{k}: \"f_{k}()\"\n" for k in range(1, 8))


# every name the engine, the compiler or Python gives something, and names shaped like generated ones
SPECIAL_NAMES = sorted(
    {"self", "cls", "args", "kwargs", "by", "kind", "name", "index", "x", "y", "col", "row", "real", "imag",
     "numerator", "part", "parts", "outcome", "owner", "key", "move", "choices", "symbol", "base", "fields",
     "to_json", "me", "player", "players", "num_players", "active_players", "turn", "cells", "option", "last_move",
     "mover", "S", "out", "skip", "append", "NEW", "MOVE", "moves_of", "K0", "K1", "L_x", "C1_x", "F_at", "G_add",
     "G_field", "G_mover", "U_zf", "P_zp", "H_0", "R_1", "I_R_1", "expr_1", "function_zf_3", "gen_put_9", "true", "none",
     "for", "piece", "size", "at", "c", "zc"}
    | set(keyword.kwlist) | set(PYTHON_BUILTINS)
    | {n for t in (int, str, list, dict, tuple, object) for n in dir(t) if not n.startswith("_")})


@settings(max_examples=150, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(role=st.sampled_from(ROLES),
       name=st.sampled_from(SPECIAL_NAMES) | st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,12}", fullmatch=True))
def test_any_identifier_in_any_place_behaves_as_itself_or_is_refused_where_declared(tmp_path, role, name):
    assume(name not in TEMPLATE_NAMES)
    assert behaves_or_is_refused(tmp_path, role, name) in ("ok", "refused")
