"""The jail (rulesdsl/jail.py): jobs run in a child process with hard limits, stopped and located, the caller
unharmed; and budgets that add up (rulesdsl/budget.py): the calls of a load, a move and a game share one budget.
The attacks themselves, as rule files through the command, are in test_untrusted_runs.py."""

from __future__ import annotations

import ctypes
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import rulesdsl
from rulesdsl import budget
from rulesdsl.agents import make_agent
from rulesdsl.errors import GameRuntimeError, Location, Problem, RulesError
from rulesdsl.jail import Jail, JobKilled, heartbeat
from rulesdsl.sim.runner import play_game

from .helpers import ROOT, SlowToRead

linux_only = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
PROBLEM = Problem("bad value", Location("f.yaml", 2, 3), "write a better one")
LOOP = """\
game: Loop
players: {count: 2}
board: {cells: [a, b]}
vars: {total: 0}
moves:
  go:
    notation: go
    do:
      - {for: "i in 0..COUNT", do: ["total = total + 1"]}
flow:
  steps:
    play: {moves: [go], next: end_turn}
end:
  - when: "false"
    winners: "[]"
"""


# -- jobs (module-level, so that a child started afresh finds them) ------------------------------------------
def add(a, b):
    return a + b


def refuse():
    raise RulesError([PROBLEM])


def fail_in_play():
    raise GameRuntimeError("go", 3, "it broke", Location("g.yaml", 4, 5), "fix the rule")


def internal():
    raise KeyError("planted by the test")


def spin():
    while True:
        pass


def units():
    heartbeat("the first unit", 60)
    sum(range(10 ** 5))
    heartbeat("the second unit", 0.2)
    spin()


def crash():
    ctypes.string_at(0)  # reads address 0: SIGSEGV


def allocate():
    return len(bytearray(8 << 30))


def too_deep():
    value = ()
    for _ in range(10 ** 6):
        value = (value,)
    return value  # cannot be pickled back: it is nested deeper than any stack


def play_first_move(path: str) -> None:
    state = rulesdsl.load_game(path).new_initial_state()
    state.apply("go")


# -- the jail ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_a_result_passes_through(start):
    with Jail(start=start) as jail:
        assert jail.run(add, 2, b=3, seconds=5, what="adding") == 5
        assert jail.run(add, "a", "b", seconds=5, what="adding") == "ab"


def test_an_error_of_the_rule_file_passes_through_as_itself():
    with Jail() as jail:
        with pytest.raises(RulesError) as refused:
            jail.run(refuse, seconds=5, what="loading")
        assert refused.value.problems == [PROBLEM]
        with pytest.raises(GameRuntimeError) as failed:
            jail.run(fail_in_play, seconds=5, what="playing")
        error = failed.value
        assert (error.rule, error.turn, error.message) == ("go", 3, "it broke")
        assert (error.location, error.hint) == (Location("g.yaml", 4, 5), "fix the rule")
        assert jail.run(add, 1, 1, seconds=5, what="adding") == 2  # the child lives on


def test_any_other_error_passes_through_with_the_child_s_traceback():
    with Jail() as jail:
        with pytest.raises(KeyError, match="planted by the test") as info:
            jail.run(internal, seconds=5, what="failing")
    assert "in internal" in str(info.value.__cause__) and "jail's child process" in str(info.value.__cause__)


def test_a_job_over_its_budget_is_killed_and_the_next_runs_in_a_new_child():
    with Jail() as jail:
        first = jail.run(os.getpid, seconds=5, what="asking")
        with pytest.raises(JobKilled) as info:
            jail.run(spin, seconds=0.2, what="spinning")
        assert (info.value.reason, info.value.what) == ("time", "spinning")
        assert info.value.format().startswith("error: spinning was stopped: it used more than its 0.2 s of processor "
                                              "time\n  hint: ")
        second = jail.run(os.getpid, seconds=5, what="asking")
    assert first != second != os.getpid()


