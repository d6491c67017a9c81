"""Integer actions (engine/actions.py): the numbering of moves and chance outcomes, its stability, and the
located error when a domain cannot be numbered."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulesdsl.api import load_game
from rulesdsl.engine.actions import ActionMap
from rulesdsl.errors import GameRuntimeError, IllegalMove, RulesError
from rulesdsl.loading import bundled_games

# A 2x2 board: 'place' is numbered from its domain (cells x sizes), 'take' by place (its domain reads the pile).
PILES = """
game: Piles
players: {count: 2}
board:
  grid: {columns: ab, rows: 2}
pieces:
  stone:
    attributes:
      size: [1, 2]
vars:
  pile: {init: 3}
actions:
  max_legal: 4
moves:
  place:
    params:
      c: cells
      size: "[1, 2]"
    when: ["empty(c)"]
    do: ["place(piece('stone', size=size), c)"]
  take:
    params:
      n: "1..pile"
    notation: "take {n}"
    do: ["pile -= n"]
flow:
  steps:
    play:
      moves: [place, take]
      next: end_turn
end:
  - when: "pile == 0"
    winners: "[player]"
"""


def test_numbering_from_domains_then_by_place(write):
    game = load_game(write(PILES))
    actions = ActionMap(game)
    # place: 4 cells x 2 sizes = 8 numbers (cell-major, as the params are written); take: 4 places after them
    assert actions.num_distinct_actions == 8 + 4
    state = game.new_initial_state()
    legal = {a: str(m) for a, m in actions.legal(state).items()}
    assert legal == {0: "place a1 1", 1: "place a1 2", 2: "place b1 1", 3: "place b1 2", 4: "place a2 1",
                     5: "place a2 2", 6: "place b2 1", 7: "place b2 2", 8: "take 1", 9: "take 2", 10: "take 3"}
    state.apply(actions.move(state, 3))  # b1 taken: its two numbers go, the others keep theirs
    assert sorted(actions.legal(state)) == [0, 1, 4, 5, 6, 7, 8, 9, 10]
    state.apply(actions.move(state, 9))  # take 2 leaves a pile of 1: one take, numbered first of its block
    assert {a: str(m) for a, m in actions.legal(state).items() if a >= 8} == {8: "take 1"}


def test_an_action_that_is_not_legal_is_refused(write):
    game = load_game(write(PILES))
    actions = ActionMap(game)
    state = game.new_initial_state()
    state.apply("place b1 2")
    with pytest.raises(IllegalMove, match="no legal move has this number"):
        actions.move(state, 3)


def test_the_cap_on_moves_numbered_by_place_is_enforced_at_the_cap(write):
    game = load_game(write(PILES.replace("init: 3", "init: 5")))
    state = game.new_initial_state()
    with pytest.raises(GameRuntimeError, match="more than 4 moves") as info:
        ActionMap(game).legal(state)
    assert info.value.format().startswith(f"{game.path}:13:14: error:")  # at max_legal's value


def test_a_domain_that_reads_the_position_without_a_cap_is_a_located_error(write):
    path = write(PILES.replace("actions:\n  max_legal: 4\n", ""))
    with pytest.raises(RulesError) as info:
        ActionMap(load_game(path)).num_distinct_actions
    text = info.value.format()
    assert f"{path}:21:10: error: param 'n' of 'take' takes its values from the position" in text
    assert "max_legal" in text


def test_chance_outcomes_are_numbered_from_their_domains(write):
    dice = PILES.replace("  play:\n", "  roll:\n      chance:\n        outcomes:\n          params:\n"
                         "            d: \"1..3\"\n          do: [\"pile += d\"]\n      next: play\n    play:\n")
    dice = dice.replace("next: end_turn", "next: roll").replace("init: 3", "init: 1")
    game = load_game(write(dice))
    actions = ActionMap(game)
    state = game.new_initial_state()
    assert actions.max_chance_outcomes == 3
    assert [(a, str(m), p) for a, m, p in actions.chance(state)] == [(0, "roll 1", 1 / 3), (1, "roll 2", 1 / 3),
                                                                       (2, "roll 3", 1 / 3)]
    state.apply(actions.move(state, 2))
    assert state.vars[0] == 4


def _playout_actions(path: str, seed: int, plies: int) -> list:
    """(legal actions, action chosen) per decision of a seeded random playout, every legal move checked to map
    to a distinct number in range and back to itself."""
    game = load_game(path)
    actions = ActionMap(game)
    size = actions.num_distinct_actions
    state, rng, seen = game.new_initial_state(seed=seed), random.Random(seed), []
    while not state.is_terminal() and len(seen) < plies:
        if state.is_chance_node():
            state.apply(state.sample_chance())
            continue
        player = state.acting_players()[0]
        legal = actions.legal(state, player)
        moves = state.legal_moves(player)
        assert len(legal) == len(moves) and all(0 <= a < size for a in legal)
        assert sorted(map(str, legal.values())) == sorted(map(str, moves))
        for action, move in legal.items():
            assert actions.move(state, action, player) == move
            assert actions.action(state, move) == action
        action = rng.choice(sorted(legal))
        seen.append((tuple(legal), action))
        state.apply(legal[action])
    return seen


@pytest.mark.parametrize("name", sorted(bundled_games()))
def test_every_legal_move_of_a_bundled_game_round_trips(name):
    assert _playout_actions(bundled_games()[name], seed=3, plies=60)


def test_the_numbering_is_the_same_in_another_process_with_another_hash_seed():
    path = str(bundled_games()["mark"])
    here = repr(_playout_actions(path, seed=5, plies=30))
    code = ("import sys; sys.path.insert(0, 'tests'); from test_rl_actions import _playout_actions; "
            f"print(repr(_playout_actions({path!r}, seed=5, plies=30)))")
    env = dict(os.environ, PYTHONHASHSEED="12345")
    there = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True,
                           cwd=os.path.dirname(os.path.dirname(__file__)))
    assert there.stdout.strip() == here


def test_the_numbering_of_a_domain_is_the_same_in_two_fresh_loads():
    path = bundled_games()["marble-chase"]
    first, second = ActionMap(load_game(path)), ActionMap(load_game(path))
    assert first.num_distinct_actions == second.num_distinct_actions
    assert [(k.rule.name, k.offset, [list(map(str, v)) for v in k.values]) for k in first.moves.kinds] == \
        [(k.rule.name, k.offset, [list(map(str, v)) for v in k.values]) for k in second.moves.kinds]


def test_an_action_describes_its_move_or_its_place(write):
    actions = ActionMap(load_game(write(PILES)))
    assert [actions.moves.describe(a) for a in (0, 7, 8, 11)] == ["place a1 1", "place b2 2", "legal move 0 of take",
                                                                  "legal move 3 of take"]


# Domains that read the position, bounded: 'lift' and 'put' by inference (occupied() lists cells; a filter of
# cells), 'take' by its declared 'among:'.
BOUNDED = """
game: Bounded
players: {count: 2}
board:
  grid: {columns: ab, rows: 2}
