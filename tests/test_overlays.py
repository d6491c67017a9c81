"""Variants and overlay files: changes merge into the base rules without copying them."""

from __future__ import annotations

import rulesdsl
from rulesdsl.cli import main

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
