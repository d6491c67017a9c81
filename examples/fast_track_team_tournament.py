"""A Fast Track team tournament: four players in pairs, every line-up of agents, both seatings.

    python examples/fast_track_team_tournament.py [--games 20] [--board square] [--backend auto]

Seats 0 and 2 play against seats 1 and 3. Each pairing of team agents plays the same seeds.
"""

import argparse
import sys
from itertools import permutations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rulesdsl  # noqa: E402
from rulesdsl.sim.stats import wilson  # noqa: E402

GAME = Path(__file__).resolve().parent.parent / "games" / "fast-track.yaml"
TEAM_AGENTS = ["random", "greedy"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--board", default="square", choices=["square", "hex"])
    parser.add_argument("--backend", default=None, choices=["python", "compiled", "auto"],
                        help="the engine that plays the games (the same games on each; default: auto)")
    args = parser.parse_args(argv)
    options = {"players": 4, "teams": "pairs", "board": args.board}
    print(f"{'team 0&2':<10} {'team 1&3':<10} {'0&2 wins':>9}  95% CI          mean turns")
    for first, second in permutations(TEAM_AGENTS, 2):
        agents = [first, second, first, second]
        summary = rulesdsl.simulate(GAME, args.games, agents, seed=11, options=options, backend=args.backend)
        wins = summary.wins[0]  # seat 0 wins exactly when its team does
        lo, hi = wilson(wins, summary.games)
        turns = sum(summary.turns) / len(summary.turns)
        print(f"{first:<10} {second:<10} {wins / summary.games:>9.0%}  [{lo:.0%}, {hi:.0%}]   {turns:8.1f}")


if __name__ == "__main__":
    main()
