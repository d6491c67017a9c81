"""The `show` command: print a position, drawn or as JSON (to be read back with --state)."""

from __future__ import annotations

import json

from ..jail import heartbeat
from ..limits import MOVE_SECONDS
from .common import backend_arg, game_args, jailed, picture_of, position_of, start_args

HELP = "print a position"


def register(p) -> None:
    """show's arguments."""
    game_args(p)
    start_args(p)
    p.add_argument("--json", action="store_true", help="print the state as JSON instead (to read back with --state)")
    backend_arg(p)


def run(args) -> int:
    """Print the position, drawn in a jail."""
    print(jailed(_shown, args, what=f"showing a position of {args.file}"))
    return 0


def _shown(args) -> str:
    """In a jail: what `show` prints (JSON alone, so that the output can be saved and read back with --state)."""
    state = position_of(args)
    heartbeat(f"drawing a position of {args.file}", MOVE_SECONDS)
    return json.dumps(state.to_json(), indent=2) if args.json else picture_of(state)
