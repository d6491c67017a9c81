"""Where the playground's rule code runs: a few workers taking jobs from a bounded queue, each job under a limit.

A job is a module-level function of serve/work.py called with plain data, so that the executor running it can
be a child process with hard limits (a jail) as well as the in-process one here: InProcess has the interface
of a jail (run a job with a time budget; cancel it from another thread), and Pool takes the kind of executor
to make. The in-process one stops a job by an exception raised inside its thread, as the budget watchdog does;
it cannot stop one long step of Python's own C code, which a child process can be killed in.
"""

from __future__ import annotations

import ctypes
import queue
import threading
import time
from concurrent.futures import Future

from ..budget import time_scale
from ..errors import RulesDslError

_TICK = 0.05  # how often jobs are looked at
_AGAIN = 0.5  # a stop that has not ended the job yet (it arrived in code that let it pass) is raised again after this

_set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
_set_async_exc.argtypes = (ctypes.c_ulong, ctypes.py_object)


class JobStopped(RulesDslError):
    """A job stopped before it ended: it ran out of time, or was cancelled (a stopped simulation)."""

    def __init__(self, what: str, reason: str, seconds: float = 0.0):
        self.what, self.reason, self.seconds = what, reason, seconds  # reason: 'time' or 'cancelled'
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.reason == "time":
            return f"{self.what} was stopped: it took longer than the {self.seconds:g} s allowed"
        return f"{self.what} was stopped"

    def __reduce__(self):  # travels between processes intact
        return JobStopped, (self.what, self.reason, self.seconds)


class Busy(Exception):
    """Every worker is busy and the queue in front of them is full: the request is refused, to be sent again."""


class _Stop(BaseException):
    """Raised inside a job's thread to end it: not an Exception, so no `except Exception` on the way keeps it."""


def _thread_seconds(thread_id: int) -> float:
    """The processor time a thread has used (Linux), else the clock: a job's budget counts its own work."""
    try:
        return time.clock_gettime(time.pthread_getcpuclockid(thread_id))
    except (AttributeError, OSError, OverflowError):
        return time.monotonic()


class _Job:
    __slots__ = ("thread", "what", "seconds", "started", "reason", "fired")

    def __init__(self, thread: int, what: str, seconds: float):
        self.thread, self.what, self.seconds = thread, what, seconds
        self.started, self.reason, self.fired = _thread_seconds(thread), None, 0.0


class InProcess:
    """Runs jobs in the calling thread, with the interface of a jail: run(fn, *args, seconds=, what=) returns
    fn's result, and a job that uses more than `seconds` of processor time (times RULESDSL_TIME_SCALE) or is
    cancelled from another thread raises JobStopped."""

    def __init__(self):
        self._lock = threading.Lock()
        self._job: _Job | None = None

    def run(self, fn, /, *args, seconds: float, what: str, **kwargs):
        job = _Job(threading.get_ident(), what, seconds * time_scale())
        with self._lock:
            self._job = job
        _watched.add(self)
        _ensure_watcher()
        try:
            try:
                return fn(*args, **kwargs)
            finally:
                self._end()
        except _Stop:
            self._end()  # again: the stop may have arrived inside the first call
            raise JobStopped(what, job.reason or "cancelled", job.seconds) from None

    def cancel(self) -> None:
        """Stop the running job, if any (its run() raises JobStopped)."""
        with self._lock:
            if self._job is not None:
                self._fire(self._job, "cancelled")

    def close(self) -> None:
        """Nothing to release in process (a jail ends its child here)."""

    def _fire(self, job: _Job, reason: str) -> None:
        job.reason = job.reason or reason
        job.fired = time.monotonic()
        _set_async_exc(job.thread, _Stop)

    def _end(self) -> None:
        """The job is over: never stop this thread again for it, and drop a stop raised but not yet arrived."""
        with self._lock:
            job, self._job = self._job, None
            _watched.discard(self)
            if job is not None and job.fired and job.thread == threading.get_ident():
                _absorb_stop()

    def _look(self) -> None:
        """Stop the job if it overran its budget, or raise a stop again that has not ended it yet."""
        with self._lock:
            job = self._job
            if job is None:
                return
            if job.fired:
                if time.monotonic() - job.fired > _AGAIN:
                    self._fire(job, job.reason)
            elif _thread_seconds(job.thread) - job.started > job.seconds:
                self._fire(job, "time")


