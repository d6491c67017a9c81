"""Kernels printed at the end of every game's compiled module: many games stepped at once, and random rollouts from
one stream.

The template below names only what every printed module defines (`legal`, `apply`, `chance`, `playout`, `returns`,
`decider`, `waiting`, `KIND`, `SIMUL`, `W`, `NS` and the offsets of the engine's fields), so it is the same text for
every game (program.py appends it). numba compiles a kernel the first time a game calls it, and caches it with the
module, so a later process reads it back rather than compiling it again. Its loops are bounded as the module's are:
a game by its turn cap and the flow's automatic steps, a batch by its size, an encoding by the moves listed.

Moves are numbered as actions by the tables `ActionTables` makes from the game's ActionMap (engine/actions.py):
per move kind its block's offset and each param's values in the order they are numbered, or the shared block of
kinds numbered by their place in the legal list. A move those tables cannot number (a value outside its domain)
is left to the caller, which asks the ActionMap and so reports it as the Python engine does, located.
"""

from __future__ import annotations

from ...engine.arrays import piece_table
from ...errors import GameRuntimeError
from .unsupported import Unsupported

TEMPLATE = '''# Kernels: many games stepped at once, and rollouts (see rulesdsl/backends/compiled/batch.py).


@_jit
def rollout(s, rng, limit, out, log, drawn):
    """Random moves and chance outcomes, every one drawn from the single stream rng[0] (as play() with one Rng for
    chance and every seat), until the end or `limit` moves or a full log: (moves made, row of the last seat's
    move or -1). Each is written to a row of `log` as playout() writes it."""
    done, _, last = playout(s, np.empty(0, np.int64), rng, limit, out, log, drawn, True, True, np.empty(0, np.int64),
                            np.empty((0, 0), np.float64))
    return done, last


@_jit
def own_draw(s, rng, drawn, out):
    """A chance outcome drawn from the state's own stream (as sample_chance() with no stream given); `out` is room
    for the outcomes listed."""
    rng[0, 0] = np.uint64(s[O_rng])
    rng[0, 1] = np.uint64(s[O_rng + 1])
    chance(s, rng, drawn, 0, out, np.empty(W, np.int64))
    s[O_rng] = np.int64(rng[0, 0])
    s[O_rng + 1] = np.int64(rng[0, 1])


@_jit
def others(s, seats, learner, out, drawn, own):
    """Chance (from the state's stream) and the seats that do not learn (uniformly random, each from its row of
    `seats`) play until a learning seat is to choose or the game ends."""
    while not s[O_terminal]:
        if KIND[s[O_step]] != 0:
            own_draw(s, own, drawn, out)
            continue
        me = decider(s) if not SIMUL[s[O_step]] else -1
        if SIMUL[s[O_step]]:  # the first still to choose that does not learn
            w = waiting(s)
            for i in range(w.shape[0]):
                if not learner[w[i]]:
                    me = w[i]
                    break
            if me < 0:
                return
        elif learner[me]:
            return
        n = legal(s, me, out)
        apply(s, out[_rt.below(seats, me, n)], me)


@_jit
def encode(out, n, acts, koff, byplace, nparams, strides, vals, counts, place_offset, cap):
    """The action of each of the `n` moves listed in `out`, into `acts`: -1 when all are numbered, else the first
    that the tables cannot number."""
    placed = 0
    for i in range(n):
        k = out[i, 0]
        if koff[k] >= 0:
            a = koff[k]
            for j in range(nparams[k]):
                v = out[i, 1 + j]
                p = -1
                for q in range(counts[k, j]):
                    if vals[k, j, q] == v:
                        p = q
                        break
                if p < 0:
                    return i
                a += p * strides[k, j]
            acts[i] = a
        elif byplace[k] and placed < cap:
            acts[i] = place_offset + placed
            placed += 1
        else:
            return i
    return -1


@_jit
def acting(s, learner):
    """The learning seat to choose now, or -1 (the game over, chance, or a seat that does not learn)."""
    if s[O_terminal] or KIND[s[O_step]] != 0:
        return -1
    if SIMUL[s[O_step]]:  # the first still to choose that learns
        w = waiting(s)
        for i in range(w.shape[0]):
            if learner[w[i]]:
                return w[i]
        return -1
    me = decider(s)
    return me if learner[me] else -1


@_jit
def masks(S, learner, out, acts, to_act, mask, koff, byplace, nparams, strides, vals, counts, place_offset, cap):
    """Each game's learning seat to choose (-1: none) and the mask of its legal actions: -1, else the first game
    holding a move the tables cannot number."""
    mask[:] = 0
    for i in range(S.shape[0]):
        s = S[i]
        me = acting(s, learner)
        to_act[i] = me
        if me < 0:
            continue
        n = legal(s, me, out)
        if encode(out, n, acts, koff, byplace, nparams, strides, vals, counts, place_offset, cap) >= 0:
            return i
        for j in range(n):
            mask[i, acts[j]] = 1
    return -1


@_jit
def reset_games(S, seats, which, seeds, keys, start, learner, out, drawn, own):
    """Games `which` afresh from `start`, each with its seed and its seats' stream keys, played on to a learning
    seat's choice."""
    for w in range(which.shape[0]):
        i = which[w]
        s = S[i]
        _rt.copy_into(s, start)
        s[O_rng] = seeds[w]
        s[O_rng + 1] = 0
        for p in range(NS):
            seats[i, p, 0] = np.uint64(keys[w, p])
            seats[i, p, 1] = 0
        others(s, seats[i], learner, out, drawn, own)


@_jit
def step_games(S, seats, actions, skip, learner, out, acts, drawn, own, into, rewards, ended, capped, illegal,
               koff, byplace, nparams, strides, vals, counts, place_offset, cap):
    """Each game not in `skip` takes its action for the learning seat to choose, then chance and the other seats
    play on: what each seat gets (`rewards`, its return once the game is over), whether it ended and whether its
    turn cap stopped it; an action that is no legal move ends the game as a loss of that seat (`illegal`). -1, else
    the first game holding a move the tables cannot number."""
    for i in range(S.shape[0]):
        rewards[i, :] = 0.0
        ended[i] = False
        capped[i] = False
        illegal[i] = False
        if skip[i]:
            continue
        s = S[i]
        me = acting(s, learner)
        k = -1
        if me >= 0:
            n = legal(s, me, out)
            if encode(out, n, acts, koff, byplace, nparams, strides, vals, counts, place_offset, cap) >= 0:
                return i
            for j in range(n):
                if acts[j] == actions[i]:
                    k = j
                    break
        if k < 0:
            illegal[i] = True
            ended[i] = True
            if me >= 0:
                rewards[i, me] = -1.0
            continue
        apply(s, out[k], me)
        others(s, seats[i], learner, out, drawn, own)
        if s[O_terminal]:
            returns(s, into)
            _rt.copy_into(rewards[i], into)
            ended[i] = True
            capped[i] = s[O_capped] != 0
    return -1
'''

