"""When the end rules are asked (as a turn ends, before it passes; where play waits after a seat's move within its
turn), `mover`, and the no_moves rule, on small rule files played on both backends where the compiled one takes them."""

from __future__ import annotations

from functools import lru_cache

import pytest

import rulesdsl
from rulesdsl import GameRuntimeError, RulesError
from rulesdsl.engine.play import play, uniform
from rulesdsl.engine.rng import Rng
from rulesdsl.findings import check_file

from .helpers import ROOT

SEAT_ONE = str(ROOT / "tests" / "end_rules" / "seat-one.yaml")  # end: player == 1
DEAL = str(ROOT / "tests" / "end_rules" / "deal.yaml")  # a deal of six cards by chance; the end reads the hands
TAKE = str(ROOT / "tests" / "compiled_games" / "take-away.yaml")  # no_moves (a variant per word) and mover
# take-away: seat 0 takes 3 (8 left: it plays again) and 3, seat 1 takes 1 (4 left: again) and 3, seat 0 the last
EMPTIED = ["take 3", "take 3", "take 1", "take 3", "take 1"]
DEALT = ["card 2", "card 3", "card 1", "card 1", "card 2", "card 3"]  # seat 0 holds 2 1 2, seat 1 holds 3 1 3


@lru_cache(maxsize=None)
def _game(path: str, variant: str | None = None, backend: str = "python"):
    python = rulesdsl.load_game(path, variant, backend="python")
    if backend == "python":
        return python
    pytest.importorskip("numba")
    from rulesdsl.backends.compiled.build import with_backend
    return with_backend(python, "compiled")


def _played(game, moves: list[str], seed: int = 0):
    state = game.new_initial_state(seed)
    for move in moves:
        state.apply(move)
    return state


def _outcome(state) -> tuple:
    return state.terminal, state.winners, state.returns(), state.turn, state.player


def test_an_end_naming_a_seat_holds_once_that_seat_has_played_not_when_the_turn_passes_to_it():
    state = _played(_game(SEAT_ONE), ["tick"])
    assert not state.terminal and state.current_player() == 1  # seat 0's turn passed to seat 1: no end asked
    state.apply("tick")
    assert state.terminal and state.winners == [1] and state.turn == 1  # as seat 1's turn ends, before it passes


def test_a_position_read_back_is_over_where_play_would_be_over():
    early = _played(_game(SEAT_ONE), ["tick"])  # `player == 1` holds, but was not asked: the turn passed
    dealt = _played(_game(DEAL), ["card 2"])  # seat 1's hand is empty, but nobody has moved
    over = _played(_game(SEAT_ONE), ["tick", "tick"])
    for state in (early, dealt, over):
        again = state.game.state_from_json(state.to_json())
        assert _outcome(again) == _outcome(state)
    again = over.game.state_from_json(dict(over.to_json(), terminal=False, winners=None))  # whatever the file says
    assert _outcome(again) == _outcome(over)


def test_a_deal_by_chance_steps_is_not_ended_by_its_first_card():
    game = _game(DEAL)
    state = _played(game, ["card 2"])  # seat 1's hand is still empty: the end holds, but nobody has moved
    assert not state.terminal and state.is_chance_node()
    for card in DEALT[1:]:
        state.apply(card)
    assert not state.terminal and state.current_player() == 0
    for move in ["shed 2", "shed 1", "shed 1", "shed 3"]:
        state.apply(move)
    assert not state.terminal
    state.apply("shed 2")  # seat 0's last card
    assert state.terminal and state.winners == [0]


def test_the_end_is_asked_where_play_waits_within_the_turn_of_a_move_and_reads_mover(write):
    text = open(TAKE).read().replace('"mover == 1 and taken[1] >= 6"', '"pile == 8"', 1)
    state = _played(rulesdsl.load_game(write(text)), ["take 3"])  # 8 left: seat 0 plays again, in its turn
    assert state.terminal and state.winners == [0] and state.turn == 0
    state = _played(_game(TAKE), ["take 1", "take 3", "take 1", "take 3"])  # seat 1 has taken 6
    assert state.terminal and state.winners == [1] and state.ended_by == 0


@pytest.mark.parametrize("variant, winners, turn, player", [
    (None, [0], 3, 1), ("misere", [1], 3, 1), ("drawn", [], 3, 1), ("passing", [], 4, 0)])
