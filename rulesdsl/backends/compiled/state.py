"""A game and its states on the compiled backend: the Game/State API of engine/, over the packed state vector.

A state is the vector its compiled code reads and writes, and the history beside it (Python Moves, as the Python
engine keeps them; those a compiled playout made are kept as its log until asked for). It converts to and from the
Python engine's State through the layout's arrays, losslessly; what the compiled code does not do outside a playout
(chance steps, reading a move's notation, observations) is done by that State and converted back.
"""

from __future__ import annotations

from types import SimpleNamespace

from ...engine import results
from ...errors import GameRuntimeError, IllegalMove, Location
from ...engine.arrays import from_arrays, log_arrays, to_arrays
from ...engine.nodes import CHANCE, SIMULTANEOUS, TERMINAL
from ...engine.state import _PARTS
from ...model.rules import Move
from ...model.values import Piece
from .packing import ROOM_AHEAD
from .piece_ids import piece_id, piece_of
from .parts import read, write
from .program import CHANCE as CHANCE_STEP
from .simultaneous import load as load_choices


_FAILED = (ValueError, IndexError, ZeroDivisionError, OverflowError)
_PART_AT = {path: name for name, path in _PARTS.items() if name != "flow"}  # names errors located at them
_RETURNS = SimpleNamespace(name="returns", path=_PARTS["returns"])  # what a failure of `scoring: returns` names
_LOG_ROWS = 512  # moves a playout's log holds before compiled code hands back to write another (small enough
# for the allocator's heap: a larger buffer is mapped and unmapped again on every call)
_TOP = 1 << 63


def _word(key: int) -> int:
    """An unsigned 64-bit word as the int64 the state vector holds it as."""
    key &= (1 << 64) - 1
    return key - (1 << 64) if key >= _TOP else key


def _streams(chance, seats) -> tuple:
    """The (key, counter) rows of the chance stream and each seat's, for compiled code, and those states as given."""
    import numpy as np
    states = [chance.getstate(), *(seat.getstate() for seat in seats)]
    return np.array(states, np.uint64), states


def _handed_back(rows, streams, states) -> None:
    """Each stream continued from its row as compiled code left it (those that drew nothing are left alone)."""
    for stream, row, state in zip(streams, rows.tolist(), states):  # tolist: plain integers
        if row[1] != state[1] or row[0] != state[0]:
            stream.setstate(row)


