"""Built-ins bound to one compiled game: board geometry, links, pushing, pieces, places, showing, players, flow."""

from __future__ import annotations

from ...lang.builtins import pure_builtins
from ...lang.declare import Builtin, bound, declared, reference
from . import board, flow, links, pieces, places, players, pushing, showing

# in this order in the reference, within each category
DECLARED = [b for module in (board, links, pushing, pieces, places, showing, players, flow)
            for b in declared(vars(module))]


class GameContext:
    """The game the built-ins are bound to (their parameter `g`), with what they work out from it alone."""

    __slots__ = ("game", "board", "kinds", "routes", "targets", "lines")

    def __init__(self, game):
        self.game, self.board, self.kinds = game, game.board, game.kinds  # filled in place as the game compiles
        self.routes: dict = {}  # (link, cell, steps, key) -> the route (see links.route)
        self.targets: dict = {}  # a region's cells -> push_targets specialised to it (see pushing.targets_within)
        self.lines: dict = {}  # (length, directions) -> (the lines, the lines through each cell) (see board.lines)


def game_builtins(game) -> dict[str, Builtin]:
    """Built-ins whose meaning depends on `game` (its board, piece kinds, steps and players)."""
    g = GameContext(game)
    return {b.name: bound(b, g) for b in DECLARED}


def all_builtins() -> list[Builtin]:
    """Every built-in function's declaration (unbound), in the order of the reference."""
    return [*pure_builtins().values(), *DECLARED]


def builtin_reference(markdown: bool) -> str:
    """Every built-in function by category, as text or as the markdown tables of docs/language.md."""
    return reference(all_builtins(), markdown)
