"""Built-ins bound to one compiled game: board geometry, pieces, places (cells and zones) and effects."""

from __future__ import annotations

from operator import itemgetter

from ..errors import did_you_mean
from ..lang.builtins import Builtin, RuleValueError
from .values import Cell, Piece, text_of


def _is_cell(x) -> bool:
    return type(x) is Cell


def game_builtins(game) -> dict[str, Builtin]:
    """Built-ins whose meaning depends on `game` (its board, piece kinds, steps and players)."""
    board = game.board
    cells_by_name = board.by_name

    def cell(name):
        if isinstance(name, Cell):
            return name
        try:
            return cells_by_name[str(name)]
        except KeyError:
            raise RuleValueError(f"no cell named '{name}'") from None

    def step_(c, direction):
        if c is None or direction is None:
            return None
        try:
            return board.neighbours[direction][c]
        except KeyError:
            raise RuleValueError(f"unknown direction '{direction}'") from None

    def ray(c, direction):
        if c is None or direction is None:
            return ()
        try:
            return board.rays[direction][c]
        except KeyError:
            raise RuleValueError(f"unknown direction '{direction}'") from None

    def link(name, c, key=None):
        try:
            table = board.links[name][key]
        except KeyError:
            raise RuleValueError(f"no link '{name}'" + (f" for {key!r}" if key is not None else "")) from None
        return None if c is None else table[c]

    routes: dict = {}  # (name, c, steps, key) -> the route: it depends on the board alone

    def route(name, c, steps, key=None):
        """[(cell, key)] after each of `steps` steps along a link (a link may switch key), or none if it runs out."""
        try:
            found = routes[name, c, steps, key]
            return None if found is None else list(found)
        except (KeyError, TypeError):  # not worked out yet, or an unhashable argument (reported below)
            pass
        path = _route(name, c, steps, key)
        if len(routes) < 1 << 16:
            try:
                routes[name, c, steps, key] = None if path is None else tuple(path)
            except TypeError:
                pass
        return path

    def _route(name, c, steps, key):
        try:
            tables, switches = board.links[name], board.link_switches[name]
            table, switch = tables[key], switches[key]
        except KeyError:
            raise RuleValueError(f"no link '{name}'" + (f" for {key!r}" if key is not None else "")) from None
        path = []
        for _ in range(steps):
            nxt = table[c]
            if nxt is None:
                return None
            if switch[c] is not None:
                key = switch[c]
                table, switch = tables[key], switches[key]
            c = nxt
            path.append((c, key))
        return path

    def walk(name, c, steps, key=None):
        """The cells visited by following a link `steps` times, or none if it runs out."""
        path = route(name, c, steps, key)
        return None if path is None else [cell for cell, _ in path]

    def groups(cells):
        adjacency = board.adjacency
        members = set(cells)
        seen, result = set(), []
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
        return result

    def lines(length, directions=None):
        """Every straight run of `length` cells along the given directions (default: all declared)."""
        names = board.directions if directions is None else [directions] if isinstance(directions, str) \
            else directions
        found = []
        for d in names:
            if d not in board.rays:
                raise RuleValueError(f"unknown direction '{d}'")
            for c in board.cells:
                ray = board.rays[d][c]
                if len(ray) >= length - 1:
                    found.append((c,) + ray[: length - 1])
        return found

    def group_sizes(cells):
        return sorted((len(g) for g in groups(cells)), reverse=True)

    targets_by_region: dict = {}  # the region's cells (a frozenset) -> push_targets specialised to it

    def targets_within(within):
        """push_targets for one region `within`, with each ray's runs of region cells worked out once.

        Moving to ray index k carries the pieces on ray[0..k]; they fit iff the free cells after k in
        the same run of `within` cells are at least as many. That reduces to k < F, where F counts the
        empty cells of ray[0:end] (end: where the run stops): one count per run instead of a walk per target.
        """
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
            if read is not None:  # one run: entry holds its prefixes
                return entry[read(S.cells).count(None)]
            cells, found = S.cells, ()
            for read, prefixes in entry:  # no run, or several
                found += prefixes[read(cells).count(None)]
            return found

        targets_by_region[members] = push_targets_within
        return push_targets_within

    def push_targets(S, frm, direction, within):
        """Every `to` for which can_push(frm, to, within) holds."""
        return targets_within(within)(S, frm, direction)

    def specialise_push_targets(known, keywords):
        """With a constant region, the region's lookup is done once, when the rules are compiled."""
        return (targets_within(known[2]), {2}) if 2 in known and not keywords else None

    def can_push(S, frm, to, within):
        for direction, rays in board.rays.items():
            if to in rays[frm]:
                return to in push_targets(S, frm, direction, within)
        return False

    def push(S, frm, to):
        line = board.line(frm, to)
        if line is None:
            raise RuleValueError(f"push: {to} is not on a straight line from {frm}")
        path, beyond = line
        cells = S.cells
        mover = cells[frm]
        cells[frm] = None
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
            raise RuleValueError(f"push from {frm} to {to} pushes pieces off the board")

    kinds = game.kinds

    def piece(kind, **attributes):
        try:
            return kinds[kind].make(attributes)
        except KeyError:
            raise RuleValueError(f"no piece kind '{kind}'") from None

    def specialise_piece(known, keywords):
        """piece('kind', a=x, ...): the kind is found once, and pieces are remembered by their values."""
        if 0 not in known or "*" in keywords:
            return None
        if known[0] not in kinds:
            close = did_you_mean(str(known[0]), kinds)
            raise RuleValueError(f"no piece kind '{known[0]}'" + (f" ({close})" if close else
                                                                   f" (kinds: {', '.join(kinds) or 'none'})"))
        return kinds[known[0]].maker(keywords), {0}

    def with_attr(p, **attributes):
        if p is None:
            raise RuleValueError("with_attr() of none: the cell is empty")
        return kinds[p.kind].make({**dict(p.base), **attributes})

    def owned(S, player, within=None):
        cells = S.cells
        return [c for c in (board.cells if within is None else within)
                if cells[c] is not None and cells[c].owner == player]

    def zone(S, where, fn: str) -> list:
        """`where` itself if it is one of the state's zones; an error otherwise (a list an expression made,
        or a cell, would quietly take pieces that then vanish)."""
        if isinstance(where, list):
            for spec, value in zip(game.zones, S.zones):
                if spec["per"] == "player":
                    found = any(z is where for z in value)
                elif spec.get("keys") is not None:
                    found = any(z is where for z in value.values())
                else:
                    found = value is where
                if found:
                    return where
        if isinstance(where, list):
            raise RuleValueError(f"{fn}(): the list [{text_of(where)}] is not a zone: pieces go to cells or to "
                                 "the zones the rule file declares")
        raise RuleValueError(f"{fn}(): {text_of(where)} is not a cell or zone")

    def pieces(S, where):
        """The pieces in a zone, or on the cells listed."""
        if isinstance(where, list) and not all(_is_cell(c) for c in where):
            return list(zone(S, where, "pieces"))
        return [S.cells[c] for c in where if S.cells[c] is not None]

    def occupied(S, within=None):
        cells = S.cells
        return [c for c in (board.cells if within is None else within) if cells[c] is not None]

    # -- effects -----------------------------------------------------------------------------
    def place(S, p, where):
        if not isinstance(p, Piece):
            raise RuleValueError(f"place(): {p!r} is not a piece")
        if _is_cell(where):
            if S.cells[where] is not None:
                raise RuleValueError(f"place(): cell {where} is occupied by {S.cells[where]}")
            S.cells[where] = p
        else:
            zone(S, where, "place").append(p)

    def remove(S, where, p=None):
        if _is_cell(where):
            if S.cells[where] is None:
                raise RuleValueError(f"remove(): cell {where} is empty")
            S.cells[where] = None
        else:
            where = zone(S, where, "remove")
            if p is None:
                raise RuleValueError("remove() from a zone needs the piece to remove")
            try:
                where.remove(p)
            except ValueError:
                raise RuleValueError(f"remove(): no {p} in the zone") from None

    def move(S, src, dst, p=None):
        if _is_cell(src):
            p = S.cells[src]
            if p is None:
                raise RuleValueError(f"move(): cell {src} is empty")
            S.cells[src] = None
        else:
            remove(S, src, p)
        place(S, p, dst)

    def move_all(S, src, dst):
        zone(S, dst, "move_all").extend(zone(S, src, "move_all"))
        src.clear()

    def set_attr(S, c, **attributes):
        S.cells[c] = with_attr(S.cells[c], **attributes)

    def goto(S, step):
        if step not in game.steps:
            raise RuleValueError(f"goto(): no step '{step}'")
        S.goto = step

    def end_turn(S):
        S.goto = game.END_TURN

    def specialise_can_move(known, keywords):
        """can_move(p, 'step') of a step with one kind of move is that move's own existence test."""
        name = known.get(1)
        if not isinstance(name, str) or keywords:
            return None
        if game.steps and name not in game.steps:
            raise RuleValueError(f"no step '{name}'" + (f" ({close})" if (close := did_you_mean(name, game.steps))
                                                         else f" (steps: {', '.join(game.steps)})"))
        step = game.steps.get(name)
        if step is None or len(step.moves) != 1 or step.moves[0].exists is None:
            return None  # e.g. a step compiled later: the general form looks it up when called
        return step.moves[0].exists, {1}

    def name_of(p):
        return game.player_names[p]

    def seat(name):
        try:
            return game.player_names.index(name)
        except ValueError:
            raise RuleValueError(f"no player named '{name}'") from None

    def next_seat(p, k=1):
        return (p + k) % game.num_players

    B = Builtin
    table = [
        B("cell", cell, 1, 1, "cell(name)", "The cell with this name.", "board", fold=True),
        B("at", lambda S, c: S.cells[c], 1, 1, "at(c)", "The piece on cell c, or none.", "board", state=True,
          inline="_cells[{0}]"),
        B("empty", lambda S, c: S.cells[c] is None, 1, 1, "empty(c)", "True when no piece stands on cell c.",
          "board", state=True, inline="_cells[{0}] is None"),
        B("step", step_, 2, 2, "step(c, direction)", "The neighbour of c in a direction, or none.", "board",
          fold=True),
        B("ray", ray, 2, 2, "ray(c, direction)",
          "The cells from c (exclusive) in a direction up to the edge of the board.", "board", fold=True),
        B("link", link, 2, 3, "link(name, c, key=none)",
          "Where a declared link leads from c (per key, e.g. per colour), or none.", "board", fold=True),
        B("walk", walk, 3, 4, "walk(name, c, steps, key=none)",
          "The cells passed by following a link `steps` times, or none if it runs out.", "board", fold=True),
        B("route", route, 3, 4, "route(name, c, steps, key=none)",
          "Like walk, but each step as a pair (cell, key): the key a link switched to (e.g. a fast lane).",
          "board", fold=True),
        B("groups", groups, 1, 1, "groups(cells)", "The connected groups among these cells (board adjacency).",
          "board", fold=True),
        B("lines", lines, 1, 2, "lines(length, directions=all)",
          "Every straight line of `length` cells along the directions (a name or a list); for n-in-a-row "
          "goals. Opposite directions give each line twice: list one of each pair.", "board", fold=True),
        B("group_sizes", group_sizes, 1, 1, "group_sizes(cells)",
          "Sizes of the connected groups among these cells, largest first.", "board", fold=True),
        B("can_push", can_push, 3, 3, "can_push(from, to, within)",
          "True when the piece on `from` can move in a straight line to `to`, pushing the pieces in its way, "
          "with every moved piece ending inside the region `within`.", "board", state=True),
        B("push_targets", push_targets, 3, 3, "push_targets(from, direction, within)",
          "The cells `to` along the direction from `from` for which can_push(from, to, within) holds.",
          "board", state=True, specialise=specialise_push_targets),
        B("owned", owned, 1, 2, "owned(player, within=all cells)",
          "The cells holding a piece whose `owner` is player.", "pieces", state=True),
        B("occupied", occupied, 0, 1, "occupied(within=all cells)", "The cells holding a piece.", "pieces",
          state=True),
        B("pieces", pieces, 1, 1, "pieces(where)", "The pieces in a zone, or on the cells of a region or list of cells.",
          "pieces", state=True),
        B("piece", piece, 1, 1, "piece(kind, attribute=value, ...)", "The piece of that kind and attributes.",
          "pieces", keywords=("*",), fold=True, specialise=specialise_piece),
        B("with_attr", with_attr, 1, 1, "with_attr(piece, attribute=value, ...)",
          "The same piece with some attributes changed.", "pieces", keywords=("*",), fold=True),
        B("can_move", game.has_moves, 1, 2, "can_move(player, step=current step)",
          "True when the player would have a legal move (a pass does not count).", "flow", state=True,
          specialise=specialise_can_move),
        B("name_of", name_of, 1, 1, "name_of(player)", "The player's name.", "players", fold=True),
        B("seat", seat, 1, 1, "seat(name)", "The player with this name.", "players", fold=True),
        B("next_seat", next_seat, 1, 2, "next_seat(player, k=1)", "The player k seats clockwise.", "players",
          fold=True),
        B("push", push, 2, 2, "push(from, to)",
          "Move the piece on `from` in a straight line to `to`; pieces in its way are pushed ahead.",
          "effects", state=True, effect=True),
        B("place", place, 2, 2, "place(piece, where)", "Put a piece on an empty cell or into a zone.",
          "effects", state=True, effect=True),
        B("remove", remove, 1, 2, "remove(where, piece)", "Take the piece off a cell, or one piece out of a zone.",
          "effects", state=True, effect=True),
        B("move", move, 2, 3, "move(from, to, piece)",
          "Move a piece between places (cells or zones); from a zone, name the piece.", "effects",
          state=True, effect=True),
        B("move_all", move_all, 2, 2, "move_all(from_zone, to_zone)", "Move every piece of one zone to another.",
          "effects", state=True, effect=True),
        B("set_attr", set_attr, 1, 1, "set_attr(c, attribute=value, ...)",
          "Change attributes of the piece on cell c.", "effects", state=True, effect=True, keywords=("*",)),
        B("goto", goto, 1, 1, "goto(step)", "Continue at this step after the current move.", "effects",
          state=True, effect=True),
        B("end_turn", end_turn, 0, 0, "end_turn()", "End the turn after the current move.", "effects",
          state=True, effect=True),
    ]
    return {b.name: b for b in table}
