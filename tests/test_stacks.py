"""Cells that hold several pieces and numbers: zones and variables kept per cell (`keys: cells`), the stack
built-ins (move and remove take the top, move_top), initial board contents (`board: init`), and how all of
these are drawn, saved, hidden and counted as writes. Two small games written here: a race with shared
squares and a sowing game."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rulesdsl
from rulesdsl import Rng
from rulesdsl.agents import PlayerView
from rulesdsl.errors import GameRuntimeError, RulesError
from rulesdsl.render import render_state

from .helpers import ROOT

# A race on six squares: every pawn starts stacked on s0 (blue, red, blue, red from the bottom up); the
# player whose pawn is on top of a square may move it one or two squares on, onto the top of that stack.
RACE = """
game: Shared squares
players: {count: 2, names: [red, blue]}
board:
  cells: "['s' + str(i) for i in 0..5]"
  links:
    ahead: {next: "cells[c.index + 1] if c.index < 5 else none"}
pieces:
  pawn:
    attributes: {colour: [red, blue]}
    derived: {owner: "seat(colour)", symbol: "'R' if colour == 'red' else 'B'"}
zones:
  square:
    keys: cells
    VISIBLE
    init: "[piece('pawn', colour=c) for i in 1..2 for c in ['blue', 'red']] if key == cell('s0') else []"
moves:
  advance:
    params:
      from: "[c for c in cells if last(square[c]) != none and last(square[c]).owner == me]"
      k: "1..2"
      to: "[last(walk('ahead', from, k))] if walk('ahead', from, k) else []"
    notation: "{from}-{to}"
    do: ["move(square[from], square[to])"]
flow:
  steps:
    play: {moves: [advance], pass: pass, next: end_turn}
end:
  - when: "size(square[cell('s5')]) > 0"
    winners: "last(square[cell('s5')]).owner"
"""

# Three pits a side and a store each on a 5 x 2 grid: south owns b1 c1 d1 and the store e1, north d2 c2 b2 and
# the store a2. Sowing goes b1 c1 d1 e1 d2 c2 b2 a2 and round, past the other player's store; the last seed
# in your own store plays again. The game ends when a side's pits are empty; store and side are the score.
SOWING = """
game: Little sowing
players: {count: 2, names: [south, north]}
board:
  grid: {columns: abcde, rows: 2}
  remove: [a1, e2]
  regions:
    ring: [b1, c1, d1, e1, d2, c2, b2, a2]
    stores: [e1, a2]
    pits:
      keys: players
      cells: "[c for c in ring if c not in stores and c.y == key + 1]"
  links:
    sow:
      keys: players
      next: "first(x for x in [ring[(index_of(ring, c) + k) % size(ring)] for k in 1..2] if x != stores[1 - key])"
vars:
  seeds:
    keys: cells
    init: "0 if key in stores else 2"
moves:
  sow:
    params:
      pit: "[c for c in pits[me] if seeds[c] > 0]"
    notation: "{pit}"
    do:
      - "path = walk('sow', pit, seeds[pit], me)"
      - "seeds[pit] = 0"
      - for: "c in path"
        do: ["seeds[c] += 1"]
      - if: "last(path) == stores[me]"
        then: ["goto('play')"]
flow:
  steps:
    play: {moves: [sow], next: end_turn}
end:
  - when: "any(all(seeds[c] == 0 for c in pits[p]) for p in players)"
scoring:
  score: "seeds[stores[me]] + sum(seeds[c] for c in pits[me])"
"""


@pytest.fixture
def race(write):
    return rulesdsl.load_game(write(RACE.replace("VISIBLE", "visible: all")))


@pytest.fixture
def sowing(write):
    return rulesdsl.load_game(write(SOWING))


def moves_of(state) -> list[str]:
    return sorted(str(m) for m in state.legal_moves())


def seeds(state) -> dict:
    """Each cell's seeds, by cell name, read from the saved state."""
    return {cell["cell"]: n for cell, n in state.to_json()["vars"]["seeds"]["table"]}


