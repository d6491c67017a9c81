"""Hand-written MARK reference implementation (cross-check and benchmark baseline for the rules engine).

Written from the specification (/work/shared/rules/mark.md) as plain Python: a legal-move list and a
random choice, plain lists, ints and dicts.

Interface
---------
- ``new_game(seed=0, players=2, money=30, variant="standard") -> Mark``: the options of games/mark.yaml
  (``players`` 2-4, ``money`` each player's starting dollars; strings such as "4" are accepted) and its
  variant ("standard" or "four-row-ending"). The state starts at the chance node choosing the first player;
  ``seed`` seeds the state's own sampler (used by ``sample_chance()`` without an argument).
- ``Mark`` state methods and attributes:
  - ``current_player()``: the seat to decide, ``CHANCE`` (-1: the first player, a roll), ``SIMULTANEOUS``
    (-2: the secret bids of an auction) or ``TERMINAL`` (-4).
  - ``acting_players()``: seats still to choose (all bidders not yet bid at an auction; the decider
    otherwise; [] at chance and at the end).
  - ``legal_moves(player=None) -> list``: the moves (tuples, see below) of ``player`` (default: the seat to
    decide; at an auction the first seat still to bid). At a chance node: the outcomes. A player who cannot
    act gets ``[PASS]``.
  - ``notation(move) -> str``: the rule file's notation (``str(move)`` of the interpreter's moves).
  - ``apply(move)``: apply a move or outcome (a tuple from legal_moves/chance_outcomes, trusted; or a
    string, validated like ``apply_notation``).
  - ``apply_notation(text, player=None)``: apply the legal move or chance outcome written ``text``
    (an auction bid may be written ``@<seat> bid <n>`` or given with ``player``); ValueError if illegal.
  - ``chance_outcomes() -> [(move, probability)]`` at a chance node ([] elsewhere);
    ``sample_chance(rng=None)`` draws one with the true probabilities.
  - ``terminal`` (bool), ``winners`` (sorted seats with the most money: tied players share the win;
    None before the end), ``scores()`` (each player's money), ``ply`` (moves, bids and chance outcomes
    applied, as the interpreter counts them), ``turn``, ``clone()``.
- ``random_playout(seed, **options) -> (winners, plies)``: one game from ``random.Random(seed)``: chance
  drawn with the true probabilities, every decision (and every bid) uniformly random among
  ``legal_moves()``.

Moves are tuples of ints: colours are 0-4 (white blue gold green red), rows and squares are 1-based
as in the notation:
  (TAKE, colour, k)            take <colour> r1s<k>   (also the auction winner placing the lot)
  (PRODUCE, colour, i, j)      produce <colour> r1s<i>-r2s<j>
  (SELL, colour, i, row)       sell <colour> r2s<i> row<row>
  (RETURN, colour, row, k)     return <colour> r<row>s<k>
  (BID, seat, amount)          bid <amount>
  (NAME, colour)               name <colour>
  (PASS,)                      pass
  (FIRST, seat)                first p<seat+1>        (chance)
  (ROLL, a, b)                 roll <a> <b>           (chance; a = 5 is the hammer, b = 5 the star)
"""

import random
import time

CHANCE = -1
SIMULTANEOUS = -2
TERMINAL = -4

COLOURS = ("white", "blue", "gold", "green", "red")
FACES_A = COLOURS + ("hammer",)
FACES_B = COLOURS + ("star",)
HAMMER = STAR = 5
EMPTY = -1
COPIES = 8
FEE_PER_ROW = 5
VARIANTS = {"standard": 5, "four-row-ending": 4}  # market rows full to end the game

# Move kinds
TAKE, PRODUCE, SELL, RETURN, BID, NAME, PASS, FIRST, ROLL = range(9)
PASS_MOVE = (PASS,)

# Phases (the steps of a turn)
P_FIRST, P_RETURN, P_ROLL, P_NAME, P_BIDDING, P_PLACING, P_ACTION, P_OVER = range(8)


def price(row, k):
    """What square k (1-5) of market row `row` (1-5) pays: r + 2(k - 1) dollars (the spec's table)."""
    return row + 2 * (k - 1)


