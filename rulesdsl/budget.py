"""Time and memory budgets for running a rule file's code: a call that overruns is interrupted where it is.

Rule code is compiled to Python, so a loop that never ends (or merely runs for hours, or fills memory)
would hold the process. The functions that run rule code (applying a move, listing moves, compiling a
file) are registered here with a budget. One watchdog thread per process looks at every thread's stack a
few times a second: when a registered call has used more processor time than its budget, or the process has grown by
more than limits.MEMORY_BYTES during it, the watchdog raises an exception inside that thread (CPython's
PyThreadState_SetAsyncExc: the exception arrives at the next bytecode, wherever the code is). Nothing is done on the calls themselves, so the budget costs play
nothing. One step of Python's own C code cannot be interrupted this way; the size limits (limits.py, checked in lang/checked.py)
keep those steps short, and a jail (jail.py) stops what they cannot.

Budgets add up. A call registered as a *total* (a game, a move) has a budget for the budgeted calls it makes
itself, together: the time of each such call counts into it, and into the totals that called it in turn (a
move's into its game's). What a total calls otherwise (an agent's look-ahead) does not count. A call whose
budget has run out is interrupted again soon if the code catches the first interruption and carries on, and
overrun() tells the code above it that its budget is spent.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
import time

from . import limits
from .errors import RulesDslError

_TICK = 0.1  # how often the watchdog looks
_REPORTING_TICK = 0.05  # how often when it reports where the rules are (see report_to)
_AGAIN = 1.0  # after a budget has run out, seconds (times the scale) before interrupting again
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
TIME_SCALE_VARIABLE = "RULESDSL_TIME_SCALE"  # multiplies every budget: for slow machines, or under a profiler

_sections: dict = {}  # code object of a registered function -> (seconds, what it does)
_totals: dict = {}  # code object of a function registered as a total -> (seconds, what it does)
_fired: dict[int, tuple[float, str]] = {}  # thread id -> the budget it overran
_fired_kind: dict[int, type] = {}  # thread id -> how it overran it (time, memory, a total)
_spent: list = [{}]  # thread id -> its running frames whose budget has run out (replaced whole at each look)
_watchdog: list = [None, None]  # the thread and the process it runs in
_locators: list = []  # functions frame -> (what it runs, Location) | None, see locate_with
_reporter: list = [None]  # told at each look what the main thread runs (see report_to)


class TimeBudgetExceeded(RulesDslError):
    """Rule code ran longer than its budget (raised inside the running code by the watchdog)."""

    _text: str | None = None  # what it said where it was raised, once it has travelled to another process

    def __str__(self) -> str:
        if self._text is not None:
            return self._text
        seconds, what = _fired.get(threading.get_ident(), (limits.MOVE_SECONDS, "this"))
        return f"{what} took longer than the {seconds:g} s allowed"

    def __reduce__(self):  # raised as a class, it says what overran only in its own thread: the words travel
        return _rebuilt, (type(self), str(self))


class MemoryBudgetExceeded(TimeBudgetExceeded):
    """Rule code made the process grow by more than limits.MEMORY_BYTES (raised inside it by the watchdog)."""

    def __str__(self) -> str:
        if self._text is not None:
            return self._text
        _, what = _fired.get(threading.get_ident(), (limits.MOVE_SECONDS, "this"))
        return f"{what} used more than the {limits.MEMORY_BYTES >> 20:,} MiB of memory allowed"


class TotalBudgetExceeded(TimeBudgetExceeded):
    """The budgeted calls of a total (a game, a move) together ran longer than its budget."""


def _rebuilt(cls, text: str) -> TimeBudgetExceeded:
    """A budget error as it was said in the process that raised it."""
    exc = cls()
    exc._text = text
    return exc


def time_scale() -> float:
    """The factor every budget is multiplied by: the environment variable RULESDSL_TIME_SCALE, else 1."""
    try:
        scale = float(os.environ.get(TIME_SCALE_VARIABLE, "1"))
    except ValueError:
        return 1.0
    return scale if scale > 0 else 1.0


def guard(fn, seconds: float, what: str) -> None:
    """Give every call of `fn` (a function, method or classmethod) a budget of `seconds` (times time_scale())."""
    fn = getattr(fn, "__func__", fn)
    _sections[fn.__code__] = (seconds, what)


def total(fn, seconds: float, what: str) -> None:
    """Give every call of `fn` a budget of `seconds` (times time_scale()) for the budgeted calls it makes itself
    (and the totals it calls, theirs), together."""
    fn = getattr(fn, "__func__", fn)
    _totals[fn.__code__] = (seconds, what)


def overrun(fn) -> bool:
    """Whether the innermost call of `fn` running in this thread has overrun its budget (its interruption was
    caught below it: code that records a failure and carries on asks this to stop instead)."""
    spent = _spent[0].get(threading.get_ident())
    if not spent:
        return False
    code = getattr(fn, "__func__", fn).__code__
    frame = sys._getframe(1)
    while frame is not None and frame.f_code is not code:
        frame = frame.f_back
    return frame is not None and frame in spent


def exhausted(ignoring=()) -> bool:
    """Whether any registered call running in this thread, however far out, has overrun its budget: work that
    records a failure and carries on (a load, for each value) asks this to stop instead when a budget around it,
    its own or a larger one, is spent. The calls of the functions `ignoring` do not count: their overrun is the
    failure being recorded, after which the work goes on."""
    spent = _spent[0].get(threading.get_ident())
    frame = sys._getframe(1) if spent else None
    ignored = {getattr(fn, "__func__", fn).__code__ for fn in ignoring}
    while frame is not None:
        if frame in spent and frame.f_code not in ignored:
            return True
        frame = frame.f_back
    return False


def spent_error() -> TimeBudgetExceeded:
    """The error of the budget this thread overran last, of its kind (time or memory): raised again by work that
    caught it, recorded it and finds, asking exhausted(), that it must stop."""
    return _fired_kind.get(threading.get_ident(), TimeBudgetExceeded)()


def locate_with(locator) -> None:
    """Register `locator(frame)`: (what the frame runs, its Location in a rule file), or None when it knows
    nothing of it. The layers that compile and run rule code register one each (this layer knows no rule file)."""
    _locators.append(locator)


def locate(frame) -> tuple | None:
    """(what, Location) of the innermost frame from `frame` outwards that a locator knows, preferring one
    located at a line; None when none is known."""
    found = None
    while frame is not None:
        for locator in _locators:
            place = locator(frame)
            if place is not None:
                if place[1] is not None and place[1].line:
                    return place
                found = found or place
        frame = frame.f_back
    return found


def report_to(reporter) -> None:
    """Have the watchdog call `reporter(place)` at each look, `place` being what the main thread runs now (see
    locate), and start it. A jail's child process does this, to say which rule was running if it is stopped; the
    watchdog then looks twice as often, so that even a rule that runs briefly before a crash is seen."""
    global _TICK
    _reporter[0] = reporter
    _TICK = _REPORTING_TICK
    ensure_watchdog()


def ensure_watchdog() -> None:
    """Start this process's watchdog if it is not running (cheap: call it whenever rule code may run)."""
    thread, pid = _watchdog
    if thread is None or pid != os.getpid() or not thread.is_alive():
        thread = threading.Thread(target=_watch, name="rulesdsl-budget", daemon=True)
        _watchdog[:] = [thread, os.getpid()]
        thread.start()


