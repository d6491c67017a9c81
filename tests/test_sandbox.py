"""A hostile rule file cannot reach Python, run code, build huge values or run for ever: each attempt is a
located error, quickly, with nothing executed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rulesdsl
from rulesdsl.errors import GameRuntimeError, RulesError
from rulesdsl import budget, limits
from rulesdsl.lang import checked
from rulesdsl.lang.parser import SyntaxProblem, parse
from rulesdsl.lang.verify import UnsafeCode, namespace_builtins, verify

GAME = """
game: Probe
players: {count: 2}
board: {cells: [a, b, c]}
pieces:
  stone:
    attributes: {colour: [red, blue], count: {values: [0, 1, 2], default: 0}}
LET
vars: {total: 0, xs: {init: "[1]"}}
moves:
  put:
    params: {c: "[x for x in cells if empty(x)]"}
    do: ["place(piece('stone', colour='red'), c)"EXTRA]
flow:
  steps:
    play:
      moves: [put]
      pass: pass
end:
  - when: "turn >= 4"
    winners: "[]"
"""

PLAIN = GAME.replace("EXTRA", "")


def game_text(let: str = "", extra: str = "") -> str:
    """The probe game with a `let: probe:` expression and more effects (YAML flow items) after its move."""
    text = GAME.replace("LET", f"let:\n  probe: {json.dumps(let)}" if let else "")
    return text.replace("EXTRA", f", {extra}" if extra else "")


@pytest.fixture
def write(write):
    """conftest's write(), naming the file probe.yaml unless told otherwise."""
    return lambda text, name="probe.yaml": write(text, name)


def load_problems(path: str) -> list:
    with pytest.raises(RulesError) as info:
        rulesdsl.load_game(path)
    assert all(p.location is not None and p.location.line > 0 for p in info.value.problems), info.value.format()
    return info.value.problems


def play(path: str, decisions: int = 20):
    """Play seeded random decisions; returns the final state."""
    game = rulesdsl.load_game(path)
    state = game.new_initial_state(1)
    for _ in range(decisions):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply(state.sample_chance())
        else:
            state.apply(state.legal_moves()[0])
    return state


# -- no Python object is reachable ------------------------------------------------------------------
def test_dunder_attributes_cannot_be_declared_or_read(write):
    text = PLAIN.replace("count: {values: [0, 1, 2], default: 0}", "__globals__: [1], __repr__: [2]")
    problems = load_problems(write(text.replace("LET", "")))
    assert {p.message for p in problems} >= {"'__globals__' cannot be a name", "'__repr__' cannot be a name"}
    problems = load_problems(write(game_text(let="piece('stone', colour='red').__class__")))
    assert any("names cannot begin with '_'" in p.message for p in problems)


@pytest.mark.parametrize("expression", ["x.__class__", "__import__('os')", "f(_x)", "a[_b]", "[_y for _y in xs]"])
def test_names_beginning_with_underscore_do_not_parse(expression):
    with pytest.raises(SyntaxProblem, match="names cannot begin with '_'"):
        parse(expression)


def test_a_declared_name_that_python_also_has_reads_the_field_only(write):
    # 'count' is a piece attribute here, and also a method of every list: on a list it must reach nothing
    field = PLAIN.replace("LET", "functions:\n  g:\n    value: \"piece('stone', colour='red', count=1).count\"")
    state = play(write(field.replace('winners: "[]"', 'winners: "[g()]"')), 100)  # (winners are seats: 0 or 1)
    assert state.winners == [1]
    method = PLAIN.replace("LET", "functions:\n  g:\n    value: \"[1, 2].count\"")
    with pytest.raises(RulesError, match=r"a list of numbers has no attributes \('\.count'\)"):  # known at load
        play(write(method.replace('winners: "[]"', 'winners: "[g()]"')), 100)
    # (a list or a piece, as far as load can tell)
    unknown = PLAIN.replace("LET", "functions:\n  g:\n    value: \"get({'k': [1, 2], 'j': piece('stone', colour='red', "
                            "count=2)}, 'k').count\"")
    with pytest.raises(GameRuntimeError, match="has no attribute 'count'"):  # known only in play
        play(write(unknown.replace('winners: "[]"', 'winners: "[g()]"')), 100)