def test_each_unit_of_a_job_has_its_own_budget():
    with Jail() as jail:
        with pytest.raises(JobKilled) as info:
            jail.run(units, seconds=0.2, what="the job")
    assert (info.value.reason, info.value.what) == ("time", "the second unit")


def test_the_time_a_child_takes_to_start_and_take_a_job_up_is_not_the_jobs():
    with Jail() as jail:
        assert jail.run(str, SlowToRead(1.0), seconds=0.1, what="echoing") == "read"


def test_heartbeat_does_nothing_outside_a_jail():
    heartbeat("nothing", 0.0)  # no budget of zero seconds applies here
    assert add(1, 2) == 3


def test_a_job_is_cancelled_from_another_thread():
    with Jail() as jail:
        jail.start()
        timer = threading.Timer(0.3, jail.cancel)
        timer.start()
        with pytest.raises(JobKilled) as info:
            jail.run(spin, seconds=float("inf"), what="spinning")
        timer.join()
        assert info.value.reason == "cancelled"
        assert jail.run(add, 1, 2, seconds=5, what="adding") == 3


@pytest.mark.parametrize("job, reason, words", [
    (crash, "crash", "its process crashed (SIGSEGV)"),
    (allocate, "memory", "it needed more than the 3,072 MiB of memory allowed"),
    (too_deep, "stack", "nested values or calls too deeply"),
])
def test_what_python_cannot_stop_stops_the_job_not_the_caller(job, reason, words):
    with Jail() as jail:
        with pytest.raises(JobKilled) as info:
            jail.run(job, seconds=30, what="the job")
        assert info.value.reason == reason and words in info.value.message
        assert jail.run(add, 1, 2, seconds=5, what="adding") == 3


def test_a_stopped_job_says_which_rule_was_running(tmp_path):
    path = tmp_path / "loop.yaml"
    path.write_text(LOOP.replace('"total = total + 1"', '{for: "j in 0..999999", do: ["total = total + 1"]}')
                    .replace("COUNT", "999999"))
    with Jail() as jail:  # the jail's budget, far below the move's own: the jail stops it, mid-rule
        with pytest.raises(JobKilled) as info:
            jail.run(play_first_move, str(path), seconds=0.3, what="the first move")
    where = rulesdsl.load_game(str(path)).rules.where(("moves", "go"))
    assert info.value.where == where and where.file == str(path) and (where.line, where.col) == (7, 5)
    assert info.value.rule == "move 'go' (effects)"
    assert info.value.format().startswith(f"{path}:7:5: error: the first move was stopped: it used more than its "
                                          "0.3 s of processor time (while move 'go' (effects) ran)")


@linux_only
def test_a_child_ignores_ctrl_c():
    with Jail() as jail:
        child = jail.run(os.getpid, seconds=5, what="asking")
        os.kill(child, signal.SIGINT)
        time.sleep(0.2)
        assert jail.run(os.getpid, seconds=5, what="asking") == child


