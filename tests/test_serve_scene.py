"""The playground's pictures: where cells are drawn (render: at, grids, rows, rings) and what a seat sees."""

from __future__ import annotations

import itertools
import math
import time

import pytest
from hypothesis import given, settings, strategies as st

from rulesdsl.api import load_game
from rulesdsl.errors import RulesError
from rulesdsl.sim.runner import random_step
from rulesdsl.engine.rng import Rng
from rulesdsl.loading import bundled_games
from rulesdsl.serve.layout import _nearest_distance
from rulesdsl.serve.scene import Scene

BUNDLED = [(name, {}) for name in bundled_games()] + [("fast-track", {"board": "hex", "players": 6}),
                                                     ("mark", {"players": 4})]

TRACK = """
game: Track
players: {count: 2}
board:
  cells: "['s' + str(i) for i in 0..5] + ['x']"
  attributes:
    n: "int(c.name[1:]) if c.name != 'x' else none"
  links:
    next: {next: "cell('s' + str((c.n + 1) % 6)) if c.n != none else none"}
pieces:
  token: {attributes: {owner: [0, 1]}}
moves:
  put:
    params: {c: cells}
    when: [{test: "empty(c)", why: the space is taken}]
    notation: "{c}"
    do: ["place(piece('token', owner=me), c)"]
flow:
  steps:
    play: {moves: [put], next: end_turn}
end:
  - when: "size(occupied()) == 7"
    winners: "[]"
"""


def _distances(cells):
    return [math.dist((a["x"], a["y"]), (b["x"], b["y"])) for a, b in itertools.combinations(cells, 2)]


@pytest.mark.parametrize("name, options", BUNDLED, ids=[f"{n}{o or ''}" for n, o in BUNDLED])
def test_every_bundled_board_is_drawn_with_every_cell_apart_and_pieces_on_cells(name, options):
    game = load_game(name, options=options)
    state = game.new_initial_state(3)
    rng = Rng(5)
    for _ in range(40):  # into the game, so that pieces stand on the board
        if state.terminal:
            break
        random_step(state, rng)
    scene = Scene(game.rules).of(state, 0)
    cells = scene["cells"]
    assert [c["name"] for c in cells] == [c.name for c in game.rules.board.cells]
    assert min(_distances(cells)) == pytest.approx(1.0, abs=1e-3)  # scaled: the nearest two one unit apart
    assert min(c["x"] for c in cells) == 0 and min(c["y"] for c in cells) == 0
    on_board = [(c, p) for c, p in enumerate(state.cells) if p is not None]
    drawn = [(p["cell"], p["text"]) for p in scene["pieces"] if p["level"] == 0]
    assert drawn == [(c, str(p)[:4]) for c, p in on_board]


def test_bundled_layouts_are_the_games_own():
    layouts = {name: Scene(load_game(name).rules).layout for name in bundled_games()}
    assert layouts == {"fast-track": "at", "mabula": "grid", "marble-chase": "grid", "mark": "rows"}


def test_fast_track_is_drawn_as_a_square_track_round_its_centre():
    scene = Scene(load_game("fast-track").rules).of(load_game("fast-track").new_initial_state(0), 0)
    at = {c["name"]: (c["x"], c["y"]) for c in scene["cells"]}
    # 14 spaces a side: the corners of the square, the Bull's Eye in the middle (y downward in a scene)
    assert at["m0"] == (0, 14) and at["m14"] == (14, 14) and at["m28"] == (14, 0) and at["m42"] == (0, 0)
    assert at["be"] == (7, 7)


def test_a_track_without_hints_is_drawn_as_a_ring_of_its_links(write):
    rules = load_game(write(TRACK)).rules
    scene = Scene(rules)
    assert scene.layout == "ring"
    ring = [scene.places[i] for i in range(6)]
    steps = [math.dist(ring[i], ring[(i + 1) % 6]) for i in range(6)]
    assert steps == pytest.approx([1.0] * 6, abs=1e-3)  # a regular hexagon: neighbours one unit apart
    centre = (sum(x for x, _ in ring) / 6, sum(y for _, y in ring) / 6)
    assert [math.dist(p, centre) for p in ring] == pytest.approx([1.0] * 6, abs=1e-3)
    assert scene.places[6][1] > max(y for _, y in ring)  # the cell off the ring: below it
    assert scene.links == [[0, 1], [0, 5], [1, 2], [2, 3], [3, 4], [4, 5]]


def test_render_at_places_cells_where_the_file_says(write):
    rules = load_game(write(TRACK + "render:\n  at: \"[2 * c.n, 0] if c.n != none else [4, 4]\"\n")).rules
    scene = Scene(rules)
    assert scene.layout == "at"
    # nearest cells 2 apart become 1 apart; y upward in the file, downward in the scene
    assert scene.places == [(0, 2), (1, 2), (2, 2), (3, 2), (4, 2), (5, 2), (2, 0)]


