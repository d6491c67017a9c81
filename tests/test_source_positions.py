"""YAML with positions (rulesdsl/source.py): where every key, value and list item of a rule file is, and where
each character of a string value came from, so that a problem inside an expression points at file:line:col.

What belongs here: load_text()/Document.locate()/Document.problem() -- positions of keys and values in block
and flow style, list items, multi-line scalars (plain, quoted, literal and folded blocks), escapes, aliases --
and, end to end, how the compiler's offset inside an expression becomes the line and column in the file.
The exact wording of messages for bad rule files is checked by the golden files in tests/bad_rules/; YAML
that must be refused (bombs, tags, bad bytes) by tests/test_untrusted_files.py.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rulesdsl
from rulesdsl.errors import RulesError
from rulesdsl.source import load_text

TEXT = """\
game: Demo
moves:
  push:
    params: {a: cells, b: "[1, 2]"}
    when:
      - "size(xs) > 1"
      - 'it''s + 1'
      - test: |
          a +
            b * zz
        why: the literal block above
    list: [x, y,
      z]
    folded: >
      one
      two
    plain: a very
      long plain
    escapes: "a\\tb\\u00e9c \\"d\\""
    joined: "abc\\
      def"
    stripped: |-
      xy
      zw
data:
  base: &row {k: 1, j: ['text', 2]}
  copy: *row
