"""The compiled backend against the Python engine, move for move: the same legal moves in the same order, the same
states (to_json), the same returns, the same whole random playouts and perft counts; hostile rule files get
located errors; a playout stops at its step limit. Skipped where numba is not installed (CI installs it)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

pytest.importorskip("numba")

from rulesdsl import GameRuntimeError, RulesError, load_game  # noqa: E402
from rulesdsl.backends.compiled.build import with_backend  # noqa: E402
from rulesdsl.backends.compiled.state import CompiledGame  # noqa: E402
from rulesdsl.engine.perft import perft  # noqa: E402
from rulesdsl.engine.play import play, streams, uniform  # noqa: E402
from rulesdsl.engine.rng import Rng  # noqa: E402
from rulesdsl.loading import bundled_games  # noqa: E402
from .equivalence import EVERY_SETTING, cases, lockstep, next_move  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = "examples/tutorial/three-in-a-row.yaml"
DICE = "tests/compiled_games/dice-race.yaml"  # chance outcomes during play, goto(), variables, a capacity
TURN_ENDS = "tests/compiled_games/turn-ends.yaml"  # steps whose next: ends the turn when no case holds
TURNS = "tests/compiled_games/turn-order.yaml"  # next_player, turn_start, a turn cap, sorted(), first(), min/max
SOWING = "examples/games/sowing.yaml"  # a variable per cell, walk() along links, last()
LANES = "tests/compiled_games/lanes.yaml"  # walk() along links keyed by seat that switch; variables per key
TALLIES = "tests/compiled_games/tallies.yaml"  # lists of tables, list items, a number or none, remove(), player =
SECRET = "tests/compiled_games/secret-draw.yaml"  # outcomes weighted by the state, seen by some players only
SIXES = "examples/tutorial/sixes.yaml"  # a draw of several dice that chance() asks for
CALLED = "tests/compiled_games/called-draws.yaml"  # draws asked at once, from a draw, then goto(); without replacement
FALLBACKS = "tests/compiled_games/fallbacks.yaml"  # tiers of moves (per value with fallback_by), after-effects
RESHUFFLE = "tests/compiled_games/reshuffle.yaml"  # an arrangement drawn at the start of every turn
CHIPS = "tests/compiled_games/chip-duel.yaml"  # scoring: returns (chips won; a cooperative variant's team score)
HAND_ORDER = "tests/compiled_games/hand-order.yaml"  # hands seen by their owner, lists of seats, a feature family
FOREHEADS = "tests/compiled_games/foreheads.yaml"  # visible: expressions of the seat looking (viewer != owner...)
MARKET = "tests/compiled_games/market-row.yaml"  # a grid sized by an option, lets building pieces, observe: slots
TAKE = "tests/compiled_games/take-away.yaml"  # no_moves: loses (passes in a variant), an end reading `mover`
DEAL = "tests/end_rules/deal.yaml"  # a deal by chance steps that the end, reading the hands, does not cut short
PYTHON_ONLY = "tests/compiled_games/python-only.yaml"  # text built during play: outside the compiled subset
BIDS = "tests/compiled_games/blind-bids.yaml"  # simultaneous steps, choices, first(), next_seat(), distinct()
STALLS = "tests/compiled_games/market-stalls.yaml"  # a table variable, zones and cells, player = seat, abs()
SUPPORTED = [(TUTORIAL, None), (TUTORIAL, "misere"), ("mabula", None), (DICE, None), (TURN_ENDS, None), (TURNS, None),
             (SOWING, None), (LANES, None), (TALLIES, None), (SECRET, None), (SIXES, None), (CALLED, None),
             (FALLBACKS, None), (RESHUFFLE, None), (CHIPS, None), (CHIPS, "team"), (HAND_ORDER, None),
             (TAKE, None), (TAKE, "passing"), (DEAL, None),
             (BIDS, None), (STALLS, None), ("examples/games/sealed-bids.yaml", None),
             # MARK: simultaneous bids, zones, a table variable, actor expressions (a minute or two to compile)
             ("mark", None), ("mark", "four-row-ending"), ("examples/overlays/mark-rich-start.yaml", None)]
RUNS = "tests/compiled_games/runs.yaml"  # take_while() over a range and over a list comprehension
SUPPORTED += [(RUNS, None), (FOREHEADS, None)]
THROWS = "tests/compiled_games/throws.yaml"  # outcomes that are a cell or a text, weights that are fractions of data
# Marble Chase: a shot's outcome is a slot or a word, weighted by fractions of the seat's shot table; the most
# players, the team game, and a match with a seat of another skill
SUPPORTED += [(THROWS, None), ("marble-chase", None)]
# Configurations that compile a module of their own (a minute or more each on two cores): played with
# `RULESDSL_LOCKSTEP=all python -m pytest tests/test_compiled.py tests/test_equivalence.py`, not in every run (where
# each bundled game is played as it is and in each variant)
MORE = [("mark players=3", None), ("mark players=4", None), ("marble-chase players=4", None),
        ("marble-chase match=true", None), ("marble-chase players=4 teams=true", None), ("fast-track board=hex", None),
        ("fast-track players=4 teams=pairs", None), ("fast-track board=hex players=6 teams=triples", None),
        ("fast-track colours_per_player=2", None)]
SPLIT = "tests/compiled_games/split-steps.yaml"  # a compound move (parts of a move with inputs), procedures
SUPPORTED += [(SPLIT, None)]
RANKED = "tests/compiled_games/ranked-tokens.yaml"  # a table fixed at load, attributes some kinds lack, lists as tests
SUPPORTED += [(RANKED, None)]
PENS = "tests/compiled_games/pens.yaml"  # a zone per key, place() into a zone, move_all(), with_attr(), set_attr()
SUPPORTED += [(PENS, None)]
# Fast Track: compound moves (a 7 split in two), routes along links keyed by colour and lane that run out, pairs as
# params, zones per colour, procedures, draws seen by one seat; each board, each team setting, two colours a player
SUPPORTED += [("fast-track", None)]
SUPPORTED += MORE if EVERY_SETTING else []
MABULA_SETUP = "WBWBWBWBWBWBBWBWBWBWBWBW"  # an explicit setup: no chance step


def _path(name: str) -> str:
    return bundled_games().get(name, name)


@lru_cache(maxsize=None)
def _games(name: str, variant: str | None, setup: str | None = None) -> tuple:
    """(the Python game, the same game compiled): loaded once per session, so each module compiles once. `name`
    may be followed by options, `NAME OPTION=VALUE...` (a whole number, true, false or a text)."""
    name, options = _split(name)
    if setup:
        options["setup"] = setup
    python = load_game(_path(name), variant, options or None)
    return python, with_backend(python, "compiled")


SUPPORTED += [("mabula", "product")]  # product() of the sizes of groups as the score
SUPPORTED += [(CHIPS, "share")]  # scores, a tiebreak and returns that are fractions
SUPPORTED += [("tests/compiled_games/refill.yaml", None)]  # a draw of pieces that refills its pile; move_all()
POSITIONS = "tests/compiled_games/positions.yaml"  # move() and remove() of the piece at a position (at=)
SUPPORTED += [(POSITIONS, None)]
# moves of repeated parts: chained captures (repeat: with chain:, stop: stuck); dice used in turn (using:, stop:
# longest, prefer:) beside short runs of steps (min:, stop: any, inputs from the parts before)
SUPPORTED += [("tests/parts_games/jumps.yaml", None), ("tests/compiled_games/dice-runners.yaml", None)]
# ... and the same position left by dice played in either order is one move (one_per_position), per-seat lists
# (dice-runners' own one-per-position variant: tests/test_equivalence.py plays every variant there)
SUPPORTED += [("tests/parts_games/race.yaml", None)]
if EVERY_SETTING:  # (a module of its own, as MORE's)
    SUPPORTED += [("tests/parts_games/jumps.yaml", "one-per-position")]
CORNERS = "tests/compiled_games/corners.yaml"  # cell(x, y), a let holding a piece, a per-seat variable assigned whole
SUPPORTED += [(CORNERS, None)]


def _option(value: str):
    if value in ("true", "false"):
        return value == "true"
    return int(value) if value.lstrip("-").isdigit() else value


def _split(name: str) -> tuple[str, dict]:
    """`NAME OPTION=VALUE...` as (NAME, {option: value}), a value a whole number, true, false or a text."""
    name, *given = name.split(" ")
    return name, {key: _option(value) for key, value in (item.split("=") for item in given)}


def _case(name: str, variant: str | None) -> tuple:
    """The configuration as tests/equivalence.py names its cases: (file, variant, options as sorted pairs)."""
    name, options = _split(name)
    return name, variant, tuple(sorted(options.items()))


# tests/equivalence.py plays every rule file, variant and option setting there is in lockstep (and reads more at
# each position than the test below): the configurations here that it does not play are played move for move
_PLAYED_THERE = set(cases())
ONLY_HERE = [(name, variant) for name, variant in SUPPORTED if _case(name, variant) not in _PLAYED_THERE]


@pytest.mark.parametrize("name, variant", ONLY_HERE)
def test_both_backends_play_the_same_games_move_for_move(name, variant):
    python, compiled = _games(name, variant)
    assert isinstance(compiled, CompiledGame)
    for seed in range(6):
        a, b = python.new_initial_state(seed), compiled.new_initial_state(seed)
        chance_a, chance_b, pick = Rng(seed), Rng(seed), Rng(1000 + seed)
        assert a.to_json() == b.to_json()
        while not a.terminal:
            assert not b.terminal and a.current_player() == b.current_player()
            if a.is_chance_node():
                move = a.sample_chance(chance_a)
                assert b.sample_chance(chance_b) == move
            else:
                legal = a.legal_moves()
                assert b.legal_moves() == legal
                move = legal[pick.below(len(legal))]
            a.apply(move)
            b.apply(move)
            assert b.to_json() == a.to_json()
        assert b.terminal and b.returns() == a.returns()


@pytest.mark.parametrize("name, variant", SUPPORTED)
def test_whole_playouts_in_compiled_code_are_the_python_play_loops(name, variant):
    python, compiled = _games(name, variant)
    for seed in range(20):
        a, b = python.new_initial_state(seed), compiled.new_initial_state(seed)
        seats = python.num_players
        (chance_a, seats_a), (chance_b, seats_b) = streams(seed, seats), streams(seed, seats)
        play(a, uniform, chance_a, seats_a)
        made = b.playout(chance_b, seats_b)
        assert made == a.ply and b.to_json() == a.to_json() and b.returns() == a.returns()
        assert [s.getstate() for s in [chance_b, *seats_b]] == [s.getstate() for s in [chance_a, *seats_a]]


@pytest.mark.parametrize("name, variant", SUPPORTED)
def test_playouts_in_one_call_are_the_python_play_loops_one_after_another(name, variant):
    python, compiled = _games(name, variant)
    (chance_a, seats_a), (chance_b, seats_b) = streams(7, python.num_players), streams(7, python.num_players)
    plies, returns = [], []
    for seed in range(30):
        state = python.new_initial_state(seed)
        play(state, uniform, chance_a, seats_a)
        plies.append(state.ply)
        returns.append(state.returns())
    got_plies, got_returns = compiled.playouts(range(30), chance_b, seats_b)
    assert got_plies.tolist() == plies and got_returns.tolist() == returns
    assert [s.getstate() for s in [chance_b, *seats_b]] == [s.getstate() for s in [chance_a, *seats_a]]


def test_a_playout_stops_at_its_step_limit_where_the_python_loop_does():
    python, compiled = _games(TUTORIAL, None)
    a, b = python.new_initial_state(3), compiled.new_initial_state(3)
    (chance_a, seats_a), (chance_b, seats_b) = streams(3, 2), streams(3, 2)
    play(a, uniform, chance_a, seats_a, limit=3)
    assert b.playout(chance_b, seats_b, limit=3) == 3
    assert not b.terminal and b.ply == 3 and b.to_json() == a.to_json()


def test_each_function_is_compiled_once_whatever_constants_its_callers_pass():
    # numba compiles a function again for each constant value a compiled caller passes it (a flag, an error's code),
    # and all it calls with it: a game's flow was compiled up to five times, its playout twice (runtime.compiled)
    from numba.core.registry import CPUDispatcher
    from rulesdsl.backends.compiled import runtime
    from rulesdsl.backends.compiled.build import program_of
    python = load_game(str(ROOT / DICE))
    program = program_of(python)
    namespace = {"__name__": "fresh"}  # compiled here, not read from a cache: one overload per signature compiled
    exec(compile(program.source, "<fresh>", "exec"), namespace)  # noqa: S102 - the backend's own printed module
    compiled = CompiledGame(python, program, namespace)
    _playout(compiled, 2)
    state = compiled.new_initial_state(1)
    state.apply(state.legal_moves()[0] if not state.is_chance_node() else state.sample_chance(Rng(1)))
    compiled.playouts([0, 1], Rng(1), [Rng(2), Rng(3)])
    found = {name: [str(sig) for sig in f.overloads] for name, f in compiled.fn.items()
             if isinstance(f, CPUDispatcher) and f.overloads}
    assert {"playout", "go", "logged"} <= set(found)
    # (one playout too for one state and for a batch: compiled once, and all it calls with it)
    assert {name: sigs for name, sigs in found.items() if len(sigs) > 1} == {}
    shared = [str(sig) for f in vars(runtime).values() if isinstance(f, CPUDispatcher) for sig in f.overloads]
    assert shared and not [sig for sig in shared if "Literal" in sig or "Omitted" in sig]


@pytest.mark.parametrize("name, variant, setup, depth", [(TUTORIAL, None, None, 4), ("mabula", None, MABULA_SETUP, 3),
                                                          (SOWING, None, None, 4), (BIDS, None, None, 4),
                                                          (SPLIT, None, None, 4)])
def test_perft_counts_are_the_same(name, variant, setup, depth):
    python, compiled = _games(name, variant, setup)
    assert perft(compiled.new_initial_state(), depth) == perft(python.new_initial_state(), depth)


def test_states_convert_between_backends_losslessly():
    python, compiled = _games("mabula", None)
    state = python.new_initial_state(5)
    chance, seats = streams(5, 2)
    play(state, uniform, chance, seats, limit=12)
    there = compiled.compiled_state(state)
    assert there.to_json() == state.to_json()
    assert there.python().to_json() == state.to_json()
    assert there.clone().legal_moves() == state.legal_moves()


def test_choices_waiting_at_a_simultaneous_step_convert_between_backends_and_resolve_alike():
    python, compiled = _games(BIDS, None)
    for seed, made in ((1, 1), (2, 2), (3, 4), (4, 6)):  # stopped with choices pending, or between steps
        state = python.new_initial_state(seed)
        play(state, uniform, *streams(seed, 3), limit=made)
        there = compiled.compiled_state(state)
        assert there.to_json() == state.to_json() and there.python().to_json() == state.to_json()
        assert there.current_player() == state.current_player() and there.acting_players() == state.acting_players()
        for p in range(3):  # a seat that has chosen, or does not choose here, has no move
            assert there.legal_moves(p) == state.legal_moves(p)
        waiting = state.acting_players()
        for p in reversed(waiting):  # the last seat first: the choices' order is kept in the history
            move = state.legal_moves(p)[-1]
            state.apply(move)
            there.apply(move)
            assert there.to_json() == state.to_json()
        assert there.python().to_json() == state.to_json()


def test_auto_falls_back_to_python_saying_where_and_why(tmp_path):
    game = load_game(PYTHON_ONLY, backend="auto")
    assert not isinstance(game, CompiledGame)
    assert re.search(r"python-only\.yaml:\d+:\d+: \S", game.backend_note)  # located, and why
    with pytest.raises(RulesError) as caught:
        load_game(PYTHON_ONLY, backend="compiled")
    assert "python-only.yaml:" in str(caught.value) and "compiled backend does not take" in str(caught.value)


HOSTILE = """
game: Hostile
players: {count: 2}
board:
  grid: {columns: abc, rows: 3}
  regions:
    corners: [a1, c3]
