"""Marble Chase: the shot model (weights, re-shots, a chi-square test of sampling), the turn, every
scoring rule in the spec's notation (cubes, the 20 cap, black, white, zero-point marbles), teams and match."""

from __future__ import annotations

import math
from functools import lru_cache

import pytest

import rulesdsl
from rulesdsl import CHANCE, MoveError

from .helpers import game_path, notations, position

COLOURS = ["yellow", "red", "blue", "green"]


@lru_cache(maxsize=None)
def game(**options):
    return rulesdsl.load_game(game_path("marble-chase"), options={k: str(v) for k, v in options.items()})


def marble(n, mod=0):
    return {"kind": "marble", "n": n, "mod": mod}


def totals(*sides):
    """The saved form of the totals of each side, given as (yellow, red, blue, green)."""
    return [{"table": [[c, v] for c, v in zip(COLOURS, t)]} for t in sides]


def side_totals(state, side):
    return dict(state.to_json()["vars"]["totals"][side]["table"])


def scoring(g, marbles: dict, sides, player=0, cubes=None, **more):
    """A position at the end-of-turn scoring step: marbles {cell: (n, mod)} and each side's totals."""
    cells = {c: marble(*m) for c, m in marbles.items()}
    vars = {"totals": totals(*sides), "free_shot": False, **more}
    if cubes is not None:
        vars["cubes"] = cubes
    return position(g, cells, "scoring", player, vars=vars)


def aiming(g, die=3, player=0, shot_no=0, free_turn=False, cells=None):
    return position(g, cells or {}, "aim", player,
                    vars={"die": die, "shot_no": shot_no, "free_turn": free_turn, "free_shot": False})


def shooting(g, column, line, player=0, shot_no=1, cells=None, **more):
    vars = {"aim_col": column, "aim_line": line, "shot_no": shot_no, "free_shot": False, "die": column, **more}
    return position(g, cells or {}, "shot", player, vars=vars)


def outcomes(state):
    return {str(m): p for m, p in state.chance_outcomes()}


# -- the shot model ---------------------------------------------------------------------------

def test_outcome_weights_follow_the_table_from_the_middle():
    probs = outcomes(shooting(game(), 3, "front"))
    inside = 1 - 0.05 - 0.10
    expected = {f"slot c{x} {d}": inside * drift * depth
                for x, drift in zip((2, 3, 4), (0.15, 0.70, 0.15))
                for d, depth in zip(("near", "middle", "far"), (0.50, 0.35, 0.15))}
    expected.update({"no-slot": 0.10, "out": 0.05})
    assert probs == pytest.approx(expected)


def test_drift_off_the_board_is_out_and_an_occupied_slot_is_no_slot():
    state = shooting(game(), 6, "back", cells={"c5-far": marble(1), "c6-near": marble(2)})
    probs = outcomes(state)
    inside = 1 - 0.10 - 0.10
    assert probs["out"] == pytest.approx(0.10 + inside * 0.25)  # drift +1 leaves the board
    assert probs["no-slot"] == pytest.approx(0.10 + inside * 0.25 * 0.25 + inside * 0.50 * 0.40)
    assert "slot c5 far" not in probs and "slot c6 near" not in probs  # occupied: weight 0
    assert probs["slot c6 far"] == pytest.approx(inside * 0.50 * 0.25)
    assert probs["slot c5 near"] == pytest.approx(inside * 0.25 * 0.40)
    assert len(probs) == 6 and sum(probs.values()) == pytest.approx(1)


def test_each_seat_uses_its_own_skill_table():
    g = game(skills="standard,expert")
    standard, expert = outcomes(shooting(g, 2, "back", player=0)), outcomes(shooting(g, 2, "back", player=1))
    assert standard["slot c2 far"] == pytest.approx(0.8 * 0.50 * 0.25)
    assert expert["slot c2 far"] == pytest.approx(0.8 * 0.75 * 0.25)
    assert expert["slot c1 near"] == pytest.approx(0.8 * 0.125 * 0.40)
    assert expert["out"] == pytest.approx(0.10)