def problems(path: str) -> list[tuple[int, int, str]]:
    """(line, col, message) of every problem of a rule file."""
    with pytest.raises(RulesError) as info:
        rulesdsl.load_game(path)
    return [(p.location.line, p.location.col, p.message) for p in info.value.problems]


# -- stacks: a zone per cell --------------------------------------------------------------------------------

def test_only_the_top_pawn_of_a_shared_square_moves_and_lands_on_top(race):
    state = race.new_initial_state()
    assert moves_of(state) == ["s0-s1", "s0-s2"]  # red is on top of s0
    state.apply("s0-s2")
    assert moves_of(state) == ["s0-s1", "s0-s2"]  # now blue is on top of s0
    state.apply("s0-s2")                          # blue lands on red
    assert moves_of(state) == ["s0-s1", "s0-s2"]  # s2's top is blue: red moves from s0 only
    squares = {cell["cell"]: [p["piece"]["colour"] for p in pieces]
               for cell, pieces in state.to_json()["zones"]["square"]["table"]}
    assert squares == {"s0": ["blue", "red"], "s1": [], "s2": ["red", "blue"], "s3": [], "s4": [], "s5": []}
    state.apply("s0-s1")
    assert moves_of(state) == ["s0-s1", "s0-s2", "s2-s3", "s2-s4"]


def test_show_draws_each_stack_in_its_cell(race):
    state = race.new_initial_state()
    assert render_state(state) == "cells: s0:R*4\nturn 1: red to play (play)"  # a tall stack: top and height
    state.apply("s0-s2")
    state.apply("s0-s2")
    assert render_state(state) == "cells: s0:BR s2:RB\nturn 3: red to play (play)"


def test_the_race_ends_when_a_pawn_reaches_the_last_square(race):
    state = race.new_initial_state()
    for move in ["s0-s2", "s0-s2", "s0-s1", "s2-s4", "s1-s3", "s4-s5"]:
        state.apply(move)
    assert state.is_terminal() and state.winners == [1]  # blue, from s4


def test_stack_built_ins_take_from_the_top(write):
    effects = ["place(piece('pawn', colour='red'), square[cell('s1')])",
               "place(piece('pawn', colour='blue'), square[cell('s1')])",
               "place(piece('pawn', colour='red'), square[cell('s1')])",
               "move_top(square[cell('s0')], square[cell('s1')], 3)",   # R B R onto s1, in that order
               "remove(square[cell('s1')])",                             # takes that top R
               "move(square[cell('s0')], square[cell('s2')])"]           # s0's last pawn, B
    text = RACE.replace("VISIBLE", "visible: all").replace(
        'do: ["move(square[from], square[to])"]', "do: [" + ", ".join(json.dumps(e) for e in effects) + "]")
    state = rulesdsl.load_game(write(text)).new_initial_state()
    state.apply("s0-s1")
    squares = {cell["cell"]: "".join(p["piece"]["colour"][0] for p in pieces)
               for cell, pieces in state.to_json()["zones"]["square"]["table"]}
    assert squares == {"s0": "", "s1": "rbrrb", "s2": "b", "s3": "", "s4": "", "s5": ""}


@pytest.mark.parametrize("effect, message", [
    ("move_top(square[cell('s0')], square[cell('s1')], 5)", "move_top(): cannot take 5 pieces from a zone of 4"),
    ("move_top(square[cell('s0')], square[cell('s1')], -1)", "move_top(): cannot take -1 pieces from a zone of 4"),
    ("remove(square[cell('s3')])", "remove(): the zone is empty"),
    ("move(square[cell('s3')], square[cell('s1')])", "move(): the zone is empty"),
])
def test_taking_more_than_a_stack_holds_is_a_located_runtime_error(write, effect, message):
    text = RACE.replace("VISIBLE", "visible: all").replace('"move(square[from], square[to])"', json.dumps(effect))
    state = rulesdsl.load_game(write(text)).new_initial_state()
    with pytest.raises(GameRuntimeError) as info:
        state.apply("s0-s1")
    assert (info.value.rule, info.value.turn, info.value.message) == ("advance", 0, message)
    statement = text.splitlines().index(next(line for line in text.splitlines() if json.dumps(effect) in line))
    assert info.value.location.line == statement + 1  # the failing statement itself