def test_function_parameters_cannot_inject_code(write, tmp_path):
    marker = tmp_path / "ran"
    text = PLAIN.replace("LET", f"functions:\n  f:\n    params: [\"x=open({str(marker)!r}, 'w')\"]\n    value: '1'")
    problems = load_problems(write(text))
    assert any("cannot be a name" in p.message for p in problems)
    assert not marker.exists()


@pytest.mark.parametrize("section", [
    "data:\n  _secret: 1", "vars:\n  _v: 0", "options:\n  _o: {default: 1}",
    "procedures:\n  p:\n    params: ['a b']\n    do: []",
])
def test_declared_names_must_be_plain(write, section):
    problems = load_problems(write(PLAIN.replace("LET", section).replace("vars: {total: 0, xs: {init: \"[1]\"}}\n", "")
                                   if section.startswith("vars") else PLAIN.replace("LET", section)))
    assert any("cannot be a name" in p.message or "reserved" in p.message for p in problems)


def test_cell_name_templates_are_not_python_format_strings(write):
    text = PLAIN.replace("board: {cells: [a, b, c]}", "board: {grid: {columns: 2, rows: 2, name: '{col.__class__}'}}")
    problems = load_problems(write(text.replace("LET", "")))
    assert any("cannot name cells" in p.message for p in problems)


@pytest.mark.parametrize("source", [
    "import os\n", "def gen_1(S, me):\n    return __import__('os')\n",
    "def gen_1(S, me):\n    return eval('1')\n", "def gen_1(S, me):\n    return L_x.__globals__\n",
    "def gen_1(S, me, L_x=print('x')):\n    pass\n", "class K: pass\n",
])
def test_generated_code_is_verified(source):
    with pytest.raises(UnsafeCode):
        verify(source)


def test_generated_code_sees_no_dangerous_python_builtins():
    names = namespace_builtins()
    assert not {"eval", "exec", "open", "__import__", "compile", "getattr", "globals", "vars"} & set(names)


# -- bounded values ------------------------------------------------------------------------------------
@pytest.mark.parametrize("expression, words", [
    ("2 ** 10 ** 10", "too large"),
    ("repeat(1, 10 ** 10)", "at most"),
    ("sum(x for x in 0..10 ** 9)", "at most"),
    ("size('x' * 10 ** 12)", "at most"),
    ("size([0] * 10 ** 9)", "at most"),
    ("'%999999999d' % 1", "cannot take the remainder of the text"),
    ("size(str(repeat(list(0..999), 10000)))", "longer than"),
    ("size(join(repeat('x' * 1000, 2000)))", "at most"),
    ("product(repeat(10 ** 2000, 10))", "too large"),
])
def test_huge_values_are_refused_at_load_time(write, expression, words):
    start = time.process_time()
    problems = load_problems(write(game_text(let=expression)))
    assert time.process_time() - start < 30  # a guard against a hang, not a speed measurement
    assert any(words in p.message for p in problems), [p.message for p in problems]


def test_doubling_a_list_in_a_loop_stops_at_the_limit(write):
    text = game_text(extra='{for: "i in 0..40", do: ["xs = xs + xs"]}')
    with pytest.raises(GameRuntimeError, match="at most"):
        play(write(text))


def test_augmented_assignment_is_bounded(write):
    text = game_text(extra='"xs *= 10 ** 7"')
    with pytest.raises(GameRuntimeError, match="at most"):
        play(write(text))


# -- what a game keeps from move to move is bounded, not only what a move builds ------------------------------
GROWING = """
game: Growing
players: {count: 2}
board: {cells: [a]}
zones: {pile: {init: "[]"}}
vars: {xs: {init: "[]"}, tbl: {init: "{}"}, n: 0}
moves:
  grow:
    notation: grow
    do: [EFFECTS]
flow:
  steps:
    play: {moves: [grow], next: end_turn}
end:
  - when: "turn >= 10000"
    winners: "[]"
"""


