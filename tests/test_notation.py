"""Reading moves typed in a game's notation (rulesdsl/engine/notation.py, through State.parse_move/apply).

What belongs here: which legal move a text names -- exact match first, then case folded, whitespace
normalised -- and, when none does, the MoveError: its kind (malformed, illegal, ambiguous), its reason (the
`why` of the failing rule, or a description of it) and its hint (the legal moves); chance outcomes and
simultaneous choices named in notation; arrangements named item by item. The small rule files below are
written for these tests. Notation of a particular game (e.g. Mabula's "b1-b4") belongs in tests/test_<game>.py.
"""

from __future__ import annotations

import time

import pytest

import rulesdsl
from rulesdsl import CHANCE, MoveError

from .helpers import ROOT

COINS = """\
game: Coins
players: {count: 2, names: [red, blue]}
board:
  cells: [a1, a2, b1, b2]
pieces:
  stone:
    attributes:
      owner: [0, 1]
vars:
  coins: {per: player, init: 3}
moves:
  drop:
    params:
      c:
        in: cells
        why: that is not a cell of the board
    when:
      - test: "empty(c)"
        why: the cell is taken
    notation: "Drop {c}"
    do: ["place(piece('stone', owner=me), c)"]
  pay:
    params:
      n:
        in: "1..coins[me]"
        why: you cannot pay more coins than you have
    notation: "pay {n} coins"
    do: ["coins[me] -= n"]
flow:
  steps:
    play:
      moves: [drop, pay]
      pass: pass
      next: end_turn
end:
  - when: "turn >= 20"
    winners: "[]"
"""

# moves that print alike, conditions without a 'why', a field that is not a parameter, and a lower tier
TIERS = """\
game: Tiers
players: {count: 2}
board:
  cells: [a1, a2, b1, b2]
data:
  labels: [x, X, y]
moves:
  tag:
    params:
      k: labels
    notation: "tag {k}"
  twin:
    params:
      n: "[1, 2]"
    when: ["n > 0"]               # (read by a condition: that its moves print alike is found when typed)
    notation: "twin"
  corner:
    params:
      c: cells
    when: ["c.name[0] == 'a'"]
    notation: "corner {c}"
  spot:
    params:
      c: cells
    when: ["c.name == 'a1'"]
    notation: "spot {c.name}"
  late:
    params:
      c: cells
    notation: "late {c}"
flow:
  steps:
    play:
      moves: [[tag, twin, corner, spot], [late]]
      next: end_turn
end:
  - when: "turn >= 2"
    winners: "[]"
"""

ARRANGE = """\
game: Arrange
players: {count: 2}
board:
  cells: [c0]
vars:
  order: {init: none}
flow:
  steps:
    setup:
      chance:
        arrangement: "ITEMS"
        require:
          - test: "outcome[0] != outcome[1]"
            why: the first two must differ
        do: ["order = outcome"]
      next: play
    play:
      moves: []
      pass: pass
      next: end_turn
end:
  - when: "turn >= 1"
    winners: "[]"
"""


@pytest.fixture(scope="module")
def load(tmp_path_factory):
    folder = tmp_path_factory.mktemp("notation")

    def load_text(text: str, name: str, **kwargs):
        path = folder / f"{name}.yaml"
        path.write_text(text, encoding="utf-8")
        return rulesdsl.load_game(str(path), **kwargs)
    return load_text


@pytest.fixture(scope="module")
def coins(load):
    return load(COINS, "coins")


@pytest.fixture(scope="module")
def tiers(load):
    return load(TIERS, "tiers")


def refused(state, text, player=None) -> MoveError:
    with pytest.raises(MoveError) as info:
        state.parse_move(text, player)
    return info.value


def legal(state, player=None) -> list[str]:
    return [str(m) for m in state.legal_moves(player)]