pieces:
  mark: {attributes: {owner: [0, 1]}}
moves:
  mark:
    params:
      c: {in: cells}
    when:
      - test: "corners[size(occupied()) + 2] != c"
    do:
      - "place(piece('mark', owner=me), c)"
flow:
  steps:
    play: {moves: [mark], next: end_turn}
end:
  - when: "size(occupied()) == size(cells)"
    winners: "[]"
"""


DEEP_SEARCH = """\
game: Deep search
players: {count: 2}
vars:
  n: {init: 0}
moves:
  tick:
    params: {k: "0..1"}
    when: ["n < 40"]
    notation: "{k}"
    do: ["n += 1"]
  run:
    repeat:
      move: tick
      max: 64
      min: 64
      stop: stuck
    notation: "{parts}"
  rest:
    notation: "rest"
    do: ["n = 0"]
flow:
  steps:
    play: {moves: [run, rest], next: end_turn}
end:
  - when: "turn >= 4"
"""


def test_a_search_for_repeated_parts_that_never_ends_is_stopped_located_in_compiled_code(write):
    """2^40 sequences of parts stop short of min: 64 and none is a move: compiled code, which no watchdog can
    interrupt, stops the search after MAX_TRIED parts with an error located at the rule listing the moves."""
    path = write(DEEP_SEARCH)
    state = with_backend(load_game(path), "compiled").new_initial_state()
    with pytest.raises(GameRuntimeError) as caught:
        state.legal_moves()
    assert f"{path}:" in str(caught.value) and "the search for the parts of a move tried more than" in str(caught.value)


def test_an_index_out_of_range_in_a_rule_is_a_located_error_never_a_crash(write):
    path = write(HOSTILE)
    python = load_game(path)
    compiled = with_backend(python, "compiled")
    state = compiled.new_initial_state()
    with pytest.raises(GameRuntimeError) as caught:
        state.legal_moves()
    assert f"{path}:" in str(caught.value) and "out of range" in str(caught.value)
    with pytest.raises(GameRuntimeError):  # the Python engine refuses it too
        python.new_initial_state().legal_moves()
    chance, seats = streams(0, 2)
    with pytest.raises(GameRuntimeError):
        state.playout(chance, seats)


def test_a_cached_module_is_read_back_and_one_whose_source_differs_is_written_again(tmp_path, monkeypatch):
    from rulesdsl.backends.compiled import cache
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    first = cache.load("X = 1\n")
    assert first["X"] == 1 and first["__file__"].startswith(str(tmp_path / "cache"))
    path = first["__file__"]
    with open(path, "w") as out:  # someone changed the file: it is not trusted
        out.write("X = 2\n")
    again = cache.load("X = 1\n")
    assert again["X"] == 1 and open(path).read() == "X = 1\n"
    assert cache.load("X = 3\n")["__file__"] != path  # another source, another file


ROLLOUT = """
import rulesdsl
from rulesdsl.engine.rng import Rng
game = rulesdsl.load_game({path!r}, backend="compiled")
game.new_initial_state(1).rollout(Rng(3))
kernel = game.kernels()["rollout"]
print(sum(kernel.stats.cache_misses.values()), sum(kernel.stats.cache_hits.values()))
"""


def test_the_kernels_a_game_calls_are_compiled_once_and_read_back_from_the_cache_by_later_processes(tmp_path):
    env = {**os.environ, "RULESDSL_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    script = ROLLOUT.format(path=str(ROOT / TUTORIAL))
    counts = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=600,
                             check=True).stdout.split() for _ in range(2)]
    assert counts == [["1", "0"], ["0", "1"]]  # (misses, hits): compiled by the first, read back by the second


def test_a_module_one_process_is_compiling_is_waited_for_by_another(tmp_path, monkeypatch):
    import fcntl
    import os
    from rulesdsl.backends.compiled import cache
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    with cache.compiling("X = 1\n"):
        lock = os.open(next((tmp_path / "cache").glob("m_*.lock")), os.O_RDWR)
        with pytest.raises(BlockingIOError):  # another process asking now would wait
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with cache.compiling("X = 2\n"):  # (another module is not held up)
            pass
    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released when it is done
    # a holder that never lets go (stopped mid-compile) is waited for a while, then compiled beside
    with cache.compiling("X = 1\n", wait=0.3):
        pass
    os.close(lock)


def test_a_cache_folder_others_may_write_is_not_used(tmp_path, monkeypatch):
    from rulesdsl.backends.compiled import cache
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("RULESDSL_CACHE", str(shared))
    assert cache.folder() is None and cache.load("X = 1\n") is None
    monkeypatch.setenv("RULESDSL_CACHE", "off")
    assert cache.folder() is None


def _failure(run) -> str:
    with pytest.raises(GameRuntimeError) as caught:
        run()
    return str(caught.value)


def test_a_list_passing_its_capacity_is_the_same_located_error_on_both_backends():
    python, compiled = _games("tests/compiled_games/capacity-overflow.yaml", None)

    def three_moves(game):
        state = game.new_initial_state(0)
        for _ in range(3):
            state.apply(state.legal_moves()[-1])

    expected = _failure(lambda: three_moves(python))
    assert re.search(r"capacity-overflow\.yaml:\d+:\d+: .*'take'.*'taken' holds 3 items, more than its capacity 2",
                     expected)
    assert _failure(lambda: three_moves(compiled)) == expected
    assert _failure(lambda: _playout(compiled)) == _failure(lambda: _playout(python)) == expected  # compiled


def _playout(game, seed: int = 0) -> None:
    """A seed's random playout: whole in compiled code on the compiled backend, by the play loop on the other."""
    state = game.new_initial_state(seed)
    chance, seats = streams(seed, game.num_players)
    if isinstance(game, CompiledGame):
        state.playout(chance, seats)
    else:
        play(state, uniform, chance, seats)