class CompiledGame:
    """A game (engine/game.py Game) whose play runs in compiled code; anything else is asked of the Python Game."""

    backend = "compiled"

    def __init__(self, game, program, functions):
        self.python, self.program, self.fn = game, program, functions
        self.packing, self.layout = program.packing, game.layout
        rules = game.rules
        self._rules = []  # per move kind: its Python rule, and how its arguments are read back
        for kind in program.kinds:
            if kind.path[0] == "moves":
                self._rules.append(rules.moves[kind.path[1]])
            else:
                step = rules.steps[kind.path[2]]
                self._rules.append(step.pass_rule if kind.label.endswith(".pass") else
                                   game.arrangement_rule(step) if kind.label.endswith(".arrangement") else
                                   step.moves[0] if kind.label.endswith(".outcome") else
                                   step.draw.rule if kind.label.endswith(".draw") else None)
        self._drawn = {program.kind_index[name + ".arrangement"]: a for name, a in program.arrangements.items()}
        self._draws = {d.kind: d for d in program.draws.values()}  # `draw:` steps' outcomes, by kind
        self._kind_of = {id(rule): k for k, rule in enumerate(self._rules) if rule is not None}
        self._cells = rules.board.cells
        self._texts = {number: text for text, number in program.m.texts.items()}
        self._start = None  # the first position's vector and history (states differ only in their seed)
        self._rng_at = self.packing.fields["rng"].offset

    def __getattr__(self, name):  # name, rules, path, num_players, layout... are the Python game's
        return getattr(self.python, name)

    def new_initial_state(self, seed: int | None = None) -> "CompiledState":
        import numpy as np
        if self._start is None:
            self._start = CompiledState.of(self, self.python.new_initial_state(0))
        state = self._start.clone()
        at = self._rng_at
        state.s[at] = _word(0 if seed is None else seed)
        state.s[at + 1] = 0
        return state

    def playouts(self, seeds, chance, seats) -> tuple:
        """A random playout from new_initial_state(seed) for each seed, all in one call of compiled code, the streams
        running on from one playout to the next (as playout() of each state in turn leaves them): (the moves of each
        playout, what each seat got in each), numpy arrays. Nothing of a playout but its result is kept."""
        import numpy as np
        start = self.new_initial_state(0)
        seeds = np.array([int(seed) & ((1 << 64) - 1) for seed in seeds], np.uint64).view(np.int64)
        rng, states = _streams(chance, seats)
        plies, results = np.zeros(len(seeds), np.int64), np.zeros((len(seeds), self.num_players), np.float64)
        drawn = np.empty(self.program.drawn, np.int64)
        log = np.empty((0, self.program.log_width), np.int64)
        self.call(start, start.step, self.fn["playout"], start.s, seeds, rng, 1 << 62, start._rows(), log, drawn,
                  False, False, plies, results)
        _handed_back(rng, [chance, *seats], states)
        return plies, results

    def state_from_json(self, data: dict, source: str = "state", text: str | None = None) -> "CompiledState":
        return CompiledState.of(self, self.python.state_from_json(data, source, text))

    def compiled_state(self, state) -> "CompiledState":
        """A Python engine's State of this game as a compiled one."""
        return CompiledState.of(self, state)

    # -- calling compiled code --------------------------------------------------------------------------------
    def call(self, state, what, fn, *args):
        """fn(*args), a compiled function; its failure a GameRuntimeError naming `what` (a rule, or a step name)
        on the state's turn, located."""
        try:
            return fn(*args)
        except _FAILED as exc:
            raise self.failure(state, what, exc) from None

    def failure(self, state, what, exc) -> GameRuntimeError:
        """The located error of a failure of compiled code: a code raised with the values its message shows (see
        printer.Module.code), else the exception's own text. A capacity passed is blamed, as the Python engine
        blames it, on the move being applied, on the turn it was applied."""
        args = exc.args
        text = str(args[0]) if args else str(exc)
        rules, errors = self.python.rules, self.program.m.errors
        if isinstance(what, str) and what in rules.steps:  # a playout's: the step it had reached when it failed
            what = state.step
        path = getattr(what, "path", None) or ("flow", "steps", what)
        name, turn, message = getattr(what, "name", what), state.turn, text
        hint = "the rule file lets play reach a position this rule does not handle"
        if text.startswith("E") and text[1:].isdigit() and int(text[1:]) < len(errors):
            message, at, told, capacity = errors[int(text[1:])]
            message = message.format(*args[1:]) if len(args) > 1 else message
            name = _PART_AT.get(at, name)
            if at and at[0] == "end":  # an end rule's: the Python engine names it 'end'
                name = "end"
            if at and at[0] == "moves" and "do" not in at:
                at = None  # a move's check, param or let: the Python engine locates the rule listing or making it
            elif at and at[0] == "moves" and len(at) > 1 and isinstance(what, str):  # (a playout names its step)
                name = at[1]  # a move's statement failed: the Python engine names the move
            path, hint = at or path, told or hint
            if isinstance(what, str) and state._get_scratch("rule") == 0 and self._weighed(state.step):
                path = rules.steps[state.step].path  # listing or weighing outcomes: the step's (as the Python engine)
            rule = self._rules[state._get_scratch("rule") - 1] if state._get_scratch("rule") > 0 else None
            if capacity and rule is not None:
                name, path, turn = rule.name, rule.path, state._get_scratch("turn")
        elif isinstance(exc, IndexError):
            message = f"{text}: a value beyond what it indexes"
        location = rules.where(path) if rules.where is not None else None
        return GameRuntimeError(name, turn, message, location or Location(self.python.path), hint)

    def _weighed(self, step: str) -> bool:
        """Whether `step` is a chance step of outcomes listed and weighed (outcomes.py), whose failures while
        listing the Python engine locates at the step's chance."""
        found = self.python.rules.steps.get(step)
        return found is not None and found.kind == "chance" and found.draw is None and found.arrangement is None

    def capacity_passed(self, exc) -> bool:
        """Whether compiled code failed because a list was to hold more than its capacity."""
        text = str(exc.args[0]) if exc.args else ""
        errors = self.program.m.errors
        return text.startswith("E") and text[1:].isdigit() and int(text[1:]) < len(errors) and errors[int(text[1:])][3]

    def move(self, row, player: int) -> Move:
        """The Move a row of compiled code stands for."""
        k = int(row[0])
        rule = self._rules[k]
        args, _ = read(self._atoms(k), row, 1, self._arg)  # (tuples flattened: parts.py)
        return Move(rule, args, player)

    def row(self, move) -> np.ndarray:
        """The row compiled code reads a Move as."""
        import numpy as np
        k = self._kind_of.get(id(move[0]))
        if k is None:
            raise IllegalMove(str(move), "not a move of this game")
        row = np.zeros(self.program.width, np.int64)
        row[0] = k
        columns = write(self._atoms(k), move[1], self._number)  # (tuples flattened: parts.py)
        row[1:len(columns) + 1] = columns
        return row

    def _number(self, atom, value) -> int:
        """One value of a move's row."""
        if value is None:  # none: the absent value of the argument's kind
            single = atom.members[-1] if hasattr(atom, "members") else atom
            return 0 if getattr(single, "kind", None) == "piece" else -1
        if isinstance(value, Piece):  # (a let holding a piece: its id)
            return piece_id(self.program, value)
        number = self.program.m.texts[value] if isinstance(value, str) else int(value)
        members = getattr(atom, "members", None)
        return -2 - number if isinstance(value, str) and members is not None and _mixed(members) else number

    def logged(self, log, drawn) -> list:
        """The Moves of a compiled playout's log (rows of the seat and the move, or of an outcome drawn: its kind
        and where its items start in `drawn`)."""
        moves = []
        for row in log:
            seat, k = int(row[0]), int(row[1])
            if seat < 0 and k in self._draws:  # items drawn at once
                moves.append(self._draws[k].move(row[1:], drawn, self._texts))
                continue
            if seat >= 0 or k not in self._drawn:  # a seat's move, or an outcome drawn
                moves.append(self.move(row[1:], seat))
                continue
            arrangement, at = self._drawn[k], int(row[2])
            moves.append(Move(self._rules[k], (arrangement.move(drawn[at:at + arrangement.size]),), seat))
        return moves

    def kind_of(self, rule) -> int:
        """The number compiled code gives a move rule's kind."""
        return self._kind_of[id(rule)]

    def kernels(self) -> dict:
        """The module's namespace, where the batch kernels are (batch.py: compiled at their first call, cached)."""
        return self.fn

    def _atoms(self, k: int) -> tuple:
        form = self.layout.slots["history"].form
        if form is not None:
            return form.members[k].items
        # a history held as Python values (an outcome of items drawn at once): a seat's move is read by the form
        # of the last move made, which holds every kind a seat makes
        return self.layout.slots["last"].form.members[self.program.players.index(k)].items

    def _arg(self, atom, number: int):
        members = getattr(atom, "members", None)
        if members is not None and _mixed(members):  # a cell or a text (mixed.py): told by the sign
            return None if number == -1 else self._texts[-2 - number] if number < -1 else self._cells[number]
        if members is not None:  # none or a single value (program.py takes no other OneOf as an argument)
            single = members[-1]
            absent = 0 if single.kind == "piece" else -1
            return None if number == absent and single.kind != "int" else self._arg(single, number)
        if atom.kind == "cell":
            return self._cells[number]
        if atom.kind == "bool":
            return bool(number)
        if atom.kind == "text":
            return self._texts[number]
        if atom.kind == "piece":
            return piece_of(self.program, number)
        return number