# -- which move a text names ------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["Drop a1", "drop a1", "DROP A1", "  Drop   a1 ", "Drop\ta1", "Drop\na1", "dRoP a1"])
def test_case_and_spacing_do_not_matter(coins, text):
    move = coins.new_initial_state().parse_move(text)
    assert str(move) == "Drop a1" and list(move.params()) == ["c"] and str(move.params()["c"]) == "a1"


def test_the_move_read_is_the_legal_move(coins):
    state = coins.new_initial_state()
    for move in state.legal_moves():
        assert state.parse_move(str(move)) == move
        assert state.parse_move(str(move).upper()) == move


def test_an_exact_match_wins_over_one_that_differs_in_case(tiers):
    state = tiers.new_initial_state()
    assert str(state.parse_move("tag x")) == "tag x"
    assert str(state.parse_move("tag X")) == "tag X"
    assert str(state.parse_move("TAG Y")) == "tag y"  # only one move folds to it


def test_a_text_that_folds_to_two_moves_is_ambiguous(tiers):
    error = refused(tiers.new_initial_state(), "TAG x")
    assert (error.kind, error.reason) == (MoveError.AMBIGUOUS, "several different moves are written this way")
    assert error.hint == "the rule file's notation should tell them apart"


def test_two_legal_moves_printed_alike_are_ambiguous(tiers):
    state = tiers.new_initial_state()
    assert legal(state).count("twin") == 2
    assert refused(state, "twin").kind == MoveError.AMBIGUOUS


def test_applying_a_text_applies_the_move_it_names(coins):
    state = coins.new_initial_state()
    state.apply("  PAY 2  coins ")
    assert state.to_json()["vars"]["coins"] == [1, 3]
    assert state.to_json()["history"] == ["pay 2 coins"]


# -- illegal moves and their reasons ------------------------------------------------------------------------

def test_a_failing_condition_gives_its_why(coins):
    state = coins.new_initial_state()
    state.apply("drop a1")
    state.apply("drop b1")
    for text in ["drop a1", "Drop A1"]:
        error = refused(state, text)
        assert (error.kind, error.reason, error.text) == (MoveError.ILLEGAL, "the cell is taken", text)
    assert str(state.parse_move("drop a2")) == "Drop a2"


@pytest.mark.parametrize("text, why", [
    ("pay 4 coins", "you cannot pay more coins than you have"),
    ("pay 0 coins", "you cannot pay more coins than you have"),
    ("pay two coins", "you cannot pay more coins than you have"),
    ("drop z9", "that is not a cell of the board"),
])
def test_a_value_outside_a_parameter_gives_the_parameter_why(coins, text, why):
    error = refused(coins.new_initial_state(), text)
    assert (error.kind, error.reason) == (MoveError.ILLEGAL, why)


def test_the_hint_lists_the_legal_moves(coins):
    state = coins.new_initial_state()
    error = refused(state, "pay 4 coins")
    assert error.hint == "legal now: " + ", ".join(legal(state))
    assert str(error) == f"illegal move 'pay 4 coins': you cannot pay more coins than you have (hint: {error.hint})"


def test_a_long_list_of_legal_moves_is_cut_short(load):
    game = load(COINS.replace("init: 3", "init: 12"), "rich")
    state = game.new_initial_state()
    moves = legal(state)
    assert len(moves) == 16
    assert refused(state, "pay 13 coins").hint == "legal now: " + ", ".join(moves[:8]) + " and 8 more"


def test_a_condition_without_a_why_is_described(tiers):
    state = tiers.new_initial_state()
    error = refused(state, "corner b1")
    assert (error.kind, error.reason) == (MoveError.ILLEGAL, "the rule 'corner' requires c.name[0] == 'a'")
    error = refused(state, "corner c9")
    assert (error.kind, error.reason) == (MoveError.ILLEGAL, "'c9' is not a possible c here")