def played_until_it_fails(path: str) -> GameRuntimeError:
    """The error that stops a game of `grow` moves (which must fail, and soon)."""
    state = rulesdsl.load_game(path).new_initial_state(1)
    start = time.monotonic()
    with pytest.raises(GameRuntimeError) as info:
        while True:
            state.apply("grow")
    assert time.monotonic() - start < 60  # a guard against a hang, not a speed measurement
    return info.value


@pytest.mark.parametrize("effects", [
    '"xs = xs + [repeat(0, 100000)]"',  # a variable that gains 10^5 items a turn, within every limit on one value
    '"xs += [repeat(0, 100000)]"',
    '"t = tbl", "t[turn] = repeat(0, 100000)"',  # a table of the position, grown through a local name for it
    '"xs = [xs, xs, repeat(0, 1000)]"',  # the same list held twice, nested deeper each turn
])
def test_a_move_that_keeps_growing_what_the_game_holds_is_stopped_naming_rule_and_turn(write, effects):
    error = played_until_it_fails(write(GROWING.replace("EFFECTS", effects)))
    assert error.rule == "grow" and 5 <= error.turn <= 25 and error.location.line == 9, error.format()
    assert f"the zones and variables would hold more than {limits.MAX_STATE_ITEMS:,} items in all" in str(error)


def test_a_zone_that_keeps_growing_is_stopped(write, monkeypatch):
    monkeypatch.setattr(limits, "MAX_STATE_ITEMS", 5_000)
    monkeypatch.setattr("rulesdsl.engine.state.MAX_STATE_ITEMS", 5_000)  # (as the engine reads it after a move)
    text = GROWING.replace("EFFECTS", '{for: "i in 1..100", do: ["place(piece(\'stone\'), pile)"]}')
    error = played_until_it_fails(write(text.replace("board: {cells: [a]}", "board: {cells: [a]}\npieces: {stone: {}}")))
    assert error.rule == "grow" and error.turn == 50 and "(zone 'pile' holds 5,100 or more)" in str(error)


def test_a_game_that_holds_much_but_no_more_plays_on(write):
    text = GROWING.replace("EFFECTS", '"xs = repeat(turn, 1000000)", "tbl[turn % 3] = repeat(0, 300000)"')
    state = rulesdsl.load_game(write(text.replace("turn >= 10000", "turn >= 30"))).new_initial_state(1)
    while not state.is_terminal():
        state.apply("grow")
    assert state.turn == 30 and state.held >= 1_900_006


def test_a_huge_starting_value_is_refused_at_its_declaration(write):
    text = GROWING.replace("EFFECTS", '"n = 1"').replace('xs: {init: "[]"}', 'xs: {init: "[repeat(0, 999999), repeat(1, 999999), [2, 3]]"}')
    with pytest.raises(GameRuntimeError) as info:
        rulesdsl.load_game(write(text)).new_initial_state(1)
    assert info.value.rule == "variable 'xs'" and info.value.location.line == 6


WRITES = [  # effects that change what the position holds, every way rule code can (statements split at '; ')
    "xs = xs + [turn]", "xs += [[turn, 'ab']]", "xs = [xs]", "xs *= 2", "xs = []", "xs = repeat('abc', turn)",
    "t = tbl; t[turn] = [xs]", "tbl[1] = {'k': (1, 2)}", "tbl = {}", "per[me] = xs", "per[me] += [1]",
    "per[0] = none", "n = xs", "n = 1; n += 1", "local = per; local[1] = [turn]", "keyed['a'] = 'x' * turn",
    "place(piece('stone'), pile)", "move(pile, heap)", "move_all(heap, pile)", "remove_all(pile)", "r = move_rec",
    "n = word", "tbl[turn] = word", "per[me] = word if turn > 1 else 3",  # a param's text, counted with no call
]


@pytest.mark.parametrize("effect", WRITES)
def test_each_way_of_writing_is_counted(write, effect):
    check_counted(write, [effect])


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(effects=st.lists(st.sampled_from(WRITES), min_size=1, max_size=6))
def test_what_the_position_holds_is_never_more_than_counted(write, effects):
    check_counted(write, effects)


