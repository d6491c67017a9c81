"""Fast Track as specified (/work/shared/rules/fast-track.md): a scenario per movement rule and per row of the
card table, each checked through the exact set of legal decisions in the spec's notation on positions built
through the public JSON form; the turn flow, draws and views; seating, teams and option checks; and seeded
random games on both boards checked decision by decision against an independent reading of the spec."""

from __future__ import annotations

from collections import Counter

import pytest

from rulesdsl import CHANCE, TERMINAL, MoveError, Rng, RulesError

from .helpers import load, notations, position

RANKS = ["JK", "A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"]
DECK = [r for r in RANKS for _ in range(2 if r == "JK" else 4)]
PLAY_AGAIN = {"JK", "A", "K", "Q", "J", "6"}
DISTANCE = {"JK": 1, "A": 1, "K": 1, "Q": 1, "J": 1, "10": 10, "9": 9, "8": 8, "7": 7, "6": 6, "5": 5, "4": 4,
            "3": 3, "2": 2}
IDLE = ["8", "8", "2", "2", "3"]  # a hand for a player who is not to play
SIDE_COLOURS = ["red", "blue", "yellow", "green", "white", "purple"]

# Square board, by side p: pen exit m(14p+8), home entrance m(14p+6), Fast Track space nearest the pen
# m(14p+13), own Fast Track exit m(14p-1).
#   red    (side 0): pen exit m8,  home entrance m6,  corner m13, exit m55
#   blue   (side 1): pen exit m22, home entrance m20, corner m27, exit m13
#   yellow (side 2): pen exit m36, home entrance m34, corner m41, exit m27
#   green  (side 3): pen exit m50, home entrance m48, corner m55, exit m41


# -- games -----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def game():
    """Square board, 2 players: red (p1, seat 0) against yellow (p2, seat 1)."""
    return load("fast-track")


@pytest.fixture(scope="module")
def two_colours():
    """Square board, 2 players with 2 colours each: seat 0 runs red and yellow, seat 1 blue and green."""
    return load("fast-track", options={"players": "2", "colours_per_player": "2"})


@pytest.fixture(scope="module")
def pairs():
    """Square board, 4 players in pairs: seats 0 (red) and 2 (yellow) against 1 (blue) and 3 (green)."""
    return load("fast-track", options={"players": "4", "teams": "pairs"})


@pytest.fixture(scope="module")
def hex3x2():
    """Hexagonal board, 3 players with 2 colours each: red+green, blue+white, yellow+purple."""
    return load("fast-track", options={"board": "hex", "players": "3", "colours_per_player": "2"})


# -- positions -------------------------------------------------------------------------------------
def card(rank: str) -> dict:
    return {"piece": {"kind": "card", "rank": rank}}


def marble(colour: str, travelling: bool = False) -> dict:
    return {"kind": "marble", "colour": colour, "travelling": travelling}


def colours_in_play(game) -> list[str]:
    return [c for c, _ in game.new_initial_state().to_json()["zones"]["pen"]["table"]]


def ft_position(game, cells: dict, hand: list[str], player: int = 0, *, hands: dict | None = None,
                draw: dict | None = None, discard: dict | None = None):
    """`player` to play a card from `hand`. cells: {cell: colour} or {cell: (colour, travelling)}; every marble
    not on a cell is in its pen. Each player's draw pile is their deck less their hand and discard (or `draw`)."""
    pieces = {}
    for name, value in cells.items():
        colour, travelling = (value, False) if isinstance(value, str) else value
        pieces[name] = marble(colour, travelling)
    on_board = Counter(m["colour"] for m in pieces.values())
    pen = {"table": [[c, [{"piece": marble(c)}] * (4 - on_board[c])] for c in colours_in_play(game)]}
    n = game.num_players
    hand_of = {p: [] for p in range(n)} | dict(hands or {}) | {player: list(hand)}
    discard_of = {p: [] for p in range(n)} | dict(discard or {})
    draws = []
    for p in range(n):
        if draw is not None and p in draw:
            pile = list(draw[p])
        else:
            pile = list(DECK)
            for r in hand_of[p] + discard_of[p]:
                pile.remove(r)
        draws.append([card(r) for r in pile])
    zones = {"pen": pen, "draw": draws, "hand": [[card(r) for r in hand_of[p]] for p in range(n)],
             "discard": [[card(r) for r in discard_of[p]] for p in range(n)]}
    return position(game, pieces, "play", player, zones=zones,
                    vars={"last_card": None, "drawer": player, "after_draw": "end"})


def legal(state) -> list[str]:
    return notations(state.legal_moves())


def board(state) -> dict:
    """{cell: colour, or colour + '*' when travelling the Fast Track}."""
    return {n: m["colour"] + ("*" if m["travelling"] else "") for n, m in state.to_json()["cells"].items()}


def pens(state) -> dict:
    table = state.to_json()["zones"]["pen"]["table"]
    for colour, items in table:
        assert all(i["piece"] == marble(colour) for i in items)
    return {c: len(items) for c, items in table}


def ranks(state, zone: str, p: int) -> list[str]:
    return sorted(i["piece"]["rank"] for i in state.to_json()["zones"][zone][p])


def at_play(state, player: int) -> bool:
    d = state.to_json()
    return state.current_player() == player and d["step"] == "play" and d["player"] == player


def draw_cards(state, ranks_: list[str]):
    for r in ranks_:
        assert state.current_player() == CHANCE
        state.apply(f"draw {r}")


def assert_rejected(state, move: str):
    before = state.to_json()
    with pytest.raises(MoveError):
        state.apply(move)
    assert state.to_json() == before


# -- bringing marbles out ----------------------------------------------------------------------------
def test_joker_ace_and_six_bring_a_marble_out_onto_the_pen_exit(game):
    state = ft_position(game, {}, ["JK", "A", "6"])
    assert legal(state) == ["6 red-pen-m8", "A red-pen-m8", "JK red-pen-m8"]
    state.apply("6 red-pen-m8")
    assert board(state) == {"m8": "red"} and pens(state) == {"red": 3, "yellow": 4}


def test_the_other_cards_do_not_bring_out(game):
    state = ft_position(game, {}, ["K", "Q", "J", "10", "9", "8", "7", "5", "4", "3", "2"])
    assert legal(state) == sorted(f"{r} -" for r in ["K", "Q", "J", "10", "9", "8", "7", "5", "4", "3", "2"])


def test_an_own_marble_on_the_pen_exit_blocks_bringing_out(game):
    # the marble on m8 may move: A forward 1, 6 forward 6 or into the Bull's Eye (m13 after 5 steps)
    state = ft_position(game, {"m8": "red"}, ["A", "6"])
    assert legal(state) == ["6 m8-be", "6 m8-m14", "A m8-m9"]


def test_bringing_out_captures_another_colour_on_the_pen_exit(game):
    state = ft_position(game, {"m8": "yellow"}, ["A"])
    assert legal(state) == ["A red-pen-m8"]
    state.apply("A red-pen-m8")
    assert board(state) == {"m8": "red"} and pens(state) == {"red": 3, "yellow": 4}


def test_bringing_out_captures_own_other_colour(two_colours):
    # seat 0 runs red and yellow: a yellow marble on red's pen exit is sent back by bringing red out
    state = ft_position(two_colours, {"m8": "yellow"}, ["JK"])
    assert legal(state) == ["JK m8-m9", "JK red-pen-m8", "JK yellow-pen-m36"]
    state.apply("JK red-pen-m8")
    assert board(state) == {"m8": "red"} and pens(state)["yellow"] == 4


# -- forward moves and the home row ---------------------------------------------------------------------
def test_forward_moves_turn_into_the_home_row_at_the_home_entrance(game):
    state = ft_position(game, {"m3": "red"}, ["2", "3", "5"])
    assert legal(state) == ["2 m3-m5", "3 m3-m6", "5 m3-red-h2"]
    state.apply("5 m3-red-h2")
    assert board(state) == {"red-h2": "red"}