_raise_in = ctypes.pythonapi.PyThreadState_SetAsyncExc
_raise_in.argtypes = (ctypes.c_ulong, ctypes.py_object)


def _resident_bytes() -> int | None:
    """The memory this process holds now (Linux), or None where that cannot be read."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return None


def _thread_seconds(thread_id: int) -> float:
    """The processor time a thread has used (where the system tells it, as on Linux), else the time now.

    Budgets count the work a call does, not how long it waited for a processor: on a busy machine the same
    rule code takes longer by the clock, but not by its thread's processor time."""
    try:
        return time.clock_gettime(time.pthread_getcpuclockid(thread_id))
    except (AttributeError, OSError, OverflowError):  # no such clock here, or the thread has just ended
        return time.monotonic()


class _Seen:
    """What the watchdog keeps of a registered frame while it runs."""

    __slots__ = ("start", "memory", "used", "fired")

    def __init__(self, start: float, memory: int | None):
        self.start, self.memory = start, memory  # the thread's clock and the process's memory when first seen
        self.used = 0.0  # a total: the time counted into it so far
        self.fired = None  # the time used when it was last interrupted for overrunning


def _credit(top, delta: float, seen: dict, running: dict, now: float, memory) -> None:
    """Count `delta` seconds into every total that the budgeted calls on this stack were made by directly
    (and into the totals that made those, in turn)."""
    credited = set()
    frame = top
    while frame is not None:
        caller = frame.f_back
        if frame.f_code in _sections:
            while caller is not None and caller.f_code in _totals and caller not in credited:
                credited.add(caller)
                entry = running.get(caller) or seen.get(caller)
                if entry is None:  # first seen now: as for a call's own budget, its time counts from here
                    entry = _Seen(now, memory)
                else:
                    entry.used += delta
                running[caller] = entry
                caller = caller.f_back
        frame = frame.f_back


