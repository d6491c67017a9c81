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
    if info.style in ("|", ">"):
        before = value[:offset]
        line_index = before.count("\n")
        col_in_line = offset - (before.rfind("\n") + 1)
        content_line = loc.line + 1 + line_index  # block content starts on the line after the indicator
        indent = 0
        if 0 < content_line <= len(info.lines):
            text = info.lines[content_line - 1]
            indent = len(text) - len(text.lstrip(" "))
        return Location(loc.file, content_line, indent + col_in_line + 1)
    shift = 1 if info.style in ("'", '"') else 0
    if "\n" in value[:offset]:  # a folded multi-line flow scalar: point at its start
        return loc
    return Location(loc.file, loc.line, loc.col + shift + offset)


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
        mark = exc.problem_mark or exc.context_mark
        loc = Location(file, mark.line + 1, mark.column + 1) if mark else Location(file)
        line = lines[mark.line] if mark and mark.line < len(lines) else None
        message = f"YAML syntax: {exc.problem or exc.context}"
        hint = "check indentation, quoting and ':' after keys; quote strings that contain ': ' or start with '{' '[' '*' '&'"
        raise RulesError([Problem(message, loc, hint, line)]) from None
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
