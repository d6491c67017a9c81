"""Every game of a results file replayed and verified, in jailed processes or this one, in file order."""

from __future__ import annotations

from functools import partial

from ..limits import GAME_SECONDS, LOAD_SECONDS
from .log import replay
from .pool import in_jails, in_processes


def verify(source: str, rules_path, entry: tuple, backend: str = "python") -> tuple[int, list[str]]:
    """(moves replayed, mismatches) of one (log, location) entry of `source` (see log.replay) on `backend`."""
    log, where = entry
    _, problems = replay(log, source, rules_path, where, backend)
    return len(log["moves"]), problems


def entry_label(entry: tuple) -> str:
    """How an entry is named when its job is stopped: replaying the line it is."""
    return f"replaying {entry[1]}"


def verify_all(entries: list[tuple], source: str, rules_path=None, workers: int = 1, jails: list | None = None,
               backend: str = "python"):
    """Yield verify(...) for each (log, location) entry in order, computed in `jails` if given, else by `workers`
    processes (jailed when more than one). A line that cannot be replayed raises its located error, as it would
    in one process; each line has the budget of a load (its rule file is compiled once per process) and a game."""
    work = partial(verify, source, rules_path, backend=backend)
    budgets = {"what": entry_label, "seconds": LOAD_SECONDS + GAME_SECONDS}
    if jails:
        yield from in_jails(work, entries, jails, **budgets)
    elif workers > 1 and len(entries) > 1:
        yield from in_processes(work, entries, workers, **budgets)
    else:
        yield from map(work, entries)