def test_a_hidden_stack_shows_its_height_only_and_is_dealt_back_with_its_height(write):
    game = rulesdsl.load_game(write(RACE.replace("VISIBLE", "visible: none")))
    state = game.new_initial_state()
    state.apply("s0-s2")
    table = state.observation(0)["zones"]["square"]["table"]
    assert [(cell["cell"], place) for cell, place in table][:3] == [
        ("s0", {"hidden": 3}), ("s1", {"hidden": 0}), ("s2", {"hidden": 1})]
    assert render_state(state, 0) == "cells: s0:??? s2:?\nturn 2: blue to play (play)"  # heights only
    sampled = PlayerView(state, 1).determinize(Rng(5)).to_json()["zones"]["square"]["table"]
    assert [len(place) for _, place in sampled] == [3, 0, 1, 0, 0, 0]
    assert sorted(p["piece"]["colour"] for _, place in sampled for p in place) == ["blue", "blue", "red", "red"]


# -- counters: a variable per cell, and sowing --------------------------------------------------------------

def test_sowing_moves_and_the_seeds_after_each(sowing):
    state = sowing.new_initial_state()
    assert seeds(state) == {"b1": 2, "c1": 2, "d1": 2, "e1": 0, "a2": 0, "b2": 2, "c2": 2, "d2": 2}
    assert moves_of(state) == ["b1", "c1", "d1"]
    state.apply("c1")                  # d1, e1: the last seed in south's store, so south plays again
    assert seeds(state) == {"b1": 2, "c1": 0, "d1": 3, "e1": 1, "a2": 0, "b2": 2, "c2": 2, "d2": 2}
    assert state.current_player() == 0 and moves_of(state) == ["b1", "d1"]
    state.apply("d1")                  # e1, d2, c2: north's turn
    assert seeds(state) == {"b1": 2, "c1": 0, "d1": 0, "e1": 2, "a2": 0, "b2": 2, "c2": 3, "d2": 3}
    assert state.current_player() == 1 and moves_of(state) == ["b2", "c2", "d2"]
    state.apply("b2")                  # north's store a2, then b1
    assert seeds(state) == {"b1": 3, "c1": 0, "d1": 0, "e1": 2, "a2": 1, "b2": 0, "c2": 3, "d2": 3}
    assert state.current_player() == 0


def test_sowing_passes_the_other_players_store(sowing):
    start = {"b1": 0, "c1": 0, "d1": 6, "e1": 0, "a2": 0, "b2": 0, "c2": 0, "d2": 1}
    state = sowing.state_from_json(with_seeds(sowing, start))
    state.apply("d1")  # e1 d2 c2 b2, past a2, b1 c1
    assert seeds(state) == {"b1": 1, "c1": 1, "d1": 0, "e1": 1, "a2": 0, "b2": 1, "c2": 1, "d2": 2}


def with_seeds(game, counts: dict, player: int = 0) -> dict:
    """A saved state of the sowing game with these seeds, `player` to sow."""
    data = game.new_initial_state().to_json()
    data["vars"]["seeds"] = {"table": [[{"cell": name}, n] for name, n in counts.items()]}
    data.update(player=player, ply=1)
    return data


RING = ["b1", "c1", "d1", "e1", "d2", "c2", "b2", "a2"]  # the little game's order of sowing
STORES = ["e1", "a2"]


