"""The data of a game position that compiled rule code reads and writes: the model's contract with the engine."""

from __future__ import annotations

from ..lang.held import items


class Position:
    """What rule code sees of a running game. The engine's State extends it with history, chance and flow.

    - `cells`: the piece on each board cell (None when empty), indexed by cell
    - `zones`, `vars`: each declared zone and variable's value, in declaration order (a list per player
      for `per: player`, a table per key for those declared with `keys:`, such as one place per cell)
    - `player`: whose turn it is; `turn`: turns completed; `step`: the name of the current step
    - `last`: the last move a player made (a Move; None before the first), read by `last_move` and `mover`
    - `revealed`: the zone places shown to everyone by reveal(), as a frozenset of (zone name, seat or key)
    - `goto`: the step an effect asked to continue at (None: the rule's own next step); once an effect has
      called chance(), a tuple: the step asked for (or None), then each draw asked for as (step, inputs)
    - `calls`: while a chance step called by chance() waits for its outcome, (where play resumes once the
      draws are made, then that draw's (step, inputs), then those of the draws still waiting); else ()
    - `left`: the seats that have left the game (leave()), in the order they left; turns pass them by
    - `changes`: a count of the writes to each part of the position: [0] the cells, then each zone and each
      variable in declaration order (see Rules.part_of). Whatever writes a part counts it, so that a value
      worked out from parts whose counts have not moved is still good (the engine keeps end checks so).
      Code that replaces the position wholesale calls `changed()`.
    - `tallies`: counts of the items of a zone by the value of one attribute, and where the pieces of a
      region stand by the value of one attribute, kept with the count of writes they were made at (see
      `tally` and `located`).
    - `held`: never fewer than the items the zones and variables hold (lang/held.py counts them): every write
      that may add some adds their number (putting a piece into a zone adds one), and the engine counts them
      exactly when it passes limits.MAX_STATE_ITEMS, so that a game cannot keep growing what it holds.

    Generated code names only these fields and `clone()` (tests/test_layers.py checks it).

    The fields are the game's data (DATA: what a position is, saved and held as arrays by engine/arrays.py), the
    interpreter's memo (MEMO: counts and tallies kept to answer faster, worked out again from the data by
    `rebuild_memo`), and `goto`, which lives only while a move's effects run.
    """

    __slots__ = ("cells", "zones", "vars", "player", "turn", "step", "last", "revealed", "goto", "calls", "changes",
                 "tallies", "left", "held")
    DATA = ("cells", "zones", "vars", "player", "turn", "step", "last", "revealed", "calls", "left")
    MEMO = ("changes", "tallies", "held")
    PASSING = ("goto",)

    def rebuild_memo(self) -> None:
        """Drop the memo and start it again from the data alone: no write counted, nothing tallied, and the items
        the zones and variables hold counted exactly. Play goes on as it would have."""
        self.changes = [0] * (1 + len(self.zones) + len(self.vars))
        self.tallies = {}
        self.held = sum(items(value) for value in self.zones + self.vars)

    def changed(self) -> None:
        """Count a write to every part: the position was replaced (read from a file, resampled)."""
        self.changes = [n + 1 for n in self.changes]

    def tally(self, part: int, key, zone: list, attribute: str, value) -> int:
        """How many items of `zone` have `attribute` equal to `value`: what the compiler makes of
        count(x for x in zone if x.attribute == value). `part` is the zone's part of the position and `key`
        which of its places it is (a seat, a key, or None). The counts of every value are worked out once and
        kept while nothing writes the zone, so asking for each value in turn reads the zone once."""
        stamp = self.changes[part]
        found = self.tallies.get((part, key, attribute))
        try:
            if found is None or found[0] != stamp:
                counts: dict = {}
                for item in zone:
                    seen = getattr(item, attribute)
                    counts[seen] = counts.get(seen, 0) + 1
                found = self.tallies[part, key, attribute] = (stamp, counts)
            return found[1].get(value, 0)
        except TypeError:  # values that cannot be keys (lists): counted as written (a loop, for the blame
            number = 0     # of an error in rule code: see engine/state.py)
            for item in zone:
                number += getattr(item, attribute) == value
            return number

    def located(self, region, attribute: str, values) -> list:
        """The cells of `region` (a constant in board order) holding a piece whose `attribute` is one of
        `values`, in that order: what the compiler makes of [x for x in region if not empty(x) and
        at(x).attribute in values] (see model/scans.py). Where the region's pieces stand by the attribute's
        value is worked out once and kept while no cell is written, so asking for each side's pieces in
        turn reads the board once."""
        cells = self.cells
        if values.__class__ is list or values.__class__ is tuple:
            stamp = self.changes[0]
            key = ("located", id(region), attribute)  # the region is a constant of the rules: its id stays
            found = self.tallies.get(key)
            if found is None or found[0] != stamp:
                where: dict | None = {}
                try:
                    for c in region:
                        piece = cells[c]
                        if piece is not None:
                            value = getattr(piece, attribute)
                            spot = where.get(value)
                            if spot is None:
                                where[value] = [c]
                            else:
                                spot.append(c)
                except TypeError:  # a value that cannot be a key (a list): scanned as written, below
                    where = None
                found = self.tallies[key] = (stamp, where)
            where = found[1]
            if where is not None:
                try:
                    if len(values) == 1:
                        return list(where.get(values[0], ()))
                    return sorted({c for value in values for c in where.get(value, ())})
                except TypeError:  # values that cannot be keys: scanned as written
                    pass
        return [c for c in region if cells[c] is not None and getattr(cells[c], attribute) in values]

    def occurrences(self) -> int:
        """How often the position as it is now has occurred in this game, counting this one (repeated(n)); only
        a game whose rules call repeated() counts them (see engine/repetition.py)."""
        raise NotImplementedError

    def clone(self) -> "Position":
        """An independent copy (compound moves try their parts on one)."""
        raise NotImplementedError

    def snapshot(self):
        """The board, zones and variables as a value equal to another position's exactly when they are the same
        (moves that declare one_per_position are told apart by what they leave)."""
        raise NotImplementedError