def notation(move):
    kind = move[0]
    if kind == TAKE:
        return f"take {COLOURS[move[1]]} r1s{move[2]}"
    if kind == PRODUCE:
        return f"produce {COLOURS[move[1]]} r1s{move[2]}-r2s{move[3]}"
    if kind == SELL:
        return f"sell {COLOURS[move[1]]} r2s{move[2]} row{move[3]}"
    if kind == RETURN:
        return f"return {COLOURS[move[1]]} r{move[2]}s{move[3]}"
    if kind == BID:
        return f"bid {move[2]}"
    if kind == NAME:
        return f"name {COLOURS[move[1]]}"
    if kind == PASS:
        return "pass"
    if kind == FIRST:
        return f"first p{move[1] + 1}"
    if kind == ROLL:
        return f"roll {FACES_A[move[1]]} {FACES_B[move[2]]}"
    raise ValueError(f"not a move: {move!r}")


class Mark:
    def __init__(self, players=2, money=30, variant="standard", seed=0):
        players, money = int(players), int(money)
        if not 2 <= players <= 4:
            raise ValueError("players must be 2 to 4")
        if not 0 <= money <= 1000:
            raise ValueError("money must be 0 to 1000")
        if variant is None:
            variant = "standard"
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r}")
        self.n = players
        self.rows_to_end = VARIANTS[variant]
        self.money = [money] * players
        # company[p][0] is row 1 (intake), company[p][1] row 2 (factory); squares hold a colour or EMPTY
        self.company = [[[EMPTY] * 4, [EMPTY] * 4] for _ in range(players)]
        self.bank = [COPIES] * 5
        self.filled = [0] * 5  # materials on each market row (rows 1-5 at index 0-4)
        self.row_of = {}  # colour -> its market row (1-5), from the colour's first sale
        self.closed = [False] * 5
        self.player = 0  # whose turn it is
        self.phase = P_FIRST
        self.die_a = self.die_b = None
        self.lot = None
        self.bids = {}  # seat -> amount, during an auction
        self.auction_winner = None
        self.actions_left = 0
        self.terminal = False
        self.winners = None
        self.ply = 0
        self.turn = 0
        self.rng = random.Random(seed)

    def clone(self):
        g = Mark.__new__(Mark)
        g.__dict__.update(self.__dict__)
        g.money = self.money[:]
        g.company = [[r1[:], r2[:]] for r1, r2 in self.company]
        g.bank = self.bank[:]
        g.filled = self.filled[:]
        g.row_of = dict(self.row_of)
        g.closed = self.closed[:]
        g.bids = dict(self.bids)
        g.rng = random.Random()
        g.rng.setstate(self.rng.getstate())
        return g

    # -- who moves -------------------------------------------------------------------------------
    def current_player(self):
        phase = self.phase
        if phase == P_OVER:
            return TERMINAL
        if phase in (P_FIRST, P_ROLL):
            return CHANCE
        if phase == P_BIDDING:
            return SIMULTANEOUS
        if phase == P_PLACING:
            return self.auction_winner
        return self.player

    def acting_players(self):
        phase = self.phase
        if phase in (P_OVER, P_FIRST, P_ROLL):
            return []
        if phase == P_BIDDING:
            return [p for p in range(self.n) if p not in self.bids]
        return [self.current_player()]

    # -- helpers ---------------------------------------------------------------------------------
    @staticmethod
    def held(row):
        return 4 - row.count(EMPTY)

    def fee(self, p):
        return FEE_PER_ROW * sum(1 for row in self.company[p] if self.held(row) > 2)

    def rolled_colours(self):
        """Colours the roll allows (in play only); the star counts as any colour in play."""
        a, b = self.die_a, self.die_b
        if a == b:
            return [a] if not self.closed[a] else []
        if b == STAR:
            return [c for c in range(5) if not self.closed[c]]
        return [c for c in (a, b) if c < 5 and not self.closed[c]]

    def sale_rows(self, colour):
        if colour in self.row_of:
            return [self.row_of[colour]]
        return [r for r in range(1, 6) if self.filled[r - 1] == 0]  # an unclaimed row is empty

    # -- legal moves -----------------------------------------------------------------------------
    def legal_moves(self, player=None):
        phase = self.phase
        if phase == P_OVER:
            return []
        if phase in (P_FIRST, P_ROLL):
            return [m for m, _ in self.chance_outcomes()]
        if phase == P_BIDDING:
            waiting = self.acting_players()
            if player is None:
                player = waiting[0]
            elif player not in waiting:
                return []
            return [(BID, player, amount) for amount in range(self.money[player] + 1)]
        me = self.current_player()
        if player is not None and player != me:
            return []
        if phase == P_ACTION:
            return self.action_moves(me) or [PASS_MOVE]
        if phase == P_RETURN:
            moves = []
            for r, row in enumerate(self.company[me]):
                if self.held(row) > 2:
                    for k in range(4):
                        if row[k] != EMPTY:
                            moves.append((RETURN, row[k], r + 1, k + 1))
            return moves
        if phase == P_NAME:
            return [(NAME, c) for c in range(5) if not self.closed[c]]
        if phase == P_PLACING:
            row1 = self.company[me][0]
            return [(TAKE, self.lot, k + 1) for k in range(4) if row1[k] == EMPTY]
        raise AssertionError(phase)

    def action_moves(self, me):
        row1, row2 = self.company[me]
        moves = []
        for c in self.rolled_colours():
            if self.bank[c] > 0:
                for k in range(4):
                    if row1[k] == EMPTY:
                        moves.append((TAKE, c, k + 1))
            for i in range(4):
                if row1[i] == c:
                    for j in (i - 1, i, i + 1):
                        if 0 <= j < 4 and row2[j] == EMPTY:
                            moves.append((PRODUCE, c, i + 1, j + 1))
            rows = None
            for i in range(4):
                if row2[i] == c:
                    if rows is None:
                        rows = self.sale_rows(c)
                    for r in rows:
                        moves.append((SELL, c, i + 1, r))
        return moves

    def chance_outcomes(self):
        if self.phase == P_FIRST:
            return [((FIRST, p), 1 / self.n) for p in range(self.n)]
        if self.phase == P_ROLL:
            return [((ROLL, a, b), 1 / 36) for a in range(6) for b in range(6)]
        return []

    def sample_chance(self, rng=None):
        rng = rng or self.rng
        if self.phase == P_FIRST:
            return (FIRST, rng.randrange(self.n))
        if self.phase == P_ROLL:
            return (ROLL, rng.randrange(6), rng.randrange(6))
        raise ValueError("not a chance node")

    def notation(self, move):
        return notation(move)

    # -- applying --------------------------------------------------------------------------------
    def apply_notation(self, text, player=None):
        text = " ".join(str(text).split())
        if text.startswith("@"):
            seat, text = text[1:].split(" ", 1)
            player = int(seat)
        for move in self.legal_moves(player):
            if notation(move) == text:
                self.apply(move)
                return move
        raise ValueError(f"illegal move {text!r}")

    def apply(self, move):
        if isinstance(move, str):
            self.apply_notation(move)
            return
        if self.phase == P_OVER:
            raise ValueError("the game is over")
        self.ply += 1
        kind = move[0]
        phase = self.phase
        if kind == ROLL:
            self.die_a, self.die_b = move[1], move[2]
            self.actions_left = 2 if move[1] == move[2] != HAMMER else 1  # the star never makes a double
            if move[1] != HAMMER:
                self.phase = P_ACTION
            elif move[2] == STAR:
                self.phase = P_NAME
            else:
                self.open_auction(move[2])
        elif kind == BID:
            self.bids[move[1]] = move[2]
            if len(self.bids) == self.n:
                self.resolve_auction()
        elif kind == TAKE and phase == P_PLACING:
            self.company[self.auction_winner][0][move[2] - 1] = self.lot
            self.bank[self.lot] -= 1
            self.phase = P_ROLL
        elif kind == TAKE:
            self.company[self.player][0][move[2] - 1] = move[1]
            self.bank[move[1]] -= 1
            self.after_action()
        elif kind == PRODUCE:
            row1, row2 = self.company[self.player]
            row1[move[2] - 1] = EMPTY
            row2[move[3] - 1] = move[1]
            self.after_action()
        elif kind == SELL:
            self.sell(move[1], move[2], move[3])
            if not self.terminal:
                self.after_action()
        elif kind == PASS:
            self.end_turn()
        elif kind == RETURN:
            row = self.company[self.player][move[2] - 1]
            row[move[3] - 1] = EMPTY
            self.bank[move[1]] += 1
            if all(self.held(r) <= 2 for r in self.company[self.player]):
                self.phase = P_ROLL
        elif kind == NAME:
            self.open_auction(move[1])
        elif kind == FIRST:
            self.player = move[1]
            self.start_turn()
        else:
            raise ValueError(f"not a move: {move!r}")

    def start_turn(self):
        """Storage fees: pay for rows holding 3 or 4, or return stock when the money does not cover it."""
        p = self.player
        fee = self.fee(p)
        if fee == 0:
            self.phase = P_ROLL
        elif self.money[p] >= fee:
            self.money[p] -= fee
            self.phase = P_ROLL
        else:
            self.phase = P_RETURN

    def end_turn(self):
        self.player = (self.player + 1) % self.n
        self.turn += 1
        self.start_turn()

    def after_action(self):
        self.actions_left -= 1
        if self.actions_left > 0:
            self.phase = P_ACTION  # the second action of a double
        else:
            self.end_turn()

    def open_auction(self, colour):
        """After a hammer: an auction of `colour` if it is in play and in the bank, else roll again."""
        self.lot = colour
        if self.closed[colour] or self.bank[colour] == 0:
            self.phase = P_ROLL
        else:
            self.bids = {}
            self.phase = P_BIDDING

    def resolve_auction(self):
        bids, self.bids = self.bids, {}
        best = max(bids.values())
        self.phase = P_ROLL
        if best == 0:
            return  # everybody passed
        for k in range(self.n):  # ties go to the roller, then clockwise
            p = (self.player + k) % self.n
            if bids[p] == best:
                break
        self.auction_winner = p
        self.money[p] -= best
        if EMPTY in self.company[p][0]:
            self.phase = P_PLACING

    def sell(self, colour, square, row):
        self.company[self.player][1][square - 1] = EMPTY
        k = self.filled[row - 1] + 1
        self.money[self.player] += price(row, k)
        self.filled[row - 1] = k
        self.row_of[colour] = row
        if k == 5:  # the colour goes out of play
            self.closed[colour] = True
            self.bank[colour] = 0
            for company in self.company:
                for r in company:
                    for i in range(4):
                        if r[i] == colour:
                            r[i] = EMPTY
            if self.filled.count(5) >= self.rows_to_end:
                self.phase = P_OVER
                self.terminal = True
                best = max(self.money)
                self.winners = [p for p in range(self.n) if self.money[p] == best]

    # -- results ---------------------------------------------------------------------------------
    def scores(self):
        return self.money[:]

    def __str__(self):
        lines = []
        for r in range(5):
            owner = next((COLOURS[c] for c, row in self.row_of.items() if row == r + 1), "-")
            lines.append(f"market row {r + 1}: {owner} x{self.filled[r]}")
        for p in range(self.n):
            rows = " | ".join(" ".join(COLOURS[c][:2] if c != EMPTY else ".." for c in row)
                              for row in self.company[p])
            lines.append(f"p{p + 1} ${self.money[p]}: {rows}")
        return "\n".join(lines)


def new_game(seed=0, **options):
    """The initial state (before the first player is drawn) for the rule file's options and variant."""
    return Mark(seed=seed, **options)


def random_playout(seed, **options):
    """One random game: (winners, plies), plies counting decisions, bids and chance outcomes."""
    rng = random.Random(seed)
    g = Mark(seed=seed, **options)
    choice = rng.choice
    while not g.terminal:
        p = g.current_player()
        if p == CHANCE:
            g.apply(g.sample_chance(rng))
        elif p == SIMULTANEOUS:
            for q in g.acting_players():
                g.apply(choice(g.legal_moves(q)))
        else:
            g.apply(choice(g.legal_moves(p)))
    return g.winners, g.ply


if __name__ == "__main__":
    for opts in ({"players": 2}, {"players": 4}, {"players": 2, "variant": "four-row-ending"},
                 {"players": 4, "variant": "four-row-ending"}):
        n, plies, t0 = 0, 0, time.perf_counter()
        while time.perf_counter() - t0 < 3.0:
            plies += random_playout(n, **opts)[1]
            n += 1
        el = time.perf_counter() - t0
        print(f"{opts}: {n / el:.0f} playouts/s, {plies / n:.1f} plies on average")
