"""Untrusted work run in a child process with limits the operating system enforces and the parent watches.

The budgets of budget.py stop rule code from inside its own process, precisely, but a single step of Python's own
C code cannot be interrupted that way: a crash (a value nested a million deep, hashed), a long step (comparing
huge lists), a memory blow-up inside C. A Jail runs jobs in a persistent child process that limits its own
address space (RLIMIT_AS), stack (RLIMIT_STACK, the same for threads, and the recursion limit to match) and
processor time (RLIMIT_CPU, far beyond the budgets: the kernel's own stop should all else fail), ignores Ctrl-C
(the parent handles it) and dies with its parent. The parent reads the child's processor time while it waits and
kills it (SIGKILL) when a unit of work overruns its budget, or when a single step of C code runs for longer than
a move may; a child that dies or runs out of memory is seen too. Each of these ends the job with JobKilled,
located at the rule that was running: the child says where itself when it can (out of memory or stack); else its
stack shows it (faulthandler writes the stack on a crash, or when the parent asks just before a kill, and the child
names each function generated from a rule file for the parent as it compiles it: see name_code); else the
watchdog's last look (in the child it publishes where the main thread is into memory shared with the parent: see
budget.report_to). The child is started again at the next job.

The child is a fork of this process when it runs a single thread (nothing can hold a lock a fork would copy,
and the fork costs milliseconds, where a fresh interpreter costs a third of a second), else a fresh interpreter
(servers with threads call this too). It is started here rather than by multiprocessing, so that a process that
is itself one of multiprocessing's workers may have a jail too.
"""

from __future__ import annotations

import ctypes
import faulthandler
import gc
import json
import mmap
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from multiprocessing.connection import Connection

from . import budget, limits
from .errors import Location, Problem, RulesDslError

try:
    import resource
except ImportError:  # not a Unix system: the parent's watch remains
    resource = None

_TICK = 0.05  # how often the parent looks at a running job
_GRACE = 0.5  # seconds beyond a unit's budget (and a tenth of it) before the parent kills: the watchdog inside, more
_SHARE = 0.1  # precise, answers first
# processor time a child may take to start and take up a job (a new child imports what its jobs need: seconds on a
# slow machine) before the job's own budget begins, at its first heartbeat
_STARTUP = 30.0
_MEMORY_EXIT = 86  # what a child exits with when even saying it ran out of memory fails
_NAMES_BYTES = 4 << 20  # the names of compiled code a child keeps for its parent (older games' go beyond this)
_DUMP_WAIT = 0.5  # seconds the parent waits for a child's stack before it kills it anyway
_FRAME = re.compile(r'^\s*File "(.*)", line \d+ in (.*)$')  # a frame of a stack faulthandler wrote
_FRAME_BYTES = 8192  # stack a level of Python recursion may take: the recursion limit is the stack over this
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class JobKilled(RulesDslError):
    """A job the jail stopped: `reason` is 'time', 'memory', 'crash', 'stack', 'cancelled' or 'killed' (by
    something outside: the system, a user); `where` the rule file's Location of the rule that was running (None
    when unknown), `rule` what that rule is ("move 'go' (effects)")."""

    def __init__(self, what: str, reason: str, where: Location | None = None, rule: str | None = None,
                 detail: str | None = None):
        self.what, self.reason, self.where, self.rule = what, reason, where, rule
        self.detail = detail or _SAID[reason]
        super().__init__(self.message)

    @property
    def message(self) -> str:
        return f"{self.what} was stopped: {self.detail}" + (f" (while {self.rule} ran)" if self.rule else "")

    @property
    def hint(self) -> str | None:
        return _HINTS.get(self.reason)

    def problem(self, file: str | None = None) -> Problem:
        """The stop as a Problem of a rule file (located at `file` when nothing more precise is known)."""
        where = self.where or (Location(file) if file else None)
        return Problem(self.message, where, self.hint, code="limit_exceeded", fields={"limit": "jail",
                                                                                    "reason": self.reason})

    def format(self) -> str:
        return self.problem().format()

    def __str__(self) -> str:
        return self.message

    def __reduce__(self):  # travels between processes intact
        return JobKilled, (self.what, self.reason, self.where, self.rule, self.detail)


_SAID = {"time": "it ran longer than its budget", "memory": "it needed more memory than allowed",
         "crash": "its process crashed", "stack": "it nested values or calls too deeply for its stack",
         "cancelled": "it was cancelled", "killed": "its process was killed from outside"}
