"""What a seat observes as a fixed-shape vector of numbers, and as strings: built on the Observer only.

The entries, in order: board planes (for each piece kind, a plane of the cells it stands on, then one plane per
value of each attribute declared with values, or one plane of the attribute's number); per place of each zone,
how many pieces it holds and, where the seat sees it, how many of each kind and attribute value (and, for a zone
declared `observe: slots`, which piece each slot holds); per place of each variable, its number (0 where it is
unseen or not a number), and for a list of items of a kind known at load, how many of each value (and which value
each slot holds, where it has a capacity: observe_lists.py); who is to move (one entry per seat, then chance and
game over); the current step; the rule file's own `features:` (a family of them for a feature giving a list).
"""

from __future__ import annotations

import json

from .. import budget
from ..errors import GameRuntimeError
from ..ir.layout import place_type
from ..lang import types as T
from ..lang.builtins import RuleValueError
from ..limits import MAX_OBSERVATION_ENTRIES, MOVE_SECONDS
from .observe_lists import Coding, item_coding
from .observer import Hidden, Observer
from .serialize import observation

_BOUND = 1e30  # numbers are clamped to this size (a rule value may be far larger than a float)
_FAILURES = (RuleValueError, ArithmeticError, LookupError, TypeError, ValueError, AttributeError)


