"""Run a simulation's games on a Dask distributed cluster (a scheduler address, or 'local'), in chunks."""

from __future__ import annotations

import logging
import math
import os
from concurrent.futures import CancelledError
from importlib.util import find_spec

from ..errors import RulesDslError, RunStopped

CHUNK_SECONDS = 0.5  # play per task: Dask's cost per task (a few milliseconds) stays under 1% of it
TASKS_PER_THREAD = 3  # in flight per worker thread: the one it plays and the next ones, already sent
TAIL_SHARE = 4  # a task takes at most 1/(TAIL_SHARE x threads) of the games left, so that workers finish together
RETRIES = 2  # a task whose game raised on a worker is tried again (a killed worker's tasks are moved anyway)
# A Dask worker samples its task threads' stacks every 10 ms for the dashboard's profile: games are pure Python,
# and the sampling takes the interpreter lock from them (a tenth to a fifth of their speed on a local cluster).
# Local clusters start without it; workers started by hand take DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False.
WORKER_CONFIG = {"distributed.worker.profile.enabled": False}


class ClusterError(RulesDslError):
    """The Dask cluster could not be reached or started."""


def dask_results(play_chunk, spec, indices: list[int], address: str, workers: int | None = None,
                 chunk: int | None = None, tell=None, ready=None):
    """Yield (index, line) as games finish on the cluster (in any order).

    Games go in tasks of `chunk` games each (default: about CHUNK_SECONDS of play, measured on the first
    games), with a bounded number in flight, so that neither the scheduler's cost per task nor memory grows
    with the number of games. `play_chunk(spec, indices)` gives (lines, seconds) and is pure: a task re-run
    on another worker, when its worker dies, gives the same lines. The spec carries the rules (a bundle), so
    workers need only rulesdsl itself. `tell(text)` is told where the dashboard is, if there is one;
    `ready()` is called once the cluster is started or reached, before the first game is sent.
    """
    try:
        import dask
        from dask.distributed import Client, LocalCluster, as_completed
        from distributed import KilledWorker
    except ImportError:
        raise ClusterError("--dask needs Dask: pip install 'dask[distributed]'") from None
    cluster = None
    try:
        if address == "local":  # on this machine only, on free ports (its web server even without a dashboard)
            with dask.config.set(WORKER_CONFIG):
                # silence_logs: what goes wrong in a task or a worker reaches the run as an error said here;
                # Dask's own tracebacks (a worker slow to close on a loaded machine) would only alarm
                cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1,
                                       processes=True, host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                       silence_logs=logging.CRITICAL)
            client = Client(cluster)
        else:
            client = Client(address, timeout=20)
    except (OSError, TimeoutError, ValueError) as exc:  # ValueError: an address Dask cannot read
        if cluster is not None:
            cluster.close()
        raise ClusterError(f"cannot reach the Dask scheduler at {address}: {exc} (hint: start one with "
                           "'dask scheduler' and workers with 'dask worker ADDRESS', or use --dask local)") from None
    try:
        if tell is not None and _has_dashboard(client, local=cluster is not None):
            tell(f"Dask dashboard: {client.dashboard_link}")
        if ready is not None:
            ready()
        yield from _chunked(client, as_completed(), play_chunk, spec, indices, chunk)
    except KilledWorker as exc:
        raise RunStopped(f"the workers that played one task all died (killed, or out of memory): {exc}") from None
    except (CancelledError, OSError, TimeoutError):  # the scheduler went away: the client cancels every task
        logging.getLogger("distributed.client").setLevel(logging.CRITICAL)  # its own farewell says nothing more
        raise RunStopped(f"lost the connection to the Dask scheduler at {address}") from None
    finally:
        client.close(timeout=5)
        if cluster is not None:
            cluster.close(timeout=5)


def _has_dashboard(client, local: bool) -> bool:
    """Whether the scheduler serves a dashboard: it has a web server, and (here, for a local cluster) the
    dashboard's optional package is installed."""
    if local and find_spec("bokeh") is None:
        return False
    return bool(client.scheduler_info().get("services", {}).get("dashboard"))


def chunk_size(left: int, threads: int, played: int, seconds: float) -> int:
    """Games in the next task: about CHUNK_SECONDS of play at the speed last measured (`played` games in
    `seconds`: the latest task, as a worker's first games are slower than the rest), and a small share of the
    `left` games so that the last tasks are short (down to a tenth of that); 1 until measured."""
    if not played:
        return 1
    per_game = max(seconds / played, 1e-6)
    share = max(math.ceil(left / (TAIL_SHARE * threads)), int(CHUNK_SECONDS / 10 / per_game))  # no task too short
    return max(1, min(int(CHUNK_SECONDS / per_game), share, left))


def _chunked(client, tasks, play_chunk, spec, indices: list[int], chunk: int | None):
    """Yield (index, line) from tasks of several games each, keeping at most TASKS_PER_THREAD tasks per
    worker thread in flight (`tasks`: an empty as_completed)."""
    position, played, seconds = 0, 0, 0.0

    def refill():
        nonlocal position
        threads = max(1, sum(client.nthreads().values()))  # workers may join or leave during a run
        while position < len(indices) and tasks.count() < TASKS_PER_THREAD * threads:
            size = chunk or chunk_size(len(indices) - position, threads, played, seconds)
            part = indices[position:position + size]
            position += len(part)
            tasks.add(client.submit(play_chunk, spec, part, pure=False, retries=RETRIES))

    refill()
    for future in tasks:
        lines, took = future.result()
        del future  # the cluster may forget the task's results now
        played, seconds = len(lines), took
        refill()
        for line in lines:
            yield line["index"], line