class ActionTables:
    """A game's move rows numbered as actions (see the module's docstring), as arrays for the kernels."""

    def __init__(self, game, actions):
        import numpy as np
        program, numbering = game.program, actions.moves
        numbering.size  # noqa: B018 - a located RulesError when some kind cannot be numbered
        kinds = len(program.kinds)
        params = max((len(kind.values) for kind in numbering.kinds), default=0)
        width = max((len(vs) for kind in numbering.kinds for vs in kind.values), default=0)
        self.koff = np.full(kinds, -1, np.int64)
        self.byplace = np.zeros(kinds, np.bool_)
        self.nparams = np.zeros(kinds, np.int64)
        self.strides = np.zeros((kinds, max(params, 1)), np.int64)
        self.vals = np.zeros((kinds, max(params, 1), max(width, 1)), np.int64)
        self.counts = np.zeros((kinds, max(params, 1)), np.int64)
        for kind in numbering.kinds:
            k = game.kind_of(kind.rule)
            self.koff[k], self.nparams[k] = kind.offset, len(kind.values)
            for j, (values, stride) in enumerate(zip(kind.values, kind.strides)):
                self.strides[k, j], self.counts[k, j] = stride, len(values)
                for q, value in enumerate(values):
                    if not isinstance(value, int):  # cells, whole numbers and booleans are ints
                        raise Unsupported(None, f"param values of '{kind.rule.name}' that are not whole numbers")
                    self.vals[k, j, q] = int(value)
        for rule in numbering.by_place:
            self.byplace[game.kind_of(rule)] = True
        self.place_offset = numbering.place_offset
        self.cap = numbering.cap if numbering.by_place else 0

    def args(self) -> tuple:
        """The tables in the order the kernels take them."""
        return (self.koff, self.byplace, self.nparams, self.strides, self.vals, self.counts, self.place_offset,
                self.cap)