def sown(counts: dict, pit: str, player: int) -> dict:
    """Sowing done by hand: one seed into each following cell of the ring, past the other player's store."""
    after, seeds_in_hand, at = dict(counts), counts[pit], RING.index(pit)
    after[pit] = 0
    while seeds_in_hand:
        at = (at + 1) % len(RING)
        if RING[at] != STORES[1 - player]:
            after[RING[at]] += 1
            seeds_in_hand -= 1
    return after


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(0, 30), min_size=8, max_size=8), st.integers(0, 1), st.integers(0, 2))
def test_sowing_any_pit_drops_one_seed_in_each_following_cell(sowing, numbers, player, which):
    counts = dict(zip(RING, numbers))
    pit = [c for c in RING if c not in STORES and c[1] == str(player + 1)][which]
    counts[pit] = max(1, counts[pit])
    for side in ("1", "2"):  # neither side empty, so the game is on
        if all(counts[c] == 0 for c in RING if c not in STORES and c[1] == side):
            counts["c" + side] = 1
    state = sowing.state_from_json(with_seeds(sowing, counts, player))
    state.apply(pit)
    assert seeds(state) == sown(counts, pit, player)


def test_a_write_to_a_cell_counter_sets_off_the_end_check_that_reads_it(sowing):
    counts = {"b1": 0, "c1": 1, "d1": 1, "e1": 5, "a2": 0, "b2": 1, "c2": 0, "d2": 2}
    state = sowing.state_from_json(with_seeds(sowing, counts))
    part = 1 + len(sowing.rules.zones) + [v.name for v in sowing.rules.vars].index("seeds")
    before = list(state.changes)
    state.apply("c1")  # into d1: neither side is empty; the end check is found false and kept
    assert not state.is_terminal()
    assert state.changes[part] == before[part] + 2 and state.changes[0] == before[0]  # seeds[c1], seeds[d1]
    state.apply("d2")  # c2, b2: north's turn ends
    state.apply("d1")  # d1's two seeds: e1, d2; south's pits are empty
    assert state.is_terminal()
    assert seeds(state) == {"b1": 0, "c1": 0, "d1": 0, "e1": 6, "a2": 0, "b2": 2, "c2": 1, "d2": 1}
    assert state.scores() == [6, 4] and state.winners == [0]


def test_show_draws_the_counters_in_their_cells(sowing):
    state = sowing.new_initial_state()
    state.apply("c1")
    assert render_state(state) == "\n".join([
        "2  0 2 2 2  ",
        "1    2 0 3 1",
        "   a b c d e",
        "turn 1: south to play (play)"])


def test_a_cell_counter_and_a_stack_share_the_cell_in_the_picture(write):
    text = RACE.replace("VISIBLE", "visible: all").replace("moves:", "vars:\n  heat: {keys: cells, init: 0}\nmoves:", 1)
    state = rulesdsl.load_game(write(text)).new_initial_state()
    assert render_state(state).splitlines()[0] == "cells: s0:R*4/0 s1:0 s2:0 s3:0 s4:0 s5:0"


def test_counters_kept_for_a_region_are_drawn_there_and_the_rest_listed(write):
    marks = "\n  marks:\n    keys: stores\n    init: 7"  # a number on each store only
    text = SOWING.replace("else 2\"\nmoves:", "else 2\"" + marks + "\nmoves:")
    text += "render:\n  rows: \"[('stores', stores)]\"\n"
    state = rulesdsl.load_game(write(text)).new_initial_state()
    assert render_state(state).splitlines() == [
        "stores  0/7 0/7",
        "seeds: b1 2, c1 2, d1 2, e1 0, a2 0, b2 2, c2 2, d2 2",  # the pits are in no row: listed
        "turn 1: south to play (play)"]


# -- saving and reading states ------------------------------------------------------------------------------

def test_cell_counters_and_stacks_survive_a_json_round_trip(race, sowing):
    for game, moves in ((race, ["s0-s2", "s0-s1", "s0-s2"]), (sowing, ["c1", "d1", "b2"])):
        state = game.new_initial_state()
        for move in moves:
            state.apply(move)
        text = json.dumps(state.to_json())
        restored = game.state_from_json(json.loads(text), "saved.json", text)
        assert restored.to_json() == state.to_json()
        assert moves_of(restored) == moves_of(state)
        assert render_state(restored) == render_state(state)


