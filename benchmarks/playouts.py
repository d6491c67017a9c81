"""Random playouts per second for every bundled game, and for Mabula the direct implementation's ratio.

Usage:  python benchmarks/playouts.py [--seconds 5] [--game mabula]

Each playout starts from a fresh seeded state and applies uniformly random legal moves (chance
outcomes sampled) through the public State API until the game ends, the loop an AI library runs.
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
from rulesdsl.loading import bundled_games  # noqa: E402
from rulesdsl.sim.runner import random_playout  # noqa: E402


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
    parser.add_argument("--game", action="append", help="only these games (default: all bundled)")
    args = parser.parse_args(argv)
    games = bundled_games()
    names = args.game or list(games)
    print(f"{'game':<34} {'playouts/s':>11}")
    engine = {}
    for name in names:
        for label, options in [(name, {})] + EXTRA.get(name, []):
            game = rulesdsl.load_game(games[name], options=options)
            engine[label] = rate(lambda i, g=game: random_playout(g, i), args.seconds)
            print(f"{label:<34} {engine[label]:>11,.0f}", flush=True)
    if "mabula" in names:
        loop, tuned = direct_rates(args.seconds)
        print(f"{'mabula, direct (loop)':<34} {loop:>11,.0f}")
        print(f"{'mabula, direct (tuned)':<34} {tuned:>11,.0f}")
        print(f"interpreter / direct loop: {engine['mabula'] / loop:.2f}x; "
              f"/ tuned direct playout: {engine['mabula'] / tuned:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
