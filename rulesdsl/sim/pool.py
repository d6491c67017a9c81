"""Work spread over spawned worker processes, results in the order of the items, workers tied to this process."""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ..errors import RunStopped


def in_processes(work, items: list, workers: int, chunk: int | None = None):
    """Yield work(item) for each item, in the items' order, computed by `workers` processes (`work` must be a
    module-level function, or a partial of one, so that it pickles), sent `chunk` items at a time (None: a
    size from the numbers of items and workers). A worker that dies (killed, out of memory) ends the run at
    once with RunStopped; workers end when this process does."""
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_worker_start, initargs=(os.getpid(),))
    finished = False
    try:
        chunk = chunk or max(1, min(16, len(items) // (8 * workers)))
        yield from pool.map(work, items, chunksize=chunk)
        finished = True
    except BrokenProcessPool:
        raise RunStopped("a worker process stopped unexpectedly (killed, or out of memory)") from None
    finally:
        if finished:
            pool.shutdown()
        else:  # an error, Ctrl-C or a dead worker: the other workers' results are not wanted any more
            _stop(pool)


def _stop(pool) -> None:
    """Shut a process pool down now: queued work cancelled, running workers terminated."""
    processes = list((getattr(pool, "_processes", None) or {}).values())  # private, but the only handle
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=2)
        if process.is_alive():
            process.kill()


def _worker_start(parent: int) -> None:
    """A worker's initializer: it dies with its parent, and leaves Ctrl-C to the parent (which stops it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent()
    if os.getppid() != parent:  # the parent died before the tie was made
        os._exit(1)
    # the portable fallback (and a second line on Linux): a thread that notices a new parent
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="rulesdsl-parent-watch").start()


def _die_with_parent() -> None:
    """On Linux, ask the kernel to SIGKILL this process when its parent dies (prctl PR_SET_PDEATHSIG)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # no libc to ask: the watching thread remains
        pass


def _watch_parent(parent: int) -> None:
    """End this worker once its parent is gone (it is then adopted: getppid() changes)."""
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(1)