class ObservationTensor:
    """The layout of a game's observation vectors: `size` entries, each named by describe()."""

    def __init__(self, game):
        self.game = game
        rules = self.rules = game.rules
        self._cells = list(rules.board.cells)
        self._planes = []  # (kind, attribute or None, value or None): a plane over the board's cells
        for kind in rules.kinds.values():
            self._planes.append((kind.name, None, None))
            for attr, spec in kind.attributes.items():
                for value in spec.get("values") or [None]:
                    self._planes.append((kind.name, attr, value))
        self._counts = list(self._planes)  # what a zone's place counts, besides its size
        pieces = Coding([_plane_name(p) for p in self._counts], self._encode_piece)
        # a zone's slots (`observe: slots` with a capacity): the piece each slot holds, coded as its counts are
        self._zone_slots = [h.capacity if h.slots and pieces.slots_fit(h.capacity) else 0 for h in rules.zones]
        self._pieces = pieces
        ir_types = {h.name: h.type for h in (rules.ir.holders if rules.ir is not None else ()) if h.kind == "var"}
        # a variable's list items: their coding (None: its number only) and its slots (0: none)
        self._var_codings = [item_coding(place_type(ir_types.get(h.name, T.ANY), h), rules, pieces)
                             for h in rules.vars]
        self._var_slots = [h.capacity if c is not None and c.slots_fit(h.capacity) else 0
                           for h, c in zip(rules.vars, self._var_codings)]
        self._zone_places = [(holder, [owner for owner, _ in holder.places(value)])
                             for holder, value in zip(rules.zones, game.new_initial_state().zones)]
        self._var_places = [(holder, [owner for owner, _ in holder.places(value)])
                            for holder, value in zip(rules.vars, game.new_initial_state().vars)]
        self._steps = list(rules.steps)
        self._check_size()
        names = [f"board {_plane_name(p)} @ {c.name}" for p in self._planes for c in self._cells]
        for (holder, owners), slots in zip(self._zone_places, self._zone_slots):
            for owner in owners:
                place = holder.name if owner is None else f"{holder.name}[{owner}]"
                names += [f"zone {place} size"] + [f"zone {place} {_plane_name(p)}" for p in self._counts]
                names += [f"zone {place} slot {i} {label}" for i in range(slots) for label in pieces.labels]
        for (holder, owners), coding, slots in zip(self._var_places, self._var_codings, self._var_slots):
            for owner in owners:
                place = holder.name if owner is None else f"{holder.name}[{owner}]"
                names.append(f"var {place}")
                if coding is not None:
                    names += [f"var {place} count {label}" for label in coding.labels]
                    names += [f"var {place} slot {i} {label}" for i in range(slots) for label in coding.labels]
        names += [f"to move {name}" for name in rules.player_names] + ["to move chance", "game over"]
        names += [f"step {name}" for name in self._steps]
        self._families = self._family_sizes(game)  # a feature giving a list: its length; a number: None
        for (name, _, _), size in zip(rules.features, self._families):
            names += [f"feature {name}"] if size is None else [f"feature {name}[{i}]" for i in range(size)]
        self._names = names

    def _check_size(self) -> None:
        """An error, before any entry is named, when the vector would be larger than MAX_OBSERVATION_ENTRIES: each
        part is bounded, but a board of many cells and kinds, or many places of many slots, add up."""
        labels = len(self._pieces.labels)
        total = len(self._planes) * len(self._cells) + len(self.rules.player_names) + 2 + len(self._steps)
        for (_, owners), slots in zip(self._zone_places, self._zone_slots):
            total += len(owners) * (1 + len(self._counts) + slots * labels)
        for (_, owners), coding, slots in zip(self._var_places, self._var_codings, self._var_slots):
            total += len(owners) * (1 + (0 if coding is None else len(coding.labels) * (1 + slots)))
        if total > MAX_OBSERVATION_ENTRIES:
            raise GameRuntimeError("observation", 0, f"the observation vector would have {total:,} entries, more "
                                   f"than the {MAX_OBSERVATION_ENTRIES:,} allowed", None,
                                   "observe fewer places: fewer slots (observe: slots, capacity:), piece attribute "
                                   "values or keyed places")

    @property
    def size(self) -> int:
        return len(self._names)

    @property
    def planes(self) -> list:
        """The board planes in order: (piece kind, attribute or None, value or None)."""
        return list(self._planes)

    @property
    def steps(self) -> list:
        """The step names of the one-hot entries of the current step, in order."""
        return list(self._steps)

    @property
    def board_only(self) -> bool:
        """Whether the vector reads only the board, who is to move and the step (no zone, variable or feature):
        then every seat observes the same vector, and it is a function of those arrays alone."""
        return not self._zone_places and not self._var_places and not self.rules.features

    @property
    def shape(self) -> tuple[int]:
        return (len(self._names),)

    def describe(self) -> list[str]:
        """The name of each entry, in order."""
        return list(self._names)

    def values(self, state, seat: int) -> list[float]:
        """The vector `seat` observes at `state` (a list of `size` floats)."""
        seen = Observer(self.rules, seat, state.revealed, state)
        out = []
        cells = state.cells
        for kind, attr, value in self._planes:
            for c in self._cells:
                piece = cells[c]
                out.append(0.0 if piece is None or piece.kind != kind else
                           1.0 if attr is None else _match(piece, attr, value))
        width = len(self._counts)
        for (holder, owners), raw, slots in zip(self._zone_places, state.zones, self._zone_slots):
            shown = seen.value(holder, raw)
            for owner in owners:
                place = shown if owner is None else shown[owner]
                if isinstance(place, Hidden):
                    out += [float(place.count or 0)] + [0.0] * (width + slots * width)
                    continue
                pieces = place if isinstance(place, list) else []
                out.append(float(len(pieces)))
                for kind, attr, value in self._counts:
                    out.append(sum(0.0 if getattr(p, "kind", None) != kind else 1.0 if attr is None else
                                   _match(p, attr, value) for p in pieces) + 0.0)
                if slots:
                    out += self._pieces.slots(pieces, slots)
        for (holder, owners), raw, coding, slots in zip(self._var_places, state.vars, self._var_codings,
                                                        self._var_slots):
            shown = seen.value(holder, raw)
            for owner in owners:
                place = shown if owner is None else shown[owner]
                out.append(_number(place))
                if coding is not None:
                    # unseen (Hidden) or not a list (none before it is dealt): zeros
                    items = place if isinstance(place, (list, tuple)) else ()
                    out += coding.counts(items) + coding.slots(items, slots)
        acting = set(state.acting_players())  # none at a chance node or once the game is over
        out += [1.0 if p in acting else 0.0 for p in range(self.rules.num_players)]
        out += [1.0 if state.is_chance_node() else 0.0, 1.0 if state.terminal else 0.0]
        out += [1.0 if name == state.step and not state.terminal else 0.0 for name in self._steps]
        if self.rules.features:
            out += self._features(state, seen, seat)
        return out

    def _encode_piece(self, piece) -> list:
        """A piece (or any item) as zone counts code it: per plane, 1.0 where it is on it (or an attribute's number)."""
        return [0.0 if getattr(piece, "kind", None) != kind else 1.0 if attr is None else _match(piece, attr, value)
                for kind, attr, value in self._counts]

    def _family_sizes(self, game) -> list:
        """Per feature, None for a number; for one typed a list (a family), its length: worked out at load, on the
        starting position as the first seat sees it, and the same in every observation after."""
        typed = (self.rules.ir.exprs if self.rules.ir is not None else {})
        sizes = []
        for _, _, path in self.rules.features:
            nodes = typed.get(path) or ()
            found = nodes[0].type if nodes else T.ANY
            listed = found.name != "any" and T.kinds(found) <= {T.LIST, T.TUPLE, T.RANGE}
            sizes.append(None if not listed else -1)
        if any(size is not None for size in sizes):
            start = game.new_initial_state()
            start = start.python() if hasattr(start, "python") else start  # (a compiled state: the engine's)
            values = self._feature_values(start, Observer(self.rules, 0, start.revealed, start), 0)
            sizes = [None if size is None else len(value) for size, value in zip(sizes, values)]
        return sizes

    def _features(self, state, seen: Observer, seat: int) -> list[float]:
        """The file's own features as numbers: a family's list, checked against its length, gives one each."""
        found = []
        for (name, _, path), size, value in zip(self.rules.features, self._families,
                                               self._feature_values(state, seen, seat)):
            if size is None and not isinstance(value, (bool, int, float)):
                raise self._error(state, name, path, f"feature '{name}' gave {type(value).__name__} "
                                  f"'{str(value)[:40]}', not a number")
            if size is not None and isinstance(value, (bool, int, float)):
                raise self._error(state, name, path, f"feature '{name}' gave a number, where it gave a list on "
                                  "the starting position")
            if size is None:
                found.append(_number(value))
            elif len(value) != size:
                raise self._error(state, name, path, f"feature '{name}' gave a list of {len(value):,} numbers, where "
                                  f"it gave {size:,} on the starting position",
                                  "a feature giving a list gives one of the same length in every position "
                                  "(e.g. one number per value of a constant list)")
            else:
                found += [_number(v) for v in value]
        return found

    def _feature_values(self, state, seen: Observer, seat: int) -> list:
        """The file's own features, worked out on a copy of the state holding only what the seat sees: each a
        number, or a list of numbers for one the IR types as a list."""
        view = state.clone()
        view.zones = [h.map(v, lambda o, p, h=h: p if seen.sees(h, o) else []) for h, v in zip(self.rules.zones,
                                                                                                 state.zones)]
        view.vars = [h.map(v, lambda o, p, h=h: p if seen.sees(h, o) else None) for h, v in zip(self.rules.vars,
                                                                                                 state.vars)]
        view.pending = {p: m for p, m in seen.pending(state).items() if m is not None}
        view.last = seen.last_move(state)
        found = []
        for name, fn, path in self.rules.features:
            try:
                value = fn(view, seat)
            except _FAILURES as exc:
                raise self._error(state, name, path, f"feature '{name}' failed: {exc}") from None
            except budget.TimeBudgetExceeded as exc:
                raise self._error(state, name, path, f"feature '{name}' failed: {exc}",
                                  "a feature is worked out for every observation: keep it quick") from None
            if isinstance(value, (bool, int, float)):
                found.append(value)
            elif isinstance(value, (list, tuple, range)) and all(isinstance(v, (bool, int, float)) for v in value):
                found.append(value)
            else:
                raise self._error(state, name, path, f"feature '{name}' gave {type(value).__name__} "
                                  f"'{str(value)[:40]}', not a number")
        return found

    def _error(self, state, name, path, message,
               hint="a feature is a number, true/false or a list of them, worked out from what the seat sees"):
        where = self.rules.where
        return GameRuntimeError(f"feature {name}", state.turn, message, where(path) if where else None, hint)