def _mixed(members) -> bool:
    """Whether a OneOf's members are a cell and a text (and maybe none): a value of two kinds (mixed.py)."""
    kinds = {getattr(m, "kind", None) for m in members if getattr(m, "kind", None) is not None}
    return kinds == {"cell", "text"}


class CompiledState:
    """One position on the compiled backend (see the module's docstring)."""

    __slots__ = ("game", "s", "_history", "_made", "secret", "_out")

    @classmethod
    def of(cls, game: CompiledGame, state) -> "CompiledState":
        self = cls.__new__(cls)
        self.game, self._out = game, None
        self._load(state)
        return self

    def _load(self, state) -> None:
        self.s = self.game.packing.pack(to_arrays(state, self.game.layout, encode_moves=False))  # (history: below)
        try:  # the same list, changed in place: what holds on to it (agents' sampling) sees the game go on
            self._history[:] = state.history
        except AttributeError:
            self._history = list(state.history)
        self._made, self.secret = [], dict(state.secret)
        load_choices(self, state)

    @property
    def history(self) -> list:
        """Every move and outcome so far (those a compiled playout made are read when first asked for)."""
        if self._made:
            for log, drawn in self._made:
                self._history.extend(self.game.logged(log, drawn))
            self._made = []
        return self._history

    def python(self):
        """This position as the Python engine's State."""
        game = self.game
        arrays = game.packing.unpack(self.s)
        history = self.history
        arrays.update(log_arrays(history, self.secret, game.layout, game.python, encode_moves=False))
        return from_arrays(arrays, game.layout, game.python, history)

    def _through_python(self, fn):
        state = self.python()
        result = fn(state)
        self._load(state)
        return result

    def clone(self) -> "CompiledState":
        twin = CompiledState.__new__(CompiledState)
        twin.game, twin.s, twin._history, twin._made = self.game, self.s.copy(), self._history[:], self._made[:]
        twin.secret, twin._out = dict(self.secret), None
        return twin

    # -- fields -----------------------------------------------------------------------------------------------
    def _get(self, name: str) -> int:
        return int(self.s[self.game.packing.fields[name].offset])

    def _get_scratch(self, name: str) -> int:
        return int(self.s[self.game.packing.scratch[name]])

    @property
    def terminal(self) -> bool:
        return bool(self._get("terminal"))

    @property
    def ply(self) -> int:
        return self._get("ply")

    @property
    def turn(self) -> int:
        return self._get("turn")

    @property
    def player(self) -> int:
        return self._get("player")

    @property
    def step(self) -> str:
        return self.game.layout.steps[self._get("step")]

    @property
    def winners(self):
        """None before the end, else the winning seats (read from the vector)."""
        game = self.game
        form = game.layout.slots["winners"].form
        member = form.members[self._get("winners.tag")]
        if not hasattr(member, "length"):  # the member for no winners yet
            return None
        at, n = game.packing.fields[member.item.leaf.name].offset, self._get(member.length.name)
        return [int(v) for v in self.s[at:at + n]]

    def reseed(self, seed: int) -> None:
        """Give the state a fresh stream of its own keyed by `seed` (as State.rng = Rng(seed) does)."""
        import numpy as np
        key = self.game.packing.fields["rng"]
        self.s[key.offset:key.offset + 2] = np.array([seed & ((1 << 64) - 1), 0], np.uint64).view(np.int64)

    @property
    def rules(self):
        return self.game.rules

    def is_terminal(self) -> bool:
        return self.terminal

    def _at_chance(self) -> bool:
        return int(self.game.fn["KIND"][self._get("step")]) == CHANCE_STEP

    def is_chance_node(self) -> bool:
        return not self.terminal and self._at_chance()

    def _at_simultaneous(self) -> bool:
        return bool(self.game.fn["SIMUL"][self._get("step")])

    def is_simultaneous_node(self) -> bool:
        return not self.terminal and self._at_simultaneous()

    def current_player(self) -> int:
        if self.terminal:
            return TERMINAL
        return CHANCE if self._at_chance() else SIMULTANEOUS if self._at_simultaneous() else self._decider()

    def _decider(self) -> int:
        """Who decides at a decision step: the player whose turn it is, or the step's actor."""
        game = self.game
        return int(game.call(self, self.step, game.fn["decider"], self.s))

    def acting_players(self) -> list:
        if self.terminal or self._at_chance():
            return []
        if self._at_simultaneous():
            game = self.game
            return [int(p) for p in game.call(self, self.step, game.fn["waiting"], self.s)]
        return [self._decider()]

    # -- play -------------------------------------------------------------------------------------------------
    def legal_moves(self, player: int | None = None) -> list:
        if self.terminal:
            return []
        if self._at_chance():
            return self.python().legal_moves(player)
        if self._at_simultaneous():  # the first still to choose, unless another seat still to choose is asked for
            waiting = self.acting_players()
            if player is None and waiting:
                player = waiting[0]
            if player not in waiting:
                return []
            turn = player
        else:
            turn = self._decider()
            if player is not None and player != turn:
                return []
        out = self._rows()
        game = self.game
        n = game.call(self, self.step, game.fn["legal"], self.s, turn, out)
        return [game.move(out[i], turn) for i in range(n)]

    def _rows(self) -> np.ndarray:
        import numpy as np
        if self._out is None:
            self._out = np.empty((max(self.game.program.capacity, 1), self.game.program.width), np.int64)
        return self._out

    def apply(self, move, player: int | None = None) -> None:
        if self.terminal:
            raise IllegalMove(str(move), "the game is over")
        if isinstance(move, str) or self._at_chance() or move[2] < 0:
            self._through_python(lambda state: state.apply(move, player))
            return
        game = self.game
        self.s = game.packing.room(self.s, ROOM_AHEAD)  # (a game that counts positions keeps one a move)
        before = self.s.copy() if game.rules.bounded else None
        # at a simultaneous step the last choice runs the step's resolve: a failure there is the step's
        what = self.step if self._at_simultaneous() else move[0]
        try:
            game.fn["apply"](self.s, game.row(move), move[2])
        except _FAILED as exc:
            if before is None or not game.capacity_passed(exc):
                raise game.failure(self, what, exc) from None
            # the Python engine applies the move from the position before: it checks capacities once the whole
            # move is made (a list may grow past its capacity and shrink back within one move)
            self.s = before
            self._through_python(lambda state: state.apply(move, player))
            return
        history = self.history
        history.append(move)
        self.s[game.packing.fields["last_row"].offset] = len(history) - 1

    def chance_outcomes(self) -> list:
        return self.python().chance_outcomes() if self.is_chance_node() else []

    def sample_chance(self, rng=None):
        return self._through_python(lambda state: state.sample_chance(rng))

    def playout(self, chance, seats, limit: int | None = None, choices: list | None = None,
                together: list | None = None) -> int:
        """Play on with uniformly random moves as engine.play.play(state, uniform, chance, seats) does, the
        seats' choices drawn in compiled code: the moves made (at most `limit`). `choices`, a list: the number of
        legal moves of each decision made is appended to it; `together`, a list: the place in the history of each
        choice made at a simultaneous step."""
        import numpy as np
        rng, states = _streams(chance, seats)
        playout, alone, none = self.game.fn["playout"], np.empty(0, np.int64), np.empty((0, 0), np.float64)
        made = self._run(lambda left, out, log, drawn: playout(self.s, alone, rng, left, out, log, drawn, True, False,
                                                               alone, none)[::2],
                         limit, choices, together)
        _handed_back(rng, [chance, *seats], states)
        return made

    def rollout(self, rng, limit: int | None = None) -> int:
        """Play on with uniformly random moves as engine.play.play(state, uniform, rng, [rng] * seats) does (one
        stream for chance and every seat, as search agents' rollouts draw), in compiled code: the moves made."""
        stream, states = _streams(rng, [])
        rollout = self.game.kernels()["rollout"]
        made = self._run(lambda left, out, log, drawn: rollout(self.s, stream, left, out, log, drawn), limit)
        _handed_back(stream, [rng], states)
        return made

    def _run(self, kernel, limit: int | None, choices: list | None = None, together: list | None = None) -> int:
        """Call `kernel(left, out, log, drawn)` -> (moves made, row of the last seat's move or -1) until the game
        ends or `limit` moves are made, keeping each call's log as moves of the history."""
        import numpy as np
        game, made = self.game, 0
        program = game.program
        left = (1 << 62) if limit is None else limit
        out, log = self._rows(), np.empty((min(left, _LOG_ROWS), program.log_width), np.int64)
        drawn = np.empty(program.drawn, np.int64)
        while left > 0 and not self.s[program.terminal]:
            self.s = program.packing.room(self.s, len(log) + ROOM_AHEAD)  # (a position kept a move, see packing.py)
            try:
                done, last = kernel(left, out, log, drawn)
            except _FAILED as exc:  # (game.call's, the step named only when needed)
                raise game.failure(self, self.step, exc) from None
            if done:
                ply = len(self._history) + sum(len(log) for log, _ in self._made)  # of the log's first row
                if last >= 0:  # where the last move a seat made is in the history
                    self.s[program.last_row] = ply + last
                self._made.append((log[:done].copy(), drawn.copy()))
                self._secrets(log[:done], ply)
                width = program.width  # (columns W + 2: how many moves a seat chose among; W + 3: together)
                if choices is not None:
                    choices.extend(int(n) for n in log[:done][log[:done, 0] >= 0, width + 2])
                if together is not None:
                    together.extend(ply + int(r) for r in (log[:done, width + 3] == 1).nonzero()[0])
            made, left = made + done, left - done
        return made

    def _secrets(self, log, ply: int) -> None:
        """The secret entries (ply -> the seats who see it) of the outcomes of a playout's log seen by some seats
        only: its column after the move's holds 1 + a bit per seat who sees it, 0 for a move every seat sees."""
        seats, seen = range(self.game.num_players), self.game.program.width + 1
        for r in (log[:, seen] != 0).nonzero()[0]:
            bits = int(log[r, seen]) - 1
            self.secret[ply + int(r)] = tuple(p for p in seats if bits >> p & 1)

    # -- results and views --------------------------------------------------------------------------------------
    @property
    def capped(self) -> bool:
        return bool(self._get("capped"))

    @property
    def ended_by(self):
        """The end rule that ended the game (its index), or None."""
        member = self.game.layout.slots["ended_by"].form.members[self._get("ended_by.tag")]
        return self._get(member.leaf.name) if hasattr(member, "leaf") else None

    def scores(self) -> list:
        """Each player's score as the rule file defines it (None when it defines none)."""
        import numpy as np
        if self.rules.score is None:
            return [None] * self.game.num_players
        fractions = self.game.fn.get("FRACTIONAL_SCORES", False)  # (fractional.py)
        into = np.empty(self.game.num_players, np.float64 if fractions else np.int64)
        self.game.call(self, "score", self.game.fn["scores"], self.s, into)
        return into.tolist()

    def returns(self) -> list:
        """What each seat gets (engine/state.py returns()): the file's `scoring: returns` once the game has ended,
        held to its utility, else by the winners."""
        import numpy as np
        into = np.empty(self.game.num_players, np.float64)
        self.game.call(self, _RETURNS, self.game.fn["returns"], self.s, into)
        values = into.tolist()
        return results.check(self.rules, values, self.turn) if self.terminal else values

    def to_json(self) -> dict:
        return self.python().to_json()

    def history_texts(self) -> list:
        return [m if isinstance(m, str) else str(m) for m in self.history]

    def __getattr__(self, name):  # scores, observation, parse_move...: asked of the Python State
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.python(), name)

    def __repr__(self) -> str:
        return f"<{self.game.name} compiled state: turn {self.turn}, step {self.step}>"
