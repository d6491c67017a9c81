"""`visible:` written as an expression of the seat looking (`viewer`), the place's seat (`owner`) and key (`key`):
what each seat, the table and the audience observe (JSON, the vector, the picture, an agent's view), the states
agents sample, the secret warning, located failures, and the compiled backend in lockstep with the Python engine."""

from __future__ import annotations

from pathlib import Path

import pytest

import rulesdsl
from rulesdsl import Rng
from rulesdsl.agents import PlayerView
from rulesdsl.engine.load import compile_game
from rulesdsl.engine.observer import AUDIENCE, Observer
from rulesdsl.engine.tensor import ObservationTensor, observation_string
from rulesdsl.errors import GameRuntimeError, RulesError
from rulesdsl.ir.occurrences import occurrences
from rulesdsl.loading import load_document
from rulesdsl.lsp.index import FileIndex
from rulesdsl.render import render_state
from rulesdsl.serve.scene import Scene

from .helpers import ROOT

FOREHEADS = str(ROOT / "tests" / "compiled_games" / "foreheads.yaml")

# Four seats; places keyed by seat and by colour, and a variable per seat seen by its seat and those told.
TOLD = """
game: Told
players: {count: 4}
zones:
  pen: {keys: players, visible: "viewer == owner or viewer == (key + 1) % num_players", init: "[10 + key]"}
  bin: {keys: "['red', 'blue']", visible: "key == 'red' or viewer == 0", init: "[1] if key == 'red' else [2, 3]"}
vars:
  coins: {per: player, init: "10 * owner + 1", visible: "viewer == owner or viewer in told"}
  told: {init: "[]"}
  shown: {init: 0}
moves:
  tell: {notation: tell, do: ["told = told + [me]"]}
  EXTRA
flow:
  steps:
    play: {moves: [tell], next: end_turn}
end:
  - when: "turn >= 4"
    winners: "[]"
"""


def dealt(game=None, moves=("take grey", "take white", "take grey", "ask")):
    """Foreheads with cards 2, 3, 1 on p0, p1, p2 and a prize of 4, then `moves`."""
    state = (game or rulesdsl.load_game(FOREHEADS, backend="python")).new_initial_state(1)
    for text in ("card 2", "card 3", "card 1", "card 2", *moves):
        state.apply(state.parse_move(text))
    return state


def pebbles(*colours):
    return [{"piece": {"kind": "pebble", "colour": c}} for c in colours]


def told(tmp_path, extra="", visible=None):
    text = TOLD.replace("EXTRA", extra)
    if visible is not None:
        text = text.replace('visible: "viewer == owner or viewer in told"', f'visible: "{visible}"')
    path = tmp_path / "told.yaml"
    path.write_text(text, encoding="utf-8")
    return rulesdsl.load_game(str(path), backend="python")


def test_each_seat_sees_the_others_cards_its_side_s_hands_and_the_prize_once_told():
    state = dealt()  # p0 gave up its pebble to be told the prize
    seen = {p: state.observation(p)["vars"] for p in range(3)}
    assert [seen[p]["brow"] for p in range(3)] == [[{"hidden": True}, 3, 1], [2, {"hidden": True}, 1],
                                                   [2, 3, {"hidden": True}]]
    assert [seen[p]["prize"] for p in range(3)] == [4, {"hidden": True}, {"hidden": True}]
    hands = [state.observation(p)["zones"]["hand"] for p in range(3)]
    assert hands[0] == hands[2] == [[], {"hidden": 1}, pebbles("grey")]  # p0 and p2 are one side
    assert hands[1] == [{"hidden": 0}, pebbles("white"), {"hidden": 1}]
    assert "hand: p0 (0 hidden), p1 [pebble(colour=white)], p2 (1 hidden)" in render_state(state, 1).splitlines()
    assert PlayerView(state, 1).observation() == state.observation(1)


def test_the_playground_shows_each_seat_what_it_sees():
    state = dealt()
    for seat, texts in ((0, ["(hidden)", "3", "1"]), (1, ["2", "(hidden)", "1"]), (None, ["2", "3", "1"])):
        scene = Scene(state.rules).of(state, seat)
        brow = next(v for v in scene["variables"] if v["name"] == "brow")["places"]
        assert [p["text"] for p in brow] == texts
    hand = next(z for z in Scene(state.rules).of(state, 1)["zones"] if z["name"] == "hand")["places"]
    assert [bool(p.get("hidden")) for p in hand] == [True, False, True]


