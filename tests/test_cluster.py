"""Simulation on a Dask cluster: chunked tasks, the same games as one process, workers killed, a scheduler
lost, and rule files the workers cannot see."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from io import StringIO

import pytest

from rulesdsl.bundle import read_bundle
from rulesdsl.sim.cluster import CHUNK_SECONDS, TASKS_PER_THREAD, _chunked, chunk_size
from rulesdsl.sim.simulate import RunSpec, simulate

from .helpers import run_cli as run

distributed = pytest.importorskip("distributed")

OVERLAY = "extends: mabula\ngame: Mabula (long push)\nvariants: {}\n"


class Cluster:
    """A scheduler and workers started as separate processes, as on a real cluster, in their own folder."""

    def __init__(self, folder, workers: int):
        self.folder = folder
        folder.mkdir(exist_ok=True)
        scheduler_file = folder / "scheduler.json"
        python = [sys.executable, "-m"]
        quiet = dict(cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.scheduler = subprocess.Popen(python + ["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port",
                                          "0", "--no-dashboard", "--scheduler-file", str(scheduler_file)], **quiet)
        self.workers = subprocess.Popen(python + ["distributed.cli.dask_worker", "--scheduler-file",
                                        str(scheduler_file), "--nworkers", str(workers), "--nthreads", "1",
                                        "--no-dashboard"], **quiet)
        deadline = time.monotonic() + 30
        while not scheduler_file.is_file() or not scheduler_file.read_text().strip():
            assert time.monotonic() < deadline and self.scheduler.poll() is None, "the scheduler did not start"
            time.sleep(0.1)
        self.address = json.loads(scheduler_file.read_text())["address"]
        with distributed.Client(self.address, timeout=30) as client:
            client.wait_for_workers(workers, timeout=30)

    def pids(self) -> set[int]:
        with distributed.Client(self.address, timeout=30) as client:
            return set(client.run(os.getpid).values())

    def close(self):
        for process in (self.workers, self.scheduler):
            if process.poll() is None:
                process.terminate()
        for process in (self.workers, self.scheduler):
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    started = Cluster(tmp_path_factory.mktemp("cluster"), workers=2)
    yield started
    started.close()


def spec_of(file, agents=("random", "random"), seed=7) -> RunSpec:
    return RunSpec(str(file), None, (), None, tuple(agents), seed)


def one_process(spec: RunSpec, games: int) -> str:
    out = StringIO()
    simulate(spec, games, out)
    return out.getvalue()


def test_chunks_hold_half_a_second_of_play_and_shrink_at_the_end():
    assert chunk_size(10_000, 2, 0, 0.0) == 1  # nothing measured yet
    assert chunk_size(100_000, 2, 100, 0.1) == int(CHUNK_SECONDS / 0.001)  # 1 ms a game
    assert chunk_size(100_000, 2, 10, 20.0) == 1  # 2 s a game: one a task
    assert chunk_size(40, 2, 10, 0.1) == 5  # 10 ms a game, 40 left on 2 threads: a quarter of each one's share
    assert chunk_size(400, 2, 100, 0.1) == 50  # 1 ms a game: no task shorter than a tenth of CHUNK_SECONDS
    assert chunk_size(40, 2, 100, 0.1) == 40  # ...unless fewer games are left
    assert chunk_size(1, 64, 100, 0.1) == 1


class Tasks:
    """Stands for Dask's as_completed and a client of `threads` worker threads: tasks finish in the order
    sent, each game taking a millisecond; it notes the most tasks ever in flight."""

    def __init__(self, threads: int):
        self.threads, self.queue, self.sent, self.most = threads, [], [], 0

    def nthreads(self):
        return {f"worker-{i}": 1 for i in range(self.threads)}

    def submit(self, play, spec, part, pure, retries):
        self.sent.append(list(part))
        return play(spec, part)

    def add(self, result):
        self.queue.append(result)
        self.most = max(self.most, len(self.queue))

    def count(self):
        return len(self.queue)

    def __iter__(self):
        while self.queue:
            yield Done(self.queue.pop(0))


class Done:
    def __init__(self, value):
        self.value = value

    def result(self):
        return self.value


def test_games_go_in_few_tasks_with_a_bounded_number_in_flight():
    tasks = Tasks(threads=2)
    play = lambda spec, part: ([{"index": i} for i in part], 0.001 * len(part))  # noqa: E731
    indices = list(range(0, 20_000, 2))  # the games a resumed run still has to play
    assert [i for i, _ in _chunked(tasks, tasks, play, None, indices, None)] == indices
    assert sorted(i for part in tasks.sent for i in part) == indices  # each game once
    assert tasks.most <= TASKS_PER_THREAD * 2
    assert max(map(len, tasks.sent)) == int(CHUNK_SECONDS / 0.001)  # half a second of play
    assert len(tasks.sent) < 50 and len(tasks.sent[-1]) <= 50  # few tasks, and the last ones short


class KillsAWorker(StringIO):
    """A results file that kills one worker process of the cluster once `after` lines are written."""

    def __init__(self, pid: int, after: int):
        super().__init__()
        self.pid, self.after, self.lines = pid, after, 0

    def write(self, text):
        self.lines += 1
        if self.lines == self.after:
            os.kill(self.pid, signal.SIGKILL)
        return super().write(text)


def test_the_games_of_a_killed_worker_are_played_again_elsewhere(cluster):
    spec = spec_of("mabula")
    before = cluster.pids()
    out = KillsAWorker(min(before), after=5)
    summary = simulate(spec, 60, out, dask=cluster.address, chunk=2)
    assert summary.games == 60
    assert out.getvalue() == one_process(spec, 60)
    assert min(before) not in cluster.pids()  # it was killed (and its nanny started another)


def test_a_user_overlay_runs_on_workers_that_cannot_see_it(cluster, tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "long.yaml").write_text(OVERLAY)
    spec = spec_of(folder / "long.yaml")
    bundled = RunSpec(spec.file, None, (), None, spec.agents, spec.seed, read_bundle(spec.file))
    expected = one_process(spec, 12)
    folder.rename(tmp_path / "gone")  # neither this process nor the workers (in another folder) can read it now
    out = StringIO()
    summary = simulate(bundled, 12, out, dask=cluster.address)
    assert summary.game == "Mabula (long push)"
    assert out.getvalue() == expected
    assert json.loads(expected.splitlines()[0])["file"] == str(folder / "long.yaml")


def test_a_lost_scheduler_stops_the_run_and_resume_completes_it(capsys, cluster, tmp_path):
    own = Cluster(tmp_path / "lost", workers=1)  # its own scheduler: this test kills it
    out, full = tmp_path / "r.jsonl", tmp_path / "full.jsonl"
    base = ["simulate", "mark", "--games", "30", "--seed", "3", "--agents", "random,random", "--quiet"]

    def kill_the_scheduler():
        while own.scheduler.poll() is None:
            if out.is_file() and out.read_text().count("\n") >= 3:
                own.scheduler.kill()
            time.sleep(0.02)

    killer = threading.Thread(target=kill_the_scheduler)
    killer.start()
    try:
        code, _, err = run(capsys, *base, "--dask", own.address, "--chunk", "1", "--out", str(out))
    finally:
        own.scheduler.kill()
        killer.join()
        own.close()
    assert code == 1
    assert f"lost the connection to the Dask scheduler at {own.address}" in err
    assert f"the games finished so far are in {out}: run the same command with --resume" in err
    kept = out.read_text().count("\n")
    assert 3 <= kept < 30
    code, text, _ = run(capsys, *base, "--dask", cluster.address, "--out", str(out), "--resume")  # another cluster
    assert code == 0 and "MARK: 30 games" in text
    run(capsys, *base, "--out", str(full))
    assert out.read_text() == full.read_text()
