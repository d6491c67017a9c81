"""Generated functions as plain data (statements whose leaves are Python expressions), and their Python source."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Iterator, Union

# Nodes are frozen, so that one may be shared by several functions (a move's lets are in most of its functions).
# The leaves of this form are expressions as the expression compiler writes them, with every operation in
# brackets: so a leaf may stand as an operand (`not {test}`, `x in {iterable}`) as it is.
# Fields of these names hold such expressions (the walks below find them by name, so keep to them).
_EXPRESSION_FIELDS = ("value", "test", "iterable", "code")
_INDENT = "    "
# A statement: one of the node classes below (a Function holds a list of them).
Stmt = Union["Assign", "Effect", "Return", "Yield", "Append", "Continue", "Break", "Comment", "Guard", "If", "For",
             "Try"]


@dataclass(frozen=True)
class Assign:
    """`target = value`: a local name that the statements after it read (a move's let, a table looked up)."""

    target: str
    value: str


@dataclass(frozen=True)
class Effect:
    """One statement as the expression compiler wrote it (a call, an assignment to the state): opaque here.
    `where` is where the rule file writes it (a path in the document), for errors raised while it runs."""

    code: str
    where: tuple | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Return:
    """Leave the function, with `value` (None: a bare return)."""

    value: str | None = None


@dataclass(frozen=True)
class Yield:
    """Give `value` to the caller and go on (the function is a generator)."""

    value: str


@dataclass(frozen=True)
class Append:
    """Add `value` to the list the function is given as its parameter `out`."""

    value: str


@dataclass(frozen=True)
class Continue:
    """On to the next value of the innermost loop."""


@dataclass(frozen=True)
class Break:
    """Out of the innermost loop, skipping its `orelse`."""


@dataclass(frozen=True)
class Comment:
    """A line for the reader of the generated code; it does nothing."""

    text: str


@dataclass(frozen=True)
class Guard:
    """Go on with the statements after this one only when `test` holds; else leave by `exit` (a Continue to
    the next value of the loop it is in, a Break out of it, or a Return)."""

    test: str
    exit: Continue | Break | Return
    where: tuple | None = field(default=None, compare=False)  # where the rule file writes the test


@dataclass(frozen=True)
class If:
    """Run `body` when `test` holds, else `orelse` (which may be one more If: an elif)."""

    test: str
    body: list[Stmt]
    orelse: list[Stmt] = field(default_factory=list)
    where: tuple | None = field(default=None, compare=False)  # where the rule file writes the test


@dataclass(frozen=True)
class For:
    """Run `body` once for each value of `iterable`, bound to `names` (several names unpack each value); then
    `orelse`, unless a Break left the loop."""

    names: tuple[str, ...]
    iterable: str
    body: list[Stmt]
    orelse: list[Stmt] = field(default_factory=list)
    where: tuple | None = field(default=None, compare=False)  # where the rule file writes the loop's head


@dataclass(frozen=True)
class Try:
    """Run `body`; if it raises `catch` (the name of an exception class), run `handler` instead."""

    body: list[Stmt]
    catch: str
    handler: list[Stmt]


@dataclass(frozen=True)
class Function:
    """A generated function: its name, its parameters (a default written 'name=None'), its statements."""

    name: str
    params: tuple[str, ...]
    body: list[Stmt]


def walk(stmts: list[Stmt]) -> Iterator:
    """Every statement in `stmts` and in the blocks nested in them (a Guard's exit included), outermost first."""
    for stmt in stmts:
        yield stmt
        for f in fields(stmt):
            value = getattr(stmt, f.name)
            if isinstance(value, list):
                yield from walk(value)
            elif is_dataclass(value):
                yield from walk([value])


def expressions(stmts: list[Stmt]) -> Iterator[str]:
    """Every expression leaf of `stmts`, nested blocks included."""
    for stmt in walk(stmts):
        for name in _EXPRESSION_FIELDS:
            value = getattr(stmt, name, None)
            if isinstance(value, str):
                yield value


def render(fn: Function, places: dict | None = None) -> str:
    """The Python source of a generated function; `places`, if given, is filled with line number -> `where` of
    each line that runs a statement with a `where` (an Effect, the test of an If, the head of a For)."""
    lines = [f"def {fn.name}({', '.join(fn.params)}):"]
    if any(isinstance(stmt, Append) for stmt in walk(fn.body)):
        lines.append(_INDENT + "append = out.append  # the method looked up once, not once per item")
    _block(fn.body, 1, lines, {} if places is None else places)
    return "\n".join(lines) + "\n"


def _simple(stmt) -> str | None:
    """The text of a statement that holds no block, else None."""
    if isinstance(stmt, Assign):
        return f"{stmt.target} = {stmt.value}"
    if isinstance(stmt, Effect):
        return stmt.code
    if isinstance(stmt, Return):
        return "return" if stmt.value is None else f"return {stmt.value}"
    if isinstance(stmt, Yield):
        return f"yield {stmt.value}"
    if isinstance(stmt, Append):
        return f"append({stmt.value})"
    if isinstance(stmt, Continue):
        return "continue"
    if isinstance(stmt, Break):
        return "break"
    if isinstance(stmt, Comment):
        return f"# {stmt.text}"
    if isinstance(stmt, Guard):
        return f"if not {stmt.test}: {_simple(stmt.exit)}"
    return None


def _block(stmts: list[Stmt], depth: int, lines: list[str], places: dict) -> None:
    pad = _INDENT * depth
    for stmt in stmts:
        if getattr(stmt, "where", None) is not None:
            places[len(lines) + 1] = stmt.where  # the line about to be added
        text = _simple(stmt)
        if text is not None:
            lines.append(pad + text)
        elif isinstance(stmt, If):
            _if(stmt, depth, lines, "if", places)
        elif isinstance(stmt, For):
            lines.append(f"{pad}for {', '.join(stmt.names)} in {stmt.iterable}:")
            _block(stmt.body, depth + 1, lines, places)
            if stmt.orelse:
                lines.append(pad + "else:")
                _block(stmt.orelse, depth + 1, lines, places)
        elif isinstance(stmt, Try):
            lines.append(pad + "try:")
            _block(stmt.body, depth + 1, lines, places)
            lines.append(f"{pad}except {stmt.catch}:")
            _block(stmt.handler, depth + 1, lines, places)
        else:
            raise TypeError(f"not a statement: {stmt!r}")
    if all(isinstance(stmt, Comment) for stmt in stmts):
        lines.append(pad + "pass")


def _if(stmt: If, depth: int, lines: list[str], keyword: str, places: dict) -> None:
    pad = _INDENT * depth
    jump = _simple(stmt.body[0]) if len(stmt.body) == 1 and isinstance(stmt.body[0], (Return, Continue, Break)) \
        else None
    if jump is not None and not stmt.orelse:  # a test that leaves reads best on one line, as a Guard does
        lines.append(f"{pad}{keyword} {stmt.test}: {jump}")
        return
    lines.append(f"{pad}{keyword} {stmt.test}:")
    _block(stmt.body, depth + 1, lines, places)
    if len(stmt.orelse) == 1 and isinstance(stmt.orelse[0], If):
        if stmt.orelse[0].where is not None:
            places[len(lines) + 1] = stmt.orelse[0].where
        _if(stmt.orelse[0], depth, lines, "elif", places)
    elif stmt.orelse:
        lines.append(pad + "else:")
        _block(stmt.orelse, depth + 1, lines, places)


def outline(node, depth: int = 0) -> list[str]:
    """The form itself as indented lines, one a node (`rulesdsl compile --show RULE --ir`)."""
    pad = "  " * depth
    blocks = [f for f in fields(node) if isinstance(getattr(node, f.name), list)]
    scalars = ", ".join(f"{f.name}={getattr(node, f.name)!r}" for f in fields(node)
                        if f not in blocks and f.name != "where")  # where: for errors, not the reader
    lines = [f"{pad}{type(node).__name__}({scalars})"]
    named = sum(1 for f in blocks if getattr(node, f.name)) > 1  # name the blocks where several hold some
    for f in blocks:
        children = getattr(node, f.name)
        if named and children:
            lines.append(f"{pad}  {f.name}:")
        for child in children:
            lines += outline(child, depth + 1 + named)
    return lines