def test_rows_are_drawn_top_to_bottom_and_cells_left_out_below(write):
    rules = load_game(write(TRACK + "render:\n  rows: \"[('a', [cell('s0'), cell('s1')]), "
                                    "('b', [cell('s2')])]\"\n")).rules
    scene = Scene(rules)
    assert scene.layout == "rows"
    assert scene.places[:3] == [(0, 0), (1, 0), (0, 1)]
    assert scene.places[3:] == [(0, 3), (1, 3), (2, 3), (3, 3)]  # s3 s4 s5 x, after a blank line


CARDS = """
game: Cards
players: {count: 2, names: [north, south]}
render:
  colours: {north: "#123456", red: "#ff0000"}
  shapes: {card: square}
pieces:
  card: {attributes: {suit: [red, black], colour: [red, black]}, derived: {symbol: "suit[0]"}}
  pawn: {attributes: {owner: [0, 1]}}
board:
  grid: {columns: 2, rows: 1}
  init: {"11": "piece('pawn', owner=0)", "21": "piece('pawn', owner=1)"}
zones:
  hand: {per: player, visible: owner, init: "[piece('card', suit='red', colour='red')] * (owner + 1)"}
  table: {init: "[piece('card', suit='black', colour='black')]"}
vars:
  points: {per: player, init: "owner * 5"}
  secret: {visible: none, init: 7}
moves:
  pass_move: {notation: "wait"}
flow:
  steps:
    play: {moves: [pass_move], next: end_turn}
end:
  - when: "false"
    winners: "[]"
"""


def test_a_seat_sees_its_hand_and_only_the_size_of_the_others(write):
    game = load_game(write(CARDS))
    scene = Scene(game.rules).of(game.new_initial_state(0), 0)
    hand = next(z for z in scene["zones"] if z["name"] == "hand")["places"]
    assert [p["owner"] for p in hand] == ["north", "south"]
    assert [(i["text"], i["fill"]) for i in hand[0]["items"]] == [("r", "#ff0000")]
    assert hand[1]["hidden"] and hand[1]["count"] == 2
    assert [i["text"] for i in hand[1]["items"]] == ["?", "?"]  # face down
    table = next(z for z in scene["zones"] if z["name"] == "table")["places"][0]
    # a colour word needs no entry in render: colours
    assert [(i["text"], i["fill"], i["shape"]) for i in table["items"]] == [("b", "black", "square")]
    variables = {v["name"]: [p["text"] for p in v["places"]] for v in scene["variables"]}
    assert variables == {"points": ["0", "5"], "secret": ["(hidden)"]}
    # pieces with an owner take their player's colour: the file's for north, the palette's for south
    assert [(p["cell"], p["fill"], p["shape"]) for p in scene["pieces"]] == [(0, "#123456", "circle"),
                                                                              (1, "#1f77b4", "circle")]
    table_view = Scene(game.rules).of(game.new_initial_state(0), None)
    assert [len(p["items"]) for p in next(z for z in table_view["zones"] if z["name"] == "hand")["places"]] == [1, 2]
    assert not any(p.get("hidden") for z in table_view["zones"] for p in z["places"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-50, 50), st.integers(-50, 50)), min_size=2, max_size=40, unique=True))
def test_the_nearest_distance_is_that_of_the_closest_pair(points):
    points = [(x / 7, y / 3) for x, y in points]
    assert _nearest_distance(points) == pytest.approx(min(math.dist(a, b)
                                                          for a, b in itertools.combinations(points, 2)))


def test_a_huge_board_is_laid_out_quickly():
    # 10,000 cells in one column: the closest pair is found without comparing every pair
    points = [(0.0, float(i)) for i in range(10_000)]
    start = time.process_time()
    assert _nearest_distance(points) == 1.0
    assert time.process_time() - start < 2


@pytest.mark.parametrize("at, message", [
    ("[10 ** 12, 0]", "cell s0 is drawn at [1000000000000, 0], which is no point"),
    ("[sum(0..10 ** 9), 0]", "cannot compute where cell s0 is drawn: the range 0..1000000000 would hold"),
    ("[size(repeat('x', 10 ** 9)), 0]", "cannot compute where cell s0 is drawn: repeat() would hold"),
    ("[c.n, 0] if c.n != none else open('/etc/passwd')", "unknown function 'open'"),
    ("[c.n, 0]", "cell x is drawn at [none, 0], which is no point"),
])
def test_a_hostile_or_mistaken_at_is_a_located_problem_found_fast(write, at, message):
    path = write(TRACK + f'render:\n  at: "{at}"\n')
    start = time.process_time()
    with pytest.raises(RulesError) as info:
        load_game(path)
    assert time.process_time() - start < 5
    [problem] = info.value.problems
    assert problem.message.startswith(message)
    assert (problem.location.file, problem.location.line) == (path, TRACK.count("\n") + 2)