"""

PUSH = ("moves", "push")


@pytest.fixture(scope="module")
def doc():
    return load_text(TEXT, "demo.yaml")


def at(doc, path, offset=None, key=False) -> str:
    loc, _ = doc.locate(path, offset, key)
    assert loc.file == "demo.yaml"
    return f"{loc.line}:{loc.col}"


def value_at(doc, path):
    value = doc.data
    for part in path:
        value = value[part]
    return value


def source_char(text: str, line: int, col: int) -> str:
    return text.splitlines()[line - 1][col - 1]


# -- keys, values and items ---------------------------------------------------------------------------------

@pytest.mark.parametrize("path, value, key", [
    (("game",), "1:7", "1:1"),
    (("moves",), "3:3", "2:1"),  # a block mapping starts at its first key
    (PUSH, "4:5", "3:3"),
    (PUSH + ("params",), "4:13", "4:5"),  # a flow mapping starts at its '{'
    (PUSH + ("params", "a"), "4:17", "4:14"),
    (PUSH + ("params", "b"), "4:27", "4:24"),  # a quoted value starts at its quote
    (PUSH + ("when",), "6:7", "5:5"),  # a block list starts at its first '-'
    (PUSH + ("when", 2, "test"), "8:15", "8:9"),
    (PUSH + ("when", 2, "why"), "11:14", "11:9"),
    (PUSH + ("list",), "12:11", "12:5"),
    (PUSH + ("folded",), "14:13", "14:5"),  # a block scalar starts at its '>' or '|'
    (PUSH + ("plain",), "17:12", "17:5"),
])
def test_keys_and_values(doc, path, value, key):
    assert at(doc, path) == value
    assert at(doc, path, key=True) == key


@pytest.mark.parametrize("path, where", [
    (PUSH + ("when", 0), "6:9"),
    (PUSH + ("when", 1), "7:9"),
    (PUSH + ("when", 2), "8:9"),  # an item that is a mapping starts at its first key
    (PUSH + ("list", 0), "12:12"),
    (PUSH + ("list", 1), "12:15"),
    (PUSH + ("list", 2), "13:7"),  # a flow list may run over several lines
])
def test_list_items(doc, path, where):
    assert at(doc, path) == where
    assert at(doc, path, key=True) == where  # an item has no key: its own position stands in


def test_a_path_that_is_not_in_the_document_falls_back_to_its_nearest_ancestor(doc):
    assert at(doc, PUSH + ("when", 7, "test")) == at(doc, PUSH + ("when",))
    assert at(doc, ("nowhere", "at all")) == "1:1"
    assert doc.locate(("nowhere",))[1] == "game: Demo"


def test_locate_gives_the_source_line_too(doc):
    assert doc.locate(PUSH + ("when", 0), 5)[1] == '      - "size(xs) > 1"'
    assert doc.locate(PUSH + ("when", 2, "test"), 10)[1] == "            b * zz"
    assert doc.locate(PUSH + ("list", 2))[1] == "      z]"


# -- characters inside string values ------------------------------------------------------------------------

@pytest.mark.parametrize("path, offset, char, where", [
    # double quotes: the first character is after the quote
    (PUSH + ("when", 0), 0, "s", "6:10"),
    (PUSH + ("when", 0), 5, "x", "6:15"),
    # single quotes: '' is one quote in the value and two columns in the file
    (PUSH + ("when", 1), 2, "'", "7:12"),
    (PUSH + ("when", 1), 3, "s", "7:14"),
    # a literal block keeps its lines; the indentation YAML removes is counted back
    (PUSH + ("when", 2, "test"), 0, "a", "9:11"),
    (PUSH + ("when", 2, "test"), 4, " ", "10:11"),
    (PUSH + ("when", 2, "test"), 10, "z", "10:17"),
    # a folded block and a plain scalar over two lines: the second line is where it is
    (PUSH + ("folded",), 4, "t", "16:7"),
    (PUSH + ("plain",), 7, "l", "18:7"),
    # escapes: a character written as an escape is found at its backslash, and those after it move on
    (PUSH + ("escapes",), 1, "\t", "19:16"),
    (PUSH + ("escapes",), 2, "b", "19:18"),
    (PUSH + ("escapes",), 3, "\u00e9", "19:19"),
    (PUSH + ("escapes",), 4, "c", "19:25"),
    (PUSH + ("escapes",), 6, '"', "19:27"),
    (PUSH + ("escapes",), 7, "d", "19:29"),
    # a double-quoted line ended by a backslash joins the next without a space
    (PUSH + ("joined",), 2, "c", "20:16"),
    (PUSH + ("joined",), 3, "d", "21:7"),
    # |- strips the final newline: the last character is the last of the last line
    (PUSH + ("stripped",), 3, "z", "24:7"),
    (PUSH + ("stripped",), 4, "w", "24:8"),
])
def test_a_character_of_a_string_value(doc, path, offset, char, where):
    assert value_at(doc, path)[offset] == char
    assert at(doc, path, offset) == where


def test_the_values_read_are_the_yaml_values(doc):
    push = doc.data["moves"]["push"]
    assert push["when"] == ["size(xs) > 1", "it's + 1", {"test": "a +\n  b * zz\n", "why": "the literal block above"}]
    assert (push["folded"], push["plain"]) == ("one two\n", "a very long plain")
    assert (push["escapes"], push["joined"], push["stripped"]) == ('a\tb\u00e9c "d"', "abcdef", "xy\nzw")


@pytest.mark.parametrize("path, where", [
    (PUSH + ("when", 0), "6:22"),  # just after the last character, before the closing quote
    (PUSH + ("plain",), "18:17"),
    (PUSH + ("stripped",), "24:9"),
])
def test_an_offset_just_past_the_end_is_just_after_the_last_character(doc, path, where):
    # where an expression that ends too early is reported
    assert at(doc, path, len(value_at(doc, path))) == where


def test_a_non_string_value_has_one_position_for_every_offset(doc):
    assert at(doc, ("data", "base", "k"), 0) == at(doc, ("data", "base", "k"), 5) == "26:18"


# -- anchors and aliases ------------------------------------------------------------------------------------

def test_an_alias_points_into_its_anchor_and_its_key_stays_its_own(doc):
    assert doc.data["data"]["copy"] == {"k": 1, "j": ["text", 2]}
    assert at(doc, ("data", "copy"), key=True) == "27:3"
    assert at(doc, ("data", "copy")) == at(doc, ("data", "base")) == "26:9"  # the anchor's '&'
    assert at(doc, ("data", "copy", "j", 0), 1) == at(doc, ("data", "base", "j", 0), 1) == "26:27"


# -- problems -----------------------------------------------------------------------------------------------

def test_a_problem_at_a_character_carries_its_line_and_a_caret_as_wide_as_asked(doc):
    found = doc.problem(PUSH + ("when", 0), "unknown name 'xs'", "a hint", offset=5, width=2)
    assert (str(found.location), found.width, found.source_line) == ("demo.yaml:6:15", 2, '      - "size(xs) > 1"')
    assert found.format().splitlines() == [
        "demo.yaml:6:15: error: unknown name 'xs'",
        '          - "size(xs) > 1"',
        "                  ^^",
        "  hint: a hint",
    ]


def test_a_caret_over_escapes_covers_their_source(doc):
    found = doc.problem(PUSH + ("escapes",), "x", offset=2, width=3)  # 'b', 'é' (6 columns), 'c'
    assert (str(found.location), found.width) == ("demo.yaml:19:18", 8)


def test_a_caret_never_runs_past_its_line(doc):
    found = doc.problem(PUSH + ("plain",), "x", offset=2, width=50)
    assert (str(found.location), found.width) == ("demo.yaml:17:14", len("    plain: a very") - 14 + 1)


def test_a_problem_at_a_node_or_a_key_has_no_caret_line(doc):
    whole = doc.problem(PUSH + ("list",), "a list problem")
    assert (str(whole.location), whole.source_line) == ("demo.yaml:12:11", None)
    keyed = doc.problem(PUSH + ("list",), "a key problem", key=True)
    assert str(keyed.location) == "demo.yaml:12:5"


# -- property: every character of a string value, in every scalar style, maps back to itself ----------------

TOKENS = ["a", "b1", "size(xs)", "+", "==", "'q'", '"w"', "[1, 2]", "x.y", "-", "(", ")", "\u00e9t\u00e9", "\\",
          "k:v", "a#b", "{z}", "*", "&"]
STYLES = ["plain", "single", "double", "double-escaped", "literal", "literal-strip", "folded"]
INDENT = " " * 6  # deeper than the key 'when' of the list item


def yaml_scalar(lines: list[str], style: str) -> tuple[str, str]:
    """(YAML text after 'when: ', the value YAML reads) for `lines` of words written in `style`."""
    if style.startswith("literal"):
        value = "\n".join(lines) + ("" if style == "literal-strip" else "\n")
        return ("|-" if style == "literal-strip" else "|") + "".join(f"\n{INDENT}{line}" for line in lines), value
    value = " ".join(lines)
    if style == "folded":
        return ">" + "".join(f"\n{INDENT}{line}" for line in lines), value + "\n"
    if style == "single":
        lines = [line.replace("'", "''") for line in lines]
        quote = "'"
    elif style.startswith("double"):
        lines = [line.replace("\\", "\\\\").replace('"', '\\"') for line in lines]
        if style == "double-escaped":
            lines = [line.replace("\u00e9", "\\u00e9") for line in lines]
        quote = '"'
    else:
        quote = ""
    return quote + f"\n{INDENT}".join(lines) + quote, value


def plain_is_possible(lines: list[str]) -> bool:
    text = " ".join(lines)
    return text[0].isalpha() and all(line[0] not in "-#&*!|>'\"%@`[]{}," for line in lines)


@st.composite
def scalars(draw):
    style = draw(st.sampled_from(STYLES))
    words = draw(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=8))
    if style == "plain":
        words = ["a"] + words
    breaks = draw(st.lists(st.booleans(), min_size=len(words) - 1, max_size=len(words) - 1))
    lines, line = [], [words[0]]
    for word, broken in zip(words[1:], breaks):
        if broken:
            lines.append(" ".join(line))
            line = []
        line.append(word)
    lines.append(" ".join(line))
    if style == "plain" and not plain_is_possible(lines):
        style = "double"
    return style, lines


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scalar=scalars())
def test_every_character_of_a_string_value_is_found_in_the_file(scalar):
    style, lines = scalar
    written, value = yaml_scalar(lines, style)
    text = f"game: x\nrules:\n  - when: {written}\n    why: after\n"
    doc = load_text(text, "f.yaml")
    assert doc.data["rules"][0]["when"] == value, text
    path = ("rules", 0, "when")
    previous = (0, 0)
    for i, char in enumerate(value):
        loc, _ = doc.locate(path, i)
        if char in " \n":  # a space folded from a line break has no column of its own
            continue
        found = source_char(text, loc.line, loc.col)
        assert found == char or (found == "\\" and style.startswith("double")), (text, i, char, loc)
        assert (loc.line, loc.col) > previous, (text, i)  # in order, never twice the same column
        previous = (loc.line, loc.col)


# -- end to end: a problem inside an expression of a rule file ----------------------------------------------

GAME = """\
game: Positions
players: {count: 2}
board:
  cells: [a, b, c]
