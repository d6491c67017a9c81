"""Calls of the rule file's short functions compiled into their callers: the same values, with no call."""

from __future__ import annotations

import pytest

import rulesdsl
from rulesdsl.errors import RulesError

INLINE = """
game: Inline
players: {count: 2}
board: {grid: {columns: 3, rows: 1}}
vars:
  base: {init: 10}
functions:
  plus:
    params: [a, b]
    value: "a + b + base"
  shifted:
    params: [p]
    description: its loop variable has the name of a caller's, which p may stand for
    value: "[x + p for x in [1, 2]]"
  countdown:
    params: [n]
    value: "0 if n <= 0 else 1 + countdown(n - 1)"
  uses_shifted: {value: "[shifted(x) for x in [10, 20]]"}
  uses_plus: {value: "[plus(x, me) for x in [1, 2]] + [plus(x * 2, 1) for x in [3]]"}
  uses_countdown: {value: "countdown(3)"}
moves:
  wait:
    notation: "wait"
flow:
  steps:
    play:
      moves: [wait]
      next: end_turn
end:
  - when: "turn > 3"
    winners: "[]"
"""


def _load(tmp_path, text=INLINE, **kwargs):
    path = tmp_path / "inline.yaml"
    path.write_text(text)
    return rulesdsl.load_game(str(path), **kwargs)


def _value(game, name):
    return game.rules.generated[f"function {name}"][0](game.new_initial_state(), 1)


@pytest.mark.parametrize("inline", [True, False])
def test_inlined_or_called_a_function_gives_the_same_values(tmp_path, inline):
    game = _load(tmp_path, inline=inline)
    assert _value(game, "uses_shifted") == [[11, 12], [21, 22]]
    assert _value(game, "uses_plus") == [12, 13, 17]
    assert _value(game, "uses_countdown") == 3


def test_short_calls_with_plain_arguments_are_compiled_in_and_others_stay_calls(tmp_path):
    source = {name: _load(tmp_path).rules.generated[f"function {name}"][0].source
              for name in ("uses_shifted", "uses_plus", "uses_countdown")}
    assert "U_shifted" not in source["uses_shifted"]
    assert "U_plus" in source["uses_plus"] and source["uses_plus"].count("U_plus") == 1  # x * 2 is worked out
    assert "U_countdown" in source["uses_countdown"]  # a function that calls itself is called
    called = {name: _load(tmp_path, inline=False).rules.generated[f"function {name}"][0].source
              for name in ("uses_shifted", "uses_plus")}
    assert "U_shifted" in called["uses_shifted"] and called["uses_plus"].count("U_plus") == 2


def test_a_mistake_in_a_short_function_is_reported_once_where_it_is_written(tmp_path):
    text = INLINE.replace('value: "a + b + base"', 'value: "a + b + bsae"')
    with pytest.raises(RulesError) as caught:
        _load(tmp_path, text)
    problems = caught.value.problems
    assert len(problems) == 1 and "unknown name 'bsae'" in problems[0].message
    assert problems[0].location.line == text.splitlines().index("  plus:") + 3