def test_the_table_sees_what_some_seat_sees_and_the_audience_what_every_seat_sees():
    state = dealt()
    table = state.observation(None)["vars"]
    assert table["brow"] == [2, 3, 1] and table["prize"] == 4
    audience = dict((h.name, v) for h, v in Observer(state.rules, AUDIENCE, state.revealed, state).holders(state))
    assert all(str(v) == "(hidden)" for v in audience["brow"]) and str(audience["prize"]) == "(hidden)"
    for text in ("ask", "ask"):  # p1 and p2 are told too: now every seat sees the prize
        state.apply(state.parse_move(text))
    audience = dict((h.name, v) for h, v in Observer(state.rules, AUDIENCE, state.revealed, state).holders(state))
    assert audience["prize"] == 4 and state.observation(1)["vars"]["prize"] == 4


def test_the_vector_shows_each_seat_what_it_sees_only():
    state = dealt()
    tensor = ObservationTensor(state.game)
    names = tensor.describe()

    def entry(seat, name):
        return tensor.values(state, seat)[names.index(name)]

    assert [entry(0, f"var brow[{k}]") for k in range(3)] == [0.0, 3.0, 1.0]
    assert [entry(1, f"var brow[{k}]") for k in range(3)] == [2.0, 0.0, 1.0]
    assert [entry(p, "var prize") for p in range(3)] == [4.0, 0.0, 0.0]
    assert entry(0, "zone hand[2] pebble.colour=grey") == 1.0 and entry(1, "zone hand[2] pebble.colour=grey") == 0.0
    assert entry(1, "zone hand[2] size") == 1.0  # how many a hidden place holds is seen


def test_the_learning_integrations_observe_through_the_same_view():
    pytest.importorskip("numpy")
    from rulesdsl.integrations.common import Loaded

    loaded, state = Loaded(FOREHEADS), dealt()
    names = loaded.tensor.describe()
    for seat, expected in ((0, [0.0, 3.0, 1.0]), (2, [2.0, 3.0, 0.0])):
        vector = loaded.observe(state, seat)
        assert [float(vector[names.index(f"var brow[{k}]")]) for k in range(3)] == expected
    text = observation_string(state, 1)
    assert '"brow":[2,{"hidden":true},1]' in text and '"prize":{"hidden":true}' in text


def test_sampled_states_deal_back_only_what_the_seat_does_not_see():
    state = dealt(moves=("take grey", "take white", "take white"))  # p1 sees its hand only
    view = PlayerView(state, 1)
    hands = set()
    for seed in range(12):
        sample = view.determinize(Rng(seed))
        assert sample.observation(1) == state.observation(1)  # nothing the seat sees changes
        assert sorted(map(str, sample.zones[1][0] + sample.zones[1][2])) == ["pebble(colour=grey)",
                                                                              "pebble(colour=white)"]
        hands.add((str(sample.zones[1][0]), str(sample.zones[1][2])))
    # the history shows p0 took grey and p2 white: the samples keep what the seat saw
    assert hands == {("[pebble(colour=grey)]", "[pebble(colour=white)]")}
    # a position set by hand (its history left out) is dealt back both ways
    edited = state.game.state_from_json({**state.to_json(), "history": []})
    assert len({str(PlayerView(edited, 1).determinize(Rng(seed)).zones[1][0]) for seed in range(12)}) == 2


def test_a_variable_s_unseen_values_are_dealt_back_among_its_unseen_places(tmp_path):
    state = told(tmp_path).new_initial_state(0)
    state.apply(state.parse_move("tell"))  # p0 is told every seat's coins
    assert state.observation(0)["vars"]["coins"] == [1, 11, 21, 31]
    assert state.observation(1)["vars"]["coins"] == [{"hidden": True}, 11, {"hidden": True}, {"hidden": True}]
    # the rules set every seat's coins at the start, which every seat knows; a position set by hand (which its
    # history does not lead to) is dealt back
    assert {tuple(PlayerView(state, 1).determinize(Rng(seed)).vars[0]) for seed in range(5)} == {(1, 11, 21, 31)}
    edited = state.clone()
    edited.vars[0][2], edited.vars[0][3] = 31, 21
    samples = {tuple(PlayerView(edited, 1).determinize(Rng(seed)).vars[0]) for seed in range(20)}
    assert all(s[1] == 11 and sorted(s) == [1, 11, 21, 31] for s in samples) and len(samples) > 1
    assert {tuple(PlayerView(state, 0).determinize(Rng(seed)).vars[0]) for seed in range(5)} == {(1, 11, 21, 31)}


