"""The `perft` command: count the move paths from a position to a depth."""

from __future__ import annotations

import time

from ..engine.perft import perft
from ..jail import Jail, heartbeat
from ..limits import LOAD_SECONDS
from .common import backend_arg, game_args, position_of, start_args, whole_number

HELP = "count move paths to a depth"


def register(p) -> None:
    """perft's arguments."""
    game_args(p)
    start_args(p)
    p.add_argument("--depth", type=whole_number(0, 1000), required=True)
    p.add_argument("--all", action="store_true", help="print every depth from 1")
    backend_arg(p)


def run(args) -> int:
    """Print the count at the depth (every depth from 1 with --all), each counted in the same jail."""
    with Jail() as jail:
        for depth in range(1, args.depth + 1) if args.all else [args.depth]:
            count, seconds = jail.run(_perft_count, args, depth, seconds=LOAD_SECONDS,
                                      what=f"counting the move paths of {args.file} to depth {depth}")
            print(f"depth {depth}: {count:,} ({seconds:.2f} s)", flush=True)
    return 0


_positions: dict = {}  # in a jail: the position perft counts from, for the command line that asked


def _perft_count(args, depth: int) -> tuple[int, float]:
    """In a jail: the move paths from the position to `depth`, and the seconds counting them took. Each call of
    rule code has its budget; the count as a whole is as large as the depth asked for."""
    key = (args.file, args.variant, tuple(args.option or ()), args.state, args.setup, args.seed)
    if key not in _positions:
        _positions.clear()
        _positions[key] = position_of(args)
    heartbeat(f"counting the move paths of {args.file} to depth {depth}", float("inf"))
    start = time.perf_counter()
    count = perft(_positions[key], depth)
    return count, time.perf_counter() - start
