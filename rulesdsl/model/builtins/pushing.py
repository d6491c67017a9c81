"""Built-ins of pushing: a piece moving in a straight line and shoving the pieces in its way ahead of it."""

from __future__ import annotations

from operator import itemgetter

from ...lang.builtins import RuleValueError, refused
from ...lang.declare import builtin
from ..values import text_of


def targets_within(g, within):
    """push_targets for one region `within`, with each ray's runs of region cells worked out once.

    Moving to ray index k carries the pieces on ray[0..k]; they fit iff the free cells after k in
    the same run of `within` cells are at least as many. That reduces to k < F, where F counts the
    empty cells of ray[0:end] (end: where the run stops): one count per run instead of a walk per target.
    """
    board, targets_by_region = g.board, g.targets
    try:
        members = getattr(within, "_members", None) or frozenset(within)
    except TypeError:
        raise RuleValueError(f"{text_of(within)} is not a region or a list of cells") from None
    found = targets_by_region.get(members)
    if found is not None:
        return found
    if len(targets_by_region) >= 256:  # regions computed during play: keep memory bounded
        targets_by_region.clear()
    # direction -> per cell: (reader, prefixes) for a ray with one run of region cells, where
    # reader(cells) gives the cells of ray[0:end] and prefixes[F] the targets; (None, runs) otherwise
    tables: dict = {None: [(None, ())] * len(board.cells)}
    for direction, rays in board.rays.items():
        table = tables[direction] = []
        for c in board.cells:
            ray, runs, start = rays[c], [], None
            for k, cell in enumerate(ray + (None,)):
                inside = cell is not None and cell in members
                if inside and start is None:
                    start = k
                elif not inside and start is not None:
                    upto = ray[:k]
                    read = itemgetter(*upto) if len(upto) > 1 else (lambda cells, i=upto[0]: (cells[i],))
                    runs.append((read, tuple(ray[start:f] for f in range(k + 1))))
                    start = None
            table.append(runs[0] if len(runs) == 1 else (None, tuple(runs)))

    def push_targets_within(S, frm, direction):
        try:
            read, entry = tables[direction][frm]
        except KeyError:
            raise RuleValueError(f"unknown direction '{direction}'") from None
        except (TypeError, IndexError) as exc:  # from is no cell (or the direction a list)
            raise refused("push_targets", exc) from None
        if read is not None:  # one run: entry holds its prefixes
            return entry[read(S.cells).count(None)]
        cells, found = S.cells, ()
        for read, prefixes in entry:  # no run, or several
            found += prefixes[read(cells).count(None)]
        return found

    targets_by_region[members] = push_targets_within
    return push_targets_within


@builtin("board", reads="cells")
def can_push(g, S, from_, to, within) -> "bool":
    """True when the piece on `from` can move in a straight line to `to`, pushing the pieces in its way,
    with every moved piece ending inside the region `within`."""
    try:
        for direction, rays in g.board.rays.items():
            if to in rays[from_]:
                return to in push_targets(g, S, from_, direction, within)
    except (TypeError, IndexError) as exc:  # from is no cell
        raise refused("can_push", exc) from None
    return False


def specialise_push_targets(g, known, keywords, given):
    """With a constant region, the region's lookup is done once, when the rules are compiled."""
    return (targets_within(g, known[2]), {2}) if 2 in known and not keywords else None


@builtin("board", specialise=specialise_push_targets, reads="cells", yields="cells")
def push_targets(g, S, from_, direction, within) -> "list[cell]":
    """The cells `to` along the direction from `from` for which can_push(from, to, within) holds."""
    return targets_within(g, within)(S, from_, direction)


@builtin("effects", effect=True)
def push(g, S, from_, to) -> "none":
    """Move the piece on `from` in a straight line to `to`; pieces in its way are pushed ahead."""
    line = g.board.line(from_, to)
    if line is None:
        raise RuleValueError(f"push: {to} is not on a straight line from {from_}")
    path, beyond = line
    cells = S.cells
    S.changes[0] += 1
    mover = cells[from_]
    cells[from_] = None
    carried = []
    for c in path:
        if cells[c] is not None:
            carried.append(cells[c])
            cells[c] = None
    cells[to] = mover
    for c in beyond:
        if not carried:
            return
        if cells[c] is not None:
            carried.append(cells[c])
        cells[c] = carried.pop(0)
    if carried:
        raise RuleValueError(f"push from {from_} to {to} pushes pieces off the board")
