"""Compare MARK's standard ending with the four-row ending: win rates, game length, and the differences seat by seat.

    python examples/compare_mark_endings.py [--games 150] [--seed 1] [--agents greedy,random]
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rulesdsl  # noqa: E402
from rulesdsl.sim.simulate import compare_runs  # noqa: E402

MARK = Path(__file__).resolve().parent.parent / "games" / "mark.yaml"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--agents", default="greedy,random")
    args = parser.parse_args(argv)
    agents = args.agents.split(",")
    summaries = []
    for variant in ("standard", "four-row-ending"):
        summary = rulesdsl.simulate(MARK, args.games, agents, seed=args.seed, variant=variant)
        summaries.append(summary)
        print(summary.format())
    # Both variants play the same seeds, so game i of one is compared with game i of the other.
    print(compare_runs(summaries))


if __name__ == "__main__":
    main()