def _overran(frame, entry: _Seen, now: float, memory, scale: float):
    """The exception to raise for a registered frame whose budget has run out (again), else None."""
    code = frame.f_code
    if code in _sections:
        seconds, what = _sections[code]
        seconds *= scale
        used, kind = now - entry.start, TimeBudgetExceeded
        if memory is not None and entry.memory is not None and memory - entry.memory > limits.MEMORY_BYTES:
            entry.memory = memory  # should the code carry on, again only once it has grown as much again
            return MemoryBudgetExceeded, (seconds, what), used
    else:
        seconds, what = _totals[code]
        seconds *= scale
        used, kind = entry.used, TotalBudgetExceeded
    if used <= seconds:
        return None
    if entry.fired is not None and used - entry.fired < min(seconds, _AGAIN * scale):
        return None
    return kind, (seconds, what), used


def _watch() -> None:
    """Interrupt every thread with a registered call that has outlived its budget, or during which the
    process has grown by more than limits.MEMORY_BYTES (and, should the interrupted code catch that and carry
    on, again soon after); count the budgeted calls into their totals; tell the reporter, if any, what the
    main thread runs."""
    me = threading.get_ident()
    seen: dict = {}  # registered frame still running -> _Seen
    clocks: dict = {}  # thread id -> its clock at the previous look
    while True:
        time.sleep(_TICK)
        memory, scale = _resident_bytes(), time_scale()  # the scale may change
        running, now_clocks, spent = {}, {}, {}
        frames = sys._current_frames()
        for thread_id, top in frames.items():
            if thread_id == me:
                continue
            now = now_clocks[thread_id] = _thread_seconds(thread_id)
            if _totals:
                _credit(top, now - clocks.get(thread_id, now), seen, running, now, memory)
            overran, frame = None, top
            while frame is not None:
                code = frame.f_code
                if code in _sections or code in _totals:
                    entry = running.get(frame) or seen.get(frame) or _Seen(now, memory)
                    running[frame] = entry
                    if overran is None:  # the innermost overrun call is the one to blame
                        overran = _overran(frame, entry, now, memory, scale)
                        if overran is not None:
                            entry.fired = overran[2]
                    if entry.fired is not None:
                        spent.setdefault(thread_id, set()).add(frame)
                frame = frame.f_back
            if overran is not None:
                _fired[thread_id], _fired_kind[thread_id] = overran[1], overran[0]
                _raise_in(thread_id, overran[0])
        _spent[0] = {thread_id: frozenset(frames_) for thread_id, frames_ in spent.items()}
        seen, clocks = running, now_clocks  # frames no longer running are let go
        reporter = _reporter[0]
        if reporter is not None:
            reporter(locate(frames.get(threading.main_thread().ident)))
        frames = top = frame = None  # the stacks looked at are not kept while the watchdog sleeps
