"""Chance steps that draw several items at once (`draw:`), and chance steps called from effects (chance())."""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesdsl
from rulesdsl.engine.draws import DrawPool
from rulesdsl.errors import GameRuntimeError, IllegalMove, MalformedMove, RulesError

from .helpers import ROOT, run_cli

# Rolling n dice, called from a move: the turn's `next` sees the dice rolled.
DICE = """
game: Dice
players: {count: 2}
vars:
  dice: {init: "[]"}
  total: {per: player, init: 0}
moves:
  throw:
    params: {n: "1..3"}
    notation: "throw {n}"
    do: ["chance('roll', n)"]
flow:
  steps:
    play:
      moves: [throw]
      next:
        - if: "sum(dice) >= 15"
          to: bonus
        - to: end_turn
    bonus:
      do: ["total[player] += 100"]
      next: end_turn
    roll:
      inputs: [n]
      chance:
        draw: "n"
        from: "1..6"
        replace: true
        do: ["dice = outcome", "total[player] += sum(outcome)"]
end:
  - when: "max(total[p] for p in players) >= 200"
scoring:
  score: "total[me]"
"""

# Dealing cards from a deck to every player in turn, from one automatic step, into hidden hands.
CARDS = """
game: Deal
players: {count: 2}
pieces:
  card:
    attributes:
      rank: [A, K, Q]
    derived:
      symbol: "rank"
zones:
  deck:
    init: "[piece('card', rank=r) for r in ['A', 'A', 'K', 'Q']]"
  hand: {per: player, visible: owner}
vars:
  dealt: 0
flow:
  steps:
    deal:
      do:
        - for: "p in players"
          do: ["chance('draw_cards', p, 2)"]
        - "dealt = -1"
      next:
        - if: "dealt == 2"
          to: play
        - to: deal
    draw_cards:
      inputs: [who, n]
      chance:
        draw: "n"
        from: "deck"
        notation: "{name_of(who)} draws {outcome}"
        visible_to: "who"
        do:
          - for: "c in outcome"
            do: ["move(deck, hand[who], c)"]
          - "dealt = max(dealt, 0) + 1"
    play:
      moves: [done]
moves:
  done:
    notation: done
    do: ["dealt = 3"]
end:
  - when: "dealt == 3"
    winners: "[]"
"""


def probabilities(state) -> dict:
    return {str(move): p for move, p in state.chance_outcomes()}


# -- several dice at once ---------------------------------------------------------------------------------------
def test_three_dice_are_one_outcome_with_multinomial_probabilities(write):
    state = rulesdsl.load_game(write(DICE)).new_initial_state()
    state.apply("throw 3")
    assert state.current_player() == rulesdsl.CHANCE
    table = probabilities(state)
    assert len(table) == 56  # multisets of 3 faces out of 6: C(8, 3)
    # by hand: 1 1 1 is one order of 216; 1 1 2 three orders; 1 2 3 six orders
    assert table["roll 1 1 1"] == pytest.approx(1 / 216)
    assert table["roll 1 1 2"] == pytest.approx(3 / 216)
    assert table["roll 1 2 3"] == pytest.approx(6 / 216)
    assert sum(table.values()) == pytest.approx(1.0)
    assert list(table)[:3] == ["roll 1 1 1", "roll 1 1 2", "roll 1 1 3"]


def test_a_roll_is_named_in_any_order_and_printed_sorted(write):
    state = rulesdsl.load_game(write(DICE)).new_initial_state()
    state.apply("throw 3")
    state.apply("roll 6 3 1")  # read in any order, kept as the multiset
    assert state.history_texts() == ["throw 3", "roll 1 3 6"]
    assert state.vars[0] == [1, 3, 6] and state.vars[1] == [10, 0]
    assert state.player == 1 and state.step == "play"


def test_every_outcome_round_trips_through_its_notation(write):
    state = rulesdsl.load_game(write(DICE)).new_initial_state()
    state.apply("throw 2")
    for move, _ in state.chance_outcomes():
        assert state.parse_move(str(move)) == move


@pytest.mark.parametrize("text, error, reason", [
    ("roll 1 7", MalformedMove, "'7' is not one of the items drawn from (1, 2, 3, 4, 5, 6)"),
    ("roll 1 2 3", IllegalMove, "a draw here holds exactly 2 items, not 3"),
    ("throw 1", MalformedMove, "outcomes look like 'roll {outcome}'"),
])
def test_a_wrong_roll_says_why(write, text, error, reason):
    state = rulesdsl.load_game(write(DICE)).new_initial_state()
    state.apply("throw 2")
    with pytest.raises(error) as caught:
        state.apply(text)
    assert reason in caught.value.reason


