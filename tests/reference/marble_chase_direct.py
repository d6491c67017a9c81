"""Hand-written Marble Chase reference implementation (cross-check and benchmark baseline for the rules engine).

Written from the specification (/work/shared/rules/marble-chase.md) as plain Python: a legal-move list
per decision, chance nodes that either enumerate their outcomes or draw one the way the spec describes
the shot (out / miss, then drift and depth drawn independently).

Interface
---------
new_game(seed, players=2, teams=False, match=False, skills="standard", max_turns=10_000) -> MarbleChase
    The option names and values of games/marble-chase.yaml (strings such as "4" or "true", as given to
    the interpreter, are accepted too). max_turns is the engine's simulation cap, not a rule: a game
    still running when that many turns have ended stops as a draw (capped=True, winners=[]).

MarbleChase (the state, mutated in place):
    current_player()   a seat, CHANCE (-1) at the first-player draw, the die roll and every shot, or
                       TERMINAL (-4). There are no simultaneous steps (SIMULTANEOUS = -2 is never returned).
    acting_players()   [current_player()] at a decision, else [].
    legal_moves(player=None) -> list of moves (tuples, see below); the chance outcomes at a chance node;
                       [] when `player` is given and is not the one to move.
    chance_outcomes()  [(move, probability)] of the outcomes with a positive probability.
    sample_chance(rng=None) -> move    one outcome drawn with the true probabilities (rng: random.Random).
    notation(move)     the rule file's notation (str() of the interpreter's moves).
    apply(move), apply_notation(text)
    terminal, winners (sorted seats, [] for a draw), capped, scores() (per seat: games won in a match,
    else the sum of the side's four totals), turn (turns ended), ply (moves and outcomes applied).

Moves:  ("first", seat)  ("d6", n)  ("shoot", column, line)  ("slot", column, depth)  ("no-slot",)
        ("out",)  ("score", n, colour)  ("black", n, target, colour)  ("skip", n)
with column 1-6, line "front"/"back", depth 0-2 (near/middle/far), colour 0-3 (yellow/red/blue/green),
n the marble's number (1-3), target the opposing side (its lowest seat in a team game).

random_playout(seed, **options) -> (winners, plies): one game from random.Random(seed), chance drawn with
the true probabilities, every decision uniform among legal_moves().
"""

import random
import time

CHANCE = -1
SIMULTANEOUS = -2
TERMINAL = -4

COLUMN_COLOURS = ("black", "yellow", "red", "blue", "green", "white")  # columns 1-6
COLOURS = ("yellow", "red", "blue", "green")  # the scoring colours; a total's index in a side's list
COLOUR_OF_COLUMN = {2: 0, 3: 1, 4: 2, 5: 3}  # column -> its scoring colour (1 is black, 6 white)
DEPTHS = ("near", "middle", "far")
VALUES = (1, 3, 5)
MAX_TOTAL = 20
CUBES = 12
CUBES_AFTER_A_WIN = 11
SHOTS_PER_TURN = 3
MAX_RESHOTS = 10
GAMES_TO_WIN = 2

# line -> (out, miss, drift -1/0/+1, depth near/middle/far)
SHOT_TABLES = {
    "standard": {"front": (0.05, 0.10, (0.15, 0.70, 0.15), (0.50, 0.35, 0.15)),
                 "back": (0.10, 0.10, (0.25, 0.50, 0.25), (0.40, 0.35, 0.25))},
    "expert": {"front": (0.05, 0.10, (0.075, 0.85, 0.075), (0.50, 0.35, 0.15)),
               "back": (0.10, 0.10, (0.125, 0.75, 0.125), (0.40, 0.35, 0.25))},
}

# phases
FIRST, ROLL, AIM, SHOT, SCORING, OVER = "first", "roll", "aim", "shot", "scoring", "over"


def need(t):
    """Cubes that mark a total t: one on the 5/10/15/20 space, one per point of t mod 5."""
    return (1 if t >= 5 else 0) + t % 5


def _bool(value):
    if isinstance(value, str):
        if value.lower() in ("true", "1", "yes"):
            return True
        if value.lower() in ("false", "0", "no"):
            return False
        raise ValueError(f"not a boolean: {value!r}")
    return bool(value)