@linux_only
def test_the_child_dies_with_its_parent():
    parent = subprocess.Popen([sys.executable, "-c", "import os, time; from rulesdsl.jail import Jail; jail = Jail(); "
                               "print(jail.run(os.getpid, seconds=5, what='asking'), flush=True); time.sleep(60)"],
                              stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        child = int(parent.stdout.readline())
        assert _running(child)
        parent.kill()
        parent.wait()
        deadline = time.monotonic() + 5
        while _running(child) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _running(child), "the jail's child outlived its parent"
    finally:
        parent.kill()
        parent.stdout.close()


def _running(pid: int) -> bool:
    """Whether a process exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_stop_travels_between_processes_intact():
    stop = JobKilled("game 3", "crash", Location("g.yaml", 7, 5), "move 'go' (effects)", "its process crashed")
    again = pickle.loads(pickle.dumps(stop))
    assert (again.what, again.reason, again.where, again.rule, again.format()) == \
        (stop.what, stop.reason, stop.where, stop.rule, stop.format())
    assert stop.problem().code == "limit_exceeded" and stop.problem().get("reason") == "crash"


# -- budgets that add up -------------------------------------------------------------------------------------
def _busy(seconds: float) -> None:
    """Use `seconds` of this thread's processor time."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


def _call(seconds: float) -> None:
    _busy(seconds)


def _unit() -> None:  # each call well within its own budget, together far over the unit's (the watchdog looks
    for _ in range(3):  # every 0.1 s, and counts a call from when it first sees it)
        _call(0.3)


def _not_direct() -> None:
    _helper()


def _helper() -> None:
    _call(0.35)
    _call(0.35)


budget.guard(_call, 0.5, "one call")
budget.total(_unit, 0.5, "the unit")
budget.total(_not_direct, 0.5, "the unit")


def test_the_calls_a_total_makes_share_its_budget(monkeypatch):
    monkeypatch.delenv(budget.TIME_SCALE_VARIABLE, raising=False)
    budget.ensure_watchdog()
    with pytest.raises(budget.TotalBudgetExceeded, match="the unit took longer than the 0.5 s allowed"):
        _unit()  # each call is within its own 0.5 s; together they are not


def test_calls_a_total_does_not_make_itself_do_not_count(monkeypatch):
    monkeypatch.delenv(budget.TIME_SCALE_VARIABLE, raising=False)
    budget.ensure_watchdog()
    _not_direct()  # as an agent's look-ahead does not count into a game's budget
    assert budget.overrun(_not_direct) is False


def test_the_lets_of_a_load_share_its_budget(tmp_path, monkeypatch):
    monkeypatch.setenv(budget.TIME_SCALE_VARIABLE, "0.1")  # a let may take 0.3 s, the whole load 2 s
    slow = "sum(x * y for x in 0..999999 for y in 0..999999)"
    lets = "".join(f"  slow{i}: \"{slow}\"\n" for i in range(40))
    path = tmp_path / "lets.yaml"
    path.write_text(LOOP.replace("COUNT", "1").replace("vars:", f"let:\n{lets}vars:"))
    with pytest.raises(RulesError) as info:
        rulesdsl.load_game(str(path))
    problems = info.value.problems
    assert sum("took longer than the 0.3 s allowed" in p.message for p in problems) < 20  # not one per let
    [stop] = [p for p in problems if "loading the rule file took longer than the 2 s allowed" in p.message]
    assert stop.location.file == str(path) and stop.location.line > 5  # at the let it reached


def test_the_board_attributes_of_a_load_share_its_budget(tmp_path, monkeypatch):
    monkeypatch.setenv(budget.TIME_SCALE_VARIABLE, "0.1")  # the whole load may take 2 s
    slow = "sum(x * y for x in 0..999999 for y in 0..999999)"
    attributes = "".join(f"    a{i}: \"{slow}\"\n" for i in range(6))
    path = tmp_path / "attributes.yaml"
    path.write_text(LOOP.replace("COUNT", "1").replace("board: {cells: [a, b]}\n",
                                                       f"board:\n  cells: [a, b]\n  attributes:\n{attributes}"))
    with pytest.raises(RulesError) as info:
        rulesdsl.load_game(str(path))
    [stop] = info.value.problems  # not one problem for each attribute, after 2 s each
    assert stop.message == "loading the rule file took longer than the 2 s allowed" and stop.location.line == 6


def test_the_moves_of_a_game_share_its_budget(tmp_path, monkeypatch):
    monkeypatch.setenv(budget.TIME_SCALE_VARIABLE, "0.01")  # a move may take 0.05 s, the whole game 0.6 s
    path = tmp_path / "loop.yaml"
    path.write_text(LOOP.replace("COUNT", "300"))  # each move far within its budget; the game never ends
    game = rulesdsl.load_game(str(path), max_turns=10 ** 6)
    with pytest.raises(GameRuntimeError) as info:
        play_game(game, [make_agent("random")] * 2, 1)
    error = info.value  # named after the rule running when the budget ran out: the move, or listing at its step
    assert (error.rule, error.location.line) in (("go", 7), ("play", 12)) and error.turn > 10
    assert error.message == "the game's moves together took longer than the 0.6 s allowed"
    assert "make the rules cheaper, or end games sooner" in error.hint
