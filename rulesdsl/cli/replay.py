"""The `replay` command: re-run a game log or a results file's games and verify them, or watch one move by move."""

from __future__ import annotations

import sys
from pathlib import Path

from ..backends.compiled.build import chosen_backend, describe as backend_of
from ..engine.nodes import CHANCE
from ..errors import Location, Problem, RulesError, UsageError
from ..jail import Jail
from ..limits import GAME_SECONDS, LOAD_SECONDS
from ..sim.log import logged_game, read_log, replay
from ..sim.progress import show_progress
from ..sim.records import MAX_COUNT, RESULTS_HINT, numbered_results
from ..sim.replay_all import verify_all
from .common import backend_arg, given_rules, picture_of, whole_number

HELP = "re-run a game log (or a results .jsonl) and verify it"


def register(p) -> None:
    """replay's arguments."""
    p.add_argument("log", help="a log from 'play --log', or a results .jsonl from 'simulate --out'")
    p.add_argument("--rules", help="replay against this rule file instead of the logged one (needed when the log "
                   "names one outside its own folder)")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--game", type=whole_number(0, MAX_COUNT), metavar="N", help="only game N of a results file "
                   "(the index of its line)")
    p.add_argument("--show", action="store_true", help="watch the game move by move: each move, then the position")
    p.add_argument("--step", action="store_true", help="--show, waiting for Enter before each move")
    p.add_argument("--workers", type=whole_number(1, 1024), default=1,
                   help="replay a results file's games on this many processes (the output does not depend on it)")
    p.add_argument("--quiet", action="store_true", help="no progress (a bar on a terminal, else a line every few "
                   "seconds on stderr)")
    backend_arg(p, verbose=False)  # --verbose above says which backend replays too


def run(args) -> int:
    """Replay the log's game, or the results file's games (one, with --game), in jails; 1 when one differs."""
    rules = given_rules(args.rules)
    if Path(args.log).suffix == ".jsonl":
        carried = {}
        numbered = numbered_results(args.log, carried)
        logs = [(dict(line, rulesdsl_log=1, rules=carried.get(line.get("rules_sha256"))), Location(args.log, number))
                for number, line in numbered]
    else:
        logs = [(read_log(args.log), Location(args.log))]
    if not logs:
        raise RulesError([Problem("holds no games", Location(args.log), RESULTS_HINT)])
    if args.game is not None:
        logs = _one_game(logs, args.game, args.log)
    show = args.show or args.step
    jails = [Jail(name=f"rulesdsl-worker-{i}") for i in range(args.workers if len(logs) > 1 and not show else 1)]
    try:
        for jail in jails:  # now, while this process runs one thread: a fork each (see jail.py)
            jail.start()
        if len(logs) > 1 and not show:
            return _verify_all(args, logs, rules, jails)
        return _replayed_one_by_one(args, logs, rules, jails[0], show)
    finally:
        for jail in jails:
            jail.close()


def _one_game(logs: list, number: int, path: str) -> list:
    """The logs numbered `number` (a results line's index; a single log is game 0); none is a usage error."""
    picked = [(log, where) for i, (log, where) in enumerate(logs) if log.get("index", i) == number]
    if not picked:
        numbers = [log.get("index", i) for i, (log, _) in enumerate(logs)]
        raise UsageError(f"--game {number}: {path} has no game {number} (its games are numbered {min(numbers)} to "
                         f"{max(numbers)})", "give the index of a results line; replay FILE --verbose lists them")
    return picked


