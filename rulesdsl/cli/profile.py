"""The `profile` command: play seeded games under a profiler, timing each rule, function and built-in."""

from __future__ import annotations

from ..agents import AGENTS
from ..limits import DEFAULT_MAX_TURNS
from ..sim.profile import profile_games
from .common import SEED, agent_named, at_least, game_args, load_named, per_seat

HELP = "play seeded games under a profiler: the time each rule, function and built-in takes"


def register(p) -> None:
    """profile's arguments."""
    game_args(p)
    p.add_argument("--games", type=at_least(1), default=20, help="number of games (default 20)")
    p.add_argument("--seed", type=SEED, default=0, help="run seed; game i is the game simulate plays with it")
    p.add_argument("--agents", help=f"comma-separated, one per seat ({', '.join(AGENTS)}); default: random")
    p.add_argument("--top", type=at_least(1), default=25, metavar="N", help="show the N rows with the most self "
                   "time (default 25)")
    p.add_argument("--max-turns", type=at_least(1), help="turn cap; default: the rule file's flow: max_turns, "
                   f"else {DEFAULT_MAX_TURNS:,}")


def run(args) -> int:
    """Play the games under the profiler and print its table."""
    game = load_named(args, inline=False)  # each of the file's functions called as written: its own line, its calls
    agents = [agent_named(a) for a in per_seat(args.agents, game, "--agents", "agents", "random")]
    print(profile_games(game, agents, args.games, args.seed).format(args.top))
    return 0
