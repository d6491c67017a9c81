"""Fuzzing harness for untrusted rule files: cases, mutation operators, and forked workers that run each case
under a deadline and a memory cap.

The property checked on every case: loading (API and `rulesdsl validate`) and a short seeded random playout
end in success or a located RulesDslError -- never another exception, a traceback, a hang or a memory blow-up.
Shared by tests/test_fuzz.py (hypothesis drives the operators) and tests/fuzz_campaign.py (a seeded Random does).
"""

from __future__ import annotations

import copy
import faulthandler
import functools
import gc
import io
import json
import multiprocessing as mp
import os
import random
import re
import resource
import shutil
import signal
import tempfile
import time
import traceback
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from multiprocessing.connection import wait
from pathlib import Path

import yaml

from rulesdsl.budget import TIME_SCALE_VARIABLE

ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(__file__).resolve().parent / "fuzz_corpus"
CASE_DIR = "@CASE@"  # replaced by the case's own folder when its files are written (absolute extends paths)
PWNED = "pwned"  # a YAML tag that ran code would create this file in the case folder
MAX_DECISIONS = 200
PLAY_SECONDS = 2.0  # a playout stops early after this long (a slow game is not a hang; one slow move is)
# Limits sit above the product's own budgets as the workers scale them (BUDGET_SCALE; rulesdsl/limits.py), so
# that those budgets, not the harness, are what stops a runaway rule file.
TIMEOUT = 15.0  # CPU seconds per phase of a case (each load, each playout, the CLI run): far above the budgets
MEMORY = 3 << 30  # bytes a worker may allocate beyond what it inherits from the fork
WALL_FACTOR = 4  # a phase blocked without using CPU times out after this many times its CPU limit
BUDGET_SCALE = 0.25  # rulesdsl's budgets in the workers: 1.25 s a move, 0.75 s a load-time value, 5 s a load
# phases that take longer than TIMEOUT by nature: numba compiles a game in 5 to 25 s of processor time
PHASE_TIMEOUT = {"compile": 150.0}

# The worst outcome of a case wins: a finding outranks a timeout, which outranks an ordinary error.
RANK = {"ok": 0, "located": 1, "runtime": 2, "timeout": 3, "finding": 4}


# -- cases and outcomes ---------------------------------------------------------------------------------------

@dataclass
class Case:
    """Files (relative path -> bytes) written to a fresh folder, and the one of them to load."""

    files: dict
    main: str
    label: str = ""
    seed: int = 0
    must_reject: bool = False  # a sandbox probe: the file must not load
    marker: str | None = None  # text of a file outside the overlay's folder that must never be read
    backend: str = "python"  # compiled: load on the compiled backend too, and play both backends in lockstep

    def __repr__(self) -> str:  # the files can be megabytes: show their names and sizes only
        sizes = ", ".join(f"{n}: {len(d)} B" for n, d in list(self.files.items())[:4])
        return f"Case({self.label!r}, seed={self.seed}, main={self.main!r}, files={{{sizes}}})"

    def save(self, folder: Path, outcome: "Outcome | None" = None) -> Path:
        """Write the case's files (as they are, @CASE@ included) under `folder`, with a finding.txt saying how
        it ended and how to rerun it; returns the main file."""
        for name, data in self.files.items():
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        outcome = outcome or Outcome("ok")
        note = (f"{outcome.bucket()}\ncase: {self.label}\nseed: {self.seed}  must_reject: {self.must_reject}  "
                f"marker: {self.marker}  backend: {self.backend}\nmain: {self.main}\n"
                f"rerun: python tests/fuzz_campaign.py --replay {folder}"
                f"\n\n{outcome.detail}\n")
        (folder / "finding.txt").write_text(note, encoding="utf-8", errors="replace")
        return folder / self.main

    @classmethod
    def load(cls, folder: Path) -> "Case":
        """A case saved by save()."""
        note = (folder / "finding.txt").read_text(encoding="utf-8", errors="replace")
        field_ = lambda name: re.search(rf"^.*\b{name}: (\S*)", note, re.M).group(1)  # noqa: E731
        files = {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
                 if p.is_file() and p.name != "finding.txt"}
        marker, main = field_("marker"), Path(field_("main"))
        if main.is_absolute():  # older notes gave the full path, perhaps of a folder since moved
            tails = (Path(*main.parts[k:]) for k in range(1, len(main.parts)))
            main = next((t for t in tails if (folder / t).is_file()), Path(main.name))
        backend = re.search(r"\bbackend: (\S+)", note)  # (notes of older runs say none: python)
        return cls(files, str(main), folder.name, int(field_("seed")), field_("must_reject") == "True",
                   None if marker == "None" else marker, backend.group(1) if backend else "python")


@dataclass
class Outcome:
    """How one case ended; `key` names a distinct failure so that findings can be grouped."""

    kind: str  # ok | located | runtime | timeout | finding
    key: str = ""
    detail: str = ""
    seconds: float = 0.0

    @property
    def is_finding(self) -> bool:
        """True for anything the property forbids (timeouts included)."""
        return self.kind in ("finding", "timeout")

    def bucket(self) -> str:
        """The counter this outcome goes to in a campaign summary."""
        return f"{self.kind}: {self.key}" if self.is_finding else self.kind


def worst(outcomes) -> Outcome:
    """The most serious of several outcomes (the first of equal rank)."""
    best = Outcome("ok")
    for o in outcomes:
        if RANK[o.kind] > RANK[best.kind]:
            best = o
    return best


# -- running one case (inside the worker) -------------------------------------------------------------------

def run_case(case: Case, workdir: str, phase=lambda name: None) -> Outcome:
    """Write the case's files to a fresh folder and check it: API load and play, then the CLI; `phase(name)`
    is called as each phase starts (the parent's deadline is per phase)."""
    folder = Path(tempfile.mkdtemp(dir=workdir))
    cwd = os.getcwd()
    start = time.perf_counter()
    try:
        _write_files(case, folder)
        os.chdir(folder)  # a shell command smuggled in through a YAML tag would write PWNED here
        tempfile.tempdir = str(folder)  # the CLI's crash reports land here, and go with the folder
        path = str(folder / case.main)
        if case.backend == "compiled":
            outcome = _compiled_round(case, path, phase)
        else:
            outcome = worst([_api_round(case, path, phase), _cli_round(case, path, folder, phase)])
        if (folder / PWNED).exists():
            outcome = Outcome("finding", "code execution: a YAML tag ran a command", str(folder / PWNED))
    finally:
        os.chdir(cwd)
        tempfile.tempdir = None
        shutil.rmtree(folder, ignore_errors=True)
    outcome.seconds = time.perf_counter() - start
    return outcome


def _write_files(case: Case, folder: Path) -> None:
    """Write every file of the case, with @CASE@ replaced by the folder's absolute path."""
    for name, data in case.files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data.replace(CASE_DIR.encode(), str(folder).encode()))