def unnumbered(game, actions, state) -> GameRuntimeError:
    """The located error the ActionMap gives for a position holding a move the tables could not number."""
    try:
        actions.legal(state)
    except GameRuntimeError as exc:
        return exc
    return GameRuntimeError("actions", state.turn, "a legal move could not be numbered as an action", None,
                            "the moves' numbering and the compiled code disagree")


class BoardTensor:
    """The observation vectors (engine/tensor.py) of a game whose vector reads only the board, who is to move and
    the step (ObservationTensor.board_only), worked out from many packed vectors at once with numpy."""

    def __init__(self, game, tensor):
        import numpy as np
        layout, packing = game.layout, game.packing
        table = piece_table(layout)
        planes = tensor.planes
        self.plane = np.zeros((layout.pieces, len(planes)), np.float32)  # piece id -> its value on each plane
        for piece in range(1, layout.pieces):
            kind = layout.kinds[table[piece, 0]]
            names = [name for name, _ in kind.attributes]
            for q, (name, attribute, value) in enumerate(planes):
                if name != kind.name:
                    continue
                if attribute is None:
                    self.plane[piece, q] = 1.0
                    continue
                a = names.index(attribute)
                self.plane[piece, q] = 1.0 if kind.attributes[a][1][table[piece, 1 + a]] == value else 0.0
        cells = packing.fields["cells"]
        self.cells = slice(cells.offset, cells.offset + cells.size)
        self.at = {name: packing.fields[name].offset for name in ("terminal", "step", "player")}
        self.chance = np.asarray(game.fn["KIND"], np.int64) != 0  # per step of the layout
        self.step_place = np.array([tensor.steps.index(s) if s in tensor.steps else -1 for s in layout.steps],
                                   np.int64)
        self.steps, self.seats, self.size = len(tensor.steps), game.num_players, tensor.size

    def values(self, S) -> np.ndarray:
        """The vector of each packed state (a row of S), float32 (N, size): the same for every seat."""
        import numpy as np
        n = S.shape[0]
        board = self.plane[S[:, self.cells]]  # (N, cells, planes)
        out = np.zeros((n, self.size), np.float32)
        width = board.shape[1] * board.shape[2]
        out[:, :width] = board.transpose(0, 2, 1).reshape(n, width)
        terminal = S[:, self.at["terminal"]] != 0
        step = S[:, self.at["step"]]
        chance = self.chance[step] & ~terminal
        deciding = ~terminal & ~chance
        at = width
        out[np.arange(n)[deciding], at + S[deciding, self.at["player"]]] = 1.0
        at += self.seats
        out[:, at] = chance
        out[:, at + 1] = terminal
        at += 2
        place = self.step_place[step]
        shown = ~terminal & (place >= 0)
        out[np.arange(n)[shown], at + place[shown]] = 1.0
        return out
