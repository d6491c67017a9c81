"""Variants and overlay files: changes merge into the base rules without copying them."""

from __future__ import annotations

import shutil

import pytest

import rulesdsl
from rulesdsl.cli import main
from rulesdsl.loading import load_document

from .helpers import ROOT, game_path

OVERLAYS = ROOT / "examples" / "overlays"


def test_overlay_changes_an_option_default_and_a_table():
    game = rulesdsl.load_game(OVERLAYS / "mark-rich-start.yaml")
    state = game.new_initial_state()
    assert state.to_json()["vars"]["money"] == [40, 40]
    assert game.name == "MARK (rich start, steep market)"
    assert game.rules.namespace  # compiled
    base = rulesdsl.load_game(game_path("mark"))
    assert base.new_initial_state().to_json()["vars"]["money"] == [30, 30]


def test_overlay_keeps_the_base_variants():
    game = rulesdsl.load_game(OVERLAYS / "mark-rich-start.yaml", variant="four-row-ending")
    assert game.variant == "four-row-ending"


def test_overlay_can_remove_a_key():
    game = rulesdsl.load_game(OVERLAYS / "mabula-no-tiebreak.yaml")
    assert game.rules.tiebreak is None and game.rules.score is not None


def test_variant_changes_only_what_differs():
    standard = rulesdsl.load_game(game_path("mark"), variant="standard")
    four = rulesdsl.load_game(game_path("mark"), variant="four-row-ending")
    assert standard.rules.summary().replace("standard", "") == four.rules.summary().replace("standard", "")


def test_validate_and_simulate_accept_overlays(capsys):
    path = str(OVERLAYS / "mark-rich-start.yaml")
    assert main(["validate", path]) == 0
    assert main(["simulate", path, "--games", "3", "--agents", "random,random"]) == 0
    out = capsys.readouterr().out
    assert "MARK (rich start, steep market): 3 games" in out


def test_simulate_compares_variants_with_a_significance_test(capsys):
    assert main(["simulate", "mark", "--games", "20", "--agents", "random,random",
                 "--variant", "standard", "--variant", "four-row-ending"]) == 0
    out = capsys.readouterr().out
    assert "MARK [standard]: 20 games" in out and "MARK [four-row-ending]: 20 games" in out
    assert "game length by variant" in out and "paired by seed" in out and "p " in out


# -- overrides that change nothing ---------------------------------------------------------------
LINES = """\
game: Lines
players:
  count: 2
variants:
  short:
    description: Two in a row wins.
    changes:
      let:
{change}
let:
  line_length: "3"
board:
  grid: {{columns: abc, rows: 3}}
  directions: {{east: [1, 0], north: [0, 1]}}
pieces:
  mark:
    attributes: {{owner: [0, 1]}}
moves:
  mark:
    params: {{c: {{in: cells}}}}
    when: ["empty(c)"]
    notation: "{{c}}"
    do: ["place(piece('mark', owner=me), c)"]
flow:
  steps:
    play: {{moves: [mark], next: end_turn}}
end:
  - when: "any(all(at(c) != none and at(c).owner == me for c in line) for line in lines(line_length))"
    winners: "[me]"
"""


def _lines(tmp_path, change: str):
    path = tmp_path / "lines.yaml"
    path.write_text(LINES.format(change=change), encoding="utf-8")
    return path


def test_a_variant_that_adds_a_let_nothing_reads_is_an_error_at_the_key(tmp_path):
    path = _lines(tmp_path, '        line_lenght: "2"')
    try:
        rulesdsl.load_game(path, variant="short")
    except rulesdsl.RulesError as exc:
        [problem] = exc.problems
    else:
        raise AssertionError("the misspelt override was accepted")
    assert problem.code == "override_unread" and problem.severity == "error"
    assert (problem.location.line, problem.location.col) == (9, 9)
    assert problem.get("candidates") == ("line_length",)
    assert rulesdsl.load_game(path).variant is None  # the standard game does not apply the variant


def _plays(game, moves) -> tuple:
    state = game.new_initial_state()
    for move in moves:
        state.apply(move)
    return state.terminal, state.returns() if state.terminal else None


def test_a_variant_may_add_a_let_that_it_reads_or_that_checks_something(tmp_path):
    read = _lines(tmp_path, '        short_game: "2"\n      end:\n        - when: "size(occupied()) == short_game"\n'
                  '          winners: "[]"')
    # two marks end the variant's game in a draw; the standard game goes on
    assert _plays(rulesdsl.load_game(read, variant="short"), ["a1", "b1"]) == (True, [0.0, 0.0])
    assert _plays(rulesdsl.load_game(read), ["a1", "b1"]) == (False, None)
    check = _lines(tmp_path, "        two_players: \"check(num_players == 2, 'two players')\"")
    assert rulesdsl.load_game(check, variant="short").variant == "short"


