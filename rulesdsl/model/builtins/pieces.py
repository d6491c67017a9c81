"""Built-ins of pieces: making them, changing their attributes, and finding them on the board or in zones."""

from __future__ import annotations

from ...errors import did_you_mean
from ...lang.builtins import RuleValueError, refused
from ...lang.declare import builtin
from ..values import Piece, text_of
from .places import is_cell, zone


@builtin("pieces", shown={"within": "all cells"}, reads="cells", yields="cells")
def owned(g, S, player: "seat", within=None) -> "list[cell]":
    """The cells holding a piece whose `owner` is player."""
    cells = S.cells
    try:
        return [c for c in (g.board.cells if within is None else within)
                if cells[c] is not None and cells[c].owner == player]
    except (TypeError, IndexError, AttributeError) as exc:  # within holds what is no cell; pieces with no owner
        raise refused("owned", exc) from None


@builtin("pieces", shown={"within": "all cells"}, reads="cells", yields="cells")
def occupied(g, S, within=None) -> "list[cell]":
    """The cells holding a piece."""
    cells = S.cells
    try:
        return [c for c in (g.board.cells if within is None else within) if cells[c] is not None]
    except (TypeError, IndexError) as exc:  # within holds what is no cell
        raise refused("occupied", exc) from None


@builtin("pieces", reads="cells")
def pieces(g, S, where) -> "list[piece]":
    """The pieces in a zone, or on the cells of a region or list of cells."""
    if isinstance(where, list) and not all(is_cell(c) for c in where):
        return list(zone(g.game, S, where, "pieces"))
    try:
        return [S.cells[c] for c in where if S.cells[c] is not None]
    except (TypeError, IndexError) as exc:  # neither a zone nor cells
        raise refused("pieces", exc) from None


def specialise_piece(g, known, keywords, given):
    """piece('kind', a=x, ...): the kind is found once, and pieces are remembered by their values."""
    kinds = g.kinds
    if 0 not in known or "*" in keywords:
        return None
    if known[0] not in kinds:
        close = did_you_mean(str(known[0]), kinds)
        raise RuleValueError(f"no piece kind '{known[0]}'" + (f" ({close})" if close else
                                                               f" (kinds: {', '.join(kinds) or 'none'})"))
    return kinds[known[0]].maker(keywords), {0}


# Below, the parameters before '/' are positional-only, so that an attribute may have any name (even `kind`).
@builtin("pieces", fold=True, specialise=specialise_piece)
def piece(g, kind: "text", /, **attribute) -> "piece":
    """The piece of that kind and attributes."""
    try:
        found = g.kinds[kind]
    except (KeyError, TypeError):  # no such kind, or a value that cannot name one (a list)
        raise RuleValueError(f"no piece kind '{kind}'") from None
    return found.make(attribute)


@builtin("pieces", fold=True)
def with_attr(g, piece: "piece", /, **attribute) -> "piece":
    """The same piece with some attributes changed."""
    if piece is None:
        raise RuleValueError("with_attr() of none: the cell is empty")
    if not isinstance(piece, Piece):
        raise RuleValueError(f"with_attr(): {text_of(piece)[:40]} is not a piece")
    return g.kinds[piece.kind].make({**dict(piece.base), **attribute})


@builtin("effects", effect=True)
def set_attr(g, S, c, /, **attribute) -> "none":
    """Change attributes of the piece on cell c."""
    if not is_cell(c):
        raise RuleValueError(f"set_attr(): {text_of(c)[:40]} is not a cell")
    S.cells[c] = with_attr(g, S.cells[c], **attribute)
    S.changes[0] += 1
