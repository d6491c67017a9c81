"""States to JSON and back (rulesdsl/engine/serialize.py, through State.to_json and Game.state_from_json).

What belongs here: the saved form of a state and reading it back -- round trips along random playouts of
every bundled game (the restored state shows every player the same and plays on identically), pending
secret choices, what a damaged or hostile saved state is refused with (every problem at once, each at the
line of its entry), parse_json's located errors, and encode()/decode() of rule values. The command line's
handling of state files (`--state`) is tested in tests/test_cli.py and tests/test_untrusted_runs.py.
"""

from __future__ import annotations

import json
from functools import lru_cache

import pytest

import rulesdsl
from rulesdsl import CHANCE, SIMULTANEOUS, Rng
from rulesdsl.engine.serialize import decode, encode, parse_json
from rulesdsl.errors import RulesError
from rulesdsl.limits import MAX_JSON_DEPTH, MAX_JSON_DIGITS
from rulesdsl.loading import bundled_games
from rulesdsl.model.values import Record

from .helpers import ROOT, SEALED, revealed

TUTORIAL = str(ROOT / "examples" / "tutorial" / "three-in-a-row.yaml")


@lru_cache(maxsize=None)
def bundled(name: str, options: tuple = ()):
    """A bundled game, loaded once for the module (options as (name, value) pairs)."""
    return rulesdsl.load_game(bundled_games()[name], options=dict(options))


def random_step(state, rng) -> None:
    """One uniformly random legal move (for every player at a simultaneous step) or a sampled chance outcome."""
    player = state.current_player()
    if player == CHANCE:
        state.apply(state.sample_chance(rng))
    elif player == SIMULTANEOUS:
        for p in state.acting_players():
            legal = state.legal_moves(p)
            state.apply(legal[rng.below(len(legal))])
    else:
        legal = state.legal_moves(player)
        state.apply(legal[rng.below(len(legal))])


def saved_and_restored(game, state):
    """The state written as JSON text and read back, as a file would be."""
    text = json.dumps(state.to_json(), indent=2)
    return game.state_from_json(json.loads(text), "saved.json", text)


def refusal(game, data, text=None) -> list:
    """The problems of reading `data` back: [(line, message)]."""
    with pytest.raises(RulesError) as info:
        game.state_from_json(data, "saved.json", text)
    assert all(p.location.file == "saved.json" for p in info.value.problems)
    return [(p.location.line, p.message) for p in info.value.problems]


# -- round trips along random playouts ----------------------------------------------------------------------

PLAYOUTS = [(name, {}) for name in sorted(bundled_games())] + [
    ("mark", {"players": "3"}),
    ("fast-track", {"board": "hex"}),
]


@pytest.mark.parametrize("name, options", PLAYOUTS, ids=lambda v: v if isinstance(v, str) else
                         ",".join(f"{k}={x}" for k, x in v.items()) or "default")
def test_a_saved_state_reads_back_as_the_same_state_all_along_a_random_game(name, options):
    game = bundled(name, tuple(options.items()))
    seed = 11
    state, rng = game.new_initial_state(seed), Rng(seed)
    plies, fork, twin, checks = 0, 9, None, 0
    while not state.is_terminal():
        if plies % 40 == 0 or plies == fork:
            data = state.to_json()
            assert json.loads(json.dumps(data)) == data  # plain JSON
            restored = saved_and_restored(game, state)
            assert restored.to_json() == data
            assert restored.current_player() == state.current_player()
            assert [restored.observation(p) for p in range(game.num_players)] == \
                [state.observation(p) for p in range(game.num_players)]
            if state.current_player() != CHANCE:
                for p in state.acting_players():
                    assert [str(m) for m in restored.legal_moves(p)] == [str(m) for m in state.legal_moves(p)]
            if plies == fork:  # from here on, the original and its restored copy play the same random moves
                twin, twin_rng, rng = restored, Rng(seed + 1), Rng(seed + 1)
            checks += 1
        random_step(state, rng)
        plies += 1
    assert twin is not None and checks >= 2
    while not twin.is_terminal():
        random_step(twin, twin_rng)
    assert twin.to_json() == state.to_json()
    assert twin.returns() == state.returns() and twin.scores() == state.scores()
    assert saved_and_restored(game, state).is_terminal()


