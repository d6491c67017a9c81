"""Players leaving the game (leave, active_players) and one-player games: the turn order, simultaneous steps
and winners pass over the players who left; what returns() gives each player; saving and reading a state
with players who left; misuse reported where it is written."""

from __future__ import annotations

import json

import pytest

import rulesdsl
from rulesdsl.errors import GameRuntimeError, RulesError

from .helpers import game_lines, run_cli

# Four players with coins: `spend n` pays n coins, and a player left with none leaves the game.
COINS = """
game: Coins
players: {count: 4, names: [ann, bob, cat, dan]}
vars:
  coins: {per: player, init: 2}
moves:
  spend:
    params:
      n: "1..coins[me]"
    do:
      - "coins[me] -= n"
      - if: "coins[me] == 0"
        then: ["leave(me)"]
  hold:
    notation: hold
flow:
  NEXT_PLAYER
  steps:
    play:
      moves: [spend, hold]
      next: end_turn
end:
  - when: "size(active_players) == 1"
    winners: "active_players"
"""


@pytest.fixture
def coins(write):
    def load(next_player: str = ""):
        return rulesdsl.load_game(write(COINS.replace("NEXT_PLAYER", next_player)))
    return load


def play(state, *moves):
    for move in moves:
        state.apply(move)
    return state


def test_the_turn_passes_over_players_who_left(coins):
    state = play(coins().new_initial_state(), "spend 2")  # ann leaves
    assert state.left == (0,) and state.player == 1
    play(state, "hold", "hold", "hold")  # bob, cat, dan
    assert state.player == 1  # round the table past ann
    play(state, "spend 2")  # bob leaves
    assert state.left == (0, 1) and state.player == 2
    play(state, "hold", "hold")
    assert state.player == 2 and not state.terminal


def test_active_players_and_the_last_player_standing(coins):
    state = play(coins().new_initial_state(), "spend 2", "spend 2")  # ann, then bob, leave
    assert not state.terminal
    play(state, "spend 2")  # cat leaves: dan is the last player in
    assert state.terminal and state.winners == [3]
    assert state.left == (0, 1, 2)
    assert state.returns() == [-1.0, -1.0, -1.0, 1.0]


def test_next_seat_counts_only_the_players_still_in(coins, write):
    game = coins(next_player='next_player: "next_seat(player, 2)"')  # every other player still in
    state = play(game.new_initial_state(), "spend 2")  # ann leaves; next_seat(ann, 2) over bob, cat, dan
    assert state.player == 2
    play(state, "hold")  # cat: two seats on, past dan and ann, is bob
    assert state.player == 1
    play(state, "hold")  # bob: past cat to dan
    assert state.player == 3
    play(state, "hold")  # dan: past ann and bob to cat
    assert state.player == 2


def test_a_next_player_naming_a_player_who_left_goes_on_to_the_next_seat_still_in(coins):
    game = coins(next_player='next_player: "0"')  # always ann
    state = play(game.new_initial_state(), "hold")
    assert state.player == 0
    play(state, "spend 2")  # ann leaves: the turn goes on to bob
    assert state.player == 1
    play(state, "hold")
    assert state.player == 1


def test_a_player_who_leaves_twice_leaves_once(write):
    path = write(COINS.replace("NEXT_PLAYER", "").replace('then: ["leave(me)"]', 'then: ["leave(me)", "leave(me)"]'))
    state = play(rulesdsl.load_game(path).new_initial_state(), "spend 2")
    assert state.left == (0,)


def test_everyone_leaving_is_an_error_located_at_the_flow(write):
    text = COINS.replace("NEXT_PLAYER", "").replace("count: 4, names: [ann, bob, cat, dan]", "count: 1") \
        .replace('winners: "active_players"', 'winners: "[]"').replace("size(active_players) == 1", "false")
    path = write(text)
    state = rulesdsl.load_game(path).new_initial_state()
    with pytest.raises(GameRuntimeError, match="every player has left the game") as caught:
        state.apply("spend 2")
    assert text.splitlines()[caught.value.location.line - 1] == "  steps:"  # in the flow: where the turn passes
    assert "size(active_players) <= 1" in caught.value.hint


