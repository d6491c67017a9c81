"""The `rulesdsl` command: validate rule files, play in the terminal, simulate, profile, list moves, perft, replay,
locate the JSON Schema, serve editors (lsp)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import traceback
from dataclasses import replace
from pathlib import Path

from .. import __version__
from ..agents import AGENTS, PlayerView, make_agent
from ..api import argument_problems, load_game
from ..backends.compiled.build import (BACKENDS, chosen_backend, default_backend, describe as backend_of, program_of,
                                      random_agents_only, takes, with_backend)
from ..backends.compiled.unsupported import Unsupported
from ..bundle import bundle_document, read_bundle
from ..engine.load import compile_game
from ..engine.nodes import CHANCE
from ..engine.observer import AUDIENCE, Observer
from ..engine.perft import perft
from ..engine.rng import OLD_STREAM, STREAMS
from ..engine.serialize import parse_json
from ..errors import Location, MoveError, Problem, RulesDslError, RulesError, RunStopped, UsageError, did_you_mean
from ..findings import FORMATS, FileReport, as_github, as_json, as_sarif, check_file, count_problems as _count, \
    problem_json
from ..ir import subset
from ..ir.show import find_rule, labels, outline
from ..jail import Jail, JobKilled, heartbeat
from ..lang.compiler import loops_called
from ..lang.emit import outline as emitted
from ..limits import DEFAULT_MAX_TURNS, GAME_SECONDS, LOAD_SECONDS, MAX_STATE_BYTES, MAX_TURNS_CAP, MOVE_SECONDS
from ..loading import bundled_games, load_document, resolve_path, with_variant
from ..lsp.server import serve as serve_lsp
from ..model.builtins import builtin_reference
from ..render import render_state
from ..schema import schema_path
from ..sim.log import logged_game, make_log, read_log, replay
from ..sim.profile import profile_games
from ..sim.records import MAX_COUNT, MAX_SEED, RESULTS_HINT, bundled_name, numbered_results, read_text, rules_line
from ..sim.progress import show_progress
from ..sim.replay_all import verify_all
from ..sim.report import analyse, text_report
from ..sim.report_files import FORMATS as REPORT_FORMATS, write_report
from ..sim.report_html import render as render_html
from ..sim.runner import record_game
from ..sim.simulate import RunSpec, compare_runs, describe, prepared, simulate
from ..serve.app import INSTALL_HINT
from ..serve.command import LOCAL, serve
from ..terminal import SafeStream

__all__ = ["main", "build_parser", "UsageError"]  # UsageError lives in errors; kept importable from here

STATE_HINT = "save states with 'rulesdsl show FILE --json > state.json' (or State.to_json())"
MAX_OPTION = 1000  # longest --option value, in characters

EPILOG = f"""\
exit codes:
  0    done
  1    a problem in your files: a rule file, a state, a log or a results file that
       exists but is malformed (reported as FILE:LINE: what is wrong), a rule that
       fails during play, a replay that differs, a rule compile --check finds a
       compiled backend cannot take; or a run stopped from outside (a worker
       process killed: --resume completes it)
  2    a usage error: a bad argument, an agent, variant or option the game does not
       have (validate lists those among the file's problems), a file named on the
       command line that does not exist, an --out file that exists (without
       --resume or --force)
  3    an internal error, a bug in rulesdsl: the traceback is saved to a file in the
       temporary folder, whose path is printed (--debug shows it instead)
  130  interrupted (Ctrl-C)

replay and report read the rule file that a log or results file names only if it
is a bundled game or lies (links resolved) in that file's own folder; give any
other with --rules FILE. Games run at most {DEFAULT_MAX_TURNS:,} turns unless the rule file
(flow: max_turns, at most {MAX_TURNS_CAP:,}) or --max-turns says otherwise.

validate, simulate, replay, moves, show, perft and compile run the rule file's code
in a separate process with hard limits (memory, stack, processor time): a job they
stop is reported where its rule is written, with exit code 1.
"""


def _short(text: str, width: int = 40) -> str:
    """A command-line value shortened for a message."""
    return repr(text) if len(text) <= width else repr(text[: width - 3] + "...")


def _whole_number(low: int | None = None, high: int | None = None):
    """An argparse type: a whole number within [low, high]."""
    def number(text: str) -> int:
        digits = text.strip().removeprefix("-").removeprefix("+")
        if not (digits.isascii() and digits.isdigit()):
            raise argparse.ArgumentTypeError(f"{_short(text)} is not a whole number")
        if len(digits) > 30:  # int() of thousands of digits is slow and refused by Python itself
            raise argparse.ArgumentTypeError(f"a number of {len(digits):,} digits is too long")
        value = int(text)
        if low is not None and value < low:
            raise argparse.ArgumentTypeError(f"{value} is too small (at least {low:,})")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"{value} is too large (at most {high:,})")
        return value
    return number


def _at_least(low: int):
    """An argparse type: a whole number no smaller than `low`."""
    return _whole_number(low, MAX_COUNT)


def _options(pairs) -> dict:
    """--option NAME=VALUE pairs as a dict."""
    options = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--option expects NAME=VALUE, got {_short(pair)}", "e.g. --option players=3")
        if len(value) > MAX_OPTION:
            raise UsageError(f"--option {_short(key.strip())}: a value of {len(value):,} characters is too long "
                             f"(at most {MAX_OPTION:,})")
        options[key.strip()] = value
    return options


def _agent(spec: str):
    """An agent named on the command line; a name or setting it cannot use is a usage error."""
    try:
        return make_agent(spec)
    except ValueError as exc:  # make_agent says what is wrong in its message
        raise UsageError(str(exc)[:300], f"agents: {', '.join(AGENTS)}; settings after colons, e.g. "
                         "mcts:iterations=200") from None


def _rule_file(name: str) -> str:
    """A rule file named on the command line (a path or a bundled game); one that is not there is a usage error."""
    try:
        path = resolve_path(name)
        if path.is_file():
            return str(path)
        folder = path.is_dir()
    except (OSError, ValueError):  # a name the file system refuses (too long, a NUL byte)
        folder = False
    hint = did_you_mean(Path(name).stem, bundled_games()) or \
        f"give a path, or the name of a bundled game: {', '.join(bundled_games())}"
    raise UsageError(f"{name} is a folder, not a rule file" if folder else f"no such file: {name}", hint)


def _given_rules(name: str | None) -> str | None:
    """The rule file given with --rules (checked like FILE), or None."""
    return _rule_file(name) if name else None


def _load(args, variant=None, base=None, inline=True):
    """The game named by FILE, --variant, --option and --max-turns (from `base`, the file already loaded, if
    given); a variant or option the file does not declare is a usage error. `inline`: see load_game."""
    variant = variant if variant is not None else getattr(args, "variant", None)
    options = _options(getattr(args, "option", None))
    base = base or load_document(args.file)
    wrong = argument_problems(base, variant, options)
    if wrong:
        raise UsageError(f"{wrong[0]} ({Path(args.file).name})", wrong[1])
    return compile_game(base, args.file, variant, options, getattr(args, "max_turns", None), inline)


def _start_state(game, args):
    """The initial state, or one read with --state, with --setup applied to the opening chance step."""
    if getattr(args, "state", None):
        text = read_text(args.state, STATE_HINT, MAX_STATE_BYTES)
        return game.state_from_json(parse_json(text, args.state, hint=STATE_HINT), args.state, text)
    state = game.new_initial_state(getattr(args, "seed", 0) or 0)
    setup = getattr(args, "setup", None)
    if setup:
        if state.current_player() != CHANCE:
            raise UsageError(f"--setup names the outcome of the opening chance step, but {game.name} starts with "
                             "a decision")
        try:
            state.apply(state.parse_move(setup))
        except MoveError as exc:
            raise UsageError(f"--setup {_short(setup)}: {exc.reason}", exc.hint) from None
    return state


def _jailed(fn, *args, what: str):
    """fn(*args) in a jail of its own (see jail.py), its first unit of work a load (fn: a function of this module
    that loads the rule file; heartbeat() names what it does after)."""
    with Jail() as jail:
        return jail.run(fn, *args, seconds=LOAD_SECONDS, what=what)


def backend_arg(p, verbose: bool = True) -> None:
    p.add_argument("--backend", choices=BACKENDS, help="what plays the games: the Python engine, the compiled "
                   "backend (numba), or auto (compiled where it takes the game, else Python; the default, or "
                   "$RULESDSL_BACKEND); the same games on every backend")
    if verbose:
        p.add_argument("--verbose", action="store_true", help="say which backend plays the games, and why")


def _on_backend(game, args):
    """`game` on the --backend asked for (a command that plays move by move: `auto` is the interpreter, see
    chosen_backend); which one, and why, said on stderr with --verbose, and when a backend named on the command line
    falls back."""
    asked = getattr(args, "backend", None)
    game = with_backend(game, chosen_backend(asked, whole=False))
    if _say_backend(args, getattr(game, "backend_note", None) is not None):
        why = " (auto: played move by move, as fast on the interpreter)" if (asked or default_backend()) == "auto" \
            else ""
        print(f"backend: {backend_of(game)}{why}", file=sys.stderr)
    return game


def _say_backend(args, fallback: bool) -> bool:
    """Whether to say which backend plays: with --verbose, or when the --backend given falls back (the default's
    falling back is said with --verbose only: most games are played on either alike)."""
    return bool(getattr(args, "verbose", False) or (fallback and getattr(args, "backend", None)))


def _picture(state, viewer=None) -> str:
    """render_state of a state of either backend (the compiled one drawn through the Python engine's State)."""
    convert = getattr(state, "python", None)
    return render_state(convert() if convert is not None else state, viewer=viewer)


def _position(args):
    """In a jail: the game loaded on its --backend, then the starting position set up (a unit of work of its own)."""
    game = _on_backend(_load(args), args)
    heartbeat(f"setting up the position of {args.file}", 2 * MOVE_SECONDS)  # the start, and --setup's outcome
    return _start_state(game, args)


def _warn(problems) -> None:
    """Print what the compiler warns of (a turn cap the rule file may not ask for), once each."""
    for problem in dict.fromkeys(problems):
        print(problem.format(), file=sys.stderr)


# -- validate -----------------------------------------------------------------------------------
def cmd_validate(args) -> int:
    text = args.format == "text"  # else: nothing but the machine-readable report on stdout
    say = print if text else (lambda *_, **__: None)
    games = args.play if args.play is not None else 0 if text else CI_PLAYOUTS
    reports = []
    # which backend plays, said in a line under each file; none for the interpreter that RULESDSL_BACKEND=python
    # chose (nothing else was considered)
    backend = args.backend or (None if default_backend() == "python" else default_backend())
    with Jail() as jail:
        for file in args.file:
            try:  # the whole check of a file is one job (each load and game in it a unit of work)
                report = jail.run(check_file, file, args.variant, _options(args.option), games, None, backend,
                                  seconds=LOAD_SECONDS, what=f"checking {file}")
            except JobKilled as exc:
                report = FileReport(file, problems=[exc.problem(file)])
            reports.append(report)
            _say_report(report, say)
    if not text:
        shown = {"json": as_json, "github": as_github, "sarif": lambda r: as_sarif(r, __version__)}[args.format]
        print(shown(reports))
    failing = ("error", "warning") if args.strict else ("error",)
    return 1 if any(p.severity in failing for r in reports for p in r.problems) else 0


def _option_text(value) -> str:
    """An option's value as --option takes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return ",".join(map(_option_text, value)) if isinstance(value, (list, tuple)) else str(value)


def _say_report(report: FileReport, say) -> None:
    """validate's text about one file (`say`: print, or nothing for the formats made for programs)."""
    file = report.file
    if report.doc is None:
        say(RulesError(report.problems).format(), file=sys.stderr)
        say(f"{file}: {_count(len(report.problems))}", file=sys.stderr)
        return
    broken = 0
    for problems in report.broken.values():
        say(RulesError(problems).format(), file=sys.stderr)
        broken += len(problems)
    for problem in report.problems[broken:]:  # after the variants' errors: warnings, problems found by playing
        say(problem.format(), file=sys.stderr)
    say(f"{file}: {'ok' if not broken else _count(broken) + ' in its variants'} - {report.summary}")
    for line in filter(None, report.lines):  # 'ok' above only when every variant compiles too
        say(line)
    for name, spec in (report.doc.data.get("options") or {}).items():
        spec = spec or {}
        choices = f" (one of {', '.join(map(str, spec['choices']))})" if spec.get("choices") else ""
        default = spec.get("default", "")
        value = report.options.get(name, default)
        given = "" if value == default else f" (default {_option_text(default)})"
        about = f": {spec['help']}" if spec.get("help") else ""
        say(f"  option {name}={_option_text(value)}{given}{choices}{about}")
    errors = sum(p.severity == "error" for p in report.problems)
    if errors:
        say(f"{file}: {_count(errors)}", file=sys.stderr)


# -- moves, show, perft --------------------------------------------------------------------------
def cmd_moves(args) -> int:
    print("\n".join(_jailed(_moves_lines, args, what=f"listing the moves of {args.file}")))
    return 0


def _moves_lines(args) -> list[str]:
    """In a jail: what `moves` prints."""
    state = _position(args)
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


def cmd_show(args) -> int:
    print(_jailed(_shown, args, what=f"showing a position of {args.file}"))
    return 0


def _shown(args) -> str:
    """In a jail: what `show` prints (JSON alone, so that the output can be saved and read back with --state)."""
    state = _position(args)
    heartbeat(f"drawing a position of {args.file}", MOVE_SECONDS)
    return json.dumps(state.to_json(), indent=2) if args.json else _picture(state)


def cmd_perft(args) -> int:
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
        _positions[key] = _position(args)
    heartbeat(f"counting the move paths of {args.file} to depth {depth}", float("inf"))
    start = time.perf_counter()
    count = perft(_positions[key], depth)
    return count, time.perf_counter() - start


# -- compile --------------------------------------------------------------------------------------
def cmd_compile(args) -> int:
    if args.emit and args.show is None:
        raise UsageError("--emit prints the form one rule's Python is printed from: name it with --show RULE")
    if args.format != "text" and not args.check:
        raise UsageError("--format applies to --check", "rulesdsl compile FILE --check --format json")
    if args.backend == "compiled" and (args.ir or args.emit or args.show is not None and args.check):
        raise UsageError("--backend compiled prints the compiled module: whole with --show (no RULE), else its "
                         "functions, or with --check whether the compiled backend takes the file; --ir and --emit "
                         "are about the Python the interpreter runs",
                         "rulesdsl compile FILE --check --backend compiled")
    if args.backend == "compiled" and args.show:
        raise UsageError("--show --backend compiled prints the whole module: it takes no RULE",
                         "rulesdsl compile FILE --show --backend compiled")
    if args.show == "" and args.backend != "compiled":
        raise UsageError("--show needs a RULE, except with --backend compiled (the whole module)",
                         "rulesdsl compile FILE --show RULE, or --show --backend compiled")
    text, code = _jailed(_compiled, args, what=f"compiling {args.file}")
    print(text)
    return code


def _compiled(args) -> tuple[str, int]:
    """In a jail: what `compile` prints, and its exit code."""
    base = load_document(args.file)
    game = _load(args, base=base)
    rules = game.rules
    heartbeat(f"printing what {args.file} compiles to", LOAD_SECONDS)
    if args.backend == "compiled" and args.check:
        return _check_compiled(args, game, with_variant(base, args.variant))
    if args.backend == "compiled":
        return _compiled_module(args, game), 0
    if args.check:
        return _check(args, rules.ir, game.layout, with_variant(base, args.variant))
    if args.ir:
        shown = [None] if args.show is None else _rules_named(args, find_rule(rules.ir, args.show), labels(rules.ir))
        return "\n".join(outline(rules.ir, label, data=rules.ir_data) for label in shown), 0
    generated = rules.generated  # label ("move advance") -> generated functions
    if args.show is None:
        return "\n".join(f"{label:<40} {len(fns):>3} functions {sum(f.source.count(chr(10)) for f in fns):>5} lines"
                         for label, fns in generated.items()), 0
    out = []
    for label in _rules_named(args, [g for g in generated if args.show in (g, g.split(" ", 1)[1])], generated):
        out.append(f"# {label}\n")
        shown = set()
        for fn in generated[label]:
            for each in [fn] + loops_called(fn, rules.namespace):  # and the loops it calls, once each
                if each not in shown:
                    shown.add(each)
                    out.append("\n".join(emitted(each.tree)) + "\n" if args.emit else each.source)
    return "\n".join(out), 0


def _compiled_module(args, game) -> str:
    """`compile --backend compiled`: the module the compiled backend prints for the game (plain Python for numba),
    whole with --show, else the names of its functions; a game it does not take is a located error."""
    try:
        program = program_of(game)
    except Unsupported as exc:
        raise exc.error() from None
    if args.show is not None:
        return program.source
    names = [line[4:line.index("(")] for line in program.source.splitlines() if line.startswith("def ")]
    return "\n".join([f"{len(names)} functions, {program.source.count(chr(10))} lines "
                      "(--show prints the module):", *names])


def _check_compiled(args, game, doc) -> tuple[str, int]:
    """`compile --check --backend compiled`: whether the compiled backend takes the file (exit 0), else why, each
    reason located (exit 1): every rule outside the compiled subset, and what the module's printer refuses first."""
    reasons = [replace(p, severity="error", hint=p.hint or "or play it on the Python engine (--backend python; "
                       "auto falls back to it)")
               for v in subset.check(game.rules.ir) + subset.state(game.layout) if not v.compiled
               for p in subset.problems(v, doc)]
    refused = takes(game)
    if refused is not None:
        printed = replace(refused.error().problems[0], code="not_compiled")
        if not any(p.location == printed.location for p in reasons):
            reasons.append(printed)
    reasons = sorted(dict.fromkeys(reasons), key=Problem.sort_key)
    name = Path(args.file).name
    if args.format == "json":
        return json.dumps({"file": args.file, "backend": "compiled", "compiled": not reasons,
                           "reasons": [problem_json(p, args.file) for p in reasons]}, indent=2), 1 if reasons else 0
    if not reasons:
        return f"{name}: OK: the compiled backend takes it", 0
    lines = [p.format() for p in reasons]
    lines.append(f"{name}: the compiled backend does not take it ({len(reasons)} reason"
                 f"{'s' if len(reasons) != 1 else ''}; --backend auto plays it on the Python engine)")
    return "\n".join(lines), 1


def _rules_named(args, found: list, known) -> list:
    """The rules --show names; none is a usage error that lists those there are."""
    if not found:
        close = did_you_mean(args.show, [label.split(" ", 1)[1] for label in known] + list(known))
        raise UsageError(f"no move, step, function, procedure or end rule named {_short(args.show)} "
                         f"({Path(args.file).name})", " ".join(filter(None, [close, "known: " + ", ".join(known)])))
    return found


def _check(args, ir, layout, doc) -> tuple[str, int]:
    """`compile --check`: each rule (or the one --show names) in the compiled subset or not, and why not, located;
    then each part of the state arrays of a fixed size cannot hold."""
    verdicts = subset.check(ir)
    if args.show is None:
        verdicts += subset.state(layout)
    else:
        named = set(_rules_named(args, find_rule(ir, args.show), labels(ir)))
        verdicts = [v for v in verdicts if v.rule in named]
    code = 0 if all(v.compiled for v in verdicts) else 1
    if args.format == "json":
        rules = [{"rule": v.rule, "compiled": v.compiled,
                  "reasons": [problem_json(p, args.file) for p in subset.problems(v, doc)]} for v in verdicts]
        return json.dumps({"file": args.file, "compiled": not code, "rules": rules,
                           "counts": subset.counts(verdicts)}, indent=2), code
    lines = []
    for v in verdicts:
        lines.append(f"{v.rule}: compiled" if v.compiled else
                     f"{v.rule}: python ({len(v.reasons)} reason{'s' if len(v.reasons) != 1 else ''})")
        lines += [p.format() for p in subset.problems(v, doc)]
    counted = ", ".join(f"{n} {c}" for c, n in subset.counts(verdicts).items() if n)
    lines.append(f"{Path(args.file).name}: {sum(v.compiled for v in verdicts)} of {len(verdicts)} rules compiled"
                 + (f" ({counted})" if counted else ""))
    return "\n".join(lines), code


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


def _per_seat(text: str | None, game, option: str, what: str, default: str | None = None) -> list[str]:
    """One comma-separated entry of `option` per seat (each `default` when the option is not given)."""
    entries = [e.strip() for e in text.split(",")] if text else [default] * game.num_players
    if len(entries) != game.num_players:
        raise UsageError(f"{option} names {len(entries)} {what}; {game.name} has {game.num_players} players "
                         f"({', '.join(game.player_names)})")
    return entries


def cmd_play(args) -> int:
    bundle = read_bundle(args.file)  # the rules the game is played with, which its log carries
    game = _on_backend(_load(args, base=bundle_document(bundle)), args)  # played as a person answers: budgets hold
    _warn(game.rules.warnings)
    seats = _per_seat(args.seats, game, "--seats", "seats", "human")
    agents = [None if s == "human" else _agent(s) for s in seats]
    state = _start_state(game, args)
    names = game.player_names
    print(f"{game.name} - seats: " + ", ".join(f"{n}={s}" for n, s in zip(names, seats)))
    print("type a move in the game's notation, '?' for the legal moves, 'quit' to stop\n")
    humans = [p for p, agent in enumerate(agents) if agent is None]
    # With one human, everything is shown as that player sees it; with several (hot seat), as the
    # player about to choose sees it. Nobody is shown what their seat may not see.
    watcher = humans[0] if len(humans) == 1 else None
    shown_to = AUDIENCE if watcher is None else watcher  # several players at one screen: what all may see
    told, drawn = len(state.history), None  # entries told so far; the ply last drawn for the watcher

    def tell_outcomes():
        # a chance outcome is told once applied: only then is it known who saw it
        nonlocal told
        for i in range(told, len(state.history)):
            move = state.history[i]
            if move.player == CHANCE:
                print(f"[{move.rule.name}] {Observer(game.rules, shown_to, state.revealed).entry(state, i)}")
        told = len(state.history)

    def choose(now, p, legal, rng):
        nonlocal drawn
        tell_outcomes()
        if watcher is not None and drawn != now.ply:  # once a position, before its first choice
            drawn = now.ply
            print(_picture(now, viewer=watcher))
        if agents[p] is None:
            if watcher is None:
                print(_picture(now, viewer=p))
            return _human_move(now, p, legal, names, sys.stdin)
        move = agents[p].choose(PlayerView(now, p), legal, rng)
        print(f"{names[p]} plays {'(secret)' if now.is_simultaneous_node() else move}")
        return move

    def on_move(now, move):
        if move.player >= 0 and now.acting_players() == [move.player]:  # the last choice at this position
            print()

    try:  # the same game as 'simulate' plays with this seed when every seat is an agent
        record = record_game(state, args.seed, choose, seats, on_move)
    except KeyboardInterrupt:
        print("\ngame stopped")
        return 130
    tell_outcomes()
    print(_picture(state))
    if args.log:
        log = dict(make_log(game, record, state, bundle), rule_counts=record.rule_counts)  # as a results line counts them
        Path(args.log).write_text(json.dumps(log, indent=1) + "\n", encoding="utf-8")
        print(f"log written to {args.log}")
    return 0


# -- simulate and replay -------------------------------------------------------------------------
def cmd_simulate(args) -> int:
    agents = tuple(a.strip() for a in args.agents.split(","))
    for a in agents:
        _agent(a)
    if args.resume and not args.out:
        raise UsageError("--resume continues the results file named by --out", "add --out FILE")
    if args.resume and args.force:
        raise UsageError("--resume continues the --out file and --force replaces it: give one of them")
    files = list(args.file) + [_rule_file(f) for f in args.compare or ()]
    for i, file in enumerate(files):
        if any(Path(file).resolve() == Path(other).resolve() for other in files[:i]):
            raise UsageError(f"{file} is given twice", "name each rule file once; compare variants of one file "
                             "with --variant")
    bundles = [read_bundle(file) for file in files]  # read once, for all the variants and every worker
    jails = [Jail(name=f"rulesdsl-worker-{i}") for i in range(1 if args.dask else args.workers)]
    try:
        for jail in jails:  # now, while this process runs one thread: a fork each (see jail.py)
            jail.start()
        return _simulated(args, agents, list(zip(files, bundles)), jails)
    finally:
        for jail in jails:
            jail.close()


def _run_labels(files: list[str]) -> list[str]:
    """How a run of several rule files names each in its summaries (as reports do): a bundled game by its name,
    another file by its name, or by its path as given when two share a name."""
    names = [bundled_name(f) or Path(f).name for f in files]
    return [name if names.count(name) == 1 else file for name, file in zip(names, files)]


def _simulated(args, agents: tuple, sources: list, jails: list) -> int:
    """simulate's runs, each rule file's (`sources`: [(file, bundle)]) variants in turn, on the same seeds; the
    games compiled and played in `jails` (one per worker; on Dask, only compiled there)."""
    specs, labels = [], []
    options = _options(args.option)
    several = len(sources) > 1
    for (file, bundle), name in zip(sources, _run_labels([f for f, _ in sources])):
        base = bundle_document(bundle)
        for variant in args.variant or [None]:  # every run's rules and the agents are checked before --out is touched
            wrong = argument_problems(base, variant, options)
            if wrong:
                raise UsageError(f"{wrong[0]} ({Path(file).name})", wrong[1])
            whole = random_agents_only(agents) and not args.score_trace  # each game played in compiled code
            spec = RunSpec(file, variant, tuple(sorted(options.items())), args.max_turns, agents, args.seed, bundle,
                           backend=chosen_backend(args.backend, whole), score_trace=args.score_trace)
            info = jails[0].run(describe, prepared(spec), seconds=LOAD_SECONDS, what=f"loading {file}")
            if _say_backend(args, info.fallback):
                why = "" if whole or (args.backend or default_backend()) != "auto" else \
                    " (auto: agents other than random choose move by move, as fast on the interpreter)"
                print(f"backend: {info.backend}{why}", file=sys.stderr)
            _per_seat(args.agents, info, "--agents", "agents")
            _warn(info.warnings)
            specs.append(spec)
            labels.append(name + (f" [{variant}]" if variant else "") if several else None)
    done, specs, carried = _earlier_results(args, specs)
    for _, bundle in sources:  # the file carries the rules its games were played with, each once
        carried.setdefault(bundle.digest, bundle)
    if done:  # keep the complete lines only (a line cut short by a stopped run is dropped)
        Path(args.out).write_text("".join(json.dumps(line) + "\n" for line in
                                          [rules_line(b) for b in carried.values()] + done), encoding="utf-8")
    progress = not args.quiet
    folder = Path(args.out).absolute().parent if args.out else None
    summaries = []
    out = open(args.out, "a" if done else "w", encoding="utf-8") if args.out else None
    if out is not None and not done:
        out.write("".join(json.dumps(rules_line(b)) + "\n" for b in carried.values()))
    try:
        for spec, label in zip(specs, labels):
            summary = simulate(spec, args.games, out, args.workers, args.dask, done, progress, folder,
                               chunk=args.chunk, jails=jails)
            summary.label = label
            summaries.append(summary)
            print(summary.format(), flush=True)
        if len(summaries) > 1:
            print(compare_runs(summaries))
    except KeyboardInterrupt:
        print(f"\ninterrupted: the games finished so far are in {args.out}; add --resume to complete the run"
              if args.out else "\ninterrupted", file=sys.stderr)
        return 130
    except RunStopped as exc:
        kept = (f"the games finished so far are in {args.out}: run the same command with --resume to complete "
                "the run" if args.out else "run it again (with --out FILE, a stopped run can be completed with "
                "--resume)")
        print(f"error: the run stopped: {exc}\n  hint: {kept}", file=sys.stderr)
        return 1
    finally:
        if out:
            out.close()
    if args.out:
        print(f"results written to {args.out}")
    return 0


def _earlier_results(args, specs: list) -> tuple[list[dict], list, dict]:
    """The games already in --out that this run continues ([] when it starts afresh), the run's specs, which
    continue the random stream those games were played with, and the rules the file carries (hash -> bundle);
    an existing file is replaced only with --force, and continued only with --resume by the run it holds."""
    if not args.out:
        return [], specs, {}
    out = Path(args.out)
    if out.is_dir():
        raise UsageError(f"--out {out} is a folder", "name a file, e.g. --out results.jsonl")
    if not out.is_file() or out.stat().st_size == 0 or args.force:
        return [], specs, {}
    if not args.resume:
        raise UsageError(f"--out {out} already exists", "add --resume to complete the run it holds, --force to "
                         "replace it, or name another file")
    carried = {}
    numbered = numbered_results(out, carried)
    if numbered:
        specs = [replace(spec, stream=_recorded_stream(numbered[0], out)) for spec in specs]
    _check_same_run(numbered, specs, args.games, out)
    return [line for _, line in numbered], specs, carried


def _recorded_stream(numbered: tuple, path: Path) -> str:
    """The random stream a results file's run was begun with (its first line's; a line that names none was
    played before streams were named), which its remaining games must be played with too."""
    number, line = numbered
    stream = line.get("rng", OLD_STREAM)
    if stream not in STREAMS:
        raise UsageError(f"--resume: {path}:{number} was played with the random stream {stream!r:.80}, which this "
                         f"version of rulesdsl does not have ({', '.join(STREAMS)})",
                         "complete it with the version of rulesdsl that began it, or start afresh with --force")
    return stream


def _check_same_run(numbered: list, specs: list, games: int, path: Path) -> None:
    """--resume continues only the run the file holds: same rules, variants, options, turn cap, agents, seed,
    and no game beyond --games."""
    folder = path.absolute().parent
    seen = {}
    for number, line in numbered:
        candidates = [s for s in specs if s.variant == line.get("variant")]  # of each rule file the run plays
        spec = next((s for s in candidates if s.difference(line, folder) is None), candidates[0] if candidates
                    else None)
        if spec is None:
            wrong = (f"variant {line.get('variant') or '(none)'}, not "
                     f"{', '.join(dict.fromkeys(s.variant or '(none)' for s in specs))}")
        else:
            wrong = spec.difference(line, folder)
        if wrong is None and line["index"] >= games:
            wrong = f"game {line['index']:,} (counting from 0), beyond --games {games:,}"
        key = (line["file"], line.get("variant"), line["index"])
        if wrong is None and key in seen:
            raise RulesError([Problem(f"game {line['index']} appears twice (also on line {seen[key]})",
                                      Location(str(path), number), RESULTS_HINT + "; this file is damaged")])
        seen[key] = number
        if wrong:
            raise UsageError(f"--resume: {path}:{number} holds another run: {wrong}",
                             "give the arguments of the run it holds to complete it, --force to replace it, or "
                             "another --out file")


def cmd_report(args) -> int:
    analysis = analyse(args.results, _given_rules(args.rules))
    if args.format == "html" and not args.out:
        sys.stdout.write(render_html(analysis))
        return 0
    print(text_report(analysis))
    if args.out:
        for path in write_report(analysis, Path(args.out), args.format):
            print(f"wrote {path}")
    return 0


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
    print(_picture(shown))
    for number, move in enumerate(state.history, 1):
        if step:
            print("(Enter: next move, q: stop) ", end="", flush=True)
            line = sys.stdin.readline()
            if not line or line.strip() in ("q", "quit"):
                raise KeyboardInterrupt
        shown.apply(move)
        print(f"\n{number}. {'chance' if move.player == CHANCE else names[move.player]}: {move}")
        print(_picture(shown))


def cmd_replay(args) -> int:
    rules = _given_rules(args.rules)
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
    return problems, _picture(state) if picture and not problems else None, backend_of(state.game)


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


# -- profile -------------------------------------------------------------------------------------
def cmd_profile(args) -> int:
    game = _load(args, inline=False)  # each of the file's functions called as written: its own line, its calls
    agents = [_agent(a) for a in _per_seat(args.agents, game, "--agents", "agents", "random")]
    print(profile_games(game, agents, args.games, args.seed).format(args.top))
    return 0


def cmd_functions(args) -> int:
    print(builtin_reference(args.markdown))
    return 0


def cmd_games(args) -> int:
    for name, path in bundled_games().items():
        try:
            print(f"{name:<14} {load_game(path).summary()}")
        except RulesError as exc:
            print(f"{name:<14} (invalid: {_count(len(exc.problems))})")
    return 0


def cmd_schema(args) -> int:
    source = schema_path()
    if args.write is None:
        if args.force:
            raise UsageError("--force replaces a schema written by --write", "add --write DIR")
        print(source)
        return 0
    folder = Path(args.write)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--write {_short(args.write)} is a file, not a folder", "name a folder, e.g. --write schemas")
    target, content = folder / source.name, source.read_bytes()
    if target.is_dir():
        raise UsageError(f"--write: {target} is a folder", "write the schema to another folder")
    if target.exists() and not args.force and not _same_content(target, content):
        raise UsageError(f"--write: {target} already exists with other content",
                         "add --force to replace it (e.g. with the schema of this version of rulesdsl)")
    folder.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content)
    print(target.resolve())
    return 0


def _same_content(path: Path, content: bytes) -> bool:
    """True when the file at `path` holds exactly `content` (a file of another size is not read)."""
    return path.stat().st_size == len(content) and path.read_bytes() == content


def cmd_lsp(args) -> int:
    return serve_lsp(__version__)


# -- argument parsing ----------------------------------------------------------------------------
SEED = _whole_number(-MAX_SEED, MAX_SEED)
CI_PLAYOUTS = 20  # validate --play's default in the formats made for CI


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rulesdsl", description="Tabletop games as YAML rule files: validate, "
                                     "play, simulate.", epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"rulesdsl {__version__}")
    parser.add_argument("--debug", action="store_true", help="show internal errors' tracebacks (instead of saving "
                        "them to a file)")
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
        p.add_argument("--seed", type=SEED, default=0, help="seed for the state's own randomness")

    p = sub.add_parser("validate", help="check rule files and summarise them")
    p.add_argument("file", nargs="+", help="rule files")
    p.add_argument("--variant", help="check only this variant")
    p.add_argument("--option", action="append", metavar="NAME=VALUE")
    p.add_argument("--play", type=_at_least(0), metavar="N",
                   help=f"then play N seeded random games of the game and of each variant: rules that fail in play "
                        f"(errors), games that reach the turn cap and moves, steps, end rules and functions never used "
                        f"(warnings); default 0, or {CI_PLAYOUTS} with --format json, github or sarif")
    p.add_argument("--strict", action="store_true", help="warnings fail the check too (exit 1)")
    p.add_argument("--format", choices=FORMATS, default="text",
                   help="text (default), json (every problem with file, line, column, code, severity and hint), "
                        "github (annotations for GitHub Actions) or sarif (SARIF 2.1.0, for code scanning)")
    backend_arg(p, verbose=False)
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("play", help="play in the terminal")
    game_args(p)
    start_args(p)
    p.add_argument("--seats", help=f"one per player: human or an agent ({', '.join(AGENTS)})")
    p.add_argument("--log", help="write the game's log to this file")
    p.add_argument("--max-turns", type=_at_least(1), help="stop after this many turns (a draw); default: the "
                   f"rule file's flow: max_turns, else {DEFAULT_MAX_TURNS:,}")
    backend_arg(p)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("simulate", help="run many seeded games and report statistics")
    p.add_argument("file", nargs="+", help="rule files (or bundled games' names); with several, each plays the "
                   "same seeds and each is compared with the first")
    p.add_argument("--compare", action="append", metavar="FILE", help="another rule file to play on the same seeds "
                   "and compare with the first (repeatable; the same as naming it after the first)")
    p.add_argument("--variant", action="append", help="a variant of the files (repeat to compare variants)")
    p.add_argument("--option", action="append", metavar="NAME=VALUE", help="set a game option (repeatable)")
    p.add_argument("--games", type=_at_least(1), default=100, help="number of games (default 100)")
    p.add_argument("--seed", type=SEED, default=0, help="run seed; game i uses a seed derived from it and i")
    p.add_argument("--agents", required=True, help=f"comma-separated, one per seat ({', '.join(AGENTS)}); settings "
                   "after colons, e.g. mcts:iterations=300")
    p.add_argument("--out", help="write one JSON line per game to this file (a new file: see --resume, --force)")
    p.add_argument("--max-turns", type=_at_least(1), help="turn cap: games still running are stopped and scored as "
                   f"draws; default: the rule file's flow: max_turns, else {DEFAULT_MAX_TURNS:,}")
    p.add_argument("--workers", type=_whole_number(1, 1024), default=1,
                   help="parallel processes (results do not depend on it)")
    p.add_argument("--dask", metavar="ADDRESS", help="run on a Dask cluster: tcp://HOST:PORT, or 'local'")
    p.add_argument("--chunk", type=_at_least(1), metavar="N", help="games per task sent to a worker (default: "
                   "about half a second of play, measured on the first games)")
    p.add_argument("--resume", action="store_true", help="complete the run in the --out file (the same "
                   "arguments; --games may grow)")
    p.add_argument("--force", action="store_true", help="replace the --out file if it exists")
    p.add_argument("--quiet", action="store_true", help="no progress (a bar on a terminal, else a line every few "
                   "seconds on stderr)")
    p.add_argument("--score-trace", action="store_true", help="record each game's scores turn by turn in the "
                   "results, for the report's drama and lead changes (costs a scoring per turn)")
    backend_arg(p)
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("profile", help="play seeded games under a profiler: the time each rule, function and "
                       "built-in takes")
    game_args(p)
    p.add_argument("--games", type=_at_least(1), default=20, help="number of games (default 20)")
    p.add_argument("--seed", type=SEED, default=0, help="run seed; game i is the game simulate plays with it")
    p.add_argument("--agents", help=f"comma-separated, one per seat ({', '.join(AGENTS)}); default: random")
    p.add_argument("--top", type=_at_least(1), default=25, metavar="N", help="show the N rows with the most self "
                   "time (default 25)")
    p.add_argument("--max-turns", type=_at_least(1), help="turn cap; default: the rule file's flow: max_turns, "
                   f"else {DEFAULT_MAX_TURNS:,}")
    p.set_defaults(func=cmd_profile)

    p = sub.add_parser("moves", help="list the legal moves in notation")
    game_args(p)
    start_args(p)
    p.add_argument("--json", action="store_true", help="JSON output")
    backend_arg(p)
    p.set_defaults(func=cmd_moves)

    p = sub.add_parser("show", help="print a position")
    game_args(p)
    start_args(p)
    p.add_argument("--json", action="store_true", help="print the state as JSON instead (to read back with --state)")
    backend_arg(p)
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("perft", help="count move paths to a depth")
    game_args(p)
    start_args(p)
    p.add_argument("--depth", type=_whole_number(0, 1000), required=True)
    p.add_argument("--all", action="store_true", help="print every depth from 1")
    backend_arg(p)
    p.set_defaults(func=cmd_perft)

    p = sub.add_parser("compile", help="what a rule file compiles to: its Python, its typed rules IR, and whether "
                       "a compiled backend can take each rule")
    game_args(p)
    p.add_argument("--show", metavar="RULE", nargs="?", const="", help="print the functions generated for this "
                   "move, step, function, procedure or end rule (end rules by number: 'end 1'); without it, list what "
                   "was generated; with --ir or --check, that rule alone; with --backend compiled (no RULE), the "
                   "whole module the compiled backend prints")
    shown = p.add_mutually_exclusive_group()
    shown.add_argument("--ir", action="store_true", help="the typed rules IR as an outline: params with their "
                       "types and domains, checks, lets, notation, effects, steps, end rules, scoring, each "
                       "expression with its type")
    shown.add_argument("--emit", action="store_true", help="with --show: the intermediate form its Python is "
                       "printed from")
    shown.add_argument("--check", action="store_true", help="whether each rule lies in the subset a compiled "
                       "backend can take, and if not why, located (exit 1 when one does not)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="with --check: text (default) or "
                   "json (each rule with its reasons: file, line, column, code, severity, message, hint)")
    p.add_argument("--backend", choices=("python", "compiled"), default="python", help="python (default): the "
                   "Python the interpreter runs; compiled: the module the compiled backend prints for numba, or with "
                   "--check whether the compiled backend takes the file (OK, else every reason, located)")
    p.set_defaults(func=cmd_compile)

    p = sub.add_parser("report", help="a balance report on a results file: win rates, variants compared, first "
                       "player, scores, game length, rule coverage; charts, games.csv, or one HTML page")
    p.add_argument("results", nargs="+", help="results .jsonl files written by simulate --out; with several, "
                   "each rule file and variant is compared with the first (game by game when they share seeds)")
    p.add_argument("--out", help="folder for the files: the charts (PNG), report.txt and games.csv; with --format "
                   "html, report.html and games.csv")
    p.add_argument("--format", choices=REPORT_FORMATS, default="png", help="png (default) or html: one "
                   "self-contained page (printed when there is no --out)")
    p.add_argument("--rules", help="read the games with this rule file instead of the one the results name")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("replay", help="re-run a game log (or a results .jsonl) and verify it")
    p.add_argument("log", help="a log from 'play --log', or a results .jsonl from 'simulate --out'")
    p.add_argument("--rules", help="replay against this rule file instead of the logged one (needed when the log "
                   "names one outside its own folder)")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--game", type=_whole_number(0, MAX_COUNT), metavar="N", help="only game N of a results file "
                   "(the index of its line)")
    p.add_argument("--show", action="store_true", help="watch the game move by move: each move, then the position")
    p.add_argument("--step", action="store_true", help="--show, waiting for Enter before each move")
    p.add_argument("--workers", type=_whole_number(1, 1024), default=1,
                   help="replay a results file's games on this many processes (the output does not depend on it)")
    p.add_argument("--quiet", action="store_true", help="no progress (a bar on a terminal, else a line every few "
                   "seconds on stderr)")
    backend_arg(p, verbose=False)  # --verbose above says which backend replays too
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("functions", help="list the built-in functions of the rules language")
    p.add_argument("--markdown", action="store_true", help="as markdown tables (as in docs/language.md)")
    p.set_defaults(func=cmd_functions)

    p = sub.add_parser("serve", help="a local web playground: the rule file in an editor beside the game "
                       f"(needs {INSTALL_HINT})")
    p.add_argument("target", nargs="?", metavar="FILE_OR_FOLDER", help="the folder to serve, or a rule file "
                   "(its folder, the file opened first) or a bundled game's name; default: the current folder")
    p.add_argument("--host", default=LOCAL, help=f"the address to listen on (default {LOCAL}: this machine only)")
    p.add_argument("--port", type=_at_least(1), default=8000, help="the port (default 8000)")
    p.add_argument("--open", action="store_true", help="open the page in a web browser")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME", help="also answer requests "
                   "addressed to this name (e.g. the machine's name on the network, with --host 0.0.0.0); repeatable")
    p.add_argument("--allow-view-as", action="store_true", help="let the page view a game as any seat, hidden "
                   "pieces and cards included (else only the seats the browser plays)")
    p.add_argument("--view-as-beyond-loopback", action="store_true", help="allow --allow-view-as when serving "
                   "beyond this machine (--host other than 127.0.0.1)")
    p.set_defaults(func=lambda args: serve(args.target, args.host, args.port, args.open, args.allow_host,
                                           args.allow_view_as, args.view_as_beyond_loopback))

    p = sub.add_parser("games", help="list the bundled games")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser("schema", help="print the path of the JSON Schema of rule files (for editors and "
                       "check-jsonschema)")
    p.add_argument("--write", metavar="DIR", help="copy the schema into this folder (created if needed)")
    p.add_argument("--force", action="store_true", help="with --write: replace a schema file there that differs")
    p.set_defaults(func=cmd_schema)

    p = sub.add_parser("lsp", help="the language server for editors, over stdin and stdout (pip install "
                       "'rulesdsl[lsp]'; see docs/editors.md)")
    p.set_defaults(func=cmd_lsp)
    return parser


