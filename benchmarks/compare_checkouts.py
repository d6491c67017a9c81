"""The interpreter's random playouts per CPU second in two checkouts of rulesdsl, measured in one run, alternating.

Usage:  python benchmarks/compare_checkouts.py BASE [HEAD] [--rounds 3] [--game mark] [--games 300]

BASE and HEAD are folders holding a checkout (HEAD: this one), e.g. one made by
`git worktree add --detach /tmp/base <commit>`. Each round plays every game in each checkout in turn (in
alternating order from one round to the next, so that neither always runs first), each in a fresh process, and
the median of the rounds is compared: HEAD's plies per CPU second over BASE's. The games are bundled ones, played
with the Python engine and uniformly random moves through the play loop, as benchmarks/playouts.py plays them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = {"mark": 300, "mark players=4": 200, "marble-chase": 100, "mabula": 200, "fast-track": 40}

# what each process runs: load the game on the interpreter, then time the playouts alone
PLAY = """
import inspect, sys, time
import rulesdsl
from rulesdsl.engine.play import play, streams, uniform
name, count, options = sys.argv[1], int(sys.argv[2]), dict(o.split("=") for o in sys.argv[3:])
options = {k: int(v) if v.isdigit() else v for k, v in options.items()} or None
given = {"backend": "python"} if "backend" in inspect.signature(rulesdsl.load_game).parameters else {}
game = rulesdsl.load_game(f"games/{name}.yaml", options=options, **given)
chance, seats = streams(0, game.num_players)
plies, start = 0, time.process_time()
for seed in range(count):
    state = game.new_initial_state(seed)
    play(state, uniform, chance, seats)
    plies += state.ply
print(plies, time.process_time() - start)
"""


def rate(tree: Path, game: str, count: int) -> float:
    """Plies per CPU second of `count` playouts of `game` ('NAME [OPTION=VALUE...]') in the checkout `tree`."""
    name, *options = game.split()
    env = dict(os.environ, PYTHONPATH=str(tree), RULESDSL_BACKEND="python")
    done = subprocess.run([sys.executable, "-c", PLAY, name, str(count), *options], cwd=tree, env=env,
                          capture_output=True, text=True, check=True)
    plies, seconds = done.stdout.split()
    return int(plies) / float(seconds)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path)
    parser.add_argument("head", type=Path, nargs="?", default=ROOT)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--game", action="append", help="a bundled game, with options: 'mark players=4'")
    parser.add_argument("--games", type=int, help="playouts per measurement (default: a few seconds' worth)")
    args = parser.parse_args(argv)
    games = {g: args.games or GAMES.get(g, 100) for g in args.game} if args.game else GAMES
    trees = {"base": args.base.resolve(), "head": args.head.resolve()}
    found: dict = {}
    for round_ in range(args.rounds):
        for game, count in games.items():
            order = list(trees.items()) if round_ % 2 == 0 else list(trees.items())[::-1]
            for name, tree in order:
                found.setdefault((game, name), []).append(rate(tree, game, count))
    print(f"{'game':<18} {'base plies/s':>13} {'head plies/s':>13} {'head/base':>10}")
    for game in games:
        base, head = (statistics.median(found[game, name]) for name in ("base", "head"))
        print(f"{game:<18} {base:>13,.0f} {head:>13,.0f} {head / base:>10.3f}")


if __name__ == "__main__":
    main()
