"""The `compile` command: a rule file's generated Python, its typed rules IR, and what a compiled backend takes."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from ..backends.compiled.build import program_of, takes
from ..backends.compiled.unsupported import Unsupported
from ..errors import Problem, UsageError, did_you_mean
from ..findings import problem_json
from ..ir import subset
from ..ir.show import find_rule, labels, outline
from ..jail import heartbeat
from ..lang.compiler import loops_called
from ..lang.emit import outline as emitted
from ..limits import LOAD_SECONDS
from ..loading import load_document, with_variant
from .common import game_args, jailed, load_named, shortened

HELP = ("what a rule file compiles to: its Python, its typed rules IR, and whether a compiled backend can take each "
        "rule")


def register(p) -> None:
    """compile's arguments."""
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


def run(args) -> int:
    """Check the combination of arguments, then print what the file compiles to (made in a jail)."""
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
    text, code = jailed(_compiled, args, what=f"compiling {args.file}")
    print(text)
    return code


def _compiled(args) -> tuple[str, int]:
    """In a jail: what `compile` prints, and its exit code."""
    base = load_document(args.file)
    game = load_named(args, base=base)
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
        raise UsageError(f"no move, step, function, procedure or end rule named {shortened(args.show)} "
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