def test_places_keyed_by_seats_and_by_other_keys(tmp_path):
    state = told(tmp_path).new_initial_state(0)
    pen = [state.observation(p)["zones"]["pen"]["table"] for p in range(4)]
    # pen[k] is seen by seat k and by the seat after it round the table
    assert pen[1] == [[0, [10]], [1, [11]], [2, {"hidden": 1}], [3, {"hidden": 1}]]
    assert pen[0] == [[0, [10]], [1, {"hidden": 1}], [2, {"hidden": 1}], [3, [13]]]
    bins = [state.observation(p)["zones"]["bin"]["table"] for p in range(2)]
    assert bins[0] == [["red", [1]], ["blue", [2, 3]]] and bins[1] == [["red", [1]], ["blue", {"hidden": 2}]]


def test_a_place_seen_by_an_expression_is_hidden_information_and_its_secret_is_followed(tmp_path):
    game = told(tmp_path, extra='peek: {notation: peek, do: ["shown = coins[me]"]}')
    assert game.rules.has_hidden_information
    warnings = [w for w in game.rules.warnings if w.code == "secret_made_public"]
    assert len(warnings) == 1 and dict(warnings[0].fields)["variable"] == "shown"
    assert dict(warnings[0].fields)["secret"] == "variable 'coins' (visible: \"viewer == owner or viewer in told\")"
    assert warnings[0].location.line == TOLD.replace("EXTRA", "peek").splitlines().index("  peek") + 1


def test_an_expression_that_fails_is_located_where_it_is_written(tmp_path):
    game = told(tmp_path, visible="coins[viewer] // (viewer - 1) > 0")
    state = game.new_initial_state(0)
    assert state.observation(0)["vars"]["coins"][0] == {"hidden": True}
    with pytest.raises(GameRuntimeError) as failed:
        state.observation(1)
    text = str(failed.value)
    assert "visible of coins" in text and "ZeroDivisionError" in text
    line = TOLD.splitlines().index(next(t for t in TOLD.splitlines() if t.startswith("  coins:"))) + 1
    assert f"told.yaml:{line}:" in text


def test_what_is_not_true_or_false_is_refused_at_load(tmp_path):
    with pytest.raises(RulesError, match="visible: should give true or false, not true or false or a seat"):
        told(tmp_path, visible="told[0] if told else true")


def test_the_compiled_backend_observes_alike_in_lockstep():
    pytest.importorskip("numba")
    from rulesdsl.backends.compiled.build import takes, with_backend

    from .equivalence import lockstep

    python = rulesdsl.load_game(FOREHEADS, backend="python")
    assert takes(python) is None  # the expressions are no reason to refuse it: observations are built alike
    compiled = with_backend(python, "compiled")
    assert compiled.backend == "compiled"
    assert lockstep(python, compiled, range(4)) > 4  # the same states and every seat's observation alike
    a, b = dealt(python), dealt(compiled)
    tensor_a, tensor_b = ObservationTensor(python), ObservationTensor(compiled)
    for seat in range(3):
        assert tensor_b.values(b.python(), seat) == tensor_a.values(a, seat)
        assert b.observation(seat) == a.observation(seat)


def test_the_editor_resolves_the_names_of_an_expression_to_where_they_are_declared():
    doc = load_document(FOREHEADS)
    names = [n for n in occurrences(compile_game(doc, FOREHEADS).rules.ir) if n.path[-1] == "visible"]
    index = FileIndex(doc, names)
    found = {}
    for name in names:
        where = doc.locate(name.path, name.start)[0]
        symbol = index.symbol_at(FOREHEADS, where.line, where.col)
        found.setdefault(name.name, set()).add((symbol.kind, symbol.location == doc.locate(name.decl, key=True)[0]))
    assert found == {"side": {("data", True)}, "viewer": {("local", True)}, "owner": {("local", True)},
                     "told": {("variable", True)}}


def test_the_observer_is_the_only_reader_of_visibility():
    # what a seat sees is asked of State.sight only by the Observer (views, vectors and sampling go through it),
    # which asks a holder's visible: expression in turn: no other code can show a seat what it should not see
    import ast
    package = Path(rulesdsl.__file__).resolve().parent
    callers = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "sight":
                callers.add(path.relative_to(package).as_posix())
    assert callers == {"engine/observer.py", "engine/state.py"}  # (State.sight asks the holder's expression)
    state = (package / "engine" / "state.py").read_text(encoding="utf-8")
    assert state.count(".sight(") == 1 and "seen = holder.sight(" in state
