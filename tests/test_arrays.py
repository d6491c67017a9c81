"""States as data: the layout of a state as flat typed arrays (ir/layout.py), states to arrays and back
(engine/arrays.py), and the interpreter's memo rebuilt from the data (Position.rebuild_memo)."""

from __future__ import annotations

import json
import math
import random
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rulesdsl
from rulesdsl.engine.arrays import _Codec, digest, from_arrays, piece_table, to_arrays
from rulesdsl.engine.state import State
from rulesdsl.errors import RulesError
from rulesdsl.ir.forms import Forms
from rulesdsl.lang import types as T
from rulesdsl.lang.held import items
from rulesdsl.model.position import Position

from .helpers import ROOT

FILES = sorted((ROOT / "games").glob("*.yaml")) + sorted((ROOT / "examples").glob("*/*.yaml"))

# A game that uses every part of a state: pieces of two attributes, a zone, a zone per seat and a stack per
# cell (none made in play, so each is bounded by the pieces there are), typed variables of every kind (a number
# per seat, a tuple, a cell or none, a truth value), a secret move, a chance step with weights, a draw asked
# for by chance() with an input, a simultaneous step, a place revealed and players leaving. `label`, text made
# while the game runs, is the one part held as Python values.
HELD = """
game: Everything held
players: {count: 3}
board:
  grid: {columns: abc, rows: 2}
pieces:
  token:
    attributes:
      colour: [red, blue]
      size: [1, 2, 3]
zones:
  bag:
    visible: none
    init: "[piece('token', colour=c, size=s) for c in ['red', 'blue'] for s in 1..3 for k in 1..2]"
  hand: {per: player, visible: owner}
  stack: {keys: cells}
vars:
  points: {per: player, init: 0}
  best: {init: "(0, 'low')"}
  mark: {init: none}
  flag: {init: false}
  sixes: 0
  label: {init: "''"}
  rounds: 0
moves:
  draw:
    when: ["size(bag) > 0"]
    visible_to: "[me]"
    notation: draw
    do: ["move(bag, hand[me])"]
  put:
    params:
      c: "[x for x in cells if size(hand[me]) > 0]"
    let:
      worth: "size(stack[c]) + 1"
    notation: "put {c}"
    do:
      - "move(hand[me], stack[c])"
      - "mark = c"
      - "points[me] += worth"
      - "best = (points[me], 'high') if points[me] > best[0] else best"
      - "chance('roll', 2)"
  quit:
    when: ["rounds > 3 and size(active_players) > 1"]
    notation: quit
    do: ["reveal(hand[me])", "leave(me)"]
  bid:
    params: {amount: "0..2"}
    notation: "bid {amount}"
flow:
  start: coin
  turn_start: play
  steps:
    coin:
      chance:
        outcomes:
          params: {side: "['heads', 'tails']"}
          weight: "2 if side == 'heads' else 1"
          notation: "{side}"
          do: ["flag = side == 'heads'"]
      next: play
    play:
      moves: [draw, put, quit]
      pass: pass
      next:
        - if: "rounds % 3 == 2"
          to: auction
        - to: end_turn
      after: ["rounds += 1"]
    auction:
      actors: "active_players"
      moves: [bid]
      resolve:
        - for: "p in active_players"
          do:
            - if: "choices[p].amount > 0"
              then: ["points[p] += 1"]
      next: end_turn
    roll:
      inputs: [n]
      chance:
        draw: "n"
        from: "1..6"
        replace: true
        notation: "dice {outcome}"
        do: ["sixes += count(d for d in outcome if d == 6)", "label = 'after ' + str(rounds)"]
end:
  - when: "rounds >= 30"
scoring:
  score: "points[me]"
"""

# The slots of the bundled games and examples held as Python values, and why: each a type the type pass leaves
# unknown (any value), a list of unknown length, a table, or zones a rule may put new pieces into. Better types
# shrink this table: each slot that comes to fit is taken out of it.
UNFIT = {name: {} for name in ("fast-track", "mabula", "marble-chase", "mark", "sealed-bids", "sowing",
                                 "three-in-a-row")}
# (its dice are drawn by chance('dice', 5 - aside): how many, load cannot bound)
UNFIT["sixes"] = {"history": "the draw of chance step 'dice', its outcome: a tuple of numbers of unknown length"}
UNFIT["mabula-no-tiebreak"] = UNFIT["mabula"]
UNFIT["mark-rich-start"] = UNFIT["mark"]


@lru_cache(maxsize=None)
def game_of(path) -> rulesdsl.engine.game.Game:
    return rulesdsl.load_game(str(path))


@pytest.fixture(scope="module")
def held(tmp_path_factory):
    path = tmp_path_factory.mktemp("held") / "held.yaml"
    path.write_text(HELD, encoding="utf-8")
    return game_of(path)


