"""MARK as specified (/work/shared/rules/mark.md): a scenario per rule, checked through exact sets of legal
moves in the spec's notation and their effects on money and materials, and seeded random games checked
ply by ply against an independent reading of the spec (flow, legal moves, money and the 40 materials)."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from rulesdsl import CHANCE, SIMULTANEOUS, TERMINAL, MoveError, Rng

from .helpers import load, notations, position

COLOURS = ["white", "blue", "gold", "green", "red"]


@pytest.fixture(scope="module")
def game():
    return load("mark")


@pytest.fixture(scope="module")
def game3():
    return load("mark", options={"players": "3"})


@pytest.fixture(scope="module")
def game4():
    return load("mark", options={"players": "4"})


@pytest.fixture(scope="module")
def four_rows():
    return load("mark", variant="four-row-ending")


# -- positions -----------------------------------------------------------------------------------
def material(colour: str) -> dict:
    return {"kind": "material", "colour": colour}


def price(row: int, k: int) -> int:
    """What square k of market row `row` pays: r + 2(k - 1) (the spec's table)."""
    return row + 2 * (k - 1)


def market(row: int, colour: str, n: int) -> dict:
    """The first n squares of a market row, filled with one colour."""
    return {f"row{row}s{k}": colour for k in range(1, n + 1)}


def mark_position(game, cells: dict | None = None, step: str = "roll", player: int = 0, *, money=None,
                  vars: dict | None = None, turn: int = 0):
    """A position from {cell name: colour}. Every material not on a cell is in the bank, except that a colour
    whose market row is full is closed: its remaining materials are out of play. `row_of` and `closed`
    follow from the market."""
    cells = dict(cells or {})
    used = Counter(cells.values())
    row_of, closed = {}, []
    for r in range(1, 6):
        first = cells.get(f"row{r}s1")
        if first is not None:
            row_of[first] = r
            if all(f"row{r}s{k}" in cells for k in range(1, 6)):
                closed.append(first)
    out = [c for c in closed for _ in range(8 - used[c])]
    bank = [c for c in COLOURS if c not in closed for _ in range(8 - used[c])]
    n = game.num_players
    all_vars = {"money": list(money) if money is not None else [30] * n,
                "row_of": {"table": [[c, r] for c, r in row_of.items()]}, "closed": closed}
    all_vars.update(vars or {})
    return position(game, {name: material(c) for name, c in cells.items()}, step, player,
                    zones={"bank": [{"piece": material(c)} for c in bank],
                           "out_of_play": [{"piece": material(c)} for c in out]},
                    vars=all_vars, turn=turn)


def rolled(game, cells=None, roll="red blue", player=0, **kwargs):
    """The player to act has just rolled `roll` (the outcome is applied through the chance step)."""
    state = mark_position(game, cells, "roll", player, **kwargs)
    state.apply(f"roll {roll}")
    return state


def start_turn(game, cells, player=0, money=None):
    """The turn of `player` begins: the previous player (whose r1s1 must be empty) rolls white/blue and takes
    a white material, which ends their turn; the storage fees of `player` then apply."""
    previous = (player - 1) % game.num_players
    state = mark_position(game, cells, "roll", previous, money=money)
    state.apply("roll white blue")
    state.apply("take white r1s1")
    return state


def data(state) -> dict:
    return state.to_json()


def bank(state) -> Counter:
    return Counter(item["piece"]["colour"] for item in data(state)["zones"]["bank"])


def out_of_play(state) -> Counter:
    return Counter(item["piece"]["colour"] for item in data(state)["zones"]["out_of_play"])


def money(state) -> list[int]:
    return data(state)["vars"]["money"]


def at_roll(state, player: int) -> bool:
    """The state waits for `player`'s roll (the chance node of the roll step)."""
    d = data(state)
    return state.current_player() == CHANCE and d["step"] == "roll" and d["player"] == player


def assert_rejected(state, move: str):
    """A well-written move that is not legal here is refused (and the state is unchanged).

    The engine reports these as 'malformed' rather than 'illegal': its explainer cannot match templates
    whose fields are attributes ({s.square}), so only the refusal itself is checked."""
    before = data(state)
    with pytest.raises(MoveError) as info:
        state.apply(move)
    assert info.value.kind in ("illegal", "malformed")
    assert move not in notations(state.legal_moves()) and data(state) == before


def takes(colours, squares=(1, 2, 3, 4)) -> list[str]:
    return [f"take {c} r1s{k}" for c in colours for k in squares]


# -- first player and the roll ---------------------------------------------------------------------
def test_first_player_is_chosen_at_random(game):
    state = game.new_initial_state()
    assert state.current_player() == CHANCE
    outcomes = {str(m): p for m, p in state.chance_outcomes()}
    assert outcomes == {"first p1": pytest.approx(0.5), "first p2": pytest.approx(0.5)}
    state.apply("first p2")
    assert at_roll(state, 1)  # no storage fees with empty companies: straight to p2's roll
    assert money(state) == [30, 30] and sum(bank(state).values()) == 40


def test_initial_state(game):
    d = data(game.new_initial_state())
    assert d["cells"] == {} and d["zones"]["out_of_play"] == []
    assert Counter(i["piece"]["colour"] for i in d["zones"]["bank"]) == {c: 8 for c in COLOURS}
    assert d["vars"]["money"] == [30, 30]


def test_the_roll_has_36_equally_likely_outcomes(game):
    state = mark_position(game)
    outcomes = {str(m): p for m, p in state.chance_outcomes()}
    faces_a = COLOURS + ["hammer"]
    faces_b = COLOURS + ["star"]
    assert set(outcomes) == {f"roll {a} {b}" for a in faces_a for b in faces_b}
    assert all(p == pytest.approx(1 / 36) for p in outcomes.values())


# -- actions with two colours ---------------------------------------------------------------------
NORMAL = {"p1-r1s1": "red", "p1-r1s2": "gold", "p1-r1s4": "blue", "p1-r2s1": "blue", "p1-r2s3": "red",
          "p2-r1s2": "red", "p2-r2s2": "blue"}


def test_a_roll_of_two_colours_offers_take_produce_and_sell_of_both(game):
    state = rolled(game, NORMAL, "red blue")
    assert state.current_player() == 0
    expected = (takes(["red", "blue"], [3])
                + ["produce red r1s1-r2s2", "produce blue r1s4-r2s4"]
                + [f"sell red r2s3 row{r}" for r in range(1, 6)] + [f"sell blue r2s1 row{r}" for r in range(1, 6)])
    assert notations(state.legal_moves()) == sorted(expected)  # gold (not rolled) and p2's materials: nothing


def test_one_action_then_the_turn_passes(game):
    state = rolled(game, NORMAL, "red blue")
    state.apply("sell red r2s3 row2")
    d = data(state)
    assert d["vars"]["money"] == [32, 30]  # row 2, square 1 pays $2
    assert d["cells"]["row2s1"] == material("red") and "p1-r2s3" not in d["cells"]
    assert d["vars"]["row_of"] == {"table": [["red", 2]]}
    assert at_roll(state, 1) and d["turn"] == 1


def test_take_moves_a_material_from_the_bank(game):
    state = rolled(game, NORMAL, "red blue")
    state.apply("take blue r1s3")
    assert data(state)["cells"]["p1-r1s3"] == material("blue")
    assert bank(state)["blue"] == 8 - 3 - 1 and money(state) == [30, 30]


def test_produce_moves_a_material_from_row_1_to_row_2(game):
    state = rolled(game, NORMAL, "red blue")
    state.apply("produce red r1s1-r2s2")
    cells = data(state)["cells"]
    assert cells["p1-r2s2"] == material("red") and "p1-r1s1" not in cells
    assert money(state) == [30, 30]


def test_take_needs_the_colour_in_the_bank(game):
    # all 8 blue are in companies: blue can only be produced or sold
    cells = {"p1-r1s1": "blue", "p1-r1s2": "blue", "p2-r1s1": "blue", "p2-r1s2": "blue",
             "p2-r1s3": "blue", "p2-r1s4": "blue", "p2-r2s1": "blue", "p2-r2s2": "blue"}
    state = rolled(game, cells, "blue white")
    expected = (takes(["white"], [3, 4]) + ["produce blue r1s1-r2s1", "produce blue r1s1-r2s2",
                                            "produce blue r1s2-r2s1", "produce blue r1s2-r2s2",
                                            "produce blue r1s2-r2s3"])
    assert notations(state.legal_moves()) == sorted(expected)
    assert_rejected(state, "take blue r1s3")


def test_no_possible_action_means_pass(game):
    # row 1 full of gold, row 2 empty, nothing white or green anywhere in p1's company
    cells = {f"p1-r1s{k}": "gold" for k in range(1, 5)}
    state = rolled(game, cells, "white green")
    assert notations(state.legal_moves()) == ["pass"]
    state.apply("pass")
    assert at_roll(state, 1)


def test_pass_is_illegal_when_an_action_is_possible(game):
    state = rolled(game, NORMAL, "red blue")
    with pytest.raises(MoveError) as info:
        state.apply("pass")
    assert info.value.kind == "illegal"


# -- production straight or diagonally ahead ---------------------------------------------------------
def test_production_goes_straight_or_diagonally_ahead(game):
    cells = {"p1-r1s1": "green", "p1-r1s2": "white", "p1-r1s3": "gold", "p1-r1s4": "green"}
    state = rolled(game, cells, "green white")
    assert notations(state.legal_moves()) == sorted([
        "produce green r1s1-r2s1", "produce green r1s1-r2s2",   # square 1: no square 0
        "produce green r1s4-r2s3", "produce green r1s4-r2s4",   # square 4: no square 5
        "produce white r1s2-r2s1", "produce white r1s2-r2s2", "produce white r1s2-r2s3",
    ])
    assert_rejected(state, "produce green r1s1-r2s3")


def test_production_needs_an_empty_square_ahead(game):
    cells = {"p1-r1s1": "green", "p1-r1s2": "gold", "p1-r1s3": "gold", "p1-r1s4": "gold",
             "p1-r2s2": "red", "p1-r2s3": "green"}
    state = rolled(game, cells, "green green")
    # r2s2 is taken; the green on r2s3 may be sold to any empty market row
    assert notations(state.legal_moves()) == sorted(
        ["produce green r1s1-r2s1"] + [f"sell green r2s3 row{r}" for r in range(1, 6)])


# -- doubles and the star --------------------------------------------------------------------------
def test_a_double_gives_two_actions_of_that_colour(game):
    state = rolled(game, {}, "blue blue")
    assert notations(state.legal_moves()) == sorted(takes(["blue"]))
    state.apply("take blue r1s2")
    assert state.current_player() == 0 and data(state)["turn"] == 0  # the second action
    assert notations(state.legal_moves()) == sorted(
        takes(["blue"], [1, 3, 4]) + ["produce blue r1s2-r2s1", "produce blue r1s2-r2s2", "produce blue r1s2-r2s3"])
    state.apply("produce blue r1s2-r2s3")
    assert at_roll(state, 1) and data(state)["turn"] == 1
    assert data(state)["cells"] == {"p1-r2s3": material("blue")}


def test_the_second_action_of_a_double_is_taken_only_if_possible(game):
    # bank: a single blue (7 are in p2's company); p1's row 2 is full of gold
    cells = {f"p1-r2s{k}": "gold" for k in range(1, 5)}
    cells.update({f"p2-r1s{k}": "blue" for k in range(1, 5)})
    cells.update({f"p2-r2s{k}": "blue" for k in range(1, 4)})
    state = rolled(game, cells, "blue blue")
    assert notations(state.legal_moves()) == sorted(takes(["blue"]))
    state.apply("take blue r1s4")
    assert state.current_player() == 0 and notations(state.legal_moves()) == ["pass"]
    state.apply("pass")
    assert at_roll(state, 1)


def test_a_double_offers_only_its_colour(game):
    cells = {"p1-r1s1": "red", "p1-r2s4": "white"}
    state = rolled(game, cells, "white white")
    assert notations(state.legal_moves()) == sorted(
        takes(["white"], [2, 3, 4]) + [f"sell white r2s4 row{r}" for r in range(1, 6)])
    state.apply("sell white r2s4 row1")
    assert notations(state.legal_moves()) == sorted(takes(["white"], [2, 3, 4]))  # white's row is now row 1
    assert money(state) == [31, 30]


def test_two_different_colours_give_one_action(game):
    state = rolled(game, {}, "blue red")
    state.apply("take blue r1s1")
    assert at_roll(state, 1)


def test_the_star_is_any_colour_in_play(game):
    cells = market(3, "gold", 5)  # gold is closed
    state = rolled(game, cells, "red star")
    assert notations(state.legal_moves()) == sorted(takes(["white", "blue", "green", "red"]))
    state.apply("take green r1s1")
    assert data(state)["cells"]["p1-r1s1"] == material("green")


def test_the_star_never_makes_a_double(game):
    state = rolled(game, {}, "red star")
    state.apply("take red r1s1")  # the star chosen as red too: still one action
    assert at_roll(state, 1)


def test_the_star_with_a_closed_colour_on_die_a(game):
    state = rolled(game, market(3, "gold", 5), "gold star")
    assert notations(state.legal_moves()) == sorted(takes(["white", "blue", "green", "red"]))


def test_a_closed_colour_cannot_be_used(game):
    state = rolled(game, market(3, "gold", 5), "gold gold")
    assert notations(state.legal_moves()) == ["pass"]
    state.apply("pass")
    assert at_roll(state, 1)
    state = rolled(game, market(3, "gold", 5) | {"p1-r1s1": "red"}, "gold red")
    assert notations(state.legal_moves()) == sorted(
        takes(["red"], [2, 3, 4]) + ["produce red r1s1-r2s1", "produce red r1s1-r2s2"])


# -- selling ---------------------------------------------------------------------------------------
def test_first_sale_of_a_colour_chooses_any_empty_row_later_sales_follow(game):
    cells = {f"p1-r1s{k}": "gold" for k in range(1, 5)}
    cells.update(market(3, "blue", 2))
    cells.update({"p1-r2s1": "red", "p1-r2s2": "blue"})
    state = rolled(game, cells, "red blue")
    assert notations(state.legal_moves()) == sorted(
        [f"sell red r2s1 row{r}" for r in (1, 2, 4, 5)] + ["sell blue r2s2 row3"])
    assert_rejected(state, "sell blue r2s2 row1")
    assert_rejected(state, "sell red r2s1 row3")  # row 3 belongs to blue


def test_later_sale_goes_on_the_next_square_of_the_colours_row(game):
    cells = {f"p1-r1s{k}": "gold" for k in range(1, 5)} | market(3, "blue", 2) | {"p1-r2s2": "blue"}
    state = rolled(game, cells, "blue blue")
    state.apply("sell blue r2s2 row3")
    d = data(state)
    assert d["cells"]["row3s3"] == material("blue") and "row3s4" not in d["cells"]
    assert d["vars"]["money"] == [30 + 7, 30]  # row 3, square 3: 3 + 2*2


def test_first_sale_takes_the_row_for_its_colour(game):
    cells = {f"p1-r1s{k}": "gold" for k in range(1, 5)} | market(3, "blue", 2) | {"p1-r2s1": "red",
                                                                                    "p1-r2s4": "red"}
    state = rolled(game, cells, "red red")
    state.apply("sell red r2s1 row5")
    assert money(state) == [35, 30] and data(state)["vars"]["row_of"]["table"] == [["blue", 3], ["red", 5]]
    assert notations(state.legal_moves()) == ["sell red r2s4 row5"]
    state.apply("sell red r2s4 row5")
    assert money(state) == [35 + 7, 30]
    assert data(state)["cells"]["row5s2"] == material("red")


@pytest.mark.parametrize("row", range(1, 6))
@pytest.mark.parametrize("k", range(1, 6))
def test_market_prices(game, row, k):
    cells = market(row, "red", k - 1) | {"p1-r2s1": "red", "p1-r1s1": "gold", "p1-r1s2": "gold",
                                         "p1-r1s3": "gold", "p1-r1s4": "gold"}
    state = rolled(game, cells, "red gold")
    sells = [m for m in notations(state.legal_moves()) if m.startswith("sell")]
    assert sells == ([f"sell red r2s1 row{r}" for r in range(1, 6)] if k == 1 else [f"sell red r2s1 row{row}"])
    state.apply(f"sell red r2s1 row{row}")
    assert money(state)[0] == 30 + price(row, k)
    assert data(state)["cells"][f"row{row}s{k}"] == material("red")


def test_the_fifth_sale_closes_the_colour(game):
    cells = market(4, "blue", 4) | {"p1-r2s3": "blue", "p1-r1s2": "red", "p2-r1s2": "blue", "p2-r2s1": "blue",
                                    "p2-r2s2": "gold"}
    state = rolled(game, cells, "blue white")
    state.apply("sell blue r2s3 row4")
    d = data(state)
    assert d["vars"]["money"] == [30 + 12, 30]  # row 4, square 5: 4 + 2*4
    assert d["vars"]["closed"] == ["blue"]
    assert {n: p["colour"] for n, p in d["cells"].items() if not n.startswith("row")} == {
        "p1-r1s2": "red", "p2-r2s2": "gold"}  # only blue left the companies
    assert bank(state)["blue"] == 0 and out_of_play(state) == {"blue": 3}  # 2 from p2, 1 from the bank
    assert bank(state) == {"white": 8, "gold": 7, "green": 8, "red": 7}
    # later rolls: blue cannot be used any more
    assert at_roll(state, 1)
    state.apply("roll blue blue")
    assert notations(state.legal_moves()) == ["pass"]
    state.apply("pass")
    state.apply("roll blue star")
    assert notations(state.legal_moves()) == sorted(takes(["white", "gold", "green", "red"], [1, 3, 4]) + [
        "produce red r1s2-r2s1", "produce red r1s2-r2s2", "produce red r1s2-r2s3"])
    state.apply("take gold r1s1")
    state.apply("roll hammer blue")  # an auction of a closed colour: none, p2 rolls again
    assert at_roll(state, 1) and data(state)["turn"] == 3


# -- storage fees --------------------------------------------------------------------------------
ROW1_3 = {"p1-r1s1": "red", "p1-r1s2": "blue", "p1-r1s4": "gold"}
ROW1_4 = {"p1-r1s1": "red", "p1-r1s2": "blue", "p1-r1s3": "gold", "p1-r1s4": "green"}
ROW2_2 = {"p1-r2s1": "green", "p1-r2s3": "white"}
ROW2_3 = {"p1-r2s1": "white", "p1-r2s2": "red", "p1-r2s4": "blue"}


@pytest.mark.parametrize("cells, fee", [
    ({}, 0),
    (ROW2_2, 0),
    (ROW1_3 | ROW2_2, 5),
    (ROW2_3, 5),
    (ROW1_4, 5),
    (ROW1_3 | ROW2_3, 10),
    (ROW1_4 | ROW2_3, 10),
], ids=["empty", "two", "row1-3", "row2-3", "row1-4", "both-3", "both"])
def test_storage_fees_at_the_start_of_the_turn(game, cells, fee):
    state = start_turn(game, cells, 0, money=[30, 17])
    assert at_roll(state, 0)
    assert money(state) == [30 - fee, 17]  # p2 (whose turn ended) pays nothing
    assert data(state)["cells"] == {"p2-r1s1": material("white")} | {n: material(c) for n, c in cells.items()}


def test_fees_are_paid_when_money_equals_the_fee(game):
    state = start_turn(game, ROW1_3 | ROW2_3, 0, money=[10, 30])
    assert at_roll(state, 0) and money(state) == [0, 30]


def test_fees_of_the_second_player(game):
    cells = {"p2-r2s1": "red", "p2-r2s2": "red", "p2-r2s4": "gold"}
    state = rolled(game, cells, "green white", player=0)
    state.apply("take green r1s1")
    assert at_roll(state, 1) and money(state) == [30, 25]


def test_unaffordable_fee_one_row(game):
    state = start_turn(game, ROW1_3 | ROW2_2, 0, money=[4, 30])
    assert state.current_player() == 0 and data(state)["step"] == "return_stock"
    assert notations(state.legal_moves()) == sorted(["return red r1s1", "return blue r1s2", "return gold r1s4"])
    state.apply("return blue r1s2")
    assert at_roll(state, 0) and money(state) == [4, 30]
    assert "p1-r1s2" not in data(state)["cells"] and bank(state)["blue"] == 8


def test_unaffordable_fee_both_rows_no_partial_payment(game):
    state = start_turn(game, ROW1_4 | ROW2_3, 0, money=[7, 30])  # $7 would pay one row's fee, not $10
    assert notations(state.legal_moves()) == sorted(
        ["return red r1s1", "return blue r1s2", "return gold r1s3", "return green r1s4",
         "return white r2s1", "return red r2s2", "return blue r2s4"])
    state.apply("return red r2s2")  # row 2 now holds 2
    assert notations(state.legal_moves()) == sorted(
        ["return red r1s1", "return blue r1s2", "return gold r1s3", "return green r1s4"])
    assert_rejected(state, "return white r2s1")
    state.apply("return gold r1s3")  # row 1 still holds 3
    assert notations(state.legal_moves()) == sorted(["return red r1s1", "return blue r1s2", "return green r1s4"])
    state.apply("return green r1s4")
    assert at_roll(state, 0) and money(state) == [7, 30]
    cells = {n: p["colour"] for n, p in data(state)["cells"].items()}
    assert cells == {"p1-r1s1": "red", "p1-r1s2": "blue", "p1-r2s1": "white", "p1-r2s4": "blue",
                     "p2-r1s1": "white"}
    assert sum(bank(state).values()) == 40 - 5


def test_no_fees_after_a_hammer_reroll(game):
    state = mark_position(game, ROW1_3, "roll", 0)
    state.apply("roll hammer red")
    for p in (0, 1):
        state.apply("bid 0", p)
    assert at_roll(state, 0) and money(state) == [30, 30]


# -- auctions ------------------------------------------------------------------------------------
def test_hammer_starts_a_simultaneous_auction_of_die_b_colour(game):
    state = mark_position(game, {"p1-r1s2": "gold"}, "roll", 0, money=[30, 12])
    state.apply("roll hammer red")
    assert state.current_player() == SIMULTANEOUS and state.acting_players() == [0, 1]
    assert notations(state.legal_moves(0)) == sorted(f"bid {a}" for a in range(31))
    assert notations(state.legal_moves(1)) == sorted(f"bid {a}" for a in range(13))
    with pytest.raises(MoveError) as info:
        state.apply("bid 13", 1)
    assert info.value.kind == "illegal"
    state.apply("bid 7", 1)
    assert state.acting_players() == [0]
    theirs, mine = state.observation(0), state.observation(1)
    assert theirs["pending"] == {"1": "chosen"} and "bid 7" not in json.dumps(theirs)
    assert theirs["history"][-1] == "(secret choice)"
    assert mine["pending"] == {"1": "bid 7"}
    state.apply("bid 9", 0)
    assert "bid 7" in state.observation(0)["history"] and "bid 9" in state.observation(1)["history"]
    assert money(state) == [21, 12]
    assert state.current_player() == 0
    assert notations(state.legal_moves()) == ["take red r1s1", "take red r1s3", "take red r1s4"]
    state.apply("take red r1s3")
    assert data(state)["cells"]["p1-r1s3"] == material("red") and bank(state)["red"] == 7
    assert at_roll(state, 0) and data(state)["turn"] == 0  # the roller rolls again
    state.apply("roll white green")
    assert notations(state.legal_moves()) == sorted(takes(["white", "green"], [1, 4]))


def test_auction_won_by_another_player(game):
    state = mark_position(game, {"p2-r1s1": "gold", "p2-r1s4": "gold"}, "roll", 0)
    state.apply("roll hammer blue")
    state.apply("bid 3", 0)
    state.apply("bid 4", 1)
    assert money(state) == [30, 26] and state.current_player() == 1
    assert notations(state.legal_moves()) == ["take blue r1s2", "take blue r1s3"]
    state.apply("take blue r1s2")
    assert data(state)["cells"]["p2-r1s2"] == material("blue")
    assert at_roll(state, 0)


@pytest.mark.parametrize("roller, bids, winner", [
    (1, [5, 5, 5], 1),   # the roller wins a tie
    (1, [5, 2, 5], 2),   # else the first tied player clockwise after the roller
    (2, [4, 4, 1], 0),
    (0, [1, 3, 3], 1),
    (2, [0, 6, 6], 2),
    (1, [6, 2, 5], 0),   # the highest bid wins
])
def test_auction_ties(game3, roller, bids, winner):
    state = mark_position(game3, {}, "roll", roller)
    state.apply("roll hammer green")
    assert state.acting_players() == [0, 1, 2]
    for p, amount in enumerate(bids):
        state.apply(f"bid {amount}", p)
    expected = [30, 30, 30]
    expected[winner] -= max(bids)
    assert money(state) == expected
    assert state.current_player() == winner
    state.apply("take green r1s1")
    assert data(state)["cells"] == {f"p{winner + 1}-r1s1": material("green")}
    assert at_roll(state, roller)


def test_winner_with_a_full_row_1_pays_and_gets_nothing(game):
    cells = {f"p1-r1s{k}": "white" for k in range(1, 5)}
    state = mark_position(game, cells, "roll", 0)
    state.apply("roll hammer red")
    state.apply("bid 5", 0)
    state.apply("bid 3", 1)
    assert money(state) == [25, 30]
    assert at_roll(state, 0)
    assert bank(state)["red"] == 8 and data(state)["cells"] == {n: material(c) for n, c in cells.items()}


def test_everybody_bidding_zero_means_no_sale(game):
    state = mark_position(game, {}, "roll", 1)
    state.apply("roll hammer gold")
    state.apply("bid 0", 0)
    state.apply("bid 0", 1)
    assert money(state) == [30, 30] and bank(state)["gold"] == 8 and data(state)["cells"] == {}
    assert at_roll(state, 1)


def test_hammer_and_star_the_roller_names_a_colour_in_play(game):
    state = mark_position(game, market(2, "white", 5), "roll", 1)
    state.apply("roll hammer star")
    assert state.current_player() == 1
    assert notations(state.legal_moves()) == ["name blue", "name gold", "name green", "name red"]
    with pytest.raises(MoveError) as info:
        state.apply("name white")
    assert info.value.kind == "illegal"
    state.apply("name gold")
    assert state.current_player() == SIMULTANEOUS and state.acting_players() == [0, 1]
    state.apply("bid 2", 0)
    state.apply("bid 1", 1)
    assert money(state) == [28, 30] and state.current_player() == 0
    assert notations(state.legal_moves()) == sorted(takes(["gold"]))


def test_no_auction_of_a_closed_colour(game):
    state = mark_position(game, market(2, "white", 5), "roll", 0)
    state.apply("roll hammer white")
    assert at_roll(state, 0) and money(state) == [30, 30]


def test_no_auction_when_the_bank_has_none(game):
    cells = {f"p1-r1s{k}": "blue" for k in range(1, 5)} | {f"p2-r2s{k}": "blue" for k in range(1, 5)}
    state = mark_position(game, cells, "roll", 0)
    assert bank(state)["blue"] == 0
    state.apply("roll hammer blue")
    assert at_roll(state, 0)
    state.apply("roll hammer star")
    assert notations(state.legal_moves()) == ["name blue", "name gold", "name green", "name red", "name white"]
    state.apply("name blue")
    assert at_roll(state, 0) and money(state) == [30, 30] and data(state)["turn"] == 0


# -- the end -------------------------------------------------------------------------------------
FOUR_FULL = market(1, "white", 5) | market(2, "blue", 5) | market(3, "gold", 5) | market(4, "green", 5)


def test_game_ends_when_all_five_rows_are_full(game):
    cells = FOUR_FULL | market(5, "red", 4) | {"p1-r2s2": "red"}
    state = rolled(game, cells, "red green", money=[30, 40])
    assert notations(state.legal_moves()) == sorted(takes(["red"]) + ["sell red r2s2 row5"])
    state.apply("sell red r2s2 row5")
    assert state.is_terminal() and state.current_player() == TERMINAL and state.legal_moves() == []
    assert money(state) == [43, 40]
    assert state.scores() == [43, 40] and state.winners == [0] and state.returns() == [1.0, -1.0]


def test_the_game_ends_between_the_two_actions_of_a_double(game):
    cells = FOUR_FULL | market(5, "red", 4) | {"p1-r2s2": "red", "p1-r1s1": "red"}
    state = rolled(game, cells, "red red", money=[30, 50])
    state.apply("sell red r2s2 row5")
    assert state.is_terminal() and state.legal_moves() == []
    assert state.winners == [1] and state.returns() == [-1.0, 1.0]


def test_four_full_rows_do_not_end_the_standard_game(game):
    cells = {n: c for n, c in FOUR_FULL.items() if n != "row4s5"} | {"p1-r2s3": "green"}
    state = rolled(game, cells, "green red")
    state.apply("sell green r2s3 row4")
    assert not state.is_terminal() and at_roll(state, 1)


def test_four_row_ending_variant(four_rows):
    cells = market(1, "white", 5) | market(2, "blue", 5) | market(3, "gold", 5) | market(4, "green", 4)
    state = rolled(four_rows, cells | {"p2-r2s1": "green"}, "green star", player=1, money=[30, 20])
    state.apply("sell green r2s1 row4")
    assert state.is_terminal() and money(state) == [30, 32] and state.winners == [1]


def test_three_full_rows_do_not_end_the_four_row_game(four_rows):
    cells = market(1, "white", 5) | market(2, "blue", 5) | market(3, "gold", 4)
    state = rolled(four_rows, cells | {"p1-r2s1": "gold"}, "gold blue")
    state.apply("sell gold r2s1 row3")
    assert not state.is_terminal() and at_roll(state, 1)


def test_tied_richest_players_share_the_win(game):
    cells = FOUR_FULL | market(5, "red", 4) | {"p1-r2s2": "red"}
    state = rolled(game, cells, "red green", money=[30, 43])
    state.apply("sell red r2s2 row5")
    assert state.is_terminal() and state.winners == [0, 1] and state.returns() == [1.0, 1.0]


def test_tied_richest_of_three_share_the_win(game3):
    cells = FOUR_FULL | market(5, "red", 4) | {"p3-r2s2": "red"}
    state = rolled(game3, cells, "red green", player=2, money=[25, 30, 17])
    state.apply("sell red r2s2 row5")
    assert state.is_terminal() and state.winners == [1, 2] and state.returns() == [-1.0, 1.0, 1.0]


# -- three and four players ------------------------------------------------------------------------
def test_three_players_seats_and_turn_order(game3):
    state = game3.new_initial_state()
    assert {str(m): p for m, p in state.chance_outcomes()} == {
        f"first p{i}": pytest.approx(1 / 3) for i in (1, 2, 3)}
    state.apply("first p2")
    order = []
    for _ in range(4):
        order.append(data(state)["player"])
        state.apply("roll gold red")
        state.apply("take gold r1s1" if len(order) < 4 else "take gold r1s2")
    assert order == [1, 2, 0, 1]
    assert {n for n in data(state)["cells"]} == {"p1-r1s1", "p2-r1s1", "p2-r1s2", "p3-r1s1"}
    assert money(state) == [30, 30, 30]


def test_four_players_seats_and_turn_order(game4):
    state = game4.new_initial_state()
    assert {str(m): p for m, p in state.chance_outcomes()} == {
        f"first p{i}": pytest.approx(1 / 4) for i in (1, 2, 3, 4)}
    assert money(state) == [30, 30, 30, 30]
    state.apply("first p3")
    order = []
    for i in range(5):
        order.append(data(state)["player"])
        state.apply("roll blue white")
        state.apply(f"take blue r1s{1 + i // 4}")
    assert order == [2, 3, 0, 1, 2]
    assert sorted(data(state)["cells"]) == ["p1-r1s1", "p2-r1s1", "p3-r1s1", "p3-r1s2", "p4-r1s1"]
    # p4 (seat 3) rolls a hammer: all four players bid; the tie of seats 0 and 2 goes to seat 0, the first
    # clockwise after the roller
    assert at_roll(state, 3)
    state.apply("roll hammer red")
    assert state.acting_players() == [0, 1, 2, 3]
    for p, amount in enumerate([2, 0, 2, 1]):
        state.apply(f"bid {amount}", p)
    assert money(state) == [28, 30, 30, 30]
    assert state.current_player() == 0 and notations(state.legal_moves()) == sorted(takes(["red"], [2, 3, 4]))
    state.apply("take red r1s2")
    assert at_roll(state, 3)


def test_four_players_fees_and_cells(game4):
    cells = {"p4-r2s1": "red", "p4-r2s2": "red", "p4-r2s4": "blue", "p3-r1s1": "gold"}
    state = mark_position(game4, cells, "roll", 2)
    state.apply("roll gold gold")
    assert notations(state.legal_moves()) == sorted(
        takes(["gold"], [2, 3, 4]) + ["produce gold r1s1-r2s1", "produce gold r1s1-r2s2"])
    state.apply("produce gold r1s1-r2s2")
    state.apply("take gold r1s1")
    assert at_roll(state, 3) and money(state) == [30, 30, 30, 25]


# -- seeded random games against an independent reading of the spec ---------------------------------
class Reference:
    """The spec's flow, legal moves and money, computed from the public JSON of a state and the moves."""

    def __init__(self, n: int, rows_to_end: int):
        self.n, self.rows_to_end = n, rows_to_end
        self.phase, self.actor, self.roller = "first", None, None
        self.colours, self.actions_left, self.lot, self.bids = [], 0, None, {}
        self.seen = Counter()  # which rules the game went through

    # position facts
    @staticmethod
    def company(d, p, row):
        return {k: d["cells"][f"p{p + 1}-r{row}s{k}"]["colour"] for k in range(1, 5)
                if f"p{p + 1}-r{row}s{k}" in d["cells"]}

    _cache = (None, None)

    def market_rows(self, d):
        if self._cache[0] is d:
            return self._cache[1]
        rows = {}
        for r in range(1, 6):
            squares = [d["cells"].get(f"row{r}s{k}") for k in range(1, 6)]
            filled = [s for s in squares if s is not None]
            assert squares[:len(filled)] == filled, "market rows fill from square 1"
            assert len({s["colour"] for s in filled}) <= 1, "one colour per market row"
            rows[r] = (filled[0]["colour"] if filled else None, len(filled))
        self._cache = (d, rows)
        return rows

    def closed(self, d):
        return {c for c, n in self.market_rows(d).values() if n == 5}

    @staticmethod
    def in_bank(d, colour):
        return any(i["piece"]["colour"] == colour for i in d["zones"]["bank"])

    def fee(self, d, p):
        return 5 * sum(1 for row in (1, 2) if len(self.company(d, p, row)) > 2)

    # expected legal moves of the current phase
    def expected_moves(self, d, p):
        if self.phase == "bidding":
            return sorted(f"bid {a}" for a in range(d["vars"]["money"][p] + 1))
        if self.phase == "name":
            return sorted(f"name {c}" for c in COLOURS if c not in self.closed(d))
        if self.phase == "place":
            r1 = self.company(d, p, 1)
            return sorted(f"take {self.lot} r1s{k}" for k in range(1, 5) if k not in r1)
        if self.phase == "return":
            return sorted(f"return {c} r{row}s{k}" for row in (1, 2) if len(self.company(d, p, row)) > 2
                          for k, c in self.company(d, p, row).items())
        assert self.phase == "action"
        closed, rows = self.closed(d), self.market_rows(d)
        r1, r2 = self.company(d, p, 1), self.company(d, p, 2)
        moves = []
        for c in self.colours:
            if c in closed:
                continue
            moves += [f"take {c} r1s{k}" for k in range(1, 5) if k not in r1 and self.in_bank(d, c)]
            moves += [f"produce {c} r1s{i}-r2s{j}" for i, ci in r1.items() if ci == c
                      for j in (i - 1, i, i + 1) if 1 <= j <= 4 and j not in r2]
            own = [r for r, (rc, _) in rows.items() if rc == c]
            targets = own or [r for r, (rc, _) in rows.items() if rc is None]
            moves += [f"sell {c} r2s{i} row{r}" for i, ci in r2.items() if ci == c for r in targets]
        return sorted(moves) or ["pass"]

    def check_node(self, state, d):
        if self.phase in ("first", "roll"):
            assert state.current_player() == CHANCE and d["step"] in ("first", "roll")
            if self.phase == "roll":
                assert d["player"] == self.roller
        elif self.phase == "bidding":
            assert state.current_player() == SIMULTANEOUS
            waiting = [p for p in range(self.n) if p not in self.bids]
            assert state.acting_players() == waiting
            for p in waiting:
                assert notations(state.legal_moves(p)) == self.expected_moves(d, p)
        else:
            assert state.current_player() == self.actor
            assert notations(state.legal_moves()) == self.expected_moves(d, self.actor)

    # what a ply does: the next phase and the expected change of money
    def after(self, move: str, who, before, d) -> list[int]:
        delta = [0] * self.n
        if self.phase == "action" and move.startswith("sell"):
            new = [n for n in d["cells"] if n.startswith("row") and n not in before["cells"]]
            assert len(new) == 1
            delta[who] += price(int(new[0][3]), int(new[0][-1]))
        if self.phase in ("name", "return", "place"):
            self.seen[self.phase] += 1
        if len(self.closed(d)) > len(self.closed(before)):
            self.seen["closed"] += 1
        if not self.end(d):
            self._after(move, who, before, d, delta)
        return delta

    def end(self, d):
        return sum(1 for _, n in self.market_rows(d).values() if n == 5) >= self.rows_to_end

    def _turn_start(self, p, before, d, delta):
        self.roller = p
        fee = self.fee(d, p)
        if fee and before["vars"]["money"][p] < fee:
            self.phase, self.actor = "return", p
            self.seen["fee unpaid"] += 1
        else:
            delta[p] -= fee
            self.seen[f"fee {fee}"] += 1
            self.phase = "roll"

    def _auction(self, d):
        if self.lot in self.closed(d) or not self.in_bank(d, self.lot):
            self.phase = "roll"
            self.seen["no auction"] += 1
        else:
            self.phase, self.bids = "bidding", {}

    def _after(self, move, who, before, d, delta):
        words = move.split()
        if self.phase == "first":
            self._turn_start(int(words[1][1:]) - 1, before, d, delta)
        elif self.phase == "roll":
            a, b = words[1], words[2]
            if a == "hammer":
                if b == "star":
                    self.phase, self.actor = "name", self.roller
                else:
                    self.lot = b
                    self._auction(d)
            else:
                self.phase, self.actor = "action", self.roller
                self.colours = [a] if a == b else [c for c in COLOURS if c in (a, b) or b == "star"]
                self.actions_left = 2 if a == b else 1
                self.double = a == b
        elif self.phase == "name":
            self.lot = words[1]
            self._auction(d)
        elif self.phase == "bidding":
            self.bids[who] = int(words[1])
            if len(self.bids) == self.n:
                best = max(self.bids.values())
                order = [(self.roller + k) % self.n for k in range(self.n)]
                winner = next((p for p in order if self.bids[p] == best), None) if best > 0 else None
                self.phase = "roll"
                self.seen["auction: nobody bids" if winner is None else
                          "auction: tie" if list(self.bids.values()).count(best) > 1 else "auction: won"] += 1
                if winner is not None:
                    delta[winner] -= best
                    if len(self.company(before, winner, 1)) < 4:
                        self.phase, self.actor = "place", winner
                    else:
                        self.seen["auction: row 1 full"] += 1
        elif self.phase == "place":
            self.phase = "roll"
        elif self.phase == "return":
            if any(len(self.company(d, self.actor, row)) > 2 for row in (1, 2)):
                return
            self.phase = "roll"
        elif self.phase == "action":
            self.seen[words[0]] += 1
            if self.double and self.actions_left == 1:
                self.seen["second action of a double"] += 1
            self.actions_left -= 1
            if words[0] != "pass" and self.actions_left > 0:
                return
            self._turn_start((self.roller + 1) % self.n, before, d, delta)


def check_materials(d, closed):
    counts = Counter(p["colour"] for p in d["cells"].values())
    counts.update(i["piece"]["colour"] for zone in ("bank", "out_of_play") for i in d["zones"][zone])
    assert counts == {c: 8 for c in COLOURS}, counts
    assert all(p["kind"] == "material" for p in d["cells"].values())
    assert {i["piece"]["colour"] for i in d["zones"]["out_of_play"]} <= closed
    for c in closed:  # a closed colour is only in its market row and out of play
        assert not any(i["piece"]["colour"] == c for i in d["zones"]["bank"])
        assert not any(p["colour"] == c for n, p in d["cells"].items() if not n.startswith("row"))
    assert sorted(d["vars"]["closed"]) == sorted(closed)


def checked_playout(game, seed, rows_to_end=5):
    n = game.num_players
    ref = Reference(n, rows_to_end)
    state = game.new_initial_state(seed)
    rng = Rng(seed)
    d = data(state)
    plies = 0
    while not state.is_terminal():
        ref.check_node(state, d)
        player = state.current_player()
        if player == CHANCE:
            move, who = state.sample_chance(rng), None
        elif player == SIMULTANEOUS:
            who = state.acting_players()[0]
            legal = state.legal_moves(who)
            move = legal[rng.below(len(legal))]
        else:
            legal = state.legal_moves()
            move, who = legal[rng.below(len(legal))], player
        before = d
        state.apply(move, who)
        d = data(state)
        expected = ref.after(str(move), who, before, d)
        change = [after - was for after, was in zip(d["vars"]["money"], before["vars"]["money"])]
        assert change == expected, (str(move), change, expected)
        check_materials(d, ref.closed(d))
        plies += 1
        if plies % 25 == 0 and not d["pending"] and not state.is_terminal():
            # continue from the state's JSON without its history (which would make to_json quadratic):
            # the game goes on the same from a round trip
            d = dict(d, history=[])
            state = game.state_from_json(d)
            assert data(state) == d
        assert plies < 5000
    assert ref.end(d)
    richest = max(d["vars"]["money"])
    assert state.winners == [p for p in range(n) if d["vars"]["money"][p] == richest]
    assert state.returns() == [1.0 if p in state.winners else -1.0 for p in range(n)]
    return ref.seen


EVENTS = {"fee 0", "fee 5", "fee 10", "fee unpaid", "return", "take", "produce", "sell", "pass",
          "second action of a double", "closed", "name", "no auction", "auction: nobody bids", "auction: tie",
          "auction: won", "auction: row 1 full", "place"}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_follow_the_spec(players):
    game = load("mark", options={"players": str(players)})
    seen = Counter()
    for seed in range(20):
        seen += checked_playout(game, 1000 * players + seed, 5)
    assert EVENTS - {"fee 10"} <= set(seen)  # the games went through every rule (both fees are rare)


def test_random_games_of_the_four_row_ending_follow_the_spec():
    games = {n: load("mark", variant="four-row-ending", options={"players": str(n)}) for n in (2, 3, 4)}
    seen = Counter()
    for seed in range(21):
        seen += checked_playout(games[2 + seed % 3], 5000 + seed, 4)
    assert EVENTS - {"fee 10"} <= set(seen)
