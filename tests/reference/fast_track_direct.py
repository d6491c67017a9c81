"""Hand-written Fast Track, straight from the spec (/work/shared/rules/fast-track.md): a cross-check and a
benchmark baseline for the rules interpreter running games/fast-track.yaml.

Plain Python: lists and ints, a legal-move list and a random choice; nothing precomputed beyond the board's
obvious per-colour constants.

Interface
---------
``new_game(seed, **options) -> FastTrack``
    Options as in the rule file: ``board`` ('square' | 'hex', default 'square'), ``players`` (2..6, default 2),
    ``colours_per_player`` (1..3, default 1), ``teams`` ('none' | 'pairs' | 'triples', default 'none').
    Integer options may be given as strings. Invalid combinations raise ValueError. ``seed`` seeds the state's
    own ``random.Random`` (used by ``sample_chance()`` without an argument).

State (``FastTrack``) methods and attributes
    ``current_player()``    a seat, ``CHANCE`` (-1) or ``TERMINAL`` (-4); there are no simultaneous steps.
    ``acting_players()``    ``[seat]`` at a decision, else ``[]``.
    ``legal_moves(player=None)``  list of move tuples (decisions; at a chance node the outcomes).
    ``notation(move)``      the rule file's notation, e.g. ``'5 m12-m17'``, ``'7 m3-m5,m20-m25'``, ``'draw K'``.
    ``apply(move)``         apply a move tuple (unchecked) or a notation string (checked).
    ``chance_outcomes()``   ``[(outcome, probability)]``: the cut (``'first p1'`` ...) and single card draws
                            (``'draw K'``, weighted by the copies left in the drawer's pile).
    ``sample_chance(rng=None)``  one outcome drawn with the true probabilities.
    ``apply_notation(text)`` apply a decision or chance outcome given in notation.
    ``terminal``, ``winners`` (sorted seats; ``[]`` for a draw), ``capped`` (stopped by the 5000-turn cap of
    the rule file's flow, a draw), ``ply`` (decisions and chance outcomes so far, as the interpreter counts),
    ``turn``, ``scores()`` (``[None] * players``: the game has no score).

``random_playout(seed, **options) -> (winners, plies)``
    One game from ``random.Random(seed)``: chance drawn with the true probabilities, every decision uniform
    among ``legal_moves()``. ``plies`` counts decisions and chance outcomes (the interpreter's ``state.ply``).

Moves are tuples: ``('mv', card, frm, to, fast)`` (one marble forward or backward, the Bull's Eye included;
``fast``: it ends travelling the Fast Track),
``('bring', card, colour)``, ``('leave', card, colour)`` (Bull's Eye to own Fast Track space),
``('swap', 'J', a, b)``, ``('split', '7', a, t1, f1, b, t2, f2)``, ``('home', card, cell, colour)`` (a Fast
Track marble sent back), ``('none', card)``; chance: ``('first', seat)``, ``('draw', rank)``.
Cells are ints: track ``0 .. L-1`` (``m0`` ...), ``L`` the Bull's Eye, ``L + 1 + 4 * colour + (j - 1)`` the home
row cell ``<colour>-h<j>``. Colour ids are the board-side index (0 red, 1 blue, 2 yellow, 3 green, 4 white,
5 purple).

Where the spec and the rule file differ (test_spec_tie_example in tests/test_lockstep_fast_track.py), this
module follows the spec: with a Fast Track priority tie where one tied marble can move and another cannot, the
blocked marble's send-back is offered beside the other's moves (spec, "Which effects are legal", 1).
"""

from __future__ import annotations

import random
from collections import Counter

CHANCE = -1
SIMULTANEOUS = -2
TERMINAL = -4

RANKS = ("JK", "A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")
DISTANCE = {"JK": 1, "A": 1, "K": 1, "Q": 1, "J": 1, "10": 10, "9": 9, "8": 8, "7": 7, "6": 6, "5": 5,
            "4": 4, "3": 3, "2": 2}
PLAY_AGAIN = frozenset(("JK", "A", "K", "Q", "J", "6"))
BRING_OUT = frozenset(("JK", "A", "6"))
LEAVE_BE = frozenset(("K", "Q", "J"))
DECK = [r for r in RANKS for _ in range(2 if r == "JK" else 4)]
HAND_SIZE = 5
MAX_TURNS = 5000  # the rule file's flow cap (a draw); not a rule of the game
COLOUR_NAMES = ("red", "blue", "yellow", "green", "white", "purple")