def check_counted(write, effects: list) -> None:
    """Play a game whose move runs `effects`: after every move, Position.held is at least what the zones and
    variables hold."""
    from rulesdsl.lang.held import items

    text = GROWING.replace("EFFECTS", ", ".join(json.dumps(s) for e in effects for s in e.split("; "))).replace(
        'zones: {pile: {init: "[]"}}', 'pieces: {stone: {}}\nzones: {pile: {init: "[]"}, heap: {init: "[]"}}').replace(
        "n: 0}", "n: 0, per: {per: player, init: 0}, keyed: {keys: \"['a']\", init: \"''\"}, r: {init: none}}").replace(
        "do: [", 'params: {word: "[\'abcd\']"}\n    let: {move_rec: "last_move"}\n    do: [').replace(
        "turn >= 10000", "turn >= 12")
    try:
        game = rulesdsl.load_game(write(text))
    except RulesError as exc:  # effects that can never run (a number plus a list), refused at load: nothing kept
        assert {p.code for p in exc.problems} == {"type_error"}
        return
    state = game.new_initial_state(1)
    while not state.is_terminal():
        try:
            state.apply("grow")
        except GameRuntimeError:  # a move the position does not allow (moving from an empty zone...)
            break
        assert state.held >= sum(items(value) for value in state.zones + state.vars)


@pytest.mark.parametrize("name", sorted(rulesdsl.loading.bundled_games()))
def test_the_bundled_games_never_hold_more_than_counted(name):
    from rulesdsl.lang.held import items

    state = rulesdsl.load_game(name).new_initial_state(3)
    rng = rulesdsl.Rng(3)
    while not state.is_terminal():
        legal = [] if state.is_chance_node() else state.legal_moves()
        state.apply(state.sample_chance(rng) if not legal else legal[rng.below(len(legal))])
        assert state.held >= sum(items(value) for value in state.zones + state.vars)


def test_a_piece_attribute_cannot_hold_a_list(write):
    text = PLAIN.replace("LET", "").replace("count: {values: [0, 1, 2], default: 0}", "count: {default: 0}")
    with pytest.raises(GameRuntimeError, match="the value of 'count' cannot be a list or a table"):
        play(write(text.replace("colour='red')", "colour='red', count=(1, [2]))")))


ALIASED = """
game: Alias
players: {count: 2}
board:
  grid: {columns: ab, rows: 1}
  attributes: {spots: "[c.x, {'k': c.x}]"}
pieces:
  stone:
    attributes: {owner: [0, 1]}
    derived: {tags: "[owner, {'k': owner}]"}
let:
  tbl: "{'a': [1, 2]}"
  nested: "[{'a': 1}]"
  tup: "(1, [2, 3], {'k': 1})"
data:
  raw: {a: [1, 2]}
functions:
  give: {value: "tbl"}
vars:
  v: {init: "none"}
moves:
  go:
    params: {pair: "[[x, 1] for x in 1..2]"}
    do: [TAKE, "chance('roll', v)"]
flow:
  steps:
    play: {moves: [go], next: end_turn}
    roll:
      inputs: [given]
      chance:
        outcomes: {params: {k: "[1]"}, do: [CHANGE]}
end:
  - when: "turn >= 2"
    winners: "[]"
"""


@pytest.mark.parametrize("take, change", [
    ("v = tbl", "v['a'] = 9"), ("v = list(nested)", "v[0]['a'] = 9"), ("v = give()", "v['a'] = 9"),
    ("v = raw['a']", "v[0] = 9"), ("v = tup", "v[1][0] = 9"), ("v = tup", "v[2]['k'] = 9"),
    ("v = cell('a1').spots", "v[0] = 9"), ("v = cell('a1').spots[1]", "v['k'] = 9"),
    ("v = piece('stone', owner=0).tags", "v[0] = 9"),
    ("v = pair", "v[0] = 9"),  # a move's param, held in the history of every copy of the position
    ("v = [0]", "given[0] = 9"),  # an input of a draw, waiting in the position
    ("v = pair", "last_move.pair[0] = 9"),
])
def test_constants_and_shared_values_cannot_be_changed_through_any_alias(write, take, change):
    text = ALIASED.replace("TAKE", json.dumps(take)).replace("CHANGE", json.dumps(change))
    game = rulesdsl.load_game(write(text))
    state = game.new_initial_state(1)
    with pytest.raises(GameRuntimeError, match="is a constant of the rule file and cannot be changed"):
        while not state.is_terminal():
            state.apply(state.sample_chance() if state.is_chance_node() else state.legal_moves()[0])
    assert game.rules.board.by_name["a1"].spots == [1, {"k": 1}]
    assert game.rules.kinds["stone"].make({"owner": 0}).tags == [0, {"k": 0}]