def test_reading_the_choice_of_a_seat_that_did_not_choose_is_the_same_located_error_on_both_backends():
    python, compiled = _games("tests/compiled_games/unchosen-choice.yaml", None)

    def both_choose(game):
        state = game.new_initial_state(0)
        for _ in range(2):
            state.apply(state.legal_moves()[0])

    expected = _failure(lambda: both_choose(python))
    assert re.search(r"unchosen-choice\.yaml:\d+:\d+: .*'choose'.*'NoneType' object has no attribute 'n'", expected)
    assert _failure(lambda: both_choose(compiled)) == expected
    assert _failure(lambda: _playout(compiled)) == _failure(lambda: _playout(python)) == expected


def test_chance_outcomes_drawn_in_compiled_code_are_those_the_python_engine_draws():
    python, compiled = _games(DICE, None)
    drawn = {}
    for seed in range(10):
        state = compiled.new_initial_state(seed)
        state.playout(*streams(seed, 2))
        for move in state.history:
            if move.player < 0:
                drawn[str(move)] = drawn.get(str(move), 0) + 1
    faces = {text.split()[1] for text in drawn}
    assert faces == {"1", "2", "3", "4", "5", "6"} and any(text.endswith("star") for text in drawn)
    assert drawn.get("roll 6 red", 0) > drawn.get("roll 6 star", 0)  # weights 2 and 1 (the lockstep tests compare)