def step(state, rng: random.Random):
    """A random move, or chance's outcome drawn from the state's own stream."""
    if state.is_chance_node():
        return state.sample_chance()
    return rng.choice(state.legal_moves(state.acting_players()[0]))


def what_it_offers(state) -> list:
    """Everything play reads of a state: its moves (or outcomes with their probabilities) for each acting seat."""
    if state.is_terminal():
        return []
    if state.is_chance_node():
        try:
            return [(m, p) for m, p in state.chance_outcomes()]
        except rulesdsl.errors.IllegalMove:  # an arrangement: too many to list
            return ["arrangement"]
    return [(p, state.legal_moves(p)) for p in state.acting_players()]


def assert_same(state, copy) -> None:
    assert json.dumps(copy.to_json()) == json.dumps(state.to_json())
    assert what_it_offers(copy) == what_it_offers(state)
    for seat in range(state.rules.num_players):
        assert copy.observation(seat) == state.observation(seat)


def play_both(state, twin, rng: random.Random) -> None:
    """The same random move made in both; at a chance node each draws from its own stream, alike."""
    if state.is_chance_node():
        move, theirs = state.sample_chance(), twin.sample_chance()
        assert str(theirs) == str(move)
    else:
        move = theirs = rng.choice(state.legal_moves(state.acting_players()[0]))
    state.apply(move)
    twin.apply(theirs)


def lockstep(game, seed: int, plies: int, every: int = 1) -> int:
    """Play a seeded random game beside a twin read back from its own arrays every `every` plies; both must offer,
    draw and show the same at every ply. The plies played."""
    layout = game.layout
    state, twin = game.new_initial_state(seed=seed), game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    for ply in range(plies):
        if ply % every == 0:
            arrays = to_arrays(twin, layout)
            twin = from_arrays(arrays, layout, game)
            assert digest(to_arrays(twin, layout)) == digest(arrays)
            assert_same(state, twin)
        if state.is_terminal():
            return ply
        play_both(state, twin, rng)
    return plies


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_a_game_played_from_its_arrays_at_every_ply_is_the_same_game(path):
    assert lockstep(game_of(path), seed=3, plies=80) > 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, len(FILES) - 1), seed=st.integers(0, 2**32 - 1), every=st.integers(1, 7))
def test_states_read_back_from_arrays_play_on_alike(index, seed, every):
    lockstep(game_of(FILES[index]), seed, plies=60, every=every)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_the_slots_that_do_not_fit_say_why(path):
    layout = game_of(path).layout
    found = {slot.name: slot.why for slot in layout.unfit()}
    wanted = UNFIT[path.stem]
    assert set(found) == set(wanted)
    for name, why in wanted.items():
        assert found[name].startswith(why), (name, found[name])
        assert layout.slots[name].decl is not None  # located: compile --check reports it there
    arrays = to_arrays(game_of(path).new_initial_state(), layout)
    assert {name for name, a in arrays.items() if a.dtype == object} == {*wanted, "imported"}


def test_every_part_of_a_game_fits_but_text_made_in_play(held):
    layout = held.layout
    assert [(s.name, s.why) for s in layout.unfit()] == [("var.label", "text made while the game runs (only text "
                                                                        "from a fixed list of values can be numbered)")]
    assert layout.slots["var.label"].decl == ("vars", "label")
    shapes = {leaf.name: (leaf.dtype, leaf.shape) for leaf in layout.leaves()}
    assert shapes["cells"] == ("uint8", (6,))
    assert shapes["zone.bag"] == ("uint8", (12,)) and shapes["zone.bag.len"] == ("int8", ())
    assert shapes["zone.hand"] == ("uint8", (3, 12))  # a row per seat
    assert shapes["zone.stack"] == ("uint8", (6, 12))  # a stack per cell
    assert shapes["var.points"] == ("int64", (3,))
    assert shapes["var.best.0"] == ("int64", ()) and shapes["var.best.1"] == ("int8", ())  # a tuple: a slot each
    assert shapes["var.mark.tag"] == ("int8", ()) and shapes["var.mark.cell"] == ("int8", ())  # none or a cell
    assert shapes["var.flag"] == ("bool", ())
    assert shapes["history.roll.draw.outcome"] == ("int8", (None, 2))  # a row per ply
    assert shapes["rng"] == ("uint64", (2,))