def test_a_field_that_is_not_a_parameter_still_finds_the_failing_condition(tiers):
    state = tiers.new_initial_state()
    assert str(state.parse_move("spot a1")) == "spot a1"
    assert refused(state, "spot b2").reason == "the rule 'spot' requires c.name == 'a1'"
    # a name no cell has: the param is told apart by the field that prints it, as a plain {c} field would be
    assert refused(state, "spot zz").reason == "'zz' is not a possible c here"


def test_a_move_of_a_later_tier_waits_for_the_earlier_ones(tiers):
    state = tiers.new_initial_state()
    assert not any(m.startswith("late") for m in legal(state))
    error = refused(state, "late a1")
    assert (error.kind, error.reason) == (MoveError.ILLEGAL, "another move has priority here")


def test_a_pass_is_legal_only_without_another_move(coins, load):
    error = refused(coins.new_initial_state(), "pass")
    assert (error.kind, error.reason) == (MoveError.ILLEGAL, "you may pass only when you have no other move")
    stuck = load(COINS.replace("in: cells", "in: \"[]\"").replace("init: 3", "init: 0"), "stuck").new_initial_state()
    assert legal(stuck) == ["pass"] and str(stuck.parse_move("PASS")) == "pass"


# -- malformed moves ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", ["jump a1", "Drop", "a1", "pay coins 2 now"])
def test_a_text_like_no_move_is_malformed_and_the_templates_are_listed(coins, text):
    state = coins.new_initial_state()
    error = refused(state, text)
    assert error.kind == MoveError.MALFORMED
    assert error.reason == "not a move of this game here; moves look like 'Drop <c>', 'pass', 'pay <n> coins'"
    assert error.hint == "legal now: " + ", ".join(legal(state))


@pytest.mark.parametrize("text", ["", "   ", "\t\n"])
def test_an_empty_move_is_malformed(coins, text):
    error = refused(coins.new_initial_state(), text)
    assert (error.kind, error.reason) == (MoveError.MALFORMED, "empty move")


# -- chance outcomes and simultaneous choices ---------------------------------------------------------------

@pytest.fixture(scope="module")
def sealed():
    return rulesdsl.load_game(str(ROOT / "examples" / "games" / "sealed-bids.yaml"), options={"coins": "5"})


def test_a_chance_outcome_is_named_like_a_move(sealed):
    state = sealed.new_initial_state()
    outcome = state.parse_move("PRIZE  4")
    assert str(outcome) == "prize 4" and outcome.player == CHANCE
    error = refused(state, "prize 9")
    assert (error.kind, error.reason) == (MoveError.ILLEGAL, "'9' is not a possible value here")
    assert refused(state, "bid 1").reason == "not a move of this game here; moves look like 'prize <value>'"


def test_a_simultaneous_choice_is_read_for_the_player_named(sealed):
    state = sealed.new_initial_state()
    state.apply("prize 4")
    assert state.parse_move("bid 3", 2).player == 2
    assert state.parse_move("bid 3").player == 0  # no player named: the first to choose
    error = refused(state, "bid 6", 1)
    assert (error.kind, error.reason) == (MoveError.ILLEGAL, "you cannot bid more coins than you have")
    assert error.hint == "legal now: bid 0, bid 1, bid 2, bid 3, bid 4, bid 5"


def test_a_second_choice_of_a_seat_that_has_chosen_says_so(sealed):
    # it was refused as "another move has priority here", with the hint "no legal moves"
    state = sealed.new_initial_state()
    state.apply("prize 4")
    state.apply("bid 1", 1)
    error = refused(state, "bid 3", 1)
    assert (error.kind, error.reason, error.hint) == (
        MoveError.ILLEGAL, "p1 has already chosen at this step", "still to choose: p0, p2")


def test_a_choice_of_a_seat_that_does_not_choose_here_says_so(sealed):
    # sealed-bids played by 3 has no seat 5: it was refused with a reason from the bid's own rule
    state = sealed.new_initial_state()
    state.apply("prize 4")
    error = refused(state, "bid 1", 5)
    assert (error.kind, error.reason, error.hint) == (
        MoveError.ILLEGAL, "seat 5 does not choose at this step", "still to choose: p0, p1, p2")