def test_a_next_player_that_is_no_seat_is_the_same_located_error_on_both_backends(tmp_path):
    text = (ROOT / TURNS).read_text().replace('next_player: "player if again', 'next_player: "player + 2 if again')
    path = tmp_path / "turn-order.yaml"
    path.write_text(text)
    python = load_game(str(path))
    compiled = with_backend(python, "compiled")

    expected = _failure(lambda: _playout(python, 1))
    assert re.search(r"turn-order\.yaml:\d+:\d+: .*the player whose turn it is became [2-9], which is no seat",
                     expected)
    assert _failure(lambda: _playout(compiled, 1)) == expected


@pytest.mark.parametrize("old, new, error", [
    ('"tally[steps] += 1"', '"tally[steps + 1] += 1"', r"LookupError: tally\[4\]: 4 is not one of the keys of 'tally'"),
    ("else 'even'] += 1", "else 'evn'] += 1", r"LookupError: parity\[evn\]: evn is not one of the keys"),
    ("parity['odd'] % 4", "parity['od'] % 4", r"KeyError: 'od'"),
])
def test_a_key_a_variable_does_not_have_is_the_same_located_error_on_both_backends(tmp_path, old, new, error):
    _fails_alike(tmp_path, LANES, old, new, 2, error)


def _fails_alike(tmp_path, rules: str, old: str, new: str, seed: int, error: str) -> None:
    """The rule file `rules` with `old` written `new` fails in a random playout of `seed` with the same located
    error on both backends, the error matching `error`."""
    text = (ROOT / rules).read_text()
    assert old in text
    path = tmp_path / Path(rules).name
    path.write_text(text.replace(old, new))
    python = load_game(str(path))
    compiled = with_backend(python, "compiled")

    expected = _failure(lambda: _playout(python, seed))
    assert re.search(re.escape(path.name) + r":\d+:\d+: .*" + error, expected)
    assert _failure(lambda: _playout(compiled, seed)) == expected