def test_a_finished_game_is_finished_whatever_the_file_says():
    game = rulesdsl.load_game(TUTORIAL)
    state = game.new_initial_state()
    for move in ["a1", "b1", "a2", "b2", "a3"]:
        state.apply(move)
    data = dict(state.to_json(), terminal=False, winners=None)
    restored = game.state_from_json(data)
    assert restored.is_terminal() and restored.winners == [0] and restored.returns() == [1.0, -1.0]
    early = game.new_initial_state()
    early.apply("b2")
    restored = game.state_from_json(dict(early.to_json(), terminal=True, winners=[1]))
    assert not restored.is_terminal() and [str(m) for m in restored.legal_moves()][:2] == ["a1", "b1"]


def test_a_game_stopped_at_the_turn_cap_stays_stopped_without_winners():
    game = rulesdsl.load_game(TUTORIAL)
    state = game.new_initial_state()
    state.apply("b2")
    restored = game.state_from_json(dict(state.to_json(), capped=True))
    assert restored.is_terminal() and restored.returns() == [0.0, 0.0]


# -- pending simultaneous choices (moved from tests/test_engine_features.py) ---------------------------------

@pytest.fixture
def game():
    return rulesdsl.load_game(SEALED)


def test_pending_choices_survive_a_json_round_trip(game):
    state = revealed(game)
    state.apply("bid 3", 2)
    copy = game.state_from_json(json.loads(json.dumps(state.to_json())))
    assert copy.acting_players() == [0, 1]
    copy.apply("bid 1", 0)
    copy.apply("bid 1", 1)
    assert copy.to_json()["vars"]["coins"] == [20, 20, 17]


def test_pending_choices_stay_secret_after_a_json_round_trip(game):
    state = revealed(game)
    state.apply("bid 2", 0)
    copy = game.state_from_json(json.loads(json.dumps(state.to_json())))
    view = copy.observation(1)
    assert view["pending"] == {"0": "chosen"} and "bid 2" not in json.dumps(view)


def test_a_pending_choice_must_be_legal_for_its_seat(game):
    data = revealed(game).to_json()
    data["pending"] = {"0": "bid 99", "1": "bid 2"}
    assert refusal(game, data) == [(0, 'pending move "bid 99" of seat 0: you cannot bid more coins than you have')]


def test_a_pending_choice_at_a_step_without_simultaneous_choices_is_refused():
    # once read, the choice overwrote the last history entry ('b2') and stayed pending in every later save
    tutorial = rulesdsl.load_game(TUTORIAL)
    state = tutorial.new_initial_state()
    state.apply("b2")
    text = json.dumps(dict(state.to_json(), pending={"1": "a1"}), indent=2)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row.startswith('  "pending":'))
    assert refusal(tutorial, json.loads(text), text) == [
        (line, "'pending' holds choices, but step 'play' is not a simultaneous step")]


def test_a_choice_of_every_player_kept_pending_is_refused(game):
    # the step resolves the choices once the last is made: a state holding them all would wait for ever
    state = revealed(game)
    for seat in range(2):
        state.apply("bid 1", seat)
    data = state.to_json()
    assert data["pending"] == {"0": "bid 1", "1": "bid 1"}
    data["pending"]["2"] = "bid 1"
    data["history"].append("bid 1")
    text = json.dumps(data, indent=2)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row.startswith('  "pending":'))
    assert refusal(game, json.loads(text), text) == [
        (line, "'pending' holds a choice of every player who chooses at step 'bidding'")]


