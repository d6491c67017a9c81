"""The `moves` command: list the legal moves of a position in the game's notation."""

from __future__ import annotations

import json

from ..engine.nodes import CHANCE
from ..errors import MoveError
from ..jail import heartbeat
from ..limits import MOVE_SECONDS
from .common import backend_arg, game_args, jailed, position_of, start_args

HELP = "list the legal moves in notation"


def register(p) -> None:
    """moves' arguments."""
    game_args(p)
    start_args(p)
    p.add_argument("--json", action="store_true", help="JSON output")
    backend_arg(p)


def run(args) -> int:
    """Print the moves, listed in a jail."""
    print("\n".join(jailed(_moves_lines, args, what=f"listing the moves of {args.file}")))
    return 0


def _moves_lines(args) -> list[str]:
    """In a jail: what `moves` prints."""
    state = position_of(args)
    heartbeat(f"listing the moves of {args.file}", MOVE_SECONDS)
    if state.terminal:
        return ["the game is over: no moves"]
    if state.current_player() == CHANCE:
        try:
            outcomes = state.chance_outcomes()
        except MoveError as exc:
            return [f"chance step '{state.step}': {exc.reason}"]
        return [f"{move}\t{p:.6g}" for move, p in outcomes]
    lines = []
    players = state.acting_players()
    for p in players:
        moves = state.legal_moves(p)
        if args.json:
            lines.append(json.dumps({"player": state.game.player_names[p], "moves": [str(m) for m in moves]}))
        else:
            if len(players) > 1:
                lines.append(f"{state.game.player_names[p]}:")
            lines += [str(m) for m in moves]
    return lines