_CUT, _DRAW, _PLAY, _END = 0, 1, 2, 3


class Config:
    """The fixed facts of one option set: seating, teams, and per-colour board spaces."""

    def __init__(self, board="square", players=2, colours_per_player=1, teams="none"):
        players, colours_per_player = int(players), int(colours_per_player)
        if board not in ("square", "hex"):
            raise ValueError(f"board must be square or hex, got {board!r}")
        if teams not in ("none", "pairs", "triples"):
            raise ValueError(f"teams must be none, pairs or triples, got {teams!r}")
        if not 2 <= players <= 6 or not 1 <= colours_per_player <= 3:
            raise ValueError("players must be 2..6 and colours_per_player 1..3")
        sides = 4 if board == "square" else 6
        slots = players * colours_per_player
        if slots > sides:
            raise ValueError(f"{players} players with {colours_per_player} colours each need {slots} sides; "
                             f"the {board} board has {sides}")
        if teams == "pairs" and players not in (4, 6):
            raise ValueError("pairs need 4 or 6 players")
        if teams == "triples" and players != 6:
            raise ValueError("triples need 6 players")
        self.options = dict(board=board, players=players, colours_per_player=colours_per_player, teams=teams)
        self.sides, self.n = sides, players
        self.L = L = 14 * sides
        self.BE = L
        self.home0 = [L + 1 + 4 * c for c in range(6)]  # cell of <colour>-h1
        self.ncells = L + 1 + 24
        self.owner = [None] * 6
        for j in range(slots):
            self.owner[j * sides // slots] = j % players
        self.colours = [c for c in range(sides) if self.owner[c] is not None]
        if teams == "pairs":
            self.team = [p % (players // 2) for p in range(players)]
        elif teams == "triples":
            self.team = [p % 2 for p in range(players)]
        else:
            self.team = list(range(players))
        self.mine = [[c for c in self.colours if self.team[self.owner[c]] == self.team[p]] for p in range(players)]
        self.pen_exit = [14 * c + 8 for c in range(6)]
        self.entrance = [14 * c + 6 for c in range(6)]  # home entrance: last track space before the home row
        self.pen_corner = [14 * c + 13 for c in range(6)]  # Fast Track space nearest the colour's pen
        self.ft_exit = [(14 * c - 1) % L for c in range(6)]  # own Fast Track space
        self.corners = [14 * q + 13 for q in range(sides)]
        names = [f"m{s}" for s in range(L)] + ["be"]
        for c in range(6):
            names += [f"{COLOUR_NAMES[c]}-h{j}" for j in range(1, 5)]
        self.names = names
        self.player_names = [f"p{i + 1}" for i in range(players)]


_CONFIGS = {}


def config(**options) -> Config:
    key = tuple(sorted((k, str(v)) for k, v in options.items()))
    cfg = _CONFIGS.get(key)
    if cfg is None:
        cfg = _CONFIGS[key] = Config(**options)
    return cfg


class FastTrack:
    def __init__(self, cfg: Config, seed: int = 0):
        self.cfg = cfg
        self.rng = random.Random(seed)
        self.board = [-1] * cfg.ncells  # colour id or -1
        self.trav = [False] * cfg.ncells  # travelling the Fast Track
        self.pen = [4 if cfg.owner[c] is not None else 0 for c in range(6)]
        n = cfg.n
        self.draw = [DECK[:] for _ in range(n)]
        self.hand = [[] for _ in range(n)]
        self.discard = [[] for _ in range(n)]
        self.player = 0
        self.phase = _CUT
        self.drawer = 0
        self.after = "deal"
        self.turn = 0
        self.ply = 0
        self.terminal = False
        self.winners = None
        self.capped = False

    # -- who moves --------------------------------------------------------------------------------
    def current_player(self) -> int:
        if self.terminal:
            return TERMINAL
        if self.phase != _PLAY:
            return CHANCE
        return self.player

    def acting_players(self) -> list:
        return [self.player] if not self.terminal and self.phase == _PLAY else []

    # -- chance -----------------------------------------------------------------------------------
    def chance_outcomes(self) -> list:
        if self.terminal:
            return []
        if self.phase == _CUT:
            return [(("first", p), 1 / self.cfg.n) for p in range(self.cfg.n)]
        if self.phase == _DRAW:
            pile = self.draw[self.drawer]
            return [(("draw", r), k / len(pile)) for r, k in Counter(pile).items()]
        return []

    def sample_chance(self, rng=None):
        rng = rng or self.rng
        if self.phase == _CUT:
            return ("first", rng.randrange(self.cfg.n))
        pile = self.draw[self.drawer]
        return ("draw", pile[rng.randrange(len(pile))])

    # -- movement ---------------------------------------------------------------------------------
    def _forward(self, x, k):
        """[(target, travelling)] of the forward moves of k steps of the marble on x."""
        cfg, b = self.cfg, self.board
        L = cfg.L
        col = b[x]
        if x == cfg.BE:
            return []
        h1 = cfg.home0[col]
        entrance, exit_ = cfg.entrance[col], cfg.ft_exit[col]
        corner = x < L and x % 14 == 13
        if self.trav[x]:
            lanes = (True,)
        elif corner and x != exit_:
            lanes = (False, True)
        else:
            lanes = (False,)
        res = []
        for fast in lanes:
            cur = x
            for _ in range(k):
                if fast:
                    if cur == exit_:
                        cur, fast = (cur + 1) % L, False
                    else:
                        cur = (cur + 14) % L
                elif cur < L:
                    cur = h1 if cur == entrance else (cur + 1) % L
                elif cur < h1 + 3:
                    cur += 1
                else:
                    break  # past h4
                if b[cur] == col:
                    break
            else:
                res.append((cur, fast))
        if k >= 2 and x < L and not corner and b[cfg.BE] != col:
            cur = x
            for _ in range(k - 1):
                if cur >= L or cur == entrance:
                    break  # into (or inside) the home row: no corner ahead
                cur = (cur + 1) % L
                if b[cur] == col:
                    break
            else:
                if cur < L and cur % 14 == 13:
                    res.append((cfg.BE, False))
        return res

    def _backward(self, x, k):
        """[(target, travelling)] of the backward moves of k steps of the marble on x (main track only)."""
        cfg, b = self.cfg, self.board
        L = cfg.L
        if x >= L:
            return []
        col = b[x]
        fast = self.trav[x]
        pen_corner = cfg.pen_corner[col]
        res = []
        cur = x
        for _ in range(k):
            if fast:
                if cur == pen_corner:
                    cur, fast = cur - 1, False
                else:
                    cur = (cur - 14) % L
            else:
                cur = (cur - 1) % L
            if b[cur] == col:
                break
        else:
            res.append((cur, fast))
        if k >= 2 and x % 14 != 13 and b[cfg.BE] != col:
            cur = x
            for _ in range(k - 1):
                cur = (cur - 1) % L
                if b[cur] == col:
                    break
            else:
                if cur % 14 == 13:
                    res.append((cfg.BE, False))
        return res

    def _marble_moves(self, x, card):
        """The moves of the marble on x for the card when it is the Fast Track marble that must move."""
        if card == "4":
            return [("mv", card, x, to, f) for to, f in self._backward(x, 4)]
        moves = [("mv", card, x, to, f) for to, f in self._forward(x, DISTANCE[card])]
        if card == "J":
            moves += [("swap", card, x, y) for y in self._opponents()]
        return moves

    def _opponents(self):
        """Cells on the track or the Bull's Eye holding a marble of an opposing side."""
        cfg, b = self.cfg, self.board
        team, owner, my_team = cfg.team, cfg.owner, cfg.team[self.player]
        return [y for y in range(cfg.L + 1) if b[y] >= 0 and team[owner[b[y]]] != my_team]

    # -- legal moves ------------------------------------------------------------------------------
    def legal_moves(self, player=None) -> list:
        if self.terminal:
            return []
        if self.phase != _PLAY:
            return [m for m, _ in self.chance_outcomes()]
        p = self.player
        if player is not None and player != p:
            return []
        cfg, b = self.cfg, self.board
        mine = cfg.mine[p]
        ranks = []
        for r in self.hand[p]:
            if r not in ranks:
                ranks.append(r)
        on_ft = [x for x in cfg.corners if b[x] in mine]
        moves = []
        if on_ft:
            # 1. The Fast Track marble(s) with the fewest hops to their own Fast Track space must move.
            def hops(x):
                return (b[x] - 1 - x // 14) % cfg.sides
            best = min(hops(x) for x in on_ft)
            tied = [x for x in on_ft if hops(x) == best]
            for card in ranks:
                for x in tied:
                    ms = self._marble_moves(x, card)
                    moves += ms if ms else [("home", card, x, b[x])]
            return moves
        marbles = [x for x in range(cfg.ncells) if b[x] in mine]
        for card in ranks:
            ms = self._card_moves(card, marbles, mine)
            if not ms and card != "4":  # 3. backward fallback
                k = DISTANCE[card]
                for x in marbles:
                    if x < cfg.L and not self.trav[x]:
                        ms += [("mv", card, x, to, f) for to, f in self._backward(x, k)]
            moves += ms if ms else [("none", card)]
        return moves

    def _card_moves(self, card, marbles, mine):
        """2. The card's effects from the table, for every marble of the side (no marble on the Fast Track)."""
        cfg, b = self.cfg, self.board
        L, BE = cfg.L, cfg.BE
        moves = []
        if card == "4":
            for x in marbles:
                if x < L:
                    moves += [("mv", card, x, to, f) for to, f in self._backward(x, 4)]
            return moves
        k = DISTANCE[card]
        for x in marbles:
            moves += [("mv", card, x, to, f) for to, f in self._forward(x, k)]
        if card in BRING_OUT:
            for c in mine:
                if self.pen[c] and b[cfg.pen_exit[c]] != c:
                    moves.append(("bring", card, c))
        if card in LEAVE_BE:
            c = b[BE]
            if c in mine and b[cfg.ft_exit[c]] != c:
                moves.append(("leave", card, c))
        if card == "J":
            others = self._opponents()
            for x in marbles:
                if x <= BE:
                    moves += [("swap", card, x, y) for y in others]
        if card == "7" and len(marbles) >= 2:
            trav = self.trav
            for k1 in range(1, 7):
                for a in marbles:
                    for t1, f1 in self._forward(a, k1):
                        # make the first part, list the second, undo
                        col, old, old_tr, a_tr = b[a], b[t1], trav[t1], trav[a]
                        b[a], trav[a] = -1, False
                        b[t1], trav[t1] = col, f1
                        for x in marbles:
                            if x != a and x != t1:
                                for t2, f2 in self._forward(x, 7 - k1):
                                    moves.append(("split", card, a, t1, f1, x, t2, f2))
                        b[t1], trav[t1] = old, old_tr
                        b[a], trav[a] = col, a_tr
        return moves

    # -- notation ---------------------------------------------------------------------------------
    def notation(self, move) -> str:
        names = self.cfg.names
        kind = move[0]
        if kind == "mv":
            return f"{move[1]} {names[move[2]]}-{names[move[3]]}"
        if kind == "split":
            return f"7 {names[move[2]]}-{names[move[3]]},{names[move[5]]}-{names[move[6]]}"
        if kind == "swap":
            return f"J {names[move[2]]}<>{names[move[3]]}"
        if kind == "bring":
            return f"{move[1]} {COLOUR_NAMES[move[2]]}-pen-m{self.cfg.pen_exit[move[2]]}"
        if kind == "leave":
            return f"{move[1]} be-m{self.cfg.ft_exit[move[2]]}"
        if kind == "home":
            return f"{move[1]} {names[move[2]]}-{COLOUR_NAMES[move[3]]}-pen"
        if kind == "none":
            return f"{move[1]} -"
        if kind == "first":
            return f"first {self.cfg.player_names[move[1]]}"
        if kind == "draw":
            return f"draw {move[1]}"
        raise ValueError(f"not a move: {move!r}")

    def apply_notation(self, text: str) -> None:
        for move in self.legal_moves():
            if self.notation(move) == text:
                self.apply(move)
                return
        raise ValueError(f"illegal move {text!r}")

    # -- applying ---------------------------------------------------------------------------------
    def _land(self, x, to, fast):
        b, trav = self.board, self.trav
        if b[to] >= 0:
            self.pen[b[to]] += 1
        b[to], trav[to] = b[x], fast
        b[x], trav[x] = -1, False

    def apply(self, move) -> None:
        if isinstance(move, str):
            self.apply_notation(move)
            return
        self.ply += 1
        kind = move[0]
        if kind == "first":
            self.player = move[1]
            self._deal()
            return
        if kind == "draw":
            self.draw[self.drawer].remove(move[1])
            self.hand[self.drawer].append(move[1])
            self._after_draw()
            return
        cfg, b = self.cfg, self.board
        card = move[1]
        if kind == "mv":
            self._land(move[2], move[3], move[4])
        elif kind == "split":
            self._land(move[2], move[3], move[4])
            self._land(move[5], move[6], move[7])
        elif kind == "swap":
            x, y = move[2], move[3]
            b[x], b[y] = b[y], b[x]
            self.trav[x] = self.trav[y] = False
        elif kind == "bring":
            c = move[2]
            to = cfg.pen_exit[c]
            if b[to] >= 0:
                self.pen[b[to]] += 1
            b[to], self.trav[to] = c, False
            self.pen[c] -= 1
        elif kind == "leave":
            self._land(cfg.BE, cfg.ft_exit[move[2]], False)
        elif kind == "home":
            x = move[2]
            self.pen[b[x]] += 1
            b[x], self.trav[x] = -1, False
        p = self.player
        self.hand[p].remove(card)
        self.discard[p].append(card)
        winners = [q for q in range(cfg.n) if self._side_home(q)]
        if winners:
            self.terminal, self.winners, self.phase = True, winners, _END
            return
        if card in PLAY_AGAIN:
            if self.hand[p]:
                self.phase = _PLAY
            else:
                self._start_draw(p, "play")
        elif len(self.hand[p]) < HAND_SIZE:
            self._start_draw(p, "end")
        else:
            self._end_turn()

    def _side_home(self, p) -> bool:
        b, home0 = self.board, self.cfg.home0
        for c in self.cfg.mine[p]:
            h = home0[c]
            if b[h] < 0 or b[h + 1] < 0 or b[h + 2] < 0 or b[h + 3] < 0:
                return False
        return True

    # -- turn flow --------------------------------------------------------------------------------
    def _deal(self):
        n = self.cfg.n
        for k in range(n):
            q = (self.player + k) % n
            if len(self.hand[q]) < HAND_SIZE:
                self._start_draw(q, "deal")
                return
        self.phase = _PLAY

    def _start_draw(self, who, after):
        self.drawer, self.after, self.phase = who, after, _DRAW
        if not self.draw[who]:  # reshuffle the discard pile into a new draw pile
            self.draw[who], self.discard[who] = self.discard[who], []

    def _after_draw(self):
        if self.after == "deal":
            self._deal()
        elif len(self.hand[self.drawer]) < HAND_SIZE:
            self._start_draw(self.drawer, self.after)
        elif self.after == "play":
            self.phase = _PLAY
        else:
            self._end_turn()

    def _end_turn(self):
        self.player = (self.player + 1) % self.cfg.n
        self.turn += 1
        if self.turn >= MAX_TURNS:
            self.terminal, self.capped, self.winners, self.phase = True, True, [], _END
        else:
            self.phase = _PLAY

    # -- results ----------------------------------------------------------------------------------
    def scores(self) -> list:
        return [None] * self.cfg.n

    def __str__(self):
        cfg = self.cfg
        cells = " ".join(f"{cfg.names[x]}:{COLOUR_NAMES[c]}{'*' if self.trav[x] else ''}"
                         for x, c in enumerate(self.board) if c >= 0)
        pens = " ".join(f"{COLOUR_NAMES[c]}-pen:{self.pen[c]}" for c in cfg.colours)
        return f"{cells} | {pens} | turn {self.turn}, player {self.player}"


def new_game(seed: int = 0, **options) -> FastTrack:
    return FastTrack(config(**options), seed)


def random_playout(seed: int, **options):
    """One game with uniformly random decisions and truly random chance; (winners, plies)."""
    rng = random.Random(seed)
    state = new_game(seed, **options)
    randrange = rng.randrange
    while not state.terminal:
        if state.phase != _PLAY:
            state.apply(state.sample_chance(rng))
        else:
            moves = state.legal_moves()
            state.apply(moves[randrange(len(moves))])
    return state.winners, state.ply


if __name__ == "__main__":
    import sys
    import time

    opts = dict(a.split("=", 1) for a in sys.argv[1:])
    n, plies, t0 = 0, 0, time.perf_counter()
    while time.perf_counter() - t0 < 3.0:
        plies += random_playout(n, **opts)[1]
        n += 1
    el = time.perf_counter() - t0
    print(f"{opts or 'defaults'}: {n / el:.1f} playouts/s, {plies / n:.0f} plies on average")
