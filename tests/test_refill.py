"""A draw that refills its pile (`refill:`): what is left is drawn, then the rest from the refill's pieces."""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction
from itertools import permutations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesdsl
from rulesdsl.engine.draws import DrawPool, RefillPool
from rulesdsl.engine.rng import SplitMix64
from rulesdsl.errors import GameRuntimeError, IllegalMove, RulesError

from .helpers import ROOT, run_cli

REFILL = ROOT / "tests" / "compiled_games" / "refill.yaml"


@pytest.fixture(scope="module")
def game():
    return rulesdsl.load_game(str(REFILL))


def short_of_one(game):
    """The state where the deck holds one card (Q) and the discards A A K J: the next draw refills it."""
    state = game.new_initial_state()
    for move in ["draw A A", "play A", "draw K J", "play K"]:
        state.apply(move)
    return state


def ranks(zone) -> list:
    return [c.rank for c in zone]


def test_what_is_left_is_drawn_first_then_the_refill_with_exact_probabilities(game):
    state = short_of_one(game)
    assert ranks(state.zones[0]) == ["Q"] and ranks(state.zones[1]) == ["A", "A", "K", "J"]
    # the Q for sure, then one of A A K J
    assert {str(m): p for m, p in state.chance_outcomes()} == pytest.approx(
        {"draw Q A": 1 / 2, "draw Q K": 1 / 4, "draw Q J": 1 / 4})
    state.apply("draw K Q")  # named in any order
    assert state.history_texts()[-1] == "draw Q K"
    # the discards went onto the deck, in their order, and the effects moved both cards drawn out of it
    assert ranks(state.zones[0]) == ["A", "A", "J"] and ranks(state.zones[1]) == []
    assert ranks(state.zones[2][0]) == ["Q", "K"]


def test_a_pile_that_holds_enough_is_drawn_from_alone(game):
    state = game.new_initial_state()
    state.apply("draw A A")
    state.apply("play A")
    assert len(state.chance_outcomes()) == 3 and ranks(state.zones[1]) == ["A", "A"]
    state.apply("draw K J")
    assert ranks(state.zones[0]) == ["Q"] and ranks(state.zones[1]) == ["A", "A"]


@pytest.mark.parametrize("text, reason", [
    ("draw K A", "the pile holds fewer items than are drawn, so all it holds is drawn: 1 of 'Q', not 0"),
    ("draw Q Q", "only 1 of 'Q' can be drawn here, not 2"),
])
def test_an_outcome_without_what_is_left_is_refused(game, text, reason):
    with pytest.raises(IllegalMove) as caught:
        short_of_one(game).apply(text)
    assert reason in caught.value.reason


def test_sampling_follows_the_exact_distribution(game):
    state = short_of_one(game)
    exact = {str(m): p for m, p in state.chance_outcomes()}
    rng, n = SplitMix64(11), 4000
    seen = Counter(str(state.sample_chance(rng)) for _ in range(n))
    assert set(seen) == set(exact)
    for outcome, p in exact.items():  # within five standard deviations of a binomial count
        assert abs(seen[outcome] - n * p) < 5 * (n * p * (1 - p)) ** 0.5, (outcome, seen[outcome], n * p)


def test_sampling_reads_the_stream_as_a_draw_from_the_refill_alone(game):
    state = short_of_one(game)
    a, b = SplitMix64(5), SplitMix64(5)
    drawn = state.sample_chance(a).args[-1]
    alone = DrawPool(list(state.zones[1]), 1, False).sample(b)  # one pick among A A K J, from the same stream
    assert [c.rank for c in drawn] == ["Q"] + [c.rank for c in alone]
    assert a.below(1000) == b.below(1000)  # and both read as many values of it


def test_a_seeded_game_replays_from_its_log(tmp_path, capsys):
    log = tmp_path / "game.json"
    code, _, _ = run_cli(capsys, "play", str(REFILL), "--seats", "random,random", "--seed", "4", "--log", str(log))
    assert code == 0 and '"draw": 9' in log.read_text()  # a draw in each of the nine turns (0 to 8), some refilled
    assert run_cli(capsys, "replay", str(log))[0] == 0