def test_no_colour_passes_its_own_home_entrance_but_others_do(game):
    state = ft_position(game, {"m6": "red", "red-h2": "red", "red-h3": "red", "red-h4": "red"}, ["A", "9"])
    # A: m6 into h1; 9 has no forward effect (m6 can reach h1 only) -> backward 9 from m6
    assert legal(state) == ["9 m6-m53", "A m6-red-h1"]
    state = ft_position(game, {"m5": "yellow"}, ["3"], player=1)
    assert legal(state) == ["3 m5-m8"]  # red's home entrance (m6) means nothing to yellow


def test_moving_inside_the_home_row_and_past_h4_is_impossible(game):
    state = ft_position(game, {"red-h1": "red"}, ["2", "3", "4", "5"])
    assert legal(state) == ["2 red-h1-red-h3", "3 red-h1-red-h4", "4 -", "5 -"]
    state.apply("2 red-h1-red-h3")
    assert board(state) == {"red-h3": "red"}


def test_a_move_that_would_go_past_h4_is_not_offered(game):
    # m3 + 8 would be h4 + 1; the 7 reaches h4 exactly
    state = ft_position(game, {"m3": "red"}, ["7", "8"])
    assert legal(state) == ["7 m3-red-h4", "8 m3-m51"]  # 8: backward fallback (m55 after 4 steps: no Bull's Eye)


def test_own_marble_in_the_home_row_blocks(game):
    state = ft_position(game, {"m5": "red", "red-h2": "red"}, ["3"])
    # m5 -> m6, h1, h2 (own): blocked; h2 -> h3, h4, (none): impossible; fallback: m5 backward 3
    assert legal(state) == ["3 m5-m2"]


# -- backward 4 ------------------------------------------------------------------------------------------
def test_four_moves_backward_passing_pen_exit_and_home_entrance(game):
    state = ft_position(game, {"m9": "red"}, ["4"])
    assert legal(state) == ["4 m9-m5"]  # past m8 (pen exit) and m6 (home entrance), never into the home row
    state = ft_position(game, {"m10": "red"}, ["4"])
    assert legal(state) == ["4 m10-m6"]
    state.apply("4 m10-m6")
    assert board(state) == {"m6": "red"}


def test_four_moves_only_backward(game):
    state = ft_position(game, {"m20": "red"}, ["4"])
    assert legal(state) == ["4 m20-m16"]


def test_four_wraps_round_the_track_and_may_enter_the_bulls_eye(game):
    state = ft_position(game, {"m2": "red"}, ["4"])
    assert legal(state) == ["4 m2-be", "4 m2-m54"]  # m55 is a Fast Track space after 3 steps


def test_marbles_in_home_row_pen_and_bulls_eye_never_move_backward(game):
    state = ft_position(game, {"red-h1": "red", "be": "red"}, ["4"])
    assert legal(state) == ["4 -"]


def test_four_backward_blocked_by_own_marble(game):
    state = ft_position(game, {"m20": "red", "m18": "red"}, ["4"])
    assert legal(state) == ["4 m18-m14"]


# -- the Fast Track ----------------------------------------------------------------------------------------
def test_a_marble_on_a_corner_chooses_main_track_or_fast_track(game):
    state = ft_position(game, {"m13": "red"}, ["2", "3"])
    assert legal(state) == ["2 m13-m15", "2 m13-m41", "3 m13-m16", "3 m13-m55"]
    state.apply("2 m13-m41")
    assert board(state) == {"m41": "red*"}
    state = ft_position(game, {"m13": "red"}, ["2"])
    state.apply("2 m13-m15")
    assert board(state) == {"m15": "red"}


def test_travelling_the_fast_track_across_turns_and_leaving_at_the_own_exit(game):
    state = ft_position(game, {"m13": "red"}, ["2"], hands={1: IDLE})
    state.apply("2 m13-m41")
    draw_cards(state, ["5", "5", "5", "5", "9"])
    assert at_play(state, 1) and legal(state) == ["2 -", "3 -", "8 -"]
    state.apply("8 -")
    draw_cards(state, ["2"])
    assert at_play(state, 0) and board(state) == {"m41": "red*"}
    # travelling: no main-track option any more; m55 is red's exit: on to m0 and the home row
    assert legal(state) == ["5 m41-m3", "9 m41-red-h1"]
    state.apply("9 m41-red-h1")
    assert board(state) == {"red-h1": "red"}


def test_not_travelling_on_a_corner_offers_both_routes(game):
    state = ft_position(game, {"m41": "red"}, ["5"])
    assert legal(state) == ["5 m41-m3", "5 m41-m46"]
    state.apply("5 m41-m3")
    assert board(state) == {"m3": "red"}  # left the Fast Track at m55


def test_own_fast_track_exit_has_no_fast_track_route(game):
    for travelling in (False, True):
        state = ft_position(game, {"m55": ("red", travelling)}, ["2"])
        assert legal(state) == ["2 m55-m1"]


def test_leaving_the_fast_track_backward_at_the_corner_nearest_the_pen(game):
    state = ft_position(game, {"m41": ("red", True)}, ["4"])
    assert legal(state) == ["4 m41-m11"]  # m27, m13, then m12 and m11 on the main track
    state.apply("4 m41-m11")
    assert board(state) == {"m11": "red"}
    state = ft_position(game, {"m27": ("red", True)}, ["4"])
    assert legal(state) == ["4 m27-m10"]
    state = ft_position(game, {"m13": ("red", True)}, ["4"])
    assert legal(state) == ["4 m13-m9"]
    state = ft_position(game, {"m41": "red"}, ["4"])  # not travelling: the main track backward
    assert legal(state) == ["4 m41-m37"]


def test_fast_track_of_another_side(pairs):
    # blue (seat 1): corner nearest its pen m27, exit m13
    state = ft_position(pairs, {"m27": "blue"}, ["3"], player=1)
    assert legal(state) == ["3 m27-m13", "3 m27-m30"]
    state = ft_position(pairs, {"m41": ("blue", True)}, ["3"], player=1)
    assert legal(state) == ["3 m41-m14"]  # m55, m13 (exit), m14
    state = ft_position(pairs, {"m55": ("blue", True)}, ["4"], player=1)
    assert legal(state) == ["4 m55-m25"]  # m41, m27, then m26, m25


def test_hexagonal_fast_track(hex3x2):
    # red: corner m13, exit m83; purple (seat 2): corner m83, exit m69
    state = ft_position(hex3x2, {"m83": ("red", True)}, ["4"])
    assert legal(state) == ["4 m83-m27"]
    state.apply("4 m83-m27")
    assert board(state) == {"m27": "red*"}  # still travelling
    state = ft_position(hex3x2, {"m69": ("red", True)}, ["2"])
    assert legal(state) == ["2 m69-m0"]
    state = ft_position(hex3x2, {"m13": "red"}, ["5"])
    assert legal(state) == ["5 m13-m18", "5 m13-m83"]
    state = ft_position(hex3x2, {"m83": "purple"}, ["2"], player=2)
    assert legal(state) == ["2 m83-m1", "2 m83-m27"]
    state = ft_position(hex3x2, {"m69": "purple"}, ["3"], player=2)
    assert legal(state) == ["3 m69-m72"]


def test_own_marble_on_the_fast_track_blocks(game):
    state = ft_position(game, {"m13": ("red", True), "m41": ("red", True)}, ["2", "3"])
    # m41 (1 hop) has priority: 2 -> m55, m0; 3 -> m55, m0, m1
    assert legal(state) == ["2 m41-m0", "3 m41-m1"]
    state = ft_position(game, {"m13": "red", "m41": "red", "m43": "red"}, ["3"])
    # m41 first: main m42, m43 (own) blocked; fast m55, m0, m1
    assert legal(state) == ["3 m41-m1"]