def test_each_no_moves_word(variant, winners, turn, player):
    state = _played(_game(TAKE, variant), EMPTIED)  # seat 1 is to move with nothing left to take
    assert _outcome(state) == (True, winners, [1.0 if p in winners else -1.0 if winners else 0.0 for p in (0, 1)],
                               turn, player)
    assert state.ended_by == 1 and state.legal_moves() == []
    again = state.game.state_from_json(state.to_json())  # a saved game over by no_moves reads back over
    assert _outcome(again) == _outcome(state)


def test_without_a_no_moves_rule_a_seat_with_no_move_is_the_error_it_was(write):
    text = open(TAKE).read().replace("  - no_moves: loses\n", "")
    state = _played(rulesdsl.load_game(write(text)), EMPTIED)
    assert not state.terminal
    with pytest.raises(GameRuntimeError, match="has no legal move and the step declares no 'pass'"):
        state.legal_moves()


def test_a_steps_own_pass_comes_before_the_no_moves_rule(write):
    text = open(TAKE).read().replace("      moves: [take]\n", "      moves: [take]\n      pass: pass\n")
    state = _played(rulesdsl.load_game(write(text)), EMPTIED)
    assert not state.terminal and [str(m) for m in state.legal_moves()] == ["pass"]


def test_passing_seats_at_a_simultaneous_step_end_the_game_drawn_when_all_have_passed(write):
    path = write("""
game: Blind take
players: {count: 3}
vars: {pile: 2}
moves:
  take:
    params: {n: "1..2"}
    when: [{test: "n <= pile"}]
    notation: "take {n}"
flow:
  steps:
    pick:
      actors: players
      moves: [take]
      resolve: ["pile -= 1"]
end:
  - no_moves: passes
""")
    state = rulesdsl.load_game(path).new_initial_state()
    for _ in range(2):
        for p in range(3):
            state.apply(state.legal_moves(p)[0], p)
    assert state.terminal and state.winners == [] and state.turn == 4 and state.returns() == [0.0] * 3


@pytest.mark.parametrize("end, code, line", [
    ('[{no_moves: loses}, {no_moves: wins}]', "no_moves_twice", 3),
    ('[{no_moves: lose}]', "schema_enum", 2),
    ('[{no_moves: loses, when: "true"}]', "schema_unknown_key", 2)])
def test_validate_locates_a_misused_no_moves_rule(write, end, code, line):
    text = open(TAKE).read()
    text = text[:text.index("end:")] + "end:\n  - " + end[1:-1].replace("}, {", "}\n  - {") + "\n"
    problems = check_file(write(text)).problems
    assert [p.code for p in problems] == [code]
    start = text.index("end:")
    assert problems[0].location.line == text[:start].count("\n") + line
    with pytest.raises(RulesError):
        rulesdsl.load_game(write(text, "again"))


@pytest.mark.parametrize("path, variant, plays", [
    (TAKE, None, [EMPTIED, ["take 1", "take 3", "take 1", "take 3"]]), (TAKE, "passing", [EMPTIED]),
    (SEAT_ONE, None, [["tick"], ["tick", "tick"]]),
    (DEAL, None, [DEALT[:1], DEALT, DEALT + ["shed 2", "shed 1", "shed 1", "shed 3", "shed 2"]])])
def test_both_backends_end_alike(path, variant, plays):
    python, compiled = _game(path, variant), _game(path, variant, "compiled")
    for moves in plays:
        a, b = _played(python, moves), _played(compiled, moves)
        assert b.to_json() == a.to_json() and _outcome(b) == _outcome(a)


def test_a_tiered_step_has_a_move_when_any_tier_has_one_on_both_backends(tmp_path):
    text = (ROOT / "tests" / "compiled_games" / "fallbacks.yaml").read_text()
    end = '  - when: "max(pos[p] for p in players) >= 20"\n'
    path = tmp_path / "fallbacks-no-moves.yaml"
    path.write_text(text.replace(end, end + "  - no_moves: loses\n"))  # its last tier is always legal: never used
    python, compiled = _game(str(path)), _game(str(path), None, "compiled")
    for seed in range(3):
        a, b = python.new_initial_state(seed), compiled.new_initial_state(seed)
        play(a, uniform, Rng(seed), [Rng(10 + seed), Rng(20 + seed)])
        b.playout(Rng(seed), [Rng(10 + seed), Rng(20 + seed)])  # the whole playout in compiled code
        assert b.to_json() == a.to_json() and a.terminal and a.ended_by == 0
