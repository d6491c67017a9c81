"""The `validate` command: check rule files, each problem located, and summarise them (text or CI formats)."""

from __future__ import annotations

import sys

from .. import __version__
from ..backends.compiled.build import default_backend
from ..errors import RulesError
from ..findings import FORMATS, FileReport, as_github, as_json, as_sarif, check_file, count_problems
from ..jail import Jail, JobKilled
from ..limits import LOAD_SECONDS
from .common import at_least, backend_arg, option_values

HELP = "check rule files and summarise them"
CI_PLAYOUTS = 20  # validate --play's default in the formats made for CI


def register(p) -> None:
    """validate's arguments."""
    p.add_argument("file", nargs="+", help="rule files")
    p.add_argument("--variant", help="check only this variant")
    p.add_argument("--option", action="append", metavar="NAME=VALUE")
    p.add_argument("--play", type=at_least(0), metavar="N",
                   help=f"then play N seeded random games of the game and of each variant: rules that fail in play "
                        f"(errors), games that reach the turn cap and moves, steps, end rules and functions never used "
                        f"(warnings); default 0, or {CI_PLAYOUTS} with --format json, github or sarif")
    p.add_argument("--strict", action="store_true", help="warnings fail the check too (exit 1)")
    p.add_argument("--format", choices=FORMATS, default="text",
                   help="text (default), json (every problem with file, line, column, code, severity and hint), "
                        "github (annotations for GitHub Actions) or sarif (SARIF 2.1.0, for code scanning)")
    backend_arg(p, verbose=False)


def run(args) -> int:
    """Check each file in a jail and report on it; 1 when one has an error (or a warning, with --strict)."""
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
                report = jail.run(check_file, file, args.variant, option_values(args.option), games, None, backend,
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
        say(f"{file}: {count_problems(len(report.problems))}", file=sys.stderr)
        return
    broken = 0
    for problems in report.broken.values():
        say(RulesError(problems).format(), file=sys.stderr)
        broken += len(problems)
    for problem in report.problems[broken:]:  # after the variants' errors: warnings, problems found by playing
        say(problem.format(), file=sys.stderr)
    say(f"{file}: {'ok' if not broken else count_problems(broken) + ' in its variants'} - {report.summary}")
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
        say(f"{file}: {count_problems(errors)}", file=sys.stderr)
