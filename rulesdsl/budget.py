"""Time and memory budgets for running a rule file's code: a call that overruns is interrupted where it is.

Rule code is compiled to Python, so a loop that never ends (or merely runs for hours, or fills memory)
would hold the process. The functions that run rule code (applying a move, listing moves, compiling a
file) are registered here with a budget. One watchdog thread per process looks at every thread's stack a
few times a second: when a registered call has used more processor time than its budget, or the process has grown by
more than limits.MEMORY_BYTES during it, the watchdog raises an exception inside that thread (CPython's
PyThreadState_SetAsyncExc: the exception arrives at the next bytecode, wherever the code is). Nothing is done on the calls themselves, so the budget costs play
nothing. One step of Python's own C code cannot be interrupted this way; the size limits (limits.py, checked in lang/checked.py)
keep those steps short.
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
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
TIME_SCALE_VARIABLE = "RULESDSL_TIME_SCALE"  # multiplies every budget: for slow machines, or under a profiler

_sections: dict = {}  # code object of a registered function -> (seconds, what it does)
_fired: dict[int, tuple[float, str]] = {}  # thread id -> the budget it overran
_watchdog: list = [None, None]  # the thread and the process it runs in


class TimeBudgetExceeded(RulesDslError):
    """Rule code ran longer than its budget (raised inside the running code by the watchdog)."""

    def __str__(self) -> str:
        seconds, what = _fired.get(threading.get_ident(), (limits.MOVE_SECONDS, "this"))
        return f"{what} took longer than the {seconds:g} s allowed"


class MemoryBudgetExceeded(TimeBudgetExceeded):
    """Rule code made the process grow by more than limits.MEMORY_BYTES (raised inside it by the watchdog)."""

    def __str__(self) -> str:
        _, what = _fired.get(threading.get_ident(), (limits.MOVE_SECONDS, "this"))
        return f"{what} used more than the {limits.MEMORY_BYTES >> 20:,} MiB of memory allowed"


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


def ensure_watchdog() -> None:
    """Start this process's watchdog if it is not running (cheap: call it whenever rule code may run)."""
    thread, pid = _watchdog
    if thread is None or pid != os.getpid() or not thread.is_alive():
        thread = threading.Thread(target=_watch, name="rulesdsl-budget", daemon=True)
        _watchdog[:] = [thread, os.getpid()]
        thread.start()


_raise_in = ctypes.pythonapi.PyThreadState_SetAsyncExc
_raise_in.argtypes = (ctypes.c_ulong, ctypes.py_object)


def _sections_on(frame) -> list:
    """The frames on this stack that run a registered function."""
    found = []
    while frame is not None:
        if frame.f_code in _sections:
            found.append(frame)
        frame = frame.f_back
    return found


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


def _watch() -> None:
    """Interrupt every thread with a registered call that has outlived its budget, or during which the
    process has grown by more than limits.MEMORY_BYTES (and, should the interrupted code catch that and carry
    on, again each time as long again has passed)."""
    me = threading.get_ident()
    seen: dict = {}  # registered frame still running -> (its thread's clock when first seen or last fired at, memory)
    while True:
        time.sleep(_TICK)
        memory, scale = _resident_bytes(), time_scale()  # the scale may change
        running = {}
        for thread_id, top in sys._current_frames().items():
            if thread_id == me:
                continue
            now, overran = _thread_seconds(thread_id), None
            for frame in _sections_on(top):
                since, base = running[frame] = seen.get(frame, (now, memory))
                if overran is not None:  # the innermost overrun call is the one to blame
                    continue
                seconds, what = _sections[frame.f_code]
                seconds *= scale
                if now - since > seconds:
                    overran = TimeBudgetExceeded, (seconds, what)
                elif memory is not None and base is not None and memory - base > limits.MEMORY_BYTES:
                    overran = MemoryBudgetExceeded, (seconds, what)
                if overran is not None:
                    running[frame] = (now, memory)
            if overran is not None:
                _fired[thread_id] = overran[1]
                _raise_in(thread_id, overran[0])
        seen = running  # frames no longer running are let go