def test_the_arrays_of_a_position_hold_what_it_holds(held):
    state = held.new_initial_state(seed=5)
    state.apply("heads")
    state.apply("draw")
    arrays = to_arrays(state, held.layout)
    table = piece_table(held.layout)
    assert table.tolist() == [[-1, -1, -1]] + [[0, c, s] for c in range(2) for s in range(3)]
    assert arrays["zone.bag.len"][()] == 11 and arrays["zone.hand.len"].tolist() == [1, 0, 0]
    # the bag is red 1, red 1, red 2, ... blue 3, blue 3: the top (last) one went to seat 0's hand
    assert table[arrays["zone.hand"][0, 0]].tolist() == [0, 1, 2]
    assert arrays["zone.bag"][:11].tolist() == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6]
    assert arrays["var.flag"][()] and arrays["var.best.0"][()] == 0 and arrays["var.best.1"][()] == 1  # high, low
    assert arrays["player"][()] == 1 and arrays["ply"][()] == 2 and arrays["turn"][()] == 1
    assert arrays["history.rule"].tolist() == [held.layout.moves.index(next(
        m for m in held.layout.moves if m.label == "coin.outcome")), 0]
    assert arrays["history.player"].tolist() == [-1, 0]
    assert arrays["secret"].tolist() == [False, True] and arrays["secret.seen"][1].tolist() == [True, False, False]
    assert arrays["last_row"][()] == 1 and arrays["pending"][()] == 0


def test_every_part_of_the_test_game_is_met_and_read_back(held):
    met = set()
    for seed in range(12):
        state, rng = held.new_initial_state(seed=seed), random.Random(seed)
        while not state.is_terminal():
            copy = from_arrays(to_arrays(state, held.layout), held.layout, held)
            assert_same(state, copy)
            met |= {name for name in ("left", "pending", "calls", "secret", "revealed", "last") if getattr(state, name)}
            state.apply(step(state, rng))
    assert met == {"left", "pending", "calls", "secret", "revealed", "last"}


def test_arrays_and_states_share_nothing_that_changes():
    game = game_of(ROOT / "games" / "mark.yaml")
    state, rng = game.new_initial_state(seed=2), random.Random(2)
    for _ in range(40):
        state.apply(step(state, rng))
    arrays = to_arrays(state, game.layout)
    saved = json.dumps(state.to_json())
    copy = from_arrays(arrays, game.layout, game)
    for _ in range(40):  # the copy plays on: what it holds changes, neither the arrays nor the state
        copy.apply(step(copy, rng))
    assert json.dumps(from_arrays(arrays, game.layout, game).to_json()) == saved == json.dumps(state.to_json())


def atoms(game) -> dict:
    """Types of one value, with the values each holds, of the test game (its seats, cells and pieces)."""
    pieces = [game.rules.kinds["token"].make({"colour": c, "size": n}) for c in ("red", "blue") for n in (1, 2, 3)]
    return {T.BOOL_T: st.booleans(), T.int_(-5, 300): st.integers(-5, 300),
            T.INT_T: st.integers(-(2 ** 63), 2 ** 63 - 1), T.FLOAT_T: st.floats(allow_nan=False),
            T.SEAT: st.integers(0, 2),
            T.CELL: st.sampled_from(game.rules.board.cells), T.PIECE_T: st.sampled_from(pieces),
            T.enum("north", "south", "east"): st.sampled_from(["north", "south", "east"]), T.NONE_T: st.none()}


def types_of(atoms: dict):
    return st.recursive(st.sampled_from(list(atoms)), lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda items: T.tuple_(*items)),
        st.tuples(inner, st.integers(0, 4)).map(lambda p: T.list_(*p)),
        st.tuples(inner, st.integers(0, 4)).map(lambda p: T.seq(*p)),
        st.tuples(inner, inner).map(lambda p: T.union(*p))), max_leaves=6)


def values_of(t, atoms: dict):
    if t.name == "tuple":
        return st.tuples(*(values_of(item, atoms) for item in t.items))
    if t.name in ("list", "seq"):
        found = st.lists(values_of(t.items[0], atoms), max_size=t.high)
        return found if t.name == "list" else found.map(tuple)
    if t.name == "union":
        return st.one_of(*(values_of(m, atoms) for m in t.items))
    return atoms[t]