class _Absorbed(BaseException):
    """Raised in a job's own thread to take the place of a stop that has not arrived (see _absorb_stop)."""


def _absorb_stop() -> None:
    """Drop a stop raised in this thread that has not arrived yet. Clearing it with a NULL exception would leave
    CPython's check for pending exceptions switched on for every thread (it is switched off only when an
    exception arrives), slowing all later Python code: so one is raised here and caught at once."""
    try:
        _set_async_exc(threading.get_ident(), _Absorbed)  # (it may arrive as this call returns)
        while True:  # the interpreter looks for pending exceptions at every jump back: it arrives here
            pass
    except _Absorbed:
        pass


_watched: set = set()  # executors running a job
_watcher: list = [None]


def _ensure_watcher() -> None:
    thread = _watcher[0]
    if thread is None or not thread.is_alive():
        thread = _watcher[0] = threading.Thread(target=_watch, name="rulesdsl-serve-jobs", daemon=True)
        thread.start()


def _watch() -> None:
    while True:
        time.sleep(_TICK)
        for executor in list(_watched):
            executor._look()


class _Slot:
    """A worker's job in hand: its executor, when it must end by the clock, and whether the pool stopped it."""

    __slots__ = ("executor", "deadline", "late")

    def __init__(self, executor, deadline: float):
        self.executor, self.deadline, self.late = executor, deadline, False


class Pool:
    """`size` workers, each with an executor of its own (`make()`: InProcess, or a jail), taking jobs in turn
    from a queue that holds at most `queued` waiting jobs (Busy beyond that). A job is stopped when it has
    run `seconds` of processor time, or as long by the clock (the machine is shared by every client)."""

    def __init__(self, size: int, queued: int, make=InProcess):
        self.size, self.make = size, make
        self._jobs: queue.Queue = queue.Queue(maxsize=queued)
        self._slots: list = [None] * size  # per worker, its _Slot while it runs a job
        self._lock = threading.Lock()  # a job is stopped for its time only while it is the one in hand
        self._started = self._watching = False

    def submit(self, fn, /, *args, seconds: float, what: str) -> Future:
        """A future of fn(*args) run by a worker; Busy when the queue is full."""
        self._start()
        future: Future = Future()
        try:
            self._jobs.put_nowait((future, fn, args, seconds, what))
        except queue.Full:
            raise Busy() from None
        return future

    def full(self) -> bool:
        """Whether a job submitted now would be refused (Busy)."""
        return self._jobs.full()

    def _start(self) -> None:
        """The workers, started with the first job (not with the app)."""
        with self._lock:
            if self._started:
                return
            self._started = True
            for i in range(self.size):
                threading.Thread(target=self._work, args=(i, self.make()), name=f"rulesdsl-serve-worker-{i}",
                                 daemon=True).start()

    def _work(self, i: int, executor) -> None:
        while True:
            future, fn, args, seconds, what = self._jobs.get()
            if not future.set_running_or_notify_cancel():  # its client has gone
                continue
            slot = _Slot(executor, time.monotonic() + seconds * time_scale())
            with self._lock:
                self._slots[i] = slot
                if not self._watching:  # the deadlines are watched while a job runs
                    self._watching = True
                    threading.Thread(target=self._watch, name="rulesdsl-serve-deadlines", daemon=True).start()
            try:
                result = executor.run(fn, *args, seconds=seconds, what=what)
            except JobStopped as exc:
                future.set_exception(JobStopped(what, "time", seconds * time_scale()) if slot.late else exc)
            except Exception as exc:  # noqa: BLE001 - the job's own error, for whoever waits on it
                future.set_exception(exc)
            except _Stop:  # a stop arriving just after its job: the worker carries on
                future.set_exception(JobStopped(what, "cancelled"))
            else:
                future.set_result(result)
            finally:
                with self._lock:
                    self._slots[i] = None

    def _watch(self) -> None:
        """Cancel every job that has run longer than its time by the clock (and again, until it ends); end when
        no job runs."""
        while True:
            time.sleep(_TICK)
            now = time.monotonic()
            with self._lock:
                if all(slot is None for slot in self._slots):
                    self._watching = False
                    return
                for slot in self._slots:
                    if slot is not None and now > slot.deadline:
                        slot.late = True
                        slot.executor.cancel()
