"""`rulesdsl validate --play N`: seeded random games find rules that fail in play (located, with the seed and
moves that reach them) and rules no game uses; warnings fail only with --strict."""

from __future__ import annotations

import json

import pytest

from .helpers import game_path, run_cli as run

# `put` fails when the fourth stone goes on d (an index past the end of a list); `never` can never be made;
# the second end rule never ends a game.
PLANTED = """\
game: Planted
players: {count: 2}
board: {cells: [a, b, c, d]}
pieces:
  stone: {attributes: {owner: [0, 1]}}
vars:
  placed: {init: 0}
moves:
  put:
    params: {c: {in: cells}}
    when: ["empty(c)"]
    notation: "put {c}"
    do:
      - "placed += 1"
      - if: "placed == 3 and c == cell('d')"
        then: ["x = [1, 2][placed]"]
  never:
    params: {c: {in: cells}}
    when: ["empty(c) and not empty(c)"]
    notation: "never {c}"
flow:
  steps:
    play:
      moves: [put, never]
      pass: pass
      next: end_turn
end:
  - when: "placed >= 4"
    winners: "[]"
  - when: "placed > 100"
    winners: "[0]"
"""


@pytest.fixture
def planted(tmp_path):
    path = tmp_path / "planted.yaml"
    path.write_text(PLANTED)
    return str(path)


def _line(text: str) -> int:
    return PLANTED.splitlines().index(text) + 1


def test_a_rule_that_fails_in_play_is_found_with_its_seed_and_moves(capsys, planted):
    code, out, err = run(capsys, "validate", planted, "--play", "30")
    assert code == 1 and "played 30 random games: 5 failed, 0 reached the turn cap" in out
    failure = next(line for line in err.splitlines() if "failed on turn" in line)
    line = _line('        then: ["x = [1, 2][placed]"]')
    assert failure.startswith(f"{planted}:{line}:16: error: rule 'put'")
    assert "of random game 18 (and of 4 more of the 30): IndexError: list index out of range" in failure
    assert f"play it again: rulesdsl play {planted} --seats random,random --seed 18; the moves up to it: " \
           "put b, put a, put d" in err
    # the hint's command plays that very game, to the same failure
    code, out, err = run(capsys, "play", planted, "--seats", "random,random", "--seed", "18")
    assert code == 1 and "p0 plays put d" in out and "IndexError: list index out of range" in err


def test_rules_no_game_uses_are_warnings_at_their_definitions(capsys, planted):
    code, out, err = run(capsys, "validate", planted, "--play", "20", "--format", "json")
    problems = json.loads(out)["files"][0]["problems"]
    warnings = {(p["line"], p["code"], p["message"].split(" in ")[0]) for p in problems if p["severity"] == "warning"}
    assert warnings == {(_line("  never:") + 1, "dead_rule", "move 'never' was never made"),  # its body
                        (_line('  - when: "placed > 100"'), "dead_rule", "end rule 2 never ended a game")}


def test_warnings_fail_only_when_strict(capsys, tmp_path):
    path = tmp_path / "quiet.yaml"
    path.write_text(PLANTED.replace("placed == 3 and c == cell('d')", "false"))
    code, _, err = run(capsys, "validate", str(path), "--play", "10")
    assert code == 0 and "warning: move 'never' was never made" in err
    code, _, _ = run(capsys, "validate", str(path), "--play", "10", "--strict")
    assert code == 1


def test_ci_formats_play_by_default_and_the_text_format_does_not(capsys, planted):
    code, out, _ = run(capsys, "validate", planted, "--format", "json")
    assert code == 1 and any(p["code"] == "fails_in_play" for p in json.loads(out)["files"][0]["problems"])
    code, out, _ = run(capsys, "validate", planted)
    assert code == 0 and "played" not in out


def test_the_bundled_games_fail_nowhere_in_play(capsys):
    for name in ("mabula", "mark"):
        code, out, err = run(capsys, "validate", game_path(name), "--play", "3")
        assert code == 0 and "error" not in err, err


# `free` and `plus` are called in play; `twice` only by a move that no game can make.
FUNCTIONS = """\
game: Helpers
players: {count: 2}
board: {cells: [a, b, c]}
pieces:
  stone: {attributes: {owner: [0, 1]}}
vars:
  note: {init: 0}
functions:
  plus:
    params: [n]
    value: "n + 1"
  free:
    params: [c]
    value: "empty(c)"
  twice:
    params: [n]
    value: "2 * n"
moves:
  put:
    params: {c: {in: cells}}
    when: ["free(c)"]
    notation: "put {c}"
    do: ["place(piece('stone', owner=me), c)"]
  never:
    params: {c: {in: cells}}
    when: ["free(c) and not free(c)"]
    notation: "never {c}"
    do: ["note = twice(1)"]
flow:
  steps:
    play: {moves: [put, never], next: end_turn}
end:
  - when: "size(occupied()) == plus(2)"
    winners: "[]"
"""


def test_a_function_no_game_calls_is_a_warning_at_its_definition(capsys, tmp_path):
    path = tmp_path / "helpers.yaml"
    path.write_text(FUNCTIONS)
    code, out, err = run(capsys, "validate", str(path), "--play", "10", "--format", "json")
    assert code == 0
    problems = json.loads(out)["files"][0]["problems"]
    dead = sorted((p["line"], p["message"]) for p in problems if p["code"] == "dead_rule")
    twice = FUNCTIONS.splitlines().index("  twice:") + 2  # the function's body
    never = FUNCTIONS.splitlines().index("  never:") + 2
    assert dead == [(twice, "function 'twice' was never called in 10 random games"),
                    (never, "move 'never' was never made in 10 random games")]