def test_zip_of_many_long_lists_is_refused_before_it_is_built(write):
    text = GROWING.replace('xs: {init: "[]"}', 'xs: {init: "repeat(0, 1000000)"}')
    text = text.replace("EFFECTS", json.dumps(f"n = size(zip({', '.join(['xs'] * 2000)}))"))
    start = time.monotonic()
    error = played_until_it_fails(write(text))
    assert time.monotonic() - start < 30  # refused before a tuple is built
    assert "zip()'s tuples together would hold 2,000,000,000 items" in str(error) and error.location.line == 10  # the statement
    assert rulesdsl.load_game(write(GROWING.replace("EFFECTS", '"xs = zip(0..9, 10..19)"'))).rules is not None


def test_a_walk_round_a_cyclic_link_is_bounded(write):
    ring = "board:\n  cells: [a, b, c]\n  links: {round: {next: \"cells[(c.index + 1) % 3]\"}}"
    text = game_text(extra='"xs = walk(\'round\', c, total + 10 ** 9)"').replace("board: {cells: [a, b, c]}", ring)
    start = time.process_time()
    with pytest.raises(GameRuntimeError, match="the cells of walk\\(\\) would hold 1,000,000,000 items"):
        play(write(text))
    assert time.process_time() - start < 30  # refused before a step is taken, not stopped by the time budget


def test_a_zone_or_variable_kept_per_key_has_at_most_max_keys_places(write):
    text = PLAIN.replace("LET", "").replace("vars: {total: 0,", "vars: {total: 0, big: {keys: \"0..20000\", init: 0},")
    problems = load_problems(write(text))
    assert [p.message for p in problems] == [
        f"20,001 keys are more than the {limits.MAX_KEYS:,} places a zone or variable may have"]


def test_long_sums_compile_and_add_up(write):
    for terms in (400, 3000):
        path = write(game_text(let="+".join(["1"] * terms)))
        assert rulesdsl.load_game(path).rules is not None
        text = PLAIN.replace("LET", f"functions:\n  f:\n    params: [x]\n    value: '{'+'.join(['x'] * terms)}'")
        text = text.replace("winners: \"[]\"", f"winners: \"[] if f(1) == {terms} else [0]\"")
        state = play(write(text), 100)
        assert state.is_terminal() and state.winners == []


def test_a_let_is_parsed_once_as_its_file_loads(write, monkeypatch):
    # the lets are put in order by what each reads, from its tree, and its compile takes that very tree: a long let
    # costs one parse of its budget, not two
    import rulesdsl.model.compile as model_compile
    text, parsed, real = "+".join(["1"] * 400), [], model_compile.parse
    monkeypatch.setattr(model_compile, "parse", lambda source, *args: parsed.append(source) or real(source, *args))
    assert rulesdsl.load_game(write(game_text(let=text))).rules is not None
    assert parsed.count(text) == 1
    # a let that calls the file's functions waits for them, and is read once more for what it calls: not parsed
    late = f"double(1) + {text}"
    function = "functions:\n  double:\n    params: [x]\n    value: \"2 * x\"\n"
    with_function = game_text(let=late).replace("let:", function + "let:")
    parsed.clear()
    assert rulesdsl.load_game(write(with_function)).rules is not None
    assert parsed.count(late) == 1


