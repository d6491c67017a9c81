"""Position repetition: repeated(n), the positions a game keeps for it, and what a copy or a saved state keeps."""

from __future__ import annotations

import re

import pytest

import rulesdsl
from rulesdsl.engine.arrays import from_arrays, to_arrays
from rulesdsl.engine.repetition import position_key
from rulesdsl.errors import RulesError

from .helpers import ROOT

# Markers moved up and down a track: the top wins, a position met for the third time is a draw, and a player may
# claim a draw by repetition (the `claim` move) once the position has been met twice.
STEPS = """
game: Steps
players: {count: 2}
vars:
  at: {per: player, init: 0}
  claimed: false
moves:
  step:
    params: {d: "['up', 'down']"}
    when: ["0 <= at[me] + (1 if d == 'up' else -1) <= 3"]
    notation: "{d}"
    do: ["at[me] += 1 if d == 'up' else -1"]
  claim:
    when: ["repeated(2)"]
    notation: claim
    do: ["claimed = true"]
flow:
  steps:
    play: {moves: [step, claim], next: end_turn}
end:
  - when: "repeated(3) or claimed"
    winners: "[]"
  - when: "max(at[p] for p in players) == 3"
    winners: "[p for p in players if at[p] == 3]"
"""
ROUND = ["up", "up", "down", "down"]  # both markers up and down again: the first position, again


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    path = tmp_path_factory.mktemp("steps") / "game.yaml"
    path.write_text(STEPS, encoding="utf-8")
    return rulesdsl.load_game(str(path))


def played(game, moves):
    state = game.new_initial_state()
    for move in moves:
        state.apply(move)
    return state


def legal(state) -> list:
    return [str(m) for m in state.legal_moves()]


def test_the_third_time_a_position_occurs_ends_the_game(game):
    state = played(game, ROUND)
    assert state.occurrences() == 2 and not state.is_terminal()
    state = played(game, ROUND + ROUND[:3])
    assert state.occurrences() == 2 and not state.is_terminal()  # (up up down: met once before)
    state.apply("down")
    assert state.is_terminal() and state.winners == [] and state.ended_by == 0


def test_a_move_may_ask_whether_the_position_occurred_before(game):
    state = game.new_initial_state()
    assert legal(state) == ["up"]
    state = played(game, ROUND)
    assert legal(state) == ["up", "claim"]  # the first position, met twice
    state.apply("up")
    assert legal(state) == ["up", "claim"]  # so was this one
    state = played(game, ["up", "up", "up"])
    assert "claim" not in legal(state)


def test_the_key_is_of_the_board_zones_and_variables_only(game):
    state = played(game, ROUND)
    key = position_key(state)
    assert key == state.positions[0]  # the first position, left by the first move
    other = state.clone()
    other.turn, other.ply, other.player = 7, 9, 1  # counts of moves and the seat to move are no part of it
    assert position_key(other) == key
    for change in (lambda s: s.vars.__setitem__(1, True),
                   lambda s: s.vars[0].__setitem__(0, 2)):
        other = state.clone()
        change(other)
        assert position_key(other) != key


def test_a_copy_a_saved_state_and_arrays_count_as_the_original(game):
    state = played(game, ROUND + ["up"])
    copy = state.clone()
    copy.apply("up")
    assert state.occurrences() == 2 and len(state.positions) == 5 and len(copy.positions) == 6
    saved = state.to_json()
    assert len(saved["positions"]) == 5 and all(re.fullmatch(r"[0-9a-f]{16}", k) for k in saved["positions"])
    again = game.state_from_json(saved)
    converted = from_arrays(to_arrays(state, game.layout), game.layout, game)
    for other in (again, converted):
        assert other.positions == state.positions and other.occurrences() == 2
        for move in ["up", "down", "down"]:
            other.apply(move)
        assert other.is_terminal() and other.winners == []  # the third time, as the original would


@pytest.mark.parametrize("positions, message", [
    (["zz" * 8], "'positions' should be a list of keys of 16 hex digits"),
    (["0" * 16] * 9, "at most one a move made"),
    ("0" * 16, "'positions' should be a list"),
])
def test_a_damaged_positions_entry_is_refused(game, positions, message):
    saved = played(game, ROUND).to_json()
    saved["positions"] = positions
    with pytest.raises(RulesError, match=message):
        game.state_from_json(saved)