def test_an_override_to_the_same_value_is_a_warning_and_validate_passes(tmp_path, capsys):
    path = _lines(tmp_path, '        line_length: "3"')
    assert main(["validate", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == (f"{path}:9:9: warning: 'line_length' is set to the value it already has in the base game\n"
                   "  hint: this override changes nothing: remove it, or give it another value\n")
    assert out.startswith(f"{path}: ok - ")


def test_an_overlay_that_adds_a_table_nothing_reads_is_an_error(tmp_path):
    path = tmp_path / "steep.yaml"
    path.write_text("extends: mark\ndata:\n  markt: [[1, 2]]\n", encoding="utf-8")
    try:
        rulesdsl.load_game(path)
    except rulesdsl.RulesError as exc:
        assert [(p.location.line, p.location.col, p.get("candidates")) for p in exc.problems] == \
            [(3, 3, ("market",))]
    else:
        raise AssertionError("the misspelt table was accepted")


def test_validate_does_not_say_ok_when_a_variant_is_broken(tmp_path, capsys):
    path = _lines(tmp_path, '        line_lenght: "2"')
    assert main(["validate", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines()[0].startswith(f"{path}: 1 problem in its variants - Lines: ")
    assert out.splitlines()[1] == "  variant short: 1 problem"
    assert "'line_lenght' is not in the base game and nothing reads it" in err


def _validate(tmp_path, capsys, text: str) -> tuple[int, str]:
    path = tmp_path / "overlay.yaml"
    path.write_text(text, encoding="utf-8")
    code = main(["validate", str(path)])
    return code, capsys.readouterr().err.replace(str(path), "overlay.yaml")


def test_an_inherited_variant_that_the_overlay_makes_a_no_op_is_a_warning(tmp_path, capsys):
    code, err = _validate(tmp_path, capsys, 'extends: mark\nlet:\n  rows_to_end: "4"\n')
    assert code == 0
    assert err.splitlines()[0] == (
        "overlay.yaml:3:3: warning: variant 'four-row-ending', inherited from the base game, changes nothing under "
        "this overlay, which already makes its changes; its description ('The game ends as soon as four market rows "
        "are full.') was written for the base game")
    assert "'variants: {four-row-ending: null}'" in err.splitlines()[1]
    assert main(["validate", "--strict", str(tmp_path / "overlay.yaml")]) == 1


def test_an_inherited_variant_that_undoes_the_overlay_is_a_warning(tmp_path, capsys):
    code, err = _validate(tmp_path, capsys, 'extends: mark\nlet:\n  rows_to_end: "3"\n')
    assert code == 0
    assert err.splitlines()[0].startswith(
        "overlay.yaml:3:3: warning: variant 'four-row-ending', inherited from the base game, undoes this change: it "
        "sets 'let.rows_to_end' as the base game's variant does")


def test_a_variant_the_overlay_describes_anew_or_that_still_changes_something_is_not_reported(tmp_path, capsys):
    code, err = _validate(tmp_path, capsys, 'extends: mark\nlet:\n  rows_to_end: "4"\nvariants:\n'
                          '  four-row-ending:\n    description: The same as the standard game here.\n')
    assert (code, err) == (0, "")
    # Mabula's 'product' variant deletes the tiebreak as this overlay does, and still changes the score
    assert main(["validate", str(OVERLAYS / "mabula-no-tiebreak.yaml")]) == 0
    assert capsys.readouterr().err == ""


def test_a_section_the_base_lacks_is_checked_entry_by_entry(tmp_path, capsys):
    # the tutorial game has no 'let': each entry of a new one is checked as an added key
    shutil.copy(ROOT / "examples/tutorial/three-in-a-row.yaml", tmp_path)
    code, err = _validate(tmp_path, capsys, "extends: three-in-a-row.yaml\nlet:\n  size: '3'\n  unused: '4'\n"
                          "end:\n  - when: \"size(occupied()) == size * 3\"\n    winners: '[]'\n")
    assert code == 1
    assert err.splitlines()[0] == "overlay.yaml:4:3: error: 'unused' is not in the base game and nothing reads it"


def test_a_deletion_of_a_key_the_base_lacks_is_an_error_with_a_suggestion(tmp_path):
    path = tmp_path / "overlay.yaml"
    path.write_text("extends: mark\nlet:\n  rows_to_ned: null\n", encoding="utf-8")
    with pytest.raises(rulesdsl.RulesError) as caught:
        rulesdsl.load_game(path)
    [problem] = caught.value.problems
    assert (problem.code, problem.location.line, problem.location.col, problem.get("candidates")) == \
        ("override_missing", 3, 3, ("rows_to_end",))


def test_a_deletion_inside_a_section_the_base_lacks_deletes_nothing(tmp_path):
    path = tmp_path / "overlay.yaml"
    path.write_text("extends: mabula\nzones:\n  hand: null\n", encoding="utf-8")
    with pytest.raises(rulesdsl.RulesError) as caught:
        rulesdsl.load_game(path)
    assert [(p.code, p.location.line) for p in caught.value.problems] == [("override_missing", 3)]


def test_merged_positions_follow_the_file_that_wrote_each_key(tmp_path):
    path = tmp_path / "overlay.yaml"
    path.write_text("extends: mark\nlet:\n  rows_to_end: \"3\"\n  extra:\n    - 1\n", encoding="utf-8")
    doc = load_document(path)
    assert doc.info(("let", "rows_to_end")).loc.file == str(path)
    assert doc.info(("let", "extra", 0)).loc.line == 5
    assert doc.info(("data", "market")).loc.file.endswith("mark.yaml")


def test_a_variant_an_overlay_adds_may_delete_a_key_of_the_base_with_null(tmp_path):
    # a copy of the bundled variant 'product' under a new name: its null deletes the tie-break when applied
    path = tmp_path / "overlay.yaml"
    path.write_text("extends: mabula\nvariants:\n  mine:\n    description: copy\n    changes:\n      scoring:\n"
                    "        score: \"product(group_sizes(owned(me)))\"\n        tiebreak: null\n", encoding="utf-8")
    assert main(["validate", str(path)]) == 0
    assert "tiebreak" not in load_document(path, variant="mine").data["scoring"]
    mine = rulesdsl.simulate(path, games=6, agents=["random", "random"], variant="mine", seed=3)
    product = rulesdsl.simulate("mabula", games=6, agents=["random", "random"], variant="product", seed=3)
    assert (mine.wins, mine.draws) == (product.wins, product.draws) and mine.draws > 0  # equal products draw
