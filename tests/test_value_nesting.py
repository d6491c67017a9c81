"""Values rule code builds nest at most MAX_VALUE_DEPTH deep (lists, tuples, tables and records inside each
other), so that hashing, comparing, printing and saving them never recurse without bound (hashing a tuple
recurses in C, where a million levels overflow the stack: a crash, not an error). The deepest value allowed works
everywhere; one level more is a located error naming the rule and turn, wherever it is built. Numbers stay within
MAX_INT_BITS however they are multiplied."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

import rulesdsl
from rulesdsl.engine.serialize import parse_json
from rulesdsl.errors import GameRuntimeError, RulesError
from rulesdsl.lang import checked
from rulesdsl.limits import MAX_INT_BITS, MAX_VALUE_DEPTH
from rulesdsl.model.values import text_of

from .helpers import ROOT

GAME = """\
game: Deep
players: {count: 2}
board: {cells: [a, b]}
pieces:
  stone: {attributes: {tag: {default: 0}}}
vars: {deep: {init: none}, same: {init: false}, hashed: {init: none}, text: {init: "''"}}
moves:
  build:
    params: {c: "[x for x in cells if empty(x) and deep == none]"}
    notation: "build {c}"
    do:
      - "t = START"
      - "u = START"
      - for: "i in 1..WRAPS"
        do: ["t = WRAP", "u = WRAP_U"]
      - "deep = t"
      - "same = t == u"
      - "hashed = HASH"
      - "text = str(t)"
      - "place(piece('stone'), c)"
  keep:
    let: {v: "deep"}
    when: ["deep != none"]
    notation: "keep {v}"
    do: ["deep = v"]
flow:
  steps:
    play: {moves: [build, keep], pass: pass}
end:
  - when: "turn >= 4"
    winners: "[]"
"""

# each way of wrapping a value once more: (first value, the wrapping, that value and wrapping in Python, and how
# it is hashed: a tuple whole, as a table's key; a list or table has no hash, but distinct hashes its items)
WRAPS = {
    "tuple": ("1", "(t,)", 1, lambda t: (t,), "t in {(1,): 0}"),
    "list": ("[]", "[t]", [], lambda t: [t], "size(distinct(t)) == 1"),
    "table": ("{}", "{1: t}", {}, lambda t: {1: t}, "size(distinct(t)) == 1"),
}


def wraps(kind: str, depth: int) -> int:
    """How many times a value of kind `kind` is wrapped to nest `depth` deep (a list or table starts 1 deep)."""
    return depth - (kind != "tuple")


def deep_game(write, kind: str, depth: int) -> str:
    """The game whose move `build` wraps a value until it nests `depth` deep, then hashes, compares and prints it
    and keeps it in a variable (the move `keep` then prints it in its notation, as its let)."""
    start, wrap, _, _, hashed = WRAPS[kind]
    text = GAME.replace("START", start).replace("WRAPS", str(wraps(kind, depth)))
    text = text.replace("WRAP_U", wrap.replace("t", "u")).replace("WRAP", wrap)
    text = text.replace("HASH", hashed)
    return write(text, f"deep_{kind}_{depth}")


def built(path: str):
    state = rulesdsl.load_game(path).new_initial_state()
    state.apply("build a")
    return state


@pytest.mark.parametrize("kind", sorted(WRAPS))
def test_the_deepest_value_allowed_hashes_compares_prints_and_saves(write, kind):
    _, _, value, wrap, _ = WRAPS[kind]
    for _ in range(wraps(kind, MAX_VALUE_DEPTH)):
        value = wrap(value)
    state = built(deep_game(write, kind, MAX_VALUE_DEPTH))
    assert state.vars == [value, True, kind != "tuple", str(value)]  # compared, hashed, printed
    move = state.legal_moves()[0]
    assert str(move) == ("keep " + text_of(value)).rstrip()  # printed in notation (an empty list prints nothing)
    saved = json.dumps(state.to_json())
    again = state.game.state_from_json(parse_json(saved, "state.json"), "state.json", saved)
    assert json.dumps(again.to_json()) == saved
    (kept,) = again.legal_moves()  # the value read back is listed and printed as before
    assert str(kept) == str(move)
    again.apply(kept)


@pytest.mark.parametrize("kind", sorted(WRAPS))
def test_one_level_more_is_a_located_error_naming_the_rule_and_turn(write, kind):
    path = deep_game(write, kind, MAX_VALUE_DEPTH + 1)
    with pytest.raises(GameRuntimeError) as info:
        built(path)
    error = info.value
    assert (error.rule, error.turn) == ("build", 0)
    assert f"nest more than {MAX_VALUE_DEPTH} deep" in error.message
    assert error.location.file == path
    assert WRAPS[kind][1] in open(path, encoding="utf-8").read().splitlines()[error.location.line - 1]


# -- every way of building a value is checked ----------------------------------------------------------------
ONE_MORE = """\
game: One more
players: {count: 2}
board: {cells: [a, b]}
pieces:
  stone: {attributes: {tag: {default: 0}}}