_NESTED = "a value nested very deeply (a list in a list in a list...) is the likely cause: nest values less deeply"
_HINTS = {"time": "a loop that runs too long, or one step on a huge value: see 'Bounded resources' in "
                  "docs/security.md for every budget (RULESDSL_TIME_SCALE multiplies them)",
          "memory": "the rules build values too large to hold: build smaller lists, tables and strings",
          "crash": _NESTED, "stack": _NESTED,
          "killed": "something outside rulesdsl killed the process (the system, short of memory?): run it again"}


class _Record(ctypes.Structure):
    """What a child tells its parent, in memory they share: the unit of work it is on (written by heartbeat), when
    its watchdog last looked (a step of C code holds it back) and where the rules were then."""

    _fields_ = [("busy", ctypes.c_int), ("job", ctypes.c_longlong), ("unit", ctypes.c_longlong),
                ("cpu", ctypes.c_double), ("wall", ctypes.c_double), ("seconds", ctypes.c_double),
                ("what", ctypes.c_char * 240), ("tick", ctypes.c_double),
                ("where_job", ctypes.c_longlong), ("where_unit", ctypes.c_longlong),
                ("where_line", ctypes.c_int), ("where_col", ctypes.c_int),
                ("where_file", ctypes.c_char * 1024), ("where_rule", ctypes.c_char * 240)]


def _text(data: bytes, size: int) -> bytes:
    """Text shortened to fit a field of `size` bytes with its end mark (cut at a whole character)."""
    return data[:size - 1].decode("utf-8", "ignore").encode("utf-8")


# -- in the child ------------------------------------------------------------------------------------------------
class _Reporter:
    """The child's side of the shared record."""

    def __init__(self, record: _Record):
        self.record, self.place = record, None
        self.cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)[1] if resource else None
        self.scale = 1.0

    def begin(self, what: str, seconds: float) -> None:
        r = self.record
        r.busy = 1
        r.cpu, r.wall, r.seconds = time.process_time(), time.monotonic(), seconds
        r.what = _text(what.encode("utf-8", "replace"), _Record.what.size)
        r.unit += 1
        r.busy = 0
        # the kernel's own stop (SIGXCPU), far beyond the parent's, should the parent fail to stop the unit
        self.cpu_limit(None if seconds == float("inf") else r.cpu + 2 * seconds * self.scale + 10)

    def cpu_limit(self, seconds: float | None) -> None:
        """Set the soft limit of processor time at `seconds` (None: the hard limit, as between jobs)."""
        hard = self.cpu_hard
        if hard is None:
            return
        soft = hard if seconds is None else int(seconds)
        if hard != resource.RLIM_INFINITY and soft != hard:
            soft = min(soft, hard)
        try:
            resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
        except (ValueError, OSError):  # a limit the system refuses: the parent's watch remains
            pass

    def publish(self, place) -> None:
        """At each look of the watchdog: when it looked, and where the rules were (see budget.locate)."""
        r = self.record
        r.tick = time.process_time()
        if place is None:
            return
        if place != self.place:
            self.place = place
            name, where = place
            r.where_rule = _text(str(name).encode("utf-8", "replace"), _Record.where_rule.size)
            file = str(where.file if where else "").encode("utf-8", "replace")
            r.where_file = _text(file, _Record.where_file.size)
            r.where_line, r.where_col = (where.line, where.col) if where else (0, 0)
        r.where_job, r.where_unit = r.job, r.unit


_reporter: list = [None]  # set in a jail's child: heartbeat then tells the parent
_names: list = [None]  # in a jail's child: the file where it names the code it compiles (see name_code)


def name_code(entries) -> None:
    """In a jail's child, record which part of a rule file each function generated from it belongs to: `entries()`
    gives (its code's file name, its name, what the part is, its Location) for each. Should the parent stop the
    child in the middle of one, the stack the child then writes (faulthandler) names the function, and this the
    rule. Does nothing (and never calls `entries`) anywhere else."""
    fd = _names[0]
    if fd is None:
        return
    data = "".join(json.dumps([file, name, what, where.file, where.line, where.col]) + "\n"
                   for file, name, what, where in entries()).encode("utf-8", "replace")
    if os.lseek(fd, 0, os.SEEK_END) + len(data) > _NAMES_BYTES:
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
    os.write(fd, data)


