"""The code blocks of the Markdown documentation: found with their markers, and the console output they print
compared with what their commands print now.

A block is the text between a fence line (```python, ```console, ```yaml...) and the next closing fence. A marker is
an HTML comment `<!-- snippet: ... -->` on the last non-blank line before a block; readers do not see it:

* `<!-- snippet: not run, REASON -->`: the block cannot run on its own (it needs a cluster, a network...); the
  tests list it as skipped, with the reason.
* `<!-- snippet: only locations compared, REASON -->`: a console block whose commands are run (each must succeed)
  but whose output is not compared line for line (profile times differ on every run); each location `FILE:LINE`
  it shows must be one the command prints.
* `<!-- snippet: FILE edited: "OLD" -> "NEW" -->`: a console block run on the file built so far (see below) with
  the text OLD replaced by NEW (a mistake the text asks the reader to make).

A file built by the text: a paragraph that says "Create `NAME`:" right before a ```yaml block starts the file
NAME; every later ```yaml block up to the next top-level heading (`# `) is added to it as the tutorial says: a
top-level key the file already has is replaced where it stands, the block's other keys are added at the end. The
console blocks in between run on the file as built up to them.

A console command is a line `$ rulesdsl ARGS` (a `# comment` after it is ignored); the lines after it up to the
next `$ ` line are what it prints. A command shown without output is not run (an interactive game, a game shown
move by move). Output is compared line for line after this normalisation, the same on both sides:

* trailing spaces of each line and blank lines at the end are ignored;
* durations with a decimal point (`15.08 s`) and rates (`33 games/s`) are not compared;
* the path of the folder the command runs in and of the repository are removed (paths print as relative);
* the lines a long run prints to show its progress when its output is not a terminal (`MARK: 120 of 600 games
  (20%), 5.1 s`) are dropped: on a terminal they are a bar that is erased when the run ends;
* a printed line `...` stands for any number of lines, none included.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*snippet:\s*(.*?)\s*-->\s*$")
CREATE = re.compile(r"Create `([^`]+)`:\s*$")
EDIT = re.compile(r'^(\S+) edited: "(.*)" -> "(.*)"$')
TOP_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:")
DURATION = re.compile(r"\b\d[\d,]*\.\d+ s\b")
RATE = re.compile(r"\b\d[\d,]*(\.\d+)? games/s\b")
PROGRESS = re.compile(r"^.+: [\d,]+ of [\d,]+ \w+s( \(\d+%\))?, \d+\.\d s$")
LOCATION = re.compile(r"[\w./-]+\.ya?ml:\d+")
ANY_LINES = "..."


@dataclass(frozen=True)
class Block:
    """A fenced code block of a Markdown file: its language, text (indent removed), line and marker."""

    doc: str  # the Markdown file, relative to the repository
    line: int  # the line of the opening fence
    lang: str
    text: str
    marker: str | None  # the text of the snippet marker before it, if any
    files: tuple[tuple[str, str], ...] = ()  # files built by the text so far: (name, text)

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"

    def skipped(self) -> str | None:
        """The reason given for not running the block, or None."""
        if self.marker and self.marker.startswith("not run"):
            return self.marker.removeprefix("not run").lstrip(", ") or "no reason given"
        return None


@dataclass(frozen=True)
class Command:
    """A `$ rulesdsl ...` line of a console block and the output printed under it."""

    argv: tuple[str, ...]
    line: str
    output: tuple[str, ...]


def blocks(root: Path, doc: str) -> list[Block]:
    """The fenced blocks of a Markdown file, each with its marker and the files the text has built before it."""
    lines = (root / doc).read_text(encoding="utf-8").splitlines()
    found, files, building, i = [], {}, None, 0
    while i < len(lines):
        if lines[i].startswith("# "):
            building = None  # a built file ends with its part of the text
        fence = FENCE.match(lines[i])
        if not fence or not fence.group(2):
            i += 1
            continue
        indent, lang, start = len(fence.group(1)), fence.group(2), i
        i += 1
        while i < len(lines) and not re.match(r"^\s*```\s*$", lines[i]):
            i += 1
        text = "\n".join(line[indent:] for line in lines[start + 1: i]) + "\n"
        before = _last_text_line(lines, start)
        marker = MARKER.match(before)
        if lang == "yaml":
            created = CREATE.search(before)
            if created:
                building = created.group(1)
                files[building] = text
            elif building is not None:
                files[building] = add_block(files[building], text)
        found.append(Block(doc, start + 1, lang, text, marker.group(1) if marker else None, tuple(files.items())))
        i += 1
    return found


def _last_text_line(lines: list[str], index: int) -> str:
    """The last non-blank line before lines[index]."""
    for line in reversed(lines[:index]):
        if line.strip():
            return line
    return ""


def _sections(text: str) -> list[tuple[str | None, list[str]]]:
    """A YAML file's top-level entries as (key, lines), comments before a key with it; (None, lines) for a text
    that ends in comments only."""
    sections, pending = [], []
    for line in text.splitlines():
        key = TOP_KEY.match(line)
        if key:
            sections.append((key.group(1), pending + [line]))
            pending = []
        elif sections and (not line.strip() or line[0].isspace()) and not pending:
            sections[-1][1].append(line)
        else:
            pending.append(line)
    if pending:
        sections.append((None, pending))
    return sections


def add_block(text: str, block: str) -> str:
    """`text` with a YAML block added: each top-level key the text already has is replaced where it stands (its
    lines up to the next top-level key), the block's other entries are added at the end after a blank line."""
    sections = _sections(text)
    added = []
    for key, lines in _sections(block):
        places = [n for n, (k, _) in enumerate(sections) if k is not None and k == key]
        if places:
            old = sections[places[0]][1]
            blank_after = len(old) - len(_trimmed(old))  # keep the blank lines that separated it from the next
            sections[places[0]] = (key, _trimmed(lines) + old[len(old) - blank_after:])
        else:
            added.extend(lines)
    kept = "\n".join(line for _, lines in sections for line in lines).rstrip("\n") + "\n"
    return kept + ("\n" + "\n".join(_trimmed(added)) + "\n" if added else "")