def observation_string(state, seat: int) -> str:
    """What `seat` sees of the position now (no history), as one line of JSON with sorted keys."""
    seen = observation(state, seat)
    for key in ("history", "secret", "ply"):
        seen.pop(key, None)
    return json.dumps(seen, sort_keys=True, separators=(",", ":"))


def information_state_string(state, seat: int) -> str:
    """What `seat` sees of the position and of the history that led to it, as one line of JSON."""
    return json.dumps(observation(state, seat), sort_keys=True, separators=(",", ":"))


def _match(piece, attr: str, value) -> float:
    """1.0 when the piece's attribute has `value`; for an attribute without declared values, its number."""
    found = piece.__dict__.get(attr)
    return _number(found) if value is None else 1.0 if found == value else 0.0


def _number(value) -> float:
    if isinstance(value, (bool, int, float)):
        try:
            number = float(value)
        except OverflowError:
            return _BOUND if value > 0 else -_BOUND
        return max(-_BOUND, min(_BOUND, number)) if number == number else 0.0
    return 0.0


def _plane_name(plane: tuple) -> str:
    kind, attr, value = plane
    return kind if attr is None else f"{kind}.{attr}" if value is None else f"{kind}.{attr}={value}"


budget.guard(ObservationTensor._feature_values, MOVE_SECONDS, "working out the observation features")