def test_leave_of_a_value_that_is_no_seat_is_located_at_its_statement(write):
    text = COINS.replace("NEXT_PLAYER", "").replace('then: ["leave(me)"]', 'then: ["leave(me + 10)"]')
    path = write(text)
    state = rulesdsl.load_game(path).new_initial_state()
    with pytest.raises(GameRuntimeError, match=r"leave\(\): 10 is not a seat \(seats are 0 to 3\)") as caught:
        state.apply("spend 2")
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "leave(me + 10)" in row)
    assert (caught.value.location.line, caught.value.location.col) == (line, 16)


# Three players bid at once; a player who bids 0 leaves. The round ends when everybody still in has bid.
BIDS = """
game: Bids
players: {count: 3}
vars:
  rounds: 0
  highest: {per: player, init: 0}
moves:
  bid:
    params: {amount: "0..2"}
flow:
  steps:
    bid:
      actors: "players"
      moves: [bid]
      resolve:
        - for: "p in active_players"
          do:
            - "highest[p] = max(highest[p], choices[p].amount)"
            - if: "choices[p].amount == 0"
              then: ["leave(p)"]
        - "rounds += 1"
      next: bid
end:
  - when: "rounds == 3"
    ties: share
scoring:
  score: "highest[me]"
"""


def test_a_simultaneous_step_waits_only_for_the_players_still_in(write):
    state = rulesdsl.load_game(write(BIDS)).new_initial_state()
    assert state.acting_players() == [0, 1, 2]
    play(state, "bid 0", "bid 1", "bid 1")  # p0 bids 0 and leaves
    assert state.left == (0,)
    assert state.acting_players() == [1, 2]
    assert state.legal_moves(0) == []
    play(state, "bid 2", "bid 1")
    assert state.acting_players() == [1, 2] and not state.terminal


def test_highest_score_ranks_only_the_players_still_in(write):
    # p0 bids 2 and then 0, leaving with the best score (2); of the others p2 bids 2 in round 3
    state = rulesdsl.load_game(write(BIDS)).new_initial_state()
    play(state, "bid 2", "bid 1", "bid 1", "bid 0", "bid 1", "bid 1", "bid 1", "bid 2")
    assert state.terminal and state.left == (0,)
    assert state.scores() == [2, 1, 2]
    assert state.winners == [2]
    assert state.returns() == [-1.0, -1.0, 1.0]


def test_a_drawn_game_returns_zero_to_those_in_and_minus_one_to_those_who_left(write):
    state = rulesdsl.load_game(write(BIDS.replace("ties: share", "ties: draw"))).new_initial_state()
    play(state, "bid 0", "bid 1", "bid 1", "bid 2", "bid 2", "bid 1", "bid 1")
    assert state.terminal and state.left == (0,) and state.scores() == [0, 2, 2]
    assert state.winners == []
    assert state.returns() == [-1.0, 0.0, 0.0]


def test_an_end_condition_on_active_players_is_asked_again_once_a_player_leaves(coins):
    game = coins()
    end = game.rules.end_rules[0]
    state = game.new_initial_state()
    assert end.unchanged is not None  # it reads only who has left: kept while nobody leaves
    before = end.unchanged(state)
    play(state, "hold")
    assert end.unchanged(state) == before
    play(state, "spend 2")
    assert end.unchanged(state) != before


def test_who_left_is_saved_and_read_back(coins):
    game = coins()
    state = play(game.new_initial_state(), "hold", "spend 2")
    data = state.to_json()
    assert data["left"] == [1]
    again = game.state_from_json(data)
    assert again.left == (1,) and again.player == 2
    play(again, "hold", "hold", "hold")  # cat, dan, ann
    assert again.player == 2  # past bob
    assert "left" not in game.new_initial_state().to_json()  # states where nobody left read as before


