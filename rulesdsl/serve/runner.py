"""Where the playground's rule code runs: a few jails (jail.py) taking jobs from a bounded queue.

No rule code runs in the server's own process. A job is a module-level function of serve/work.py called with plain
data (loading and checking a posted file, a game's step with its moves listed, applied, printed and drawn, a replay,
a report, a chunk of a simulation), and it runs in a jail's child process: a crash, a step of C code that never
ends or memory filled stops that child, which the next job starts again, and the thread answering the page never
waits for rule code, nor for the interpreter's lock.

A game's state lives in the jail that plays it. Each child keeps the games it compiled and the games in play it
served last (work.py), and a job names its home (the rule text it is about): it goes to the worker that last ran a
job of that home whenever that worker is free. A move found there costs the move and a round trip to the child, a
millisecond or two for the bundled games. Passing the state as JSON with each job instead would cost about as
little to read back, but the compiled game cannot travel with it, and compiling one takes 20 to 180 ms: so jobs go
home. A job whose home is busy with another, or whose child was started again, runs in another worker from the
game's record (plain data: seed, seats and moves), played back there (some 15 ms for 500 plies of a bundled game),
the game compiled first if that worker has not compiled it.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from concurrent.futures import Future

from ..budget import time_scale
from ..jail import Jail, JobKilled

_TICK = 0.05  # how often running jobs' deadlines by the clock are looked at
# a job's time by the clock: half as long again as its processor time, and a second, so that one that works is
# stopped by the jail first (a tenth and half a second past its budget), which says where it was
_CLOCK, _CLOCK_MORE = 1.5, 1.0
_START_CLOCK = 60.0  # seconds by the clock a new child may take to start and take its job up, beyond the job's own
KEPT_HOMES = 1024  # homes remembered (the latest): beyond them a job goes to any worker


class Busy(Exception):
    """Every worker is busy and the queue in front of them is full: the request is refused, to be sent again."""


class _Job:
    """A job waiting for a worker, and then in its hands."""

    __slots__ = ("future", "fn", "args", "seconds", "what", "home")

    def __init__(self, future: Future, fn, args: tuple, seconds: float, what: str, home):
        self.future, self.fn, self.args, self.seconds, self.what, self.home = future, fn, args, seconds, what, home


class _Slot:
    """A worker's job in hand: when it must end by the clock, and whether the pool stopped it for that."""

    __slots__ = ("deadline", "late", "clock", "begun")

    def __init__(self, clock: float):
        self.clock, self.begun, self.late = clock, False, False
        self.deadline = time.monotonic() + clock


