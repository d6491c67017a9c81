"""Board geometry, precomputed once: cells, directions, rays, links, regions and the lines used by pushes."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..limits import MAX_RAY_CELLS, LimitExceeded
from .values import Cell


class Region(tuple):
    """An ordered tuple of cells with constant-time membership tests."""

    def __new__(cls, cells):
        region = super().__new__(cls, cells)
        region._members = frozenset(region)
        return region

    def __contains__(self, item) -> bool:
        return item in self._members


@dataclass
class Board:
    """All cells of a game and the geometry between them; built by the model compiler."""

    cells: list = field(default_factory=list)  # Cell objects, index order
    by_name: dict = field(default_factory=dict)
    directions: dict = field(default_factory=dict)  # name -> (dx, dy)
    neighbours: dict = field(default_factory=dict)  # direction -> tuple(cell or None) indexed by cell
    rays: dict = field(default_factory=dict)  # direction -> tuple(tuple of cells) indexed by cell
    links: dict = field(default_factory=dict)  # link name -> {key: tuple(cell or None)}
    link_switches: dict = field(default_factory=dict)  # link name -> {key: tuple(key to continue with, or None)}
    regions: dict = field(default_factory=dict)  # name -> Region
    adjacency: tuple = ()  # per cell: tuple of neighbouring cells (for groups)
    lines: dict = field(default_factory=dict)  # (from, to) -> (path cells after from up to to, cells beyond): see line()

    def add_cell(self, name: str, /, **attributes) -> Cell:
        cell = Cell(len(self.cells), name, **attributes)
        self.cells.append(cell)
        self.by_name[name] = cell
        return cell

    def at_point(self, x: int, y: int):
        """The cell at grid coordinates (x, y), or None (worked out once, when first asked)."""
        points = self.__dict__.get("_points")
        if points is None:
            points = self._points = {(c.x, c.y): c for c in self.cells
                                     if getattr(c, "x", None) is not None and getattr(c, "y", None) is not None}
        return points.get((x, y))

    def lay_out_directions(self):
        """Precompute neighbours, rays and push lines along the directions (before attributes, regions and
        links are computed, so that they may use step() and ray())."""
        coords = {}
        for cell in self.cells:
            x, y = getattr(cell, "x", None), getattr(cell, "y", None)
            if x is not None and y is not None:
                coords[(x, y)] = cell
        n, total = len(self.cells), 0
        for name, (dx, dy) in self.directions.items():
            nb = [None] * n
            for cell in self.cells:
                if (getattr(cell, "x", None), getattr(cell, "y", None)) in coords and hasattr(cell, "x"):
                    nb[cell] = coords.get((cell.x + dx, cell.y + dy))
            self.neighbours[name] = tuple(nb)
            rays = []
            for cell in self.cells:
                ray, cur = [], nb[cell]
                while cur is not None and len(ray) <= n:
                    ray.append(cur)
                    cur = nb[cur]
                total += len(ray)
                if total > MAX_RAY_CELLS:
                    raise LimitExceeded(f"the rays of this board (every cell's line to the edge, in every "
                                        f"direction) would hold more than {MAX_RAY_CELLS:,} cells")
                rays.append(tuple(ray))
            self.rays[name] = tuple(rays)

    def line(self, frm, to):
        """(the cells from `frm` up to `to`, the cells beyond) when `to` lies in a straight line from `frm`,
        else None. Worked out when first asked (a table of every pair would grow with the square of a ray)."""
        key = (frm, to)
        try:
            return self.lines[key]
        except KeyError:
            pass
        found = None
        for rays in self.rays.values():  # the last direction that reaches it, as the table always held
            ray = rays[frm]
            if to in ray:
                k = ray.index(to)
                found = (ray[: k + 1], ray[k + 1:])
        if len(self.lines) < 1 << 16:
            self.lines[key] = found
        return found

    def finish_geometry(self, adjacency_directions=None):
        """Precompute the adjacency used by groups (along the given directions, or else along the links)."""
        names = list(adjacency_directions or self.directions)
        adjacent = [set(self.neighbours[d][c] for d in names) - {None} for c in self.cells]
        if not names:  # boards without directions connect along their links, both ways
            for table in (t for links in self.links.values() for t in links.values()):
                for cell, target in zip(self.cells, table):
                    if target is not None:
                        adjacent[cell].add(target)
                        adjacent[target].add(cell)
        self.adjacency = tuple(tuple(sorted(a)) for a in adjacent)
