"""The `simulate` command: run many seeded games, on several processes or a Dask cluster, and sum them up."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

from ..agents import AGENTS
from ..api import argument_problems
from ..backends.compiled.build import chosen_backend, default_backend, random_agents_only
from ..bundle import bundle_document, read_bundle
from ..engine.rng import OLD_STREAM, STREAMS
from ..errors import Location, Problem, RulesError, RunStopped, UsageError
from ..jail import Jail
from ..limits import DEFAULT_MAX_TURNS, LOAD_SECONDS
from ..sim.records import RESULTS_HINT, bundled_name, numbered_results, rules_line
from ..sim.simulate import RunSpec, compare_runs, describe, prepared, simulate
from .common import (SEED, agent_named, at_least, backend_arg, option_values, per_seat, rule_file, say_backend, warn,
                     whole_number)

HELP = "run many seeded games and report statistics"


def register(p) -> None:
    """simulate's arguments."""
    p.add_argument("file", nargs="+", help="rule files (or bundled games' names); with several, each plays the "
                   "same seeds and each is compared with the first")
    p.add_argument("--compare", action="append", metavar="FILE", help="another rule file to play on the same seeds "
                   "and compare with the first (repeatable; the same as naming it after the first)")
    p.add_argument("--variant", action="append", help="a variant of the files (repeat to compare variants)")
    p.add_argument("--option", action="append", metavar="NAME=VALUE", help="set a game option (repeatable)")
    p.add_argument("--games", type=at_least(1), default=100, help="number of games (default 100)")
    p.add_argument("--seed", type=SEED, default=0, help="run seed; game i uses a seed derived from it and i")
    p.add_argument("--agents", required=True, help=f"comma-separated, one per seat ({', '.join(AGENTS)}); settings "
                   "after colons, e.g. mcts:iterations=300")
    p.add_argument("--out", help="write one JSON line per game to this file (a new file: see --resume, --force)")
    p.add_argument("--max-turns", type=at_least(1), help="turn cap: games still running are stopped and scored as "
                   f"draws; default: the rule file's flow: max_turns, else {DEFAULT_MAX_TURNS:,}")
    p.add_argument("--workers", type=whole_number(1, 1024), default=1,
                   help="parallel processes (results do not depend on it)")
    p.add_argument("--dask", metavar="ADDRESS", help="run on a Dask cluster: tcp://HOST:PORT, or 'local'")
    p.add_argument("--chunk", type=at_least(1), metavar="N", help="games per task sent to a worker (default: "
                   "about half a second of play, measured on the first games)")
    p.add_argument("--resume", action="store_true", help="complete the run in the --out file (the same "
                   "arguments; --games may grow)")
    p.add_argument("--force", action="store_true", help="replace the --out file if it exists")
    p.add_argument("--quiet", action="store_true", help="no progress (a bar on a terminal, else a line every few "
                   "seconds on stderr)")
    p.add_argument("--score-trace", action="store_true", help="record each game's scores turn by turn in the "
                   "results, for the report's drama and lead changes (costs a scoring per turn)")
    backend_arg(p)


def run(args) -> int:
    """Check the arguments and rule files, then play the runs in worker jails started while this process has one
    thread."""
    agents = tuple(a.strip() for a in args.agents.split(","))
    for a in agents:
        agent_named(a)
    if args.resume and not args.out:
        raise UsageError("--resume continues the results file named by --out", "add --out FILE")
    if args.resume and args.force:
        raise UsageError("--resume continues the --out file and --force replaces it: give one of them")
    files = list(args.file) + [rule_file(f) for f in args.compare or ()]
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
    options = option_values(args.option)
    several = len(sources) > 1
    for (file, bundle), name in zip(sources, _run_labels([f for f, _ in sources])):
        base = bundle_document(bundle)
        for variant in args.variant or [None]:  # every run's rules and the agents are checked before --out is touched
            wrong = argument_problems(base, variant, options)
            if wrong:
                raise UsageError(f"{wrong[0]} ({Path(file).name})", wrong[1])
            whole = random_agents_only(agents) and not args.score_trace  # each game played in compiled code
            spec = RunSpec(file, variant, tuple(sorted(options.items())), args.max_turns, agents, args.seed, bundle,
                           backend=chosen_backend(args.backend, whole, args.games), score_trace=args.score_trace)
            info = jails[0].run(describe, prepared(spec), seconds=LOAD_SECONDS, what=f"loading {file}")
            if say_backend(args, info.fallback):
                why = "" if whole or (args.backend or default_backend()) != "auto" else \
                    " (auto: agents other than random choose move by move, as fast on the interpreter)"
                print(f"backend: {info.backend}{why}", file=sys.stderr)
            per_seat(args.agents, info, "--agents", "agents")
            warn(info.warnings)
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