def test_a_seat_with_no_legal_move_and_no_pass_is_the_same_error_on_both_backends(tmp_path):
    # named by its name, with the same hint (compiled code raises the seat's number: the message names it)
    _fails_alike(tmp_path, MARKET, "pass: pass, ", "", 8,
                 r"rule 'play' failed on turn 9: p1 has no legal move and the step declares no 'pass'\n"
                 r"  hint: add 'pass: pass' to the step, or a move that is always legal")


@pytest.mark.parametrize("old, new, error", [
    ('"die = n", "rolls += 1"', '"die = none", "rolls += 1"',
     r"rule 'play' .*TypeError: unsupported operand type\(s\) for \+: 'NoneType' and 'int'"),
    ('"cubes[-1 - (1 - me)] -= 1"', '"cubes[me + 2] -= 1"', r"rule 'mark' .*IndexError: list index out of range"),
])
def test_none_read_as_a_number_or_a_list_index_out_of_range_is_the_same_error_on_both_backends(tmp_path, old, new,
                                                                                                error):
    _fails_alike(tmp_path, TALLIES, old, new, 0, error)


@pytest.mark.parametrize("old, new, seed, error", [
    ("high: {hit: 0.6, drift: [0.3, 0.1], miss: 0.05}", "high: {hit: 0.6, drift: [0.3, 0.1]}", 0,
     r"rule 'throw' .*KeyError: 'miss'"),  # a key of data fixed at load that one of its tables lacks
    ("bonus[player] if empty(c)", "bonus[player + 1] if empty(c)", 0, r"rule 'throw' .*IndexError: list index out of"),
    ('- if: "o in cells"', '- if: "o != \'none\'"', 1, r"rule 'throw' .*place\(\): miss is not a cell or zone"),
])
def test_a_missing_key_of_data_or_a_text_placed_as_a_cell_is_the_same_error_on_both_backends(tmp_path, old, new, seed,
                                                                                              error):
    _fails_alike(tmp_path, THROWS, old, new, seed, error)


def test_outcomes_drawn_in_compiled_code_are_secret_to_the_same_players():
    python, compiled = _games(SECRET, None)
    sizes = set()
    for seed in range(6):
        a, b = python.new_initial_state(seed), compiled.new_initial_state(seed)
        play(a, uniform, *streams(seed, 2), limit=20 + seed)
        b.playout(*streams(seed, 2), limit=20 + seed)
        assert b.secret == a.secret and a.secret  # ply -> the drawer (both seats late in a turn), per token drawn
        sizes |= {len(seats) for seats in b.secret.values()}
        for seat in range(2):
            assert b.observation(seat) == a.observation(seat)
    assert sizes == {1, 2}


