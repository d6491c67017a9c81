"""A state as numpy arrays in its game's layout (ir/layout.py), and back: losslessly, what a compiled backend holds.

`to_arrays(state, layout)` gives a dict of arrays named as the layout's leaves; `from_arrays(arrays, layout,
game)` the State again, its memo worked out anew (Position.rebuild_memo). A slot that does not fit its layout is
held in an array of Python values (dtype object), so every state makes the round trip; those are the game's own
objects (its pieces, its rules' moves), to be read back by the same game in the same process, where arrays of
numbers go anywhere. A state that does not fit the layout it claims (a saved state holding more pieces than a zone can) and arrays that are not a state of
the layout (a wrong shape, an index out of range) are RulesErrors saying which slot and why, never a traceback.
"""

from __future__ import annotations

import copy
import hashlib
import json
import weakref

from ..errors import Location, Problem, RulesError
from ..ir.forms import Atom, Choice, Fixed, Keyed, Many, Nothing, OneOf
from ..model.rules import Move
from ..model.values import Cell, Piece, text_of
from .rng import MASK, SplitMix64
from .serialize import encode
from .state import State, _cloned


class _Misfit(Exception):
    """A value its form cannot hold, or arrays that hold no value of a form."""


def to_arrays(state, layout, encode_moves: bool = True) -> dict:
    """The arrays of `state` in `layout` (the layout of the state's game), name -> numpy array; without
    `encode_moves`, the history's arrays are left blank (for a backend that keeps the history beside its arrays)."""
    return _codec(layout, state.game).arrays(state, encode_moves)


def from_arrays(arrays: dict, layout, game, history: list | None = None) -> State:
    """The state whose arrays in `layout` (that of `game`) are `arrays`, with its memo rebuilt. `history`: the
    moves of its history (those after the notation read from a saved state) as they are, in place of reading them
    from their arrays (see log_arrays' `encode_moves`)."""
    codec = _codec(layout, game)
    codec.given_history = history
    return codec.state(arrays)


def position_words(state, layout):
    """The words of the position of `state` (its board, zones and variables: layout.position_slots()) as one int64
    array, each array of those slots flattened in layout order (unsigned arrays by their bits), places that hold
    nothing zero: the words a compiled backend holds them in. The layout holds the position in words
    (Layout.position_in_words)."""
    import numpy as np
    codec = _codec(layout, state.game, fresh=False)
    runs = []
    for slot in layout.position_slots():
        out = {leaf.name: np.zeros(leaf.shape, dtype=leaf.dtype) for leaf in slot.leaves()}
        try:
            codec._write(slot, state, out, (), 0)
        except _Misfit as exc:
            raise codec._error(slot.name, str(exc), slot.decl) from None
        runs += [a.reshape(-1).view(np.int64) if a.dtype == np.uint64 else a.reshape(-1).astype(np.int64)
                 for a in out.values()]
    return np.concatenate(runs) if runs else np.zeros(0, np.int64)


def log_arrays(history: list, secret: dict, layout, game, encode_moves: bool = True) -> dict:
    """The arrays of the log slots (the history, its secret entries, the moves read from a saved state) of a state
    whose history is `history` (moves, after the notation of those read from a saved state) and `secret` (ply ->
    seats that saw it): what a backend holding the rest of the state as arrays keeps beside them. Without `encode_moves`,
    the history's arrays are left blank (for from_arrays given the history: a history written into arrays and read
    back at every conversion would make a long game's conversions quadratic)."""
    import numpy as np
    codec = _codec(layout, game)
    imported = 0
    while imported < len(history) and isinstance(history[imported], str):
        imported += 1
    moves = history[imported:]
    rows = {"history": len(moves), "secret": len(history), "imported": imported, "positions": 0}
    out = {}
    for slot, leaves in codec.slots:
        if slot.kind != "log" or slot.name == "positions":  # (the backend's own arrays hold those)
            continue
        for leaf in leaves:
            shape = tuple(rows[slot.name] if d is None else d for d in leaf.shape)
            out[leaf.name] = np.empty(shape, dtype=object) if leaf.dtype == "object" else np.zeros(shape, leaf.dtype)
        try:
            if slot.name == "history" and not slot.fits:
                for r, move in enumerate(moves):
                    out["history"][r] = move
            elif slot.name == "history" and not encode_moves:
                pass
            else:
                getattr(codec, "_put_" + slot.name)(slot, _Log(history, secret), out, moves, imported)
        except _Misfit as exc:
            raise codec._error(slot.name, str(exc), slot.decl) from None
    return out