class MarbleChase:
    def __init__(self, seed=0, players=2, teams=False, match=False, skills="standard", max_turns=10_000):
        players, teams, match = int(players), _bool(teams), _bool(match)
        if not 2 <= players <= 4:
            raise ValueError("players must be 2 to 4")
        if teams and players != 4:
            raise ValueError("the teams option needs 4 players (seats 0 & 2 against 1 & 3)")
        names = skills.split(",")
        for name in names:
            if name not in SHOT_TABLES:
                raise ValueError(f"unknown shot table in skills={skills}")
        self.n = players
        self.teams = teams
        self.match = match
        self.tables = [SHOT_TABLES[names[min(p, len(names) - 1)]] for p in range(players)]
        self.max_turns = max_turns
        self.rng = random.Random(seed)
        sides = 2 if teams else players
        self.totals = [[0, 0, 0, 0] for _ in range(sides)]
        self.cubes = [CUBES] * sides
        self.wins = [0] * sides
        self.player = 0
        self.starter = 0
        self.free_shot = True
        self.free_turn = False
        self.die = None
        self.shot_no = 0
        self.aim_col = None
        self.aim_line = None
        self.aim_mod = 0
        self.reshots = 0
        self.outs = 0
        self.marbles = {}  # marble number -> (column, depth, modifier), the marbles on the board
        self.lost = []
        self.phase = FIRST
        self.terminal = False
        self.winners = None
        self.capped = False
        self.turn = 0
        self.ply = 0

    # -- who moves -------------------------------------------------------------------------
    def side(self, p):
        return p % 2 if self.teams else p

    def current_player(self):
        if self.terminal:
            return TERMINAL
        if self.phase in (FIRST, ROLL, SHOT):
            return CHANCE
        return self.player

    def acting_players(self):
        p = self.current_player()
        return [p] if p >= 0 else []

    # -- moves -------------------------------------------------------------------------------
    def cubes_with(self, s, colour, t):
        totals = self.totals[s]
        return sum(need(t if c == colour else totals[c]) for c in range(4))

    def legal_moves(self, player=None):
        if self.terminal:
            return []
        if self.phase in (FIRST, ROLL, SHOT):
            return [m for m, _ in self.chance_outcomes()]
        if player is not None and player != self.player:
            return []
        if self.phase == AIM:
            return [("shoot", c, line) for c in range(1, 7) for line in ("front", "back")]
        # scoring: each marble on the board may be scored (if allowed) or skipped
        moves = []
        me = self.side(self.player)
        mine = self.totals[me]
        for n in sorted(self.marbles):
            col, depth, mod = self.marbles[n]
            pts = max(0, VALUES[depth] + mod)
            if col == 1:  # black: against an opponent's total
                for target in range(len(self.totals)):
                    if target == me:
                        continue
                    theirs = self.totals[target]
                    for c in range(4):
                        before = theirs[c]
                        if before < MAX_TOTAL and before >= pts \
                                and self.cubes_with(target, c, before - pts) <= self.cubes[target]:
                            moves.append(("black", n, target, c))
            else:
                colours = range(4) if col == 6 else (COLOUR_OF_COLUMN[col],)
                for c in colours:
                    total = mine[c] + pts
                    if total <= MAX_TOTAL and self.cubes_with(me, c, total) <= self.cubes[me]:
                        moves.append(("score", n, c))
            moves.append(("skip", n))
        return moves

    def _free(self, col, depth):
        for c, d, _ in self.marbles.values():
            if c == col and d == depth:
                return False
        return True

    def chance_outcomes(self):
        if self.terminal:
            return []
        if self.phase == FIRST:
            return [(("first", p), 1 / self.n) for p in range(self.n)]
        if self.phase == ROLL:
            return [(("d6", k), 1 / 6) for k in range(1, 7)]
        if self.phase != SHOT:
            return []
        out, miss, drift, depths = self.tables[self.player][self.aim_line]
        inside = 1 - out - miss
        p_out, p_none = out, miss
        slots = []
        for d in (-1, 0, 1):
            col = self.aim_col + d
            p_col = inside * drift[d + 1]
            if not 1 <= col <= 6:
                p_out += p_col
                continue
            for k in range(3):
                p = p_col * depths[k]
                if self._free(col, k):
                    if p > 0:
                        slots.append((("slot", col, k), p))
                else:
                    p_none += p
        result = slots
        if p_none > 0:
            result.append((("no-slot",), p_none))
        if p_out > 0:
            result.append((("out",), p_out))
        return result

    def sample_chance(self, rng=None):
        """Draw the outcome of the chance node: the first player, the die, or a shot as the spec models it."""
        rng = rng or self.rng
        if self.phase == FIRST:
            return ("first", rng.randrange(self.n))
        if self.phase == ROLL:
            return ("d6", rng.randint(1, 6))
        out, miss, drift, depths = self.tables[self.player][self.aim_line]
        r = rng.random()
        if r < out:
            return ("out",)
        if r < out + miss:
            return ("no-slot",)
        r = rng.random()
        d = -1 if r < drift[0] else 0 if r < drift[0] + drift[1] else 1
        col = self.aim_col + d
        if not 1 <= col <= 6:
            return ("out",)
        r = rng.random()
        k = 0 if r < depths[0] else 1 if r < depths[0] + depths[1] else 2
        if not self._free(col, k):
            return ("no-slot",)
        return ("slot", col, k)

    # -- notation ----------------------------------------------------------------------------
    def notation(self, move):
        kind = move[0]
        if kind == "shoot":
            return f"shoot c{move[1]} {move[2]}"
        if kind == "score":
            return f"score {move[1]} {COLOURS[move[2]]}"
        if kind == "black":
            return f"score {move[1]} black {move[2]} {COLOURS[move[3]]}"
        if kind == "skip":
            return f"skip {move[1]}"
        if kind == "slot":
            return f"slot c{move[1]} {DEPTHS[move[2]]}"
        if kind == "d6":
            return f"d6={move[1]}"
        if kind == "first":
            return f"first p{move[1]}"
        return kind  # "no-slot", "out"

    def apply_notation(self, text):
        for move in self.legal_moves():
            if self.notation(move) == text:
                self.apply(move)
                return move
        raise ValueError(f"illegal move {text!r} (phase {self.phase}, player {self.player})")

    # -- applying ----------------------------------------------------------------------------
    def apply(self, move):
        kind = move[0]
        self.ply += 1
        if kind == "shoot":
            _, col, line = move
            self.shot_no += 1
            self.aim_col = col
            self.aim_line = line
            self.aim_mod = (1 if line == "back" else 0) - (0 if self.free_turn or col == self.die else 1)
            self.reshots = 0
            self.outs = 0
            self.phase = SHOT
        elif kind == "slot" or kind == "no-slot" or kind == "out":
            self._shot(move)
        elif kind == "d6":
            self.die = move[1]
            self.phase = AIM
        elif kind == "first":
            self.player = self.starter = move[1]
            self._begin()
        else:
            self._score(move)

    def _shot(self, move):
        if move[0] == "slot":
            self.marbles[self.shot_no] = (move[1], move[2], self.aim_mod)
        else:
            self.reshots += 1
            if move[0] == "out":
                self.outs += 1
            if self.outs < 2 and self.reshots <= MAX_RESHOTS:
                return  # shot again: same column and line
            self.lost.append(self.shot_no)
        if self.shot_no < (1 if self.free_turn else SHOTS_PER_TURN):
            self.phase = AIM
        elif self.marbles:
            self.phase = SCORING
        else:
            self._end_turn()

    def _score(self, move):
        kind, n = move[0], move[1]
        col, depth, mod = self.marbles.pop(n)
        pts = max(0, VALUES[depth] + mod)
        me = self.side(self.player)
        if kind == "score":
            self.totals[me][move[2]] += pts
        elif kind == "black":
            self.totals[move[2]][move[3]] -= pts
        if all(t == MAX_TOTAL for t in self.totals[me]):  # a game won (only own scoring can raise a total)
            if self.match:
                self.wins[me] += 1
                if self.wins[me] < GAMES_TO_WIN:  # the next game of the match
                    self.cubes[me] = CUBES_AFTER_A_WIN
                    self.totals = [[0, 0, 0, 0] for _ in self.totals]
                    self.marbles = {}
                    self.starter = (self.starter + 1) % self.n
                    self.free_shot = True
                    self._end_turn()
                    return
            self.terminal = True
            self.phase = OVER
            self.winners = [p for p in range(self.n) if self.side(p) == me]
            return
        if not self.marbles:
            self._end_turn()

    def _end_turn(self):
        self.player = self.starter if self.free_shot else (self.player + 1) % self.n
        self.turn += 1
        if self.max_turns is not None and self.turn >= self.max_turns:
            self.terminal, self.capped, self.winners, self.phase = True, True, [], OVER
            return
        self._begin()

    def _begin(self):
        self.free_turn = self.free_shot
        self.free_shot = False
        self.shot_no = 0
        self.die = None
        self.lost = []
        self.phase = AIM if self.free_turn else ROLL

    # -- results -----------------------------------------------------------------------------
    def scores(self):
        if self.match:
            return [self.wins[self.side(p)] for p in range(self.n)]
        return [sum(self.totals[self.side(p)]) for p in range(self.n)]


def new_game(seed=0, **options):
    return MarbleChase(seed, **options)


def random_playout(seed, **options):
    """One random game: chance drawn with the true probabilities, decisions uniform among legal_moves()."""
    rng = random.Random(seed)
    game = MarbleChase(seed, **options)
    plies = 0
    while not game.terminal:
        if game.current_player() == CHANCE:
            game.apply(game.sample_chance(rng))
        else:
            game.apply(rng.choice(game.legal_moves()))
        plies += 1
    return game.winners, plies


if __name__ == "__main__":
    for opts in ({}, {"players": 4, "teams": True, "match": True}):
        n, plies, t0 = 0, 0, time.perf_counter()
        while time.perf_counter() - t0 < 3.0:
            plies += random_playout(n, **opts)[1]
            n += 1
        el = time.perf_counter() - t0
        print(f"{opts or 'defaults'}: {n / el:.1f} playouts/s, {plies / n:.0f} plies on average")
