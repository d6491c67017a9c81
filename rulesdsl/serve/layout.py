"""Where each cell of a board is drawn: the file's `render: at`, grid coordinates, the rows, a ring of links."""

from __future__ import annotations

import math

from ..model.game import Rules

GRID, ROWS, RING, LINE = "grid", "rows", "ring", "line"  # how a layout was found (told in the scene)


def cell_places(rules: Rules) -> tuple[list[tuple[float, float]], str]:
    """Each cell's (x, y), y downward, the nearest two cells one unit apart; and how they were found.

    In order: the file's `render: at` (a point per cell), grid coordinates when every cell has them, the
    file's `render: rows` (one line each, top to bottom), the longest cycle along one of the board's links
    (a track, drawn as a ring, with the other cells in a line below), else the cells in index order."""
    cells = rules.board.cells
    if rules.render_at is not None:
        points, how = [(x, -y) for x, y in rules.render_at], "at"
    elif cells and all(hasattr(c, "x") and hasattr(c, "y") for c in cells) and \
            all(isinstance(getattr(c, a), int) for c in cells for a in ("x", "y")):
        points, how = [(c.x, -c.y) for c in cells], GRID
    elif rules.render_rows:
        points, how = _rows(rules), ROWS
    else:
        ring = _longest_cycle(rules)
        points, how = (_ring(len(cells), ring), RING) if len(ring) >= 3 else (_wrapped(range(len(cells)), 0), LINE)
    return _normalised(points), how


def _rows(rules: Rules) -> list:
    points = [None] * len(rules.board.cells)
    for y, (_, row) in enumerate(rules.render_rows):
        for x, cell in enumerate(row):
            if points[cell] is None:
                points[cell] = (x, y)
    rest = [c for c, p in enumerate(points) if p is None]
    for c, point in zip(rest, _wrapped(rest, len(rules.render_rows) + 1)):
        points[c] = point
    return points


def _wrapped(indices, top: int) -> list:
    """Points for cells in lines of at most 12, from row `top` down."""
    return [(i % 12, top + i // 12) for i, _ in enumerate(indices)]


def _longest_cycle(rules: Rules) -> list[int]:
    """The longest cycle found by following one table of one link from each cell (a track's loop), or []."""
    best: list[int] = []
    for tables in rules.board.links.values():
        for table in tables.values():
            seen_in: dict[int, int] = {}
            for start in range(len(table)):
                if start in seen_in:
                    continue
                path, at = [], start
                while at is not None and at not in seen_in:
                    seen_in[at] = start
                    path.append(at)
                    target = table[at]
                    at = None if target is None else int(target)
                if at is not None and seen_in[at] == start:  # the walk closed a loop of its own
                    cycle = path[path.index(at):]
                    if len(cycle) > len(best):
                        best = cycle
    return best


def _ring(count: int, ring: list[int]) -> list:
    """The ring's cells on a circle one unit apart (clockwise from the top), the others in lines below."""
    radius = len(ring) / (2 * math.pi)
    points = [None] * count
    for i, cell in enumerate(ring):
        angle = 2 * math.pi * i / len(ring)
        points[cell] = (radius + radius * math.sin(angle), radius - radius * math.cos(angle))
    rest = [c for c in range(count) if points[c] is None]
    for c, point in zip(rest, _wrapped(rest, math.ceil(2 * radius) + 2)):
        points[c] = point
    return points


def _normalised(points: list) -> list[tuple[float, float]]:
    """The points scaled so the nearest two are one unit apart, moved so the smallest x and y are 0."""
    if not points:
        return []
    nearest = _nearest_distance(points)
    nearest = nearest if 0 < nearest < math.inf else 1.0
    left, top = min(x for x, _ in points), min(y for _, y in points)
    return [(round((x - left) / nearest, 3), round((y - top) / nearest, 3)) for x, y in points]


def _nearest_distance(points: list) -> float:
    """The smallest distance between two points (0 when two coincide): a first guess from neighbours in x
    and in y order, then checked exactly over buckets of that size (quick even for ten thousand cells)."""
    guess = math.inf
    for ordered in (sorted(points), sorted(points, key=lambda p: (p[1], p[0]))):
        for i in range(len(ordered) - 1):
            for other in ordered[i + 1:i + 4]:
                guess = min(guess, math.dist(ordered[i], other))
    if guess in (0.0, math.inf):
        return 0.0 if guess == 0.0 else guess
    buckets: dict = {}
    for x, y in points:
        buckets.setdefault((math.floor(x / guess), math.floor(y / guess)), []).append((x, y))
    best = guess
    for (bx, by), inside in buckets.items():
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for a in inside:
                    for b in buckets.get((bx + dx, by + dy), ()):
                        if a < b:
                            best = min(best, math.dist(a, b))
    return best