# -- the Bull's Eye -----------------------------------------------------------------------------------------
def test_into_the_bulls_eye_instead_of_the_last_step(game):
    state = ft_position(game, {"m9": "red"}, ["3", "5"])
    assert legal(state) == ["3 m9-m12", "5 m9-be", "5 m9-m14"]  # m13 after 4 steps
    state.apply("5 m9-be")
    assert board(state) == {"be": "red"}


def test_into_the_bulls_eye_with_a_ten(game):
    state = ft_position(game, {"m46": "red"}, ["10"])
    assert legal(state) == ["10 m46-be", "10 m46-m0"]  # m55 after 9 steps


def test_into_the_bulls_eye_backward(game):
    state = ft_position(game, {"m16": "red"}, ["4"])
    assert legal(state) == ["4 m16-be", "4 m16-m12"]


def test_bulls_eye_path_blocked_by_own_marble(game):
    state = ft_position(game, {"m9": "red", "m12": "red"}, ["2", "5"])
    # m9 + 5 passes m12: neither m14 nor the Bull's Eye; m12 + 2 has m13 after 1 step
    assert legal(state) == ["2 m12-be", "2 m12-m14", "2 m9-m11", "5 m12-m17"]


def test_bulls_eye_step_k_is_not_taken(game):
    # own marble on m14 (step 5) blocks landing there, not the Bull's Eye
    state = ft_position(game, {"m9": "red", "m14": "red"}, ["5"])
    assert legal(state) == ["5 m14-m19", "5 m9-be"]


def test_own_marble_on_the_bulls_eye_blocks(game):
    state = ft_position(game, {"m9": "red", "be": "red"}, ["5"])
    assert legal(state) == ["5 m9-m14"]


def test_entering_the_bulls_eye_captures(game):
    state = ft_position(game, {"m9": "red", "be": "yellow"}, ["5"])
    assert legal(state) == ["5 m9-be", "5 m9-m14"]
    state.apply("5 m9-be")
    assert board(state) == {"be": "red"} and pens(state) == {"red": 3, "yellow": 4}


def test_out_of_the_bulls_eye_only_with_king_queen_jack(game):
    state = ft_position(game, {"be": "red"}, ["K", "Q", "J", "A", "5"])
    # A brings out; 5 has nothing (the Bull's Eye marble never moves forward or backward)
    assert legal(state) == ["5 -", "A red-pen-m8", "J be-m55", "K be-m55", "Q be-m55"]
    state.apply("K be-m55")
    assert board(state) == {"m55": "red"}  # on its own Fast Track space, not travelling
    assert at_play(state, 0) and legal(state) == ["5 m55-m4", "A m55-m0", "J m55-m0", "Q m55-m0"]


def test_leaving_the_bulls_eye_captures_on_the_exit(game):
    state = ft_position(game, {"be": "red", "m55": "yellow"}, ["Q"])
    assert legal(state) == ["Q be-m55"]
    state.apply("Q be-m55")
    assert board(state) == {"m55": "red"} and pens(state)["yellow"] == 4


def test_own_marble_on_the_exit_moves_first(game):
    # red on m55 stands on a Fast Track space: it must move, the Bull's Eye marble may not leave
    state = ft_position(game, {"be": "red", "m55": "red"}, ["K"])
    assert legal(state) == ["K m55-m0"]


def test_other_colours_leave_the_bulls_eye_to_their_own_exit(two_colours):
    state = ft_position(two_colours, {"be": "yellow"}, ["Q"])
    assert legal(state) == ["Q be-m27"]  # yellow's exit


# -- blocking and capture --------------------------------------------------------------------------------
def test_own_colour_blocks_landing_and_passing(game):
    state = ft_position(game, {"m20": "red", "m23": "red"}, ["3", "5"])
    assert legal(state) == ["3 m23-m26", "5 m23-be", "5 m23-m28"]


def test_other_colours_may_be_passed_and_are_captured(game):
    state = ft_position(game, {"m20": "red", "m21": "yellow", "m25": "yellow"}, ["5"])
    assert legal(state) == ["5 m20-m25"]
    state.apply("5 m20-m25")
    assert board(state) == {"m21": "yellow", "m25": "red"}
    assert pens(state) == {"red": 3, "yellow": 3}


def test_capture_of_own_other_colour(two_colours):
    state = ft_position(two_colours, {"m20": "red", "m23": "yellow", "m25": "blue"}, ["3", "5"])
    assert legal(state) == ["3 m20-m23", "3 m23-m26", "5 m20-m25", "5 m23-be", "5 m23-m28"]
    state.apply("3 m20-m23")
    assert board(state) == {"m23": "red", "m25": "blue"} and pens(state)["yellow"] == 4


def test_capture_of_a_partners_marble(pairs):
    state = ft_position(pairs, {"m20": "red", "m23": "yellow"}, ["3"])
    assert legal(state) == ["3 m20-m23", "3 m23-m26"]  # seat 0 moves its partner's yellow too
    state.apply("3 m20-m23")
    assert board(state) == {"m23": "red"} and pens(state)["yellow"] == 4


# -- the Jack swap ------------------------------------------------------------------------------------------
def test_jack_swaps_with_an_opponent_on_the_track_or_bulls_eye(game):
    cells = {"m20": "red", "be": "red", "m30": "yellow", "m40": "yellow", "yellow-h1": "yellow"}
    state = ft_position(game, cells, ["J"])
    assert legal(state) == ["J be-m55", "J be<>m30", "J be<>m40", "J m20-m21", "J m20<>m30", "J m20<>m40"]
    state.apply("J be<>m40")
    assert board(state) == {"m20": "red", "m40": "red", "m30": "yellow", "be": "yellow", "yellow-h1": "yellow"}
    assert pens(state) == {"red": 2, "yellow": 1}  # nobody sent home


def test_jack_swap_stops_travelling(game):
    state = ft_position(game, {"m20": "red", "m41": ("yellow", True)}, ["J", "2"])
    assert legal(state) == ["2 m20-m22", "J m20-m21", "J m20<>m41"]
    state.apply("J m20<>m41")
    assert board(state) == {"m41": "red", "m20": "yellow"}
    # red now stands on a corner, not travelling: both routes
    assert at_play(state, 0) and legal(state) == ["2 m41-m0", "2 m41-m43"]
    state = ft_position(game, {"m41": ("red", True), "m30": "yellow", "m13": ("yellow", True)}, ["J"])
    assert legal(state) == ["J m41-m55", "J m41<>m13", "J m41<>m30"]
    state.apply("J m41<>m13")
    assert board(state) == {"m13": "red", "m41": "yellow", "m30": "yellow"}


def test_no_swap_with_own_side(two_colours, pairs):
    cells = {"m20": "red", "m30": "yellow", "m40": "blue", "green-h2": "green"}
    state = ft_position(two_colours, cells, ["J"])
    assert legal(state) == ["J m20-m21", "J m20<>m40", "J m30-m31", "J m30<>m40"]
    state = ft_position(pairs, {"m20": "red", "m30": "yellow", "m40": "blue"}, ["J"])
    assert legal(state) == ["J m20-m21", "J m20<>m40", "J m30-m31", "J m30<>m40"]


def test_no_swap_without_opponents_on_track(game):
    state = ft_position(game, {"m20": "red", "yellow-h3": "yellow"}, ["J"])
    assert legal(state) == ["J m20-m21"]


# -- the split 7 --------------------------------------------------------------------------------------------
def test_seven_whole_or_split_between_two_marbles_in_both_orders(game):
    state = ft_position(game, {"m20": "red", "m30": "red"}, ["7"])
    expected = ["7 m20-m27", "7 m30-m37"]
    expected += [f"7 m20-m{20 + k},m30-m{37 - k}" for k in range(1, 7)]
    expected += [f"7 m30-m{30 + k},m20-m{27 - k}" for k in range(1, 7)]
    assert legal(state) == sorted(expected)
    state.apply("7 m30-m32,m20-m25")
    assert board(state) == {"m25": "red", "m32": "red"}


