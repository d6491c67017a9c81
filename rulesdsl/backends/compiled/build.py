"""Compiling a loaded game for the compiled backend, once per process for each printed module (its machine code read
from the on-disk cache when an earlier process compiled it: cache.py), and choosing a backend: `compiled` (an error
where the backend does not take the game), `auto` (the Python engine then, saying why), `python`."""

from __future__ import annotations

import hashlib
import os
import sys
import time
from pathlib import Path

from ...engine.rng import Rng
from ...errors import Location, Problem, RulesDslError, RulesError
from ...jail import heartbeat
from ...limits import COMPILE_SECONDS
from . import cache
from .packing import Packing
from .program import Program
from .state import CompiledGame
from .unsupported import Unsupported

BACKENDS = ("python", "compiled", "auto")
DEFAULT = "auto"  # what plays the games when no backend is named: the compiled backend where it takes the game
# auto compiles a game not compiled yet only for runs this long: a shorter run is over on the interpreter before numba
# has compiled the game (seconds to minutes, once); a game compiled before (the on-disk cache) plays compiled at once
AUTO_COMPILE_GAMES = 2_000
IF_COMPILED = "auto:if-compiled"  # (chosen_backend's, for a short run) compiled where the game is compiled already
_modules: dict = {}  # sha256 of a module's source -> its namespace, compiled (this process's)


def available() -> str | None:
    """None when numba can be imported, else why not."""
    try:
        import numba  # noqa: F401
        import numpy  # noqa: F401
    except ImportError as exc:
        return f"numba is not installed ({exc}): pip install 'rulesdsl[compiled]'"
    return None


def program_of(game):
    """The printed module of a Python Game (program.Program); Unsupported where the backend does not take it."""
    rules = game.rules
    where = lambda path: rules.where(path) if rules.where is not None and path else None  # noqa: E731
    return Program(game, Packing(game.layout, where))


def default_backend() -> str:
    """The backend when none is named: $RULESDSL_BACKEND (python, compiled or auto) when set, else auto."""
    chosen = os.environ.get("RULESDSL_BACKEND", "").strip().lower() or DEFAULT
    if chosen not in BACKENDS:
        raise RulesError([Problem(f"RULESDSL_BACKEND={chosen!r} names no backend", Location("RULESDSL_BACKEND"),
                                  f"set it to one of {', '.join(BACKENDS)}, or unset it (auto)")])
    return chosen


def chosen_backend(asked: str | None, whole: bool, games: int | None = None) -> str:
    """The backend a job runs on: `asked` (None: the default, see default_backend()); `auto` takes the compiled
    backend only for work that runs whole in compiled code (`whole`: playouts, simulations of random agents), as a
    game played move by move through the State API runs no faster there than on the interpreter, and compiling it
    first costs seconds; and for a run of fewer than AUTO_COMPILE_GAMES `games`, only where the game is compiled
    already (IF_COMPILED)."""
    asked = asked or default_backend()
    if asked != "auto":
        return asked
    if not whole:
        return "python"
    return IF_COMPILED if games is not None and games < AUTO_COMPILE_GAMES else "auto"


def random_agents_only(agents) -> bool:
    """Whether every seat's agent (a name, or an Agent) picks uniformly at random: a game of such seats is played
    whole in compiled code on the compiled backend."""
    return all((a.split(":")[0].strip() if isinstance(a, str) else getattr(a, "name", None)) == "random"
               and (isinstance(a, str) or type(a).__name__ == "RandomAgent") for a in agents)


