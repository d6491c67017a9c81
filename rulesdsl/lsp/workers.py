"""The checks of open documents, each a job in a jailed worker process: a few workers, one check of a document at
a time, and only the newest version of a document waits."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from concurrent.futures import Future

from .. import limits
from ..errors import Problem
from ..jail import Jail, JobKilled
from ..limits import LOAD_SECONDS
from ..resources import package_dir
from .checks import check_buffer, internal_problem
from .index import FileIndex

MAX_WORKERS = 4  # worker processes of one server, whatever the machine
WORKERS = min(MAX_WORKERS, max(2, os.cpu_count() or 2))  # at least two: one hostile buffer never holds up the rest
WHAT = "checking this file"  # what a stopped check was doing, in its diagnostic

_quiet: list = [False]  # in a worker: whether its standard output is its standard error yet


def checked(file: str, text: str) -> tuple[list[Problem], FileIndex | None]:
    """A worker's job: check_buffer's problems, and the index of the names of the file as loaded (None when it
    did not load), built here so that only plain data goes back to the server."""
    _quieted()
    problems, doc, names = check_buffer(file, text)
    return problems, FileIndex(doc, names) if doc is not None else None


def ready() -> None:
    """A worker's first job: check the smallest bundled game, so that the parsers and the schema are built before
    an editor's first buffer arrives (a restarted worker is a fresh interpreter, and this takes it a tenth of a
    second)."""
    _quieted()
    games = sorted(package_dir("games").glob("*.yaml"), key=lambda path: path.stat().st_size)
    if games:
        check_buffer(str(games[0]), games[0].read_text(encoding="utf-8"))


def _quieted() -> None:
    """Send what this worker prints to standard error: the server's standard output, which a fork shares, is the
    editor's protocol stream, and one stray byte on it would break the connection."""
    if not _quiet[0]:
        os.dup2(2, 1)
        _quiet[0] = True


class _Check:
    """A check asked for: of `text`, the content of the document `uri` (as the file `file`) at `version`."""

    __slots__ = ("uri", "version", "file", "text", "future", "stale")

    def __init__(self, uri: str, version, file: str, text: str):
        self.uri, self.version, self.file, self.text = uri, version, file, text
        self.future: Future = Future()
        self.stale = False  # a newer version, or the document's closing, made its result pointless


class Workers:
    """`size` jails (jail.py), each fed by a thread of its own. check() gives a Future of (problems, index) for a
    version of a document, or of None when the check was dropped (a newer version came, the document closed).

    A check runs with the budget of a load in its worker's process; one that overruns it, crashes or fills its
    memory is killed, and its result is one problem located at the rule that was running; the worker is started
    again at once. Checks of other documents go on in the other workers meanwhile."""

    def __init__(self, size: int = WORKERS):
        size = max(1, min(size, MAX_WORKERS))
        self.jails = [Jail(name=f"rulesdsl-lsp-{i}", memory_bytes=limits.JAIL_MEMORY_BYTES) for i in range(size)]
        self._lock = threading.Condition()
        self._waiting: OrderedDict[str, _Check] = OrderedDict()  # uri -> the newest version waiting, oldest first
        self._running: dict[str, tuple[_Check, Jail]] = {}
        self._closed = False

    def start(self) -> None:
        """Start the worker processes (call it while the server runs one thread: each is then a fork, see jail.py)
        and the threads that feed them."""
        for jail in self.jails:
            try:
                jail.start()
            except OSError:  # no process to be had now: the first check tries again, and says what goes wrong
                pass
        for jail in self.jails:
            threading.Thread(target=self._work, args=(jail,), name=f"{jail.name}-feed", daemon=True).start()

    def check(self, uri: str, version, file: str, text: str) -> Future:
        """A future of the problems of `text` (document `uri` at `version`, checked as `file`) and the index of its
        names (None when it did not load), or of None if the check is dropped. It replaces a check of the document
        still waiting."""
        check = _Check(uri, version, file, text)
        with self._lock:
            self._drop_waiting(uri)
            self._waiting[uri] = check
            self._lock.notify()
        return check.future

    def cancel(self, uri: str, keep=None) -> None:
        """Drop the check of `uri` that is waiting, and stop the one running unless it checks version `keep`."""
        with self._lock:
            self._drop_waiting(uri)
            running = self._running.get(uri)
            if running is not None and running[0].version != keep:
                running[0].stale = True
                running[1].cancel()

    def close(self) -> None:
        """Stop every worker; checks waiting or running are dropped."""
        with self._lock:
            self._closed = True
            for uri in list(self._waiting):
                self._drop_waiting(uri)
            for check, _ in self._running.values():
                check.stale = True
            self._lock.notify_all()
        for jail in self.jails:
            jail.close()

    def _drop_waiting(self, uri: str) -> None:
        check = self._waiting.pop(uri, None)
        if check is not None and check.future.set_running_or_notify_cancel():
            check.future.set_result(None)

    def _next(self, jail: Jail) -> _Check | None:
        """The oldest waiting check of a document with no check running, now running in `jail` (None once the
        workers are closed)."""
        with self._lock:
            while not self._closed:
                uri = next((uri for uri in self._waiting if uri not in self._running), None)
                if uri is None:
                    self._lock.wait()
                    continue
                check = self._waiting.pop(uri)
                if check.future.set_running_or_notify_cancel():  # else: the server no longer waits for it
                    self._running[uri] = (check, jail)
                    return check
            return None

    def _work(self, jail: Jail) -> None:
        """A worker's thread: readies its process, then runs checks in it one after another."""
        self._ready(jail)
        while True:
            check = self._next(jail)
            if check is None:
                return
            outcome, stopped = self._run(jail, check)
            with self._lock:
                del self._running[check.uri]
                self._lock.notify_all()  # a newer version of the document may run now
            check.future.set_result(None if check.stale else outcome)
            if stopped:  # its process was killed: the next is started now rather than when a check waits on it
                self._ready(jail)

    def _run(self, jail: Jail, check: _Check) -> tuple:
        """(the outcome of a check, whether its process was stopped)."""
        try:
            return jail.run(checked, check.file, check.text, seconds=LOAD_SECONDS, what=WHAT), False
        except JobKilled as exc:
            return (None if exc.reason == "cancelled" else ([exc.problem(check.file)], None)), True
        except Exception as exc:  # noqa: BLE001 - a bug in rulesdsl, or no process to be had: said in the editor
            return ([internal_problem(exc, check.file)], None), False

    def _ready(self, jail: Jail) -> None:
        """Start the worker's process (again) and ready it, before a check waits on it."""
        try:
            jail.run(ready, seconds=LOAD_SECONDS, what="readying a worker")
        except Exception:  # noqa: BLE001 - the next check starts it again, and says what goes wrong
            pass