pieces:
  stone: {}
vars:
  pile: {init: 3}
moves:
  put:
    params:
      c: "[x for x in cells if empty(x)]"
    do: ["place(piece('stone'), c)"]
  lift:
    params:
      c: "occupied()"
    do: ["remove(c)"]
  take:
    params:
      n:
        in: "1..pile"
        among: "1..3"
    notation: "take {n}"
    do: ["pile -= n"]
flow:
  steps:
    play:
      moves: [put, lift, take]
      next: end_turn
end:
  - when: "pile == 0"
    winners: "[player]"
"""


def test_inferred_and_declared_bounds_number_moves_the_same_in_every_state(write):
    game = load_game(write(BOUNDED))
    actions = ActionMap(game)
    assert actions.moves.by_place == []
    # put: 4 cells (a1 b1 a2 b2); lift: the same 4 cells; take: 1..3
    assert actions.num_distinct_actions == 4 + 4 + 3
    state = game.new_initial_state()
    assert {a: str(m) for a, m in actions.legal(state).items()} == {
        0: "put a1", 1: "put b1", 2: "put a2", 3: "put b2", 8: "take 1", 9: "take 2", 10: "take 3"}
    state.apply(actions.move(state, 3))  # put b2: lift b2 is 4 + 3
    assert {a: str(m) for a, m in actions.legal(state).items()} == {
        0: "put a1", 1: "put b1", 2: "put a2", 7: "lift b2", 8: "take 1", 9: "take 2", 10: "take 3"}
    state.apply(actions.move(state, 9))  # take 2 leaves 1: take 1 keeps its number
    assert {a: str(m) for a, m in actions.legal(state).items() if a >= 8} == {8: "take 1"}
    assert [actions.moves.describe(a) for a in (2, 5, 10)] == ["put a2", "lift b1", "take 3"]


def test_a_value_outside_its_declared_bound_is_a_located_runtime_error(write):
    game = load_game(write(BOUNDED.replace("init: 3", "init: 5")))
    state = game.new_initial_state()
    with pytest.raises(GameRuntimeError) as info:
        ActionMap(game).legal(state)
    text = info.value.format()
    assert text.startswith(f"{game.path}:23:16: error:")  # at the among's value
    assert "param 'n' of 'take' is 4, which its 'among:' does not list" in text
    assert "add this one" in text


def test_a_bound_that_reads_the_position_is_a_located_load_error(write):
    path = write(BOUNDED.replace('among: "1..3"', 'among: "1..pile"'))
    with pytest.raises(RulesError) as info:
        load_game(path)
    assert f"{path}:23:16: error: the bound of param 'n' of 'take' reads the position" in info.value.format()


# Kinds still numbered by their place in the legal list, per bundled game (a regression adds to these).
BY_PLACE = {"fast-track": {"split"}, "mabula": set(), "mark": set(), "marble-chase": set()}


@pytest.mark.parametrize("name", sorted(bundled_games()))
def test_an_action_of_a_bundled_game_always_denotes_the_same_move(name):
    game = load_game(bundled_games()[name])
    actions = ActionMap(game)
    placed = {r.name for r in actions.moves.by_place}
    assert placed == BY_PLACE[name]
    seen: dict = {}
    for seed in range(4):
        state, rng = game.new_initial_state(seed=seed), random.Random(seed)
        for _ in range(150):
            if state.is_terminal():
                break
            if state.is_chance_node():
                state.apply(state.sample_chance())
                continue
            player = state.acting_players()[0]
            legal = actions.legal(state, player)
            for action, move in legal.items():
                if move[0].name in placed:
                    continue
                # the kind and its params' values: a seat's move and another's with the same values share their
                # number, and notation may show lets that vary (Fast Track's 'K be-m27' names whose marble leaves)
                text = " ".join([move[0].name, *map(str, move[1][:len(move[0].params)])])
                assert seen.setdefault(action, text) == text, f"action {action} is {seen[action]} and {text}"
            state.apply(legal[rng.choice(sorted(legal))])
    assert len(seen) > 10


@pytest.mark.parametrize("among, where, message", [
    ('"0..2000000"', ":23:17:", "would hold 2,000,001 items"),
    ('"1..999999"', ":20:5:", "the moves of 'take' bring the actions to more than 1,000,000")])
def test_a_huge_bound_is_a_located_error(write, among, where, message):
    path = write(BOUNDED.replace('among: "1..3"', f"among: {among}"))
    with pytest.raises(RulesError) as info:
        ActionMap(load_game(path)).num_distinct_actions
    text = info.value.format()
    assert text.startswith(f"{path}{where} error:") and message in text


@settings(max_examples=15, deadline=None)
@given(among=st.lists(st.integers(1, 9), min_size=1, max_size=6, unique=True), pile=st.integers(1, 9))
def test_a_declared_bound_numbers_values_by_their_place_in_it(tmp_path_factory, among, pile):
    # the domain lists the values in increasing order; the bound, in its own order, is what numbers them
    path = tmp_path_factory.mktemp("among") / "game.yaml"
    path.write_text(BOUNDED.replace('"1..pile"', f'"[k for k in {sorted(among)} if k <= pile]"')
                    .replace('among: "1..3"', f'among: "{among}"').replace("init: 3", f"init: {pile}"))
    game = load_game(str(path))
    actions = ActionMap(game)
    assert actions.num_distinct_actions == 8 + len(among)
    takes = {a: str(m) for a, m in actions.legal(game.new_initial_state()).items() if a >= 8}
    assert takes == {8 + among.index(n): f"take {n}" for n in among if n <= pile}
