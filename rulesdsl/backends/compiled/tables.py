"""The constant tables a game's compiled code reads: board geometry, cell and piece attributes, piece ids.

All are numbers worked out when the game is printed, from its layout (pieces numbered as arrays hold them) and
its board: the rays and neighbours of each cell, its regions, its cells' attributes. A value no table can hold
as a whole number (a float, a list) raises Unsupported at the expression that reads it.
"""

from __future__ import annotations

from ...errors import RulesDslError
from ...model.values import Cell, text_of
from .unsupported import Unsupported


class Tables:
    """The tables of one game: `rules` (model/game.py Rules) and `layout` (ir/layout.py Layout)."""

    def __init__(self, rules, layout):
        self.rules, self.layout, board = rules, layout, rules.board
        self.cells, self.seats = len(board.cells), rules.num_players
        self.step_index = {name: i for i, name in enumerate(layout.steps)}
        self.regions = {name: [int(c) for c in region] for name, region in board.regions.items()
                        if all(isinstance(c, Cell) for c in region)}  # (regions of other values are not tabled)
        # a region per key (keys: whole numbers, or tuples of them of one length): key -> its cells' indices
        self.keyed = {name: {key: [int(c) for c in cells] for key, cells in region.items()}
                      for name, region in board.regions.items()
                      if isinstance(region, dict) and region and _whole_keys(region)
                      and all(isinstance(c, Cell) for cells in region.values() for c in cells)}
        self.directions = list(board.rays)
        self._pieces = None

    # -- the board ------------------------------------------------------------------------------------------------
    def lines(self, length) -> list:
        """lines(length) (model/builtins/board.py): every run of `length` cells along each direction, in order."""
        if not isinstance(length, int) or isinstance(length, bool) or length < 1:
            raise ValueError(length)
        board, found = self.rules.board, []
        for d in board.rays:
            for c in board.cells:
                ray = board.rays[d][c]
                if len(ray) >= length - 1:
                    found.append([int(c), *(int(x) for x in ray[:length - 1])])
        return found

    def adjacency(self) -> list:
        """Each cell's neighbours as groups() connects them, in its order, padded with -1."""
        rows = [sorted(int(n) for n in adjacent) for adjacent in self.rules.board.adjacency]
        width = max((len(r) for r in rows), default=0)
        return [r + [-1] * (width - len(r)) for r in rows]

    def rays(self) -> tuple:
        """(rays[direction][cell] padded with -1, their lengths), directions in the board's order."""
        rays = self.rules.board.rays
        width = max((len(r) for d in rays.values() for r in d), default=0)
        table = [[[int(x) for x in ray] + [-1] * (width - len(ray)) for ray in rays[d]] for d in self.directions]
        return table, [[len(ray) for ray in rays[d]] for d in self.directions]

    def keyed_tables(self, name: str, text=None) -> tuple:
        """(keys as rows of whole numbers, each key's cells padded with -1, how many cells each has) of a region
        per key; text(t): the number of a text in a key (none given: only the lengths are asked for)."""
        region = self.keyed[name]
        number = lambda k: text(k) if isinstance(k, str) and text is not None else k  # noqa: E731
        keys = [[number(x) for x in k] if isinstance(k, tuple) else [number(k)] for k in region]
        width = max(len(cells) for cells in region.values())
        return keys, [cells + [-1] * (width - len(cells)) for cells in region.values()], [len(c) for c in region.values()]

    def mask(self, region: str) -> list:
        members = set(self.regions[region])
        return [int(c in members) for c in range(self.cells)]

    def direction_of_text(self, texts: dict) -> list:
        """Per text number: the index of the direction it names, -2 for none (an unknown direction)."""
        index = {name: i for i, name in enumerate(self.directions)}
        return [index.get(text, -2) for text in texts]

    # -- attributes -----------------------------------------------------------------------------------------------
    def cell_attribute(self, printer, node) -> str:
        values = []
        for cell in self.rules.board.cells:
            if node.name not in cell.__dict__ or node.name in ("name", "index"):
                raise printer.unsupported(node, f"the cell attribute '{node.name}'")
            values.append(self._number(printer, node, cell.__dict__[node.name]))
        return printer.m.table(("cell", node.name), values)

    def pieces(self, printer, node) -> list:
        """Every piece of the layout's table by id (None for id 0, no piece). A piece whose derived attributes
        cannot be worked out (rule code that fails for some value its attributes allow, such as seat() of a colour
        no player is named) is Unsupported at `node`, the expression that reads the table: its entries are unknown."""
        if self._pieces is None:
            found = [None]
            for kind in self.layout.kinds:
                for offset in range(kind.size):
                    given, rest = {}, offset
                    for attribute, values in reversed(kind.attributes):
                        given[attribute] = values[rest % len(values)]
                        rest //= len(values)
                    try:
                        found.append(self.rules.kinds[kind.name].make(dict(reversed(given.items()))))
                    except RulesDslError:  # a budget ran out: the load stops, as it would anywhere
                        raise
                    except Exception as exc:  # noqa: BLE001 - the rule file's code failed for these attributes
                        shown = ", ".join(f"{a}={text_of(v)}" for a, v in given.items())
                        raise printer.unsupported(node, f"the piece of kind '{kind.name}' with {shown} cannot be "
                                                  f"made ({exc}), so its attributes cannot be tabled") from None
            self._pieces = found
        return self._pieces

    def piece_attribute(self, printer, node, missing: int | None = None) -> str:
        """The table of a piece attribute by piece id; `missing`: the entry of pieces without it (else those are
        Unsupported)."""
        values = [0]
        for piece in self.pieces(printer, node)[1:]:
            if node.name not in piece.__dict__:
                if missing is not None:
                    values.append(missing)
                    continue
                raise printer.unsupported(node, f"the attribute '{node.name}' of pieces of kind '{piece.kind}'")
            values.append(self._number(printer, node, piece.__dict__[node.name]))
        return printer.m.table(("piece", node.name, missing), values)

    def owner_table(self, printer, node) -> str:
        """Each piece's owner (-1 where it has none), for owned()."""
        values = [-1] + [self._number(printer, node, p.__dict__["owner"]) if "owner" in p.__dict__ else -1
                         for p in self.pieces(printer, node)[1:]]
        return printer.m.table(("piece", "owner?"), values)

    def piece_id(self, printer, node, given: dict) -> str:
        """The expression of the id of piece(kind, **given) in the layout's table."""
        name = node.args[0].value
        kind = next((k for k in self.layout.kinds if k.name == name), None)
        specs = self.rules.kinds[name].attributes if name in self.rules.kinds else {}
        given = dict(given)
        for attribute, _ in kind.attributes if kind is not None else ():  # one left out: its default (a constant)
            if attribute not in given and "default" in (specs.get(attribute) or {}):
                given[attribute] = repr(self._number(printer, node, specs[attribute]["default"], attribute))
        if kind is None or set(given) != {a for a, _ in kind.attributes}:
            raise printer.unsupported(node, "piece() of a kind or attributes not declared, or not all given")
        terms, stride = [], 1
        for attribute, values in reversed(kind.attributes):
            numbers = [self._number(printer, node, v, attribute) for v in values]
            table = printer.m.table(("place", name, attribute), numbers)
            terms.append(f"{stride} * _place({table}, {given[attribute]})")
            stride *= len(values)
        return f"({kind.first} + {' + '.join(terms) if terms else '0'})"

    @staticmethod
    def _number(printer, node, value, name: str | None = None) -> int:
        """A value as the whole number a table holds: a text by its number, none as -1; Unsupported at `node` (of
        the attribute `name`, else the node's own) for any other."""
        if value is None:
            return -1
        if isinstance(value, str):
            return printer.m.text(value)
        if isinstance(value, int):
            return int(value)
        raise Unsupported(printer.m.locate(node), f"a value of '{name or node.name}' that is not a whole number or "
                          "text")


def _whole_keys(region: dict) -> bool:
    """Whether a region's keys are whole numbers or texts, or tuples of them of one length."""
    keys = list(region)
    single = lambda x: isinstance(x, str) or isinstance(x, int) and not isinstance(x, bool)  # noqa: E731
    if all(single(k) for k in keys):
        return True
    return all(isinstance(k, tuple) and len(k) == len(keys[0]) and all(single(x) for x in k) for k in keys)