@pytest.mark.parametrize("left", [[7], [1, 1], "1", [True]])
def test_a_saved_state_with_a_bad_list_of_players_who_left_is_reported(coins, left):
    game = coins()
    data = game.new_initial_state().to_json()
    data["left"] = left
    with pytest.raises(RulesError, match="'left' should be a list of different seats from 0 to 3"):
        game.state_from_json(data)


def test_leave_is_an_effect_and_active_players_a_value(write):
    text = COINS.replace("NEXT_PLAYER", "").replace('n: "1..coins[me]"', 'n: "1..coins[me] if leave(me) else 1"')
    with pytest.raises(RulesError, match=r"leave\(\) changes the game: use it as an effect"):
        rulesdsl.load_game(write(text))
    text = COINS.replace("NEXT_PLAYER", "").replace('"coins[me] -= n"', '"active_players = []"')
    with pytest.raises(RulesError, match="'active_players' is a constant|'active_players' cannot be assigned"):
        rulesdsl.load_game(write(text))


# One player rolls a die until they stop: over 10 is a loss, 7 a draw, 8 to 10 a win, less a loss.
SOLO = """
game: Solo
players: {count: 1}
vars:
  total: 0
  stopped: false
moves:
  stop: {notation: stop, do: ["stopped = true"]}
  more: {notation: more, do: ["goto('roll')"]}
flow:
  steps:
    roll:
      chance:
        outcomes:
          params: {d: "1..6"}
          notation: "roll {d}"
          do: ["total += d"]
      next: decide
    decide:
      moves: [stop, more]
      next: roll
end:
  - when: "total > 10"
    winners: "[]"
  - when: "stopped and total == 7"
    winners: draw
  - when: "stopped"
    winners: "[0] if total >= 8 else []"
scoring:
  score: "total if total <= 10 else 0"
"""


@pytest.mark.parametrize("moves, returns", [
    (["roll 6", "more", "roll 6", "more"], [-1.0]),  # 12: over 10 (asked at the next move), no winner: a loss
    (["roll 3", "stop"], [-1.0]),  # 3: no winner: a loss
    (["roll 4", "more", "roll 3", "stop"], [0.0]),  # 7: winners: draw
    (["roll 5", "more", "roll 4", "stop"], [1.0]),  # 9: a win
])
def test_one_player_loses_when_nobody_wins_unless_the_rules_say_draw(write, moves, returns):
    state = play(rulesdsl.load_game(write(SOLO)).new_initial_state(), *moves)
    assert state.terminal and state.returns() == returns


def test_one_player_stopped_at_the_turn_cap_draws(write):
    # `more` ends the turn, and the game stops after two turns
    text = SOLO.replace("""more: {notation: more, do: ["goto('roll')"]}""", "more: {notation: more}") \
        .replace("      next: roll\n", "      next: end_turn\n").replace("flow:\n", "flow:\n  max_turns: 2\n")
    state = play(rulesdsl.load_game(write(text)).new_initial_state(), "roll 1", "more", "roll 1", "more")
    assert state.terminal and state.capped and state.returns() == [0.0]


def test_simulate_reports_wins_losses_draws_and_the_mean_return_of_one_seat(write, capsys):
    path = write(SOLO)
    code, out, _ = run_cli(capsys, "simulate", path, "--agents", "random", "--games", "40", "--seed", "3",
                           "--out", path + ".jsonl")
    assert code == 0
    lines = game_lines(path + ".jsonl")
    wins = sum(line["returns"] == [1.0] for line in lines)
    losses = sum(line["returns"] == [-1.0] for line in lines)
    draws = sum(line["returns"] == [0.0] for line in lines)
    assert wins + losses + draws == 40 and losses > 0
    assert f"  {'losses':<10} {'':<16} {losses:>6}" in out and f"  {'draws':<10} {'':<16} {draws:>6}" in out
    assert f"mean return {(wins - losses) / 40:+.2f}" in out
    scores = [line["scores"][0] for line in lines]
    assert f"mean score {sum(scores) / 40:.2f}" in out