def test_seven_with_one_marble_cannot_split(game):
    state = ft_position(game, {"m30": "red"}, ["7"])
    assert legal(state) == ["7 m30-m37"]


def test_each_part_of_a_split_may_use_the_bulls_eye(game):
    state = ft_position(game, {"m9": "red", "m30": "red"}, ["7"])
    expected = ["7 m9-m16", "7 m30-m37", "7 m9-be,m30-m32", "7 m30-m32,m9-be"]
    expected += [f"7 m9-m{9 + k},m30-m{37 - k}" for k in range(1, 7)]
    expected += [f"7 m30-m{30 + k},m9-m{16 - k}" for k in range(1, 7)]
    assert legal(state) == sorted(expected)
    state.apply("7 m9-be,m30-m32")
    assert board(state) == {"be": "red", "m32": "red"}


def test_split_parts_are_legal_when_made(game):
    # red m20 and m22: m20 cannot pass m22 unless m22 has moved first
    state = ft_position(game, {"m20": "red", "m22": "red"}, ["7"])
    assert legal(state) == sorted([
        "7 m22-m29",
        "7 m20-m21,m22-m28", "7 m20-m21,m22-be",
        "7 m22-m25,m20-m24", "7 m22-m26,m20-m23", "7 m22-m27,m20-m22", "7 m22-m28,m20-m21", "7 m22-be,m20-m21",
    ])
    # a part landing on a corner blocks the other part's way to the Bull's Eye (m13 is passed over)
    state = ft_position(game, {"m9": "red", "m11": "red"}, ["7"])
    assert legal(state) == sorted([
        "7 m11-m18", "7 m9-m10,m11-m17",
        "7 m11-m14,m9-m13", "7 m11-be,m9-m13", "7 m11-m15,m9-m12", "7 m11-m16,m9-m11", "7 m11-m17,m9-m10",
    ])


def test_the_first_parts_capture_happens_before_the_second(two_colours):
    # seat 0 runs red and yellow. Red m20 -> m23 captures the yellow there, which frees the way for
    # yellow m21 (m21 + 4 passes m23); the other order is illegal.
    state = ft_position(two_colours, {"m20": "red", "m21": "yellow", "m23": "yellow"}, ["7"])
    assert legal(state) == sorted([
        "7 m20-m27", "7 m23-m30",
        "7 m20-m21,m23-m29", "7 m20-m22,m23-be", "7 m20-m22,m23-m28", "7 m20-m23,m21-m25",
        "7 m20-m24,m23-m26", "7 m20-m25,m23-m25", "7 m20-m26,m21-m22", "7 m20-m26,m23-m24",
        "7 m21-m22,m20-m26", "7 m21-m22,m23-m29",
        "7 m23-m24,m20-m26", "7 m23-m25,m20-m25", "7 m23-m26,m20-m24", "7 m23-m26,m21-m25",
        "7 m23-m27,m20-m23", "7 m23-m27,m21-m24", "7 m23-m28,m20-m22", "7 m23-m28,m21-m23",
        "7 m23-be,m20-m22", "7 m23-be,m21-m23", "7 m23-m29,m20-m21", "7 m23-m29,m21-m22",
    ])
    assert_rejected(state, "7 m21-m25,m20-m23")
    state.apply("7 m20-m23,m21-m25")
    assert board(state) == {"m23": "red", "m25": "yellow"} and pens(state)["yellow"] == 3


def test_split_capture_in_the_first_part(game):
    state = ft_position(game, {"m20": "red", "m30": "red", "m23": "yellow"}, ["7"])
    state.apply("7 m20-m23,m30-m34")
    assert board(state) == {"m23": "red", "m34": "red"} and pens(state)["yellow"] == 4


def test_split_into_the_home_row(game):
    state = ft_position(game, {"m5": "red", "m1": "red"}, ["7"])
    assert legal(state) == sorted([
        "7 m1-m3,m5-red-h4", "7 m1-m4,m5-red-h3",
        "7 m5-red-h1,m1-m6", "7 m5-red-h2,m1-m5", "7 m5-red-h3,m1-m4", "7 m5-red-h4,m1-m3",
    ])


# -- Fast Track priority -----------------------------------------------------------------------------------
def test_the_fast_track_marble_nearest_its_exit_must_move(game):
    # m41 is 1 hop from red's exit m55, m13 is 3: only m41 may move, m20 neither
    state = ft_position(game, {"m13": "red", "m41": "red", "m20": "red"}, ["2"])
    assert legal(state) == ["2 m41-m0", "2 m41-m43"]


def test_fast_track_priority_ties_let_the_player_choose(two_colours):
    # red on m41 and yellow on m13 are both 1 hop from their exits (m55 and m27)
    state = ft_position(two_colours, {"m41": "red", "m13": "yellow", "m20": "red"}, ["2"])
    assert legal(state) == ["2 m13-m15", "2 m13-m28", "2 m41-m0", "2 m41-m43"]


def test_fast_track_priority_tie_with_both_blocked_the_player_chooses_which_goes_back(two_colours):
    # red (travelling) m41 -> m55, m0 (own red); yellow m13 -> m14 (own yellow) or m27, m28 (own yellow)
    cells = {"m41": ("red", True), "m0": "red", "m13": "yellow", "m14": "yellow", "m28": "yellow"}
    state = ft_position(two_colours, cells, ["2"])
    assert legal(state) == ["2 m13-yellow-pen", "2 m41-red-pen"]
    state.apply("2 m13-yellow-pen")
    assert board(state) == {"m41": "red*", "m0": "red", "m14": "yellow", "m28": "yellow"}


def test_fast_track_priority_seven_moves_it_whole(game):
    state = ft_position(game, {"m41": "red", "m20": "red"}, ["7"])
    assert legal(state) == ["7 m41-m48", "7 m41-m5"]


def test_fast_track_priority_blocks_bring_out_and_bulls_eye(game):
    state = ft_position(game, {"m13": ("red", True), "be": "red"}, ["A", "K"])
    assert legal(state) == ["A m13-m27", "K m13-m27"]
    state = ft_position(game, {"m13": "red"}, ["A"])
    assert legal(state) == ["A m13-m14", "A m13-m27"]


def test_fast_track_priority_jack(game):
    state = ft_position(game, {"m41": "red", "m20": "red", "m30": "yellow"}, ["J"])
    assert legal(state) == ["J m41-m42", "J m41-m55", "J m41<>m30"]


def test_a_blocked_fast_track_marble_is_sent_back(game):
    # travelling on m13: forward 9 (m27, m41, m55, m0 .. m5) passes m2; backward 4 (m12 .. m9) passes m10
    state = ft_position(game, {"m13": ("red", True), "m2": "red", "m10": "red"}, ["9", "2", "4"],
                        hands={1: IDLE})
    assert legal(state) == ["2 m13-m41", "4 m13-red-pen", "9 m13-red-pen"]
    state.apply("9 m13-red-pen")
    assert board(state) == {"m2": "red", "m10": "red"} and pens(state)["red"] == 2
    assert ranks(state, "discard", 0) == ["9"]
    assert state.current_player() == CHANCE  # a 9 ends the turn: refill


def test_a_blocked_fast_track_marble_with_a_play_again_card(game):
    state = ft_position(game, {"m41": ("red", True), "m55": "red"}, ["K", "3"])
    # m55 (0 hops) has priority and moves; with it gone m41 would come next
    assert legal(state) == ["3 m55-m2", "K m55-m0"]
    state = ft_position(game, {"m55": ("red", True), "m0": "red"}, ["K", "3"])
    assert legal(state) == ["3 m55-red-pen", "K m55-red-pen"]
    state.apply("K m55-red-pen")
    assert at_play(state, 0) and legal(state) == ["3 m0-m3"]