def test_draws_asked_for_by_chance_are_drawn_in_compiled_code_in_the_python_engines_order():
    python, compiled = _games(CALLED, None)
    nested = secret = 0
    for seed in range(12):
        state = compiled.new_initial_state(seed)
        state.playout(*streams(seed, 2))
        texts = state.history_texts()
        # a six asks for one more die, drawn before the coin that the roll asked for with the first dice
        nested += sum(1 for a, b, c in zip(texts, texts[1:], texts[2:])
                      if a.startswith("dice") and "6" in a.split() and b.startswith("dice") and len(b.split()) == 2
                      and (c.startswith("coin") or c.startswith("dice")))
        bags = [ply for ply, text in enumerate(texts) if text.startswith("bag")]
        assert sorted(state.secret) == bags and all(len(seen) == 1 for seen in state.secret.values())
        secret += len(bags)
    assert nested and secret


def test_the_draws_a_move_asked_for_are_made_before_the_end_is_asked_on_both_backends():
    python, compiled = _games("tests/compiled_games/draws-at-end.yaml", None)
    past = 0
    for seed in range(16):
        found = []
        for game in (python, compiled):
            state, chance, pick = game.new_initial_state(seed), Rng(seed), Rng(1000 + seed)
            found.append(_ended(lambda: _random_game(state, chance, pick), state))
            found.append(max(state.to_json()["vars"]["score"]))
            state = game.new_initial_state(seed)
            whole = state.playout if game is compiled else lambda *a: play(state, uniform, *a)
            found.append(_ended(lambda: whole(*streams(seed, 2)), state))
        assert found[0] == found[3] and found[1] == found[4] and found[2] == found[5], found
        assert not any(isinstance(f, str) for f in found), found  # no draw is left waiting, no error
        past += found[1] > 6  # a draw made after the push that reached 6 still scored
    assert past


def _ended(run, state):
    """The located error of `run()`, else the returns of the game it played."""
    try:
        run()
    except GameRuntimeError as exc:
        return str(exc)
    return state.returns()


def _random_game(state, chance, pick) -> None:
    """Random moves and sampled outcomes to the end (or the error)."""
    while not state.terminal:
        legal = None if state.is_chance_node() else state.legal_moves()
        state.apply(state.sample_chance(chance) if legal is None else legal[pick.below(len(legal))])


BAD_DRAW = """
game: Bad draw
players: {count: 2}
vars:
  rolled: {per: player, init: 0}
moves:
  roll:
    notation: roll
    do: ["chance('dice', 2 - rolled[me])", "rolled[me] += 2"]
flow:
  steps:
    turn: {moves: [roll], next: end_turn}
    dice:
      inputs: [n]
      chance:
        draw: "n"
        from: "1..6"
        replace: true
        notation: "dice {outcome}"
end:
  - when: "rolled[1] > 10"
"""


def test_a_draw_of_a_number_of_items_out_of_range_is_the_same_located_error_on_both_backends(write):
    python = load_game(write(BAD_DRAW))
    compiled = with_backend(python, "compiled")

    expected = _failure(lambda: _playout(python))
    assert "the number of items drawn should be a whole number from 0 to 10,000, not -2" in expected
    assert _failure(lambda: _playout(compiled)) == expected


def test_moves_fall_back_per_value_of_a_param_in_compiled_code_as_in_the_python_engine():
    python, compiled = _games(FALLBACKS, None)
    mixed = set()
    for seed in range(8):
        a, b, pick = python.new_initial_state(seed), compiled.new_initial_state(seed), Rng(seed)
        while not a.terminal:
            legal = b.legal_moves()
            assert legal == a.legal_moves()
            mixed.add(tuple(sorted({str(move).split()[0] for move in legal})))
            move = legal[pick.below(len(legal))]
            a.apply(move)
            b.apply(move)
        assert b.to_json() == a.to_json()
    # numbers that go forward, others only back, and numbers that can do neither only wait; then a jump or not
    assert {("back", "forward"), ("forward", "wait"), ("jump",), ("stay",)} <= mixed


def test_an_arrangement_drawn_every_turn_in_compiled_code_is_the_python_engines():
    python, compiled = _games(RESHUFFLE, None)
    state = compiled.new_initial_state(3)
    state.playout(*streams(3, 2))
    deals = [move for move in state.history if move.player < 0]
    assert len(deals) > 5 and all(sorted(move[1][0]) == [1, 2, 3, 4] and move[1][0][0] != 4 for move in deals)
    twin = python.new_initial_state(3)
    play(twin, uniform, *streams(3, 2))
    assert twin.history == state.history


def _outcome(state) -> str:
    """A ended game's returns, or the located error asking for them raises."""
    try:
        return repr(state.returns())
    except GameRuntimeError as exc:
        return str(exc)


def test_returns_that_fail_or_break_the_declared_utility_fail_alike_on_both_backends(tmp_path):
    text = (ROOT / CHIPS).read_text()
    # a pass burns a chip (no longer zero-sum), and returns read beyond the last face in some games
    edits = [('    do: ["end_turn()"]', '    do: ["chips[me] -= 1 if chips[me] > 1 and rolled == 1 else 0", '
                                      '"end_turn()"]'),
             ('returns: "chips[me] - 10"', 'returns: "chips[me] - 10 + 0 * faces[chips[me] // 3]"')]
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    path = tmp_path / "chip-duel.yaml"
    path.write_text(text)
    python = load_game(str(path), backend="python")
    compiled = with_backend(python, "compiled")
    found = set()
    for seed in range(40):
        a, b = python.new_initial_state(seed), compiled.new_initial_state(seed)
        (chance_a, seats_a), (chance_b, seats_b) = streams(seed, 2), streams(seed, 2)
        play(a, uniform, chance_a, seats_a)
        b.playout(chance_b, seats_b)
        expected, got = _outcome(a), _outcome(b)
        assert got == expected  # (an index out of range is worded as Python words it, on both)
        found.add("utility: zero_sum" in expected and 2 or "rule 'returns'" in expected and 1 or 0)
    assert found == {0, 1, 2}  # games that keep to it, break it, and fail