def main(argv=None) -> int:
    streams = sys.stdout, sys.stderr
    _tolerant_output()
    sys.stdout, sys.stderr = SafeStream(sys.stdout), SafeStream(sys.stderr)  # all the command prints goes out so
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = streams


def _main(argv) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)  # argparse itself exits with 2 on a bad argument
    try:
        _resolve_files(args)
        return args.func(args)
    except UsageError as exc:
        print(exc.format(), file=sys.stderr)
        return 2
    except RulesDslError as exc:
        print(exc.format(), file=sys.stderr)
        return 1
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
    except Exception as exc:  # noqa: BLE001 - an internal bug: one line and a crash file unless --debug
        if args.debug:
            raise
        print(_crash_report(exc, argv), file=sys.stderr)
        return 3


def _tolerant_output() -> None:
    """Text the terminal cannot encode (a lone surrogate in a game's name) is escaped, not a crash."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):  # not a text stream we may reconfigure: leave it
            pass


def _resolve_files(args) -> None:
    """FILE arguments as paths (a bundled game's name becomes its file); a missing one is a usage error."""
    if isinstance(getattr(args, "file", None), str):
        args.file = _rule_file(args.file)
    elif getattr(args, "file", None):
        args.file = [_rule_file(f) for f in args.file]


def _crash_report(exc: BaseException, argv) -> str:
    """Save the traceback of an internal error to a file; the one line that tells the user where it is. The file is
    made new, with a name nobody can guess and for its owner's eyes only (mode 0600), in the shared temporary
    folder: nobody else can read it, nor have it written over a file of their choosing (a link made in advance)."""
    what = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
    command = " ".join(sys.argv[1:] if argv is None else map(str, argv))
    try:
        handle, name = tempfile.mkstemp(prefix=f"rulesdsl-crash-{time.strftime('%Y%m%d-%H%M%S')}-", suffix=".txt")
        path = Path(name)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(f"rulesdsl {__version__}, Python {sys.version.split()[0]}, {sys.platform}\n"
                      f"command: rulesdsl {command[:10_000]}\n\n{traceback.format_exc()}")
    except OSError:
        return f"internal error ({what}): this is a bug in rulesdsl, not in your files; rerun with --debug for details"
    return (f"internal error ({what}): this is a bug in rulesdsl, not in your files; the details are in {path} "
            "(please include them in a bug report)")


if __name__ == "__main__":
    sys.exit(main())
