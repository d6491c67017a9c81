"""The secret_made_public warning: a secret written into a variable every player sees is found wherever the value
comes from (a hidden zone or variable, a secret move's or outcome's params and lets, a secret draw's outcome),
through names, loops, lets and functions; what every player may see is not reported."""

from __future__ import annotations

from pathlib import Path

import pytest

import rulesdsl

from .helpers import ROOT

BASE = """
game: Secrets
players: {count: 2}
zones:
  hand: {per: player, visible: owner, init: "[1, 2, 3]"}
  deck: {visible: none, init: "[4, 5, 6]"}
vars:
  shown: {init: 0}
  seen: {init: "{1: false, 2: false, 3: false}"}
  mine: {per: player, visible: owner, init: 0}
  count: {init: 0}
functions:
  top: {params: [p], value: "first(hand[p])"}
  pick: {params: [xs], value: "first(xs)"}
procedures:
  tell: {params: [x, y], do: ["count = y", "shown = x"]}
moves:
  act:
    params: {k: "[1, 2]"}
    let: {held: "first(hand[me])"}
    notation: "act {k}"
    do: [DO]
flow:
  steps:
    turn: {moves: [act], next: end_turn}
end:
  - when: "turn >= 2"
    winners: "[]"
"""


def warnings(tmp_path, do, extra: str = "") -> list:
    """(line of the statement, variable) of each secret_made_public warning of the game doing `do` (YAML items)."""
    path = tmp_path / "secrets.yaml"
    path.write_text(BASE.replace("DO", do) + extra)
    found = rulesdsl.load_game(str(path)).rules.warnings
    return [p.get("variable") for p in found if p.code == "secret_made_public"]


@pytest.mark.parametrize("do, leaked", [
    ('"shown = first(hand[me])"', ["shown"]),  # read directly
    ('"x = first(hand[me])", "shown = x"', ["shown"]),  # through a name the effects assign
    ('"shown = held"', ["shown"]),  # through the move's let
    ('"shown = top(me)"', ["shown"]),  # through the file's function
    ('"shown = pick(deck)"', ["shown"]),  # a function given a secret
    ('{for: "c in hand[me]", do: ["shown = c"]}', ["shown"]),  # through a for: loop
    ('"tell(first(hand[me]), 1)"', ["shown"]),  # through a procedure's param
    ('"tell(1, first(hand[me]))"', ["count"]),
    ('"seen[first(hand[me])] = true"', ["seen"]),  # the key it is stored at
    ('"shown = k"', []),  # the move is public: its params are seen in the history
    ('"shown = size(hand[me]) + size(deck)"', []),  # how many a hidden place holds: every view shows it
    ('"mine[me] = first(hand[me])"', []),  # a variable only its owner sees
    ('"reveal(hand[me])", "shown = first(hand[me])"', []),  # turned face up first
    ('{if: "first(hand[me]) == 1", then: ["count += 1"]}', []),  # (a test is not followed)
])
def test_a_secret_assigned_to_a_public_variable_is_a_warning(tmp_path, do, leaked):
    assert warnings(tmp_path, do) == leaked


def test_a_secret_move_s_params_and_lets_are_secrets(tmp_path):
    text = BASE.replace('notation: "act {k}"', 'notation: "act {k}"\n    visible_to: "me"')
    path = tmp_path / "secret-move.yaml"
    path.write_text(text.replace("DO", '"shown = k"'))
    [problem] = rulesdsl.load_game(str(path)).rules.warnings
    assert (problem.code, problem.severity, problem.get("secret")) == \
        ("secret_made_public", "warning", "'k', a param of move 'act' (visible_to)")
    assert problem.location.line == text.replace("DO", "").splitlines().index("    do: []") + 1


def test_the_bundled_games_warn_only_of_true_leaks():
    files = sorted(p for pattern in ("games/*.yaml", "examples/**/*.yaml", "tests/compiled_games/*.yaml")
                   for p in ROOT.glob(pattern))
    found = {}
    for path in files:
        game = rulesdsl.load_game(str(path))
        for problem in game.rules.warnings:
            if problem.code == "secret_made_public":
                found.setdefault(Path(path).name, []).append(problem.get("variable"))
    # draws seen by one player whose worth or items go into variables every player sees
    assert found == {"called-draws.yaml": ["last", "score"], "secret-draw.yaml": ["drawn", "bag"]}


def test_a_secret_is_followed_along_long_chains_of_functions_and_procedures(tmp_path):
    n = 1500  # (more than a stack of Python calls would hold, three or more a link)
    functions = ['  f0: {params: [p], value: "first(hand[p])"}'] + \
        [f'  f{i}: {{params: [p], value: "f{i - 1}(p)"}}' for i in range(1, n)]
    procedures = ['  t0: {params: [x], do: ["count = x"]}'] + \
        [f'  t{i}: {{params: [x], do: ["t{i - 1}(x)"]}}' for i in range(1, n)]
    text = BASE.replace("functions:\n", "\n".join(["functions:", *functions, ""]))
    text = text.replace("procedures:\n", "\n".join(["procedures:", *procedures, ""]))
    path = tmp_path / "chains.yaml"
    path.write_text(text.replace("DO", f'"shown = f{n - 1}(me)", "t{n - 1}(held)"'))
    found = rulesdsl.load_game(str(path)).rules.warnings
    assert sorted(p.get("variable") for p in found) == ["count", "shown"]