def test_a_saved_table_in_another_order_reads_back_in_the_order_of_the_keys(sowing):
    state = sowing.new_initial_state()
    data = state.to_json()
    data["vars"]["seeds"]["table"].reverse()
    assert sowing.state_from_json(data).to_json()["vars"]["seeds"] == state.to_json()["vars"]["seeds"]


@pytest.mark.parametrize("damage, message", [
    (lambda t: t[0].__setitem__(0, {"cell": "z9"}), 'vars seeds: no cell "z9" on this board'),
    (lambda t: t.pop(0), "vars seeds: has no value for the key b1"),
    (lambda t: t.append(["x", 1]), "vars seeds: holds x, which is not one of its keys"),
])
def test_a_damaged_cell_counter_is_a_located_error(sowing, damage, message):
    data = sowing.new_initial_state().to_json()
    damage(data["vars"]["seeds"]["table"])
    text = json.dumps(data, indent=1)
    with pytest.raises(RulesError) as info:
        sowing.state_from_json(json.loads(text), "saved.json", text)
    (problem,) = info.value.problems
    assert problem.message == message
    assert problem.location.file == "saved.json" and problem.location.line == text.splitlines().index(' "vars": {') + 1


def test_a_stack_holding_something_other_than_pieces_is_refused(race):
    data = race.new_initial_state().to_json()
    data["zones"]["square"]["table"][1][1] = [5]
    with pytest.raises(RulesError) as info:
        race.state_from_json(data)
    assert [p.message for p in info.value.problems] == ["zones square: the zone of s1 holds 5, which is not a piece"]


# -- initial board contents ---------------------------------------------------------------------------------

INITIAL = """
game: Set out
players: {count: 2}
board:
  grid: {columns: abc, rows: 2}
  INIT
pieces:
  stone:
    attributes: {colour: [white, black]}
    derived: {owner: "0 if colour == 'white' else 1", symbol: "'W' if colour == 'white' else 'B'"}
moves:
  take:
    params: {c: "owned(me)"}
    do: ["remove(c)"]
flow:
  steps:
    play: {moves: [take], pass: pass, next: end_turn}
end:
  - when: "turn >= 2"
    winners: "[]"
"""


@pytest.mark.parametrize("init", [
    "init:\n    a1: \"piece('stone', colour='white')\"\n    c2: \"piece('stone', colour='black')\"\n    b1: null",
    "init: \"table([(cell('a1'), piece('stone', colour='white')), (cell('c2'), piece('stone', colour='black'))])\"",
])
def test_pieces_set_out_on_the_board_without_a_setup_step(write, init):
    state = rulesdsl.load_game(write(INITIAL.replace("INIT", init))).new_initial_state()
    assert state.to_json()["cells"] == {"a1": {"kind": "stone", "colour": "white"},
                                        "c2": {"kind": "stone", "colour": "black"}}
    assert moves_of(state) == ["take a1"]
    assert render_state(state).splitlines()[:3] == ["2  . . B", "1  W . .", "   a b c"]


@pytest.mark.parametrize("init, line, col, message", [
    ("init:\n    z9: \"piece('stone', colour='white')\"", 7, 9, "no cell named 'z9'"),
    ("init:\n    a1: \"3\"", 7, 9, "a cell holds a piece or none, not 3"),
    ("init:\n    a1: \"piece('stone', colour='red')\"", 7, 10, "piece(): 'red' is not a possible colour"),
    ("init: \"[cell('a1')]\"", 6, 9, "this should be a table of cells to pieces, but it is a1"),
    ("init: \"table([('a1', piece('stone', colour='white'))])\"", 6, 9, "a1 is not a cell of the board"),
])
def test_misused_initial_contents_are_located_at_load(write, init, line, col, message):
    (found,) = problems(write(INITIAL.replace("INIT", init)))
    assert found[:2] == (line, col) and found[2].startswith(message), found