def test_the_callers_next_is_worked_out_after_the_draw(write):
    state = rulesdsl.load_game(write(DICE)).new_initial_state()
    state.apply("throw 3")
    state.apply("roll 4 5 6")  # 15: the 'next' of the step that threw sees these dice, and goes to the bonus
    assert state.vars[1] == [115, 0] and state.player == 1
    state.apply("throw 3")
    state.apply("roll 4 5 5")  # 14: no bonus
    assert state.vars[1] == [115, 14] and state.player == 0


# -- cards without replacement, called once per player ---------------------------------------------------------
def test_cards_drawn_without_replacement_have_exact_probabilities(write):
    state = rulesdsl.load_game(write(CARDS)).new_initial_state()
    assert state.step == "draw_cards"
    # by hand, 2 of A A K Q: {A A} 1 pair of 6, {A K} 2, {A Q} 2, {K Q} 1
    assert probabilities(state) == pytest.approx({"p0 draws A A": 1 / 6, "p0 draws A K": 2 / 6,
                                                   "p0 draws A Q": 2 / 6, "p0 draws K Q": 1 / 6})


def test_draws_called_in_a_loop_come_in_order_with_their_own_inputs(write):
    state = rulesdsl.load_game(write(CARDS)).new_initial_state()
    assert state.vars[0] == -1  # the effects after the calls ran before the draws
    state.apply("p0 draws K A")
    assert state.step == "draw_cards" and state.history_texts() == ["p0 draws A K"]
    # the second call sees the deck the first left: A and Q
    assert probabilities(state) == pytest.approx({"p1 draws A Q": 1.0})
    state.apply("p1 draws A Q")
    # then the automatic step's own next, worked out after both draws
    assert state.step == "play" and state.vars[0] == 2
    hands = [[c.rank for c in hand] for hand in state.zones[1]]
    assert sorted(hands[0]) == ["A", "K"] and sorted(hands[1]) == ["A", "Q"] and state.zones[0] == []


def test_a_card_that_is_not_left_is_refused(write):
    state = rulesdsl.load_game(write(CARDS)).new_initial_state()
    with pytest.raises(IllegalMove, match="only 1 of 'K' can be drawn here, not 2"):
        state.apply("p0 draws K K")
    with pytest.raises(IllegalMove, match="the outcome here reads 'p0 draws A A'"):
        state.apply("p1 draws A A")


def test_a_drawn_card_is_seen_by_the_drawer_only(write):
    state = rulesdsl.load_game(write(CARDS)).new_initial_state()
    state.apply("p0 draws A K")
    assert state.observation(0)["history"] == ["p0 draws A K"]
    assert state.observation(1)["history"] == ["(hidden)"]


def test_a_state_waiting_for_a_called_draw_is_saved_and_read_back(write):
    game = rulesdsl.load_game(write(CARDS))
    state = game.new_initial_state()
    state.apply("p0 draws A A")
    saved = state.to_json()
    assert saved["calls"] == {"resume": {"goto": None, "step": "deal", "pass": False, "player": None},
                              "draws": [["draw_cards", [1, 2]]]}
    again = game.state_from_json(saved)
    assert again.to_json() == saved
    again.apply("p1 draws K Q")
    assert again.step == "play" and "calls" not in again.to_json()


def test_a_damaged_calls_entry_is_refused(write):
    game = rulesdsl.load_game(write(CARDS))
    saved = game.new_initial_state().to_json()
    saved["calls"]["draws"] = [["deal", []]]
    with pytest.raises(RulesError, match="is not a draw that chance\\(\\) asks for"):
        game.state_from_json(saved)