def _trimmed(lines: list[str]) -> list[str]:
    """Lines without the blank ones at the end."""
    end = len(lines)
    while end and not lines[end - 1].strip():
        end -= 1
    return lines[:end]


def commands(block: Block) -> list[Command]:
    """The `$ rulesdsl` commands of a console block, each with the lines printed under it."""
    found, current = [], None
    for line in block.text.splitlines():
        if line.startswith("$ "):
            current = None
            words = shlex.split(line[2:], comments=True)
            if words and words[0] == "rulesdsl":
                current = Command(tuple(words[1:]), line[2:].strip(), ())
                found.append(current)
        elif current is not None:
            current = Command(current.argv, current.line, current.output + (line,))
            found[-1] = current
    return found


def shown(command: Command) -> bool:
    """Whether the text shows what the command prints (else it is not run)."""
    return any(line.strip() for line in command.output)


def normalised(text: str, folders: list[str]) -> list[str]:
    """Output as it is compared (see the module's docstring)."""
    for folder in sorted(folders, key=len, reverse=True):
        text = text.replace(folder.rstrip("/") + "/", "")
    lines = []
    for line in text.splitlines():
        if not PROGRESS.match(line.rstrip()):
            lines.append(RATE.sub("N games/s", DURATION.sub("T s", line.rstrip())))
    return _trimmed(lines)


def matches(expected: list[str], actual: list[str]) -> bool:
    """Whether the printed lines `expected` (where `...` stands for any lines) are the lines `actual`."""
    # ways[i][j]: expected[i:] matches actual[j:]; filled from the end, so no recursion however long the output
    ways = [[False] * (len(actual) + 1) for _ in range(len(expected) + 1)]
    ways[len(expected)][len(actual)] = True
    for i in range(len(expected) - 1, -1, -1):
        for j in range(len(actual), -1, -1):
            if expected[i] == ANY_LINES:
                ways[i][j] = ways[i + 1][j] or (j < len(actual) and ways[i][j + 1])
            else:
                ways[i][j] = j < len(actual) and expected[i] == actual[j] and ways[i + 1][j + 1]
    return ways[0][0]


def edit(marker: str | None) -> tuple[str, str, str] | None:
    """(file, old, new) of an `edited` marker, or None."""
    found = EDIT.match(marker or "")
    return found.groups() if found else None


def known_marker(marker: str) -> bool:
    """Whether a marker is one of the three kinds the module's docstring lists, with its reason or edit."""
    return bool(re.match(r"^(not run|only locations compared), \S", marker) or EDIT.match(marker))


def locations(lines: list[str]) -> set[str]:
    """The `FILE:LINE` locations in lines of output."""
    return {m for line in lines for m in LOCATION.findall(line)}
