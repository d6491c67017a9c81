"""YAML loading that keeps the file position of every node, for error messages that point into the file."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .errors import Location, Problem, RulesError

Path_ = tuple  # a path into the document: keys and list indices


@dataclass
class NodeInfo:
    """Where one node of the document came from."""

    loc: Location  # first character of the value
    key_loc: Location | None  # the key that introduced it (mappings only)
    style: str | None  # scalar style: None (plain), "'", '"', '|', '>'
    lines: list[str]  # the source file's lines, for carets


@dataclass
class Document:
    """A loaded YAML document: plain Python data plus the position of every node."""

    data: object
    file: str
    nodes: dict[Path_, NodeInfo] = field(default_factory=dict)

    def info(self, path: Path_) -> NodeInfo | None:
        """The position of the node at `path`, or of its nearest ancestor."""
        path = tuple(path)
        while path not in self.nodes and path:
            path = path[:-1]
        return self.nodes.get(path)

    def locate(self, path: Path_, offset: int | None = None, key: bool = False) -> tuple[Location, str | None]:
        """Location (and source line) of a node, or of character `offset` inside a string node."""
        info = self.info(path)
        if info is None:
            return Location(self.file), None
        if key and info.key_loc is not None:
            loc = info.key_loc
        elif offset is None:
            loc = info.loc
        else:
            loc = _offset_location(info, self._value(path), offset)
        line = info.lines[loc.line - 1] if 0 < loc.line <= len(info.lines) else None
        return loc, line

    def problem(self, path: Path_, message: str, hint: str | None = None, offset: int | None = None,
                width: int = 1, key: bool = False) -> Problem:
        """A Problem located at the node (or at a character inside it)."""
        loc, line = self.locate(path, offset, key)
        if offset is not None and width > 1 and line is not None:
            end, _ = self.locate(path, offset + width - 1)
            if end.line == loc.line and end.col >= loc.col:
                width = end.col - loc.col + 1  # escapes make the source longer than the value
            width = max(1, min(width, len(line.rstrip()) - loc.col + 1))  # the caret stays on its line
        return Problem(message, loc, hint, line if offset is not None else None, width)

    def _value(self, path):
        value = self.data
        try:
            for part in path:
                value = value[part]
        except (KeyError, IndexError, TypeError):
            return None
        return value


def _offset_location(info: NodeInfo, value, offset: int) -> Location:
    """Map a character offset in a string scalar back to file line and column."""
    loc = info.loc
    if not isinstance(value, str):
        return loc
    positions = _char_positions(info, value)
    if not positions:
        return loc
    if offset < len(positions):
        line, col, _ = positions[offset]
    else:  # just after the last character (an expression that ends too early)
        line, col, real = positions[-1]
        col += 1 if real else 0
    return Location(loc.file, line, col)


def _char_positions(info: NodeInfo, value: str) -> list[tuple[int, int, bool]] | None:
    """(line, col, in source) of every character of a string scalar's value; None when it cannot be mapped.

    Characters that YAML makes up (a folded line break, the newline ending a block) have no column of
    their own: they are placed just after the character before them, with `in source` False.
    """
    if not value:
        return None
    if info.style in ("|", ">"):
        positions = _block_positions(info, value)
    else:
        positions = _flow_positions(info, value)
    if positions is None or len(positions) < len(value) or any(p is None for p in positions):
        return None
    return positions[: len(value)]


def _block_positions(info: NodeInfo, value: str):
    """Positions for a literal (|) or folded (>) block scalar: every content line appears verbatim in it."""
    lines, header = info.lines, info.loc.line  # the content starts on the line after the '|' or '>'
    indent = next((len(t) - len(t.lstrip(" ")) for t in lines[header:] if t.strip()), None)
    if indent is None:
        return None
    positions: list = [None] * len(value)
    cursor, last = 0, None
    for number, text in enumerate(lines[header:], header + 1):
        if text.strip() and len(text) - len(text.lstrip(" ")) < indent:
            break
        segment = text[indent:].rstrip("\r")
        if not segment:
            continue
        at = value.find(segment, cursor)
        if at < 0:
            segment = segment.rstrip()
            at = value.find(segment, cursor)
            if at < 0:
                return None
        for k in range(cursor, at):  # line breaks (or spaces, when folded) between the lines
            positions[k] = (last[0], last[1] + 1, False) if last else (number, indent + 1, False)
        for k in range(len(segment)):
            positions[at + k] = (number, indent + k + 1, True)
        cursor, last = at + len(segment), (number, indent + len(segment))
    for k in range(cursor, len(value)):  # the final newline(s)
        positions[k] = (last[0], last[1] + 1, False) if last else None
    return positions


def _flow_positions(info: NodeInfo, value: str):
    """Positions for a plain, 'single' or "double" quoted scalar, possibly folded over several lines."""
    style, lines = info.style, info.lines
    index, col = info.loc.line - 1, info.loc.col - 1 + (1 if info.style in ("'", '"') else 0)
    positions: list = []
    first = True
    while index < len(lines) and len(positions) < len(value):
        text = lines[index].rstrip("\r")
        j = col if first else len(text) - len(text.lstrip(" \t"))
        chars, closed, joined = [], False, False  # joined: a double-quoted line ending in '\\'
        while j < len(text):
            ch = text[j]
            if style == "'" and ch == "'":
                if text[j + 1: j + 2] != "'":
                    closed = True
                    break
                chars.append((j, False))
                j += 2
            elif style == '"' and ch == '"':
                closed = True
                break
            elif style == '"' and ch == "\\":
                if not text[j + 1:].strip():
                    joined = True
                    break
                chars.append((j, False))
                j += {"x": 4, "u": 6, "U": 10}.get(text[j + 1], 2)
            elif style is None and ch == "#" and j > 0 and text[j - 1] in " \t":
                break
            else:
                chars.append((j, True))
                j += 1
        if not closed:
            while chars and chars[-1][1] and text[chars[-1][0]] in " \t":
                chars.pop()  # trailing spaces do not survive the line fold
        for c, verbatim in chars:
            if verbatim and len(positions) < len(value) and value[len(positions)] != text[c]:
                return None
            positions.append((index + 1, c + 1, True))
        if closed:
            break
        end = (index + 1, (chars[-1][0] + 1 if chars else j) + 1, False)
        index, first = index + 1, False
        blanks = 0
        while index < len(lines) and not lines[index].strip():
            blanks, index = blanks + 1, index + 1
        if not joined or blanks:
            positions.extend([end] * (blanks or 1))
    return positions


class _Loader(yaml.SafeLoader):
    """SafeLoader that leaves every scalar value to us (positions are read off the composed nodes)."""


def load_text(text: str, file: str) -> Document:
    """Parse YAML text into a Document; raises RulesError for syntax errors, duplicate keys, empty files."""
    lines = text.splitlines()
    try:
        loader = _Loader(text)
        try:
            root = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        raise RulesError([_yaml_problem(exc, file, lines, text)]) from None
    except yaml.YAMLError as exc:
        raise RulesError([Problem(f"YAML error: {exc}", Location(file))]) from None
    if root is None:
        raise RulesError([Problem("the file is empty", Location(file, 1, 1),
                                  "a rule file is a YAML mapping that starts with 'game: <name>'")])
    doc = Document(None, file)
    problems: list[Problem] = []
    constructor = yaml.SafeLoader("")
    doc.data = _build(root, (), None, doc, lines, constructor, problems)
    if problems:
        raise RulesError(problems)
    return doc


_YAML_HINT = "check indentation, quoting and ':' after keys; quote strings that contain ': ' or start with " \
             "'{' '[' '*' '&'"


def _quoted_before(text: str, mark):
    """The last quoted scalar token that ends before `mark`, if it runs over several lines (else None)."""
    last = None
    try:
        for token in yaml.scan(text):
            if token.start_mark.index >= mark.index:
                break
            if isinstance(token, yaml.ScalarToken):
                last = token
    except yaml.YAMLError:
        pass
    if last is not None and last.style in ("'", '"') and last.end_mark.line > last.start_mark.line:
        return last
    return None


def _yaml_problem(exc: yaml.MarkedYAMLError, file: str, lines: list[str], text: str = "") -> Problem:
    """A YAML syntax error in the words of a rule-file author, at the character that explains it best."""
    problem, context = exc.problem or "", exc.context or ""
    mark, at = exc.problem_mark or exc.context_mark, None
    message, hint = f"YAML syntax: {problem or context}", _YAML_HINT
    opened = exc.context_mark
    where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "the end of the file"
    if problem == "mapping values are not allowed here":
        message = "YAML syntax: ':' is not allowed here"
        hint = ("a line indented deeper than the line above continues that line's value: indent keys of one "
                "mapping equally; a value that contains ': ' must be quoted")
    elif problem.startswith("expected ',' or ") and opened and "flow" in context:
        bracket = "[" if "sequence" in context else "{"
        at, message = opened, f"YAML syntax: '{bracket}' is not closed"
        hint = (f"close it with '{']' if bracket == '[' else '}'}' (YAML read on to {where} without finding it); "
                "a value that starts with '[' or '{' but is not a list or mapping must be quoted")
    elif problem == "found unexpected end of stream" and opened and "quoted" in context:
        at, message = opened, "YAML syntax: this quoted string is not closed"
        hint = "end it with the same quote it starts with"
    elif problem == "could not find expected ':'" and opened:
        at, message = opened, "YAML syntax: this key has no ':' after it"
        hint = "write 'key: value'; a line indented deeper than the line above continues that line"
    elif problem.startswith("expected <block end>, but found ") and mark:
        found = problem.split("but found ", 1)[1].strip("'")
        line_text = lines[mark.line] if mark.line < len(lines) else ""
        starts_line = not line_text[: mark.column].strip()
        message = {"<scalar>": "YAML syntax: unexpected text", "-": "YAML syntax: unexpected list item '-'",
                   "<block mapping start>": "YAML syntax: this line's indentation does not match the lines above"
                   }.get(found, f"YAML syntax: unexpected {found}")
        runaway = _quoted_before(text, mark) if found == "<scalar>" else None
        if runaway is not None:  # a quote left open swallows the line break and ends at the next quote
            at = runaway.start_mark
            message = f"YAML syntax: this quoted string runs on to line {runaway.end_mark.line + 1}"
            hint = (f"close the quote on this line (YAML ended the string at line {runaway.end_mark.line + 1}, "
                    f"column {runaway.end_mark.column}, and cannot read what follows it)")
        elif found == "<scalar>" and not starts_line:
            hint = ("text follows a quoted string or a [list] / {mapping} on the same line: quote the whole value "
                    "(e.g. notation: \"{from}-{to}\"), or close a quote left open on an earlier line")
        elif found == "-" and opened:
            hint = (f"the items of one list start in the same column; here YAML expected a key of the mapping at "
                    f"line {opened.line + 1}, column {opened.column + 1}")
        elif opened:
            hint = (f"the keys of the mapping at line {opened.line + 1} start in column {opened.column + 1}: line "
                    "this one up with them, or, to continue the value above, quote that value or join the lines")
    elif "'\\t'" in problem:
        message = "YAML syntax: a tab character"
        hint = "indent with spaces: YAML does not allow tabs in indentation"
    elif problem.startswith("found undefined alias"):
        message = f"YAML syntax: {problem} (a value starting with '*' is an alias)"
        hint = "quote values that start with '*', '&' or '!'"
    at = at or mark
    if at is None:
        return Problem(message, Location(file), hint)
    line = lines[at.line] if at.line < len(lines) else None
    return Problem(message, Location(file, at.line + 1, at.column + 1), hint, line)


def load_file(path: str | Path, display: str | None = None) -> Document:
    """Read and parse a YAML file; a missing or unreadable file is a RulesError too."""
    path = Path(path)
    name = display or str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RulesError([Problem(f"no such file: {path}", Location(name),
                                  "check the path; bundled games are listed by 'rulesdsl games'")]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise RulesError([Problem(f"cannot read {path}: {exc}", Location(name))]) from None
    return load_text(text, name)


def _loc(file: str, mark) -> Location:
    return Location(file, mark.line + 1, mark.column + 1)


def _build(node, path, key_loc, doc, lines, constructor, problems):
    info = NodeInfo(_loc(doc.file, node.start_mark), key_loc,
                    getattr(node, "style", None), lines)
    doc.nodes[path] = info
    if isinstance(node, yaml.MappingNode):
        result = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                problems.append(Problem("mapping keys must be plain scalars", _loc(doc.file, key_node.start_mark)))
                continue
            if key_node.tag == "tag:yaml.org,2002:merge":
                problems.append(Problem("YAML merge keys ('<<') are not supported",
                                        _loc(doc.file, key_node.start_mark),
                                        "use a variant or an overlay file ('extends:') to share parts"))
                continue
            key = constructor.construct_object(key_node)
            if isinstance(key, bool) or key is None:
                key = key_node.value  # 'yes', 'no', 'null' as keys mean the words themselves
            kloc = _loc(doc.file, key_node.start_mark)
            if key in result:
                first = doc.nodes[path + (key,)].key_loc
                problems.append(Problem(f"duplicate key '{key}' (first defined at line {first.line})", kloc,
                                        "remove one of the two entries; YAML would silently keep the last",
                                        lines[kloc.line - 1] if kloc.line <= len(lines) else None,
                                        len(str(key))))
                continue
            result[key] = _build(value_node, path + (key,), kloc, doc, lines, constructor, problems)
        return result
    if isinstance(node, yaml.SequenceNode):
        return [_build(item, path + (i,), None, doc, lines, constructor, problems)
                for i, item in enumerate(node.value)]
    return constructor.construct_object(node)