# -- arrangements -------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def letters(load):
    return load(ARRANGE.replace("ITEMS", "['W', 'W', 'B', 'B']"), "letters")


@pytest.fixture(scope="module")
def words(load):
    return load(ARRANGE.replace("ITEMS", "['red', 'blue', 'blue']"), "words")


@pytest.mark.parametrize("text", ["WBWB", "W B W B", "WB  WB", " WBWB "])
def test_an_arrangement_of_letters_is_written_with_or_without_spaces(letters, text):
    state = letters.new_initial_state()
    outcome = state.parse_move(text)
    assert str(outcome) == "WBWB" and outcome.player == CHANCE
    state.apply(outcome)
    assert state.to_json()["vars"]["order"] == ["W", "B", "W", "B"]


@pytest.mark.parametrize("text, order", [("red blue blue", ["red", "blue", "blue"]),
                                         ("blue   red blue", ["blue", "red", "blue"])])
def test_an_arrangement_of_words_is_written_with_spaces(words, text, order):
    state = words.new_initial_state()
    state.apply(text)
    assert state.to_json()["vars"]["order"] == order
    assert state.to_json()["history"] == [" ".join(order)]


@pytest.mark.parametrize("game, text, written", [("letters", "wbwb", "WBWB"), ("letters", "w B w b", "WBWB"),
                                                ("words", "RED Blue blue", "red blue blue")])
def test_an_arrangement_ignores_case_when_that_is_unambiguous(request, game, text, written):
    # as moves do (docs/language.md, Notation); 'wbwb' was refused as malformed
    outcome = request.getfixturevalue(game).new_initial_state().parse_move(text)
    assert str(outcome) == written and outcome.player == CHANCE


def test_an_arrangement_keeps_case_where_items_differ_only_by_case(load):
    state = load(ARRANGE.replace("ITEMS", "['ab', 'AB', 'cd']"), "cases").new_initial_state()
    assert str(state.parse_move("AB ab CD")) == "AB ab cd"
    error = refused(state, "aB ab cd")
    assert (error.kind, error.reason) == (MoveError.MALFORMED, "'aB' is not one of the items arranged (AB, ab, cd)")


@pytest.mark.parametrize("game, text, kind, reason", [
    ("letters", "WBXB", MoveError.MALFORMED, "'X' is not one of the items arranged (B, W)"),
    ("letters", "WBW", MoveError.ILLEGAL, "an arrangement holds exactly 2x W, 2x B (4 items)"),
    ("letters", "WBWBW", MoveError.ILLEGAL, "an arrangement holds exactly 2x W, 2x B (4 items)"),
    ("letters", "WWBB", MoveError.ILLEGAL, "the first two must differ"),
    ("words", "redblueblue", MoveError.MALFORMED, "'redblueblue' is not one of the items arranged (blue, red)"),
    ("words", "red red blue", MoveError.ILLEGAL, "an arrangement holds exactly 1x red, 2x blue (3 items)"),
    ("words", "blue red", MoveError.ILLEGAL, "an arrangement holds exactly 1x red, 2x blue (3 items)"),
])
def test_a_wrong_arrangement_says_what_is_wrong(request, game, text, kind, reason):
    state = request.getfixturevalue(game).new_initial_state()
    error = refused(state, text)
    assert (error.kind, error.reason) == (kind, reason)
    assert state.to_json()["history"] == []  # nothing was applied


PRINTED = """
game: Printed
board:
  grid: {columns: abc, rows: 1}
moves:
  mark:
    params:
      c:
        in: "[x for x in cells if x.x > 1]"
        why: only the cells right of a1
      k: "1..3"
    when:
      - test: "k != 2"
        why: two is not allowed
    notation: "{c.name}/{str(k)}"
flow:
  steps:
    play: {moves: [mark]}
"""


