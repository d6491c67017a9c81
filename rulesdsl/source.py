"""YAML loading that keeps the file position of every node, for error messages that point into the file."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .errors import Location, Problem, RulesError
from .limits import MAX_FILE_BYTES, MAX_INT_BITS, MAX_YAML_DEPTH, MAX_YAML_NODES

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
    # (path, what): each key an overlay or a variant set, as "added" (the base lacks it), "same" (to the value it
    # had), "changed", "deleted" (by a null) or "missing" (a null for a key the base lacks), so that an
    # override that changes nothing can be reported
    overrides: list[tuple[Path_, str]] = field(default_factory=list)

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
            loc = _offset_location(info, self.value(path), offset)
        line = info.lines[loc.line - 1] if 0 < loc.line <= len(info.lines) else None
        return loc, line

    def problem(self, path: Path_, message: str, hint: str | None = None, offset: int | None = None,
                width: int = 1, key: bool = False, code: str = "invalid", fields=()) -> Problem:
        """A Problem located at the node (or at a character inside it), of kind `code` about `fields`."""
        loc, line = self.locate(path, offset, key)
        if offset is not None and width > 1 and line is not None:
            end, _ = self.locate(path, offset + width - 1)
            if end.line == loc.line and end.col >= loc.col:
                width = end.col - loc.col + 1  # escapes make the source longer than the value
            width = max(1, min(width, len(line.rstrip()) - loc.col + 1))  # the caret stays on its line
        return Problem(message, loc, hint, line if offset is not None else None, width, code, fields)

    def string_at(self, file: str, line: int, col: int) -> tuple[Path_, int] | None:
        """(path, character offset) of the character of a string value at 1-based `line`:`col` of `file`, or
        of the position just after the value's last character; None when no string value of `file` is there."""
        for path, info in self.nodes.items():
            if info.loc.file != file or info.loc.line > line:
                continue
            value = self.value(path)
            positions = _char_positions(info, value) if isinstance(value, str) else None
            if not positions:
                continue
            for offset, (at_line, at_col, _) in enumerate(positions):
                if (at_line, at_col) == (line, col):
                    return path, offset
            last_line, last_col, real = positions[-1]
            if (last_line, last_col + real) == (line, col):  # the cursor just after the last character
                return path, len(value)
        return None

    def value(self, path):
        """The value at `path`, or None when there is none."""
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
    first = next((t for t in lines[header:] if t.strip()), None)
    kept = next((t for t in value.split("\n") if t.strip()), None)
    if first is None or kept is None:
        return None
    # the first line's spaces beyond the block's indentation stay in the value: with an indentation
    # indicator (|2, >2) the indentation is that of the parent plus the indicator, not the first line's
    indent = (len(first) - len(first.lstrip(" "))) - (len(kept) - len(kept.lstrip(" ")))
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
    """SafeLoader whose parser and resolver we use; our own composer builds the data (see _Composer)."""


class _DuplicateAnchor(yaml.composer.ComposerError):
    """An anchor defined twice (PyYAML's error, with the anchor's name kept apart from its wording)."""

    def __init__(self, anchor: str, first, second):
        super().__init__(f"found duplicate anchor {anchor!r}; first occurrence", first, "second occurrence", second)
        self.anchor = anchor


def load_text(text: str, file: str) -> Document:
    """Parse YAML text into a Document; raises RulesError for syntax errors, duplicate keys, empty files,
    unknown tags and documents too large or too deeply nested."""
    lines = text.splitlines()
    try:
        loader = _Loader(text)  # checks the characters of the whole text first
        try:
            composer = _Composer(loader, file, lines)
            root = composer.document()
        finally:
            loader.dispose()
    except yaml.reader.ReaderError as exc:
        raise RulesError([_reader_problem(exc, text, file, lines)]) from None
    except yaml.MarkedYAMLError as exc:
        raise RulesError([_yaml_problem(exc, file, lines, text)]) from None
    except yaml.YAMLError as exc:
        raise RulesError([Problem(f"YAML error: {exc}", Location(file), code="yaml_syntax")]) from None
    if root is None:
        raise RulesError([Problem("the file is empty", Location(file, 1, 1),
                                  "a rule file is a YAML mapping that starts with 'game: <name>'", code="empty_file")])
    if composer.problems:
        raise RulesError(composer.problems)
    return Document(root.value, file, composer.positions())