class Pool:
    """`size` workers, each a thread with a jail of its own (`make()`), taking jobs from a queue that holds at most
    `queued` waiting jobs (Busy beyond that). A job is stopped when it has used `seconds` of processor time (times
    RULESDSL_TIME_SCALE: the jail sees to it, and says where the job was), or run half as long again and a second by
    the clock (the pool does: the machine is shared by every client, and a job may wait), and raises JobKilled,
    located at the rule that was running."""

    def __init__(self, size: int, queued: int, make=Jail):
        self.size, self.queued = size, queued
        self._jails = [make() for _ in range(size)]
        self._waiting: deque = deque()
        self._slots: list = [None] * size  # per worker, its _Slot while it runs a job
        self._homes: OrderedDict = OrderedDict()  # home -> the worker that last ran a job of it
        self._changed = threading.Condition()  # a job waits, a worker is free, the pool closes
        self._started = self._watching = self._closed = False

    def start(self) -> None:
        """Start the workers' children now rather than at their first jobs (a fork each while this process runs one
        thread: see jail.py), and the workers."""
        for jail in self._jails:
            jail.start()
        self._start()

    def submit(self, fn, /, *args, seconds: float, what: str, home=None) -> Future:
        """A future of fn(*args) run by a worker (by the one that last ran a job of `home`, if it is free); Busy
        when the queue is full."""
        self._start()
        future: Future = Future()
        with self._changed:
            if self._closed:
                raise RuntimeError("the pool is closed")
            if len(self._waiting) >= self.queued:
                raise Busy()
            self._waiting.append(_Job(future, fn, args, seconds, what, home))
            self._changed.notify_all()
        return future

    def full(self) -> bool:
        """Whether a job submitted now would be refused (Busy)."""
        return len(self._waiting) >= self.queued

    def close(self) -> None:
        """Stop the workers and their children; a job running is cancelled, the waiting ones too."""
        with self._changed:
            self._closed = True
            waiting, self._waiting = list(self._waiting), deque()
            self._changed.notify_all()
        for job in waiting:
            job.future.cancel()
        for jail in self._jails:
            jail.close()

    def _start(self) -> None:
        """The workers, started with the first job (not with the app)."""
        with self._changed:
            if self._started:
                return
            self._started = True
        for i in range(self.size):
            threading.Thread(target=self._work, args=(i,), name=f"rulesdsl-serve-worker-{i}", daemon=True).start()

    def _next(self, i: int) -> _Job | None:
        """The first waiting job worker `i` should take (the lock held): one of its own homes, or of none, or whose
        home is busy with another job."""
        for job in self._waiting:
            home = self._homes.get(job.home) if job.home is not None else None
            if home is None or home == i or self._slots[home] is not None:
                self._waiting.remove(job)
                return job
        return None

    def _work(self, i: int) -> None:
        jail = self._jails[i]
        while True:
            with self._changed:
                job = self._next(i)
                while job is None:
                    if self._closed:
                        return
                    self._changed.wait()
                    job = self._next(i)
                if not job.future.set_running_or_notify_cancel():  # its client has gone
                    continue
                slot = self._slots[i] = _Slot(_clock(job.seconds))
                if not self._watching:  # the deadlines are watched while a job runs
                    self._watching = True
                    threading.Thread(target=self._watch, name="rulesdsl-serve-deadlines", daemon=True).start()
            result = failure = None
            try:
                result = jail.run(job.fn, *job.args, seconds=job.seconds, what=job.what)
            except JobKilled as exc:
                failure = exc if not slot.late else JobKilled(
                    job.what, "time", exc.where, exc.rule, f"it ran longer than its {_clock(job.seconds):g} s by the "
                    "clock")
            except Exception as exc:  # noqa: BLE001 - the job's own error, for whoever waits on it
                failure = exc
            # free before the answer: the client's next job, sent as soon as it has it, finds its home free
            with self._changed:
                self._slots[i] = None
                self._went_home(job.home, i, isinstance(failure, JobKilled))
                self._changed.notify_all()  # a job left for this worker, its home, is taken now
            if failure is not None:
                job.future.set_exception(failure)
            else:
                job.future.set_result(result)

    def _went_home(self, home, i: int, killed: bool) -> None:
        """Worker `i` ran a job of `home` (the lock held): it is the home's now, unless its child was stopped (and
        with it what it held: then the home is no worker's)."""
        if home is None:
            return
        if killed:
            if self._homes.get(home) == i:
                del self._homes[home]
            return
        self._homes[home] = i
        self._homes.move_to_end(home)
        if len(self._homes) > KEPT_HOMES:
            self._homes.popitem(last=False)

    def _watch(self) -> None:
        """Cancel every job that has run longer than its time by the clock (and again, until it ends); end when no
        job runs."""
        while True:
            time.sleep(_TICK)
            now = time.monotonic()
            with self._changed:
                if all(slot is None for slot in self._slots):
                    self._watching = False
                    return
                for i, slot in enumerate(self._slots):
                    if slot is not None and not slot.begun:
                        # its time by the clock runs from when its child took it up: a new child starts first
                        if self._jails[i].begun():
                            slot.begun, slot.deadline = True, now + slot.clock
                        elif now <= slot.deadline + _START_CLOCK * time_scale():
                            continue
                    if slot is not None and now > slot.deadline:  # (no other job can start while this is held)
                        slot.late = True
                        self._jails[i].cancel()


def _clock(seconds: float) -> float:
    """How long by the clock a job of `seconds` of processor time may run."""
    return _CLOCK * seconds * time_scale() + _CLOCK_MORE