def same(a, b) -> bool:
    """Equal, and of the same kinds all through (true is not 1, a tuple is not a list, a cell is not a number)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    return a == b


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_value_of_any_type_that_fits_is_held_by_its_arrays_as_it_is(held, data):
    kinds = atoms(held)
    t = data.draw(types_of(kinds))
    value = data.draw(values_of(t, kinds))
    form = Forms(3, 6, "uint8").of(t, "x")
    arrays = {leaf.name: np.zeros(leaf.shape, leaf.dtype) for leaf in form.leaves()}
    codec = _Codec(held.layout, held)
    codec.put(form, value, arrays, ())
    assert same(codec.get(form, arrays, ()), value)


def test_every_field_of_a_state_is_data_memo_or_the_game():
    fields = {name for cls in State.__mro__ for name in getattr(cls, "__slots__", ())}
    assert set(State.DATA) | set(State.MEMO) | set(Position.PASSING) | {"game", "rules"} == fields
    assert not set(State.DATA) & set(State.MEMO)
    # each field of the data is held by a slot of the layout
    held_by = {"cells": "cells", "zones": "zone.", "vars": "var.", "seed": "rng", "_rng": "rng"}
    layout = game_of(ROOT / "games" / "mark.yaml").layout
    for name in State.DATA:
        if name == "positions":  # a slot of its own in a game that counts positions (tests/test_repetition.py)
            assert "positions" not in layout.slots
            continue
        assert any(slot.startswith(held_by.get(name, name)) for slot in layout.slots), name


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_play_goes_on_alike_after_the_memo_is_rebuilt(path):
    game = game_of(path)
    state, twin = game.new_initial_state(seed=7), game.new_initial_state(seed=7)
    rng = random.Random(7)
    for ply in range(200):
        if ply % 3 == 0:
            twin.rebuild_memo()
            assert twin.tallies == {} and not any(twin.changes) and twin.chance_kept == {}
        assert what_it_offers(twin) == what_it_offers(state)
        assert json.dumps(twin.to_json()) == json.dumps(state.to_json())
        if state.is_terminal():
            break
        play_both(state, twin, rng)
    twin.rebuild_memo()  # what the zones and variables hold, counted exactly: never more than the running count
    assert twin.held == sum(items(v) for v in twin.zones + twin.vars) <= state.held


def test_a_state_that_does_not_fit_its_layout_is_a_located_error(held, tmp_path):
    state = held.new_initial_state()
    data = state.to_json()
    data["zones"]["bag"] = data["zones"]["bag"] * 2  # 24 pieces: more than the 12 there are
    crowded = held.state_from_json(data)
    with pytest.raises(RulesError) as caught:
        to_arrays(crowded, held.layout)
    [problem] = caught.value.problems
    assert "zone.bag: it holds 24 items, more than the 12 its layout holds" in problem.message
    line = next(i for i, row in enumerate(HELD.splitlines(), 1) if row.startswith("  bag:"))
    assert (problem.location.line, problem.location.col) == (line + 1, 5)  # the zone's declaration
    data = state.to_json()
    data["vars"]["rounds"] = 2 ** 70  # a whole number, as rules may make one: beyond the int64 it is held in
    with pytest.raises(RulesError, match="var.rounds: it holds 1180591620717411303424, which its int64 array"):
        to_arrays(held.state_from_json(data), held.layout)


def test_pieces_of_an_attribute_with_no_declared_values_are_held_as_python_values(write):
    game = rulesdsl.load_game(write("""
game: Counters
players: {count: 2}
board: {grid: {columns: abc, rows: 1}}
pieces:
  counter:
    attributes: {n: {default: 0}}
moves:
  put:
    params: {c: "[x for x in cells if empty(x)]"}
    do: ["place(piece('counter', n=turn), c)"]
flow:
  steps:
    play: {moves: [put], next: end_turn}
end:
  - when: "not any(empty(x) for x in cells)"
"""))
    [cells] = [slot for slot in game.layout.unfit() if slot.name == "cells"]
    assert cells.why == "attribute 'n' of piece 'counter' declares no list of values"
    assert cells.decl == ("pieces", "counter", "attributes", "n")
    assert game.layout.describe().splitlines()[0] == ("Counters: pieces not numbered: attribute 'n' of piece "
                                                       "'counter' declares no list of values, 3 cells")
    assert lockstep(game, seed=1, plies=5) == 3


def test_a_tuple_a_saved_state_gives_back_as_a_list_is_held_as_the_tuple_its_type_says(held):
    state = held.new_initial_state(seed=1)
    restored = held.state_from_json(state.to_json())
    best = [h.name for h in held.rules.vars].index("best")
    assert restored.vars[best] == [0, "low"]  # JSON has no tuples
    copy = from_arrays(to_arrays(restored, held.layout), held.layout, held)
    assert copy.vars[best] == (0, "low") and copy.to_json() == restored.to_json()


def test_arrays_that_hold_no_state_are_refused_by_name(held):
    arrays = to_arrays(held.new_initial_state(), held.layout)
    for name, bad, said in (("cells", np.zeros(5, "uint8"), "should have the shape (6,)"),
                            ("var.flag", np.zeros((), "int64"), "should be an array of bool"),
                            ("zone.bag.len", np.array(99, "int8"), "beyond 0 to 12"),
                            ("cells", np.full(6, 200, "uint8"), "200 is no piece"),
                            ("var.mark.tag", np.array(7, "int8"), "beyond 0 to 1"),
                            ("step", np.array(9, "int8"), "beyond its 4 values")):
        broken = dict(arrays, **{name: bad})
        with pytest.raises(RulesError, match=name.split(".")[0]) as caught:
            from_arrays(broken, held.layout, held)
        assert said in str(caught.value)