def test_more_pending_choices_than_moves_in_the_history_are_refused(game):
    state = revealed(game)
    state.apply("bid 1", 0)
    data = dict(state.to_json(), history=[])
    text = json.dumps(data, indent=2)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row.startswith('  "pending":'))
    assert refusal(game, json.loads(text), text) == [(line, "'pending' holds more choices than 'history' has moves")]


# -- damaged states: every problem at once, each at its entry's line ----------------------------------------

def test_every_problem_is_reported_at_the_line_of_its_entry(game):
    data = revealed(game).to_json()
    data.update(game="Chess", step="nowhere", player=5, turn=-1)
    text = json.dumps(data, indent=2)
    lines = text.splitlines()

    def line_of(key):
        return next(i for i, line in enumerate(lines, 1) if line.startswith(f'  "{key}":'))

    assert sorted(refusal(game, json.loads(text), text)) == sorted([
        (line_of("game"), "the state is of game \"Chess\", not 'Sealed bids'"),
        (line_of("step"), 'no step "nowhere" in this game'),
        (line_of("player"), "'player' should be a seat from 0 to 2, not 5"),
        (line_of("turn"), "'turn' should be a whole number from 0 to 1,000,000,000,000, not -1"),
    ])
    assert refusal(game, json.loads(text))[0][0] == 0  # without the text, no line to name


@pytest.mark.parametrize("data", [[], {}, {"format": 2}, {"format": "1"}, "state"])
def test_what_is_not_a_saved_state(game, data):
    assert refusal(game, data) == [(0, "not a rulesdsl state (missing 'format': 1)")]


@pytest.mark.parametrize("damage, message", [
    (lambda d: d["vars"].update(coins=[1, 2]), "vars coins: should be a list of 3 values (one per player)"),
    (lambda d: d["vars"].update(coins=7), "vars coins: should be a list of 3 values (one per player)"),
    (lambda d: d["zones"].update(won=[[], []]), "zones won: should be a list of 3 lists (one per player)"),
    (lambda d: d["zones"].update(won=[[], [], 5]), "zones won: should be a list of 3 lists (one per player)"),
    (lambda d: d["zones"].update(offer=5), "zones offer: should be a list, not a whole number"),
    (lambda d: d["zones"].update(offer=[{"piece": {"kind": "prize", "value": 9}}]), "zones offer: "),
    (lambda d: d["zones"].update(offer=[{"cell": "nowhere"}]), "zones offer: "),
])
def test_zones_and_variables_must_have_their_shape(game, damage, message):
    data = revealed(game).to_json()
    damage(data)
    problems = refusal(game, data)
    assert len(problems) == 1 and problems[0][1].startswith(message), problems


def test_a_piece_must_be_of_a_declared_kind_with_declared_values():
    tutorial = rulesdsl.load_game(TUTORIAL)
    data = tutorial.new_initial_state().to_json()
    data["cells"] = {"a1": {"kind": "mark", "owner": 7}, "b1": {"kind": "rook"}}
    (first, second) = sorted(refusal(tutorial, data), key=lambda p: p[1])
    assert first[1] == "cell a1: '7' is not a possible owner of piece 'mark' (one of: 0, 1)"  # was "not a owner"
    assert second[1] == 'cell b1: {"kind": "rook"} is not a piece of this game'


def test_a_zone_per_key_must_hold_every_key():
    fast = bundled("fast-track")  # one pen per colour in play
    data = fast.new_initial_state().to_json()
    keys = [key for key, _ in data["zones"]["pen"]["table"]]
    assert len(keys) == 2 and keys[0] == "red"
    data["zones"]["pen"] = {"table": [["red", []]]}
    assert refusal(fast, data) == [(0, f"zones pen: has no zone for the key {keys[1]}")]


# -- parse_json: JSON text read with its errors located ------------------------------------------------------

def test_json_text_is_read():
    assert parse_json('{"a": [1, 2.5, "x", null, true]}', "s.json") == {"a": [1, 2.5, "x", None, True]}