@pytest.mark.parametrize("expression, value", [
    ("2 * (" + "+".join(["1"] * 3000) + ")", 6000),
    ("size([" + "+".join(["1"] * 3000) + "])", 1),
    ("1 if " + " or ".join(["false"] * 2000) + " or true else 0", 1),
    ("-(" + "-".join(["1"] * 3000) + ")", 2998),
])
def test_long_runs_inside_other_expressions_compile(write, expression, value):
    game = rulesdsl.load_game(write(game_text(let=expression)))
    assert game.rules is not None
    text = PLAIN.replace("LET", f"functions:\n  f:\n    value: {json.dumps(expression)}")
    state = play(write(text.replace('winners: "[]"', f'winners: "[0] if f() == {value} else [1]"')), 100)
    assert state.winners == [0]


@pytest.mark.parametrize("expression, words", [
    ("[" * 1000 + "]" * 1000, "nested more than"),
    ("(" * 3000 + "1" + ")" * 3000, "nested more than"),
    ("not " * 3000 + "true", "nested too deeply"),
    ("- " * 3000 + "1", "nested too deeply"),
    ("1 + " * 10000 + "1", "characters long"),
])
def test_deep_or_long_expressions_are_located_errors(write, expression, words):
    problems = load_problems(write(game_text(let=expression)))
    assert any(words in p.message for p in problems), [p.message for p in problems]


def test_limits_checks_directly():
    assert checked.pow_(2, 10) == 1024 and checked.mul([1], 3) == [1, 1, 1] and checked.add("a", "b") == "ab"
    assert checked.chain((1, 2, 3, 4), ("+", "-", "*")) == 0
    for call in (lambda: checked.pow_(3, 10 ** 6), lambda: checked.mul("ab", 10 ** 6),
                 lambda: checked.inclusive_range(0, 10 ** 7), lambda: checked.mul(1 << 5000, 1 << 5000)):
        with pytest.raises(limits.LimitExceeded):
            call()


def test_a_huge_grid_is_refused(write):
    text = PLAIN.replace("board: {cells: [a, b, c]}", "board: {grid: {columns: 100000, rows: 100000}}")
    start = time.process_time()
    problems = load_problems(write(text.replace("LET", "")))
    assert time.process_time() - start < 30  # a guard against a hang, not a speed measurement
    assert any("cells" in p.message for p in problems)


# -- bounded time ---------------------------------------------------------------------------------------
def test_a_slow_load_time_value_is_interrupted(write):
    start = time.process_time()
    problems = load_problems(write(game_text(let="sum(x * y for x in 0..999999 for y in 0..999999)")))
    assert time.process_time() - start < 30  # a guard against a hang
    assert any("took longer than" in p.message for p in problems)


def test_a_move_listing_that_never_ends_is_interrupted(write):
    text = PLAIN.replace("params: {c: \"[x for x in cells if empty(x)]\"}",
                        "params: {c: \"[x for x in cells for y in 0..999999 for z in 0..999999 if y < 0]\"}")
    start = time.process_time()
    with pytest.raises(GameRuntimeError, match="took longer than") as info:
        play(write(text.replace("LET", "")))
    assert time.process_time() - start < 30  # a guard against a hang
    assert info.value.location is not None and info.value.location.line > 0


def test_an_automatic_loop_is_found_at_load_time(write):
    text = PLAIN.replace("LET", "").replace("      pass: pass\n", "      pass: pass\n      next: tick\n    tick:\n"
                                                "      do: ['total += 1']\n      next: tock\n    tock:\n      next: tick\n")
    problems = load_problems(write(text))
    assert any("tick -> tock -> tick go round for ever" in p.message for p in problems)


def test_an_automatic_step_leaving_by_a_condition_is_fine(write):
    text = PLAIN.replace("LET", "").replace("      pass: pass\n", "      pass: pass\n      next: tick\n    tick:\n"
                                                "      do: ['total += 1']\n      next: [{if: 'total % 3 == 0', to: "
                                                "end_turn}, {to: tick}]\n")
    assert play(write(text), 10).vars[0] >= 3