def test_an_overlay_can_add_a_skill_table(tmp_path):
    overlay = tmp_path / "novice.yaml"
    overlay.write_text(f"extends: {game_path('marble-chase')}\n"
                       "data:\n  shot_tables:\n    novice:\n"
                       "      front: {out: 0.2, miss: 0.2, drift: [0.3, 0.4, 0.3], depth: [0.6, 0.3, 0.1]}\n"
                       "      back: {out: 0.3, miss: 0.2, drift: [0.3, 0.4, 0.3], depth: [0.5, 0.3, 0.2]}\n")
    g = rulesdsl.load_game(str(overlay), options={"skills": "expert,novice"})
    probs = outcomes(shooting(g, 4, "front", player=1))
    assert probs["slot c4 near"] == pytest.approx(0.6 * 0.4 * 0.6) and probs["out"] == pytest.approx(0.2)
    with pytest.raises(rulesdsl.RulesError, match="unknown shot table in skills=pro"):
        rulesdsl.load_game(str(overlay), options={"skills": "pro"})


def chi_square_critical(df, z=3.719):
    """Wilson-Hilferty approximation of the chi-square quantile (z = 3.719: p = 0.0001)."""
    k = 2 / (9 * df)
    return df * (1 - k + z * math.sqrt(k)) ** 3


def test_sampled_shots_follow_the_declared_table():
    state = shooting(game(), 1, "back", cells={"c2-middle": marble(1)}, shot_no=2)
    declared = state.chance_outcomes()
    expected = {str(m): p for m, p in declared}
    assert len(expected) == 7  # c1 and c2 slots (one occupied), no-slot, out
    rng = rulesdsl.Rng(20240611)
    n = 20_000
    seen = dict.fromkeys(expected, 0)
    for _ in range(n):
        seen[str(state.sample_chance(rng))] += 1
    chi2 = sum((seen[k] - n * p) ** 2 / (n * p) for k, p in expected.items())
    assert chi2 < chi_square_critical(len(expected) - 1), (chi2, seen)
    assert expected["out"] == pytest.approx(0.10 + 0.8 * 0.25)


# -- re-shots ---------------------------------------------------------------------------------

def test_no_slot_is_shot_again_until_ten_re_shots_then_the_marble_is_lost():
    state = shooting(game(), 3, "front", shot_no=2, cells={"c1-far": marble(1)})
    for k in range(10):
        state.apply("no-slot")
        assert state.step == "shot" and state.current_player() == CHANCE  # automatic, same aim
        assert state.to_json()["vars"]["reshots"] == k + 1
    assert state.to_json()["vars"]["aim_col"] == 3
    state.apply("no-slot")  # the 11th shot fails: lost
    data = state.to_json()
    assert data["vars"]["lost"] == [2] and state.step == "aim" and data["cells"] == {"c1-far": marble(1)}


def test_out_is_shot_again_once():
    state = shooting(game(), 2, "back", shot_no=1)
    state.apply("out")
    assert state.step == "shot"
    state.apply("no-slot")
    state.apply("no-slot")
    assert state.step == "shot"
    state.apply("out")  # the second out loses the marble
    assert state.to_json()["vars"]["lost"] == [1] and state.step == "aim"


def test_a_re_shot_after_an_out_can_land():
    state = shooting(game(), 2, "back", shot_no=3, aim_mod=1)
    state.apply("out")
    state.apply("slot c1 middle")
    assert state.to_json()["cells"] == {"c1-middle": marble(3, 1)}
    assert state.step == "scoring"


def test_the_tenth_re_shot_may_still_land():
    state = shooting(game(), 5, "front", shot_no=1)
    for _ in range(10):
        state.apply("no-slot")
    state.apply("slot c5 far")
    assert state.to_json()["cells"] == {"c5-far": marble(1)} and state.step == "aim"