@pytest.mark.parametrize("text, reason", [
    ("a1/1", "only the cells right of a1"),  # the why of the param whose field is written wrong
    ("zz/1", "only the cells right of a1"),
    ("b1/7", "'7' is not a possible k here"),  # a param without a why: named with what was written
    ("c1/2", "two is not allowed"),  # a when that fails: found among the combinations, as before
])
def test_notation_that_prints_expressions_keeps_the_why(load, text, reason):
    state = load(PRINTED, "printed").new_initial_state()
    assert legal(state) == ["b1/1", "b1/3", "c1/1", "c1/3"]
    error = refused(state, text)
    assert (error.kind, error.reason) == (MoveError.ILLEGAL, reason)


# -- reading never backtracks: a notation with many fields reads any text in linear time --------------------

def wide(fields: int) -> str:
    """A game whose one move has `fields` params (each always 1), written 'm 1 1 ... 1 .'."""
    names = [f"p{i}" for i in range(fields)]
    return f"""\
game: Wide
players: {{count: 1}}
board: {{cells: [a, b]}}
moves:
  m:
    params: {{{", ".join(f'{n}: "[1]"' for n in names)}}}
    notation: "m {" ".join("{" + n + "}" for n in names)} ."
flow:
  steps:
    play: {{moves: [m]}}
end:
  - when: "turn >= 1"
    winners: "[]"
"""


REPEATED = """\
game: Repeated
players: {count: 1}
board: {cells: [a, b]}
moves:
  m:
    params: {c: "cells"}
    notation: "FIELDS ."
flow:
  steps:
    play: {moves: [m]}
end:
  - when: "turn >= 1"
    winners: "[]"
""".replace("FIELDS", " ".join(["{c}"] * 40))


def read_quickly(state, text: str) -> MoveError:
    """The MoveError of `text`, read in well under the minutes a backtracking reader takes (a loose guard)."""
    start = time.monotonic()
    error = refused(state, text)
    assert time.monotonic() - start < 5
    return error


def test_a_notation_with_sixteen_fields_reads_a_wrong_text_at_once(load):
    fields = 16
    state = load(wide(fields), "wide").new_initial_state()
    assert legal(state) == ["m " + "1 " * fields + "."]
    # every way of splitting 60 words into the fields fails at the missing '.': a regex tried them all
    error = read_quickly(state, "m " + " ".join(["1"] * 60))
    assert (error.kind, error.reason) == (MoveError.MALFORMED, "not a move of this game here; moves look like 'm "
                                          + " ".join(f"<p{i}>" for i in range(fields)) + " .'")
    # written like the move, with too much in its last field: read field by field, as few characters each
    error = read_quickly(state, "m " + "1 " * (fields + 2) + ".")
    assert (error.kind, error.reason) == (MoveError.ILLEGAL, f"'1 1 1' is not a possible p{fields - 1} here")
    assert str(state.parse_move("M " + "1  " * fields + ".")) == "m " + "1 " * fields + "."


def test_forty_fields_printing_one_param_read_a_wrong_text_at_once(load):
    state = load(REPEATED, "repeated").new_initial_state()
    assert legal(state) == [" ".join(["a"] * 40) + " .", " ".join(["b"] * 40) + " ."]
    error = read_quickly(state, " ".join(["a"] * 90))
    assert (error.kind, error.reason) == (MoveError.MALFORMED, "not a move of this game here; moves look like '"
                                          + " ".join(["<c>"] * 40) + " .'")
    error = read_quickly(state, " ".join(["c"] * 40) + " .")
    assert (error.kind, error.reason) == (MoveError.ILLEGAL, "'c' is not a possible c here")


TURN_ENDS = ROOT / "tests" / "compiled_games" / "turn-ends.yaml"  # label(c) in its notation