def compile_game(game, say=None, program=None):
    """The CompiledGame of a Python Game, its functions compiled (and timed: `load_seconds`). `say(text)` is told
    once when the module is compiled here rather than read from this process or the on-disk cache. `program`: the
    game's printed module, where it is printed already (program_of)."""
    start = time.perf_counter()
    program = program or program_of(game)
    key = hashlib.sha256(program.source.encode()).hexdigest()
    functions = _modules.get(key)
    if functions is None:
        if say is not None and not cache.ready(program.source):
            say(f"compiling {_named(game)} for the compiled backend (once; cached)")
        # numba's compile time grows with the module, which the rule file sizes: a budget of its own, in a jail
        heartbeat(f"compiling {game.name} for the compiled backend", COMPILE_SECONDS)
        with cache.compiling(program.source):  # (another process compiling it: waited for, then read)
            functions = cache.load(program.source)
            if functions is None:  # no cache folder to use: compiled in memory
                functions = {"__name__": f"rulesdsl_compiled_{key[:12]}"}
                exec(compile(program.source, f"<compiled {key[:12]}>", "exec"), functions)  # noqa: S102 - printed
            compiled = CompiledGame(game, program, functions)
            _warm(compiled)
        _modules[key] = functions
    compiled = CompiledGame(game, program, functions)
    compiled.load_seconds = time.perf_counter() - start
    return compiled


def compiled_already(program) -> bool:
    """Whether a game's printed module (program_of) loads without compiling: compiled in this process, or in the
    on-disk cache."""
    source = program.source
    return hashlib.sha256(source.encode()).hexdigest() in _modules or cache.ready(source)


def _named(game) -> str:
    """How the compile notice names a game: its rule file's name (a bundled game's is the game's name)."""
    return Path(str(game.path)).stem if getattr(game, "path", None) else game.name


def _warm(game) -> None:
    """Compile every function now (numba compiles a function and all it calls at its first call; from the on-disk
    cache it reads them): a short playout from the first position, its moves listed, and a whole playout of a batch.
    A rule that fails in it fails again, located, when played."""
    seats = [Rng(2 + p) for p in range(game.num_players)]
    try:
        state = game.new_initial_state(0)
        state.playout(Rng(1), seats, limit=4)
        if not state.terminal:
            state.legal_moves()
        state.returns()
        game.playouts([0], Rng(1), seats)
    except RulesDslError:
        pass


def tell(text: str) -> None:
    """Say `text` on stderr (that a game is being compiled: it takes a while, once)."""
    print(text, file=sys.stderr, flush=True)


def with_backend(game, backend: str | None, say=tell):
    """`game` (a Python Game) on `backend`: compiled, auto (compiled where it takes the game, else Python, with
    `backend_note` saying why), python, or None (default_backend()). `say`: see compile_game."""
    backend = backend or default_backend()
    if backend not in BACKENDS and backend != IF_COMPILED:
        raise ValueError(f"unknown backend {backend!r} (backends: {', '.join(BACKENDS)})")
    if backend == "python":
        return game
    missing = available()
    if missing is None:
        try:
            program = program_of(game)
            if backend == IF_COMPILED and not compiled_already(program):
                game.backend_note = (f"python: auto compiles a game for runs of {AUTO_COMPILE_GAMES:,} games or more "
                                     "(shorter runs are over sooner on the interpreter), or with --backend compiled")
                return game
            return compile_game(game, say, program)
        except Unsupported as exc:
            if backend == "compiled":
                raise exc.error() from None
            missing = str(exc)
    elif backend == "compiled":
        raise RulesError([Problem(missing, Location(game.path), "or load the game with backend='python'")])
    game.backend_note = f"python: the compiled backend does not take it yet: {missing}"
    return game


def describe(game) -> str:
    """Which backend plays `game` (as with_backend left it) and why: for --verbose and validate."""
    if getattr(game, "backend", "python") == "compiled":
        return f"compiled (loaded in {game.load_seconds:.2f} s)"
    return getattr(game, "backend_note", None) or "python"


def takes(game) -> Unsupported | None:
    """None when the compiled backend takes `game` (a Python Game), else why not (Unsupported, located); the
    module is printed, not compiled, so this is quick."""
    missing = available()
    if missing is not None:
        return Unsupported(Location(game.path), missing)
    try:
        program_of(game)
    except Unsupported as exc:
        return exc
    return None