def test_a_turn_whose_marbles_are_all_lost_scores_nothing():
    state = shooting(game(), 4, "front", shot_no=3, outs=1)
    state.apply("out")
    assert state.current_player() == CHANCE and state.step == "roll" and state.player == 1


# -- the turn ---------------------------------------------------------------------------------

def test_the_first_player_is_drawn_and_takes_one_free_shot():
    g = game()
    state = g.new_initial_state()
    assert outcomes(state) == {"first p0": 0.5, "first p1": 0.5}
    state.apply("first p1")
    assert state.current_player() == 1 and state.step == "aim"  # no die roll
    assert len(state.legal_moves()) == 12 and "shoot c5 back" in notations(state.legal_moves())
    state.apply("shoot c5 front")
    assert state.to_json()["vars"]["aim_mod"] == 0  # no -1 on the free shot
    state.apply("slot c5 far")
    assert state.step == "scoring"  # a single shot
    assert notations(state.legal_moves()) == ["score 1 green", "skip 1"]
    state.apply("score 1 green")
    assert side_totals(state, 1)["green"] == 5
    assert state.current_player() == CHANCE and state.step == "roll" and state.player == 0
    assert outcomes(state) == pytest.approx({f"d6={n}": 1 / 6 for n in range(1, 7)})


def test_the_free_shot_from_the_back_line_gets_plus_one():
    state = game().new_initial_state()
    state.apply("first p0")
    state.apply("shoot c2 back")
    state.apply("slot c3 near")
    assert state.to_json()["cells"] == {"c3-near": marble(1, 1)}
    state.apply("score 1 red")
    assert side_totals(state, 0)["red"] == 2


def test_a_normal_turn_rolls_then_shoots_three_times():
    state = game().new_initial_state()
    for move in ["first p0", "shoot c1 front", "out", "out"]:
        state.apply(move)
    assert state.player == 1 and state.step == "roll"
    state.apply("d6=4")
    for k, (aim, result) in enumerate([("shoot c4 front", "slot c4 far"), ("shoot c2 back", "slot c2 middle"),
                                       ("shoot c4 back", "slot c5 near")], 1):
        assert state.step == "aim" and state.current_player() == 1
        state.apply(aim)
        state.apply(result)
    cells = state.to_json()["cells"]
    assert cells == {"c4-far": marble(1, 0), "c2-middle": marble(2, 0), "c5-near": marble(3, 1)}
    assert state.step == "scoring"


@pytest.mark.parametrize("aim, mod", [("shoot c3 front", 0), ("shoot c3 back", 1), ("shoot c5 front", -1),
                                      ("shoot c1 back", 0)])
def test_modifiers_off_the_rolled_column_and_from_the_back_line(aim, mod):
    state = aiming(game(), die=3)
    state.apply(aim)
    assert state.to_json()["vars"]["aim_mod"] == mod
    state.apply(state.chance_outcomes()[0][0])
    assert list(state.to_json()["cells"].values()) == [marble(1, mod)]


def test_the_board_is_empty_at_the_start_of_every_turn():
    state = scoring(game(), {"c2-far": (1, 0), "c3-near": (2, -1), "c4-middle": (3, 1)}, [(0,) * 4] * 2)
    state.apply("skip 2")
    state.apply("score 3 blue")
    state.apply("skip 1")
    assert state.to_json()["cells"] == {} and state.step == "roll" and state.player == 1


# -- scoring ----------------------------------------------------------------------------------

def test_a_coloured_slot_scores_in_its_colour_and_marbles_go_in_any_order():
    state = scoring(game(), {"c3-middle": (1, 0), "c2-far": (2, 1), "c5-near": (3, -1)}, [(0,) * 4] * 2)
    assert notations(state.legal_moves()) == ["score 1 red", "score 2 yellow", "score 3 green",
                                              "skip 1", "skip 2", "skip 3"]
    state.apply("score 2 yellow")  # 5 + 1
    state.apply("score 3 green")   # 1 - 1 = 0 points: may still be used
    assert notations(state.legal_moves()) == ["score 1 red", "skip 1"]
    state.apply("score 1 red")
    assert side_totals(state, 0) == {"yellow": 6, "red": 3, "blue": 0, "green": 0}