# -- where play goes after the draws ----------------------------------------------------------------------------
NESTED = """
game: Nested
players: {count: 1}
vars:
  log: {init: "[]"}
flow:
  steps:
    start:
      do: ["chance('coin', 'a')", "chance('coin', 'b')"]
      next: one
    coin:
      inputs: [tag]
      chance:
        outcomes:
          params: {side: "['heads', 'tails']"}
          notation: "{tag} {side}"
          do:
            - "log += [tag + ' ' + side]"
            - if: "tag == 'a' and side == 'heads'"
              then: ["chance('coin', 'a2')"]
            - if: "side == 'tails'"
              then: ["goto('two')"]
    one:
      moves: [stop]
    two:
      moves: [stop]
moves:
  stop:
    notation: stop
    do: ["log += ['stop']"]
end:
  - when: "size(log) > 0 and last(log) == 'stop'"
    winners: "[]"
"""


def test_a_draws_own_calls_come_before_those_waiting(write):
    state = rulesdsl.load_game(write(NESTED)).new_initial_state()
    assert probabilities(state) == {"a heads": 0.5, "a tails": 0.5}
    state.apply("a heads")
    state.apply("a2 heads")
    state.apply("b heads")
    assert state.vars[0] == ["a heads", "a2 heads", "b heads"] and state.step == "one"


def test_goto_in_a_called_draw_changes_where_play_resumes_after_the_other_draws(write):
    state = rulesdsl.load_game(write(NESTED)).new_initial_state()
    state.apply("a tails")
    assert state.step == "coin"  # 'b' is still to be drawn
    state.apply("b heads")
    assert state.step == "two"


# -- reproducible ------------------------------------------------------------------------------------------------
def test_a_seeded_game_is_the_same_game_and_its_log_replays(write, tmp_path, capsys):
    path = write(DICE)
    logs = []
    for k in range(2):
        log = tmp_path / f"game{k}.json"
        code, _, _ = run_cli(capsys, "play", path, "--seats", "random,random", "--seed", "5", "--log", str(log))
        assert code == 0
        logs.append(log.read_bytes())
    assert logs[0] == logs[1] and b"roll " in logs[0]
    assert run_cli(capsys, "replay", str(tmp_path / "game0.json"))[0] == 0


def test_sampling_follows_the_state_seed(write):
    game = rulesdsl.load_game(write(DICE))
    played = []
    for _ in range(2):
        state = game.new_initial_state(seed=9)
        while not state.is_terminal():
            state.apply(state.sample_chance() if state.is_chance_node() else state.legal_moves()[-1])
        played.append(state.history_texts())
    assert played[0] == played[1] and len(played[0]) > 4


# -- too many to list --------------------------------------------------------------------------------------------
BIG = """
game: Poker hands
players: {count: 1}
vars:
  hand: {init: "[]"}
flow:
  steps:
    deal:
      chance:
        draw: "5"
        from: "[str(r) + s for r in 1..13 for s in ['s', 'h', 'd', 'c']]"
        notation: "{outcome}"
        do: ["hand = outcome"]
      next: show
    show:
      moves: [fold]
moves:
  fold:
    notation: fold
    do: ["hand = []"]
end:
  - when: "size(hand) == 0 and turn > 0"
    winners: "[]"
"""


def test_a_draw_with_too_many_outcomes_is_sampled_and_named_but_not_listed(write):
    state = rulesdsl.load_game(write(BIG)).new_initial_state(seed=1)
    with pytest.raises(GameRuntimeError) as caught:
        state.chance_outcomes()
    assert "2,598,960 outcomes, more than the 20,000 that can be listed" in str(caught.value)
    assert re.search(r"game\.yaml:\d+:\d+", str(caught.value)) and "sample_chance" in caught.value.hint
    drawn = state.sample_chance()
    assert len(drawn.args[-1]) == 5 and len(set(drawn.args[-1])) == 5
    state.apply("13c 1s 2h 1d 7c")
    assert state.vars[0] == ["1s", "1d", "2h", "7c", "13c"] and state.step == "show"


@pytest.mark.parametrize("count, message", [
    ("10 ** 9", "the number of items drawn should be a whole number from 0 to 10,000, not 1000000000"),
    ("53", "cannot draw 53 items from 52"),
])
def test_a_draw_of_too_many_items_is_a_located_error(write, count, message):
    state = rulesdsl.load_game(write(BIG.replace('draw: "5"', f'draw: "{count}"'))).new_initial_state()
    with pytest.raises(GameRuntimeError) as caught:
        state.sample_chance()
    assert message in str(caught.value) and "rule 'deal'" in str(caught.value)


