"""The `rulesdsl` command: validate rule files, play in the terminal, simulate, profile, list moves, perft, replay,
locate the JSON Schema, serve editors (lsp)."""

from __future__ import annotations

import argparse
import sys

from .. import __version__
from ..errors import RulesDslError, UsageError
from ..limits import DEFAULT_MAX_TURNS, MAX_TURNS_CAP
from ..terminal import SafeStream
from . import (compile, functions, games, lsp, moves, perft, play, profile, replay, report, schema, serve, show,
               simulate, validate)
from .common import crash_report, rule_file, tolerant_output

__all__ = ["main", "build_parser", "UsageError"]  # UsageError lives in errors; kept importable from here

# Each command's module (its HELP, register(parser) adding its arguments, and run(args) giving its exit code), in
# the order the help lists them. run is looked up when the command runs.
COMMANDS = {"validate": validate, "play": play, "simulate": simulate, "profile": profile, "moves": moves,
            "show": show, "perft": perft, "compile": compile, "report": report, "replay": replay,
            "functions": functions, "serve": serve, "games": games, "schema": schema, "lsp": lsp}

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


def build_parser() -> argparse.ArgumentParser:
    """The parser of the whole command line: the global options, then each command's."""
    parser = argparse.ArgumentParser(prog="rulesdsl", description="Tabletop games as YAML rule files: validate, "
                                     "play, simulate.", epilog=EPILOG,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"rulesdsl {__version__}")
    parser.add_argument("--debug", action="store_true", help="show internal errors' tracebacks (instead of saving "
                        "them to a file)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in COMMANDS.items():
        command.register(sub.add_parser(name, help=command.HELP))
    return parser


def main(argv=None) -> int:
    """Run the command line `argv` (default: the process's own) and return its exit code."""
    streams = sys.stdout, sys.stderr
    tolerant_output()
    sys.stdout, sys.stderr = SafeStream(sys.stdout), SafeStream(sys.stderr)  # all the command prints goes out so
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = streams


def _main(argv) -> int:
    """Parse, dispatch to the command's run, and turn what it raises into a message and an exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)  # argparse itself exits with 2 on a bad argument
    try:
        _resolve_files(args)
        return COMMANDS[args.command].run(args)
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
        print(crash_report(exc, argv), file=sys.stderr)
        return 3


def _resolve_files(args) -> None:
    """FILE arguments as paths (a bundled game's name becomes its file); a missing one is a usage error."""
    if isinstance(getattr(args, "file", None), str):
        args.file = rule_file(args.file)
    elif getattr(args, "file", None):
        args.file = [rule_file(f) for f in args.file]