# -- the backward fallback and cards without effect -------------------------------------------------------
def test_backward_fallback_when_no_forward_effect(game):
    state = ft_position(game, {"m5": "red"}, ["9", "7"])
    # m5 -> m6, h1 .. h4: 9 and 7 impossible forward; 7 backward passes m55 after 6 steps: Bull's Eye
    assert legal(state) == ["7 m5-be", "7 m5-m54", "9 m5-m52"]
    state.apply("7 m5-be")
    assert board(state) == {"be": "red"}


def test_backward_fallback_only_for_main_track_marbles(game):
    state = ft_position(game, {"red-h2": "red", "be": "red"}, ["10", "3"])
    assert legal(state) == ["10 -", "3 -"]


def test_no_fallback_when_another_marble_can_move_forward(game):
    state = ft_position(game, {"m5": "red", "m20": "red"}, ["9"])
    assert legal(state) == ["9 m20-m29"]


def test_card_without_effect(game):
    state = ft_position(game, {}, ["8"], hands={1: IDLE})
    assert legal(state) == ["8 -"]
    state.apply("8 -")
    assert board(state) == {} and ranks(state, "discard", 0) == ["8"] and ranks(state, "hand", 0) == []
    assert state.current_player() == CHANCE


def test_two_cards_of_a_rank_are_listed_once(game):
    state = ft_position(game, {"m20": "red"}, ["5", "5", "8"])
    assert [str(m) for m in state.legal_moves()].count("5 m20-m25") == 1
    assert legal(state) == ["5 m20-m25", "8 m20-be", "8 m20-m28"]


def test_a_card_without_effect_may_be_played_beside_one_with_effect(game):
    state = ft_position(game, {}, ["8", "A"], hands={1: IDLE})
    assert legal(state) == ["8 -", "A red-pen-m8"]
    state.apply("8 -")
    assert ranks(state, "hand", 0) == ["A"] and state.current_player() == CHANCE


def test_illegal_moves_are_rejected(game):
    state = ft_position(game, {"m20": "red", "m30": "yellow"}, ["5"])
    for move in ["5 m20-m24", "5 m30-m35", "8 m20-m28", "5 -", "4 m20-m16", "5 m20-m25,m30-m31"]:
        assert_rejected(state, move)


# -- turns, play-again and drawing -----------------------------------------------------------------------
def test_play_again_cards_keep_the_turn(game):
    for rank in ["JK", "A", "K", "Q", "J", "6"]:
        state = ft_position(game, {"m20": "red"}, [rank, "2"])
        move = f"{rank} m20-m{20 + DISTANCE[rank]}"
        state.apply(move)
        assert at_play(state, 0) and ranks(state, "hand", 0) == ["2"] and state.to_json()["turn"] == 0


def test_other_cards_end_the_turn_and_refill_to_five(game):
    for rank in ["10", "9", "8", "7", "5", "3", "2"]:
        state = ft_position(game, {"m30": "red"}, [rank, "2", "2", "3", "3"] if rank not in ("2", "3") else
                            [rank, "5", "5", "9", "9"], hands={1: IDLE})
        state.apply(f"{rank} m30-m{30 + DISTANCE[rank]}")
        assert state.current_player() == CHANCE and state.to_json()["vars"]["drawer"] == 0
        draw_cards(state, ["K"])
        assert at_play(state, 1) and len(ranks(state, "hand", 0)) == 5 and state.to_json()["turn"] == 1
    state = ft_position(game, {"m30": "red"}, ["4", "2"], hands={1: IDLE})
    state.apply("4 m30-m26")
    draw_cards(state, ["K", "K", "Q", "2"])
    assert at_play(state, 1) and ranks(state, "hand", 0) == ["2", "2", "K", "K", "Q"]


def test_play_again_with_an_empty_hand_draws_five(game):
    state = ft_position(game, {}, ["A"])
    state.apply("A red-pen-m8")
    assert state.current_player() == CHANCE
    draw_cards(state, ["K", "K", "2", "3", "4"])
    assert at_play(state, 0) and ranks(state, "hand", 0) == ["2", "3", "4", "K", "K"]
    assert state.to_json()["turn"] == 0
    assert legal(state) == ["2 m8-m10", "3 m8-m11", "4 m8-m4", "K m8-m9"]


def test_a_turn_of_several_play_again_cards(game):
    state = ft_position(game, {}, ["A", "6", "K", "5"], hands={1: IDLE})
    state.apply("A red-pen-m8")
    state.apply("6 m8-m14")
    state.apply("K m14-m15")
    assert at_play(state, 0) and legal(state) == ["5 m15-m20"]
    state.apply("5 m15-m20")
    draw_cards(state, ["2", "2", "3", "3", "9"])
    assert at_play(state, 1) and ranks(state, "discard", 0) == ["5", "6", "A", "K"]


def test_draw_outcomes_are_weighted_by_the_draw_pile(game):
    state = ft_position(game, {"m20": "red"}, ["5", "8", "8", "2", "3"], draw={0: ["K", "K", "K", "2"]},
                        hands={1: IDLE})
    state.apply("5 m20-m25")
    assert {str(m): p for m, p in state.chance_outcomes()} == {"draw K": pytest.approx(0.75),
                                                               "draw 2": pytest.approx(0.25)}
    state.apply("draw 2")
    assert at_play(state, 1) and ranks(state, "draw", 0) == ["K", "K", "K"]


def test_an_empty_draw_pile_is_reshuffled_from_the_discard_pile(game):
    state = ft_position(game, {"m20": "red"}, ["5", "8", "8", "2", "3"], draw={0: []},
                        discard={0: ["Q", "Q", "3"]}, hands={1: IDLE})
    state.apply("5 m20-m25")
    # the played 5 is discarded first, then the discard pile becomes the draw pile
    assert {str(m): p for m, p in state.chance_outcomes()} == {
        "draw Q": pytest.approx(0.5), "draw 3": pytest.approx(0.25), "draw 5": pytest.approx(0.25)}
    assert ranks(state, "discard", 0) == []
    state.apply("draw Q")
    assert ranks(state, "draw", 0) == ["3", "5", "Q"] and ranks(state, "hand", 0) == ["2", "3", "8", "8", "Q"]


def test_reshuffle_in_the_middle_of_a_refill(game):
    state = ft_position(game, {"m20": "red"}, ["5", "8"], draw={0: ["J"]}, discard={0: ["Q", "Q"]},
                        hands={1: IDLE})
    state.apply("5 m20-m25")
    assert [str(m) for m, _ in state.chance_outcomes()] == ["draw J"]
    state.apply("draw J")
    assert {str(m): p for m, p in state.chance_outcomes()} == {"draw Q": pytest.approx(2 / 3),
                                                               "draw 5": pytest.approx(1 / 3)}
    draw_cards(state, ["Q", "Q", "5"])
    assert at_play(state, 1) and ranks(state, "hand", 0) == ["5", "8", "J", "Q", "Q"]