def test_a_white_slot_scores_in_a_chosen_colour():
    state = scoring(game(), {"c6-middle": (1, 0)}, [(0, 18, 20, 3), (0,) * 4])
    # red 18 + 3 > 20 and blue is full; yellow and green fit
    assert notations(state.legal_moves()) == ["score 1 green", "score 1 yellow", "skip 1"]
    state.apply("score 1 green")
    assert side_totals(state, 0)["green"] == 6


def test_no_total_above_20():
    state = scoring(game(), {"c4-far": (1, 0), "c4-near": (2, 0), "c4-middle": (3, -1)}, [(0, 0, 18, 0), (0,) * 4])
    assert notations(state.legal_moves()) == ["score 2 blue", "score 3 blue", "skip 1", "skip 2", "skip 3"]
    state.apply("score 3 blue")  # 2 points: 20 exactly
    assert notations(state.legal_moves()) == ["skip 1", "skip 2"]
    with pytest.raises(MoveError) as info:
        state.apply("score 2 blue", 0)
    assert info.value.kind == "illegal" and "above 20" in info.value.reason


@pytest.mark.parametrize("cubes, legal", [
    # totals 4/4/3/0 use 11 cubes: +1 green needs 12; +1 red makes red 5 (1 cube): 8
    (12, ["score 1 red", "score 2 green", "skip 1", "skip 2"]),
    (11, ["score 1 red", "skip 1", "skip 2"]),  # 11 cubes after winning a game of a match
])
def test_the_cube_rule(cubes, legal):
    state = scoring(game(), {"c3-near": (1, 0), "c5-near": (2, 0)}, [(4, 4, 3, 0), (0,) * 4], cubes=[cubes, 12])
    assert notations(state.legal_moves()) == legal
    if cubes == 11:
        with pytest.raises(MoveError) as info:
            state.apply("score 2 green", 0)
        assert "cubes" in info.value.reason


@pytest.mark.parametrize("cubes, legal", [
    (12, ["score 1 green", "score 1 red", "score 1 yellow", "score 2 red", "score 2 yellow", "skip 1", "skip 2"]),
    (10, ["score 1 green", "score 2 red", "score 2 yellow", "skip 1", "skip 2"]),
])
def test_cube_counting(cubes, legal):
    # 7 needs 3 cubes, 10 needs 1, 20 needs 1, 19 needs 5: 10 in all
    # white near (1 point): yellow 8 needs 4 (11 in all), red 11 needs 2 (11), blue over 20, green 20 needs 1 (6)
    # white far (5 points): yellow 12 needs 3 (10), red 15 needs 1 (10), blue and green over 20
    state = scoring(game(), {"c6-near": (1, 0), "c6-far": (2, 0)}, [(7, 10, 20, 19), (0,) * 4], cubes=[cubes, 12])
    assert notations(state.legal_moves()) == legal


def test_black_subtracts_from_an_opponent_below_20_holding_at_least_the_points():
    state = scoring(game(), {"c1-middle": (1, 0)}, [(0,) * 4, (2, 19, 20, 3)])
    assert notations(state.legal_moves()) == ["score 1 black 1 green", "score 1 black 1 red", "skip 1"]
    state.apply("score 1 black 1 red")
    assert side_totals(state, 1) == {"yellow": 2, "red": 16, "blue": 20, "green": 3}
    assert side_totals(state, 0) == dict.fromkeys(COLOURS, 0)