def test_a_whole_number_beyond_64_bits_is_a_located_error_on_the_compiled_backend(tmp_path):
    # the Python engine's numbers grow (to 8,192 bits); compiled code holds 64: beyond, an error, never a wrap
    text = (ROOT / CHIPS).read_text()
    wide = '"rolled = rolled * 4096 * 4096 * 4096 * 4096 * 4096 * 4096"'
    old = '    do: ["end_turn()"]'
    assert old in text
    text = text.replace(old, f'    do: [{wide}, "end_turn()"]')
    path = tmp_path / "chip-duel.yaml"
    path.write_text(text)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if "4096" in row)
    python = load_game(str(path), backend="python")
    compiled = with_backend(python, "compiled")
    state, other = python.new_initial_state(1), compiled.new_initial_state(1)
    while not state.terminal and "pass" not in [str(m) for m in ([] if state.is_chance_node() else
                                                                  state.legal_moves())]:
        move = state.sample_chance(Rng(1)) if state.is_chance_node() else state.legal_moves()[0]
        state.apply(move)
        other.apply(move)
    state.apply("pass")
    assert state.vars[[v.name for v in python.rules.vars].index("rolled")] > 2**63
    move = next(m for m in other.legal_moves() if str(m) == "pass")  # (a move: the compiled code applies it)
    with pytest.raises(GameRuntimeError, match=rf"chip-duel\.yaml:{line}:\d+: .*beyond 64 bits") as found:
        other.apply(move)
    assert "backend='python'" in found.value.hint


def test_returns_that_may_be_none_are_refused_by_the_compiled_backend_located(tmp_path):
    text = (ROOT / CHIPS).read_text().replace('returns: "chips[me] - 10"',
                                              'returns: "chips[me] - 10 if chips[me] > 3 else none"')
    path = tmp_path / "chip-duel.yaml"
    path.write_text(text)
    line = text.splitlines().index('  returns: "chips[me] - 10 if chips[me] > 3 else none"') + 1
    with pytest.raises(RulesError, match=rf"chip-duel\.yaml:{line}:\d+: .*returns that are not always whole numbers"):
        with_backend(load_game(str(path), backend="python"), "compiled")


@pytest.mark.parametrize("name", [HAND_ORDER, SIXES, FOREHEADS, MARKET])
def test_observation_vectors_are_the_same_on_both_backends(name):
    # lists observed per value and slot (hands, dice, zones with observe: slots), unseen places and feature
    # families, seat by seat
    from rulesdsl.engine.tensor import ObservationTensor
    from rulesdsl.integrations.common import engine_state
    python, compiled = _games(name, None)
    tensors = ObservationTensor(python), ObservationTensor(compiled)
    assert tensors[0].describe() == tensors[1].describe()
    for seed in range(4):
        a, b = python.new_initial_state(seed), compiled.new_initial_state(seed)
        chance_a, chance_b, pick = Rng(seed), Rng(seed), Rng(1000 + seed)
        while True:
            for seat in range(python.num_players):
                assert tensors[1].values(engine_state(b), seat) == tensors[0].values(a, seat)
            if a.terminal:
                break
            move = next_move(a, b, chance_a, chance_b, pick)
            a.apply(move)
            b.apply(move)


def test_a_simultaneous_step_whose_actors_are_none_is_the_same_located_error_on_both_backends(tmp_path):
    _fails_alike(tmp_path, "examples/games/sealed-bids.yaml", 'actors: "players"', 'actors: "[]"', 1,
                 "the players to choose at this simultaneous step are none")


@pytest.mark.parametrize("name", [SECRET, "examples/games/sealed-bids.yaml"])
def test_states_sampled_from_a_view_are_the_python_engines(name):
    # a compiled state's view samples the Python engine's states, handed back compiled: the same for the same rng
    from rulesdsl.agents import PlayerView

    python, compiled = _games(name, None)
    state = python.new_initial_state(3)
    chance, seats = streams(3, python.num_players)
    play(state, uniform, chance, seats, limit=14)
    there = compiled.compiled_state(state)
    me = max(state.acting_players() or [0])
    for seed in range(3):
        ours, theirs = (PlayerView(s, me).determinize(Rng(seed)) for s in (state, there))
        assert isinstance(theirs, type(there)) and theirs.to_json() == ours.to_json()
        seen, sampled = there.observation(me), theirs.observation(me)  # (others' pending choices are not made)
        assert all(sampled[part] == seen[part] for part in ("zones", "vars", "cells", "step", "turn"))


# Whole numbers that outgrow what compiled code holds: a product beyond 64 bits, a division of whole numbers beyond
# 2**53. The Python engine plays on (its numbers grow to 8,192 bits); the compiled backend stops at each, located
# (here, not among tests/compiled_games: the two backends part there by design).
BIG_NUMBERS = """
game: Big numbers
description: Each turn the player says one or two; the score is a third of the product of the turns so far.
players: {count: 2}
moves:
  say:
    params: {k: {in: "[1, 2]"}}
    when:
      - test: "product(k, turn + 1, 1) > product([k, turn])"
      - test: "product(n for n in 1..turn + 1 if n > 0) > 0"
    notation: "say {k}"
    do: ["end_turn()"]
flow:
  steps:
    play: {moves: [say]}
end:
  - when: "turn >= 30"
scoring:
  score: "product(n for n in 1..turn) / 3"
"""