def test_only_a_game_that_calls_it_keeps_positions():
    state = rulesdsl.load_game(str(ROOT / "examples" / "tutorial" / "three-in-a-row.yaml")).new_initial_state()
    state.apply("b2")
    assert not state.rules.counts_positions and state.positions == () and state.seen is None
    assert "positions" not in state.to_json()


def test_a_number_that_is_not_whole_is_refused_where_it_is_written(write):
    with pytest.raises(RulesError) as caught:
        rulesdsl.load_game(write(STEPS.replace("repeated(2)", "repeated(at[me] / 2)")))
    assert re.search(r"game\.yaml:\d+:\d+: error: repeated\(\) needs a whole number", str(caught.value))


@pytest.fixture(scope="module")
def compiled(game):
    from rulesdsl.backends.compiled.build import with_backend
    return with_backend(game, "compiled")


def test_the_compiled_backend_counts_positions_as_the_python_engine_does(game, compiled):
    python_state, state = game.new_initial_state(), compiled.new_initial_state()
    for move in ROUND + ["up"]:
        for s in (python_state, state):
            s.apply(next(m for m in s.legal_moves() if str(m) == move))  # (moves applied by compiled code)
        assert legal(state) == legal(python_state)
    assert legal(state) == ["up", "claim"] and state.python().positions == python_state.positions
    assert state.to_json() == python_state.to_json()
    assert state.to_json()["position_keys"] == "words"
    again = compiled.state_from_json(python_state.to_json())
    for s in (state, again, python_state):
        for move in ["up", "down", "down"]:
            s.apply(next(m for m in s.legal_moves() if str(m) == move))
        assert s.is_terminal() and s.winners == [] and s.ended_by == 0  # the third time


def test_compiled_playouts_make_room_for_the_positions_they_keep(game, compiled, monkeypatch):
    from rulesdsl.backends.compiled import packing
    from rulesdsl.engine.play import play, uniform
    from rulesdsl.engine.rng import Rng
    monkeypatch.setattr(packing, "TAIL_ROOM", 0)  # a vector packed with no room: every kind of playout makes it
    monkeypatch.setattr(compiled, "_start", None)  # (the first position's vector, packed once)
    for seed in range(12):
        state = compiled.new_initial_state(seed)
        assert len(state.s) == compiled.packing.tail
        state.playout(Rng(seed), [Rng(seed + 1), Rng(seed + 2)])
        reference = game.new_initial_state(seed)
        play(reference, uniform, Rng(seed), [Rng(seed + 1), Rng(seed + 2)])
        assert state.python().positions == reference.positions and state.to_json() == reference.to_json()
    plies, results = compiled.playouts(range(12), Rng(1), [Rng(2), Rng(3)])  # whole games in one call
    assert plies.tolist() == [len(s.history) for s in _python_playouts(game, 12)]


def _python_playouts(game, n):
    from rulesdsl.engine.play import play, uniform
    from rulesdsl.engine.rng import Rng
    chance, seats = Rng(1), [Rng(2), Rng(3)]  # the streams run on from one game to the next
    states = []
    for seed in range(n):
        state = game.new_initial_state(seed)
        play(state, uniform, chance, seats)
        states.append(state)
    return states


def test_keys_of_another_kind_in_a_saved_state_are_refused_with_a_way_out(game):
    saved = played(game, ROUND).to_json()
    del saved["position_keys"]  # as saved before keys were worked out from the position's words
    with pytest.raises(RulesError, match="'positions' hold keys of another kind \\(text\\) than this game's "
                                         "positions \\(words\\)") as caught:
        game.state_from_json(saved)
    assert "remove 'positions'" in str(caught.value)
    del saved["positions"]
    assert game.state_from_json(saved).occurrences() == 1  # counted afresh from there


@pytest.mark.parametrize("kind", [{"words": ["a" * 10 ** 5]}, "w" * 10 ** 5, 7, None])
def test_a_kind_of_key_that_is_no_kind_is_refused_and_said_short(game, kind):
    saved = played(game, ROUND).to_json()
    saved["position_keys"] = kind
    with pytest.raises(RulesError, match="'positions' hold keys of another kind") as caught:
        game.state_from_json(saved)
    assert len(str(caught.value)) < 1000  # what the file holds is shown cut short