def test_endless_calls_are_stopped(write):
    text = DICE.replace("""do: ["chance('roll', n)"]""", """do:
      - for: "i in 1..100000"
        do: ["chance('roll', n)"]""")
    state = rulesdsl.load_game(write(text)).new_initial_state()
    with pytest.raises(GameRuntimeError, match="more than 10,000 draws asked for at once"):
        state.apply("throw 1")


# -- the counting, checked against every ordered draw -----------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 3), min_size=1, max_size=4), st.integers(0, 4), st.booleans())
def test_probabilities_match_counting_every_ordered_draw(counts, n, replace):
    items = [k for k, a in enumerate(counts) for _ in range(a)]
    if not replace and n > len(items):
        return
    expected: Counter = Counter()
    if replace:
        orders = list(product(range(len(items)), repeat=n))
    else:
        orders = [o for o in product(range(len(items)), repeat=n) if len(set(o)) == n]
    for order in orders:
        expected[tuple(sorted(items[i] for i in order))] += 1
    pool = DrawPool(items, n, replace)
    found = dict(pool.outcomes())
    assert set(found) == set(expected)
    for outcome, ways in expected.items():
        assert found[outcome] == pytest.approx(float(Fraction(ways, len(orders))))


# -- located errors at load time ---------------------------------------------------------------------------------
@pytest.mark.parametrize("old, new, message", [
    ("chance('roll', n)", "chance('rol', n)", "no step 'rol' (did you mean 'roll'?)"),
    ("chance('roll', n)", "chance('roll')", "step 'roll' takes 1 input (n), not 0"),
    ("chance('roll', n)", "chance('bonus', n)", "step 'bonus' is not a chance step"),
    ("- to: end_turn", "- to: roll", "step 'roll' takes inputs (n), so play cannot simply go there"),
    ("      do: [\"total[player] += 100\"]", "      inputs: [x]\n      do: [\"total[player] += 100\"]",
     "only a chance step takes inputs"),
    ("replace: true", "replace: true\n        notation: roll", "a draw's notation shows the items drawn as {outcome}"),
    ("replace: true", "replace: yes please", "replace should be true or false"),
    ('from: "1..6"', "", "a draw needs 'from:'"),
])
def test_misuse_is_reported_where_it_is(write, old, new, message):
    assert old in DICE
    with pytest.raises(RulesError) as caught:
        rulesdsl.load_game(write(DICE.replace(old, new)))
    assert message in str(caught.value)
    assert re.search(r"game\.yaml:\d+:\d+: error: ", str(caught.value))


def test_a_step_worked_out_in_play_is_checked_when_called(write):
    text = DICE.replace("chance('roll', n)", "chance(['roll', 'bonus'][n - 1], n)")
    state = rulesdsl.load_game(write(text)).new_initial_state()
    with pytest.raises(GameRuntimeError, match="chance\\(\\): no chance step 'bonus'"):
        state.apply("throw 2")
    state.apply("throw 1")
    assert state.step == "roll"


# -- the tutorial's dice game ------------------------------------------------------------------------------------
SIXES = ROOT / "examples" / "tutorial" / "sixes.yaml"


def test_the_tutorial_builds_its_dice_game_from_the_file_it_names():
    tutorial = (ROOT / "docs" / "tutorial.md").read_text(encoding="utf-8")
    second = tutorial.split("# Part 2", 1)[1]
    blocks = re.findall(r"```yaml\n(.*?)```", second, re.S)
    text = SIXES.read_text(encoding="utf-8")
    assert len(blocks) >= 4
    for block in blocks:
        assert block in text, block


def test_sixes_rolls_the_dice_not_set_aside_and_a_roll_without_a_six_loses_them():
    state = rulesdsl.load_game(str(SIXES)).new_initial_state()
    assert [str(m) for m in state.legal_moves()] == ["roll"]
    state.apply("roll")
    assert len(state.chance_outcomes()) == 252  # multisets of 5 dice: C(10, 5)
    state.apply("dice 6 2 6 3 1")
    assert state.player == 0 and [str(m) for m in state.legal_moves()] == ["roll", "bank"]
    state.apply("roll")
    assert probabilities(state)["dice 6 6 6"] == pytest.approx(1 / 216)
    state.apply("dice 1 2 3")  # no six: the two set aside are lost and the turn ends
    assert state.player == 1 and state.vars[:2] == [[0, 0], 0]
    state.apply("roll")
    state.apply("dice 6 6 6 6 6")  # all five: banked at once
    assert state.player == 0 and state.vars[0] == [0, 5]
