"""Compiling the board: cells from grids and lists, regions, cell attributes, links; geometry precomputed."""

from __future__ import annotations

import re

from ..lang import types as T
from ..lang.compiler import Binding, local, typed_local
from ..lang.constants import frozen
from ..limits import MAX_CELLS, MAX_TEMPLATE_CHARS, LimitExceeded
from .board import Region
from .values import Cell, Piece, text_of
from .compile_support import _BROKEN, _FAIL, _describe


def _grid_labels(spec) -> list[str]:
    """The labels of a grid's columns or rows: 1..n for a number n (at most MAX_CELLS + 1 of them, enough to
    tell that the grid is too large), else the items (a string of letters counts as its characters)."""
    if isinstance(spec, int) and not isinstance(spec, bool):
        return [str(i) for i in range(1, min(spec, MAX_CELLS + 1) + 1)]
    return [str(item) for item in spec] if isinstance(spec, (list, tuple, str)) else [str(spec)]


def _names(spec) -> set[str]:
    """Every word written in a region's definition (its expressions, or the cell names it lists)."""
    texts = [spec] if isinstance(spec, str) else list(spec.values()) if isinstance(spec, dict) else \
        spec if isinstance(spec, list) else []
    return {word for text in texts if isinstance(text, str) for word in re.findall(r"[A-Za-z_]\w*", text)}


