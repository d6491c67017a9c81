"""Hand-written Mabula reference implementation (cross-check and benchmark baseline for the rules engine)."""

import random
import time
from math import prod

# Board: flat list of 64 ints, index = row*8 + col (a1 = 0, h8 = 63); 0 empty, 1 white, 2 black.
# Player p (0 white, 1 black) owns colour p + 1.
# A move is a small int: ring_index * 6 + (steps - 1); PASS = -1.

FILES = "abcdefgh"
RING = ("b1", "c1", "d1", "e1", "f1", "g1", "h2", "h3", "h4", "h5", "h6", "h7",
        "g8", "f8", "e8", "d8", "c8", "b8", "a7", "a6", "a5", "a4", "a3", "a2")
PASS = -1


def _idx(name):
    return (int(name[1]) - 1) * 8 + FILES.index(name[0])


def _name(i):
    return FILES[i % 8] + str(i // 8 + 1)


def _row_line(i):
    return 6 + i // 8 - 1  # field rows 2..7 -> line ids 6..11


def _col_line(i):
    return i % 8 - 1  # field columns b..g -> line ids 0..5


EDGE = tuple(_idx(n) for n in RING)  # ring index -> board index
RAYS, LINE, PERP = [], [], []  # per ring index: 6 field cells inward, its line id, crossing line ids
for _e in EDGE:
    _r, _c = divmod(_e, 8)
    _d = 8 if _r == 0 else -8 if _r == 7 else 1 if _c == 0 else -1
    _ray = tuple(_e + _d * s for s in range(1, 7))
    _vertical = _d in (8, -8)
    RAYS.append(_ray)
    LINE.append(_col_line(_ray[0]) if _vertical else _row_line(_ray[0]))
    PERP.append(tuple(_row_line(c) if _vertical else _col_line(c) for c in _ray))
RAYS, LINE, PERP = tuple(RAYS), tuple(LINE), tuple(PERP)

# Orthogonal neighbours among the 60 used cells (corners are always empty, so skip them).
_CORNERS = {0, 7, 56, 63}
CELLS = tuple(i for i in range(64) if i not in _CORNERS)
NB = [()] * 64
for _i in CELLS:
    _r, _c = divmod(_i, 8)
    NB[_i] = tuple(_r2 * 8 + _c2 for _r2, _c2 in ((_r - 1, _c), (_r + 1, _c), (_r, _c - 1), (_r, _c + 1))
                   if 0 <= _r2 < 8 and 0 <= _c2 < 8 and _r2 * 8 + _c2 not in _CORNERS)
NB = tuple(NB)

_M24 = (1 << 24) - 1


def _three_free(bits):
    # Bit i = ring cell i is white; no three cyclically consecutive equal, for both colours.
    r1 = ((bits >> 1) | (bits << 23)) & _M24
    r2 = ((bits >> 2) | (bits << 22)) & _M24
    return not (bits & r1 & r2) and not (~bits & ~r1 & ~r2 & _M24)


def parse_setup(s):
    """Validate a 24-char W/B ring string; return the 64-cell board list."""
    if not isinstance(s, str) or len(s) != 24 or set(s) - {"W", "B"}:
        raise ValueError(f"setup must be 24 characters of W/B in ring order, got {s!r}")
    if s.count("W") != 12:
        raise ValueError(f"setup must hold exactly 12 W and 12 B, got {s.count('W')} W in {s!r}")
    bits = sum(1 << i for i, ch in enumerate(s) if ch == "W")
    if not _three_free(bits):
        i = next(i for i in range(24) if s[i] == s[(i + 1) % 24] == s[(i + 2) % 24])
        raise ValueError(f"setup {s!r} has three {s[i]} in a row at "
                         f"{RING[i]} {RING[(i + 1) % 24]} {RING[(i + 2) % 24]}")
    b = [0] * 64
    for i, ch in enumerate(s):
        b[EDGE[i]] = 1 if ch == "W" else 2
    return b


def random_setup(rng):
    """Uniform valid setup: rejection sampling on 24 random bits (about 1 in 418 accepted)."""
    getrandbits = rng.getrandbits
    while True:
        bits = getrandbits(24)
        if bits.bit_count() == 12 and _three_free(bits):
            return "".join("W" if bits >> i & 1 else "B" for i in range(24))


def notation(move):
    if move == PASS:
        return "pass"
    ri, k0 = divmod(move, 6)
    return f"{RING[ri]}-{_name(RAYS[ri][k0])}"


def parse_move(text):
    """Inverse of notation() (syntax only; legality is checked by Mabula.apply for strings)."""
    if text == "pass":
        return PASS
    try:
        src, dst = text.split("-")
        ri = RING.index(src)
        return ri * 6 + RAYS[ri].index(_idx(dst))
    except (ValueError, IndexError):
        raise ValueError(f"bad move {text!r}") from None


def _push(b, cnt, ri, k0):
    """Push the marble on ring cell ri by k0+1 steps; caller guarantees legality."""
    ray, perp = RAYS[ri], PERP[ri]
    e = EDGE[ri]
    chain = [b[e]]
    b[e] = 0
    cnt[LINE[ri]] += 1
    # Lift the chain: a marble at j is pushed iff the chain front (last) reaches it.
    last = k0
    j = 0
    for c in ray:
        v = b[c]
        if v:
            if j > last:
                break  # gap in front of the chain: it and everything beyond stay put
            last += 1
            chain.append(v)
            b[c] = 0
            cnt[perp[j]] -= 1
        j += 1
    # Drop the chain back as a contiguous run starting at the mover's target.
    j = k0
    for v in chain:
        b[ray[j]] = v
        cnt[perp[j]] += 1
        j += 1


def _groups(b):
    """Group sizes per player, each sorted descending."""
    g = b[:]  # visited cells are zeroed in this copy
    res = ([], [])
    for s in CELLS:
        v = g[s]
        if v:
            g[s] = 0
            stack = [s]
            n = 0
            while stack:
                c = stack.pop()
                n += 1
                for d in NB[c]:
                    if g[d] == v:
                        g[d] = 0
                        stack.append(d)
            res[v - 1].append(n)
    res[0].sort(reverse=True)
    res[1].sort(reverse=True)
    return res


def _winner(b, product=False):
    w, k = _groups(b)
    if product:
        w, k = prod(w), prod(k)
    # Standard: lexicographic on descending group lists (sums are equal, so no prefix case).
    return 0 if w > k else 1 if k > w else None


class Mabula:
    __slots__ = ("board", "cnt", "edges", "to_move")

    def __init__(self, setup):
        self.board = parse_setup(setup)
        self.cnt = [0] * 12  # marbles in the 6 field cells of each line (cols b..g, rows 2..7)
        self.edges = ([i for i in range(24) if setup[i] == "W"],
                      [i for i in range(24) if setup[i] == "B"])  # ring indices still on the edge
        self.to_move = 0

    @classmethod
    def initial(cls, setup):
        return cls(setup)

    def clone(self):
        g = Mabula.__new__(Mabula)
        g.board = self.board[:]
        g.cnt = self.cnt[:]
        g.edges = (self.edges[0][:], self.edges[1][:])
        g.to_move = self.to_move
        return g

    def _num_pushes(self, p):
        # A line with m field marbles allows 1..6-m steps (all m can be packed ahead).
        cnt = self.cnt
        return sum(6 - cnt[LINE[ri]] for ri in self.edges[p])

    def _can_push(self, p):
        cnt = self.cnt
        return any(cnt[LINE[ri]] < 6 for ri in self.edges[p])

    def legal_moves(self):
        cnt = self.cnt
        moves = [ri * 6 + k0 for ri in self.edges[self.to_move] for k0 in range(6 - cnt[LINE[ri]])]
        if not moves and self._can_push(1 - self.to_move):
            moves.append(PASS)
        return moves

    def apply(self, move):
        """Play a move (int, fast and unchecked; or notation string, validated)."""
        if isinstance(move, str):
            m = parse_move(move)
            if m not in self.legal_moves():
                raise ValueError(f"illegal move {move!r}")
            move = m
        if move != PASS:
            ri, k0 = divmod(move, 6)
            self.edges[self.to_move].remove(ri)
            _push(self.board, self.cnt, ri, k0)
        self.to_move ^= 1

    def is_terminal(self):
        return not self._can_push(0) and not self._can_push(1)

    def groups(self):
        return _groups(self.board)

    def scores(self, product=False):
        w, k = _groups(self.board)
        return (prod(w), prod(k)) if product else (w[0], k[0])

    def winner(self, product=False):
        return _winner(self.board, product)

    def __str__(self):
        return "\n".join(" ".join(".WB"[self.board[r * 8 + c]] if r * 8 + c not in _CORNERS else " "
                                  for c in range(8)) for r in range(7, -1, -1))


def _perft(g, depth):
    moves = g.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        h = g.clone()
        h.apply(m)
        total += _perft(h, depth - 1)
    return total


def perft(setup, depth):
    g = Mabula(setup)
    return _perft(g, depth) if depth > 0 else 1


def random_playout(rng, setup=None, product=False):
    """One random game (uniform setup if None, uniform legal move per ply); returns 0, 1 or None."""
    if setup is None:
        setup = random_setup(rng)
    b = parse_setup(setup)
    cnt = [0] * 12
    edges = ([i for i in range(24) if setup[i] == "W"], [i for i in range(24) if setup[i] == "B"])
    rand = rng.random
    p = 0
    while True:
        mine = edges[p]
        n = 0
        for ri in mine:
            n += 6 - cnt[LINE[ri]]
        if n == 0:
            for ri in edges[p ^ 1]:
                if cnt[LINE[ri]] < 6:
                    break
            else:
                break  # neither side can push: game over
            p ^= 1  # pass
            continue
        r = int(rand() * n)  # float scaling: bias below 2**-46 for n <= 72
        for ri in mine:
            k = 6 - cnt[LINE[ri]]
            if r < k:
                break
            r -= k
        mine.remove(ri)
        _push(b, cnt, ri, r)
        p ^= 1
    return _winner(b, product)


if __name__ == "__main__":
    S = "WBWBWBWBWBWBWBWBWBWBWBWB"
    for d in (1, 2, 3):
        t = time.perf_counter()
        print(f"perft({d}) = {perft(S, d)}  ({time.perf_counter() - t:.2f}s)")
    rng = random.Random(1)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < 3.0:
        for _ in range(100):
            random_playout(rng)
        n += 100
    el = time.perf_counter() - t0
    print(f"random playouts: {n / el:.0f}/s ({n} in {el:.2f}s, random setups)")