def test_black_must_leave_the_opponent_a_markable_result():
    # the opponent's 9/9/5/5 use all 12 cubes: 5 -> 4 would need 15; 9 -> 8 needs 11
    state = scoring(game(), {"c1-near": (1, 0), "c1-far": (2, 0)}, [(0,) * 4, (9, 9, 5, 5)])
    assert notations(state.legal_moves()) == [
        "score 1 black 1 red", "score 1 black 1 yellow",
        "score 2 black 1 blue", "score 2 black 1 green", "score 2 black 1 red", "score 2 black 1 yellow",
        "skip 1", "skip 2"]
    with pytest.raises(MoveError) as info:
        state.apply("score 1 black 1 blue", 0)
    assert info.value.kind == "illegal" and "opponent's cubes" in info.value.reason


@pytest.mark.parametrize("cubes, legal", [
    (12, ["score 1 black 1 blue", "score 1 black 1 red", "score 1 black 1 yellow", "skip 1"]),
    (11, ["score 1 black 1 blue", "score 1 black 1 red", "skip 1"]),
])
def test_black_counts_the_opponents_own_cubes(cubes, legal):
    # the opponent's 5/9/3/0 use 9 cubes; yellow 5 -> 4 needs 12, red 9 -> 8 needs 8, blue 3 -> 2 needs 8
    state = scoring(game(), {"c1-near": (1, 0)}, [(0,) * 4, (5, 9, 3, 0)], cubes=[12, cubes])
    assert notations(state.legal_moves()) == legal


def test_zero_point_marbles():
    # near slot off the rolled column: 0 points; usable even on a total of 20, and by black below 20
    state = scoring(game(), {"c3-near": (1, -1), "c1-near": (2, -1)}, [(0, 20, 0, 0), (0, 20, 0, 7)])
    assert notations(state.legal_moves()) == [
        "score 1 red", "score 2 black 1 blue", "score 2 black 1 green", "score 2 black 1 yellow",
        "skip 1", "skip 2"]
    before = state.to_json()["vars"]["totals"]
    state.apply("score 1 red")
    state.apply("score 2 black 1 green")
    assert state.to_json()["vars"]["totals"] == before


def test_black_marble_cannot_score_for_its_owner_and_colours_must_match():
    state = scoring(game(), {"c1-far": (1, 0), "c2-far": (2, 0)}, [(0,) * 4, (0,) * 4])
    assert notations(state.legal_moves()) == ["score 2 yellow", "skip 1", "skip 2"]  # nothing to take from
    for text, reason in [("score 1 red", "slot's colour"), ("score 2 red", "slot's colour"),
                         ("score 1 black 0 red", "opponent"), ("score 2 black 1 red", "black slot"),
                         ("score 1 black 1 red", "at least the marble's points")]:
        with pytest.raises(MoveError) as info:
            state.apply(text, 0)
        assert info.value.kind == "illegal" and reason in info.value.reason, (text, info.value.reason)


def test_with_three_players_black_may_target_either_opponent():
    g = game(players=3)
    state = scoring(g, {"c1-middle": (1, 0)}, [(5, 0, 0, 0), (0,) * 4, (0, 0, 4, 3)], player=1)
    assert notations(state.legal_moves()) == ["score 1 black 0 yellow", "score 1 black 2 blue",
                                              "score 1 black 2 green", "skip 1"]
    state.apply("score 1 black 2 blue")
    assert side_totals(state, 2) == {"yellow": 0, "red": 0, "blue": 1, "green": 3}


# -- the end, teams and match -----------------------------------------------------------------

def test_all_four_totals_at_20_win_at_once():
    state = scoring(game(), {"c5-middle": (1, 0), "c2-far": (2, 0)}, [(20, 20, 20, 17), (0,) * 4])
    state.apply("score 1 green")
    assert state.is_terminal() and state.winners == [0] and state.returns() == [1.0, -1.0]
    assert state.scores() == [80, 0]


