"""`capacity:` of zones and list variables: typed as a bound, kept as the game runs, refused when malformed."""

import pytest

import rulesdsl
from rulesdsl.errors import GameRuntimeError, RulesError
from rulesdsl.ir import subset

GAME = """
game: capacity
players: {count: 2}
board: {grid: {columns: [a], rows: ["1"]}}
pieces: {chip: {}}
zones:
  pot: {capacity: ZONE}
vars:
  seen: {init: "[]", capacity: VAR}
moves:
  add:
    do: ["place(piece('chip'), pot)", "seen = seen + [turn]"]
flow:
  steps:
    play: {moves: [add]}
end:
  - when: "turn >= 5"
    winners: "[]"
"""


def line_of(text: str) -> int:
    """The line of GAME that starts with `text` (after its indentation)."""
    return next(n for n, line in enumerate(GAME.splitlines(), 1) if line.strip().startswith(text))


def game_of(write, zone="3", var="8"):
    return rulesdsl.load_game(write(GAME.replace("ZONE", zone).replace("VAR", var)))


def test_a_zone_holding_more_than_its_capacity_is_an_error_at_the_move(write):
    state = game_of(write).new_initial_state()
    for _ in range(3):
        state.apply("add")
    with pytest.raises(GameRuntimeError) as caught:
        state.apply("add")
    error = caught.value
    assert error.rule == "add" and "zone 'pot' holds 4 items, more than its capacity 3" in error.message
    assert error.location.line in (line_of("add:"), line_of("do:"))  # the move's definition


def test_a_list_variable_holding_more_than_its_capacity_is_an_error(write):
    state = game_of(write, zone="100", var="2").new_initial_state()
    state.apply("add")
    state.apply("add")
    with pytest.raises(GameRuntimeError, match="variable 'seen' holds 3 items, more than its capacity 2"):
        state.apply("add")


def test_within_its_capacity_a_game_plays_to_its_end(write):
    state = game_of(write, zone="6", var="6").new_initial_state()
    while not state.is_terminal():
        state.apply("add")
    assert state.ply == 6 and state.turn == 5  # it ends as its sixth turn ends, before that turn passes


def test_a_capacity_bounds_the_type_and_puts_the_rule_in_the_compiled_subset(write):
    bounded = game_of(write, zone="6", var="size(cells) + 5").rules.ir
    assert {h.name: h.type.high for h in bounded.holders} == {"pot": 6, "seen": 6}
    assert all(v.compiled for v in subset.check(bounded))
    free = rulesdsl.load_game(write(GAME.replace("{capacity: ZONE}", "{}").replace(", capacity: VAR", ""),
                                    "free")).rules.ir
    [verdict] = [v for v in subset.check(free) if v.rule == "move add"]
    assert [r.code for r in verdict.reasons] == ["unbounded_list", "unbounded_list"]


@pytest.mark.parametrize("given, message", [
    ("-1", "a capacity is a whole number of items, 0 or more, not -1"),
    ("'big'", "a capacity is a whole number of items, 0 or more, not big"),
    ("size(nope)", "unknown name 'nope'"),
])
def test_a_malformed_capacity_is_a_located_error(write, given, message):
    with pytest.raises(RulesError) as caught:
        game_of(write, zone=f'"{given}"')
    [problem] = caught.value.problems
    assert message in problem.message and problem.location.line == line_of("pot:")
