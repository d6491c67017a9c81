"""cell(x, y) printed for compiled code (a mixin of printer.Printer): the cell at grid coordinates, or none (-1)
where the board has none, read from a table of the board's coordinates made at load (model/board.py at_point)."""

from __future__ import annotations

_MOST = 1 << 20  # the most entries the table of coordinates may have: sparser coordinates are not taken


class Coordinates:
    """Built-ins (`b_<name>(node, env) -> (code, rep)`) as in printer.Printer."""

    def b_cell(self, node, env):
        if len(node.args) != 2 or node.kwargs:
            raise self.unsupported(node, "cell() of a name worked out while playing")
        if any(a.type.name not in ("int", "seat") for a in node.args):  # (Python refuses true and false here)
            raise self.unsupported(node, "cell(x, y) of coordinates that are not always whole numbers")
        points = {}
        for c in self.t.rules.board.cells:
            x, y = getattr(c, "x", None), getattr(c, "y", None)
            if x.__class__ is int and y.__class__ is int:
                points[(x, y)] = int(c)  # (the last cell at a point, as at_point's table keeps it)
        if not points:
            return "-1", "i"
        low_x, low_y = min(x for x, _ in points), min(y for _, y in points)
        width, height = max(x for x, _ in points) - low_x + 1, max(y for _, y in points) - low_y + 1
        if width * height > _MOST:
            raise self.unsupported(node, "cell(x, y) on a board whose coordinates spread too far")
        grid = [[points.get((low_x + i, low_y + j), -1) for j in range(height)] for i in range(width)]
        table = self.m.table(("coordinates",), grid, 2)
        self.m.functions.setdefault(("helper", "cell_at"), ("_cell_at", CELL_AT))
        x, y = (self.scalar(a, env) for a in node.args)
        return f"_cell_at({table}, {x} - {low_x}, {y} - {low_y})", "i"


CELL_AT = '''@_tiny
def _cell_at(grid, i, j):
    if i < 0 or j < 0 or i >= grid.shape[0] or j >= grid.shape[1]:
        return -1
    return grid[i, j]'''