@pytest.mark.parametrize("count, replace, words", [
    ("10 ** 12", "true", "from 0 to 10,000"),          # a sampler asked for a trillion dice
    ("5000", "true", "more than the 20,000"),          # a table of every roll of 5,000 dice
    ("size(cells) + 1", "false", "cannot draw 4 items from 3"),
])
def test_huge_draws_are_refused_at_their_step(write, count, replace, words):
    text = PLAIN.replace("LET", "").replace("      pass: pass\n", "      pass: pass\n      next: roll\n    roll:\n"
                                                "      chance:\n        draw: '" + count + "'\n"
                                                "        from: 'cells'\n        replace: " + replace + "\n"
                                                "      next: end_turn\n")
    state = rulesdsl.load_game(write(text)).new_initial_state(1)
    state.apply(state.legal_moves()[0])
    start = time.process_time()
    with pytest.raises(GameRuntimeError, match=words) as info:
        state.chance_outcomes() if "20,000" in words else state.sample_chance()
    assert time.process_time() - start < 5
    assert info.value.location is not None and info.value.location.line > 0


def test_draws_asked_for_without_end_are_refused(write):
    text = PLAIN.replace("LET", "").replace("      pass: pass\n", "      pass: pass\n    roll:\n      chance:\n"
                                                "        draw: '1'\n        from: 'cells'\n").replace(
        "\"place(piece('stone', colour='red'), c)\"", "\"place(piece('stone', colour='red'), c)\", "
        "{for: 'i in 0..999999', do: [\"chance('roll')\"]}")
    with pytest.raises(GameRuntimeError, match="more than 10,000 draws asked for at once"):
        play(write(text))


def test_the_bundled_games_still_validate():
    for name in rulesdsl.loading.bundled_games():
        assert rulesdsl.load_game(name).rules is not None


# -- built-ins hand out only values of the language ------------------------------------------------
def _rule_value(value, depth: int = 0) -> bool:
    """Whether `value` is a value of the language: never a function, module or other Python object."""
    from rulesdsl.lang.reach import RuleValue

    if value is None or type(value) in (bool, int, float, str) or isinstance(value, RuleValue):
        return True
    if isinstance(value, (list, tuple, range)) and depth < 8:
        return all(_rule_value(v, depth + 1) for v in value)
    if isinstance(value, dict) and depth < 8:
        return all(_rule_value(k, depth + 1) and _rule_value(v, depth + 1) for k, v in value.items())
    return False


@pytest.mark.parametrize("name", ["mabula", "mark", "fast-track", "marble-chase"])
def test_built_ins_return_only_values_of_the_language(name):
    game = rulesdsl.load_game(name)
    namespace = game.rules.namespace
    returned = []

    def watched(fn):
        def call(*args, **kwargs):
            value = fn(*args, **kwargs)
            returned.append((fn, value))
            return value
        return call

    for key in [k for k in namespace if k.startswith("F_")]:
        namespace[key] = watched(namespace[key])
    for seed in range(3):
        state = game.new_initial_state(seed)
        for _ in range(300):
            if state.is_terminal():
                break
            state.apply(state.sample_chance() if state.is_chance_node() else state.legal_moves()[0])
    assert returned, "no built-in was called"
    bad = [(getattr(fn, "__name__", fn), type(v).__name__) for fn, v in returned if not _rule_value(v)]
    assert not bad, bad[:5]


def test_a_value_that_fills_memory_is_interrupted(write):
    # in a process of its own: the watchdog measures how much the process grows, which memory that earlier tests
    # freed (and the allocator keeps) would hide
    path = write(game_text(let="size([repeat(x, 1000) for x in 0..999999])"))
    script = ("import sys, rulesdsl\nfrom rulesdsl import limits\nlimits.MEMORY_BYTES = 100 << 20\n"
              "try:\n    rulesdsl.load_game(sys.argv[1])\nexcept rulesdsl.RulesError as exc:\n"
              "    print('\\n'.join(p.message for p in exc.problems))\n")
    # time budgets scaled far up: on a loaded machine the load's 20 s must not end it before its memory does
    env = {**os.environ, budget.TIME_SCALE_VARIABLE: "30"}
    done = subprocess.run([sys.executable, "-c", script, path], capture_output=True, text=True, timeout=600, env=env)
    assert "MiB of memory allowed" in done.stdout, (done.stdout, done.stderr)