def test_notation_may_call_a_function_of_the_file_that_reads_no_position(tmp_path):
    state = rulesdsl.load_game(str(TURN_ENDS)).new_initial_state()
    assert [str(m) for m in state.legal_moves()] == ["a1", "b1", "c1", "a2", "b2*", "c2", "a3", "b3", "c3"]
    state.apply("b2*")
    assert state.history_texts() == ["b2*"]
    # with a let, the function is compiled on its own rather than into the notation: the same text
    text = TURN_ENDS.read_text().replace('    value: "c.name', '    let: {n: "c.name"}\n    value: "n')
    (tmp_path / "let.yaml").write_text(text)
    moves = rulesdsl.load_game(str(tmp_path / "let.yaml")).new_initial_state().legal_moves()
    assert [str(m) for m in moves][4] == "b2*"


def test_notation_refuses_a_function_that_reads_the_position_where_it_is_called(tmp_path):
    busy = 'functions:\n  busy:\n    params: [c]\n    value: "empty(c)"\n'
    text = TURN_ENDS.read_text().replace("functions:\n", busy)
    text = text.replace('notation: "{label(c)}"', 'notation: "{label(c)} {busy(c)}"')
    (tmp_path / "busy.yaml").write_text(text)
    with pytest.raises(rulesdsl.RulesError) as caught:
        rulesdsl.load_game(str(tmp_path / "busy.yaml"))
    (problem,) = caught.value.problems
    assert "'busy' reads the position, which notation cannot" in problem.message and problem.code == "misused_name"
    line = text.splitlines()[problem.location.line - 1]
    assert line[problem.location.col - 1:].startswith("busy(c)")


EMPTY_FIELDS = """\
game: Keep
players: {count: 2}
board:
  cells: [a, b]
moves:
  keep:
    params:
      xs: {in: "[[], ['a'], ['a', 'b']]"}
    notation: "keep {xs}"
    do: []
  mark:
    params:
      xs: {in: "[[], ['b']]"}
    notation: "{xs} marked  now"
    do: []
flow:
  steps:
    play: {moves: [keep, mark], next: end_turn}
end:
  - when: "turn >= 4"
    winners: "[]"
"""


def test_a_field_that_prints_nothing_takes_its_space_with_it(tmp_path):
    path = tmp_path / "keep.yaml"
    path.write_text(EMPTY_FIELDS)
    state = rulesdsl.load_game(path, backend="python").new_initial_state(0)
    printed = [str(m) for m in state.legal_moves()]
    assert printed == ["keep", "keep a", "keep a b", "marked now", "b marked now"]
    for text in printed:  # each is read back as the move it prints
        assert str(state.parse_move(text)) == text


@pytest.mark.parametrize("field, name", [("{player}", "player"), ("{tally[me]}", "tally"), ("{turn + 1}", "turn")])
def test_notation_that_reads_the_position_is_refused_with_a_let_to_print_it_instead(tmp_path, field, name):
    text = EMPTY_FIELDS.replace("board:", "vars:\n  tally: {per: player, init: 0}\nboard:")
    (tmp_path / "bad.yaml").write_text(text.replace('notation: "keep {xs}"', f'notation: "keep {{xs}} {field}"'))
    with pytest.raises(rulesdsl.RulesError) as caught:
        rulesdsl.load_game(str(tmp_path / "bad.yaml"), backend="python")
    (problem,) = caught.value.problems
    assert problem.code == "misused_name" and f"'{name}' reads the position" in problem.message
    assert "let of the move" in problem.hint
    line = (tmp_path / "bad.yaml").read_text().splitlines()[problem.location.line - 1]
    assert line[problem.location.col - 1:].startswith(name)
    # what the hint says works: a let computes it, and the move prints it
    fixed = text.replace('notation: "keep {xs}"', 'let: {v: "tally[me] + turn"}\n    notation: "keep {xs} {v}"')
    (tmp_path / "fixed.yaml").write_text(fixed)
    state = rulesdsl.load_game(str(tmp_path / "fixed.yaml"), backend="python").new_initial_state(0)
    assert [str(m) for m in state.legal_moves()][:2] == ["keep 0", "keep a 0"]