def test_hands_are_hidden_from_others_and_draw_piles_from_everybody(game):
    state = ft_position(game, {"m20": "red"}, ["5", "8", "8", "2", "3"], hands={1: ["K", "K", "2", "2", "9"]},
                        discard={1: ["4"]})
    view = state.observation(1)
    assert view["zones"]["hand"][0] == {"hidden": 5}
    assert sorted(i["piece"]["rank"] for i in view["zones"]["hand"][1]) == ["2", "2", "9", "K", "K"]
    assert view["zones"]["draw"] == [{"hidden": 49}, {"hidden": 48}]
    assert view["zones"]["discard"][1] == [card("4")]
    view = state.observation(0)
    assert view["zones"]["hand"][1] == {"hidden": 5} and view["zones"]["draw"] == [{"hidden": 49}, {"hidden": 48}]
    assert view["cells"] == state.to_json()["cells"] and view["zones"]["pen"] == state.to_json()["zones"]["pen"]


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_the_first_player_is_chosen_uniformly(players):
    g = load("fast-track", options={"players": str(players), "board": "hex" if players > 4 else "square"})
    state = g.new_initial_state()
    assert state.current_player() == CHANCE
    assert {str(m): p for m, p in state.chance_outcomes()} == {
        f"first p{i + 1}": pytest.approx(1 / players) for i in range(players)}
    state.apply(f"first p{players}")
    # each player draws 5; the chosen player then plays
    rng = Rng(7)
    while state.current_player() == CHANCE:
        state.apply(state.sample_chance(rng))
    assert at_play(state, players - 1)
    d = state.to_json()
    assert [len(h) for h in d["zones"]["hand"]] == [5] * players
    assert [len(h) for h in d["zones"]["draw"]] == [49] * players and d["turn"] == 0


def test_turns_go_clockwise(game):
    g = load("fast-track", options={"players": "3"})
    state = ft_position(g, {}, IDLE, player=2, hands={0: IDLE, 1: IDLE})
    state.apply("8 -")
    draw_cards(state, ["2"])
    assert at_play(state, 0)


# -- the end ------------------------------------------------------------------------------------------------
def test_a_side_wins_when_all_its_marbles_are_home(game):
    state = ft_position(game, {"m6": "red", "red-h2": "red", "red-h3": "red", "red-h4": "red"}, ["A"])
    state.apply("A m6-red-h1")
    assert state.is_terminal() and state.current_player() == TERMINAL
    assert state.winners == [0] and state.returns() == [1.0, -1.0]


def test_a_player_with_two_colours_needs_both_home(two_colours):
    cells = {"m6": "red", "red-h2": "red", "red-h3": "red", "red-h4": "red",
             "m34": "yellow", "yellow-h2": "yellow", "yellow-h3": "yellow", "yellow-h4": "yellow"}
    state = ft_position(two_colours, cells, ["A", "K"])
    state.apply("A m6-red-h1")
    assert not state.is_terminal() and at_play(state, 0)
    state.apply("K m34-yellow-h1")
    assert state.winners == [0] and state.returns() == [1.0, -1.0]



# -- team play --------------------------------------------------------------------------------------------
def test_a_player_moves_any_marble_of_the_side(pairs):
    cells = {"m20": "red", "m40": "yellow", "m30": "blue", "m45": "green"}
    state = ft_position(pairs, cells, ["5", "A"])
    assert legal(state) == ["5 m20-m25", "5 m40-m45", "A m20-m21", "A m40-m41", "A red-pen-m8", "A yellow-pen-m36"]
    state = ft_position(pairs, cells, ["5"], player=3)
    assert legal(state) == ["5 m30-m35", "5 m45-green-h2"]  # green (seat 3) moves its partner's blue too


def test_fast_track_priority_covers_the_partners_marbles(pairs):
    # yellow (seat 2) on m13 is 1 hop from its exit m27: seat 0 must move it
    state = ft_position(pairs, {"m20": "red", "m13": "yellow"}, ["2"])
    assert legal(state) == ["2 m13-m15", "2 m13-m28"]


def test_a_team_wins_together(pairs):
    cells = {f"red-h{j}": "red" for j in range(1, 5)} | {
        "m34": "yellow", "yellow-h2": "yellow", "yellow-h3": "yellow", "yellow-h4": "yellow"}
    state = ft_position(pairs, cells, ["A"])
    assert legal(state) == ["A m34-yellow-h1"]
    state.apply("A m34-yellow-h1")
    assert state.is_terminal() and state.winners == [0, 2] and state.returns() == [1.0, -1.0, 1.0, -1.0]


def test_own_colour_home_is_not_enough_with_teams(pairs):
    cells = {"m6": "red", "red-h2": "red", "red-h3": "red", "red-h4": "red", "m40": "yellow"}
    state = ft_position(pairs, cells, ["A", "2"])
    state.apply("A m6-red-h1")
    assert not state.is_terminal() and at_play(state, 0)
    assert legal(state) == ["2 m40-be", "2 m40-m42"]


def test_triples_on_the_hexagonal_board():
    g = load("fast-track", options={"board": "hex", "players": "6", "teams": "triples"})
    for p in range(6):
        side = ["red", "yellow", "white"] if p % 2 == 0 else ["blue", "green", "purple"]
        exits = {"red": 8, "blue": 22, "yellow": 36, "green": 50, "white": 64, "purple": 78}
        assert legal(ft_position(g, {}, ["A"], player=p)) == sorted(f"A {c}-pen-m{exits[c]}" for c in side)
    cells = {f"{c}-h{j}": c for c in ("red", "yellow") for j in range(1, 5)} | {
        "m62": "white", "white-h2": "white", "white-h3": "white", "white-h4": "white", "m70": "blue"}
    state = ft_position(g, cells, ["J"], player=2)
    assert legal(state) == ["J m62-white-h1", "J m62<>m70"]
    state.apply("J m62-white-h1")
    assert state.winners == [0, 2, 4]


# -- seating and options ----------------------------------------------------------------------------------
# (board, players, colours each) -> the colours of each player, by the spec's formula:
# slot j takes side floor(j * sides / (n c)) and belongs to player j mod n
SEATING = {
    ("square", 2, 1): [["red"], ["yellow"]],
    ("square", 3, 1): [["red"], ["blue"], ["yellow"]],
    ("square", 4, 1): [["red"], ["blue"], ["yellow"], ["green"]],
    ("square", 2, 2): [["red", "yellow"], ["blue", "green"]],
    ("hex", 2, 1): [["red"], ["green"]],
    ("hex", 3, 1): [["red"], ["yellow"], ["white"]],
    ("hex", 4, 1): [["red"], ["blue"], ["green"], ["white"]],
    ("hex", 5, 1): [["red"], ["blue"], ["yellow"], ["green"], ["white"]],
    ("hex", 6, 1): [["red"], ["blue"], ["yellow"], ["green"], ["white"], ["purple"]],
    ("hex", 2, 2): [["red", "green"], ["blue", "white"]],
    ("hex", 3, 2): [["red", "green"], ["blue", "white"], ["yellow", "purple"]],
    ("hex", 2, 3): [["red", "yellow", "white"], ["blue", "green", "purple"]],
}


