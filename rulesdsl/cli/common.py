"""What the commands share (argument types and groups, the game named and its backend, output), and crash files."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

from .. import __version__
from ..agents import AGENTS, make_agent
from ..api import argument_problems
from ..backends.compiled.build import BACKENDS, chosen_backend, default_backend, describe as backend_of, with_backend
from ..engine.load import compile_game
from ..engine.nodes import CHANCE
from ..engine.serialize import parse_json
from ..errors import MoveError, UsageError, did_you_mean
from ..jail import Jail, heartbeat
from ..limits import LOAD_SECONDS, MAX_STATE_BYTES, MOVE_SECONDS
from ..loading import bundled_games, load_document, resolve_path
from ..render import render_state
from ..sim.records import MAX_COUNT, MAX_SEED, read_text

STATE_HINT = "save states with 'rulesdsl show FILE --json > state.json' (or State.to_json())"
MAX_OPTION = 1000  # longest --option value, in characters


# -- arguments ----------------------------------------------------------------------------------
def shortened(text: str, width: int = 40) -> str:
    """A command-line value shortened for a message."""
    return repr(text) if len(text) <= width else repr(text[: width - 3] + "...")


def whole_number(low: int | None = None, high: int | None = None):
    """An argparse type: a whole number within [low, high]."""
    def number(text: str) -> int:
        digits = text.strip().removeprefix("-").removeprefix("+")
        if not (digits.isascii() and digits.isdigit()):
            raise argparse.ArgumentTypeError(f"{shortened(text)} is not a whole number")
        if len(digits) > 30:  # int() of thousands of digits is slow and refused by Python itself
            raise argparse.ArgumentTypeError(f"a number of {len(digits):,} digits is too long")
        value = int(text)
        if low is not None and value < low:
            raise argparse.ArgumentTypeError(f"{value} is too small (at least {low:,})")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"{value} is too large (at most {high:,})")
        return value
    return number


def at_least(low: int):
    """An argparse type: a whole number no smaller than `low`."""
    return whole_number(low, MAX_COUNT)


SEED = whole_number(-MAX_SEED, MAX_SEED)


def game_args(p, variants="one") -> None:
    """FILE, --variant and --option, for a command that plays or prints a game."""
    p.add_argument("file", help="a rule file, or the name of a bundled game (see 'rulesdsl games')")
    if variants == "many":
        p.add_argument("--variant", action="append", help="a variant of the file (repeat to compare variants)")
    else:
        p.add_argument("--variant", help="a variant declared in the file")
    p.add_argument("--option", action="append", metavar="NAME=VALUE", help="set a game option (repeatable)")


def start_args(p) -> None:
    """--setup, --state and --seed: the position a command starts from."""
    p.add_argument("--setup", help="the outcome of the opening chance step, in notation (e.g. a setup arrangement)")
    p.add_argument("--state", help="start from a state saved as JSON")
    p.add_argument("--seed", type=SEED, default=0, help="seed for the state's own randomness")


def backend_arg(p, verbose: bool = True) -> None:
    """--backend, and --verbose to say which backend plays."""
    p.add_argument("--backend", choices=BACKENDS, help="what plays the games: the Python engine, the compiled "
                   "backend (numba), or auto (compiled where it takes the game, else Python; the default, or "
                   "$RULESDSL_BACKEND); the same games on every backend")
    if verbose:
        p.add_argument("--verbose", action="store_true", help="say which backend plays the games, and why")


def option_values(pairs) -> dict:
    """--option NAME=VALUE pairs as a dict."""
    options = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--option expects NAME=VALUE, got {shortened(pair)}", "e.g. --option players=3")
        if len(value) > MAX_OPTION:
            raise UsageError(f"--option {shortened(key.strip())}: a value of {len(value):,} characters is too long "
                             f"(at most {MAX_OPTION:,})")
        options[key.strip()] = value
    return options


def agent_named(spec: str):
    """An agent named on the command line; a name or setting it cannot use is a usage error."""
    try:
        return make_agent(spec)
    except ValueError as exc:  # make_agent says what is wrong in its message
        raise UsageError(str(exc)[:300], f"agents: {', '.join(AGENTS)}; settings after colons, e.g. "
                         "mcts:iterations=200") from None


def per_seat(text: str | None, game, option: str, what: str, default: str | None = None) -> list[str]:
    """One comma-separated entry of `option` per seat (each `default` when the option is not given)."""
    entries = [e.strip() for e in text.split(",")] if text else [default] * game.num_players
    if len(entries) != game.num_players:
        raise UsageError(f"{option} names {len(entries)} {what}; {game.name} has {game.num_players} players "
                         f"({', '.join(game.player_names)})")
    return entries


def rule_file(name: str) -> str:
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


def given_rules(name: str | None) -> str | None:
    """The rule file given with --rules (checked like FILE), or None."""
    return rule_file(name) if name else None


# -- the game and its position ----------------------------------------------------------------------
def load_named(args, variant=None, base=None, inline=True):
    """The game named by FILE, --variant, --option and --max-turns (from `base`, the file already loaded, if
    given); a variant or option the file does not declare is a usage error. `inline`: see load_game."""
    variant = variant if variant is not None else getattr(args, "variant", None)
    options = option_values(getattr(args, "option", None))
    base = base or load_document(args.file)
    wrong = argument_problems(base, variant, options)
    if wrong:
        raise UsageError(f"{wrong[0]} ({Path(args.file).name})", wrong[1])
    return compile_game(base, args.file, variant, options, getattr(args, "max_turns", None), inline)


def start_state(game, args):
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
            raise UsageError(f"--setup {shortened(setup)}: {exc.reason}", exc.hint) from None
    return state


def jailed(fn, *args, what: str):
    """fn(*args) in a jail of its own (see jail.py), its first unit of work a load (fn: a function of a command's
    module that loads the rule file; heartbeat() names what it does after)."""
    with Jail() as jail:
        return jail.run(fn, *args, seconds=LOAD_SECONDS, what=what)


def on_backend(game, args):
    """`game` on the --backend asked for (a command that plays move by move: `auto` is the interpreter, see
    chosen_backend); which one, and why, said on stderr with --verbose, and when a backend named on the command line
    falls back."""
    asked = getattr(args, "backend", None)
    game = with_backend(game, chosen_backend(asked, whole=False))
    if say_backend(args, getattr(game, "backend_note", None) is not None):
        why = " (auto: played move by move, as fast on the interpreter)" if (asked or default_backend()) == "auto" \
            else ""
        print(f"backend: {backend_of(game)}{why}", file=sys.stderr)
    return game


def say_backend(args, fallback: bool) -> bool:
    """Whether to say which backend plays: with --verbose, or when the --backend given falls back (the default's
    falling back is said with --verbose only: most games are played on either alike)."""
    return bool(getattr(args, "verbose", False) or (fallback and getattr(args, "backend", None)))


def position_of(args):
    """In a jail: the game loaded on its --backend, then the starting position set up (a unit of work of its own)."""
    game = on_backend(load_named(args), args)
    heartbeat(f"setting up the position of {args.file}", 2 * MOVE_SECONDS)  # the start, and --setup's outcome
    return start_state(game, args)


# -- output --------------------------------------------------------------------------------------
def picture_of(state, viewer=None) -> str:
    """render_state of a state of either backend (the compiled one drawn through the Python engine's State)."""
    convert = getattr(state, "python", None)
    return render_state(convert() if convert is not None else state, viewer=viewer)


def warn(problems) -> None:
    """Print what the compiler warns of (a turn cap the rule file may not ask for), once each."""
    for problem in dict.fromkeys(problems):
        print(problem.format(), file=sys.stderr)


def tolerant_output() -> None:
    """Text the terminal cannot encode (a lone surrogate in a game's name) is escaped, not a crash."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):  # not a text stream we may reconfigure: leave it
            pass


def crash_report(exc: BaseException, argv) -> str:
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
