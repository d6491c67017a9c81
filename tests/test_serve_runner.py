"""Where the playground's rule code runs (serve/runner.py) and what it keeps for its clients (serve/kept.py): a
job's result and errors come back as they are, a job that overruns or is cancelled is stopped however it
catches exceptions, a full queue refuses at once, and kept items are each client's own, bounded."""

from __future__ import annotations

import threading
import time

import pytest

from rulesdsl.errors import MoveError
from rulesdsl.serve.kept import Full, Kept, NotFound
from rulesdsl.serve.runner import Busy, InProcess, JobStopped, Pool


def stubborn() -> None:
    """Rule code at its worst: a loop that never ends and swallows every error raised inside it."""
    while True:
        try:
            sum(range(1_000))
        except Exception:  # noqa: BLE001 - what generated code may not do, and the engine does in places
            pass


def doubled(x: int) -> int:
    return 2 * x


def illegal(text: str):
    raise MoveError(MoveError.ILLEGAL, text, "not now")


def test_a_job_s_result_and_error_come_back_as_they_are():
    executor = InProcess()
    assert executor.run(doubled, 21, seconds=5, what="doubling") == 42
    with pytest.raises(MoveError) as info:
        executor.run(illegal, "a1-b1", seconds=5, what="moving")
    assert (info.value.kind, info.value.reason) == ("illegal", "not now")


def test_a_job_that_overruns_its_time_is_stopped_even_if_it_catches_errors():
    executor = InProcess()
    with pytest.raises(JobStopped) as info:
        executor.run(stubborn, seconds=0.3, what="a stubborn loop")
    assert str(info.value) == "a stubborn loop was stopped: it took longer than the 0.3 s allowed"
    assert executor.run(doubled, 1, seconds=5, what="doubling") == 2  # the same thread serves the next job


def test_a_job_is_cancelled_from_another_thread():
    executor = InProcess()
    threading.Timer(0.2, executor.cancel).start()
    with pytest.raises(JobStopped) as info:
        executor.run(stubborn, seconds=600, what="a stubborn loop")
    assert (info.value.reason, str(info.value)) == ("cancelled", "a stubborn loop was stopped")
    executor.cancel()  # nothing running: nothing to stop, and the next job runs whole
    assert executor.run(doubled, 4, seconds=5, what="doubling") == 8


def test_a_pool_stops_a_job_that_runs_too_long_by_the_clock():
    def napping():
        while True:
            time.sleep(0.01)  # uses no processor time: only the clock can stop it
    pool = Pool(1, 1)
    with pytest.raises(JobStopped) as info:
        pool.submit(napping, seconds=0.3, what="a nap").result(timeout=60)
    assert str(info.value) == "a nap was stopped: it took longer than the 0.3 s allowed"
    assert pool.submit(doubled, 5, seconds=5, what="doubling").result(timeout=60) == 10


def test_a_full_queue_refuses_at_once_and_the_pool_serves_again_after():
    pool = Pool(1, 2)
    first = pool.submit(stubborn, seconds=1.0, what="a stubborn loop")
    for _ in range(200):  # the worker takes the first job: the queue is empty again
        if first.running():
            break
        time.sleep(0.01)
    waiting = [pool.submit(doubled, n, seconds=5, what="doubling") for n in (1, 2)]
    with pytest.raises(Busy):
        pool.submit(doubled, 3, seconds=5, what="doubling")
    with pytest.raises(JobStopped):
        first.result(timeout=60)
    assert [job.result(timeout=60) for job in waiting] == [2, 4]


def test_kept_items_are_their_client_s_alone():
    kept = Kept(per_client=2, total=10, idle=3_600)
    token = kept.add("alice", "her game")
    assert kept.get("alice", token) == "her game" and len(token) >= 32
    for client, guess in (("bob", token), ("alice", token[:-1]), ("alice", 1), ("alice", None)):
        with pytest.raises(NotFound):
            kept.get(client, guess)


def test_a_client_s_new_item_lets_its_own_least_recently_used_go():
    kept = Kept(per_client=2, total=10, idle=3_600)
    first, second = kept.add("alice", 1), kept.add("alice", 2)
    kept.get("alice", first)  # used again: now the second is the least recently used
    kept.add("alice", 3)
    assert kept.get("alice", first) == 1
    with pytest.raises(NotFound):
        kept.get("alice", second)


def test_a_full_table_refuses_new_items_rather_than_drop_others():
    kept = Kept(per_client=5, total=2, idle=3_600)
    theirs = [kept.add("alice", n) for n in (1, 2)]
    with pytest.raises(Full):
        kept.add("bob", 3)
    assert [kept.get("alice", token) for token in theirs] == [1, 2]
    idle = Kept(per_client=5, total=2, idle=0.0)
    first = idle.add("alice", 1)
    idle.add("alice", 2)
    idle.add("bob", 3)  # unused for longer than `idle`: the least recently used makes room
    with pytest.raises(NotFound):
        idle.get("alice", first)


def test_busy_items_are_never_let_go():
    kept = Kept(per_client=1, total=5, idle=0.0, busy=lambda item: item == "running")
    running = kept.add("alice", "running")
    with pytest.raises(Full):
        kept.add("alice", "another")
    assert kept.get("alice", running) == "running"