class BoardCompiler:
    """Part of ModelCompiler: compiling the board."""

    def _grid_axis(self, grid: dict, key: str) -> list[str]:
        """The labels of the grid's `key` (columns or rows): a count, a list, a string of letters or digits (each
        a label), or an expression giving a count or a list (`option.size`); labels that repeat are refused."""
        spec = grid.get(key, 8)
        if isinstance(spec, str) and not spec.isalnum():
            spec = self.evaluate_now(("board", "grid", key), spec, self.root, "count or list of labels")
            if spec is _FAIL:
                return []
        labels = _grid_labels(spec)
        repeated = next((label for i, label in enumerate(labels) if label in labels[:i]), None)
        if repeated is not None:
            self.problem(("board", "grid", key), f"the grid's {key} repeat the label {text_of(repeated)[:40]}: two "
                         "cells would have one name", f"give {key} a count (8), distinct letters (abcdefgh), a list "
                         "of distinct labels, or an expression giving one of these (option.size)")
            return []
        return labels

    def _board(self):
        spec = self.data.get("board") or {}
        board = self.rules.board  # filled in place: built-ins already hold it
        grid = spec.get("grid")
        if grid:
            columns, rows = self._grid_axis(grid, "columns"), self._grid_axis(grid, "rows")
            template = str(grid.get("name", "{col}{row}"))
            named = []
            if len(columns) * len(rows) > MAX_CELLS:
                self.problem(("board", "grid"), f"a grid of {len(columns):,} x {len(rows):,} cells is larger than "
                             f"the {MAX_CELLS:,} cells a board may have", "use a smaller grid")
            elif len(template) > MAX_TEMPLATE_CHARS:  # (copied into every cell's name)
                self.problem(("board", "grid", "name"), f"a cell-name template has at most {MAX_TEMPLATE_CHARS:,} "
                             f"characters; this one has {len(template):,}", "name cells with a short template, e.g. "
                             "'{col}{row}'", code="limit_exceeded", fields={"limit": "MAX_TEMPLATE_CHARS"})
            elif "{" in template.replace("{col}", "").replace("{row}", "") or \
                    "}" in template.replace("{col}", "").replace("{row}", ""):
                self.problem(("board", "grid", "name"), f"cannot name cells with {template!r}",
                             "the template may use {col} and {row}, e.g. '{col}{row}'")
            else:
                named = [(template.replace("{col}", col).replace("{row}", row), x, y, col, row)
                         for y, row in enumerate(rows, 1) for x, col in enumerate(columns, 1)]
            for name, x, y, col, row in named:
                board.add_cell(name, x=x, y=y, col=col, row=row)
        names = spec.get("cells")
        if isinstance(names, str):
            names = self.evaluate_now(("board", "cells"), names, self.root, "list of cells")
            names = [] if names is _FAIL else names
        if isinstance(names, (list, tuple, range)) and len(names) + len(board.cells) > MAX_CELLS:
            self.problem(("board", "cells"), f"{len(names) + len(board.cells):,} cells are more than the "
                         f"{MAX_CELLS:,} a board may have", "use a smaller board")
            names = []
        for name in names or []:
            if str(name) in board.by_name:
                self.problem(("board", "cells"), f"cell '{name}' is defined twice")
            else:
                board.add_cell(str(name))
        removed = spec.get("remove") or []
        if removed:
            for i, name in enumerate(removed):
                if str(name) not in board.by_name:
                    self.unknown(("board", "remove", i), f"no cell named '{name}' to remove", name, board.by_name)
            keep = [c for c in board.cells if c.name not in {str(n) for n in removed}]
            board.cells, board.by_name = [], {}
            for c in keep:
                attrs = {k: v for k, v in c.__dict__.items() if k not in ("name", "index")}
                board.add_cell(c.name, **attrs)
        self.root.names["cells"] = Binding("", const=Region(board.cells), is_const=True)
        for name, vec in (spec.get("directions") or {}).items():
            board.directions[str(name)] = tuple(vec)
        try:
            board.lay_out_directions()
        except LimitExceeded as exc:
            self.problem(("board", "directions"), str(exc), "use a smaller board, or fewer directions")
            for table in (board.directions, board.neighbours, board.rays):  # what uses them is not checked
                table.clear()
        cell_scope = self.root.child(c=typed_local("c", T.CELL))
        attributes, regions = spec.get("attributes") or {}, spec.get("regions") or {}
        # regions that name no attribute come first, so attributes may read them; the others may filter by attributes
        later = {name: value for name, value in regions.items() if _names(value) & set(attributes)}
        for name, value in regions.items():
            if name not in later:
                self._region(board, name, value)
        for name, text in attributes.items():
            code = self.expr(("board", "attributes", name), text, cell_scope)
            if code is _FAIL:
                continue
            fn = self.lambda_("S, me, L_c", code)
            for c in board.cells:
                try:  # read-only: cells are shared by every position of every game
                    setattr(c, name, frozen(fn(None, None, c)))
                except Exception as exc:  # noqa: BLE001
                    self.problem(("board", "attributes", name), f"cannot compute '{name}' for cell {c}: "
                                 f"{_describe(exc)}")
                    break
        for name, value in later.items():
            self._region(board, name, value)
        for name, link in (spec.get("links") or {}).items():
            self._link(board, name, link or {})
        adjacency = spec.get("adjacency")
        for i, d in enumerate(adjacency or []):
            if d not in board.directions:
                self.unknown(("board", "adjacency", i), f"unknown direction '{d}'", d, board.directions)
        board.finish_geometry(adjacency)
        self._cell_field_types(board)

    def _cell_field_types(self, board) -> None:
        """Each attribute of cells has the type of its values on the cells that have it."""
        values: dict = {}
        for c in board.cells:
            for name, value in vars(c).items():
                values.setdefault(name, []).append(value)
        for name, found in values.items():
            # texts and whole numbers gathered first (joining one cell's at a time grows an enumeration cell by
            # cell: quadratic on a large board), each other kind of value typed once
            texts = {v for v in found if v.__class__ is str}
            numbers = [v for v in found if v.__class__ is int]
            typed = T.enum(*texts) if texts else T.NOTHING
            if numbers:
                typed = T.join(typed, T.int_(min(numbers), max(numbers)))
            others = {}
            for v in found:
                if v.__class__ not in (str, int):
                    others.setdefault(T.type_of_value(v), None)
            for other in others:
                typed = T.join(typed, other)
            self.typer.cell_fields[name] = typed

    def _board_init(self):
        """The pieces on the board when a game starts (`board: init`), worked out once, at load."""
        board = self.rules.board
        start = [None] * len(board.cells)
        path = ("board", "init")
        spec = (self.data.get("board") or {}).get("init")
        given = []  # (where in the file, cell, piece)
        if isinstance(spec, dict):  # cell name -> the piece on it
            for name, text in spec.items():
                cell = board.by_name.get(str(name))
                if cell is None:
                    names = list(board.by_name)
                    self.unknown(path + (name,), f"no cell named '{name}'", name, names,
                                 f"the cells are {', '.join(names[:6])}{', ...' if len(names) > 6 else ''}")
                    continue
                piece = self.evaluate_now(path + (name,), text, self.root, "piece")
                if piece is not _FAIL:
                    given.append((path + (name,), cell, piece))
        elif spec is not None:  # an expression giving a table of cells to pieces
            table = self.evaluate_now(path, spec, self.root, "table of cells to pieces")
            if table is not _FAIL and not isinstance(table, dict):
                self.problem(path, f"this should be a table of cells to pieces, but it is {text_of(table)[:60]}",
                             "e.g. table((c, piece('pawn', colour='white')) for c in second_row)", code="bad_value")
                table = _FAIL
            if table is not _FAIL:
                given = [(path, c, piece) for c, piece in table.items()]
        for where, cell, piece in given:
            if not isinstance(cell, Cell) or board.by_name.get(cell.name) is not cell:
                self.problem(where, f"{text_of(cell)[:60]} is not a cell of the board", "use cells, e.g. cell('a1')",
                             code="bad_value")
            elif piece is not None and not isinstance(piece, Piece):
                self.problem(where, f"a cell holds a piece or none, not {text_of(piece)[:60]}",
                             "e.g. piece('stone', colour='white')", code="bad_value")
            else:
                start[cell] = piece
        self.rules.start_cells = start

    def _cells_of(self, path, value, board):
        if isinstance(value, str):
            value = self.evaluate_now(path, value, self.root, "list of cells")
            if value is _FAIL:
                return None
        if not isinstance(value, (list, tuple)):
            self.problem(path, "a region is a list of cells (names, or an expression giving cells)")
            return None
        cells = []
        for i, item in enumerate(value):
            cell = board.by_name.get(str(item))
            if cell is None:
                self.unknown(path + (i,) if not isinstance(self.doc.value(path), str) else path,
                             f"no cell named '{item}'", item, board.by_name)
                continue
            cells.append(cell)
        return Region(cells)

    def _region(self, board, name, value):
        self.root.names[name] = _BROKEN  # until it is computed
        path = ("board", "regions", name)
        if isinstance(value, dict):  # one region per key: {keys: expr, cells: expr using 'key'}
            keys = self.evaluate_now(path + ("keys",), value.get("keys"), self.root, "list of keys")
            if keys is _FAIL:
                return
            key = typed_local("key", T.item_type(T.type_of_value(keys)))
            code = self.expr(path + ("cells",), value.get("cells"), self.root.child(key=key))
            if code is _FAIL:
                return
            fn = self.lambda_("S, me, L_key", code)
            table = {}
            for key in keys:
                try:
                    table[key] = self._cells_of(path + ("cells",), fn(None, None, key), board)
                except Exception as exc:  # noqa: BLE001
                    self.problem(path + ("cells",), f"cannot compute region '{name}' for {key!r}: {_describe(exc)}")
                    return
            board.regions[name] = table
        else:
            region = self._cells_of(path, value, board)
            if region is None:
                return
            board.regions[name] = region
        self.root.names[name] = Binding("", const=board.regions[name], is_const=True)

    def _link(self, board, name, spec):
        path = ("board", "links", name)
        keys = [None]
        scope = self.root.child(c=typed_local("c", T.CELL))
        if "keys" in spec:
            keys = self.evaluate_now(path + ("keys",), spec["keys"], self.root, "list of keys")
            if keys is _FAIL:
                return
            scope = scope.child(key=typed_local("key", T.item_type(T.type_of_value(keys))))
        code = self.expr(path + ("next",), spec.get("next"), scope)
        if code is _FAIL:
            return
        fn = self.lambda_("S, me, L_c, L_key=None", code)
        tables, switches = {}, {}
        for key in keys:
            row, switch = [], []
            for c in board.cells:
                try:
                    target = fn(None, None, c, key)
                except Exception as exc:  # noqa: BLE001
                    self.problem(path + ("next",), f"cannot compute link '{name}' from {c}: {_describe(exc)}")
                    return
                new_key = None
                if isinstance(target, (list, tuple)):  # [cell, key]: the walk goes on with the other key's table
                    if len(target) != 2 or target[1] not in keys:
                        self.problem(path + ("next",), f"link '{name}' from {c} gives {list(target)!r}",
                                     "a link gives a cell, none, or [cell, key] with one of its keys")
                        return
                    target, new_key = target
                if target is not None and not isinstance(target, Cell):
                    named = board.by_name.get(str(target))
                    if named is None:
                        self.problem(path + ("next",), f"link '{name}' from {c} gives {target!r}, which is no cell",
                                     "a link gives a cell (e.g. cell('b1')), none, or [cell, key]")
                        return
                    target = named
                row.append(target)
                switch.append(new_key)
            tables[key] = tuple(row)
            switches[key] = tuple(switch)
        board.links[name] = tables
        board.link_switches[name] = switches
