"""Write your own agent in a few lines and pit it against the built-in ones.

    python examples/custom_agent.py [--games 200]

The agent below plays Mabula by pushing toward the middle of the board. It sees only its own
view of the game (`view.observation()`) and picks one of the legal moves it is handed.
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rulesdsl  # noqa: E402
from rulesdsl.agents import Agent  # noqa: E402

MABULA = Path(__file__).resolve().parent.parent / "games" / "mabula.yaml"


class CentreSeeker(Agent):
    """Prefers pushes that end nearest the centre of the board (ties: the first one)."""

    name = "centre-seeker"

    def choose(self, view, legal, rng):
        def distance_to_centre(move):
            target = move.params().get("to")
            return abs(target.x - 4.5) + abs(target.y - 4.5) if target is not None else 99

        return min(legal, key=distance_to_centre)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args(argv)
    for opponent in ("random", "greedy"):
        summary = rulesdsl.simulate(MABULA, args.games, [CentreSeeker(), opponent], seed=7)
        print(summary.format())


if __name__ == "__main__":
    main()