def _reader_problem(exc: yaml.reader.ReaderError, text: str, file: str, lines: list[str]) -> Problem:
    """A character YAML does not allow (a control character, U+FFFE...), at its line and column."""
    line, col = _line_col(text, exc.position)
    char = exc.character
    code = f"U+{char:04X}"
    what = f"a control character ({code})" if char < 0x20 or 0x7F <= char < 0xA0 else f"the character {code}"
    escape = f"\\x{char:02x}" if char <= 0xFF else f"\\u{char:04x}"
    source = _printable(lines[line - 1]) if line <= len(lines) else None
    return Problem(f"{what} is not allowed in a YAML file", Location(file, line, col),
                   f"remove it (is this a binary file?); a double-quoted string can hold it as the escape {escape}",
                   source, code="bad_text", fields={"character": code})


def _line_col(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of character `index`, with lines split as the Document's `lines` are."""
    before = (text[:index] + "x").splitlines()
    return len(before), len(before[-1])


def _printable(line: str) -> str:
    """A source line safe to print: characters YAML does not allow shown as U+FFFD (one column each)."""
    return yaml.reader.Reader.NON_PRINTABLE.sub("\ufffd", line)


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


# PyYAML's names of what it found where it did not expect it, in a rule-file author's words.
_TOKENS = {"?": "'?' (in YAML it starts a complex key: quote a value that begins with '?')",
           "<block sequence start>": "the start of a list", "<block mapping start>": "the start of a mapping",
           "<flow sequence start>": "'['", "<flow mapping start>": "'{'", "<anchor>": "an anchor ('&')",
           "<alias>": "an alias ('*')", "<tag>": "a tag ('!')", "<block end>": "the end of a block",
           "<document start>": "'---'", "<document end>": "'...'", "<stream end>": "the end of the file"}


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
                   }.get(found, f"YAML syntax: unexpected {_TOKENS.get(found, repr(found))}")
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
    elif isinstance(exc, _DuplicateAnchor) and mark and opened:
        name = exc.anchor
        message = f"YAML syntax: the anchor '&{name}' is defined twice (first at line {opened.line + 1})"
        hint = "give each anchor its own name"
    elif problem.startswith("found undefined alias"):
        message = f"YAML syntax: {problem} (a value starting with '*' is an alias)"
        hint = "quote values that start with '*', '&' or '!'"
    at = at or mark
    if at is None:
        return Problem(message, Location(file), hint, code="yaml_syntax")
    line = lines[at.line] if at.line < len(lines) else None
    return Problem(message, Location(file, at.line + 1, at.column + 1), hint, line, code="yaml_syntax")


def load_file(path: str | Path, display: str | None = None) -> Document:
    """Read and parse a YAML file; a missing, unreadable, oversized or non-UTF-8 file is a RulesError too."""
    return load_bytes(read_bytes(path, display), display or str(path))


def read_bytes(path: str | Path, display: str | None = None) -> bytes:
    """A rule file's bytes, never more than one past the size limit (load_bytes reports a file too large)."""
    path = Path(path)
    name = display or str(path)
    try:
        with path.open("rb") as stream:
            return stream.read(MAX_FILE_BYTES + 1)  # never more: the path may be a device or a huge file
    except FileNotFoundError:
        raise RulesError([Problem(f"no such file: {path}", Location(name),
                                  "check the path; bundled games are listed by 'rulesdsl games'",
                                  code="file_unreadable", fields={"path": str(path)})]) from None
    except OSError as exc:
        raise RulesError([Problem(f"cannot read {path}: {exc.strerror or exc}", Location(name),
                                  code="file_unreadable", fields={"path": str(path)})]) from None


def load_bytes(data: bytes, name: str) -> Document:
    """Parse a rule file's bytes (`name`: where problems are located); too large or not UTF-8 is a RulesError."""
    if len(data) > MAX_FILE_BYTES:
        kept = data[:MAX_FILE_BYTES].decode("utf-8", "replace")
        line, col = _line_col(kept, len(kept))
        raise RulesError([Problem(f"the file is larger than {MAX_FILE_BYTES:,} bytes", Location(name, line, col),
                                  "rule files are far smaller (the bundled games are under 20 kB): is this the "
                                  "right file?", code="limit_exceeded", fields={"limit": "MAX_FILE_BYTES"})])
    return load_text(_decode(data, name), name)


