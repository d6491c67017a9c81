"""Random playouts per second for every bundled game, and for Mabula the direct implementation's ratio.

Usage:  python benchmarks/playouts.py [--seconds 5] [--game mabula] [--breakdown]

Each playout is a fresh seeded state played to the end by the play loop (rulesdsl.engine.play, as
in random_playout) with uniformly random legal moves and sampled chance outcomes, through the public
State API: the loop an AI library runs. Its random streams run on from one playout to the next, as
the direct implementation's generator does, so that seeding them is not what is timed.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import rulesdsl  # noqa: E402
from rulesdsl.engine.play import play, streams, uniform  # noqa: E402
from rulesdsl.loading import bundled_games  # noqa: E402

clock = time.perf_counter


# Further configurations measured beside each game's defaults.
EXTRA = {
    "fast-track": [("fast-track, hex board", {"board": "hex"}),
                   ("fast-track, 4 players in pairs", {"players": 4, "teams": "pairs"})],
    "mark": [("mark, 4 players", {"players": 4})],
}


def rate(fn, seconds: float) -> float:
    """Calls per second of fn(i), measured over about `seconds` (after a short warm-up)."""
    for i in range(3):
        fn(i)
    count, start = 0, time.perf_counter()
    while True:
        fn(count)
        count += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return count / elapsed


class _Clocked:
    """A state whose listing, drawing and applying are timed into `spent`: how breakdown() sees the parts of
    the play loop."""

    __slots__ = ("state", "spent")

    def __init__(self, state, spent: dict):
        self.state, self.spent = state, spent

    @property
    def terminal(self) -> bool:
        return self.state.terminal

    def current_player(self) -> int:
        return self.state.current_player()

    def acting_players(self) -> list:
        return self.state.acting_players()

    def legal_moves(self, player):
        t = clock()
        moves = self.state.legal_moves(player)
        self.spent["listing moves"] += clock() - t
        return moves

    def sample_chance(self, rng):
        t = clock()
        move = self.state.sample_chance(rng)
        self.spent["chance"] += clock() - t
        return move

    def apply(self, move) -> None:
        t = clock()
        self.state.apply(move)
        self.spent["applying moves"] += clock() - t


def playouts(game):
    """fn(i) for rate(): random playout i of `game`."""
    chance, seats = streams(0, game.num_players)
    return lambda i: play(game.new_initial_state(i), uniform, chance, seats)


def breakdown(game, seconds: float) -> dict:
    """Microseconds per playout spent making the state, drawing chance outcomes, listing moves and applying
    them (effects, turn flow and end checks): the playouts' loop, with a clock around each part."""
    spent = dict.fromkeys(["new state", "chance", "listing moves", "applying moves"], 0.0)
    chance, seats = streams(0, game.num_players)
    games, plies, start = 0, 0, clock()
    while clock() - start < seconds:
        t = clock()
        state = game.new_initial_state(games)
        spent["new state"] += clock() - t
        play(_Clocked(state, spent), uniform, chance, seats)
        plies += state.ply
        games += 1
    result = {part: 1e6 * total / games for part, total in spent.items()}
    result["plies"] = plies / games
    return result


def direct_rates(seconds: float) -> tuple[float, float]:
    """(move-list loop, tuned playout) rates of the hand-written Mabula in tests/reference."""
    from tests.reference import mabula_direct as direct

    rng = random.Random(1)

    def loop(_):
        g = direct.Mabula(direct.random_setup(rng))
        while not g.is_terminal():
            moves = g.legal_moves()
            g.apply(moves[rng.randrange(len(moves))])

    return rate(loop, seconds), rate(lambda _: direct.random_playout(rng), seconds)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="measuring time per figure")
    parser.add_argument("--game", action="append", help="only these games, by name or rule file (default: all bundled)")
    parser.add_argument("--breakdown", action="store_true",
                        help="also show where a playout's time goes (µs per playout, with a clock around each part)")
    args = parser.parse_args(argv)
    games = bundled_games()
    names = args.game or list(games)
    print(f"{'game':<34} {'playouts/s':>11}")
    engine = {}
    for name in names:
        for label, options in [(name, {})] + EXTRA.get(name, []):
            game = rulesdsl.load_game(games.get(name, name), options=options)
            engine[label] = rate(playouts(game), args.seconds)
            print(f"{label:<34} {engine[label]:>11,.0f}", flush=True)
            if args.breakdown:
                parts = breakdown(game, args.seconds)
                plies = parts.pop("plies")
                print("    " + ", ".join(f"{part} {us:,.0f} µs" for part, us in parts.items())
                      + f" ({plies:,.1f} moves and outcomes)", flush=True)
    if "mabula" in names:
        loop, tuned = direct_rates(args.seconds)
        print(f"{'mabula, direct (loop)':<34} {loop:>11,.0f}")
        print(f"{'mabula, direct (tuned)':<34} {tuned:>11,.0f}")
        print(f"interpreter / direct loop: {engine['mabula'] / loop:.2f}x; "
              f"/ tuned direct playout: {engine['mabula'] / tuned:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
