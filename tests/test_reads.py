"""What conditions read of a position (model/reads.py), the counting of writes (Position.changes), and the
values the engine keeps while what they read is unchanged: end checks give the same answers as asked afresh."""

from __future__ import annotations

import pytest

import rulesdsl
from rulesdsl.engine.play import play, streams, uniform
from rulesdsl.lang.parser import parse
from rulesdsl.loading import bundled_games
from rulesdsl.model.compile import ModelCompiler
from rulesdsl.model.reads import Reads
from rulesdsl.source import load_text

GAME = """
game: Counters
players: {count: 2}
board:
  grid: {columns: abc, rows: 2}
pieces:
  stone: {}
zones:
  bag: {init: "[piece('stone') for i in 1..3]"}
  hand: {per: player}
vars:
  total: 0
  money: {per: player, init: 5}
  table: {init: "{'a': 1}"}
functions:
  stones: {value: "count(c for c in cells if not empty(c))"}
  rich: {params: [p], value: "money[p] > 3 and stones() > 0"}
  forever: {params: [n], value: "forever(n - 1) if n > 0 else total"}
moves:
  put:
    params: {c: cells}
    when: ["empty(c)"]
    notation: "put {c}"
    do: DO
flow:
  steps:
    play: {moves: [put], pass: pass}
end:
  - when: "turn >= 4"
    winners: "[]"
"""


def text(*effects: str) -> str:
    return GAME.replace("DO", "[" + ", ".join(f'"{e}"' for e in effects) + "]")


def load(tmp_path, *effects: str):
    path = tmp_path / "counters.yaml"
    path.write_text(text(*effects), encoding="utf-8")
    return rulesdsl.load_game(str(path))


@pytest.fixture(scope="module")
def analysis():
    compiler = ModelCompiler(load_text(text("total += 1"), "counters.yaml"))
    compiler.compile()
    return compiler._read_analysis()


@pytest.mark.parametrize("expression, parts, flow", [
    ("total + 1", {3}, set()),  # parts: 0 cells, 1 bag, 2 hand, 3 total, 4 money, 5 table
    ("size(bag) + size(hand[player])", {1, 2}, {"player"}),
    ("at(cell('a1')) == none", {0}, set()),
    ("rich(me)", {0, 4}, set()),  # through the function, and the one it calls
    ("[x for x in 1..3 if x > turn]", set(), {"turn"}),
    ("[total for total in 1..3]", {3}, set()),  # a name bound here that is also a variable: read, to be safe
    ("max(1, 2)", set(), set()),
])
def test_what_an_expression_reads(analysis, expression, parts, flow):
    assert analysis.of(parse(expression)) == Reads(frozenset(parts), frozenset(flow))


@pytest.mark.parametrize("expression", ["forever(2) > 0", "can_move(player)"])
def test_a_recursive_function_or_an_undeclared_built_in_reads_anything(analysis, expression):
    assert analysis.of(parse(expression)) is None


@pytest.mark.parametrize("do, part", [
    ("total += 1", 3), ("money[me] = 0", 4), ("table['b'] = 2", 5), ("place(piece('stone'), c)", 0),
    ("move(bag, hand[me], piece('stone'))", 1),
])
def test_every_write_is_counted_in_its_part(tmp_path, do, part):
    state = load(tmp_path, do).new_initial_state()
    before = list(state.changes)
    state.apply("put a1")
    assert state.changes[part] > before[part]


def test_an_item_of_a_local_value_written_counts_as_a_write_to_everything(tmp_path):
    state = load(tmp_path, "t = table", "t['a'] = 7").new_initial_state()
    before = list(state.changes)
    state.apply("put a1")
    assert all(after > was for after, was in zip(state.changes, before))


def test_adding_to_a_list_makes_a_new_list(tmp_path):
    # `+=` never changes a list in place, so a list that a variable and a local both hold stays as it was
    state = load(tmp_path, "t = money", "t += [2]").new_initial_state()
    state.apply("put a1")
    assert state.to_json()["vars"]["money"] == [5, 5]


@pytest.mark.parametrize("name", sorted(bundled_games()))
def test_end_checks_kept_while_unchanged_agree_with_asking_afresh(name):
    # Along random games, whenever the engine would not ask an end rule again (nothing it reads was written
    # since it was false), asking it gives false: the counts cover every write the rule can see.
    game = rulesdsl.load_game(name)
    kept = 0

    def check(state, move):
        nonlocal kept
        for number, end in enumerate(state.rules.end_rules):
            if end.unchanged is not None and state.end_checked[number] == end.unchanged(state):
                kept += 1
                assert not end.when(state), (name, state.history_texts()[-5:])

    for seed in range(2):
        chance, seats = streams(seed, game.num_players)
        play(game.new_initial_state(seed), uniform, chance, seats, observe=check)
    if any(end.unchanged is not None for end in game.rules.end_rules):
        assert kept > 0


BAG = """
game: Bag
players: {count: 2}
pieces:
  ball: {attributes: {colour: [red, blue]}}
zones:
  bag: {init: "[piece('ball', colour=c) for c in ['red', 'red', 'blue']]"}
  hand: {per: player}
moves:
  take:
    params: {colour: "['red', 'blue']"}
    when: ["count(b for b in bag if b.colour == colour) > 0"]
    notation: "take {colour}"
    do: ["move(bag, hand[me], piece('ball', colour=colour))"]
flow:
  steps:
    play: {moves: [take], pass: pass}
end:
  - when: "size(bag) == 0"
    winners: "[]"
"""


def test_a_count_over_a_zone_by_attribute_reads_the_zone_once_and_follows_its_writes(tmp_path):
    path = tmp_path / "bag.yaml"
    path.write_text(BAG, encoding="utf-8")
    game = rulesdsl.load_game(str(path))
    assert "S.tally(" in "".join(fn.source for fn in game.rules.generated["move take"])
    state = game.new_initial_state()
    listed = []
    while not state.terminal:
        moves = [str(m) for m in state.legal_moves()]
        listed.append(moves)
        state.apply(moves[0])
    assert listed == [["take red", "take blue"], ["take red", "take blue"], ["take blue"]]


@pytest.mark.parametrize("name", sorted(bundled_games()))
def test_chance_tables_kept_while_unchanged_agree_with_listing_afresh(name):
    # A chance step whose outcomes read the state keeps its table while nothing they read is written; a copy
    # of the state keeps none, so it lists them afresh: the two agree at every chance node of random games.
    game = rulesdsl.load_game(name)
    kept = 0

    def check(state, move):
        nonlocal kept
        step = state.rules.steps[state.step]
        if step.kind != "chance" or step.unchanged is None:
            return
        found = state.chance_kept.get(step.name)
        if found is not None and found[0] == step.unchanged(state):
            kept += 1
            listed = [(str(m), p) for m, p in state.chance_outcomes()]
            assert listed == [(str(m), p) for m, p in state.clone().chance_outcomes()], name

    for seed in range(2):
        chance, seats = streams(seed, game.num_players)
        play(game.new_initial_state(seed), uniform, chance, seats, observe=check)
    if any(s.unchanged is not None for s in game.rules.steps.values()):
        assert kept > 0, name