# -- misuse of keyed variables and zones --------------------------------------------------------------------

@pytest.mark.parametrize("old, new, line, message", [
    ('"seeds[pit] = 0"', '"seeds = 0"', 28, "'seeds' holds one value per key: it is given all of them at once only as a table"),
    ("keys: cells\n    init", "keys: cells\n    per: player\n    init", 19,
     "a zone or variable has one place per player or one per key, not both"),
    ("keys: cells\n    init", "keys: \"[1, 2, 1]\"\n    init", 19, "the key 1 is given more than once"),
    ("keys: cells\n    init", "keys: \"[[1], [2]]\"\n    init", 19, "keys must be numbers, strings, cells"),
    ("keys: cells\n    init", "keys: \"0..10000\"\n    init", 19, "10,001 keys are more than the 10,000 places"),
])
def test_misused_keyed_variables_are_located_at_load(write, old, new, line, message):
    found = problems(write(SOWING.replace(old, new, 1)))
    assert [(l, m[:len(message)]) for l, _, m in found] == [(line, message)], found


def test_assigning_to_a_stack_is_refused_at_load(write):
    text = RACE.replace("VISIBLE", "visible: all").replace('"move(square[from], square[to])"', '"square[to] = []"')
    (found,) = problems(write(text))
    assert found[0] == 24 and found[2] == "the pieces of zone 'square' cannot be assigned"


def test_assigning_a_key_a_keyed_variable_does_not_have_is_a_runtime_error(write, sowing):
    text = SOWING.replace('"seeds[pit] = 0"', '"seeds[pit.name] = 0"')
    state = rulesdsl.load_game(write(text)).new_initial_state()
    with pytest.raises(GameRuntimeError, match=r"seeds\[b1\]: b1 is not one of the keys of 'seeds'"):
        state.apply("b1")


# -- the example sowing game --------------------------------------------------------------------------------

EXAMPLE = ROOT / "examples" / "games" / "sowing.yaml"


@pytest.fixture(scope="module")
def kalah():
    return rulesdsl.load_game(str(EXAMPLE))


def example_position(game, counts: dict) -> object:
    """The example game with these seeds (every other pit and store empty), south to sow."""
    table = {cell.name: 0 for cell in game.rules.board.cells} | counts
    return game.state_from_json(with_seeds(game, table))


def test_the_last_seed_in_an_empty_pit_of_yours_takes_the_seeds_opposite(kalah):
    state = example_position(kalah, {"b1": 1, "d1": 3, "b2": 2, "c2": 5, "d2": 1})
    state.apply("b1")  # into c1, empty: c1's seed and c2's five go to south's store h1
    assert {k: v for k, v in seeds(state).items() if v} == {"d1": 3, "h1": 6, "b2": 2, "d2": 1}
    assert state.current_player() == 1


def test_nothing_is_taken_when_the_pit_opposite_is_empty(kalah):
    state = example_position(kalah, {"b1": 1, "d1": 3, "b2": 2, "d2": 1})
    state.apply("b1")
    assert {k: v for k, v in seeds(state).items() if v} == {"c1": 1, "d1": 3, "b2": 2, "d2": 1}


def test_the_last_seed_in_your_store_plays_again(kalah):
    state = example_position(kalah, {"b1": 2, "g1": 1, "b2": 2})
    state.apply("g1")
    assert state.current_player() == 0 and moves_of(state) == ["b1"]
    assert seeds(state)["h1"] == 1


def test_the_documented_picture_is_what_show_prints(kalah):
    reference = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")
    block = reference.split("$ rulesdsl show examples/games/sowing.yaml\n", 1)[1].split("```", 1)[0]
    assert block == render_state(kalah.new_initial_state()) + "\n"