def _api_round(case: Case, path: str, phase) -> Outcome:
    """Load the file and each variant it declares the way the CLI does, and play each loaded game."""
    from rulesdsl.api import load_game
    from rulesdsl.loading import load_document

    games, outcomes = [], []
    phase("load")
    base = _guard(case, lambda: games.append(load_game(path)))
    outcomes.append(base)
    if base.kind != "ok":
        return base
    if case.must_reject:
        return Outcome("finding", "sandbox: a Python dunder attribute was accepted", _probe_text(case))
    names = []
    outcomes.append(_guard(case, lambda: names.extend(_variant_names(load_document(path)))))
    for name in names:
        phase("load variant")
        outcomes.append(_guard(case, lambda name=name: games.append(load_game(path, name))))
    for game in games:
        phase("play")
        outcomes.append(_guard(case, lambda game=game: play(game, case.seed, MAX_DECISIONS // len(games))))
    return worst(outcomes)


def _variant_names(doc) -> list:
    """The variants a loaded document declares (as the CLI lists them)."""
    variants = doc.data.get("variants") if isinstance(doc.data, dict) else None
    return list(variants) if isinstance(variants, dict) else []


def play(game, seed: int, decisions: int) -> None:
    """A seeded random playout of at most `decisions` steps; then the position is drawn and scored."""
    from rulesdsl.engine.rng import Rng
    from rulesdsl.render import render_state
    from rulesdsl.sim.runner import random_step

    state = game.new_initial_state(seed)
    rng = Rng(seed)
    stop = time.monotonic() + PLAY_SECONDS
    for _ in range(decisions):
        if state.terminal or time.monotonic() > stop:
            break
        random_step(state, rng)
    render_state(state)
    state.scores()
    if state.terminal:
        state.returns()


def _compiled_round(case: Case, path: str, phase) -> Outcome:
    """Load the file, then on the compiled backend: a located error either time (the compiled backend's
    "does not take this yet" included) is fine; a game both take must play the same seeded games on both, move for
    move, and the same whole playouts."""
    from rulesdsl.api import load_game
    from rulesdsl.backends.compiled import build

    games = []
    phase("load")
    loaded = _guard(case, lambda: games.append(load_game(path)))
    if loaded.kind != "ok":
        return loaded
    phase("compile")
    compiled = _guard(case, lambda: games.append(build.with_backend(games[0], "compiled")))
    if compiled.kind != "ok":
        return compiled
    outcomes = []
    for seed in range(COMPILED_SEEDS):
        phase("play")
        outcomes.append(_lockstep(case, *games, seed))
        phase("playout")
        outcomes.append(_playouts(case, *games, seed))
    return worst(outcomes)


class _Stop(Exception):
    """A lockstep comparison ends: `outcome` says how."""

    def __init__(self, outcome: Outcome):
        super().__init__(outcome.key)
        self.outcome = outcome


def _both(case: Case, what: str, python_call, compiled_call, same: bool = True) -> tuple:
    """(python_call(), compiled_call()): both return, equal when `same`; or both fail with a located error (the
    comparison ends, _Stop); or it is a finding (_Stop)."""
    results, errors = [], []
    for call in (python_call, compiled_call):
        try:
            results.append(call())
            errors.append(None)
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - sorted out below
            results.append(None)
            errors.append(exc)
    if errors[0] is None and errors[1] is None:
        if same and results[0] != results[1]:
            raise _Stop(Outcome("finding", f"compiled: {what} differs from python's",
                                f"python:   {str(results[0])[:1500]}\ncompiled: {str(results[1])[:1500]}"))
        return tuple(results)
    outcomes = [_guard(case, _raiser(exc)) for exc in errors if exc is not None]
    found = worst(outcomes)
    if found.is_finding:
        raise _Stop(found)
    if any(_out_of_budget(exc) for exc in errors if exc is not None):
        raise _Stop(Outcome("runtime", "budget"))  # the Python engine's budgets are not the compiled code's
    if None in errors:
        backend = "python" if errors[0] is None else "compiled"
        failed = next(exc for exc in errors if exc is not None)
        raise _Stop(Outcome("finding", f"compiled: {what} failed on one backend only ({backend} did not)",
                            f"{type(failed).__name__}: {str(failed)[:2000]}"))
    raise _Stop(found)


def _raiser(exc: BaseException):
    def again():
        raise exc
    return again


def _out_of_budget(exc: BaseException) -> bool:
    """Whether an error is a budget's (time or memory), which only the Python engine keeps within a call."""
    from rulesdsl.budget import TimeBudgetExceeded

    return isinstance(exc, TimeBudgetExceeded) or isinstance(exc.__cause__, TimeBudgetExceeded) or \
        "took longer than" in str(exc) or "of memory allowed" in str(exc)


def _lockstep(case: Case, python, compiled, seed: int) -> Outcome:
    """A seeded random game on both backends at once: the same legal moves, outcomes drawn, states and returns."""
    from rulesdsl.engine.rng import Rng

    try:
        a, b = _both(case, "the first position", lambda: python.new_initial_state(seed),
                     lambda: compiled.new_initial_state(seed), same=False)
        _both(case, "the first position", a.to_json, b.to_json)
        chance_a, chance_b, pick = Rng(seed), Rng(seed), Rng(1000 + seed)
        for _ in range(COMPILED_DECISIONS):
            if _both(case, "whether the game is over", lambda: a.terminal, lambda: b.terminal)[0]:
                _both(case, "the returns", a.returns, b.returns)
                break
            _both(case, "the player to move", a.current_player, b.current_player)
            if _both(case, "whether it is chance's turn", a.is_chance_node, b.is_chance_node)[0]:
                move = _both(case, "the outcome drawn", lambda: a.sample_chance(chance_a),
                             lambda: b.sample_chance(chance_b))[0]
            else:
                legal = _both(case, "the legal moves", a.legal_moves, b.legal_moves)[0]
                if not legal:
                    break
                move = legal[pick.below(len(legal))]
            _both(case, f"applying {str(move)[:60]!r}", lambda: a.apply(move), lambda: b.apply(move))
            _both(case, f"the position after {str(move)[:60]!r}", a.to_json, b.to_json)
    except _Stop as stop:
        return stop.outcome
    return Outcome("ok")


def _playouts(case: Case, python, compiled, seed: int) -> Outcome:
    """A whole random playout, at most COMPILED_DECISIONS moves, in compiled code against the Python play loop."""
    from rulesdsl.engine.play import play, streams, uniform

    try:
        a, b = _both(case, "the first position", lambda: python.new_initial_state(seed),
                     lambda: compiled.new_initial_state(seed), same=False)
        (chance_a, seats_a), (chance_b, seats_b) = streams(seed, python.num_players), streams(seed, python.num_players)
        start = a.ply
        _both(case, "a playout", lambda: play(a, uniform, chance_a, seats_a, limit=COMPILED_DECISIONS) or a.ply - start,
              lambda: b.playout(chance_b, seats_b, limit=COMPILED_DECISIONS))
        _both(case, "the position after a playout", a.to_json, b.to_json)
        _both(case, "the streams after a playout", lambda: [s.getstate() for s in [chance_a, *seats_a]],
              lambda: [s.getstate() for s in [chance_b, *seats_b]])
        if a.terminal:
            _both(case, "the returns after a playout", a.returns, b.returns)
    except _Stop as stop:
        return stop.outcome
    return Outcome("ok")


def _cli_round(case: Case, path: str, folder: Path, phase) -> Outcome:
    """`rulesdsl validate PATH` in-process: exit code 0 or 1, and no traceback or internal error in its output."""
    from rulesdsl.cli import main

    # real stdout is strict UTF-8 and stderr backslash-escapes: a lone surrogate printed fails like in a shell
    out, err = _stream("strict"), _stream("backslashreplace")
    codes = []
    phase("cli validate")
    outcome = _guard(case, lambda: _redirected(out, err, lambda: codes.append(main(["validate", path]))))
    if outcome.kind != "ok":
        return outcome
    text = _read(out) + _read(err)
    if "Traceback" in text or "internal error" in text or codes[0] not in (0, 1):
        crash = "".join(p.read_text(errors="replace") for p in folder.glob("rulesdsl-crash-*"))
        if crash:  # the traceback the CLI saved tells where, like an exception caught by the API round
            return Outcome("finding", traceback_key(crash), (text + "\n" + crash)[-4000:])
        last = [line for line in text.splitlines() if "error" in line.lower()]
        return Outcome("finding", f"cli: exit {codes[0]}: {_normalise((last or ['?'])[0])}", text[-3000:])
    if case.marker and case.marker in text:
        return Outcome("finding", "extends: a file outside the overlay's folder was read", text[-3000:])
    return Outcome("located" if codes[0] == 1 else "ok")


def _stream(errors: str) -> io.TextIOWrapper:
    """A UTF-8 text stream over bytes, like a process's stdout or stderr."""
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors=errors, write_through=True)


def _read(stream: io.TextIOWrapper) -> str:
    """Everything written to a stream made by _stream."""
    return stream.buffer.getvalue().decode("utf-8", "replace")


def _redirected(out, err, fn) -> None:
    """Run fn with sys.stdout and sys.stderr redirected."""
    with redirect_stdout(out), redirect_stderr(err):
        fn()


def _guard(case: Case, fn) -> Outcome:
    """Run fn and classify how it ended."""
    from rulesdsl.errors import GameRuntimeError, MoveError, RulesDslError, RulesError

    try:
        fn()
    except RulesError as exc:
        return _located(case, exc)
    except (GameRuntimeError, MoveError) as exc:
        if "Traceback" in str(exc):
            return Outcome("finding", "traceback text in an error message", str(exc)[-3000:])
        return Outcome("runtime", type(exc).__name__)
    except RulesDslError as exc:
        return Outcome("runtime", type(exc).__name__)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - anything else is what we hunt for
        return exception_finding(exc)
    return Outcome("ok")


def _located(case: Case, exc) -> Outcome:
    """A RulesError is fine when each of its problems points at a file and a line inside it."""
    text = exc.format()
    if "Traceback" in text:
        return Outcome("finding", "traceback text in an error message", text[-3000:])
    if case.marker and case.marker in text:
        return Outcome("finding", "extends: a file outside the overlay's folder was read", text[-3000:])
    for p in exc.problems:
        why = _unlocated(p)
        if why:
            return Outcome("finding", f"unlocated ({why}): {_normalise(p.message)}", p.format())
    return Outcome("located")


def _unlocated(problem) -> str | None:
    """Why a problem's location is not good enough, or None."""
    loc = problem.location
    if loc is None or not loc.file:
        return "no file"
    if loc.line < 1:
        return "no line"
    lines = _line_count(loc.file)
    if lines is not None and loc.line > lines + 1:
        return "line past the end"
    return None


def _line_count(file: str) -> int | None:
    """Lines of a file as the loader counts them, or None when it cannot be read."""
    try:
        return len(Path(file).read_text(encoding="utf-8").splitlines())
    except (OSError, ValueError):
        return None


def exception_finding(exc: BaseException) -> Outcome:
    """A finding for an unexpected exception, keyed by its type and where it was raised."""
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if "/rulesdsl/" in f.filename]
    where = _frame(ours[-1]) if ours else "?"
    last = frames[-1] if frames else None
    if last is not None and "/rulesdsl/" not in last.filename:
        where += " <- " + _frame(last)
    tail = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)[-8:])
    return Outcome("finding", f"{type(exc).__name__} at {where}", tail[-4000:])