def test_a_state_saved_after_a_refill_is_read_back(game):
    state = short_of_one(game)
    state.apply("draw Q J")
    again = game.state_from_json(state.to_json())
    assert again.to_json() == state.to_json() and ranks(again.zones[0]) == ["A", "A", "K"]


# -- misuse ------------------------------------------------------------------------------------------------------
def rules_with(old, new) -> str:
    text = REFILL.read_text(encoding="utf-8")
    assert old in text
    return text.replace(old, new)


def test_fewer_items_in_both_than_the_draw_takes_is_a_located_error(write):
    state = rulesdsl.load_game(write(rules_with('draw: "2"', 'draw: "6"'))).new_initial_state()
    with pytest.raises(GameRuntimeError) as caught:
        state.chance_outcomes()
    assert "cannot draw 6 items from the 5 in the pile and the 0 of its refill" in str(caught.value)
    assert "rule 'draw'" in str(caught.value)


@pytest.mark.parametrize("refill, message", [
    ('"[]"', "the refill [] is not one of the zones the rule file declares"),
    ("deck", "a draw's refill is the very zone it draws from"),
])
def test_a_refill_that_is_no_other_zone_is_a_located_error(write, refill, message):
    state = rulesdsl.load_game(write(rules_with("refill: discard", f"refill: {refill}"))).new_initial_state()
    with pytest.raises(GameRuntimeError) as caught:
        state.chance_outcomes()
    assert message in str(caught.value) and "rule 'draw'" in str(caught.value)


def test_a_refill_with_replacement_is_refused_at_load(write):
    with pytest.raises(RulesError) as caught:
        rulesdsl.load_game(write(rules_with("refill: discard", "refill: discard\n        replace: true")))
    assert re.search(r"game\.yaml:\d+:\d+: error: a draw with replacement never runs out", str(caught.value))


def test_a_refill_on_a_step_that_draws_nothing_is_refused_at_load(write):
    text = (ROOT / "tests" / "compiled_games" / "reshuffle.yaml").read_text(encoding="utf-8")
    text = text.replace('arrangement: "[1, 2, 3, 4]"', 'arrangement: "[1, 2, 3, 4]"\n        refill: order')
    with pytest.raises(RulesError) as caught:
        rulesdsl.load_game(write(text))
    assert re.search(r"game\.yaml:\d+:\d+: error: only a draw refills its pile", str(caught.value))


def test_the_compiled_subset_and_backend_take_it(capsys):
    # (the compiled backend plays it move for move as the Python engine does: tests/test_compiled.py SUPPORTED)
    code, out, err = run_cli(capsys, "compile", str(REFILL), "--check")
    assert code == 0 and "6 of 6 rules compiled" in out and "refills its pile" not in out + err
    from rulesdsl.backends.compiled.build import takes
    assert takes(rulesdsl.load_game(str(REFILL), backend="python")) is None


# -- the counting, checked against every order of the refill's items --------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=3), st.lists(st.integers(0, 3), min_size=1, max_size=5),
       st.integers(1, 8))
def test_probabilities_match_counting_every_ordered_draw(pile, spare, n):
    if not len(pile) < n <= len(pile) + len(spare):
        return
    orders = list(permutations(range(len(spare)), n - len(pile)))
    expected = Counter(tuple(sorted(pile + [spare[i] for i in order])) for order in orders)
    pool = RefillPool(pile, spare, n)
    found = {tuple(sorted(outcome)): p for outcome, p in pool.outcomes()}
    assert len(found) == len(pool.outcomes()) and set(found) == set(expected)
    for outcome, ways in expected.items():
        assert found[outcome] == pytest.approx(float(Fraction(ways, len(orders))))
    for outcome, _ in pool.outcomes():  # each outcome reads back from its items, in any order
        assert pool.read([str(x) for x in reversed(outcome)]) == outcome
        assert pool.sample(SplitMix64(len(outcome))) in dict(pool.outcomes())