class _Log:
    """The parts of a state log_arrays reads."""

    __slots__ = ("history", "secret")

    def __init__(self, history, secret):
        self.history, self.secret = history, secret


def digest(arrays: dict) -> str:
    """A hash of a state's arrays (SHA-256, hex): equal for equal states, whichever process made them."""
    import numpy as np
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = arrays[name]
        h.update(f"{name}:{a.dtype}:{a.shape};".encode())
        if a.dtype == object:
            h.update(json.dumps([_plain(v) for v in a.ravel()], default=str).encode())
        else:
            h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def piece_table(layout) -> np.ndarray:
    """Every piece value of the layout as a row: its kind's number, then each attribute's value as its place in
    the declared values (-1 past the kind's attributes); row 0 is no piece (kind -1)."""
    import numpy as np
    width = 1 + max((len(k.attributes) for k in layout.kinds), default=0)
    table = np.full((layout.pieces, width), -1, dtype="int32")
    for number, kind in enumerate(layout.kinds):
        for offset in range(kind.size):
            rest, row = offset, []
            for _, values in reversed(kind.attributes):
                row.append(rest % len(values))
                rest //= len(values)
            table[kind.first + offset, :1 + len(row)] = [number, *reversed(row)]
    return table


def _plain(value):
    """A value of an object array as JSON data (moves by their rule's path, args and player)."""
    if isinstance(value, Move):
        return ["move", list(value[0].path), encode(list(value[1])), value[2]]
    return encode(value)


def _key(value) -> tuple:
    return value.__class__, value  # (True and 1 are different attribute values)


_CODECS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # game -> (layout, its _Codec)


def _codec(layout, game, fresh: bool = True) -> "_Codec":
    """A codec of `game` in `layout` for one conversion: its tables are made once per game (a compiled state
    converts at every read of its observation or its saved form), its fields of one conversion fresh (without
    `fresh`, the game's own codec, for writing arrays only)."""
    kept = _CODECS.get(game)
    if kept is None or kept[0] is not layout:
        kept = _CODECS[game] = (layout, _Codec(layout, game))
    if not fresh:
        return kept[1]
    codec = copy.copy(kept[1])
    codec._links = {}
    return codec