def heartbeat(what: str, seconds: float) -> None:
    """A new unit of work begins (one game of a chunk, say): the parent measures its processor time from here
    against `seconds` (times budget.time_scale(); float('inf'): no budget of its own), and names it `what` if it
    is stopped. Called by job code in a jail's child; does nothing anywhere else."""
    reporter = _reporter[0]
    if reporter is not None:
        reporter.begin(what, seconds)


def _child(conn, record: _Record, dump: int, names: int, memory_bytes: int | None, stack_bytes: int | None,
           cpu_seconds: float | None, parent: int) -> None:
    """A jail's child: limits set, tied to its parent, it runs the jobs it is sent, one at a time, for ever. Its
    stacks go to the file `dump` should it crash, or the parent ask (SIGUSR1) before it stops it; the names of the
    code it compiles to the file `names`."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it stops the child itself
    faulthandler.enable(file=dump, all_threads=True)  # never on the terminal: the parent reports a crash, located
    if hasattr(faulthandler, "register"):
        faulthandler.register(signal.SIGUSR1, file=dump, all_threads=True)
    _names[0] = names
    gc.freeze()  # what a fork inherits is never collected here, so its pages stay shared with the parent
    _limit(memory_bytes, stack_bytes, cpu_seconds)
    die_with_parent(parent)
    reporter = _reporter[0] = _Reporter(record)
    budget.report_to(reporter.publish)
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):  # the parent closed the jail, or is gone
            os._exit(0)
        except Exception as exc:  # noqa: BLE001 - a job that cannot be read here (a function this process lacks)
            _send(conn, ("error", exc, traceback.format_exc()))
            continue
        number, fn, args, kwargs, seconds, what = job
        record.job = number
        reporter.scale = budget.time_scale()
        heartbeat(what, seconds)
        _send(conn, _served(fn, args, kwargs))
        reporter.cpu_limit(None)  # waiting for the next job, the watchdog's looks must not add up to a stop
        del job, fn, args, kwargs


def _spawned() -> None:
    """The start of a child that is a fresh interpreter: its arguments are on the command line (see _Child)."""
    conn, (record, dump, names), size, limits_, parent = json.loads(sys.argv[1])
    shared = mmap.mmap(record, size)
    _child(Connection(conn), _Record.from_buffer(shared), dump, names, *limits_, parent)


def _served(fn, args, kwargs) -> tuple:
    """What the parent is told of a job: its result, the error it raised, or why it had to stop (and where)."""
    try:
        return "done", fn(*args, **kwargs)
    except MemoryError as exc:  # the address space is full (RLIMIT_AS): what held it is freed on leaving this block
        return "stopped", "memory", _place(exc)
    except RecursionError as exc:  # rule code's own recursion is its error (the engine says so): this is the job's
        return "stopped", "stack", _place(exc)
    except RulesDslError as exc:
        return "error", exc, None
    except Exception as exc:  # noqa: BLE001 - a bug in rulesdsl: the parent reports it, with this traceback
        return "error", exc, traceback.format_exc()


def _send(conn, message: tuple) -> None:
    """Send a message to the parent; one that cannot be sent as it is (too deep, too large, not picklable) is
    replaced by what went wrong."""
    try:
        conn.send(message)
        return
    except RecursionError:
        message = ("stopped", "stack", None)
    except MemoryError:
        message = ("stopped", "memory", None)
    except Exception as exc:  # noqa: BLE001 - a result or error that does not pickle: a bug in rulesdsl
        message = ("error", RuntimeError(f"the job's result cannot be sent back: {type(exc).__name__}: {exc}"),
                   traceback.format_exc())
    try:
        conn.send(message)
    except MemoryError:
        os._exit(_MEMORY_EXIT)
    except OSError:  # the parent is gone
        os._exit(0)


def _place(exc: BaseException) -> tuple | None:
    """(what, Location) of the rule that was running where `exc` was raised (see budget.locate), if known."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    try:
        return budget.locate(tb.tb_frame) if tb is not None else None
    except (MemoryError, RecursionError):  # no room left to work it out
        return None


