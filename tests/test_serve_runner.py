"""Where the playground's rule code runs (serve/runner.py) and what it keeps for its clients (serve/kept.py): a
pool of jails gives a job's result and errors back as they are, stops a job that overruns its time or crashes and
serves the next in a new child, refuses at once when its queue is full, sends a job to the jail that ran the last
one of its home while it is free; kept items are each client's own, bounded."""

from __future__ import annotations

import ctypes
import os
import signal
import time

import pytest

from rulesdsl.errors import MoveError
from rulesdsl.jail import JobKilled
from rulesdsl.serve.kept import Full, Kept, NotFound
from rulesdsl.serve.runner import Busy, Pool

from .helpers import SlowToRead


# -- jobs (module-level: a jail's child finds them by name) ----------------------------------------------------
def stubborn() -> None:
    """Rule code at its worst: a loop that never ends and swallows every error raised inside it."""
    while True:
        try:
            sum(range(1_000))
        except Exception:  # noqa: BLE001 - what generated code may not do, and the engine does in places
            pass


def napping() -> None:
    while True:
        time.sleep(0.01)  # uses no processor time: only the clock can stop it


def doubled(x: int) -> int:
    return 2 * x


def illegal(text: str):
    raise MoveError(MoveError.ILLEGAL, text, "not now")


def crash():
    ctypes.string_at(0)  # reads address 0: SIGSEGV


@pytest.fixture
def pool():
    """pool(size, queued) -> a Pool of jails, closed (its children ended) with the test."""
    made = []

    def make(size: int = 1, queued: int = 2) -> Pool:
        made.append(Pool(size, queued))
        return made[-1]
    yield make
    for each in made:
        each.close()


def test_a_job_s_result_and_error_come_back_as_they_are(pool):
    jobs = pool()
    assert jobs.submit(doubled, 21, seconds=5, what="doubling").result(timeout=60) == 42
    with pytest.raises(MoveError) as info:
        jobs.submit(illegal, "a1-b1", seconds=5, what="moving").result(timeout=60)
    assert (info.value.kind, info.value.reason) == ("illegal", "not now")
    assert jobs.submit(os.getpid, seconds=5, what="asking").result(timeout=60) != os.getpid()  # never here


def test_a_job_that_overruns_its_time_is_stopped_and_the_next_runs_in_a_new_child(pool):
    jobs = pool()
    first = jobs.submit(os.getpid, seconds=5, what="asking").result(timeout=60)
    with pytest.raises(JobKilled) as info:
        jobs.submit(stubborn, seconds=0.3, what="a stubborn loop").result(timeout=60)
    assert (info.value.reason, info.value.what) == ("time", "a stubborn loop")
    # by its processor time (the jail), or by the clock on a machine busy with more than this test (the pool)
    assert str(info.value) in ("a stubborn loop was stopped: it used more than its 0.3 s of processor time",
                               "a stubborn loop was stopped: it ran longer than its 1.45 s by the clock")
    assert jobs.submit(os.getpid, seconds=5, what="asking").result(timeout=60) not in (first, os.getpid())


def test_a_childs_start_does_not_count_against_a_jobs_time_by_the_clock(pool):
    jobs = pool()  # a new child: the job's argument takes 2 s of processor time to read there, as a slow start may
    assert jobs.submit(str, SlowToRead(2.0), seconds=0.3, what="echoing").result(timeout=60) == "read"


def test_a_pool_stops_a_job_that_runs_too_long_by_the_clock(pool):
    jobs = pool()
    with pytest.raises(JobKilled) as info:
        jobs.submit(napping, seconds=0.3, what="a nap").result(timeout=60)
    assert info.value.reason == "time"
    assert str(info.value) == "a nap was stopped: it ran longer than its 1.45 s by the clock"
    assert jobs.submit(doubled, 5, seconds=5, what="doubling").result(timeout=60) == 10


def test_a_crash_stops_the_job_not_the_server(pool):
    jobs = pool()
    with pytest.raises(JobKilled) as info:
        jobs.submit(crash, seconds=5, what="crashing").result(timeout=60)
    assert info.value.reason == "crash" and "its process crashed (SIGSEGV)" in str(info.value)
    assert jobs.submit(doubled, 2, seconds=5, what="doubling").result(timeout=60) == 4


def test_a_child_killed_from_outside_stops_its_job_and_is_started_again(pool):
    jobs = pool()
    child = jobs.submit(os.getpid, seconds=5, what="asking").result(timeout=60)
    napping_there = jobs.submit(napping, seconds=30, what="a nap")
    for _ in range(200):
        if napping_there.running():
            break
        time.sleep(0.01)
    time.sleep(0.2)  # the child has it
    os.kill(child, signal.SIGKILL)  # the system short of memory, say
    with pytest.raises(JobKilled) as info:
        napping_there.result(timeout=60)
    assert info.value.reason == "killed" and "its process was killed from outside (SIGKILL)" in str(info.value)
    assert jobs.submit(os.getpid, seconds=5, what="asking").result(timeout=60) not in (child, os.getpid())


def test_a_full_queue_refuses_at_once_and_the_pool_serves_again_after(pool):
    jobs = pool(1, 2)
    first = jobs.submit(stubborn, seconds=1.0, what="a stubborn loop")
    for _ in range(200):  # the worker takes the first job: the queue is empty again
        if first.running():
            break
        time.sleep(0.01)
    waiting = [jobs.submit(doubled, n, seconds=5, what="doubling") for n in (1, 2)]
    with pytest.raises(Busy):
        jobs.submit(doubled, 3, seconds=5, what="doubling")
    with pytest.raises(JobKilled):
        first.result(timeout=60)
    assert [job.result(timeout=60) for job in waiting] == [2, 4]


def test_a_job_goes_home_while_its_home_is_free_and_elsewhere_when_it_is_busy(pool):
    jobs = pool(2, 8)
    home = jobs.submit(os.getpid, seconds=5, what="asking", home="game").result(timeout=60)
    for _ in range(6):  # either worker is free, and would take a job with no home
        assert jobs.submit(os.getpid, seconds=5, what="asking", home="game").result(timeout=60) == home
    napping_at_home = jobs.submit(napping, seconds=0.5, what="a nap", home="game")
    for _ in range(200):
        if napping_at_home.running():
            break
        time.sleep(0.01)
    elsewhere = jobs.submit(os.getpid, seconds=5, what="asking", home="game").result(timeout=60)
    assert elsewhere not in (home, os.getpid())  # not kept waiting for its busy home
    with pytest.raises(JobKilled):
        napping_at_home.result(timeout=60)
    assert jobs.submit(os.getpid, seconds=5, what="asking", home="game").result(timeout=60) == elsewhere


def test_closing_the_pool_ends_its_children(pool):
    jobs = pool()
    child = jobs.submit(os.getpid, seconds=5, what="asking").result(timeout=60)
    jobs.close()
    with pytest.raises(RuntimeError, match="closed"):
        jobs.submit(os.getpid, seconds=5, what="asking")
    assert not os.path.exists(f"/proc/{child}") or open(f"/proc/{child}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"


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