class _Codec:
    """Values of one game in and out of arrays of its layout."""

    def __init__(self, layout, game):
        import numpy as np
        self.layout, self.game, rules = layout, game, game.rules
        self.given_history = None  # (from_arrays' `history`)
        self.slots = [(slot, slot.leaves()) for slot in layout.slots.values()]
        # each array of the layout as (slot name, leaf, its dtype): what _check asks of arrays given
        self.expected = [(slot.name, leaf, np.dtype(leaf.dtype)) for slot, leaves in self.slots for leaf in leaves]
        self.pieces: dict = {}  # number -> the piece it is (see piece)
        self.cells = rules.board.cells
        self.kinds = {}  # kind name -> (Kind, [value -> place] per attribute, strides)
        for kind in layout.kinds:
            strides, stride = [], 1
            for _, values in reversed(kind.attributes):
                strides.insert(0, stride)
                stride *= len(values)
            places = [{_key(v): i for i, v in enumerate(values)} for _, values in kind.attributes]
            self.kinds[kind.name] = (kind, places, strides)
        self.label_of = {m.path: m.label for m in layout.moves}
        self.rule_of = {}
        for m in layout.moves:
            if m.path[0] == "moves":
                self.rule_of[m.label] = rules.moves[m.path[1]]
                continue
            step = rules.steps[m.path[2]]
            what = m.label.rsplit(".", 1)[1]
            self.rule_of[m.label] = (step.pass_rule if what == "pass" else step.draw.rule if what == "draw" else
                                     game.arrangement_rule(step) if what == "arrangement" else
                                     next(r for r in step.moves if r.path == m.path))
        self.places = {place: i for i, place in enumerate(layout.zone_places)}
        self.holders = {f"zone.{h.name}": (h, i, "zones") for i, h in enumerate(rules.zones)}
        self.holders.update({f"var.{h.name}": (h, i, "vars") for i, h in enumerate(rules.vars)})
        self._index: dict = {}  # id(Choice) -> label -> its place
        self._links: dict = {}  # read from arrays: the history's entries that are the last move, and pending

    # -- a state to arrays --------------------------------------------------------------------------------------
    def arrays(self, S, encode_moves: bool = True) -> dict:
        import numpy as np
        if S.goto is not None:
            raise self._error("goto", "the state is in the middle of a move (its effects asked to go on elsewhere)")
        imported = 0
        while imported < len(S.history) and isinstance(S.history[imported], str):
            imported += 1
        moves = S.history[imported:]
        if any(not isinstance(m, Move) for m in moves):
            raise self._error("history", "the history holds moves read from a saved state after moves made since")
        rows = {"history": len(moves), "secret": len(S.history), "imported": imported, "positions": len(S.positions)}
        out = {}
        for slot, leaves in self.slots:
            n = rows.get(slot.name)
            for leaf in leaves:
                shape = tuple(n if d is None else d for d in leaf.shape)
                out[leaf.name] = np.empty(shape, dtype=object) if leaf.dtype == "object" else \
                    np.zeros(shape, dtype=leaf.dtype)
            if slot.name == "history" and not encode_moves:
                continue
            try:
                self._write(slot, S, out, moves, imported)
            except _Misfit as exc:
                raise self._error(slot.name, str(exc), slot.decl) from None
        return out

    def _write(self, slot, S, out, moves, imported) -> None:
        name = slot.name
        if name in self.holders:
            holder, i, group = self.holders[name]
            value = getattr(S, group)[i]
            places = list(holder.places(value))
            if [owner for owner, _ in places] != ([None] if slot.places is None else list(slot.places)):
                raise _Misfit(f"its places are not those of its declaration ({len(places)} found)")
            for row, (_, place) in enumerate(places):
                at = () if slot.places is None else (row,)
                if slot.fits:
                    self.put(slot.form, place, out, at)
                else:
                    out[name][at] = _cloned(place)
            return
        if not slot.fits:  # an engine field kept as it is (moves, draws waiting: values that never change)
            if name == "history":
                for r, move in enumerate(moves):
                    out[name][r] = move
            else:
                out[name][()] = getattr(S, name)
            return
        writer = getattr(self, "_put_" + name, None)
        if writer is not None:
            writer(slot, S, out, moves, imported)
        else:
            self.put(slot.form, getattr(S, name), out, ())

    def _put_cells(self, slot, S, out, *_):
        if len(S.cells) != len(self.cells):
            raise _Misfit(f"{len(S.cells)} cells, not the board's {len(self.cells)}")
        leaf = out["cells"]
        for c, piece in enumerate(S.cells):
            leaf[c] = 0 if piece is None else self.piece_id(piece)

    def _put_revealed(self, slot, S, out, *_):
        for place in S.revealed:
            if place not in self.places:
                raise _Misfit(f"{text_of(list(place))[:60]} is not a place of a zone")
            out["revealed"][self.places[place]] = True

    def _put_rng(self, slot, S, out, *_):
        rng = S._rng
        if rng is None:
            key, counter = S.seed & MASK, 0
        elif isinstance(rng, SplitMix64):
            key, counter = rng.getstate()
        else:
            raise _Misfit(f"the state draws from the {rng.stream} stream; arrays hold {SplitMix64.stream} only")
        out["rng"][:] = key, counter

    def _put_pending(self, slot, S, out, moves, _):
        waiting = list(S.pending.items())
        tail = moves[len(moves) - len(waiting):] if waiting else []
        if len(tail) != len(waiting) or any(m is not t or p != m[2] for (p, m), t in zip(waiting, tail)):
            raise _Misfit("the choices made at the simultaneous step are not the last moves of the history")
        out["pending"][()] = len(waiting)

    def _put_last_row(self, slot, S, out, moves, imported):
        row = next((i for i in range(len(S.history) - 1, -1, -1) if S.history[i] is S.last), -1)
        out["last_row"][()] = row if S.last is not None else -1

    def _put_calls(self, slot, S, out, *_):
        if S.calls:
            (then, caller, is_pass, me), draws = S.calls[0], S.calls[1:]
            self.put(slot.form, (then, caller, is_pass, me, tuple(draws)), out, ())

    def _put_history(self, slot, S, out, moves, _):
        for r, move in enumerate(moves):
            self.put(slot.form, move, out, (r,))

    def _put_secret(self, slot, S, out, *_):
        secret, seen = out["secret"], out["secret.seen"]
        for ply, seats in S.secret.items():
            if not (isinstance(ply, int) and 0 <= ply < len(secret)) or tuple(sorted(set(seats))) != tuple(seats) \
                    or any(not (isinstance(p, int) and 0 <= p < self.layout.seats) for p in seats):
                raise _Misfit(f"entry {text_of(ply)[:20]} is not a ply of the history seen by seats in order")
            secret[ply] = True
            for p in seats:
                seen[ply, p] = True

    def _put_imported(self, slot, S, out, moves, imported):
        for r in range(imported):
            out["imported"][r] = S.history[r]

    def _put_positions(self, slot, S, out, *_):
        out["positions"][:] = S.positions

    def put(self, form, value, out, at) -> None:
        """Write `value` in `form`'s arrays at index `at` (the places around it)."""
        kind = form.__class__
        if kind is Atom:
            out[form.leaf.name][at] = self.number(form, value)
        elif kind is Nothing:
            if value is not None:
                raise _Misfit(f"it holds {_shown(value)} where its type is none")
        elif kind is Fixed:
            if not _sequence(form, value, True) or len(value) != len(form.items):
                raise _Misfit(f"it holds {_shown(value)} where its type is a tuple of {len(form.items)}")
            for item, v in zip(form.items, value):
                self.put(item, v, out, at)
        elif kind is Many:
            if not _sequence(form, value, True):
                raise _Misfit(f"it holds {_shown(value)} where its type is a {form.kind}")
            if len(value) > form.capacity:
                raise _Misfit(f"it holds {len(value):,} items, more than the {form.capacity:,} its layout holds")
            out[form.length.name][at] = len(value)
            for i, v in enumerate(value):
                self.put(form.item, v, out, at + (i,))
        elif kind is Keyed:
            if not isinstance(value, dict):
                raise _Misfit(f"it holds {_shown(value)} where its type is a table")
            places = self._index.setdefault(id(form), {key: i for i, key in enumerate(form.keys)})
            out[form.order.name][at] = -1
            for order, (key, v) in enumerate(value.items()):
                i = places.get(key) if key.__class__ in _KEYS else None
                if i is None:
                    raise _Misfit(f"it holds the key {_shown(key)}, which its type does not allow")
                out[form.order.name][at + (i,)] = order
                self.put(form.value, v, out, at + (i,))
        elif kind is OneOf:
            for loose in (False, True):
                for k, member in enumerate(form.members):
                    if self.accepts(member, value, loose):
                        out[form.tag.name][at] = k
                        self.put(member, value, out, at)
                        return
            raise _Misfit(f"it holds {_shown(value)}, a value its type does not allow")
        else:
            self._put_choice(form, value, out, at)

    def _put_choice(self, form: Choice, value, out, at) -> None:
        if value is None:
            out[form.tag.name][at] = -1
            return
        if form.player is not None:  # a move: its rule, player and args
            if not isinstance(value, Move) or not -1 <= value[2] < self.layout.seats:
                raise _Misfit(f"it holds {_shown(value)} where a move is held")
            label, inner = self.label_of.get(value[0].path), value[1]
            out[form.player.name][at] = value[2]
        else:  # a draw waiting: its step and inputs
            label, inner = value
        index = self._index.setdefault(id(form), {label: i for i, label in enumerate(form.labels)}).get(label)
        if index is None:
            raise _Misfit(f"it holds {_shown(value)}, which is none of its kinds")
        out[form.tag.name][at] = index
        self.put(form.members[index], tuple(inner), out, at)

    def accepts(self, form, value, loose: bool = False) -> bool:
        """Whether `form` can hold `value` (which member of a OneOf holds a value: the first that can; `loose`: a
        list where a tuple is held, as a saved state gives tuples back)."""
        import numpy as np
        kind = form.__class__
        if kind is Nothing:
            return value is None
        if kind is Fixed:
            return _sequence(form, value, loose) and len(value) == len(form.items) \
                and all(self.accepts(item, v, loose) for item, v in zip(form.items, value))
        if kind is Many:
            return _sequence(form, value, loose) and len(value) <= form.capacity \
                and all(self.accepts(form.item, v, loose) for v in value)
        if kind is OneOf:
            return any(self.accepts(member, value, loose) for member in form.members)
        if kind is Keyed:
            return isinstance(value, dict) and all(k.__class__ in _KEYS and k in form.keys and
                                                   self.accepts(form.value, v, loose) for k, v in value.items())
        if kind is Atom:
            cls, what = value.__class__, form.kind
            if what in ("int", "seat"):
                info = np.iinfo(form.leaf.dtype)
                return cls is int and info.min <= value <= info.max
            return {"bool": cls is bool, "float": cls is float, "cell": cls is Cell, "piece": isinstance(value, Piece),
                    "text": cls is str and value in form.values}[what] and \
                (what != "piece" or self.kinds.get(value.kind) is not None)
        return False

    def number(self, form: Atom, value):
        """The number `value` is held as in an Atom's array."""
        if not self.accepts(form, value):
            raise _Misfit(f"it holds {_shown(value)}, which its {form.leaf.dtype} array for {form.kind} cannot hold")
        if form.kind == "piece":
            return self.piece_id(value)
        if form.kind == "text":
            return form.values.index(value)
        if form.kind == "cell":
            if not 0 <= value < len(self.cells):
                raise _Misfit(f"it holds {_shown(value)}, no cell of this board")
            return int(value)
        return value

    def piece_id(self, piece) -> int:
        found = self.kinds.get(piece.kind)
        if found is None:
            raise _Misfit(f"it holds {_shown(piece)}, a piece of no kind of this game")
        kind, places, strides = found
        number = kind.first
        for (attribute, value), place, stride in zip(piece.base, places, strides):
            index = place.get(_key(value))
            if index is None:
                raise _Misfit(f"it holds {_shown(piece)}, whose {attribute} is none of its declared values")
            number += index * stride
        return number

    # -- arrays to a state --------------------------------------------------------------------------------------
    def state(self, arrays: dict) -> State:
        rows = self._check(arrays)
        rules = self.game.rules
        S = State.__new__(State)
        S.game, S.rules, S.goto = self.game, rules, None
        S.zones, S.vars = [None] * len(rules.zones), [None] * len(rules.vars)
        S.positions = ()  # (read from its slot where the game counts positions)
        for slot in self.layout.slots.values():
            try:
                self._read(slot, S, arrays, rows)
            except (_Misfit, IndexError, ValueError, KeyError, TypeError, AttributeError) as exc:
                raise self._error(slot.name, f"the arrays hold no value of it: {exc}"[:300], source="arrays") from None
        try:
            self._link(S)
        except _Misfit as exc:
            raise self._error("pending", str(exc), source="arrays") from None
        if not (S.player.__class__ is int and 0 <= S.player < self.layout.seats):
            raise self._error("player", f"{text_of(S.player)[:20]} is no seat", source="arrays")
        S.rebuild_memo()
        return S

    def _check(self, arrays: dict) -> dict:
        """The rows of the log slots; a RulesError unless every array of the layout is there, of its dtype and
        shape."""
        import numpy as np
        rows = {}
        for name, leaf, dtype in self.expected:
            found = arrays.get(leaf.name)
            shape = leaf.shape
            if not isinstance(found, np.ndarray) or found.dtype != dtype or found.ndim != len(shape):
                raise self._error(leaf.name, f"should be an array of {leaf.dtype} with {len(shape)} dimensions",
                                  source="arrays")
            if shape and shape[0] is None:  # a log: the same rows in each of its arrays
                rows.setdefault(name, found.shape[0])
                shape = (rows[name], *shape[1:])
            if found.shape != shape:
                raise self._error(leaf.name, f"should have the shape {shape}, not {found.shape}", source="arrays")
        return rows

    def _read(self, slot, S, arrays, rows) -> None:
        name = slot.name
        if name in self.holders:
            holder, i, group = self.holders[name]
            get = (lambda at: self.get(slot.form, arrays, at)) if slot.fits else \
                (lambda at: _cloned(arrays[name][at]))
            if slot.places is None:
                value = get(())
            else:
                found = [get((row,)) for row in range(len(slot.places))]
                value = found if holder.per == "player" else dict(zip(slot.places, found))
            getattr(S, group)[i] = value
        elif not slot.fits:
            value = arrays[name]
            setattr(S, name, list(value) if name == "history" else value[()])
        elif hasattr(self, "_get_" + name):
            getattr(self, "_get_" + name)(slot, S, arrays, rows)
        else:
            setattr(S, name, self.get(slot.form, arrays, ()))

    def _get_cells(self, slot, S, arrays, rows):
        S.cells = [None if int(n) == 0 else self.piece(int(n)) for n in arrays["cells"]]

    def _get_revealed(self, slot, S, arrays, rows):
        S.revealed = frozenset(place for place, shown in zip(self.layout.zone_places, arrays["revealed"]) if shown)

    def _get_rng(self, slot, S, arrays, rows):
        key, counter = (int(v) for v in arrays["rng"])
        S.seed, S._rng = key, None  # (an unused stream is made from the seed when first drawn from)
        if counter:
            S._rng = SplitMix64(0)
            S._rng.setstate((key, counter))

    def _get_pending(self, slot, S, arrays, rows):
        self._links["pending"] = int(arrays["pending"][()])  # how many: the history's last moves (see _link)

    def _get_last_row(self, slot, S, arrays, rows):
        self._links["last_row"] = int(arrays["last_row"][()])

    def _get_calls(self, slot, S, arrays, rows):
        then, caller, is_pass, me, draws = self.get(slot.form, arrays, ())
        S.calls = ((then, caller, is_pass, me),) + draws if draws else ()

    def _get_history(self, slot, S, arrays, rows):
        given = self.given_history
        if given is not None:
            S.history = list(given[len(given) - rows.get("history", 0):])  # (the moves, after what was imported)
            return
        S.history = [self.get(slot.form, arrays, (r,)) for r in range(rows.get("history", 0))]

    def _get_secret(self, slot, S, arrays, rows):
        seen = arrays["secret.seen"]
        S.secret = {ply: tuple(p for p in range(self.layout.seats) if seen[ply, p])
                    for ply, marked in enumerate(arrays["secret"]) if marked}

    def _get_positions(self, slot, S, arrays, rows):
        S.positions = [int(key) for key in arrays["positions"]]
        if len(S.positions) > S.ply:
            raise _Misfit(f"{len(S.positions)} positions left, more than the {S.ply} moves made")

    def _get_imported(self, slot, S, arrays, rows):
        texts = list(arrays["imported"])
        if any(not isinstance(t, str) for t in texts):
            raise _Misfit("the moves read from a saved state should be their notation")
        S.history = texts + S.history

    def _link(self, S) -> None:
        """The moves a state holds twice, as the same objects: the last move, and the choices made at a
        simultaneous step, are entries of the history (views tell them apart by identity)."""
        row, count = self._links["last_row"], self._links["pending"]
        if row >= 0:
            if row >= len(S.history):
                raise _Misfit(f"the last move is entry {row} of a history of {len(S.history)}")
            S.last = S.history[row]
        tail = S.history[len(S.history) - count:] if count else []
        if len(tail) != count or any(not isinstance(m, Move) for m in tail):
            raise _Misfit(f"{count} choices are pending, more than the moves of the history")
        S.pending = {m[2]: m for m in tail}

    def get(self, form, arrays, at):
        """The value `form`'s arrays hold at index `at`."""
        kind = form.__class__
        if kind is Atom:
            return self.value(form, arrays[form.leaf.name][at])
        if kind is Nothing:
            return None
        if kind is Fixed:
            return tuple(self.get(item, arrays, at) for item in form.items)
        if kind is Many:
            n = int(arrays[form.length.name][at])
            if not 0 <= n <= form.capacity:
                raise _Misfit(f"{form.length.name} is {n}, beyond 0 to {form.capacity}")
            found = [self.get(form.item, arrays, at + (i,)) for i in range(n)]
            return found if form.kind == "list" else tuple(found)
        if kind is OneOf:
            return self.get(form.members[self._tag(form, arrays, at, len(form.members))], arrays, at)
        if kind is Keyed:
            placed = []
            for i, key in enumerate(form.keys):
                order = int(arrays[form.order.name][at + (i,)])
                if not -1 <= order < len(form.keys):
                    raise _Misfit(f"{form.order.name} is {order}, beyond -1 to {len(form.keys) - 1}")
                if order >= 0:
                    placed.append((order, key, self.get(form.value, arrays, at + (i,))))
            placed.sort(key=lambda found: found[0])
            if [order for order, _, _ in placed] != list(range(len(placed))):
                raise _Misfit(f"{form.order.name} does not number the table's keys 0, 1, 2...")
            return {key: value for _, key, value in placed}
        index = int(arrays[form.tag.name][at])
        if index == -1:
            return None
        index = self._tag(form, arrays, at, len(form.members))
        inner = self.get(form.members[index], arrays, at)
        if form.player is None:
            return form.labels[index], inner
        player = int(arrays[form.player.name][at])
        if not -1 <= player < self.layout.seats:
            raise _Misfit(f"{form.player.name} is {player}, no seat")
        return Move(self.rule_of[form.labels[index]], inner, player)

    @staticmethod
    def _tag(form, arrays, at, count: int) -> int:
        k = int(arrays[form.tag.name][at])
        if not 0 <= k < count:
            raise _Misfit(f"{form.tag.name} is {k}, beyond 0 to {count - 1}")
        return k

    def value(self, form: Atom, number):
        kind = form.kind
        if kind == "bool":
            return bool(number)
        if kind == "float":
            return float(number)
        number = int(number)
        if kind == "cell":
            if not 0 <= number < len(self.cells):
                raise _Misfit(f"{form.leaf.name} is {number}, no cell")
            return self.cells[number]
        if kind == "piece":
            return self.piece(number)
        if kind == "text":
            if not 0 <= number < len(form.values):
                raise _Misfit(f"{form.leaf.name} is {number}, beyond its {len(form.values)} values")
            return form.values[number]
        return number

    def piece(self, number: int):
        try:  # (pieces are values: one object serves every conversion)
            return self.pieces[number]
        except KeyError:
            pass
        for name, (kind, _, strides) in self.kinds.items():
            if kind.first <= number < kind.first + kind.size:
                rest, given = number - kind.first, {}
                for (attribute, values), stride in zip(kind.attributes, strides):
                    given[attribute] = values[rest // stride]
                    rest %= stride
                piece = self.pieces[number] = self.game.rules.kinds[name].make(given)
                return piece
        raise _Misfit(f"{number} is no piece (ids 1 to {self.layout.pieces - 1})")

    # -- errors ------------------------------------------------------------------------------------------------
    def _error(self, slot: str, message: str, decl: tuple | None = None, source: str = "state") -> RulesError:
        where = self.game.rules.where
        location = where(decl) if decl is not None and where is not None else None
        return RulesError([Problem(f"{source} of {self.layout.name}: {slot}: {message}",
                                   location or Location(source), "a state is held as arrays in its game's layout "
                                   "(rulesdsl.engine.arrays); see Layout.describe()")])


_KEYS = (str, int, bool, type(None))  # the kinds of key a table held in arrays has (see forms.Keyed)


def _sequence(form, value, loose: bool) -> bool:
    """Whether `value` is the sequence `form` (a Fixed or a Many) holds: a list for a list, a tuple for a tuple,
    or where `loose`, the other too (a saved state gives a tuple back as a list, and the arguments of its last move
    as tuples, serialize.py: each is held, and read back, as its type says)."""
    if isinstance(value, Move):
        return False
    if form.__class__ is Many and form.kind == "list":
        return isinstance(value, list) or loose and isinstance(value, tuple)
    return isinstance(value, tuple) or loose and isinstance(value, list)


def _shown(value) -> str:
    return text_of(value)[:40] if not isinstance(value, (list, tuple, dict)) else \
        {list: "a list", dict: "a table"}.get(value.__class__, "a tuple")