def test_teams_share_totals_and_cubes_and_black_names_the_other_team():
    g = game(players=4, teams=True)
    state = scoring(g, {"c1-far": (1, 0), "c4-middle": (2, 0)}, [(0, 0, 4, 0), (10, 0, 0, 0)], player=2,
                    cubes=[12, 12])
    assert notations(state.legal_moves()) == ["score 1 black 1 yellow", "score 2 blue", "skip 1", "skip 2"]
    state.apply("score 2 blue")
    state.apply("score 1 black 1 yellow")
    data = state.to_json()["vars"]
    assert len(data["totals"]) == 2 and len(data["cubes"]) == 2
    assert side_totals(state, 0)["blue"] == 7 and side_totals(state, 1)["yellow"] == 5
    assert state.scores() == [7, 5, 7, 5]
    assert state.player == 3 and state.step == "roll"


def test_teams_share_cube_limits():
    g = game(players=4, teams=True)
    # the team's 4/4/4/0 use its 12 cubes: green +1 would need 13, yellow 4 -> 5 needs 9
    state = scoring(g, {"c5-near": (1, 0), "c2-near": (2, 0)}, [(4, 4, 4, 0), (0,) * 4], player=2)
    assert notations(state.legal_moves()) == ["score 2 yellow", "skip 1", "skip 2"]


def test_a_team_wins_together():
    g = game(players=4, teams=True)
    state = scoring(g, {"c3-far": (1, 0)}, [(0,) * 4, (20, 15, 20, 20)], player=3)
    state.apply("score 1 red")
    assert state.is_terminal() and state.winners == [1, 3]


def test_teams_need_four_players():
    with pytest.raises(rulesdsl.RulesError, match="needs 4 players"):
        game(players=3, teams=True)


def test_a_match_game_won_starts_the_next_game():
    g = game(match=True)
    state = scoring(g, {"c5-far": (1, 0), "c3-near": (2, 0)}, [(20, 20, 20, 15), (3, 4, 0, 0)], player=0,
                    starter=0)
    state.apply("score 1 green")
    assert not state.is_terminal()
    data = state.to_json()["vars"]
    assert data["wins"] == [1, 0] and data["cubes"] == [11, 12] and data["starter"] == 1
    assert side_totals(state, 0) == side_totals(state, 1) == dict.fromkeys(COLOURS, 0)
    assert state.to_json()["cells"] == {}  # the rest of the turn is not scored
    assert state.player == 1 and state.step == "aim" and state.to_json()["vars"]["free_turn"]  # a free shot
    assert state.scores() == [1, 0]


def test_the_second_game_won_wins_the_match():
    g = game(match=True)
    state = scoring(g, {"c5-far": (1, 0), "c3-near": (2, 0)}, [(20, 20, 20, 15), (3, 4, 0, 0)], player=0,
                    wins=[1, 1], cubes=[11, 11])
    state.apply("score 1 green")
    assert state.is_terminal() and state.winners == [0] and state.scores() == [2, 1]


def test_the_match_won_by_the_last_marble_of_a_turn_ends_before_the_turn_passes():
    g = game(match=True)
    vars = {"totals": totals((20, 20, 20, 15), (3, 4, 0, 0)), "free_shot": False, "wins": [1, 0], "cubes": [11, 12]}
    state = position(g, {"c5-far": marble(1, 0)}, "scoring", 0, vars=vars, turn=7)
    state.apply("score 1 green")  # the turn's only marble: the turn would pass now
    assert state.is_terminal() and state.winners == [0]
    assert state.player == 0 and state.turn == 7  # the winner's own turn, not the next seat's


def test_random_games_end():
    for options in ({}, {"players": 4, "teams": True, "match": True}, {"skills": "expert,standard"}):
        g = game(**options)
        for seed in range(2):
            state = g.new_initial_state(seed)
            rng = rulesdsl.Rng(seed)
            while not state.is_terminal():
                if state.is_chance_node():
                    state.apply(state.sample_chance(rng))
                else:
                    legal = state.legal_moves()
                    state.apply(legal[rng.below(len(legal))])
            assert state.winners and not state.capped