def _limit(memory_bytes: int | None, stack_bytes: int | None, cpu_seconds: float | None) -> None:
    """Set this process's limits: its address space may grow by `memory_bytes` beyond what it holds now, its stack
    (and every thread's) take `stack_bytes`, its processor time never exceed `cpu_seconds`."""
    if stack_bytes:
        threading.stack_size(max(stack_bytes, 1 << 16))
        sys.setrecursionlimit(min(sys.getrecursionlimit(), max(100, stack_bytes // _FRAME_BYTES)))
    if resource is None:
        return
    settings = []
    if memory_bytes:
        settings.append((resource.RLIMIT_AS, _address_space() + memory_bytes, True))
    if stack_bytes:
        settings.append((resource.RLIMIT_STACK, stack_bytes, False))
    if cpu_seconds:
        settings.append((resource.RLIMIT_CPU, int(cpu_seconds) + 1, True))
    for kind, value, hard_too in settings:
        _, hard = resource.getrlimit(kind)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        try:
            resource.setrlimit(kind, (value, value if hard_too else hard))
        except (ValueError, OSError):  # a limit the system refuses: the parent's watch remains
            pass


def _address_space() -> int:
    """The address space this process holds now (Linux; 0 where it cannot be read)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def die_with_parent(parent: int) -> None:
    """Tie this process to its parent (process id `parent`): it is killed when the parent dies (Linux:
    PR_SET_PDEATHSIG), and a thread ends it should it find itself adopted (elsewhere, and as a second line)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1: PR_SET_PDEATHSIG
        except (OSError, AttributeError):  # no libc to ask: the watching thread remains
            pass
    if os.getppid() != parent:  # the parent died before the tie was made
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="rulesdsl-parent-watch").start()


def _watch_parent(parent: int) -> None:
    """End this process once its parent is gone (it is then adopted: getppid() changes)."""
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(1)


# -- in the parent -----------------------------------------------------------------------------------------------
class _RemoteTraceback(Exception):
    """The traceback of an error raised in a jail's child, attached as the cause of the error raised here."""

    def __str__(self) -> str:
        return f"\n\nin the jail's child process:\n{self.args[0]}"


class _Unit:
    """The unit of work a job is on, as the parent measures it: since `start` (on the parent's clock)."""

    __slots__ = ("what", "seconds", "start", "number")

    def __init__(self, what: str, seconds: float, start: float, number: int):
        self.what, self.seconds, self.start, self.number = what, seconds, start, number


class Jail:
    """A child process that runs jobs under hard limits (see the module's docstring); a context manager too.

    One job runs at a time (run() waits for the one before); cancel() and close() may be called from any thread.
    `start`: 'fork' or 'spawn' to choose how the child is started (default: fork when this process runs one
    thread, else spawn)."""

    def __init__(self, *, memory_bytes: int | None = limits.JAIL_MEMORY_BYTES,
                 stack_bytes: int | None = limits.JAIL_STACK_BYTES, cpu_seconds: float | None = None,
                 name: str = "rulesdsl-jail", start: str | None = None):
        self.memory_bytes, self.stack_bytes, self.cpu_seconds, self.name = memory_bytes, stack_bytes, cpu_seconds, name
        self.method = start
        self._lock = threading.Lock()  # held by the running job
        self._process = self._conn = self._record = None
        self._jobs = 0
        self._stopping: str | None = None  # why the parent is killing the child: 'cancelled', or None
        self._closed = False

    # -- the child --------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the child now rather than at the first job (while this process still runs one thread, a fork)."""
        with self._lock:
            self._ensure()

    def _ensure(self) -> None:
        if self._closed:
            raise RuntimeError("this jail is closed")
        if self._process is not None:
            return
        fork = (self.method or ("fork" if _single_threaded() else "spawn")) == "fork"
        process = _Child(fork, (self.memory_bytes, self.stack_bytes, self.cpu_seconds))
        _start(process)
        self._process, self._conn, self._record = process, process.conn, process.record

    def _discard(self) -> None:
        """Kill the child (if any) and forget it: the next job starts another."""
        process = self._process
        self._process = self._conn = self._record = None
        if process is not None:
            _kill(process)
            process.close()

    # -- jobs ---------------------------------------------------------------------------------------
    def run(self, fn, /, *args, seconds: float, what: str, **kwargs):
        """fn(*args, **kwargs) in the child (fn: module-level, picklable); returns its result. A RulesDslError raised
        there is raised here as itself (any other error too, with the child's traceback as its cause). A job
        whose unit of work (see heartbeat) overruns its `seconds` of the child's processor time (times
        budget.time_scale()), runs out of memory or stack, or whose process dies, is killed and raises JobKilled
        located at the rule that was running, and so does one cancelled. The child is started again lazily."""
        with self._lock:
            self._stopping = None
            self._ensure()
            self._jobs += 1
            job = (self._jobs, fn, args, kwargs, seconds, what)
            self._process.forget_dump()  # a stack written from now on is this job's
            try:
                self._conn.send(job)
            except (OSError, EOFError):  # the child died between two jobs (killed from outside): another takes it
                self._discard()
                self._ensure()
                self._conn.send(job)
            finished = False
            try:
                kind, value = self._wait(self._jobs, seconds, what)
                finished = True
            finally:
                if not finished:  # stopped, or interrupted here (Ctrl-C): the child is mid-job, and goes
                    self._discard()
        if kind == "done":
            return value
        raise value

    def begun(self) -> bool:
        """Whether the child has taken up the job running now (until then it may be starting: see _STARTUP)."""
        record = self._record
        return record is not None and record.job == self._jobs

    def _wait(self, job: int, seconds: float, what: str) -> tuple:
        """('done', result) or ('error', exception to raise) once the child answers; JobKilled if it must stop."""
        conn, process = self._conn, self._process
        clock = _Clock(process.pid)
        unit = _Unit(what, seconds, clock.now(), 0)
        while True:
            message = None
            if conn.poll(_TICK):
                try:
                    message = conn.recv()
                except (EOFError, OSError):  # the child died: its exit says why
                    pass
            if message is not None:
                if message[0] == "done":
                    return "done", message[1]
                if message[0] == "error":
                    exc, remote = message[1], message[2]
                    if remote:
                        exc.__cause__ = _RemoteTraceback(remote)
                    return "error", exc
                unit = self._unit(unit, job, clock)
                raise self._stopped(unit, job, message[1], self._said(message[1]), message[2])
            if self._stopping is not None:
                raise self._stopped(unit, job, self._stopping)
            if process.poll() is not None:
                raise self._died(unit, job)
            unit = self._unit(unit, job, clock)
            self._check(unit, job, clock)

    def _check(self, unit: _Unit, job: int, clock: "_Clock") -> None:
        """Kill the child if its unit of work has overrun its budget, or a single step of C code has run too long."""
        scale = budget.time_scale()
        now = clock.now()
        allowed = unit.seconds * scale
        # (unit 0: the child has not taken the job up yet, and may be starting: that is not the job's time)
        limit = max(allowed, _STARTUP * scale) if unit.number == 0 else allowed
        if now - unit.start > limit * (1 + _SHARE) + _GRACE:
            said = f"its process used more than {limit:g} s of processor time before it began" if limit != allowed \
                else f"it used more than its {allowed:g} s of processor time"
            raise self._stopped(unit, job, "time", said, dump=True)
        tick = self._record.tick if clock.cpu else 0.0  # only processor time tells a long step from a wait
        step = max(limits.MOVE_SECONDS * scale, 1.0)
        if tick and now - tick > step * (1 + _SHARE) + _GRACE:
            raise self._stopped(unit, job, "time", f"one step of Python's own code ran for more than {step:g} s "
                                "of processor time", dump=True)

    def _unit(self, unit: _Unit, job: int, clock: "_Clock") -> _Unit:
        """The unit of work the child is on now, as its last heartbeat says (read whole, or not at all)."""
        r = self._record
        number = r.unit
        if r.busy or r.job != job or number == unit.number:
            return unit
        found = _Unit(r.what.decode("utf-8", "replace"), r.seconds, r.cpu if clock.cpu else r.wall, number)
        return unit if r.busy or r.unit != number else found

    def _said(self, reason: str) -> str | None:
        """What the child's own report of a stop ('memory', 'stack') says."""
        if reason == "memory" and self.memory_bytes:
            return f"it needed more than the {self.memory_bytes >> 20:,} MiB of memory allowed"
        return None

    def _died(self, unit: _Unit, job: int) -> JobKilled:
        """The stop of a job whose child died on its own (a signal, or an exit): why, from how it ended."""
        process = self._process
        process.join(1)
        code = process.poll()
        if self._stopping is not None:
            return self._stopped(unit, job, self._stopping)
        if code == _MEMORY_EXIT:
            return self._stopped(unit, job, "memory", self._said("memory"))
        if code is not None and code < 0:
            name = _signal_name(-code)
            if -code == getattr(signal, "SIGXCPU", None):
                return self._stopped(unit, job, "time", f"its processor time ran out ({name})")
            if -code in (signal.SIGKILL, signal.SIGTERM, getattr(signal, "SIGHUP", -1)):
                return self._stopped(unit, job, "killed", f"its process was killed from outside ({name})")
            return self._stopped(unit, job, "crash", f"its process crashed ({name})")
        return self._stopped(unit, job, "crash", f"its process ended unexpectedly (exit code {code})")

    def _stopped(self, unit: _Unit, job: int, reason: str, detail: str | None = None, place: tuple | None = None,
                 dump: bool = False) -> JobKilled:
        """Kill the child; the JobKilled that says so, located at the rule that was running: where the child said
        (`place`), else where its stack shows (written on a crash, or asked for first if `dump`), else where its
        watchdog last saw the rules."""
        record, process = self._record, self._process
        where, rule = None, None
        if place is None and process is not None:
            if dump:
                process.dump()
            _kill(process)  # before reading: the child writes no more
            place = process.dumped_place()
        if place is not None:
            rule, where = place
        elif record is not None:
            if record.where_job == job and record.where_file:
                file = record.where_file.decode("utf-8", "replace")
                if record.where_unit == record.unit:
                    where = Location(file, record.where_line, record.where_col)
                    rule = record.where_rule.decode("utf-8", "replace") or None
                else:  # seen in an earlier unit of this job: the file at least is this one's
                    where = Location(file)
        self._discard()
        return JobKilled(unit.what, reason, where, rule, detail)

    def cancel(self) -> None:
        """Kill the running job (from any thread): its run() raises JobKilled with reason 'cancelled'."""
        if self._lock.locked():  # a job runs (or starts: it sees this at its first look)
            self._stopping = "cancelled"
            process = self._process
            if process is not None:
                _kill(process, wait=False)

    def close(self) -> None:
        """Stop the child; a job running now is cancelled. The jail runs no more jobs."""
        self._closed = True
        self.cancel()
        with self._lock:
            self._discard()

    def __enter__(self) -> "Jail":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Clock:
    """A child's processor time as the parent reads it (Linux: /proc/PID/stat), else the time by the clock."""

    def __init__(self, pid: int):
        self.path = f"/proc/{pid}/stat"
        self.cpu = self._read() is not None

    def _read(self) -> float | None:
        try:
            with open(self.path, "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS  # utime and stime
        except (OSError, ValueError, IndexError):
            return None

    def now(self) -> float:
        if self.cpu:
            seconds = self._read()
            if seconds is not None:
                return seconds
        return time.monotonic()


def _single_threaded() -> bool:
    """Whether this process runs one thread only, counting those started outside Python (Linux)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def _kill(process, wait: bool = True) -> None:
    """SIGKILL a child process (if it still runs) and, unless told not to, reap it."""
    try:
        os.kill(process.pid, signal.SIGKILL)
    except (OSError, TypeError):  # gone already, or never started
        pass
    if wait:
        process.join(5)


class _Child:
    """A jail's child process: a fork of this one, or a fresh interpreter; the connection to it, and the record
    shared with it (memory of a file only they hold)."""

    def __init__(self, fork: bool, limits_: tuple):
        self.fork, self.limits = fork, limits_
        self.pid, self.popen, self.exitcode, self.conn, self.record = None, None, None, None, None

    def start(self) -> None:
        ours, theirs = socket.socketpair()
        size = ctypes.sizeof(_Record)
        fd, self.dump_fd, self.names_fd = (_private_fd() for _ in range(3))
        try:
            os.ftruncate(fd, size)
            self.shared = mmap.mmap(fd, size)
            self.record = _Record.from_buffer(self.shared)
            parent = os.getpid()
            if self.fork:
                for stream in (sys.stdout, sys.stderr):  # what is buffered is written once, by this process
                    try:
                        stream.flush()
                    except (AttributeError, ValueError, OSError):
                        pass
                self.pid = os.fork()
                if self.pid == 0:  # the child: it never returns from here
                    try:
                        ours.close()
                        _child(Connection(theirs.detach()), self.record, self.dump_fd, self.names_fd, *self.limits,
                               parent)
                    finally:
                        os._exit(1)
            else:
                code = "import sys; sys.path[:0] = __import__('json').loads(sys.argv[2]); " \
                       "from rulesdsl.jail import _spawned; _spawned()"
                files = [fd, self.dump_fd, self.names_fd]
                argv = json.dumps([theirs.fileno(), files, size, list(self.limits), parent])
                self.popen = subprocess.Popen([sys.executable, "-c", code, argv, json.dumps(sys.path)],
                                              pass_fds=(theirs.fileno(), *files), stdin=subprocess.DEVNULL)
                self.pid = self.popen.pid
        finally:
            os.close(fd)
            theirs.close()
        self.conn = Connection(ours.detach())

    def forget_dump(self) -> None:
        """Empty the file of the child's stacks (the child writes where the file's offset, shared, says)."""
        os.ftruncate(self.dump_fd, 0)
        os.lseek(self.dump_fd, 0, os.SEEK_SET)

    def dump(self) -> None:
        """Ask the child for its stacks (faulthandler writes them, even in the middle of a step of C code) and wait
        until they are written, or a little while."""
        if not hasattr(signal, "SIGUSR1") or self.poll() is not None:
            return
        self.forget_dump()
        try:
            os.kill(self.pid, signal.SIGUSR1)
        except OSError:
            return
        deadline, size = time.monotonic() + _DUMP_WAIT, -1
        while time.monotonic() < deadline:
            time.sleep(0.02)
            now = os.fstat(self.dump_fd).st_size
            if now and now == size:  # written, and no more coming
                return
            size = now

    def dumped_place(self) -> tuple | None:
        """(what, Location) of the innermost function generated from a rule file on the stacks the child wrote, as
        the child named it (see name_code); None when there is none."""
        try:
            dumped = os.pread(self.dump_fd, 1 << 20, 0).decode("utf-8", "replace")
            if not dumped:
                return None
            named = {}
            for line in os.pread(self.names_fd, _NAMES_BYTES, 0).decode("utf-8", "replace").splitlines():
                file, name, what, where_file, row, col = json.loads(line)
                named[file, name] = (what, Location(where_file, row, col))
        except (OSError, ValueError):  # a file cut short: nothing to go by
            return None
        for line in dumped.splitlines():
            frame = _FRAME.match(line)
            if frame and frame.groups() in named:
                return named[frame.groups()]
        return None

    def poll(self) -> int | None:
        """The exit code once the child has ended (a signal's number, negated), else None."""
        if self.exitcode is None and self.pid is not None:
            if self.popen is not None:
                self.exitcode = self.popen.poll()
            else:
                try:
                    pid, status = os.waitpid(self.pid, os.WNOHANG)
                except ChildProcessError:  # reaped by someone else: how it ended is not known
                    self.exitcode = -signal.SIGKILL
                else:
                    if pid:
                        self.exitcode = os.waitstatus_to_exitcode(status)
        return self.exitcode

    def join(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while self.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
        for fd in (self.dump_fd, self.names_fd):
            os.close(fd)
        self.record = None
        try:
            self.shared.close()
        except (AttributeError, BufferError):  # never mapped, or a view of it is still held: freed with it
            pass


def _private_fd() -> int:
    """A file descriptor of a file in memory that no other process can open."""
    if hasattr(os, "memfd_create"):
        return os.memfd_create("rulesdsl-jail")
    handle, path = tempfile.mkstemp(prefix="rulesdsl-jail-")
    os.unlink(path)
    return handle


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


# A child is tied to the thread that started it (PR_SET_PDEATHSIG fires when that thread ends), so children are
# started by the main thread, or else by one thread that lives as long as the process.
_starts: queue.Queue = queue.Queue()
_starter: list = [None]
_starter_made = threading.Lock()


def _start(process) -> None:
    """Start a child process from a thread that outlives it."""
    if threading.current_thread() is threading.main_thread():
        process.start()
        return
    with _starter_made:
        if _starter[0] is None or not _starter[0].is_alive():
            _starter[0] = threading.Thread(target=_starting, name="rulesdsl-jail-starter", daemon=True)
            _starter[0].start()
    done: queue.Queue = queue.Queue()
    _starts.put((process, done))
    failure = done.get()
    if failure is not None:
        raise failure


def _starting() -> None:
    """The starter thread: starts the processes it is given, for ever."""
    while True:
        process, done = _starts.get()
        try:
            process.start()
        except BaseException as exc:  # noqa: BLE001 - handed to the thread that asked
            done.put(exc)
        else:
            done.put(None)