def _show_game(state, log: dict, step: bool) -> None:
    """Watch a replayed game move by move, as the table sees it: each move, then the position it leaves."""
    names = state.rules.player_names
    shown = state.game.new_initial_state(log.get("seed"))
    seats = ", ".join(f"{n}={a}" for n, a in zip(names, log.get("agents") or ["?"] * len(names)))
    print(f"\n{state.rules.name} - seed {log.get('seed')}, seats: {seats}")
    print(picture_of(shown))
    for number, move in enumerate(state.history, 1):
        if step:
            print("(Enter: next move, q: stop) ", end="", flush=True)
            line = sys.stdin.readline()
            if not line or line.strip() in ("q", "quit"):
                raise KeyboardInterrupt
        shown.apply(move)
        print(f"\n{number}. {'chance' if move.player == CHANCE else names[move.player]}: {move}")
        print(picture_of(shown))


def _replayed_one_by_one(args, logs: list, rules: str | None, jail, show: bool) -> int:
    """Replay each log in the jail and say how it went; with --show, watch it (played again here, once the jail
    has verified it: the same work cannot go otherwise)."""
    bad = 0
    for i, (log, where) in enumerate(logs):
        picture = len(logs) == 1 and not show
        problems, drawn, backend = jail.run(_replay_checked, log, args.log, rules, where, picture,
                                            chosen_backend(args.backend, False), seconds=LOAD_SECONDS + GAME_SECONDS,
                                            what=f"replaying {where}")
        if i == 0 and (args.verbose or args.backend not in (None, "python")):
            print(f"backend: {backend}", file=sys.stderr)
        label = f"game {log.get('index', i)}" if len(logs) > 1 or args.game is not None else args.log
        if problems:
            bad += 1
            print(f"{label}: replay differs: " + "; ".join(problems))
        elif len(logs) == 1 or args.verbose:
            moves = len(log["moves"])
            print(f"{label}: {moves} move{'s' if moves != 1 else ''} replayed and verified")
            if picture:
                print(drawn)
        if show:  # the final picture ends with the result
            _show_game(replay(log, args.log, rules, where, chosen_backend(args.backend, False))[0], log, args.step)
    if len(logs) > 1:
        print(f"{len(logs) - bad} of {len(logs)} games replayed and verified")
    return 1 if bad else 0


def _replay_checked(log: dict, source: str, rules: str | None, where: Location, picture: bool,
                    backend: str = "python") -> tuple:
    """In a jail: a log's mismatches (see replay), the final position drawn if `picture`, and which backend
    replayed it (and why)."""
    state, problems = replay(log, source, rules, where, backend)
    return problems, picture_of(state) if picture and not problems else None, backend_of(state.game)


def _replay_backend(entry: tuple, source: str, rules: str | None, backend: str) -> str:
    """In a jail: which backend replays the game of a (log, location) entry, and why (its load is kept for it)."""
    log, where = entry
    return backend_of(logged_game(log, source, rules, where, backend))


def _verify_all(args, logs: list, rules: str | None, jails: list) -> int:
    """Replay and verify every game of a results file (in one jail per --workers), with progress on stderr."""
    bad = 0
    bar = None if args.quiet else show_progress(len(logs), f"replaying {Path(args.log).name}")
    try:
        # which backend replays them: the first game's load says (in one worker first, so that a game compiled for
        # the compiled backend is compiled once, the other workers reading it from the cache)
        asked = chosen_backend(args.backend, False)
        backend = jails[0].run(_replay_backend, logs[0], args.log, rules, asked, seconds=LOAD_SECONDS,
                               what=f"loading the rules of {args.log}")
        if args.verbose or args.backend not in (None, "python"):
            print(f"backend: {backend}", file=sys.stderr)
        checked = verify_all(logs, args.log, rules, jails=jails, backend=asked)
        for i, ((log, _), (moves, problems)) in enumerate(zip(logs, checked)):
            label = f"game {log.get('index', i)}"
            if problems:
                bad += 1
                print(f"{label}: replay differs: " + "; ".join(problems))
            elif args.verbose:
                print(f"{label}: {moves} move{'s' if moves != 1 else ''} replayed and verified")
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    print(f"{len(logs) - bad} of {len(logs)} games replayed and verified")
    return 1 if bad else 0