def _decode(data: bytes, file: str) -> str:
    """The file's text; bytes that are not UTF-8 are a problem located at the first of them."""
    try:
        return data.decode("utf-8")  # a BOM stays, as U+FEFF, which YAML skips
    except UnicodeDecodeError as exc:
        before = data[:exc.start].decode("utf-8")  # valid: the error is the first bad byte
        line, col = _line_col(before, len(before))
        source = _printable(data.decode("utf-8", "replace").splitlines()[line - 1])
        raise RulesError([Problem(f"the file is not valid UTF-8 (byte 0x{data[exc.start]:02X} here)",
                                  Location(file, line, col),
                                  "rule files are UTF-8 text: save the file as UTF-8 in your editor, or remove the "
                                  "byte (is this a binary file?)", source, code="bad_text",
                                  fields={"byte": data[exc.start]})]) from None


def _loc(file: str, mark) -> Location:
    return Location(file, mark.line + 1, mark.column + 1)


_CORE = "tag:yaml.org,2002:"
_SCALAR_TAGS = {_CORE + name for name in ("str", "int", "float", "bool", "null")}
_COLLECTION_TAGS = {yaml.SequenceStartEvent: _CORE + "seq", yaml.MappingStartEvent: _CORE + "map"}
_AS_TEXT = {_CORE + name for name in ("timestamp", "value", "merge")}  # implicit types that are not plain data
_MERGE = _CORE + "merge"
_KINDS = {_CORE + "seq": "a list", _CORE + "map": "a mapping"}
_WANTED = {_CORE + "int": "a whole number", _CORE + "float": "a number", _CORE + "bool": "true or false"}
_DISCARDED = (object(),)  # the path of a value read but not kept (its key is refused)


@dataclass
class _Node:
    """A node read to its end: its value, and what an alias of it or a mapping key needs to know."""

    value: object
    mark: object  # where its text starts (an alias: where its anchor's does)
    at: object  # where it occurs (an alias: the '*')
    path: Path_ | None  # None: a key
    style: str | None
    scalar: bool
    tag: str | None = None  # scalars: the resolved tag ('<<' as a key is a merge key)
    text: str | None = None  # scalars: the text itself ('yes' as a key means the word)
    size: int = 1  # nodes, aliases expanded
    height: int = 0  # levels of lists and mappings in it
    first: int = 0  # its own and its descendants' positions: _Composer.infos[first:last]
    last: int = 0


@dataclass
class _Open:
    """A list or mapping whose items are still being read."""

    node: _Node
    anchor: str | None
    count: int  # the node count before it opened
    has_key: bool = False  # mappings: a key is read, its value comes next
    name: object = None  # that key (None: refused, its value is read but not kept)
    key_loc: Location | None = None
    keys: dict = field(default_factory=dict)  # mappings: where each kept key was written


