"""Mabula as specified: scenarios from the rules, scoring, setup, perft and a cross-check with a direct implementation."""

from __future__ import annotations

import random

import pytest

import rulesdsl
from rulesdsl import MoveError
from rulesdsl.engine.perft import perft

from .helpers import load, notations, position
from .reference import mabula_direct as direct

ALT = "WBWBWBWBWBWBWBWBWBWBWBWB"


@pytest.fixture(scope="module")
def game():
    return load("mabula")


@pytest.fixture(scope="module")
def product_game():
    return load("mabula", variant="product")


def marbles(spec: str) -> dict:
    """'W:b1,c4 B:d5' -> cell JSON."""
    cells = {}
    for part in spec.split():
        colour, _, names = part.partition(":")
        for name in names.split(","):
            cells[name] = {"kind": "marble", "colour": "white" if colour == "W" else "black"}
    return cells


def at_setup(game, setup=ALT):
    state = game.new_initial_state()
    state.apply(setup)
    return state


# -- setup ---------------------------------------------------------------------------------------
def test_explicit_setup_places_marbles_in_ring_order(game):
    state = at_setup(game, "WWBBWWBBWWBBWWBBWWBBWWBB")
    cells = state.to_json()["cells"]
    assert cells["b1"]["colour"] == "white" and cells["d1"]["colour"] == "black"
    assert cells["a2"]["colour"] == "black" and cells["h2"]["colour"] == "black" and cells["h3"]["colour"] == "black"
    assert len(cells) == 24 and all(name not in cells for name in ("a1", "h8", "d4"))


def test_setup_option_is_the_same_as_naming_the_outcome(game):
    by_option = load("mabula", options={"setup": ALT}).new_initial_state()
    assert by_option.current_player() == 0
    assert by_option.to_json()["cells"] == at_setup(game).to_json()["cells"]


@pytest.mark.parametrize("bad, reason", [
    ("WWWBWBWBWBWBWBWBWBWBWBBB", "three"),  # three W at b1 c1 d1
    ("WBWBWBWBWBWBWBWBWBWBWBWW", "12x W"),
    ("WBWB", "24 items"),
    ("WBWBWBWBWBWBWBWBWBWBWBXB", "not one of"),
])
def test_bad_setups_are_rejected_with_the_reason(game, bad, reason):
    with pytest.raises(MoveError) as info:
        at_setup(game, bad)
    assert reason in str(info.value)


def test_wrapping_triple_is_rejected(game):
    # a3 a2 (last two) and b1 (first) are consecutive round the ring
    setup = "WW" + "BB" + "WB" * 9 + "B" + "W"
    assert setup.count("W") == 12 and len(setup) == 24
    with pytest.raises(MoveError, match="three consecutive"):
        at_setup(game, setup)


def test_random_setups_meet_the_constraint(game):
    for seed in range(300):
        state = game.new_initial_state(seed)
        text = str(state.sample_chance())
        assert text.count("W") == 12
        direct.parse_setup(text)  # raises if the constraint is broken


# -- moves ---------------------------------------------------------------------------------------
def test_opening_moves_from_the_alternating_setup(game):
    state = at_setup(game)
    moves = notations(state.legal_moves())
    assert len(moves) == 72  # 12 white marbles x 6 distances
    assert "b1-b7" in moves and "b1-b8" not in moves and "c1-c2" not in moves  # c1 is black


def test_push_of_a_run_moves_the_whole_run(game):
    state = position(game, marbles("W:b1,b3 B:b2,h4,c1"), "play", 0)
    assert notations(m for m in state.legal_moves() if str(m).startswith("b1")) == [
        "b1-b2", "b1-b3", "b1-b4", "b1-b5"]
    state.apply("b1-b3")
    cells = state.to_json()["cells"]
    assert cells["b3"]["colour"] == "white"  # the mover
    assert cells["b4"]["colour"] == "black" and cells["b5"]["colour"] == "white"  # the run, pushed on
    assert "b1" not in cells and "b2" not in cells


def test_push_stops_short_of_the_far_edge(game):
    # b7 holds a marble: pushing it onto b8 (an edge cell) is illegal, so b1 reaches b6 at most
    state = position(game, marbles("W:b1 B:b7,h5"), "play", 0)
    assert notations(state.legal_moves()) == ["b1-b2", "b1-b3", "b1-b4", "b1-b5", "b1-b6"]
    with pytest.raises(MoveError) as info:
        state.apply("b1-b7")
    assert info.value.kind == "illegal" and "edge" in info.value.reason


def test_marble_on_the_far_edge_is_never_pushed(game):
    # b8 stands on the far edge; b1 may run up to b7 (b8 is not touched), but not push b7 into b8
    state = position(game, marbles("W:b1,a4 B:b8,b4"), "play", 0)
    assert notations(m for m in state.legal_moves() if str(m).startswith("b1")) == [
        "b1-b2", "b1-b3", "b1-b4", "b1-b5", "b1-b6"]
    assert notations(m for m in state.legal_moves() if str(m).startswith("a4")) == [
        "a4-b4", "a4-c4", "a4-d4", "a4-e4", "a4-f4"]


def test_pushes_go_inward_from_every_edge(game):
    state = position(game, marbles("W:h3,e8,a6 B:c1"), "play", 0)
    moves = notations(state.legal_moves())
    assert "h3-g3" in moves and "h3-b3" in moves and "h3-a3" not in moves
    assert "e8-e7" in moves and "e8-e2" in moves
    assert "a6-b6" in moves and "a6-g6" in moves


def test_moved_marbles_never_move_by_themselves(game):
    state = position(game, marbles("W:b1,d4 B:c1"), "play", 0)
    assert all(not str(m).startswith("d4") for m in state.legal_moves())