def traceback_key(text: str, recent_first: bool = False) -> str:
    """The finding key of a traceback printed as text (or of a faulthandler dump, most recent call first)."""
    frames = re.findall(r'File "([^"]+)", line \d+,? in (\S+)', text)
    if not recent_first:
        frames.reverse()
    ours = [f"{_short(p)}:{fn}" for p, fn in frames if "/rulesdsl/" in p]
    where = ours[0] if ours else "?"
    if recent_first:  # a hang: the frame above rulesdsl's own varies from one dump to the next
        return where
    if frames and "/rulesdsl/" not in frames[0][0]:
        where += f" <- {_short(frames[0][0])}:{frames[0][1]}"
    last = re.findall(r"^(\w+(?:\.\w+)*): ", text, re.M)
    return f"{(last or ['?'])[-1].rsplit('.', 1)[-1]} at {where}"


def _main_thread(dump: str) -> str:
    """The worker's main thread in a faulthandler dump of all threads (not the product's watchdog)."""
    blocks = re.split(r"^(?=(?:Current thread|Thread) 0x)", dump, flags=re.M)
    return next((b for b in blocks if " in _serve" in b), dump)


def _frame(frame) -> str:
    """module/file.py:function for a traceback frame (no line number: keys survive edits)."""
    return f"{_short(frame.filename)}:{frame.name}"


def _short(filename: str) -> str:
    """A source file's name from its package on (rulesdsl/..., yaml/...), or its base name."""
    parts = Path(filename).parts
    for anchor in ("rulesdsl", "yaml", "lark", "jsonschema"):
        if anchor in parts:
            return "/".join(parts[len(parts) - parts[::-1].index(anchor) - 1:])
    return parts[-1] if parts else filename


def _normalise(message: str) -> str:
    """A message with its quoted names and numbers blanked, so that like problems share a key."""
    message = re.sub(r"'[^']*'|\"[^\"]*\"", "'_'", message)
    message = re.sub(r"\d+", "N", message)
    return message[:90]


def _probe_text(case: Case) -> str:
    """The main file of a case, for a report."""
    return case.files[case.main].decode("utf-8", "replace")[-3000:]


# -- workers -------------------------------------------------------------------------------------------------

_WARM = False


def warm_up() -> None:
    """Import and build what every case needs once, in the parent, so each fork starts warm."""
    global _WARM
    if _WARM:
        return
    _WARM = True
    import rulesdsl.cli  # noqa: F401
    from rulesdsl.api import load_game

    try:  # only a speed-up: a broken checkout shows up in the cases, not here
        load_game(ROOT / "examples" / "tutorial" / "three-in-a-row.yaml")
    except Exception:  # noqa: BLE001
        pass


