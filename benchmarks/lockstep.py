"""The equivalence harness at a large size: every rule file the compiled backend takes (bundled games, variants,
configurations, examples, overlays, test games: tests/equivalence.py discovers them) played in lockstep with the
Python engine over many seeds, and many small random games besides; a file it does not take is listed with its
located reason. Each game compares, at every position, the legal moves, the state, the chance outcomes and their
probabilities, the returns and every seat's observation (tests/test_equivalence.py runs the same at a small size).

Usage:  python benchmarks/lockstep.py [--seeds 200] [--small-games 100] [--plies N]

Exit 1 at the first difference, with the assertion that found it (and the small game's text).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402

from rulesdsl.backends.compiled.build import takes, with_backend  # noqa: E402
from rulesdsl.engine.load import load_game  # noqa: E402
from rulesdsl.errors import RulesError  # noqa: E402
from tests.equivalence import cases, label, lockstep, python_game, small_games  # noqa: E402
from tests.test_equivalence import _written  # noqa: E402


def files(seeds: int, plies: int | None) -> int:
    """Every case in lockstep over `seeds` games; the positions compared."""
    total = 0
    for case in cases():
        try:
            python = python_game(case)
        except RulesError as exc:
            print(f"{label(case)}: does not load: {exc.problems[0].format().splitlines()[0]}")
            continue
        refused = takes(python)
        if refused is not None:
            print(f"{label(case)}: skipped: {refused}")
            continue
        start = time.perf_counter()
        compiled = with_backend(python, "compiled")
        compared = lockstep(python, compiled, range(seeds), plies)
        total += compared
        print(f"{label(case)}: {seeds} games, {compared:,} positions alike ({time.perf_counter() - start:.1f} s)",
              flush=True)
    return total


def small(count: int, seeds: int, plies: int | None) -> int:
    """`count` small random games in lockstep over `seeds` games each; the positions compared."""
    compared = [0]

    @settings(max_examples=count, deadline=None, database=None, phases=[Phase.explicit, Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(small_games())
    def one(text):
        python = load_game(_written(text), backend="python")
        assert takes(python) is None, text
        try:
            compared[0] += lockstep(python, with_backend(python, "compiled"), range(seeds), plies)
        except AssertionError:
            print(text, file=sys.stderr)
            raise

    one()
    return compared[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=200, help="games per rule file (default 200)")
    parser.add_argument("--small-games", type=int, default=100, help="small random games (default 100; each "
                        "compiles a module: about 15 s cold)")
    parser.add_argument("--small-seeds", type=int, default=20, help="games per small random game (default 20)")
    parser.add_argument("--plies", type=int, help="stop each game after this many plies (default: its end)")
    args = parser.parse_args()
    start = time.perf_counter()
    total = files(args.seeds, args.plies)
    if args.small_games:
        compared = small(args.small_games, args.small_seeds, args.plies)
        print(f"{args.small_games} small random games: {compared:,} positions alike")
        total += compared
    print(f"{total:,} positions alike on both backends ({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
