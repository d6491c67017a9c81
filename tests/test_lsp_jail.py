"""The language server checks each document in a jailed worker process, driven over stdio: a hostile buffer (lets
that spin for the load's whole budget, a step of C code that runs on, a crash, one that fills memory) is stopped and
located at its rule, the other buffers' diagnostics arrive meanwhile, and a new version of a document stops the
check of the old one."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from rulesdsl.budget import TIME_SCALE_VARIABLE

from .helpers import ROOT
from .test_lsp import GAME, WAIT, Client, session  # (skipped without pygls)

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="the workers are watched in /proc")

SCALE = 0.2  # every budget times this: a step of C code is stopped after 1 s of processor time, a check after 4 s
MEMORY_MIB = 256  # what a worker may add to its address space (JAIL_MEMORY_BYTES, lowered as test_sandbox does)
SERVER = ("import sys\nfrom rulesdsl import limits\n"
          f"limits.JAIL_MEMORY_BYTES = {MEMORY_MIB} << 20\n"
          "from rulesdsl.cli import main\nsys.exit(main(['lsp']))\n")
PROMPT = 1.0  # seconds by the clock within which a good buffer's diagnostics arrive, whatever the others do

# comparing two thousand pairs of million-item lists is one step of C code: no budget inside the process stops it
ENDLESS = '  slow: "1 if repeat(list(0..999999), 2000) == repeat(list(0..999999), 2000) else 0"\n'
# lets that each run for their whole budget in Python (keeping nothing), stopped from inside: the check ends by itself
# after the load's
LONG = "".join(f'  slow{i}: "size([x for x in 0..999999 for y in 0..999999 if x < 0])"\n' for i in range(10))
FILLING = '  big: "size([repeat(x, 100000) for x in 0..999999])"\n'  # 800 GB of lists, 800 kB at a time


def hostile(let: str) -> str:
    """The good game with one more let."""
    return GAME.replace('  top: "max(prices)"\n', '  top: "max(prices)"\n' + let)


def let_position(text: str, let: str) -> dict:
    """The LSP position of the value of `let` (its opening quote) in `text`."""
    line = text.splitlines().index(let.rstrip("\n"))
    return {"line": line, "character": let.index('"')}


class Watched(Client):
    """A client that keeps every diagnostic the server publishes, with when it arrived."""

    def __init__(self, cwd: Path):
        env = dict(os.environ, PYTHONPATH=str(ROOT), **{TIME_SCALE_VARIABLE: str(SCALE)})
        super().__init__(cwd, ("-c", SERVER), env)
        self.folder = cwd
        self.published: list[tuple[str, int | None, list, float]] = []  # uri, version, diagnostics, clock

    def wait(self, wanted, seconds: float = WAIT) -> dict:
        def keep(message):
            if message.get("method") == "textDocument/publishDiagnostics":
                params = message["params"]
                self.published.append((params["uri"], params.get("version"), params["diagnostics"],
                                       time.monotonic()))
            return wanted(message)
        return super().wait(keep, seconds)

    def published_for(self, uri: str, version: int) -> tuple[list, float]:
        """The diagnostics of `uri` at `version` and when they arrived (waiting for them if they have not)."""
        while True:
            found = [(d, at) for u, v, d, at in self.published if u == uri and v == version]
            if found:
                return found[0]
            self.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics")

    def workers(self) -> dict[int, float]:
        """The server's child processes (its workers), each with the processor time it has used."""
        found = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:  # ended meanwhile
                continue
            if int(fields[1]) == self.process.pid and fields[0] != "Z":
                found[int(name)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        return found

    def idle(self) -> dict[int, float]:
        """The workers once none has used processor time for a while (started and readied)."""
        deadline, before = time.monotonic() + WAIT, None
        while time.monotonic() < deadline:
            now = self.workers()
            if now == before and now:
                return now
            before = now
            time.sleep(0.3)
        pytest.fail("the server's workers never settled")

    def busy(self, before: dict[int, float]) -> int:
        """The worker that has started working since `before` (its processor time grows)."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            for pid, used in self.workers().items():
                if used - before.get(pid, 0.0) >= 0.2:
                    return pid
            time.sleep(0.02)
        pytest.fail("no worker took the check")


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lsp_jail")
    yield from session(Watched(folder), folder)


def open_beside(client: Watched, name: str, text: str, busy: bool = True) -> tuple[str, float]:
    """Open a hostile buffer, and a good one once its check has started working (if `busy`, else at once): (the
    hostile one's uri, seconds by the clock the good one's diagnostics took)."""
    uri = (client.folder / f"{name}.yaml").as_uri()
    good = (client.folder / f"{name}_good.yaml").as_uri()
    before = client.idle()
    client.open(uri, text)
    if busy:
        client.busy(before)
    start = time.monotonic()
    client.open(good, GAME)
    found, at = client.published_for(good, 1)
    assert found == []
    return uri, at - start


def test_a_step_of_c_code_that_runs_on_is_stopped_at_its_rule_and_others_are_checked_meanwhile(client):
    text = hostile(ENDLESS)
    uri, took = open_beside(client, "endless", text)
    assert took < PROMPT
    found, _ = client.published_for(uri, 1)
    assert [(d["code"], d["range"]["start"]) for d in found] == [("limit_exceeded", let_position(text, ENDLESS))]
    assert found[0]["message"] == (
        "checking this file was stopped: one step of Python's own code ran for more than 1 s of processor time "
        "(while let 'slow' ran)\nhint: a loop that runs too long, or one step on a huge value: see 'Bounded "
        "resources' in docs/security.md for every budget (RULESDSL_TIME_SCALE multiplies them)")


def test_lets_that_spin_for_the_whole_load_budget_hold_up_no_other_buffer(client):
    text = hostile(LONG)
    uri, took = open_beside(client, "spinning", text)
    assert took < PROMPT
    found, _ = client.published_for(uri, 1)
    lets = [i for i, line in enumerate(text.splitlines()) if line.startswith("  slow")]
    assert {d["code"] for d in found} == {"limit_exceeded"} and len(found) > 1
    assert all(d["range"]["start"]["line"] in lets for d in found)  # each at a let: the load's budget stops them
    assert "loading the rule file took longer than the 4 s allowed" in found[-1]["message"]


def test_a_check_whose_process_crashes_is_located_at_its_rule_and_the_server_lives_on(client):
    # rule code has no way left to crash the interpreter (values nest at most 30 deep): the signal a segmentation
    # fault raises is sent to the worker from outside, in the middle of the rule
    text = hostile(ENDLESS)
    uri = (client.folder / "crash.yaml").as_uri()
    before = client.idle()
    client.open(uri, text)
    os.kill(client.busy(before), signal.SIGSEGV)
    found, _ = client.published_for(uri, 1)
    assert [(d["code"], d["range"]["start"]) for d in found] == [("limit_exceeded", let_position(text, ENDLESS))]
    assert found[0]["message"].startswith("checking this file was stopped: its process crashed (SIGSEGV) (while "
                                          "let 'slow' ran)\nhint: a value nested very deeply")
    good = (client.folder / "after_crash.yaml").as_uri()
    start = time.monotonic()
    client.open(good, GAME)
    found, at = client.published_for(good, 1)
    assert found == [] and at - start < PROMPT


def test_a_buffer_that_fills_memory_is_stopped_at_its_rule_and_others_are_checked_meanwhile(client):
    text = hostile(FILLING)
    uri, took = open_beside(client, "filling", text, busy=False)  # a tenth of a second: too quick to watch
    assert took < PROMPT
    found, _ = client.published_for(uri, 1)
    assert [(d["code"], d["range"]["start"]) for d in found] == [("limit_exceeded", let_position(text, FILLING))]
    # the allocation the jail refuses fails inside the let, which is reported as any value that cannot be computed
    assert found[0]["message"] == "cannot compute this value: it needed more memory than the process may use\n" \
        "hint: rule files are bounded in what they may build and how long they may run: see 'Names and limits' in " \
        "the language reference"


def test_a_new_version_stops_the_check_of_the_old_one(client):
    uri = (client.folder / "edited.yaml").as_uri()
    before = client.idle()
    client.open(uri, hostile(LONG))
    worker = client.busy(before)
    client.change(uri, GAME, 2)
    found, _ = client.published_for(uri, 2)
    assert found == []
    # its worker was killed: left alone, the old check would have run on for its 4 s, and the new one waited
    assert worker not in client.workers()
    later = (client.folder / "later.yaml").as_uri()
    client.open(later, GAME)  # a round trip: whatever the server published before it has been read
    client.published_for(later, 1)
    assert [version for u, version, _, _ in client.published if u == uri] == [2]