pieces:
  stone: {}
moves:
  put:
    params:
      c: cells
    when:
      - WHEN
    do: ["place(piece('stone'), c)"]
flow:
  steps:
    play:
      moves: [put]
      pass: pass
      next: end_turn
end:
  - when: "turn >= 3"
    winners: "[]"
"""

I = " " * 8  # continuation lines of the item under 'when:'


@pytest.mark.parametrize("when", [
    '"empty(c) and zzq > 0"',
    "'empty(c) and ''x'' != zzq'",
    "empty(c) and zzq > 0",
    f"empty(c) and\n{I}zzq > 0",  # plain, over two lines
    f'"empty(c) and\n{I}zzq > 0"',  # double-quoted, over two lines
    f"|\n{I}empty(c) and\n{I}  zzq > 0",  # literal block, the name on its second line
    f">\n{I}empty(c)\n{I}and zzq > 0",  # folded block
    # an indentation indicator: the block is indented 6 + 2 (the item's '-' is in column 7), so the spaces
    # beyond 8 stay in the value (the first line's indentation was taken for the block's: 13:25, not 14:11)
    f"|2\n{I}    empty(c) and\n{I}  zzq > 0",
    f">2\n{I}  empty(c)\n{I}and zzq > 0",
    f"|+2\n\n{I}   empty(c) and\n{I} zzq > 0",
    '"empty(\\"c\\") and zzq"',  # escapes before the name
    "[empty(c), zzq]",  # a YAML flow list is not an expression
], ids=["double", "single", "plain", "plain-2-lines", "double-2-lines", "literal", "folded", "literal-indicator",
        "folded-indicator", "keep-indicator", "escapes", "flow-list"])
def test_an_unknown_name_is_reported_where_it_is_written(tmp_path, when):
    path = tmp_path / "game.yaml"
    path.write_text(GAME.replace("WHEN", when), encoding="utf-8")
    with pytest.raises(RulesError) as info:
        rulesdsl.load_game(str(path))
    problems = info.value.problems
    if when.startswith("["):  # the list itself is the problem: located at the item
        assert len(problems) == 1 and problems[0].location.line == 12
        return
    assert [p.message for p in problems] == ["unknown name 'zzq'"]
    loc = problems[0].location
    line = path.read_text(encoding="utf-8").splitlines()[loc.line - 1]
    assert line[loc.col - 1: loc.col + 2] == "zzq"
    assert problems[0].width == 3 and problems[0].source_line == line


@pytest.mark.parametrize("when, line, col", [
    ('"size(cells"', 12, 20),  # just after the last character, before the quote
    (f"|\n{I}size(\n{I}cells", 14, 14),  # after the last character of the block's last line
])
def test_an_expression_that_ends_too_early_is_reported_after_its_last_character(tmp_path, when, line, col):
    path = tmp_path / "game.yaml"
    path.write_text(GAME.replace("WHEN", when), encoding="utf-8")
    with pytest.raises(RulesError) as info:
        rulesdsl.load_game(str(path))
    (found,) = info.value.problems
    assert found.message == "the expression ends too early"
    assert (found.location.line, found.location.col) == (line, col)


def test_a_single_when_check_is_located_in_its_own_string(tmp_path):
    # `when:` may be one check rather than a list: its problems are located in that string too
    path = tmp_path / "game.yaml"
    path.write_text(GAME.replace("    when:\n      - WHEN", '    when: "empty(c) and zzq > 0"'), encoding="utf-8")
    with pytest.raises(RulesError) as info:
        rulesdsl.load_game(str(path))
    (found,) = info.value.problems
    assert (found.message, found.location.line, found.location.col, found.width) == ("unknown name 'zzq'", 11, 25, 3)


@pytest.mark.parametrize("path", [PUSH + ("when", 0), PUSH + ("when", 1), PUSH + ("escapes",), ("game",)])
def test_the_string_at_a_position_is_the_one_located_there(doc, path):
    # string_at is locate's inverse: from a line and column back to the value and the character in it
    value = value_at(doc, path)
    for offset in range(len(value) + 1):  # and just after the last character
        loc, _ = doc.locate(path, offset)
        assert doc.string_at("demo.yaml", loc.line, loc.col) == (path, offset)
    assert doc.string_at("other.yaml", loc.line, loc.col) is None
    assert doc.string_at("demo.yaml", 2, 1) is None  # a key ('moves:'), not a string value
