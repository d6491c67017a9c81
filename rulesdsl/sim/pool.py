"""Work spread over jailed worker processes (jail.py), in chunks, results in the order of the items."""

from __future__ import annotations

import threading
import time

from ..errors import RunStopped
from ..jail import Jail, JobKilled, heartbeat
from ..limits import LOAD_SECONDS
from .cluster import chunk_size


def in_processes(work, items: list, workers: int, chunk: int | None = None, *, what, seconds: float, prepare=None):
    """Yield work(item) for each item, in the items' order, computed by `workers` jailed processes started for
    it (see in_jails for the rest); the processes end with the run."""
    jails = [Jail(name=f"rulesdsl-worker-{i}") for i in range(workers)]
    try:
        for jail in jails:  # now, while this process may still run one thread (see jail.py)
            jail.start()
        yield from in_jails(work, items, jails, chunk, what=what, seconds=seconds, prepare=prepare)
    finally:
        for jail in jails:
            jail.close()


def in_jails(work, items: list, jails: list, chunk: int | None = None, *, what, seconds: float, prepare=None):
    """Yield work(item) for each item, in the items' order, computed in the jails (`work`, `what` and `prepare` are
    module-level functions, or partials of them, so that they pickle). Items go `chunk` at a time (None: about
    half a second of work each, measured as it goes); each item is a unit of work of `seconds` named what(item)
    (see jail.heartbeat), and `prepare()` runs before the items of a chunk, with a load's budget (to compile
    once what every item uses). The first failure, in the items' order, is raised once the items before it are
    yielded: a job stopped by its jail raises JobKilled, a process killed from outside RunStopped."""
    pool = _Pool(work, items, jails, chunk, what, seconds, prepare)
    try:
        yield from pool.results()
    finally:
        pool.stop()


class _Pool:
    """Chunks of items handed to jails, one thread waiting on each, and their results gathered in order."""

    def __init__(self, work, items, jails, chunk, what, seconds, prepare):
        self.work, self.items, self.jails, self.chunk = work, items, jails, chunk
        self.what, self.seconds, self.prepare = what, seconds, prepare
        self.changed = threading.Condition()
        self.position, self.handed = 0, 0  # items handed out so far; chunks handed out so far
        self.done: dict = {}  # chunk number -> its results
        self.failed: dict = {}  # chunk number -> the exception it raised
        self.running: dict = {}  # jail -> the number of the chunk it is on
        self.measured = (0, 0.0)  # items of the chunk last finished, and the seconds they took
        self.stopping = False
        self.active = len(jails)  # threads still serving
        self.threads = [threading.Thread(target=self._serve, args=(jail,), daemon=True, name="rulesdsl-pool")
                        for jail in jails]
        for thread in self.threads:
            thread.start()

    def _next(self, jail):
        """(number, items) of the next chunk for `jail`, or None when none is left (called holding the lock)."""
        left = len(self.items) - self.position
        if self.stopping or self.failed or left <= 0:
            return None
        size = self.chunk or chunk_size(left, len(self.jails), *self.measured)
        part = self.items[self.position:self.position + size]
        self.position += len(part)
        number, self.handed = self.handed, self.handed + 1
        self.running[jail] = number
        return number, part

    def _serve(self, jail) -> None:
        """A thread's loop: chunk after chunk in its jail, until none is left or the run stops."""
        while True:
            with self.changed:
                taken = self._next(jail)
                if taken is None:
                    self.active -= 1
                    self.changed.notify_all()
                    return
            number, part = taken
            try:
                results, took = jail.run(_chunk, self.work, part, self.what, self.seconds, self.prepare,
                                         seconds=LOAD_SECONDS if self.prepare else self.seconds,
                                         what=f"preparing {self.what(part[0])}" if self.prepare else self.what(part[0]))
            except BaseException as exc:  # noqa: BLE001 - handed to the thread that yields the results
                with self.changed:
                    self.failed[number] = _outside(exc)
                    del self.running[jail]
                    for other, theirs in self.running.items():  # chunks after it are not wanted any more
                        if theirs > number:
                            other.cancel()
                    self.active -= 1
                    self.changed.notify_all()
                return
            with self.changed:
                self.done[number] = results
                self.measured = (len(part), took)
                del self.running[jail]
                self.changed.notify_all()

    def results(self):
        """Yield each item's result in order; raise the first failure in order."""
        number = 0
        while True:
            with self.changed:
                while number not in self.done and number not in self.failed and not self._finished(number):
                    self.changed.wait(0.5)
                if number in self.failed:
                    raise self.failed[number]
                if number not in self.done:
                    return
                results = self.done.pop(number)
            yield from results
            number += 1

    def _finished(self, number: int) -> bool:
        """Whether chunk `number` will never come: no thread serves any more, and none took it."""
        return number >= self.handed and not self.active

    def stop(self) -> None:
        """End the threads: chunks still running are cancelled (an error, Ctrl-C, or a consumer that stopped)."""
        with self.changed:
            self.stopping = True
            for jail in self.running:
                jail.cancel()
        for thread in self.threads:
            thread.join(10)


def _outside(exc: BaseException) -> BaseException:
    """A worker killed from outside stops the run (RunStopped: --resume completes it); other errors stay."""
    if isinstance(exc, JobKilled) and exc.reason == "killed":
        return RunStopped("a worker process stopped unexpectedly (killed, or out of memory)")
    return exc


def _chunk(work, items: list, what, seconds: float, prepare) -> tuple[list, float]:
    """In a jail: prepare() (under the job's own budget), then each item as a unit of work of its own; the
    results, and the processor seconds the items took."""
    if prepare is not None:
        prepare()
    start = time.thread_time()  # not process_time: with a limit of processor time set, it counts in whole ticks
    results = []
    for item in items:
        heartbeat(what(item), seconds)
        results.append(work(item))
    return results, time.thread_time() - start