def test_forced_pass_when_only_the_opponent_can_move(game):
    # white's only edge marble faces a full column; black can still push
    full = ",".join(f"b{r}" for r in range(2, 8))
    state = position(game, marbles(f"W:b1,{full} B:c1"), "play", 0)
    assert notations(state.legal_moves()) == ["pass"]
    state.apply("pass")
    assert state.current_player() == 1 and not state.is_terminal()


def test_pass_is_illegal_while_a_push_exists(game):
    state = at_setup(game)
    with pytest.raises(MoveError) as info:
        state.apply("pass")
    assert info.value.kind == "illegal"


def test_malformed_move_is_reported_as_such(game):
    state = at_setup(game)
    with pytest.raises(MoveError) as info:
        state.apply("push b1")
    assert info.value.kind == "malformed" and "<from>-<to>" in info.value.reason


def test_game_ends_when_neither_player_can_move(game):
    # white's last push fills its line; black's only marble faces a full row: nobody can move, no closing pass
    column = ",".join(f"c{r}" for r in range(3, 8))
    row = ",".join(f"{c}5" for c in "bdefg")
    state = position(game, marbles(f"W:c1,{column} B:a5,{row}"), "play", 0)
    state.apply("c1-c2")
    assert state.is_terminal()
    assert state.legal_moves() == []


# -- scoring -------------------------------------------------------------------------------------
def _field_position(game, white: str, black: str):
    return position(game, marbles(f"W:{white} B:{black}"), "play", 0)


# White groups 6,3,2,1 and black groups 8,2,1,1: the rulebook's example (36 against 16).
WHITE_6321 = "b2,b3,b4,b5,b6,b7,d2,d3,d4,f2,f3,d7"
BLACK_8211 = "c2,c3,c4,c5,c6,c7,d5,d6,f5,f6,g2,e7"


def test_standard_score_is_the_largest_group(game):
    state = _field_position(game, WHITE_6321, BLACK_8211)
    assert state.scores() == [6, 8]
    assert state.is_terminal() and state.winners == [1]


def test_product_score_multiplies_the_group_sizes(product_game):
    state = _field_position(product_game, WHITE_6321, BLACK_8211)
    assert state.scores() == [36, 16]
    assert state.is_terminal() and state.winners == [0]


def test_tie_break_compares_group_sizes_in_order(game):
    # both largest groups are 5; white has 5,4,2,1 and black 5,3,3,1: white wins on the second group
    white = "b2,b3,b4,b5,b6,d2,d3,d4,d5,f2,f3,g7"
    black = "c2,c3,c4,c5,c6,e2,e3,e4,g2,g3,g4,e7"
    state = _field_position(game, white, black)
    assert state.scores() == [5, 5]
    assert state.winners == [0]


def test_equal_group_lists_draw(game):
    white = "b2,b3,b4,b5,b6,b7,d2,d3,d4,d5,d6,d7"
    black = "c2,c3,c4,c5,c6,c7,e2,e3,e4,e5,e6,e7"
    state = _field_position(game, white, black)
    assert state.is_terminal() and state.winners == [] and state.returns() == [0.0, 0.0]


def test_edge_marbles_count_in_groups(game):
    state = position(game, marbles("W:b1,b2,b3 B:c1"), "play", 0)
    assert state.scores()[0] == 3


def test_best_product_is_81(product_game):
    white = "b2,b3,b4,d2,d3,d4,f2,f3,f4,b6,b7,c7"
    black = "c2,c3,c4,e2,e3,e4,g2,g3,g4,d6,d7,e6"
    state = _field_position(product_game, white, black)
    assert state.scores()[0] == 81


# -- perft and cross-check -------------------------------------------------------------------------
def test_perft_of_the_specification(game):
    state = at_setup(game)
    assert [perft(state, d) for d in (1, 2)] == [72, 5040]


def test_perft_depth_3_of_the_specification(game):
    assert perft(at_setup(game), 3) == 318120


@pytest.mark.parametrize("seed", range(4))
def test_perft_agrees_with_the_direct_implementation(game, seed):
    setup = direct.random_setup(random.Random(seed))
    state = at_setup(game, setup)
    assert [perft(state, d) for d in (1, 2)] == [direct.perft(setup, d) for d in (1, 2)]


@pytest.mark.parametrize("seed", range(25))
def test_random_games_agree_with_the_direct_implementation(game, product_game, seed):
    rng = random.Random(seed)
    setup = direct.random_setup(rng)
    state = at_setup(game, setup)
    ref = direct.Mabula(setup)
    while not ref.is_terminal():
        assert not state.is_terminal()
        expected = sorted(direct.notation(m) for m in ref.legal_moves())
        assert notations(state.legal_moves()) == expected
        choice = rng.choice(expected)
        state.apply(choice)
        ref.apply(choice)
    assert state.is_terminal()
    winner = ref.winner()
    assert state.winners == ([] if winner is None else [winner])
    assert state.scores() == list(ref.scores())
    # the product variant scores the same final position
    replayed = at_setup(product_game, setup)
    for move in state.history[1:]:
        replayed.apply(str(move))
    assert replayed.scores() == list(ref.scores(product=True))
    p_winner = ref.winner(product=True)
    assert replayed.winners == ([] if p_winner is None else [p_winner])


def test_same_seed_same_game(game):
    from rulesdsl.agents import RandomAgent
    from rulesdsl.sim.runner import play_game

    a = play_game(game, [RandomAgent(), RandomAgent()], 12345)
    b = play_game(game, [RandomAgent(), RandomAgent()], 12345)
    c = play_game(game, [RandomAgent(), RandomAgent()], 12346)
    assert a.moves == b.moves and a.winners == b.winners
    assert a.moves != c.moves
    assert isinstance(rulesdsl.derive_seed(1, 2), int)
