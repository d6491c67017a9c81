"""The `rulesdsl` command: validate rule files, play in the terminal, simulate, list moves, perft, replay."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from . import __version__
from .agents import AGENTS, PlayerView, make_agent
from .api import load_game
from .engine.perft import perft
from .engine.rng import Rng
from .engine.state import CHANCE, SIMULTANEOUS
from .errors import GameRuntimeError, Location, MoveError, Problem, RulesDslError, RulesError
from .loading import bundled_games, load_document, resolve_path
from .render import render_state
from .sim.log import make_log, read_log, replay
from .sim.runner import entry
from .sim.simulate import RunSpec, compare_lengths, read_results, simulate


class UsageError(RulesDslError):
    """A command-line argument that cannot be used."""


def _at_least(low: int):
    """An argparse type: a whole number no smaller than `low`."""
    def number(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is too small (at least {low})")
        return value
    return number


def _options(pairs) -> dict:
    options = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--option expects NAME=VALUE, got '{pair}'")
        options[key.strip()] = value
    return options


def _load(args, variant=None):
    return load_game(args.file, variant if variant is not None else getattr(args, "variant", None),
                     _options(getattr(args, "option", None)), getattr(args, "max_turns", None))


def _start_state(game, args):
    """The initial state, or one read with --state, with --setup applied to the opening chance step."""
    if getattr(args, "state", None):
        try:
            data = json.loads(Path(args.state).read_text(encoding="utf-8"))
        except OSError as exc:
            raise UsageError(f"cannot read {args.state}: {exc}") from None
        except json.JSONDecodeError as exc:
            raise RulesError([Problem(f"not JSON: {exc.msg}", Location(args.state, exc.lineno, exc.colno))]) from None
        return game.state_from_json(data, args.state)
    state = game.new_initial_state(getattr(args, "seed", 0) or 0)
    setup = getattr(args, "setup", None)
    if setup:
        if state.current_player() != CHANCE:
            raise UsageError(f"--setup names the outcome of the opening chance step, but {game.name} starts with "
                             "a decision")
        state.apply(state.parse_move(setup))
    return state


# -- validate -----------------------------------------------------------------------------------
def cmd_validate(args) -> int:
    failed = False
    for file in args.file:
        problems = 0
        try:
            game = load_game(file, args.variant, _options(args.option))
        except RulesError as exc:
            print(exc.format(), file=sys.stderr)
            print(f"{file}: {_count(len(exc.problems))}", file=sys.stderr)
            failed = True
            continue
        print(f"{file}: ok - {game.summary()}")
        doc = load_document(file)
        if args.variant is None:
            for name, spec in (doc.data.get("variants") or {}).items():
                try:
                    load_game(file, name, _options(args.option))
                    print(f"  variant {name}: ok - {(spec or {}).get('description', '')}")
                except RulesError as exc:
                    problems += len(exc.problems)
                    print(f"  variant {name}: {_count(len(exc.problems))}")
                    print(exc.format(), file=sys.stderr)
        for name, spec in (doc.data.get("options") or {}).items():
            spec = spec or {}
            choices = f" (one of {', '.join(map(str, spec['choices']))})" if spec.get("choices") else ""
            print(f"  option {name}={spec.get('default', '')!s}{choices}: {spec.get('help', '')}")
        if problems:
            failed = True
            print(f"{file}: {_count(problems)}", file=sys.stderr)
    return 1 if failed else 0


def _count(n: int) -> str:
    return f"{n} problem{'s' if n != 1 else ''}"


# -- moves, show, perft --------------------------------------------------------------------------
def cmd_moves(args) -> int:
    game = _load(args)
    state = _start_state(game, args)
    if state.terminal:
        print("the game is over: no moves")
        return 0
    if state.current_player() == CHANCE:
        try:
            outcomes = state.chance_outcomes()
        except MoveError as exc:
            print(f"chance step '{state.step}': {exc.reason}")
            return 0
        for move, p in outcomes:
            print(f"{move}\t{p:.6g}")
        return 0
    players = state.acting_players()
    for p in players:
        moves = state.legal_moves(p)
        if args.json:
            print(json.dumps({"player": game.player_names[p], "moves": [str(m) for m in moves]}))
        else:
            if len(players) > 1:
                print(f"{game.player_names[p]}:")
            for m in moves:
                print(m)
    return 0


def cmd_show(args) -> int:
    game = _load(args)
    state = _start_state(game, args)
    # JSON alone, so that the output can be saved and read back with --state
    print(json.dumps(state.to_json(), indent=2) if args.json else render_state(state))
    return 0


def cmd_perft(args) -> int:
    game = _load(args)
    state = _start_state(game, args)
    for depth in range(1, args.depth + 1) if args.all else [args.depth]:
        start = time.perf_counter()
        count = perft(state, depth)
        print(f"depth {depth}: {count:,} ({time.perf_counter() - start:.2f} s)")
    return 0


# -- play ----------------------------------------------------------------------------------------
def _human_move(state, player, legal, names, stream_in):
    prompt = f"{names[player]}> "
    while True:
        print(prompt, end="", flush=True)
        line = stream_in.readline()
        if not line:
            raise KeyboardInterrupt
        text = line.strip()
        if text in ("?", "help", "moves"):
            print("legal: " + ", ".join(str(m) for m in legal))
            continue
        if text in ("quit", "exit"):
            raise KeyboardInterrupt
        if not text:
            continue
        try:
            return state.parse_move(text, player)
        except MoveError as exc:
            print(f"  {exc.kind} move: {exc.reason}")
            if exc.hint:
                print(f"  {exc.hint}")


def cmd_play(args) -> int:
    game = _load(args)
    seats = [s.strip() for s in args.seats.split(",")] if args.seats else ["human"] * game.num_players
    if len(seats) != game.num_players:
        raise UsageError(f"--seats names {len(seats)} seats; {game.name} has {game.num_players} players "
                         f"({', '.join(game.player_names)})")
    agents = [None if s == "human" else make_agent(s) for s in seats]
    state = _start_state(game, args)
    rng = Rng(args.seed or 0)
    names = game.player_names
    entries = list(state.history_texts())  # a --setup or --state start is part of the game, so the log replays
    print(f"{game.name} - seats: " + ", ".join(f"{n}={s}" for n, s in zip(names, seats)))
    print("type a move in the game's notation, '?' for the legal moves, 'quit' to stop\n")
    humans = [p for p, agent in enumerate(agents) if agent is None]
    # With one human, everything is shown as that player sees it; with several (hot seat), as the
    # player about to choose sees it. Nobody is shown what their seat may not see.
    watcher = humans[0] if len(humans) == 1 else None
    try:
        while not state.terminal:
            player = state.current_player()
            if player == CHANCE:
                move = state.sample_chance(rng)
                entries.append(entry(move, False))
                state.apply(move)
                seen_by = state.secret.get(len(state.history) - 1)
                shown = move if seen_by is None or (watcher is not None and watcher in seen_by) else "(hidden)"
                print(f"[{move.rule.name}] {shown}")
                continue
            if watcher is not None:
                print(render_state(state, viewer=watcher))
            for p in state.acting_players():
                legal = state.legal_moves(p)
                simultaneous = player == SIMULTANEOUS
                if agents[p] is None:
                    if watcher is None:
                        print(render_state(state, viewer=p))
                    move = _human_move(state, p, legal, names, sys.stdin)
                else:
                    move = agents[p].choose(PlayerView(state, p), legal, rng)
                    print(f"{names[p]} plays {'(secret)' if simultaneous else move}")
                entries.append(entry(move, simultaneous))
                state.apply(move)
            print()
    except KeyboardInterrupt:
        print("\ngame stopped")
        return 130
    print(render_state(state))
    if args.log:
        from .sim.runner import GameRecord

        record = GameRecord(args.seed or 0, seats, entries, list(state.winners or []), state.scores(), state.ply,
                            state.turn, state.capped)
        Path(args.log).write_text(json.dumps(make_log(game, record, state), indent=1) + "\n", encoding="utf-8")
        print(f"log written to {args.log}")
    return 0


# -- simulate and replay -------------------------------------------------------------------------
def cmd_simulate(args) -> int:
    agents = tuple(a.strip() for a in args.agents.split(","))
    for a in agents:
        make_agent(a)
    variants = args.variant or [None]
    done = []
    if args.resume:
        if not args.out:
            raise UsageError("--resume continues the results file named by --out")
        if Path(args.out).exists():
            done = read_results(args.out)
            Path(args.out).write_text("".join(json.dumps(line) + "\n" for line in done), encoding="utf-8")
    progress = not args.quiet and sys.stderr.isatty()
    summaries = []
    specs = []
    for variant in variants:  # every variant's rules and the agents are checked before --out is touched
        game = _load(args, variant)
        if len(agents) != game.num_players:
            raise UsageError(f"--agents names {len(agents)} agents; {game.name} has {game.num_players} players "
                             f"({', '.join(game.player_names)})")
        specs.append(RunSpec(args.file, variant, tuple(sorted(_options(args.option).items())), args.max_turns,
                             agents, args.seed))
    out = open(args.out, "a" if args.resume else "w", encoding="utf-8") if args.out else None
    try:
        for spec in specs:
            summary = simulate(spec, args.games, out, args.workers, args.dask, done, progress)
            summaries.append(summary)
            print(summary.format(), flush=True)
        if len(summaries) > 1:
            print(compare_lengths(summaries))
    except KeyboardInterrupt:
        print(f"\ninterrupted: the games finished so far are in {args.out}; add --resume to complete the run"
              if args.out else "\ninterrupted", file=sys.stderr)
        return 130
    finally:
        if out:
            out.close()
    if args.out:
        print(f"results written to {args.out}")
    return 0


def cmd_report(args) -> int:
    from .sim.report import by_variant, rule_coverage, write_report

    lines = read_results(args.results)
    if not lines:
        raise UsageError(f"{args.results} holds no games")
    for variant, group in by_variant(lines).items():
        print(f"{lines[0]['game']} [{variant}]: {len(group)} games")
        print(rule_coverage(group))
    if args.out:
        for path in write_report(lines, Path(args.out)):
            print(f"wrote {path}")
    return 0


def cmd_replay(args) -> int:
    if Path(args.log).suffix == ".jsonl":
        lines = Path(args.log).read_text(encoding="utf-8").splitlines()
        logs = [dict(json.loads(line), rulesdsl_log=1) for line in lines if line.strip()]
    else:
        logs = [read_log(args.log)]
    bad = 0
    for i, log in enumerate(logs):
        state, problems = replay(log, args.log, args.rules)
        label = f"game {log.get('index', i)}" if len(logs) > 1 else args.log
        if problems:
            bad += 1
            print(f"{label}: replay differs: " + "; ".join(problems))
        elif len(logs) == 1 or args.verbose:
            print(f"{label}: {len(log['moves'])} moves replayed and verified")
            if len(logs) == 1:
                print(render_state(state))
    if len(logs) > 1:
        print(f"{len(logs) - bad} of {len(logs)} games replayed and verified")
    return 1 if bad else 0


def builtin_reference(markdown: bool) -> str:
    """Every built-in function by category, as text or as the markdown tables of docs/language.md."""
    from .lang.builtins import pure_builtins
    from .model.builtins import game_builtins
    from .model.game import Rules

    table = {**pure_builtins(), **game_builtins(Rules())}
    order = ["numbers", "strings", "collections", "board", "pieces", "players", "flow", "effects"]
    order += sorted({b.category for b in table.values()} - set(order))
    lines = []
    for category in order:
        entries = [b for b in table.values() if b.category == category]
        if markdown:
            lines += [f"### {category.capitalize()}", "", "| function | meaning |", "|---|---|"]
            lines += [f"| `{b.signature.replace('|', chr(92) + '|')}` | {b.doc} |" for b in entries]
        else:
            lines.append(f"{category}:")
            lines += [f"  {b.signature}\n      {b.doc}" for b in entries]
        lines.append("")
    return "\n".join(lines)


def cmd_functions(args) -> int:
    print(builtin_reference(args.markdown))
    return 0


def cmd_games(args) -> int:
    for name, path in bundled_games().items():
        try:
            print(f"{name:<14} {load_game(path).summary()}")
        except RulesError as exc:
            print(f"{name:<14} (invalid: {len(exc.problems)} problems)")
    return 0


# -- argument parsing ----------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rulesdsl", description="Tabletop games as YAML rule files: validate, "
                                     "play, simulate.")
    parser.add_argument("--version", action="version", version=f"rulesdsl {__version__}")
    parser.add_argument("--debug", action="store_true", help="show internal tracebacks")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def game_args(p, variants="one"):
        p.add_argument("file", help="a rule file, or the name of a bundled game (see 'rulesdsl games')")
        if variants == "many":
            p.add_argument("--variant", action="append", help="a variant of the file (repeat to compare variants)")
        else:
            p.add_argument("--variant", help="a variant declared in the file")
        p.add_argument("--option", action="append", metavar="NAME=VALUE", help="set a game option (repeatable)")

    def start_args(p):
        p.add_argument("--setup", help="the outcome of the opening chance step, in notation (e.g. a setup arrangement)")
        p.add_argument("--state", help="start from a state saved as JSON")
        p.add_argument("--seed", type=int, default=0, help="seed for the state's own randomness")

    p = sub.add_parser("validate", help="check rule files and summarise them")
    p.add_argument("file", nargs="+", help="rule files")
    p.add_argument("--variant", help="check only this variant")
    p.add_argument("--option", action="append", metavar="NAME=VALUE")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("play", help="play in the terminal")
    game_args(p)
    start_args(p)
    p.add_argument("--seats", help=f"one per player: human or an agent ({', '.join(AGENTS)})")
    p.add_argument("--log", help="write the game's log to this file")
    p.add_argument("--max-turns", type=int, help="stop after this many turns (a draw)")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("simulate", help="run many seeded games and report statistics")
    game_args(p, "many")
    p.add_argument("--games", type=_at_least(1), default=100, help="number of games (default 100)")
    p.add_argument("--seed", type=int, default=0, help="run seed; game i uses a seed derived from it and i")
    p.add_argument("--agents", required=True, help=f"comma-separated, one per seat ({', '.join(AGENTS)}); settings "
                   "after colons, e.g. mcts:iterations=300")
    p.add_argument("--out", help="write one JSON line per game to this file")
    p.add_argument("--max-turns", type=int, help="turn cap: games still running are stopped and scored as draws")
    p.add_argument("--workers", type=_at_least(1), default=1, help="parallel processes (results do not depend on it)")
    p.add_argument("--dask", metavar="ADDRESS", help="run on a Dask cluster: tcp://HOST:PORT, or 'local'")
    p.add_argument("--resume", action="store_true", help="complete an interrupted run in the --out file")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("moves", help="list the legal moves in notation")
    game_args(p)
    start_args(p)
    p.add_argument("--json", action="store_true", help="JSON output")
    p.set_defaults(func=cmd_moves)

    p = sub.add_parser("show", help="print a position")
    game_args(p)
    start_args(p)
    p.add_argument("--json", action="store_true", help="print the state as JSON instead (to read back with --state)")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("perft", help="count move paths to a depth")
    game_args(p)
    start_args(p)
    p.add_argument("--depth", type=_at_least(0), required=True)
    p.add_argument("--all", action="store_true", help="print every depth from 1")
    p.set_defaults(func=cmd_perft)

    p = sub.add_parser("report", help="charts and rule coverage for a results file")
    p.add_argument("results", help="a results .jsonl written by simulate --out")
    p.add_argument("--out", help="folder for the PNG charts and coverage.txt")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("replay", help="re-run a game log (or a results .jsonl) and verify it")
    p.add_argument("log")
    p.add_argument("--rules", help="replay against this rule file instead of the logged one")
    p.add_argument("--verbose", action="store_true")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("functions", help="list the built-in functions of the rules language")
    p.add_argument("--markdown", action="store_true", help="as markdown tables (as in docs/language.md)")
    p.set_defaults(func=cmd_functions)

    p = sub.add_parser("games", help="list the bundled games")
    p.set_defaults(func=cmd_games)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "file", None) and isinstance(args.file, str):
        args.file = str(resolve_path(args.file))
    elif getattr(args, "file", None):
        args.file = [str(resolve_path(f)) for f in args.file]
    try:
        return args.func(args)
    except RulesDslError as exc:
        text = exc.format() if isinstance(exc, (RulesError, GameRuntimeError)) else str(exc)
        print(text if text.startswith(("error", "/")) or ":" in text.split()[0] else f"error: {text}",
              file=sys.stderr)
        return 1
    except ValueError as exc:  # bad agent names and similar argument mistakes
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except OSError as exc:  # a file that cannot be read or written
        where = f" {exc.filename}" if exc.filename else ""
        print(f"error: cannot use{where}: {exc.strerror or exc}\n  hint: check the path and its permissions",
              file=sys.stderr)
        return 1
    except Exception:  # noqa: BLE001 - an internal bug: a short message unless --debug
        if args.debug:
            raise
        import traceback

        last = traceback.format_exc().strip().splitlines()[-1]
        print(f"internal error: {last}\n(this is a bug in rulesdsl; rerun with --debug for details)", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
