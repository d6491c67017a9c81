"""Sweep Marble Chase's shot tables: how much does an expert shooter win against a standard one?

    python examples/sweep_marble_chase_skills.py [--games 200] [--seed 1] [--backend compiled]

Each pairing plays the same seeds; the skill tables are data in games/marble-chase.yaml (an overlay
file can add more under data: shot_tables). The games are the same on either backend: the default (auto) plays
them whole in compiled code, each pairing's tables compiled once (then read from the cache).
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rulesdsl  # noqa: E402
from rulesdsl.sim.stats import wilson  # noqa: E402

GAME = Path(__file__).resolve().parent.parent / "games" / "marble-chase.yaml"
PAIRINGS = ["standard,standard", "expert,standard", "standard,expert", "expert,expert"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--backend", choices=["auto", "compiled", "python"], default=None,
                        help="the backend that plays the games (default: auto)")
    args = parser.parse_args(argv)
    print(f"{'skills (seat 0, seat 1)':<26} {'seat 0 wins':>12}  95% CI            mean turns")
    for skills in PAIRINGS:
        summary = rulesdsl.simulate(GAME, args.games, ["random", "random"], seed=args.seed,
                                    options={"skills": skills}, backend=args.backend)
        lo, hi = wilson(summary.wins[0], summary.games)
        turns = sum(summary.turns) / len(summary.turns)
        print(f"{skills:<26} {summary.wins[0] / summary.games:>12.1%}  [{lo:.1%}, {hi:.1%}]   {turns:8.1f}")


if __name__ == "__main__":
    main()