vars: {out: {init: none}}
moves:
  go:
    params: {c: "cells"}
    do: ["t = 1", {for: "i in 1..DEPTH", do: ["t = (t,)"]}, "ts = [t]", STATEMENTS]
flow:
  steps:
    play: {moves: [go], pass: pass}
end:
  - when: "turn >= 2"
    winners: "[]"
""".replace("DEPTH", str(MAX_VALUE_DEPTH - 1))  # t nests MAX - 1 deep, ts MAX: the most allowed


def one_more(write, *statements: str, name: str = "one_more") -> str:
    """The game whose move builds ts, as deep as allowed, then runs `statements`."""
    return write(ONE_MORE.replace("STATEMENTS", ", ".join(json.dumps(s) for s in statements)), name)


def refused_at_last(path: str, words: str) -> GameRuntimeError:
    """The error of the move, located at the last statement it runs (on line 10, the move's effects)."""
    with pytest.raises(GameRuntimeError, match=words) as info:
        rulesdsl.load_game(path).new_initial_state().apply("go a")
    line = open(path, encoding="utf-8").read().splitlines()[9]
    assert info.value.location.line == 10
    assert info.value.location.col - 1 == line.rindex('"', 0, line.rindex('"'))  # the last statement
    return info.value


@pytest.mark.parametrize("statements", [
    ["out = (ts,)"], ["out = [ts]"], ["out = {1: ts}"], ["out = {(t,): 1}"], ["out = [ts for i in 0..0]"],
    ["out = list(ts for i in 0..0)"], ["out = sorted(ts for i in 0..0)"], ["out = distinct(ts for i in 0..0)"],
    ["out = enumerate(ts)"], ["out = zip(ts)"], ["out = repeat(ts, 3)"],
    ["out = counts_by([with_attr(piece('stone'), tag=(t,))], 'tag')"],
    ["xs = [0]", "xs[0] = ts"], ["xs = {}", "xs['k'] = ts"], ["xs = [[]]", "xs[0] += [ts]"],
])
def test_each_way_of_nesting_a_value_one_level_more_is_refused(write, statements):
    error = refused_at_last(one_more(write, *statements), f"nest more than {MAX_VALUE_DEPTH} deep")
    assert (error.rule, error.turn) == ("go", 0)


@pytest.mark.parametrize("statements", [
    ["out = (t,)"], ["out = [t]"], ["out = enumerate(t)"], ["xs = [0]", "xs[0] = t", "out = xs"],
    ["out = sorted(t for i in 0..0)"], ["out = [i for i in ts]"], ["out = [[i] for i in t]"],
    ["out = counts_by([with_attr(piece('stone'), tag=t)], 'tag')"],
])
def test_the_same_ways_within_the_limit_are_fine(write, statements):
    state = rulesdsl.load_game(one_more(write, *statements, name="within")).new_initial_state()
    state.apply("go a")
    assert checked.depth(state.vars[0]) == MAX_VALUE_DEPTH


@pytest.mark.parametrize("statements", [["xs = [0]", "xs[0] = xs"], ["xs = {}", "ys = [xs]", "xs[1] = ys"]])
def test_a_list_or_table_cannot_hold_itself(write, statements):
    refused_at_last(one_more(write, *statements, name="itself"), "holds the list or table it is being stored in")


def test_data_nested_too_deep_is_refused_where_it_is_written(write):
    deep = "[" * (MAX_VALUE_DEPTH + 1) + "]" * (MAX_VALUE_DEPTH + 1)
    text = ONE_MORE.replace("STATEMENTS", '"out = 1"')
    path = write(text.replace("vars:", f"data: {{fine: {deep[1:-1]}, deep: {deep}}}\nvars:"), "data")
    with pytest.raises(RulesError) as info:
        rulesdsl.load_game(path)
    (problem,) = info.value.problems
    assert (problem.location.line, problem.get("limit")) == (6, "MAX_VALUE_DEPTH")
    assert f"'deep' nests more than {MAX_VALUE_DEPTH} deep" in problem.message


def test_a_million_levels_hashed_end_in_a_located_error_not_a_crash(write):
    # before the limit, hashing this tuple (distinct) overflowed the C stack: a segmentation fault
    path = write(ONE_MORE.replace('"ts = [t]", STATEMENTS', '{for: "i in 1..1000000", do: ["t = (t,)"]}, '
                                  '"out = size(distinct([t, t]))"'), "million")
    run = subprocess.run([sys.executable, "-m", "rulesdsl", "simulate", path, "--agents", "random,random"],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert run.returncode == 1, run.stderr
    assert run.stderr.startswith(f"{path}:10:") and f"nest more than {MAX_VALUE_DEPTH} deep" in run.stderr


# -- numbers ---------------------------------------------------------------------------------------------------
def numbers(write, statement: str, start: int = 1, name: str = "numbers") -> str:
    """The game whose move runs `statement` 100,000 times over x (from `start`), then keeps x."""
    return write(ONE_MORE.replace('"t = 1"', f'"x = {start}"').replace(f"1..{MAX_VALUE_DEPTH - 1}", "1..100000")
                 .replace('"t = (t,)"', json.dumps(statement)).replace('"ts = [t]", STATEMENTS', '"out = x"'), name)


@pytest.mark.parametrize("statement", ["x = (x - 0) * 65521", "x = x * 3", "x *= 2", "x = 2 * x"])
def test_a_number_multiplied_in_a_loop_stops_at_the_limit(write, statement):
    path = numbers(write, statement)
    with pytest.raises(GameRuntimeError, match=f"at most {MAX_INT_BITS} bits") as info:
        rulesdsl.load_game(path).new_initial_state().apply("go a")
    assert (info.value.rule, info.value.location.line) == ("go", 10)


@pytest.mark.parametrize("statement, value", [("x = x * 0.5", 0.0), ("x = x * -1", 3), ("x = x * 1", 3),
                                              ("x = x * 2 // 2", 3)])
def test_a_number_kept_small_in_a_loop_is_fine(write, statement, value):
    state = rulesdsl.load_game(numbers(write, statement, start=3, name="small")).new_initial_state()
    state.apply("go a")
    assert state.vars[0] == value


# -- a list deepened from inside, where its item check cannot see what holds it ------------------------------
@pytest.mark.parametrize("statements", [
    ["xs = [[0]]", "ys = xs[0]", "ys[0] = t", "out = xs"],  # through a second name for the inner list
    ["out = [[0]]", "ys = out[0]", "ys[0] = t"],  # the inner list of a variable, through a local
    ["out = [[0]]", "out[0][0] = t"],  # down two indexes
    ["xs = [[0]]", "out = xs", "ys = xs[0]", {"for": "i in 1..2000", "do": ["ys[0] = [0]", "ys = ys[0]"]}],
])
def test_a_value_deepened_from_inside_is_a_located_error_after_the_move(write, statements):
    path = write(ONE_MORE.replace("STATEMENTS", ", ".join(json.dumps(s) for s in statements)), "inside")
    state = rulesdsl.load_game(path).new_initial_state()
    with pytest.raises(GameRuntimeError, match=f"variable 'out' holds a value nested more than {MAX_VALUE_DEPTH}") \
            as info:
        state.apply("go a")
    assert (info.value.rule, info.value.turn, info.value.location.file) == ("go", 0, path)


@pytest.mark.parametrize("statements", [
    ["xs = [[0]]", "ys = xs[0]", "ys[0] = t[0]", "out = xs"], ["out = [[0]]", "out[0][0] = t[0]"],
    ["xs = [[0]]", "out = xs", "ys = xs[0]", {"for": "i in 1..20", "do": ["ys[0] = [0]", "ys = ys[0]"]}],
])
def test_a_value_deepened_from_inside_within_the_limit_is_saved_and_read_back(write, statements):
    path = write(ONE_MORE.replace("STATEMENTS", ", ".join(json.dumps(s) for s in statements)), "inside_within")
    state = rulesdsl.load_game(path).new_initial_state()
    state.apply("go a")
    assert checked.depth(state.vars[0]) <= MAX_VALUE_DEPTH
    saved = json.dumps(state.to_json())
    again = state.game.state_from_json(parse_json(saved, "state.json"), "state.json", saved)
    assert json.dumps(again.to_json()) == saved
