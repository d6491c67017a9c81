"""Chance weights, simultaneous secret choices, hidden zones and views, shown on a small auction game."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import rulesdsl
from rulesdsl import SIMULTANEOUS, MoveError

from .helpers import ROOT, SEALED, revealed



@pytest.fixture
def game():
    return rulesdsl.load_game(SEALED)


def test_chance_outcomes_follow_the_weights(game):
    state = game.new_initial_state()
    outcomes = {str(m): p for m, p in state.chance_outcomes()}
    assert outcomes == {f"prize {v}": pytest.approx(1 / 6) for v in range(1, 7)}
    state.apply("prize 6")
    for p in range(3):
        state.apply("bid 0", p)
    outcomes = {str(m): p for m, p in state.chance_outcomes()}
    assert outcomes["prize 6"] == pytest.approx(1 / 11) and outcomes["prize 1"] == pytest.approx(2 / 11)


def test_all_players_choose_at_once(game):
    state = revealed(game)
    assert state.current_player() == SIMULTANEOUS
    assert state.acting_players() == [0, 1, 2]
    assert len(state.legal_moves(1)) == 21  # bid 0 .. bid 20
    state.apply("bid 5", 1)
    assert state.acting_players() == [0, 2]
    assert state.legal_moves(1) == []


def test_pending_bids_are_secret(game):
    state = revealed(game)
    state.apply("bid 7", 0)
    mine, theirs = state.observation(0), state.observation(1)
    assert mine["pending"] == {"0": "bid 7"}
    assert theirs["pending"] == {"0": "chosen"}
    assert "bid 7" not in json.dumps(theirs)
    assert theirs["history"][-1] == "(secret choice)"


def test_bids_are_revealed_together_and_the_highest_wins(game):
    state = revealed(game, "prize 5")
    for p, amount in enumerate([3, 9, 4]):
        state.apply(f"bid {amount}", p)
    data = state.to_json()
    assert data["vars"]["coins"] == [20, 11, 20]
    assert data["zones"]["won"][1] == [{"piece": {"kind": "prize", "value": 5}}]
    assert "bid 9" in state.observation(0)["history"]  # revealed once everybody chose


def test_choices_are_shown_once_the_step_resolves_unless_visible_to_keeps_them_secret(game, tmp_path):
    text = Path(SEALED).read_text()
    shown_to_all = "    visible_to: all  # the choices are opened together once all have chosen\n"
    assert shown_to_all in text
    (tmp_path / "secret.yaml").write_text(text.replace(shown_to_all, '    visible_to: "me"\n'))
    secret = rulesdsl.load_game(str(tmp_path / "secret.yaml"))
    (tmp_path / "silent.yaml").write_text(text.replace(shown_to_all, ""))
    silent = rulesdsl.load_game(str(tmp_path / "silent.yaml"))
    # saying nothing of who sees a choice is warned about, at the step; saying `all` or who sees it is not
    assert [w.code for w in silent.rules.warnings] == ["choices_revealed"]
    assert not game.rules.warnings and not secret.rules.warnings
    for bids, shown in ((game, True), (silent, True), (secret, False)):
        state = revealed(bids, "prize 5")
        for p, amount in enumerate([3, 9, 4]):
            state.apply(f"bid {amount}", p)
        history = state.observation(0)["history"]
        assert "bid 3" in history and ("bid 9" in history) is shown, history  # one's own bid is always seen
        assert state.to_json()["vars"]["coins"] == [20, 11, 20]  # the same auction either way
    # validate's summary line says which
    assert "simultaneous moves (choices revealed when all have chosen)" in game.summary()
    assert "simultaneous moves (choices kept secret by visible_to)" in secret.summary()


def test_ties_go_to_the_leader_then_clockwise(game):
    state = revealed(game)  # player 0 leads the first round
    for p, amount in enumerate([2, 6, 6]):
        state.apply(f"bid {amount}", p)
    assert state.to_json()["vars"]["coins"] == [20, 14, 20]  # 1 is the first tied player after 0
    state.apply("prize 2")  # round 2: player 1 leads
    for p, amount in enumerate([4, 4, 4]):
        state.apply(f"bid {amount}", p)
    assert state.to_json()["vars"]["coins"] == [20, 10, 20]


def test_nobody_bidding_discards_the_prize(game):
    state = revealed(game)
    for p in range(3):
        state.apply("bid 0", p)
    data = state.to_json()
    assert data["zones"]["offer"] == [] and data["zones"]["won"] == [[], [], []]
    assert len(data["zones"]["deck"]) == 11


def test_overbidding_is_illegal_with_the_reason(game):
    state = revealed(game)
    with pytest.raises(MoveError) as info:
        state.apply("bid 25", 0)
    assert info.value.kind == "illegal" and "more coins than you have" in info.value.reason


def test_hidden_zones_show_only_counts(game):
    state = revealed(game, "prize 3")
    for p, amount in enumerate([1, 0, 0]):
        state.apply(f"bid {amount}", p)
    view = state.observation(1)
    assert view["zones"]["deck"] == {"hidden": 11}
    assert view["zones"]["won"][0] == {"hidden": 1} and view["zones"]["won"][1] == []
    assert state.observation(0)["zones"]["won"][0] == [{"piece": {"kind": "prize", "value": 3}}]


def test_the_player_count_is_an_option():
    game = rulesdsl.load_game(SEALED, options={"players": "4", "coins": "5"})
    state = game.new_initial_state()
    state.apply("prize 1")
    assert state.acting_players() == [0, 1, 2, 3] and len(state.legal_moves(3)) == 6


def test_a_game_whose_only_secret_is_a_draw_seen_by_one_seat_has_hidden_information():
    # no zone or variable is hidden: the secret is the draw's outcome, shown only to whom `visible_to` names
    secret = rulesdsl.load_game(str(ROOT / "tests" / "compiled_games" / "secret-draw.yaml"), backend="python")
    assert all(h.visible == "all" for h in secret.rules.zones + secret.rules.vars)
    assert secret.rules.has_hidden_information and "hidden information" in secret.rules.summary()
