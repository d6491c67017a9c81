"""Every game of a results file replayed and verified, in this process or in several, in file order."""

from __future__ import annotations

from functools import partial

from .log import replay
from .pool import in_processes


def verify(source: str, rules_path, entry: tuple) -> tuple[int, list[str]]:
    """(moves replayed, mismatches) of one (log, location) entry of `source` (see log.replay)."""
    log, where = entry
    _, problems = replay(log, source, rules_path, where)
    return len(log["moves"]), problems


def verify_all(entries: list[tuple], source: str, rules_path=None, workers: int = 1):
    """Yield verify(...) for each (log, location) entry in order, computed by `workers` processes. A line that
    cannot be replayed raises its located error, as it would in one process."""
    work = partial(verify, source, rules_path)
    if workers > 1 and len(entries) > 1:
        yield from in_processes(work, entries, workers)
    else:
        yield from map(work, entries)