def test_numbers_beyond_what_compiled_code_holds_are_located_errors_where_python_plays_on(tmp_path):
    # a third of turn! as the score: exact (and equal, fractions alike) up to 2**53, then a located error; a check
    # taking the product of 1..turn + 1 fails, located, once it passes 64 bits
    path = tmp_path / "big-numbers.yaml"
    path.write_text(BIG_NUMBERS)
    python = load_game(str(path), backend="python")
    compiled = with_backend(python, "compiled")
    a, b = python.new_initial_state(0), compiled.new_initial_state(0)
    while a.turn < 19:
        assert b.scores() == a.scores() and all(isinstance(v, float) for v in b.scores())
        assert b.legal_moves() == a.legal_moves()
        move = a.legal_moves()[a.turn % 2]
        a.apply(move)
        b.apply(move)
    assert a.scores()[0] > 2 ** 53 / 3
    line = BIG_NUMBERS.splitlines().index('  score: "product(n for n in 1..turn) / 3"') + 1
    assert re.search(rf"big-numbers\.yaml:{line}:\d+: .*rule 'score'.*a division of whole numbers beyond 2\*\*53",
                     _failure(b.scores))
    while a.turn < 20:
        move = a.legal_moves()[0]
        a.apply(move)
        b.apply(move)
    assert len(a.legal_moves()) == 2  # 21! is no trouble for the Python engine
    assert "product(): a whole number beyond 64 bits" in _failure(b.legal_moves)


@pytest.mark.parametrize("old, new, error", [
    ('draw: "2"', 'draw: "6 if turn >= 3 else 2"',
     r"cannot draw 6 items from the \d in the pile and the \d of its refill"),
    ("refill: discard", "refill: deck", "a draw's refill is the very zone it draws from"),
])
def test_a_refill_too_short_or_of_the_pile_itself_is_the_same_error_on_both_backends(tmp_path, old, new, error):
    _fails_alike(tmp_path, "tests/compiled_games/refill.yaml", old, new, 0, error)


@pytest.mark.parametrize("old, new, error", [
    ("move(row, pile[me], at=i)", "move(row, pile[me], at=i + 5)",
     r"move\(\): the zone holds 5 pieces, and has no position [456] \(0 is its first"),
    ('move(pile[me], row, none, at=0)', 'move(pile[me], row, pile[me][0], at=0)',
     r"move\(\): name the piece or its position \(at=\), not both"),
])
def test_a_position_out_of_range_or_beside_a_piece_is_the_same_error_on_both_backends(tmp_path, old, new, error):
    _fails_alike(tmp_path, POSITIONS, old, new, 0, error)


def test_a_per_seat_variable_assigned_a_list_of_another_length_is_the_same_error_on_both_backends(tmp_path):
    _fails_alike(tmp_path, CORNERS, "marks = [0 for q in players]", "marks = [0 for q in 0..2]", 0,
                 r"rule 'wipe' .*'marks' holds one value per seat \(2\): assign a list of 2 values, not a list of 3")


# A variable with a place per key assigned whole, from a table written out: its keys in any order, a key given twice
# (the last value counts), cells and numbers; `odd` (0 in play) makes one of the tables lack a key.
PENS_WHOLE = """\
game: Pens whole
players: {count: 2}
board:
  cells: [a, b, c]
vars:
  pen: {keys: "['red', 'blue']", init: 0}
  spot: {keys: "[1, 2, 3]", init: "cells[0]"}
  odd: {init: 0}
moves:
  fill:
    params:
      n: {in: "1..3"}
    do:
      - "pen = {'blue': n + pen['red'], 'red': n} if n != 2 else {'red': n, 'blue': 1, 'red': 7}"
      - "spot = {3: cells[(n + turn) % 3], 1: cells[n - 1], 2: spot[3]} if odd == 0 else {1: spot[2], 2: spot[1]}"
flow:
  steps:
    play: {moves: [fill], next: end_turn}
end:
  - when: "turn >= 8"
    winners: "[x for x in players if pen['blue'] > 4]"
"""


def test_a_per_key_variable_assigned_a_table_whole_plays_alike_and_one_of_other_keys_fails_alike(write):
    python, compiled = _games(write(PENS_WHOLE, "pens-whole"), None)
    assert lockstep(python, compiled, range(6)) > 6 * 8  # every position of every game compared
    data = python.new_initial_state(0).to_json()
    data["vars"]["odd"] = 1
    failures = [_failure(lambda g=game: g.state_from_json(data).apply("fill 1")) for game in (python, compiled)]
    assert re.search(r"pens-whole\.yaml:\d+:\d+: error: rule 'fill' .*'spot' holds one value per key \(1, 2, 3\): "
                     "assign a table of exactly those keys", failures[0])
    assert failures[1] == failures[0]


@pytest.mark.parametrize("name", [DICE, STALLS, HAND_ORDER, TALLIES])
def test_positions_compiled_code_compares_are_the_python_engines_arrays(name):
    """one_per_position compares positions by their words once `_canon` clears what holds nothing (items past a
    list's length, members of a value of several types it does not hold): after every move of seeded games, those
    words are exactly the arrays engine/arrays.py writes for the Python engine's position."""
    import numpy as np
    from rulesdsl.backends.compiled.positions import Positions
    from rulesdsl.engine.arrays import to_arrays
    python, compiled = _games(name, None)
    positions = Positions(compiled.program)
    found = {"_jit": lambda fn: fn}
    exec(positions.canon(), found)  # noqa: S102 - printed from the layout (plain Python: numba not needed)
    at = np.array(positions.words(), np.int64)
    moves = 0
    for seed in range(6):
        a, b = python.new_initial_state(seed), compiled.new_initial_state(seed)
        chance_a, chance_b, pick = Rng(seed), Rng(seed), Rng(1000 + seed)
        while not a.terminal:
            move = next_move(a, b, chance_a, chance_b, pick)
            a.apply(move)
            b.apply(move)
            words = b.s.copy()
            found["_canon"](words)
            assert np.array_equal(words[at], compiled.packing.pack(to_arrays(a, python.layout))[at])
            moves += 1
    assert moves > 0