def _serve(conn, memory: int, workdir: str) -> None:
    """Worker main loop: receive a case, run it, send its outcome back."""
    # rulesdsl's own budgets, scaled well below TIMEOUT: a runaway rule file must be stopped by them (a located
    # error), and only what they cannot stop (a hang) reaches the harness's limit
    os.environ[TIME_SCALE_VARIABLE] = str(BUDGET_SCALE)
    gc.freeze()  # the parent's heap (pytest, hypothesis) is not the case's: keep collections as in a CLI process
    _limit_memory(memory)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)  # a case reading stdin gets nothing rather than blocking
    os.dup2(devnull, 1)
    log = os.open(os.path.join(workdir, f"worker-{os.getpid()}.err"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(log, 2)  # a crash's last words (e.g. 'Fatal Python error') end up here for the parent
    faulthandler.enable(file=2)  # pytest's handler would write to the terminal's own stderr
    faulthandler.register(signal.SIGUSR1, file=2)  # the parent asks where a hung case is stuck
    while True:
        try:
            case = conn.recv()
        except EOFError:
            return
        os.lseek(2, 0, os.SEEK_SET)  # the log holds the current case's last words only
        os.ftruncate(2, 0)
        try:
            outcome = run_case(case, workdir, lambda name: conn.send(("phase", name)))
        except BaseException as exc:  # noqa: BLE001 - the harness itself failed: report, do not die silently
            outcome = exception_finding(exc)
            outcome.key = "harness: " + outcome.key
        conn.send(("done", outcome))


def _limit_memory(memory: int) -> None:
    """Cap the address space at what the process has now plus `memory` bytes."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[0])
        have = pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        have = 0
    resource.setrlimit(resource.RLIMIT_AS, (have + memory, have + memory))


class Worker:
    """A forked child that runs cases; the parent kills and replaces it on a hang or a crash. By default each
    case gets a fresh fork (a few ms): its outcome then depends on the case alone, not on what ran before."""

    def __init__(self, memory: int = MEMORY, recycle: int = 1):
        warm_up()
        self.memory, self.recycle = memory, recycle
        self.workdir = tempfile.mkdtemp(prefix="rulesdsl-fuzz-")
        self.proc = self.conn = None
        self.case, self.deadline, self.started, self.served = None, 0.0, 0.0, 0
        self.timeout, self.cpu_start, self.phase, self.limit = TIMEOUT, 0.0, "", TIMEOUT

    def _start(self) -> None:
        """Fork a fresh child."""
        ctx = mp.get_context("fork")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, self.memory, self.workdir), daemon=True)
        self.proc.start()
        child.close()
        self.served = 0

    def submit(self, case: Case, timeout: float = TIMEOUT) -> None:
        """Hand a case to the child (forking one if needed)."""
        if self.proc is None or not self.proc.is_alive() or self.served >= self.recycle:
            self._stop_child()
            self._start()
        self.case, self.started, self.timeout = case, time.monotonic(), timeout
        self._begin("start")
        self.served += 1
        try:
            self.conn.send(case)
        except (BrokenPipeError, OSError):  # the child died between cases: start another
            self._stop_child()
            self._start()
            self.conn.send(case)

    def _begin(self, phase: str) -> None:
        """Start the clocks of a phase."""
        self.phase, self.cpu_start = phase, _cpu_seconds(self.proc.pid)
        self.limit = max(self.timeout, PHASE_TIMEOUT.get(phase, 0.0))
        self.deadline = time.monotonic() + self.limit * WALL_FACTOR

    def step(self) -> Outcome | None:
        """Read what the child has sent: the case's outcome once it is known (or a timeout, or a crash)."""
        try:
            while self.conn.poll():
                kind, value = self.conn.recv()
                if kind == "phase":
                    self._begin(value)
                    continue
                if value.kind == "finding":
                    self._stop_child()  # after a MemoryError or a RecursionError the child is not to be trusted
                return value
        except (EOFError, OSError):
            return self._crashed()
        if self.expired():
            where, stack = self._stack()
            self._stop_child()
            return Outcome("timeout", f"hang in {self.phase} at {where}", stack, time.monotonic() - self.started)
        return None

    def collect(self) -> Outcome:
        """The outcome of the submitted case: its result, a timeout, or a crash of the child."""
        while True:
            outcome = self.step()
            if outcome is not None:
                return outcome
            self.conn.poll(0.05)

    def expired(self) -> bool:
        """True when the phase has used its CPU time, or many times that in wall time (blocked, or a starved
        machine): counting CPU time keeps a noisy two-core machine from turning slow cases into hangs."""
        cpu = _cpu_seconds(self.proc.pid) - self.cpu_start
        return cpu > self.limit or time.monotonic() > self.deadline

    def run(self, case: Case, timeout: float = TIMEOUT) -> Outcome:
        """Run one case and wait for its outcome."""
        self.submit(case, timeout)
        return self.collect()

    def _stack(self) -> tuple[str, str]:
        """Where the hung child is (its faulthandler dump, which works even inside a long C call)."""
        log = Path(self.workdir, f"worker-{self.proc.pid}.err")
        try:
            os.kill(self.proc.pid, signal.SIGUSR1)
            time.sleep(0.3)
            dump = log.read_text(errors="replace")
        except OSError:
            return "?", ""
        main = _main_thread(dump)
        return traceback_key(main, recent_first=True), main[:3000]  # the innermost frames come first

    def _crashed(self) -> Outcome:
        """The child died without answering: report its exit status and last words."""
        self.proc.join(5)
        code = self.proc.exitcode
        log = Path(self.workdir, f"worker-{self.proc.pid}.err")
        words = log.read_text(errors="replace")[-3000:] if log.exists() else ""
        self._stop_child()
        how = f"signal {-code}" if code is not None and code < 0 else f"exit {code}"
        return Outcome("finding", f"crash: worker died ({how})", words, time.monotonic() - self.started)

    def _stop_child(self) -> None:
        """Kill the child, if any, and forget it."""
        if self.proc is not None:
            if self.proc.is_alive():
                self.proc.kill()
            self.proc.join(5)
            self.conn.close()
            Path(self.workdir, f"worker-{self.proc.pid}.err").unlink(missing_ok=True)
        self.proc = self.conn = None

    def close(self) -> None:
        """Stop the child and remove the work folder."""
        self._stop_child()
        shutil.rmtree(self.workdir, ignore_errors=True)


def _cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a process has used so far; 0 when it cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def run_many(cases, jobs: int = 1, timeout: float = TIMEOUT, memory: int = MEMORY):
    """Run cases on `jobs` workers at once; yields (case, outcome) as they finish (not in order)."""
    workers = [Worker(memory) for _ in range(jobs)]
    idle, busy = list(workers), {}
    cases = iter(cases)
    try:
        exhausted = False
        while True:
            while idle and not exhausted:
                case = next(cases, None)
                if case is None:
                    exhausted = True
                    break
                worker = idle.pop()
                worker.submit(case, timeout)
                busy[worker.conn] = worker
            if not busy:
                return
            wait(list(busy), 0.1)
            for conn, worker in list(busy.items()):
                outcome = worker.step()
                if outcome is not None:
                    del busy[conn]
                    yield worker.case, outcome
                    idle.append(worker)
    finally:
        for w in workers:
            w.close()


# -- sources --------------------------------------------------------------------------------------------------

def sources() -> dict:
    """Bundled games, example games and overlays, and the test games of moves of repeated parts (repeat:,
    one_per_position): name -> (files, main). Overlays extend bundled games by name."""
    found = {}
    for path in sorted(ROOT.glob("games/*.yaml")) + sorted(ROOT.glob("examples/*/*.yaml")) \
            + sorted(ROOT.glob("tests/parts_games/*.yaml")):
        text = path.read_text(encoding="utf-8")
        # an overlay copied to a temporary folder keeps its base by naming the bundled game
        text = re.sub(r"^extends: .*?([\w-]+)\.yaml$", r"extends: \1", text, flags=re.M)
        found[f"{path.parent.name}/{path.name}"] = ({"game.yaml": text}, "game.yaml")
    return found


SOURCES = sources()


# -- the vocabulary of the rules language --------------------------------------------------------------------

FUNCTIONS = ["abs", "all", "any", "ceil", "check", "count", "distinct", "enumerate", "first", "floor", "get",
             "has_run", "index_of", "int", "join", "keys", "last", "list", "longest_run", "max", "min", "product",
             "repeat", "reversed", "size", "sorted", "split", "str", "sum", "table", "values", "zip",
             "cell", "at", "empty", "step", "ray", "link", "walk", "route", "groups", "lines", "group_sizes",
             "can_push", "push_targets", "owned", "occupied", "pieces", "piece", "with_attr", "name_of", "seat",
             "next_seat", "can_move"]
EFFECTS = ["push", "place", "remove", "move", "move_all", "set_attr", "goto", "end_turn"]
KEYWORDS = ["and", "or", "not", "in", "if", "else", "for", "true", "false", "none"]
OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "..", "==", "!=", "<", "<=", ">", ">=", "(", ")", "[", "]",
             "{", "}", ",", ":", ".", "=", "+=", "-=", "*=", "//="]
KEYWORD_ARGS = ["default", "reverse", "cyclic", "sep", "start", "within", "key", "directions", "owner", "colour"]
DUNDERS = ["__class__", "__globals__", "__import__", "__builtins__", "__subclasses__", "__dict__", "__init__",
           "__mro__", "__code__", "__getattribute__", "__reduce__", "__base__"]
INTERNAL_NAMES = ["S", "F_max", "K0", "L_x", "V_0", "exec", "eval", "open", "os", "sys", "print", "getattr"]
HUGE = ["10**100000", "9" * 5000, "2 ** 10 ** 10", "repeat(1, 10**10)", "0..10**9", "[x for x in 0..10**9]",
        "'ab' * 10**9", "10.0 ** 400", "1/0", "str(10**5000)", "sum(0..10**9)", "-(10**100000)",
        "9" * 400 + ".5", "(-8) ** 0.5", "int('9' * 5000)", "0 ** -1", "10**10 * [1]", "join(repeat('x', 10**9))",
        "sorted(0..10**8)", "size(0..10**18)", "max(0..10**9)", "list(0..10**8)", "has_run(0..10**9, 3)"]
UNICODE = ["\u0301", "\u202e", "\u200f", "\u200b", "\ufeff", "\x00", "\U0001F3B2", "\u2028", "\x85", "\x0c",
           "\x1c", "\uff11", "\u0663", "\u01c5", "\ufb01", "\u212a", "\u0130", "\x1b[31m", "\t", "\r", "\ud800",
           "\udfff", "\U0010ffff", "\x7f", "\u0000\u0000"]
WEIRD_KEYS = ["a b", "x'y", "q\"", "\n", "", "1", "class", "true", "none", "S", "F_max", "K0", "me", "player",
              "é", "\u202e", "__class__", "__import__", "__globals__", "__builtins__", "-", "{x}", "a.b", "x" * 3000]
TAGS = ["!!python/object/apply:os.system ['touch " + PWNED + "']",
        "!!python/object/apply:subprocess.call [['touch', '" + PWNED + "']]",
        "!!python/name:os.system", "!!python/module:os", "!!binary aGVsbG8=", "!!timestamp 2001-12-14",
        "!!set {a, b}", "!!omap [a: 1]", "!!float .nan", "!!float .inf", "!!int 0x" + "f" * 3000, "!custom x",
        "!!str", "!!null x", "!!bool maybe", "!<tag:yaml.org,2002:python/object:object> {}", "!!pairs [a: 1]"]
YAML_VALUES = [".inf", "-.inf", ".nan", "9" * 5000, "-" + "9" * 5000, "0x" + "f" * 5000, "1e308", "1e999",
               "0o777777777777", "1_000_000_000", "2001-12-14", "2001-12-14t21:59:43.10-05:00", "~", "'\\ud800'",
               '"\\ud800"', '"\\x00"', '"\\U0010ffff"', "null", "yes", "on", "=", "<<"]
TOKEN = re.compile(r"""\d+\.\d+|\d+|'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|[A-Za-z_]\w*|\.\.|\*\*|//=|//|==|!=|"""
                   r"""<=|>=|\+=|-=|\*=|\S""")


# -- navigating YAML data -------------------------------------------------------------------------------------

def nodes(data, path=()):
    """Every (path, value) of a data tree, the root included."""
    yield path, data
    if isinstance(data, dict):
        for k, v in data.items():
            yield from nodes(v, path + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from nodes(v, path + (i,))


def get_at(data, path):
    """The value at a path."""
    for part in path:
        data = data[part]
    return data


def set_at(data, path, value):
    """Replace the value at a non-empty path."""
    get_at(data, path[:-1])[path[-1]] = value


def pick_node(rnd, data, want=None):
    """A random non-root (path, value), optionally one whose value passes `want`; None when there is none."""
    found = [(p, v) for p, v in nodes(data) if p and (want is None or want(v))]
    return rnd.choice(found) if found else None


_FAST_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the generator is not under test: use the fast one
_FAST_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


@functools.lru_cache(maxsize=64)
def _parsed(text: str):
    """The data of a YAML text (None when it does not parse); cached, so callers must copy it."""
    try:
        return yaml.load(text, Loader=_FAST_LOADER)  # noqa: S506 - a safe loader
    except (yaml.YAMLError, RecursionError, ValueError):
        return None


def dump(data) -> str:
    """YAML text for data (block style, unicode kept; what cannot be printed is escaped)."""
    for dumper in (_FAST_DUMPER, yaml.SafeDumper):
        try:
            return yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True, width=10 ** 9,
                             default_flow_style=False)
        except UnicodeEncodeError:  # the C emitter cannot escape lone surrogates; the Python one can
            continue
    raise AssertionError("unreachable")


# -- mutation operators ---------------------------------------------------------------------------------------

class Mutation:
    """A document being mutated: its data, raw YAML snippets standing in for placeholders, and flags."""

    def __init__(self, rnd: random.Random, text: str):
        self.rnd, self.text = rnd, text
        self.data = copy.deepcopy(_parsed(text))
        self.snippets: dict[str, str] = {}
        self.dirty = False  # data changed since the text was made

    def snippet(self, raw: str) -> str:
        """A placeholder to put in the data; it becomes `raw` YAML text when the document is dumped."""
        token = f"zzsnippet{len(self.snippets)}zz"
        self.snippets[token] = raw
        return token

    def sync(self) -> None:
        """Make the text follow the data (and the snippets) before a text-level operator runs."""
        if self.dirty and self.data is not None:
            text = dump(self.data)
            for token, raw in self.snippets.items():
                text = text.replace(token, raw)
            self.text, self.dirty = text, False

    def changed(self) -> None:
        """Note that the data changed."""
        self.dirty = True


def op_delete_key(m: Mutation) -> None:
    """Delete a random mapping key."""
    found = pick_node(m.rnd, m.data, lambda v: isinstance(v, dict) and v)
    if found:
        path, value = found
        del value[m.rnd.choice(list(value))]
        m.changed()


def op_rename_key(m: Mutation) -> None:
    """Rename a mapping key to an odd name: spaces, quotes, Python words, dunders, internal names."""
    found = pick_node(m.rnd, m.data, lambda v: isinstance(v, dict) and v)
    if found:
        value = found[1]
        old = m.rnd.choice(list(value))
        new = m.rnd.choice(WEIRD_KEYS + DUNDERS + INTERNAL_NAMES)
        items = [(new if k == old else k, v) for k, v in value.items()]
        value.clear()
        value.update(items)
        m.changed()


def op_change_type(m: Mutation) -> None:
    """Replace a value by one of another type (str, int, float, list, dict, null, bool)."""
    found = pick_node(m.rnd, m.data)
    if found:
        choices = ["x", "", 0, -1, 7, 1.5, [], [1], ["a", 2], {}, {"a": 1}, None, True, False, 10 ** 30, "none"]
        set_at(m.data, found[0], m.rnd.choice(choices))
        m.changed()


def op_expr_tokens(m: Mutation) -> None:
    """Swap, delete, duplicate or replace tokens inside an expression string."""
    found = pick_node(m.rnd, m.data, lambda v: isinstance(v, str) and v.strip())
    if found:
        set_at(m.data, found[0], mutate_tokens(m.rnd, found[1], _doc_names(m.data)))
        m.changed()


def mutate_tokens(rnd: random.Random, text: str, names=()) -> str:
    """One or a few token-level edits of an expression."""
    toks = TOKEN.findall(text) or [text]
    for _ in range(rnd.randint(1, 3)):
        i, j = rnd.randrange(len(toks)), rnd.randrange(len(toks))
        how = rnd.randrange(5)
        if how == 0:
            toks[i], toks[j] = toks[j], toks[i]
        elif how == 1 and len(toks) > 1:
            del toks[i]
        elif how == 2:
            toks.insert(i, toks[i])
        elif how == 3:
            toks[i] = rnd.choice(OPERATORS + KEYWORDS)
        else:
            toks[i] = rnd.choice(FUNCTIONS + EFFECTS + list(names) or ["x"])
        if not toks:
            toks = ["x"]
        i = min(i, len(toks) - 1)
    return " ".join(toks)


def _doc_names(data) -> list:
    """Names declared by a document (every mapping key that is a string)."""
    return sorted({p[-1] for p, _ in nodes(data) if p and isinstance(p[-1], str)})[:400]


def op_dunder(m: Mutation) -> None:
    """Replace a name in an expression by a Python dunder or internal name, or reach for an attribute."""
    found = pick_node(m.rnd, m.data, lambda v: isinstance(v, str) and re.search(r"[A-Za-z_]", v))
    if found:
        set_at(m.data, found[0], dunder_edit(m.rnd, found[1]))
        m.changed()


def dunder_edit(rnd: random.Random, text: str) -> str:
    """An expression with a name swapped for a dunder, or a dunder attribute chain appended to a name."""
    names = list(re.finditer(r"[A-Za-z_]\w*", text))
    if not names:
        return text + "." + rnd.choice(DUNDERS)
    hit = rnd.choice(names)
    how = rnd.randrange(4)
    if how == 0:
        new = rnd.choice(DUNDERS + INTERNAL_NAMES)
    elif how == 1:
        new = hit.group() + "".join("." + rnd.choice(DUNDERS) for _ in range(rnd.randint(1, 3)))
    elif how == 2:
        new = "__import__('os').system('touch " + PWNED + "')"
    else:
        new = f"getattr({hit.group()}, '__class__')"
    return text[:hit.start()] + new + text[hit.end():]


def op_unicode_value(m: Mutation) -> None:
    """Insert odd characters into a string value (escaped by the dumper where YAML cannot print them)."""
    found = pick_node(m.rnd, m.data, lambda v: isinstance(v, str))
    if found:
        set_at(m.data, found[0], insert_unicode(m.rnd, found[1]))
        m.changed()


def insert_unicode(rnd: random.Random, text: str) -> str:
    """Text with one to three odd characters inserted at random places."""
    for _ in range(rnd.randint(1, 3)):
        at = rnd.randint(0, len(text))
        text = text[:at] + rnd.choice(UNICODE) + text[at:]
    return text


def op_huge_number(m: Mutation) -> None:
    """Put a huge number, a huge range or an exponent bomb where a number or expression was."""
    found = pick_node(m.rnd, m.data, lambda v: isinstance(v, (int, float, str)) and not isinstance(v, bool))
    if not found:
        return
    path, value = found
    if isinstance(value, str) and m.rnd.random() < 0.6:
        toks = TOKEN.findall(value) or [value]
        toks[m.rnd.randrange(len(toks))] = "(" + m.rnd.choice(HUGE) + ")"
        set_at(m.data, path, " ".join(toks))
    elif m.rnd.random() < 0.5:
        set_at(m.data, path, m.rnd.choice([10 ** 9, -10 ** 9, 2 ** 63, 10 ** 18, 1e308, -1, 0]))
    else:
        set_at(m.data, path, m.snippet(m.rnd.choice(YAML_VALUES)))
    m.changed()


def op_deep_expr(m: Mutation) -> None:
    """Nest an expression deeply: parentheses, brackets, unary operators, long operator chains."""
    found = pick_node(m.rnd, m.data, lambda v: isinstance(v, str))
    if found:
        set_at(m.data, found[0], deep_expr(m.rnd, found[1] or "1"))
        m.changed()


def deep_expr(rnd: random.Random, text: str) -> str:
    """`text` buried under n levels of some nesting construct."""
    n = rnd.choice([50, 200, 1000, 3000, 20000])
    how = rnd.randrange(8)
    if how == 0:
        return "(" * n + text + ")" * n
    if how == 1:
        return "[" * n + text + "]" * n
    if how == 2:
        return "-" * n + "1"
    if how == 3:
        return "not " * n + text
    if how == 4:
        return " + ".join(["1"] * n)
    if how == 5:
        return " < ".join(["1"] * n)
    if how == 6:
        return f"1 if {text} else " * n + "0"
    return "size(" * n + "[]" + ")" * n


def op_deep_yaml(m: Mutation) -> None:
    """Replace a value by deeply nested YAML flow lists or mappings."""
    found = pick_node(m.rnd, m.data)
    if found:
        set_at(m.data, found[0], m.snippet(deep_yaml(m.rnd)))
        m.changed()


def deep_yaml(rnd: random.Random) -> str:
    """n nested flow sequences or mappings."""
    n = rnd.choice([100, 1000, 5000, 50000])
    if rnd.random() < 0.5:
        return "[" * n + "]" * n
    return "{a: " * n + "1" + "}" * n


def op_deep_effects(m: Mutation) -> None:
    """Replace an effect list (`do:`) by if/for blocks nested hundreds of levels deep."""
    found = pick_node(m.rnd, m.data, lambda v: isinstance(v, list) and v and all(isinstance(i, (str, dict)) for i in v))
    if found:
        set_at(m.data, found[0], m.snippet(deep_effects(m.rnd, found[1])))
        m.changed()


def deep_effects(rnd: random.Random, inner: list) -> str:
    """A flow-style effect list: `inner` under n nested `if` (or `for`) blocks."""
    n = rnd.choice([30, 200, 1000, 5000])
    text = json.dumps(inner, ensure_ascii=True)
    for _ in range(n):
        text = ('[{"if": "true", "then": ' + text + '}]' if rnd.random() < 0.5 else
                '[{"for": "i in 0..1", "do": ' + text + '}]')
    return text


def op_alias(m: Mutation) -> None:
    """Anchors and aliases: a billion-laughs bomb, a recursive alias, or a node shared between two places."""
    found = pick_node(m.rnd, m.data)
    if not found:
        return
    how = m.rnd.randrange(3)
    if how == 0:
        raw = alias_bomb(m.rnd.choice([4, 6, 9]))
    elif how == 1:
        raw = "&loop [*loop, 1]" if m.rnd.random() < 0.5 else "&loop {a: *loop}"
    else:
        raw = "&shared " + json.dumps(found[1], ensure_ascii=True, default=str)
        other = pick_node(m.rnd, m.data)
        set_at(m.data, found[0], m.snippet(raw))
        if other and not _related(other[0], found[0]):
            set_at(m.data, other[0], m.snippet("*shared"))
        m.changed()
        return
    set_at(m.data, found[0], m.snippet(raw))
    m.changed()


def _related(a: tuple, b: tuple) -> bool:
    """True when one path lies inside the other."""
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def alias_bomb(levels: int) -> str:
    """A flow list where every level repeats the previous one's anchor ten times."""
    parts = ["&l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, levels):
        parts.append(f"&l{i} [" + ", ".join([f"*l{i - 1}"] * 10) + "]")
    return "[" + ", ".join(parts) + "]"


def op_tag(m: Mutation) -> None:
    """Put a YAML tag on a value: Python object constructors, binary, timestamps, sets, unknown tags."""
    found = pick_node(m.rnd, m.data)
    if found:
        set_at(m.data, found[0], m.snippet(m.rnd.choice(TAGS)))
        m.changed()


def op_big_list(m: Mutation) -> None:
    """Replace a value by a very long flow list (loading limits)."""
    found = pick_node(m.rnd, m.data)
    if found:
        n = m.rnd.choice([10 ** 4, 10 ** 5, 4 * 10 ** 5])
        set_at(m.data, found[0], m.snippet("[" + "1, " * n + "1]"))
        m.changed()


def op_truncate(m: Mutation) -> None:
    """Cut the file at a random byte (possibly inside a multi-byte character)."""
    m.sync()
    raw = m.text.encode("utf-8", "surrogatepass")
    m.text = raw[: m.rnd.randint(0, len(raw))].decode("utf-8", "surrogateescape")


def op_unicode_text(m: Mutation) -> None:
    """Insert odd characters (NUL, BOM, RTL marks, line separators, stray bytes) into the raw text."""
    m.sync()
    extra = UNICODE + ["\udced", "\udcff"]  # surrogate escapes: invalid UTF-8 bytes in the file
    for _ in range(m.rnd.randint(1, 3)):
        at = m.rnd.randint(0, len(m.text))
        m.text = m.text[:at] + m.rnd.choice(extra) + m.text[at:]


def op_lines(m: Mutation) -> None:
    """Duplicate, delete, swap or re-indent a line of the raw text (a duplicated 'key:' line is a duplicate key)."""
    m.sync()
    lines = m.text.split("\n")
    i, j = m.rnd.randrange(len(lines)), m.rnd.randrange(len(lines))
    how = m.rnd.randrange(4)
    if how == 0:
        lines.insert(i, lines[i])
    elif how == 1:
        del lines[i]
    elif how == 2:
        lines[i], lines[j] = lines[j], lines[i]
    else:
        lines[i] = " " * m.rnd.choice([1, 2, 4, 7]) + lines[i]
    m.text = "\n".join(lines)


def op_duplicate_key(m: Mutation) -> None:
    """Repeat a 'key: value' line right after itself, possibly with another value."""
    m.sync()
    lines = m.text.split("\n")
    keyed = [i for i, line in enumerate(lines) if re.match(r"\s*[\w-]+:", line)]
    if keyed:
        i = m.rnd.choice(keyed)
        copy = lines[i] if m.rnd.random() < 0.5 else lines[i].split(":")[0] + ": 1"
        lines.insert(i + 1, copy)
        m.text = "\n".join(lines)


DATA_OPS = [op_delete_key, op_rename_key, op_change_type, op_expr_tokens, op_dunder, op_unicode_value,
            op_huge_number, op_deep_expr, op_deep_yaml, op_deep_effects, op_alias, op_tag, op_big_list]
TEXT_OPS = [op_truncate, op_unicode_text, op_lines, op_duplicate_key]
OPS = {op.__name__[3:]: op for op in DATA_OPS + TEXT_OPS}


def mutate_text(rnd: random.Random, text: str, ops) -> str:
    """Apply the named operators in order (data operators first, as they need parseable YAML)."""
    m = Mutation(rnd, text)
    for name in sorted(ops, key=lambda n: OPS[n] in TEXT_OPS):
        op = OPS[name]
        if op in DATA_OPS and m.data is None:
            continue
        op(m)
    m.sync()
    return m.text


def encode(text: str) -> bytes:
    """File bytes for text: surrogate escapes become the raw bytes they stand for, other lone surrogates are
    written as UTF-8 would if it allowed them (both make the file invalid UTF-8, on purpose)."""
    out = bytearray()
    for chunk in re.split("([\udc80-\udcff])", text):
        if len(chunk) == 1 and "\udc80" <= chunk <= "\udcff":
            out.append(ord(chunk) - 0xDC00)
        else:
            out += chunk.encode("utf-8", "surrogatepass")
    return bytes(out)


def mutation_case(source: str, ops, rnd: random.Random) -> Case:
    """A bundled or example rule file with the named operators applied."""
    files, main = SOURCES[source]
    text = mutate_text(rnd, files[main], ops)
    return Case({main: encode(text)}, main, f"mutate {source} {'+'.join(ops)}", rnd.randrange(1000))


# -- the expression fuzzer ------------------------------------------------------------------------------------

TEMPLATE = """\
game: Probe
players: {count: 2, names: [cross, nought]}
options:
  size: {type: int, default: 3, min: 2, max: 5}
data:
  table: {a: 1, b: 2}
  nums: [1, 2, 3]
let:
  total: "sum(nums)"
  probe: @LET@
board:
  grid: {columns: abc, rows: 3}
  directions: {east: [1, 0], north: [0, 1], northeast: [1, 1]}
  regions:
    corner: [a1, c3]
pieces:
  mark:
    attributes: {owner: [0, 1]}
    derived: {symbol: "'X' if owner == 0 else 'O'"}
zones:
  pool: {per: player, init: "repeat(piece('mark', owner=owner), 5)"}
vars:
  score: {per: player, init: 0}
  last: {init: none}
functions:
  mine:
    params: [p]
    value: @FN@
moves:
  mark:
    params:
      c: {in: cells}
@PARAMS@    let:
      here: "c.x + c.y"
@LETS@    when:
      - test: "empty(c)"
      - test: @WHEN@
    notation: "{c}"
    do:
      - "place(piece('mark', owner=me), c)"
      - @DO@
flow:
  max_turns: 12
  steps:
    play: {moves: [mark], pass: pass, next: end_turn}
end:
  - when: @END@
    winners: "[]"
  - when: "size(occupied()) == size(cells)"
    winners: "[]"
scoring:
  score: @SCORE@
"""
SLOTS = {"LET": "total + 1", "FN": "size(owned(p))", "WHEN": "true", "DO": "score[me] += 1", "END": "false",
         "SCORE": "score[me] + mine(me)"}
NAMES = ["me", "player", "players", "num_players", "turn", "cells", "corner", "table", "nums", "total", "pool",
         "score", "last", "c", "here", "p", "option.size"]
LOCAL_NAMES = {"LET": ["total", "nums", "table", "cells", "corner", "option.size", "num_players", "players"],
               "FN": ["p", "me", "cells", "score", "pool", "nums"]}


def template(slots: dict, params: str = "", lets: str = "") -> str:
    """The probe game with its expression slots filled (JSON strings are YAML double-quoted strings)."""
    text = TEMPLATE.replace("@PARAMS@", params).replace("@LETS@", lets)
    for name, default in SLOTS.items():
        text = text.replace(f"@{name}@", json.dumps(slots.get(name, default)))
    return text


def gen_expr(rnd: random.Random, names, depth: int = 4) -> str:
    """A random expression from the rules grammar over `names` (composite parts are mostly parenthesised)."""
    if depth <= 0 or rnd.random() < 0.25:
        return _leaf(rnd, names)
    sub = lambda: _wrap(rnd, gen_expr(rnd, names, depth - 1))  # noqa: E731
    how = rnd.randrange(16)
    if how == 0:
        return f"{sub()} {rnd.choice(['+', '-', '*', '/', '//', '%', '**'])} {sub()}"
    if how == 1:
        return f"{rnd.choice(['-', '+', 'not '])}{sub()}"
    if how == 2:
        ops = ["==", "!=", "<", "<=", ">", ">=", "in", "not in"]
        return " ".join([sub()] + [f"{rnd.choice(ops)} {sub()}" for _ in range(rnd.randint(1, 3))])
    if how == 3:
        return f"{sub()} {rnd.choice(['and', 'or'])} {sub()}"
    if how == 4:
        return f"{sub()} if {sub()} else {sub()}"
    if how == 5:
        return f"{sub()}..{sub()}"
    if how == 6:
        return f"{sub()}.{rnd.choice(['x', 'y', 'name', 'owner', 'kind', 'index', 'col', 'row', 'symbol'])}"
    if how == 7:
        return f"{sub()}[{sub()}]"
    if how == 8:
        return f"{sub()}[{rnd.choice(['', sub()])}:{rnd.choice(['', sub()])}]"
    if how in (9, 10):
        return _call(rnd, names, depth)
    if how == 11:
        var = rnd.choice(["i", "x", "c", "me"])
        conds = "".join(f" if {gen_expr(rnd, names + [var], depth - 1)}" for _ in range(rnd.randint(0, 1)))
        body = f"{gen_expr(rnd, names + [var], depth - 1)} for {var} in {sub()}{conds}"
        return f"[{body}]" if rnd.random() < 0.5 else f"{rnd.choice(['sum', 'any', 'all', 'count', 'max'])}({body})"
    if how == 12:
        return "[" + ", ".join(gen_expr(rnd, names, depth - 1) for _ in range(rnd.randint(0, 3))) + "]"
    if how == 13:
        return "(" + ", ".join(gen_expr(rnd, names, depth - 1) for _ in range(rnd.randint(1, 3))) + ",)"
    if how == 14:
        return "{" + ", ".join(f"{sub()}: {sub()}" for _ in range(rnd.randint(0, 2))) + "}"
    return _leaf(rnd, names)


def _wrap(rnd: random.Random, text: str) -> str:
    """Parenthesise composite text, mostly (a bare one now and then tests precedence)."""
    simple = re.fullmatch(r"[\w.']+", text) is not None
    return text if simple or rnd.random() < 0.1 else f"({text})"


def _leaf(rnd: random.Random, names) -> str:
    """A literal or a name (rarely a huge number, an odd string or a forbidden name)."""
    how = rnd.randrange(20)
    if how < 7:
        return rnd.choice(names)
    if how < 11:
        return str(rnd.choice([0, 1, 2, 3, -1, 7, 100]))
    if how < 13:
        return rnd.choice(["true", "false", "none", "0.5", "2.0"])
    if how < 15:
        return repr(rnd.choice(["a", "", "b1", "white", "play", "east", "x" * 40]))
    if how == 15:
        return rnd.choice(HUGE)
    if how == 16:
        return "'" + insert_unicode(rnd, "ab").replace("'", "") + "'"
    if how == 17:
        return rnd.choice(["'\\x00'", "'\\N{BOGUS}'", "'\\u12'", "'\\ud800'", "'\\'", "'\\\\'", "\"a'b\""])
    if how == 18:
        return rnd.choice(DUNDERS + INTERNAL_NAMES)
    return rnd.choice(["a1", "b2", "c3", "east", "north", "cross"])


def _call(rnd: random.Random, names, depth: int) -> str:
    """A call of a built-in (or of the probe game's own function, which may recurse) with 0-3 arguments."""
    if rnd.random() < 0.1:
        return f"mine({gen_expr(rnd, names, depth - 1)})"
    args = [gen_expr(rnd, names, depth - 1) for _ in range(rnd.randint(0, 3))]
    if rnd.random() < 0.3:
        args.append(f"{rnd.choice(KEYWORD_ARGS)}={gen_expr(rnd, names, depth - 1)}")
    return f"{rnd.choice(FUNCTIONS)}({', '.join(args)})"


def gen_stmt(rnd: random.Random, names, depth: int = 3) -> str:
    """A random effect statement: an assignment, an augmented assignment, or an effect call."""
    how = rnd.randrange(5)
    target = rnd.choice(["score[me]", "last", "tmp", "score[player]", "player", "score", "pool[me]", "nums[0]"])
    if how == 0:
        return f"{target} = {gen_expr(rnd, names, depth)}"
    if how == 1:
        return f"{target} {rnd.choice(['+=', '-=', '*=', '//='])} {gen_expr(rnd, names, depth)}"
    if how == 2:
        args = ", ".join(gen_expr(rnd, names, depth - 1) for _ in range(rnd.randint(0, 3)))
        return f"{rnd.choice(EFFECTS)}({args})"
    if how == 3:
        return rnd.choice(["goto('play')", "end_turn()", "move_all(pool[me], pool[next_seat(me)])",
                           "remove(c)", "set_attr(c, owner=1 - me)", "goto('nowhere')", "player = 5"])
    return gen_expr(rnd, names, depth)


def expression_case(rnd: random.Random) -> Case:
    """The probe game with one to three of its slots filled by random expressions (or statements)."""
    slots = {}
    for slot in rnd.sample(sorted(SLOTS), rnd.randint(1, 3)):
        names = LOCAL_NAMES.get(slot, NAMES)
        text = gen_stmt(rnd, names) if slot == "DO" else gen_expr(rnd, names, rnd.randint(1, 5))
        if rnd.random() < 0.15:
            text = mutate_tokens(rnd, text, NAMES)
        slots[slot] = text
    label = "expr " + "; ".join(f"{k}={v[:60]!r}" for k, v in slots.items())
    return Case({"game.yaml": encode(template(slots))}, "game.yaml", label, rnd.randrange(1000))


# -- sandbox probes -------------------------------------------------------------------------------------------

PROBES = ["str(cells[0].__class__)", "str(cells[0].__init__.__globals__)", "size(cells.__class__.__mro__)",
          "str(nums.__class__.__base__)", "get(cells[0].__init__.__globals__, '__builtins__')",
          "str(table.__class__.__dict__)", "str(cells[0].__reduce__)", "str(total.__class__)"]


def sandbox_case(rnd: random.Random) -> Case:
    """A game whose move declares dunder names as lets (which makes them 'known attributes'), then reads
    Python internals through them in a let: it must be refused at load."""
    probe = rnd.choice(PROBES)
    dunders = sorted(set(re.findall(r"__\w+?__", probe)))
    lets = "".join(f"      {d}: \"1\"\n" for d in dunders)
    text = template({"LET": probe}, lets=lets)
    return Case({"game.yaml": encode(text)}, "game.yaml", f"sandbox {probe}", rnd.randrange(1000), must_reject=True)


# -- overlays and extends -------------------------------------------------------------------------------------

EXTENDS_TARGETS = ["../private/secret.yaml", CASE_DIR + "/private/secret.yaml", "/dev/zero", "/dev/urandom", "/",
                   ".", "", "..", "mabula\x00", "../" * 40 + "etc/hostname", "x" * 5000, "mabula" + "/.." * 3,
                   "overlay.yaml", "sibling.yaml", "chain0.yaml", "games/../mabula", "file:///etc/hostname",
                   "~/mabula.yaml", "mabula.yaml/", "\\\\server\\share\\x.yaml"]
EXTENDS_VALUES = ["9" * 5000, "[mabula]", "{a: mabula}", "null", "true", "!!binary bWFidWxh", "&a mabula", "12"]


def extends_case(rnd: random.Random) -> Case:
    """An overlay in its own folder whose `extends:` points outside it, at devices, at itself, in cycles or
    down a long chain; a secret file beside the folder carries a marker that must never be shown."""
    marker = f"SECRET{rnd.randrange(10 ** 9)}"
    files = {"private/secret.yaml": template({}).replace("game: Probe", f"game: {marker}")}
    if rnd.random() < 0.85:
        target = rnd.choice(EXTENDS_TARGETS)
        overlay = f"extends: {json.dumps(target)}\ngame: Overlay\n"
    else:
        overlay = f"extends: {rnd.choice(EXTENDS_VALUES)}\ngame: Overlay\n"
    if rnd.random() < 0.5:
        overlay += "scoring:\n  score: \"1\"\n"
    files["ov/overlay.yaml"] = overlay
    files["ov/sibling.yaml"] = "extends: overlay.yaml\ngame: Sibling\n"
    depth = rnd.choice([3, 50, 400, 2000])
    for i in range(depth):
        files[f"ov/chain{i}.yaml"] = f"extends: chain{i + 1}.yaml\n" if i + 1 < depth else "extends: mabula\n"
    data = {name: encode(text) for name, text in files.items()}
    return Case(data, "ov/overlay.yaml", f"extends {overlay.splitlines()[0][:80]!r}", rnd.randrange(1000),
                marker=marker)


def overlay_case(rnd: random.Random, ops) -> Case:
    """A mutated overlay extending a bundled game, optionally with a mutated copy of its base beside it."""
    name = rnd.choice([s for s in SOURCES if s.startswith("overlays/")])
    text = mutate_text(rnd, SOURCES[name][0]["game.yaml"], ops)
    files = {"game.yaml": encode(text)}
    if rnd.random() < 0.5:
        base = re.search(r"^extends: ([\w-]+)", SOURCES[name][0]["game.yaml"], re.M).group(1)
        files["game.yaml"] = encode(re.sub(r"^extends: .*$", "extends: base.yaml", text, count=1, flags=re.M))
        files["base.yaml"] = encode(mutate_text(rnd, SOURCES[f"games/{base}.yaml"][0]["game.yaml"],
                                                rnd.sample(sorted(OPS), 1)))
    return Case(files, "game.yaml", f"overlay {name} {'+'.join(ops)}", rnd.randrange(1000))


# -- drawing cases with a seeded Random (the campaign) -------------------------------------------------------

FAMILIES = {"mutate": 50, "expression": 30, "overlay": 8, "extends": 7, "sandbox": 5}


def random_case(rnd: random.Random) -> Case:
    """One case of a family drawn by weight, built from `rnd` alone."""
    family = rnd.choices(list(FAMILIES), list(FAMILIES.values()))[0]
    if family == "mutate":
        return mutation_case(rnd.choice(sorted(SOURCES)), random_ops(rnd), rnd)
    if family == "overlay":
        return overlay_case(rnd, random_ops(rnd))
    return {"expression": expression_case, "extends": extends_case, "sandbox": sandbox_case}[family](rnd)


def random_ops(rnd: random.Random) -> list:
    """One to three operator names (the cheap, local ones more often than the bombs)."""
    bombs = ("big_list", "deep_yaml", "deep_effects", "alias", "tag", "truncate")
    weights = {name: 1 if name in bombs else 3 for name in OPS}
    return rnd.choices(list(weights), list(weights.values()), k=rnd.randint(1, 3))


# -- the compiled backend ------------------------------------------------------------------------------------

COMPILED_SOURCES = ("tutorial/three-in-a-row.yaml", "games/mabula.yaml", "games/sowing.yaml")  # games compiled
COMPILED_SEEDS = 3  # games played on both backends, move for move, and as many whole playouts
COMPILED_DECISIONS = 120  # moves of each


def op_nudge_number(m: Mutation) -> None:
    """Change a number, in the data or inside an expression, by a little or to an edge (0, -1, 2**31, 2**63)."""
    found = pick_node(m.rnd, m.data, lambda v: isinstance(v, int) and not isinstance(v, bool)
                      or isinstance(v, str) and re.search(r"\b\d{1,18}\b", v))
    if not found:
        return
    path, value = found
    new = lambda n: m.rnd.choice([n + 1, n - 1, 0, -1, -n, n * 2, 2 ** 31,  # noqa: E731
                                  2 ** 63 - 1, 2 ** 63, -2 ** 63, 99])
    if isinstance(value, int):
        set_at(m.data, path, new(value))
    else:
        numbers = list(re.finditer(r"\b\d{1,18}\b", value))  # (not a huge one: Python reads 4,300 digits)
        hit = m.rnd.choice(numbers)
        set_at(m.data, path, value[:hit.start()] + str(new(int(hit.group()))) + value[hit.end():])
    m.changed()


def op_index(m: Mutation) -> None:
    """Index a name of an expression, or a list or region, out of its range or with a negative number."""
    found = pick_node(m.rnd, m.data, lambda v: isinstance(v, str) and re.search(r"[A-Za-z_]\w*", v))
    if not found:
        return
    path, value = found
    names = list(re.finditer(r"\b[A-Za-z_]\w*\b(?!\s*\()", value))
    if not names:
        return
    hit = m.rnd.choice(names)
    index = m.rnd.choice(["0", "1", "-1", "2", "8", "-9", "100", "size(cells)", "2 ** 62", "-(2 ** 63)", "turn",
                          "me", "me - 2", "size(occupied())"])
    set_at(m.data, path, value[:hit.end()] + f"[{index}]" + value[hit.end():])
    m.changed()


OPS.update(nudge_number=op_nudge_number, index=op_index)
DATA_OPS += [op_nudge_number, op_index]
COMPILED_OPS = ("expr_tokens", "huge_number", "nudge_number", "nudge_number", "index", "index", "change_type",
                "delete_key")


def compiled_case(rnd: random.Random) -> Case:
    """A game the compiled backend takes, with expression, number and list mutations, to load on both backends."""
    source = rnd.choice(COMPILED_SOURCES)
    ops = [rnd.choice(COMPILED_OPS) for _ in range(rnd.randint(1, 2))]
    files, main = SOURCES[source]
    text = mutate_text(rnd, files[main], ops)
    return Case({main: encode(text)}, main, f"compiled {source} {'+'.join(ops)}", rnd.randrange(1000),
                backend="compiled")


def compiled_available() -> bool:
    """Whether the compiled backend can run here (numba installed)."""
    from rulesdsl.backends.compiled.build import available

    return available() is None


def warm_up_compiled() -> None:
    """Import numba and the compiled backend once in the parent, so each forked worker starts with them."""
    warm_up()
    if compiled_available():
        import numba  # noqa: F401

        import rulesdsl.backends.compiled.state  # noqa: F401


# -- the regression corpus ------------------------------------------------------------------------------------

def corpus_cases() -> list:
    """Every file of tests/fuzz_corpus/ as a case; a folder is one case whose entry is the main.yaml in it."""
    paths = sorted(CORPUS.iterdir()) if CORPUS.is_dir() else []
    return [case_from_path(p) for p in paths if p.is_dir() or p.suffix == ".yaml"]


def case_from_path(path: Path) -> Case:
    """A case from a corpus file (its first line may say 'must-reject') or a corpus folder."""
    if path.is_dir():
        files = {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}
        main = next(name for name in files if Path(name).name == "main.yaml")
        return Case(files, main, path.name, marker=_marker(files))
    text = path.read_bytes()
    first = text.split(b"\n")[0]  # what it attacks; 'must-reject' or 'backend: compiled' say how to run it
    return Case({"game.yaml": text}, "game.yaml", path.name, must_reject=b"must-reject" in first,
                backend="compiled" if b"backend: compiled" in first else "python")


def _marker(files: dict) -> str | None:
    """The secret marker of a folder case (a 'game: SECRET...' line in any file)."""
    for data in files.values():
        found = re.search(rb"game: (SECRET\w+)", data)
        if found:
            return found.group(1).decode()
    return None
