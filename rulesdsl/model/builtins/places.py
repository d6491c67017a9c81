"""Built-ins that put pieces in places, cells or zones, and take them out again."""

from __future__ import annotations

from ...lang.builtins import RuleValueError
from ...lang.declare import builtin
from ..values import Cell, Piece, text_of


def is_cell(x) -> bool:
    return type(x) is Cell


def zone(game, S, where, fn: str) -> list:
    """`where` itself if it is one of the state's zones; an error otherwise (a list an expression made,
    or a cell, would quietly take pieces that then vanish)."""
    _zone_number(game, S, where, fn)
    return where


def written(game, S, where, fn: str) -> list:
    """zone(), for a built-in about to change the zone: the write is counted (see Position.changes)."""
    S.changes[1 + _zone_number(game, S, where, fn)] += 1
    return where


def place_of(game, S, where, fn: str) -> tuple:
    """(zone name, seat or key) of the place `where` of a declared zone (None for a zone of one place)."""
    number = _zone_number(game, S, where, fn)
    holder = game.zones[number]
    return holder.name, next(owner for owner, place in holder.places(S.zones[number]) if place is where)


def is_zone(game, S, where) -> bool:
    """Whether `where` is a place of one of the state's zones (not a list an expression made)."""
    return _zone_holding(game, S, where) is not None


def _zone_holding(game, S, where) -> int | None:
    """Which of the declared zones holds the place `where`, if one does."""
    if isinstance(where, list):
        for number, (holder, value) in enumerate(zip(game.zones, S.zones)):
            if holder.holds(value, where):
                return number
    return None


def _zone_number(game, S, where, fn: str) -> int:
    """Which of the declared zones holds the place `where`; an error if none does."""
    number = _zone_holding(game, S, where)
    if number is not None:
        return number
    if isinstance(where, list):
        raise RuleValueError(f"{fn}(): the list [{text_of(where)}] is not a zone: pieces go to cells or to "
                             "the zones the rule file declares")
    raise RuleValueError(f"{fn}(): {text_of(where)} is not a cell or zone")


@builtin("effects", effect=True)
def place(g, S, piece, where) -> "none":
    """Put a piece on an empty cell or into a zone."""
    if not isinstance(piece, Piece):
        raise RuleValueError(f"place(): {piece!r} is not a piece")
    if is_cell(where):
        if S.cells[where] is not None:
            raise RuleValueError(f"place(): cell {where} is occupied by {S.cells[where]}")
        S.cells[where] = piece
        S.changes[0] += 1
    else:
        written(g.game, S, where, "place").append(piece)
        S.held += 1  # the only way a zone grows: every other moves pieces between zones, or takes them out


@builtin("effects", effect=True)
def remove(g, S, where, piece=None, *, at=None) -> "none":
    """Take the piece off a cell, or a piece out of a zone: the one named, or the one at position `at` (0 its
    first, -1 its last), else its last (the top of a stack)."""
    if is_cell(where):
        if S.cells[where] is None:
            raise RuleValueError(f"remove(): cell {where} is empty")
        S.cells[where] = None
        S.changes[0] += 1
        return
    _take(g, S, where, piece, "remove", at)


def _take(g, S, where, piece, fn: str, at=None):
    """Take `piece` (None: the one at position `at`, else the last piece, the top of a stack) out of the zone
    `where`, and return it."""
    where = written(g.game, S, where, fn)
    if at is not None:
        if piece is not None:
            raise RuleValueError(f"{fn}(): name the piece or its position (at=), not both")
        if at.__class__ is not int or not -len(where) <= at < len(where):
            raise RuleValueError(f"{fn}(): the zone holds {len(where)} pieces, and has no position {text_of(at)} "
                                 f"(0 is its first, -1 its last)")
        return where.pop(at)
    if piece is None:
        if not where:
            raise RuleValueError(f"{fn}(): the zone is empty")
        return where.pop()
    try:
        where.remove(piece)
    except ValueError:
        raise RuleValueError(f"{fn}(): no {piece} in the zone") from None
    return piece


@builtin("effects", effect=True)
def move(g, S, from_, to, piece=None, *, at=None) -> "none":
    """Move a piece between places (cells or zones); from a zone, the piece named, or the one at position `at`
    (0 its first, -1 its last), else its last (its top)."""
    if is_cell(from_):
        piece = S.cells[from_]
        if piece is None:
            raise RuleValueError(f"move(): cell {from_} is empty")
        S.cells[from_] = None
        S.changes[0] += 1
    else:
        piece = _take(g, S, from_, piece, "move", at)
    place(g, S, piece, to)


@builtin("effects", effect=True)
def move_all(g, S, from_zone, to_zone) -> "none":
    """Move every piece of one zone to another (on top of its pieces, in their order)."""
    written(g.game, S, to_zone, "move_all").extend(written(g.game, S, from_zone, "move_all"))
    from_zone.clear()


@builtin("effects", effect=True)
def move_top(g, S, from_zone, to_zone, n) -> "none":
    """Move the top n pieces of a zone (its last n, in their order) onto another zone."""
    source = written(g.game, S, from_zone, "move_top")
    target = written(g.game, S, to_zone, "move_top")
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= len(source):
        raise RuleValueError(f"move_top(): cannot take {text_of(n)} pieces from a zone of {len(source)}")
    if n:
        moved = source[len(source) - n:]
        del source[len(source) - n:]
        target.extend(moved)


@builtin("effects", effect=True)
def remove_all(g, S, where) -> "none":
    """Empty a zone's place, or take every piece off a cell or a list of cells; a revealed place is hidden
    again (its next contents are dealt face down)."""
    cells = [where] if is_cell(where) else where if isinstance(where, (list, tuple)) \
        and _zone_holding(g.game, S, where) is None and all(is_cell(c) for c in where) else None
    if cells is not None:
        if any(S.cells[c] is not None for c in cells):
            for c in cells:
                S.cells[c] = None
            S.changes[0] += 1
        return
    found = place_of(g.game, S, where, "remove_all")
    written(g.game, S, where, "remove_all").clear()
    if found in S.revealed:
        S.revealed = S.revealed - {found}