@pytest.mark.parametrize("board_, players, per", sorted(SEATING), ids=lambda v: str(v))
def test_seating(board_, players, per):
    g = load("fast-track", options={"board": board_, "players": str(players), "colours_per_player": str(per)})
    owned = SEATING[(board_, players, per)]
    playing = [c for c in SIDE_COLOURS if any(c in cs for cs in owned)]
    assert colours_in_play(g) == playing
    assert g.num_players == players and g.player_names == [f"p{i + 1}" for i in range(players)]
    for p in range(players):
        # bringing out shows which colours p runs and where their sides are (pen exit m(14 side + 8))
        expected = sorted(f"A {c}-pen-m{14 * SIDE_COLOURS.index(c) + 8}" for c in owned[p])
        assert legal(ft_position(g, {}, ["A"], player=p)) == expected
    # the formula, for good measure
    sides = 4 if board_ == "square" else 6
    slots = players * per
    assert owned == [[SIDE_COLOURS[j * sides // slots] for j in range(slots) if j % players == p]
                     for p in range(players)]
    # the track and the home rows of the colours in play, nothing more
    cells = g.new_initial_state().to_json()
    for name, ok in [(f"m{14 * sides - 1}", True), (f"m{14 * sides}", False), ("be", True)] + [
            (f"{c}-h4", c in playing) for c in SIDE_COLOURS]:
        data = dict(cells, cells={name: marble("red")}, history=[])
        if ok:
            g.state_from_json(data)
        else:
            with pytest.raises(RulesError):
                g.state_from_json(data)


def test_square_board_geometry_for_every_colour():
    g = load("fast-track", options={"players": "4"})
    # each colour: from just before its pen exit, forward into its home row; the corner nearest its pen
    for p, colour in enumerate(["red", "blue", "yellow", "green"]):
        entrance, corner, exit_ = 14 * p + 6, 14 * p + 13, (14 * p - 1) % 56
        state = ft_position(g, {f"m{entrance - 1}": colour}, ["3"], player=p)
        assert legal(state) == [f"3 m{entrance - 1}-{colour}-h2"]
        state = ft_position(g, {f"m{corner}": (colour, True)}, ["5"], player=p)
        hops = (p - 1 - corner // 14) % 4
        path = [(corner + 14 * h) % 56 for h in range(1, hops + 1)] + [(exit_ + s) % 56 for s in range(1, 6)]
        assert hops == 3 and legal(state) == [f"5 m{corner}-m{path[4]}"]


@pytest.mark.parametrize("options, message", [
    ({"players": "3", "teams": "pairs"}, "pairs need 4 or 6 players"),
    ({"players": "2", "teams": "pairs"}, "pairs need 4 or 6 players"),
    ({"players": "5", "teams": "pairs", "board": "hex"}, "pairs need 4 or 6 players"),
    ({"players": "4", "teams": "triples"}, "triples need 6 players"),
    ({"players": "3", "colours_per_player": "2"},
     "3 players with 2 colours each need 6 sides; the square board has 4"),
    ({"players": "5"}, "5 players with 1 colours each need 5 sides; the square board has 4"),
    ({"players": "4", "colours_per_player": "2", "board": "hex"},
     "4 players with 2 colours each need 8 sides; the hex board has 6"),
    ({"players": "7"}, "option players must be between 2 and 6"),
    ({"colours_per_player": "4"}, "option colours_per_player must be between 1 and 3"),
    ({"teams": "trios"}, "teams"),
])
def test_invalid_option_combinations_are_rejected_at_load(options, message):
    with pytest.raises(RulesError) as info:
        load("fast-track", options=options)
    assert message in str(info.value)
    assert len(info.value.problems) == 1, str(info.value)  # one clear message, no follow-on noise


@pytest.mark.parametrize("options", [
    {"players": "4", "teams": "pairs"}, {"players": "6", "teams": "pairs", "board": "hex"},
    {"players": "6", "teams": "triples", "board": "hex"}, {"players": "2", "colours_per_player": "3", "board": "hex"},
])
def test_valid_option_combinations_load(options):
    assert load("fast-track", options=options).num_players == int(options["players"])


# -- seeded random games against an independent reading of the spec ----------------------------------------
class Reference:
    """The spec's legal decisions and their effect on the marbles, computed from a state's public JSON."""

    def __init__(self, board_: str, players: int, per: int, teams: str):
        self.sides = 4 if board_ == "square" else 6
        self.length = 14 * self.sides
        self.n = players
        slots = players * per
        self.side, self.owner = {}, {}
        for j in range(slots):
            colour = SIDE_COLOURS[j * self.sides // slots]
            self.side[colour], self.owner[colour] = j * self.sides // slots, j % players
        self.team = [p % (players // 2) if teams == "pairs" else p % 2 if teams == "triples" else p
                     for p in range(players)]

    # geometry
    def m(self, s: int) -> str:
        return f"m{s % self.length}"

    @staticmethod
    def pos(cell: str):
        return int(cell[1:]) if cell[0] == "m" else None

    def corner(self, cell: str) -> bool:
        return cell[0] == "m" and self.pos(cell) % 14 == 13

    def mine(self, p: int) -> list[str]:
        return [c for c in self.side if self.team[self.owner[c]] == self.team[p]]

    def pen_exit(self, c):
        return self.m(14 * self.side[c] + 8)

    def exit(self, c):  # the colour's own Fast Track space
        return self.m(14 * self.side[c] - 1)

    def step(self, c: str, cell: str, lane: str, forward: bool):
        """One step of a marble of colour c: (cell, lane) or None."""
        s = self.pos(cell)
        if forward:
            if lane == "fast":
                return (self.m(s + 1), "main") if cell == self.exit(c) else (self.m(s + 14), "fast")
            if s is not None:
                return (f"{c}-h1", "main") if s == 14 * self.side[c] + 6 else (self.m(s + 1), "main")
            if cell.startswith(f"{c}-h") and int(cell[-1]) < 4:
                return (f"{c}-h{int(cell[-1]) + 1}", "main")
            return None
        if s is None:
            return None
        if lane == "fast":
            return (self.m(s - 1), "main") if s == 14 * self.side[c] + 13 else (self.m(s - 14), "fast")
        return (self.m(s - 1), "main")

    def path(self, c, cell, k, lane, forward):
        out = []
        for _ in range(k):
            nxt = self.step(c, cell, lane, forward)
            if nxt is None:
                return None
            (cell, lane) = nxt
            out.append(nxt)
        return out

    def targets(self, cells: dict, x: str, k: int, forward: bool) -> list[tuple[str, bool]]:
        """(target, travelling) of each legal k-step move of the marble on x."""
        c, travelling = cells[x]
        if forward:
            lanes = ["fast"] if travelling else ["main", "fast"] if self.corner(x) and x != self.exit(c) else ["main"]
        else:
            if x[0] != "m":
                return []
            lanes = ["fast" if travelling else "main"]
        free = lambda cell: cells.get(cell, (None,))[0] != c  # noqa: E731
        out = []
        for lane in lanes:
            way = self.path(c, x, k, lane, forward)
            if way and all(free(cell) for cell, _ in way):
                out.append((way[-1][0], way[-1][1] == "fast"))
        if x[0] == "m" and not self.corner(x) and k >= 2:
            way = self.path(c, x, k - 1, "main", forward)
            if way and self.corner(way[-1][0]) and all(free(cell) for cell, _ in way) and free("be"):
                out.append(("be", False))
        return out

    @staticmethod
    def moved(cells: dict, x: str, to: str, travelling: bool) -> dict:
        new = dict(cells)
        colour, _ = new.pop(x)
        new[to] = (colour, travelling)  # whatever stood there goes back to its pen
        return new

    def hops(self, cells, x):
        c, h, s = cells[x][0], 0, x
        while s != self.exit(c):
            s, h = self.m(self.pos(s) + 14), h + 1
        return h

    def effects(self, cells: dict, p: int, rank: str) -> dict:
        """notation -> the cells after it, for one card."""
        side = self.mine(p)
        own = [x for x in cells if cells[x][0] in side]
        dist = DISTANCE[rank]
        out = {}

        def moves(x, k, forward, r=rank):
            for to, travelling in self.targets(cells, x, k, forward):
                out[f"{r} {x}-{to}"] = self.moved(cells, x, to, travelling)

        def swaps(x):
            for y in cells:
                if (y[0] == "m" or y == "be") and cells[y][0] not in side:
                    new = dict(cells)
                    new[x], new[y] = (cells[y][0], False), (cells[x][0], False)
                    out[f"J {x}<>{y}"] = new

        on_corners = [x for x in own if self.corner(x)]
        if on_corners:  # 1. Fast Track first
            fewest = min(self.hops(cells, x) for x in on_corners)
            first = [x for x in on_corners if self.hops(cells, x) == fewest]
            for x in first:
                moves(x, dist, rank != "4")
                if rank == "J":
                    swaps(x)
            if not out:
                for x in first:
                    new = dict(cells)
                    del new[x]
                    out[f"{rank} {x}-{cells[x][0]}-pen"] = new
            return out
        for x in own:  # 2. the table
            if rank == "4":
                moves(x, 4, False)
            else:
                moves(x, dist, True)
            if rank == "J" and (x[0] == "m" or x == "be"):
                swaps(x)
        if rank in ("JK", "A", "6"):
            for c in side:
                if sum(1 for v in cells.values() if v[0] == c) < 4 and cells.get(self.pen_exit(c), (None,))[0] != c:
                    new = dict(cells)
                    new[self.pen_exit(c)] = (c, False)
                    out[f"{rank} {c}-pen-{self.pen_exit(c)}"] = new
        if rank in ("K", "Q", "J") and cells.get("be", (None,))[0] in side:
            c = cells["be"][0]
            if cells.get(self.exit(c), (None,))[0] != c:
                out[f"{rank} be-{self.exit(c)}"] = self.moved(cells, "be", self.exit(c), False)
        if rank == "7":
            for k in range(1, 7):
                for x in own:
                    for to, travelling in self.targets(cells, x, k, True):
                        after = self.moved(cells, x, to, travelling)
                        for y in [y for y in after if after[y][0] in side and y != to]:
                            for to2, travelling2 in self.targets(after, y, 7 - k, True):
                                out[f"7 {x}-{to},{y}-{to2}"] = self.moved(after, y, to2, travelling2)
        if not out and rank != "4":  # 3. backward
            for x in own:
                if x[0] == "m" and not cells[x][1]:
                    moves(x, dist, False)
        if not out:  # 4. no effect
            out[f"{rank} -"] = dict(cells)
        return out

    def decisions(self, d: dict, p: int) -> dict:
        cells = {n: (m["colour"], m["travelling"]) for n, m in d["cells"].items()}
        out = {}
        for rank in {i["piece"]["rank"] for i in d["zones"]["hand"][p]}:
            out.update(self.effects(cells, p, rank))
        return out

    def side_home(self, d, p):
        return all(all(f"{c}-h{j}" in d["cells"] for j in range(1, 5)) for c in self.mine(p))


def check_invariants(ref: Reference, d: dict):
    colours = list(ref.side)
    pen = dict((c, items) for c, items in d["zones"]["pen"]["table"])
    assert list(pen) == colours
    on_board = Counter(m["colour"] for m in d["cells"].values())
    for c in colours:
        assert all(i["piece"] == marble(c) for i in pen[c])  # pens hold their own colour, not travelling
        assert on_board[c] + len(pen[c]) == 4
    for name, m in d["cells"].items():
        assert m["kind"] == "marble" and m["colour"] in colours
        if "-h" in name:
            assert name.startswith(m["colour"] + "-h")  # no marble in another colour's home row
        if m["travelling"]:
            assert ref.corner(name)  # travelling only on Fast Track spaces
    for p in range(ref.n):
        held = Counter(i["piece"]["rank"] for z in ("draw", "hand", "discard") for i in d["zones"][z][p])
        assert held == Counter(DECK)  # 54 cards per player
        assert len(d["zones"]["hand"][p]) <= 5


def checked_playout(game, ref: Reference, seed: int, seen: Counter) -> int:
    """A random game. Every decision node is compared with the reference (who plays, the exact legal decisions)
    and so is every decision's effect on the marbles; every chance node with the draw pile; then the flow:
    play-again cards keep the turn, other cards end it after a refill to 5."""
    state = game.new_initial_state(seed)
    rng = Rng(seed)
    d = state.to_json()
    expect, turns = None, 0  # the player expected at the next decision node; turns ended so far
    while not state.is_terminal():
        check_invariants(ref, d)
        player = state.current_player()
        if player == CHANCE:
            outcomes = {str(m): pr for m, pr in state.chance_outcomes()}
            if d["step"] == "cut":
                assert outcomes == {f"first p{i + 1}": pytest.approx(1 / ref.n) for i in range(ref.n)}
            else:
                pile = Counter(i["piece"]["rank"] for i in d["zones"]["draw"][d["vars"]["drawer"]])
                assert outcomes == {f"draw {r}": pytest.approx(k / sum(pile.values())) for r, k in pile.items()}
            move = state.sample_chance(rng)
            if d["step"] == "cut":
                expect = int(str(move).split()[1][1:]) - 1
        else:
            assert player == expect and d["step"] == "play" and d["turn"] == turns
            assert d["zones"]["hand"][player] and all(len(h) == 5 for q, h in enumerate(d["zones"]["hand"])
                                                      if q != player)
            expected = ref.decisions(d, player)
            moves = state.legal_moves()
            assert notations(moves) == sorted(expected), (
                d["cells"], [i["piece"]["rank"] for i in d["zones"]["hand"][player]])
            move = moves[rng.below(len(moves))]
            seen[move[0].name] += 1
        before = d
        state.apply(move)
        d = state.to_json()
        for p in range(ref.n):
            if before["zones"]["discard"][p] and not d["zones"]["discard"][p]:
                seen["reshuffle"] += 1
        if player == CHANCE:
            if d["step"] == "play":  # the draws are done: whoever plays next holds 5 cards, as does everybody
                assert state.current_player() == expect and all(len(h) == 5 for h in d["zones"]["hand"])
            continue
        text = str(move)
        rank = text.split()[0]
        assert {n: (m["colour"], m["travelling"]) for n, m in d["cells"].items()} == expected[text], text
        hand = Counter(i["piece"]["rank"] for i in d["zones"]["hand"][player])
        assert hand + Counter([rank]) == Counter(i["piece"]["rank"] for i in before["zones"]["hand"][player])
        if state.is_terminal():
            break
        if rank in PLAY_AGAIN:
            if hand:
                seen["play again"] += 1
                assert state.current_player() == player and d["step"] == "play"
            else:
                seen["play again: draw 5"] += 1
                assert state.current_player() == CHANCE and d["vars"]["drawer"] == player
        else:
            turns += 1
            expect = (player + 1) % ref.n
            assert state.current_player() == CHANCE and d["vars"]["drawer"] == player
        if state.ply % 40 == 0:
            d = dict(d, history=[])  # go on from a JSON round trip (keeps to_json from growing)
            state = game.state_from_json(d)
            assert state.to_json() == d
    check_invariants(ref, d)
    winners = [p for p in range(ref.n) if ref.side_home(d, p)]
    assert not state.capped and winners and state.winners == winners
    assert state.returns() == [1.0 if p in winners else -1.0 for p in range(ref.n)]
    seen["games"] += 1
    return d["turn"]


RANDOM_GAMES = [
    # (board, players, colours each, teams, games)
    ("square", 2, 1, "none", 12),
    ("square", 3, 1, "none", 3),
    ("square", 4, 1, "none", 2),
    ("square", 2, 2, "none", 3),
    ("square", 4, 1, "pairs", 3),
    ("hex", 2, 1, "none", 3),
    ("hex", 3, 2, "none", 2),
    ("hex", 2, 3, "none", 1),
    ("hex", 6, 1, "pairs", 1),
    ("hex", 6, 1, "triples", 2),
]


@pytest.mark.parametrize("board_, players, per, teams, games", RANDOM_GAMES, ids=lambda v: str(v))
def test_random_games_follow_the_spec(board_, players, per, teams, games):
    g = load("fast-track", options={"board": board_, "players": str(players), "colours_per_player": str(per),
                                    "teams": teams})
    ref = Reference(board_, players, per, teams)
    seen = Counter()
    for i in range(games):
        checked_playout(g, ref, 100 * players + 10 * per + i, seen)
    assert seen["games"] == games
    assert {"advance", "bring_out", "no_effect", "retreat", "split", "swap", "reshuffle"} <= set(seen)
    if (board_, players, per) == ("square", 2, 1):  # the rarer rules come up in these seeds too
        assert {"leave_bulls_eye", "fast_track_blocked", "backward_fallback", "play again: draw 5"} <= set(seen)