@pytest.mark.parametrize("text, line, col, message", [
    ('{\n  "a": 1,\n  "b": [1, 2,]\n}', 3, 14, "not JSON: Expecting value"),
    ('{"a": 1 "b": 2}', 1, 9, "not JSON: Expecting ',' delimiter"),
    ("", 1, 1, "not JSON: Expecting value"),
    ("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1), 1, MAX_JSON_DEPTH + 1,
     f"JSON nested more than {MAX_JSON_DEPTH} deep"),
    ('{\n "turn":\n  ' + "9" * (MAX_JSON_DIGITS + 2) + "}", 3, 3,
     f"a whole number of {MAX_JSON_DIGITS + 2:,} digits (at most {MAX_JSON_DIGITS})"),
])
def test_json_errors_are_located(text, line, col, message):
    with pytest.raises(RulesError) as info:
        parse_json(text, "s.json")
    (problem,) = info.value.problems
    assert (problem.location.file, problem.location.line, problem.location.col) == ("s.json", line, col)
    assert problem.message == message


def test_a_json_line_of_a_bigger_file_is_located_on_that_line():
    with pytest.raises(RulesError) as info:
        parse_json('{"seed": 1,, "moves": []}', "results.jsonl", line=7, hint="each line is one game")
    (problem,) = info.value.problems
    assert str(problem.location) == "results.jsonl:7:12" and problem.hint == "each line is one game"


# -- encode and decode: rule values as JSON ------------------------------------------------------------------

@pytest.mark.parametrize("value, encoded", [
    (None, None), (True, True), (3, 3), (2.5, 2.5), ("x", "x"),
    ((1, 2), [1, 2]), (range(1, 4), [1, 2, 3]), ([(1, "a"), []], [[1, "a"], []]),
    ({"a": (1, 2)}, {"table": [["a", [1, 2]]]}),
    ({(1, 2): 3, "k": {"j": None}}, {"table": [[[1, 2], 3], ["k", {"table": [["j", None]]}]]}),
])
def test_plain_values_encode_as_json(value, encoded):
    assert encode(value) == encoded
    assert json.loads(json.dumps(encode(value))) == encoded


@pytest.fixture(scope="module")
def tutorial_rules():
    return rulesdsl.load_game(TUTORIAL).rules


def test_cells_pieces_and_records_are_tagged(tutorial_rules):
    cell = decode(tutorial_rules, {"cell": "b2"})
    piece = decode(tutorial_rules, {"piece": {"kind": "mark", "owner": 1}})
    assert str(cell) == "b2" and piece.owner == 1 and piece.kind == "mark"
    assert encode(cell) == {"cell": "b2"}
    assert encode(piece) == {"piece": {"kind": "mark", "owner": 1}}
    assert encode(Record(at=cell, n=2)) == {"record": {"at": {"cell": "b2"}, "n": 2}}
    assert encode({cell: [piece]}) == {"table": [[{"cell": "b2"}, [{"piece": {"kind": "mark", "owner": 1}}]]]}


@pytest.mark.parametrize("encoded", [
    {"cell": "a1"},
    [{"cell": "a1"}, {"cell": "c3"}],
    {"piece": {"kind": "mark", "owner": 0}},
    {"record": {"at": {"cell": "a2"}, "count": 3, "who": [0, 1]}},
    {"table": [[[1, 2], {"cell": "b1"}], ["k", {"table": [["j", [None, True]]]}]]},
])
def test_decode_reverses_encode(tutorial_rules, encoded):
    value = decode(tutorial_rules, encoded)
    assert encode(value) == encoded
    assert decode(tutorial_rules, encode(value)) == value


def test_a_table_key_that_was_a_tuple_comes_back_as_a_tuple(tutorial_rules):
    value = decode(tutorial_rules, {"table": [[[1, 2], "x"]]})
    assert value == {(1, 2): "x"} and list(value)[0].__class__ is tuple