class _Composer:
    """Builds plain data and node positions from PyYAML's event stream, one event at a time (no recursion).

    It refuses, as it reads, what would make loading slow or unsafe: more than MAX_YAML_NODES nodes (an
    alias counts as all it copies, so an alias bomb stops before it expands), nesting deeper than
    MAX_YAML_DEPTH, and tags other than the plain YAML types (no Python object is ever constructed).
    """

    def __init__(self, loader: _Loader, file: str, lines: list[str]):
        self.loader, self.file, self.lines = loader, file, lines
        self.count = 0
        self.stack: list[_Open] = []
        self.anchors: dict[str, _Node] = {}
        self.open_anchors: dict[str, object] = {}  # anchor -> its mark, while its node is being read
        self.infos: list[tuple[Path_, NodeInfo]] = []  # every node's position, in reading order
        self.problems: list[Problem] = []

    def document(self) -> _Node | None:
        """The single document of the stream (None when there is none), as PyYAML's get_single_node."""
        self.loader.get_event()  # stream start
        root = None
        if not self.loader.check_event(yaml.StreamEndEvent):
            self.loader.get_event()  # document start
            root = self.node()
            self.loader.get_event()  # document end
        if not self.loader.check_event(yaml.StreamEndEvent):
            event = self.loader.get_event()
            raise yaml.composer.ComposerError("expected a single document in the stream", root.at,
                                              "but found another document", event.start_mark)
        return root

    def positions(self) -> dict[Path_, NodeInfo]:
        """The position of every node kept in the document, by path."""
        return {path: info for path, info in self.infos if path[:1] != _DISCARDED}

    def node(self) -> _Node:
        """Read one node and everything inside it."""
        while True:
            event = self.loader.get_event()
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                self.open(event)
                continue
            if isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                done = self.close()
            elif isinstance(event, yaml.AliasEvent):
                done = self.alias(event)
            else:
                done = self.scalar(event)
            if not self.stack:
                return done
            self.add(done)

    def slot(self) -> tuple[Path_ | None, Location | None]:
        """The path of the next node (None: a key, or in one) and the location of the key that introduces it."""
        if not self.stack:
            return (), None
        top = self.stack[-1]
        if top.node.path is None or isinstance(top.node.value, dict) and not top.has_key:
            return None, None
        if isinstance(top.node.value, list):
            return top.node.path + (len(top.node.value),), None
        return (_DISCARDED if top.name is None else top.node.path + (top.name,)), top.key_loc

    def open(self, event) -> None:
        """Start a list or mapping."""
        path, key_loc = self.slot()
        self.tally(1, event)
        if len(self.stack) >= MAX_YAML_DEPTH:
            raise RulesError([self.too_deep(event, "lists and mappings are nested")])
        if event.tag not in (None, "!"):
            self.check_tag(event, event.tag)
        value = [] if isinstance(event, yaml.SequenceStartEvent) else {}
        node = _Node(value, event.start_mark, event.start_mark, path, None, False, first=len(self.infos))
        self.record(path, node, key_loc)
        self.name(event)
        self.stack.append(_Open(node, event.anchor, self.count - 1))

    def close(self) -> _Node:
        """End the innermost list or mapping."""
        top = self.stack.pop()
        node = top.node
        node.size, node.height, node.last = self.count - top.count, node.height + 1, len(self.infos)
        if top.anchor is not None:
            del self.open_anchors[top.anchor]
            self.anchors[top.anchor] = node
        return node

    def scalar(self, event) -> _Node:
        """A single value, constructed only as one of the plain YAML types."""
        path, key_loc = self.slot()
        self.tally(1, event)
        self.name(event)
        tag, explicit = event.tag, True
        if tag is None or tag == "!":
            tag, explicit = self.loader.resolve(yaml.ScalarNode, event.value, event.implicit), False
        ok = self.check_tag(event, tag) if explicit else tag not in _AS_TEXT
        value = self.construct(tag, event, explicit) if ok else event.value
        node = _Node(value, event.start_mark, event.start_mark, path, event.style, True, tag, event.value,
                     first=len(self.infos))
        self.record(path, node, key_loc)
        node.last = len(self.infos)
        if event.anchor is not None:
            self.anchors[event.anchor] = node
        return node

    def alias(self, event) -> _Node:
        """A copy of an anchored node, counted as every node it copies."""
        path, key_loc = self.slot()
        if event.anchor in self.open_anchors:
            raise RulesError([Problem(f"the alias '*{event.anchor}' is inside its own anchor '&{event.anchor}'",
                                      _loc(self.file, event.start_mark),
                                      "an alias copies a finished value: it cannot contain itself",
                                      code="yaml_unsupported")])
        source = self.anchors.get(event.anchor)
        if source is None:
            raise yaml.composer.ComposerError(None, None, f"found undefined alias {event.anchor!r}",
                                              event.start_mark)
        self.tally(source.size, event)
        if len(self.stack) + source.height > MAX_YAML_DEPTH:
            raise RulesError([self.too_deep(event, "this alias nests lists and mappings")])
        node = _Node(copy.deepcopy(source.value), source.mark, event.start_mark, path, source.style,
                     source.scalar, source.tag, source.text, source.size, source.height, len(self.infos))
        self.record(path, node, key_loc)
        if path is not None and source.path is not None:  # the positions inside it, moved to the alias's path
            cut = len(source.path)
            self.infos.extend((path + p[cut:], info) for p, info in self.infos[source.first + 1: source.last])
        node.last = len(self.infos)
        return node

    def add(self, done: _Node) -> None:
        """Put a finished node into the innermost list or mapping."""
        top = self.stack[-1]
        top.node.height = max(top.node.height, done.height)
        container = top.node.value
        if isinstance(container, list):
            container.append(done.value)
        elif not top.has_key:
            top.has_key, top.key_loc = True, _loc(self.file, done.at)
            top.name = self.key_name(top, done)
        else:
            if top.name is not None:
                container[top.name], top.keys[top.name] = done.value, top.key_loc
            top.has_key = False

    def key_name(self, top: _Open, key: _Node):
        """The mapping key that node `key` stands for; None (and a problem) when it is refused."""
        kloc = top.key_loc
        problem = None
        name = key.text if isinstance(key.value, bool) or key.value is None else key.value
        if not key.scalar:
            problem = Problem("mapping keys must be plain scalars", kloc, code="yaml_unsupported")
        elif key.tag == _MERGE:
            problem = Problem("YAML merge keys ('<<') are not supported", kloc,
                              "use a variant or an overlay file ('extends:') to share parts", code="yaml_unsupported")
        elif name in top.keys:  # 'yes', 'no', 'null' as keys mean the words themselves
            line = self.lines[kloc.line - 1] if kloc.line <= len(self.lines) else None
            problem = Problem(f"duplicate key '{name}' (first defined at line {top.keys[name].line})", kloc,
                              "remove one of the two entries; YAML would silently keep the last", line, len(str(name)),
                              code="duplicate_key", fields={"key": name, "first_line": top.keys[name].line})
        if problem is None:
            return name
        self.problems.append(problem)
        return None

    def record(self, path: Path_ | None, node: _Node, key_loc: Location | None) -> None:
        """Note where the node at `path` came from (keys are not nodes of the document)."""
        if path is not None:
            self.infos.append((path, NodeInfo(_loc(self.file, node.mark), key_loc, node.style, self.lines)))

    def name(self, event) -> None:
        """Register the event's anchor, refusing one defined twice (as PyYAML does)."""
        anchor = event.anchor
        if anchor is None:
            return
        first = self.open_anchors.get(anchor) or (self.anchors[anchor].mark if anchor in self.anchors else None)
        if first is not None:
            raise _DuplicateAnchor(anchor, first, event.start_mark)
        if not isinstance(event, yaml.ScalarEvent):
            self.open_anchors[anchor] = event.start_mark

    def tally(self, nodes: int, event) -> None:
        """Count nodes, refusing the document once it grows beyond MAX_YAML_NODES."""
        self.count += nodes
        if self.count <= MAX_YAML_NODES:
            return
        alias = isinstance(event, yaml.AliasEvent)
        message = (f"the alias '*{event.anchor}' makes the document too large" if alias else
                   "the document is too large") + f": more than {MAX_YAML_NODES:,} values, lists and mappings"
        hint = ("an alias copies everything under its anchor, and aliases of aliases multiply; a rule file needs "
                "far fewer values (the bundled games have under 1,000): write them out, or use fewer aliases"
                if alias else "rule files are far smaller (the bundled games have under 1,000 values): is this "
                              "the right file?")
        raise RulesError([Problem(message, _loc(self.file, event.start_mark), hint, code="limit_exceeded",
                                  fields={"limit": "MAX_YAML_NODES"})])

    def too_deep(self, event, what: str) -> Problem:
        """The problem of a node nested deeper than MAX_YAML_DEPTH."""
        return Problem(f"{what} more than {MAX_YAML_DEPTH} levels deep", _loc(self.file, event.start_mark),
                       "rule files nest only a few levels (the bundled games at most 11): look for a '[' or '{' "
                       "that is never closed, or for aliases inside aliases", code="limit_exceeded",
                       fields={"limit": "MAX_YAML_DEPTH"})

    def check_tag(self, event, tag: str) -> bool:
        """True when an explicit tag is one of the plain YAML types of the node's kind; else a problem."""
        allowed = _SCALAR_TAGS if isinstance(event, yaml.ScalarEvent) else {_COLLECTION_TAGS[type(event)]}
        if tag in allowed:
            return True
        shown = "!!" + tag[len(_CORE):] if tag.startswith(_CORE) else tag
        if tag in _KINDS or tag in _SCALAR_TAGS:
            kind = "a single value" if isinstance(event, yaml.ScalarEvent) else \
                _KINDS[_COLLECTION_TAGS[type(event)]]
            message = f"the YAML tag '{shown}' cannot be used on {kind}"
        else:
            message = f"unknown YAML tag '{shown}'"
        self.problems.append(Problem(message, _loc(self.file, event.start_mark),
                                     "a rule file holds only text, numbers, true/false, lists and mappings, which "
                                     "need no tag: remove it (quote a value that starts with '!')",
                                     code="yaml_unsupported", fields={"tag": shown}))
        return False

    def construct(self, tag: str, event, explicit: bool):
        """The Python value of a scalar of a plain type (str, int, float, bool, None)."""
        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
        try:
            value = self.loader.yaml_constructors[tag](self.loader, node)
            if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:  # 0x... has no digit limit
                raise ValueError("too large")
            return value
        except (ValueError, KeyError, yaml.YAMLError):  # '!!int abc', or an integer of 5,000 digits
            shown = event.value if len(event.value) <= 40 else event.value[:37] + "..."
            self.problems.append(Problem(f"'{shown}' cannot be read as {_WANTED.get(tag, tag)}",
                                         _loc(self.file, event.start_mark),
                                         "remove the tag" if explicit else "quote it to keep it as text",
                                         code="bad_value", fields={"text": event.value, "tag": tag}))
            return event.value
