"""Built-ins of board geometry: cells by name, what stands on them, neighbours, rays, groups and lines."""

from __future__ import annotations

from ...lang.builtins import RuleValueError, refused
from ...lang.declare import builtin
from ..values import Cell, text_of
from .places import is_cell


@builtin("board", fold=True)
def cell(g, name: "text | int", y: "int | none" = None) -> "cell | none_with(y)":
    """The cell with this name; cell(x, y): the cell at those grid coordinates, or none where the board has none."""
    if y is not None:
        if name.__class__ is not int or y.__class__ is not int:
            raise RuleValueError(f"cell(x, y): the coordinates should be whole numbers, not {text_of(name)[:20]} and "
                                 f"{text_of(y)[:20]}")
        return g.board.at_point(name, y)
    if isinstance(name, Cell):
        return name
    try:
        return g.board.by_name[str(name)]
    except KeyError:
        raise RuleValueError(f"no cell named '{name}'") from None


@builtin("board", inline="_cells[{0}]", reads="cells")
def at(S, c: "cell") -> "piece | none":
    """The piece on cell c, or none."""
    return S.cells[c]


@builtin("board", inline="_cells[{0}] is None", reads="cells")
def empty(S, c: "cell") -> "bool":
    """True when no piece stands on cell c."""
    return S.cells[c] is None


@builtin("board", fold=True)
def step_(g, c: "cell | none", direction: "text | none") -> "cell | none":
    """The neighbour of c in a direction, or none."""
    return None if c is None or direction is None else _along("step", g.board.neighbours, c, direction)


@builtin("board", fold=True)
def ray(g, c: "cell | none", direction: "text | none") -> "tuple[cell]":
    """The cells from c (exclusive) in a direction up to the edge of the board."""
    return () if c is None or direction is None else _along("ray", g.board.rays, c, direction)


def _along(name: str, tables: dict, c, direction):
    """The entry for cell c in the board's table for a direction (neighbours or rays)."""
    try:
        return tables[direction][c]
    except KeyError:
        raise RuleValueError(f"unknown direction '{direction}'") from None
    except (TypeError, IndexError) as exc:  # c is no cell (or the direction a list)
        raise refused(name, exc) from None


@builtin("board", fold=True)
def groups(g, cells: "list | tuple | range | text | table") -> "list":
    """The connected groups among these cells (board adjacency)."""
    adjacency = g.board.adjacency
    seen, result = set(), []
    try:
        members = set(cells)
        for start in cells:
            if start in seen:
                continue
            seen.add(start)
            group, stack = [start], [start]
            while stack:
                for nb in adjacency[stack.pop()]:
                    if nb in members and nb not in seen:
                        seen.add(nb)
                        group.append(nb)
                        stack.append(nb)
            result.append(group)
    except (TypeError, IndexError) as exc:  # not a collection of cells
        raise refused("groups", exc) from None
    return result


@builtin("board", fold=True, shown={"directions": "all"})
def lines(g, length: "int", directions=None, through=None) -> "list[tuple[cell]]":
    """Every straight line of `length` cells along the directions (a name or a list); for n-in-a-row goals.
    Opposite directions give each line twice: list one of each pair. `through`: only the lines that hold
    this cell (the one just played, say), looked up in a table made once."""
    board = g.board
    names = board.directions if directions is None else [directions] if isinstance(directions, str) \
        else directions
    try:
        key = (length, tuple(names))
        found = g.lines.get(key)
    except TypeError as exc:  # a length or directions that cannot be a key (a list): not a number, no names
        raise refused("lines", exc) from None
    if found is None:
        found = _lines(board, length, names)
        if len(g.lines) >= 64:  # lengths worked out in play: keep memory bounded
            g.lines.clear()
        g.lines[key] = found
    every, by_cell = found
    if through is None:
        return list(every)
    if not is_cell(through):
        raise RuleValueError(f"lines(): through= should be a cell, not {text_of(through)[:40]}")
    return list(by_cell.get(through, ()))


def _lines(board, length, names) -> tuple[list, dict]:
    """The lines of `length` cells along the directions `names`, and the lines through each cell."""
    every, by_cell = [], {}
    try:
        for d in names:
            if d not in board.rays:
                raise RuleValueError(f"unknown direction '{d}'")
            for c in board.cells:
                ray = board.rays[d][c]
                if len(ray) >= length - 1:
                    every.append((c,) + ray[: length - 1])
    except TypeError as exc:  # a length that is no number, directions that are no list of names
        raise refused("lines", exc) from None
    for line in every:
        for c in line:
            by_cell.setdefault(c, []).append(line)
    return every, by_cell


@builtin("board", fold=True)
def group_sizes(g, cells: "list | tuple | range | text | table") -> "list[int]":
    """Sizes of the connected groups among these cells, largest first."""
    return sorted((len(group) for group in groups(g, cells)), reverse=True)
