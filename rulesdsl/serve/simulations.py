"""The playground's simulations: each in a thread of its own, a few at once, played in chunks of games in a jail of
their own (one per simulation that may run at once), which is cancelled when the simulation is stopped or reaches
its time limit."""

from __future__ import annotations

import queue
import sys
import threading
import time

from ..budget import time_scale
from ..errors import RulesDslError
from ..jail import Jail, JobKilled
from . import work
from .caps import Caps
from .crash import crash_note
from .kept import Full, Kept

CHUNK_SECONDS = 0.5  # games are played in chunks of about this long: the progress moves, a stop is quick
_TICK = 0.05


class Simulation:
    """One simulation's progress and outcome, as the page asks for it."""

    def __init__(self, games: int, seconds: float):
        self.games, self.seconds, self.done = games, seconds, 0
        self.summary = self.report = self.error = None
        self.state = "running"  # then 'done', 'stopped' (asked to, or at its limit) or 'failed'
        self.stop_asked = False
        self.thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        return self.state == "running"

    def as_json(self) -> dict:
        return {"games": self.games, "done": self.done, "summary": self.summary, "report": self.report,
                "error": self.error, "state": self.state}


class Simulations:
    """At most `caps.simulations` running at once (Full beyond that), each in one of as many jails; each kept for the
    client that started it."""

    def __init__(self, caps: Caps):
        self.caps = caps
        self.kept = Kept(caps.simulations_per_client, caps.simulations_kept, caps.idle_seconds,
                         busy=lambda simulation: simulation.running)
        self._jails = [Jail() for _ in range(caps.simulations)]
        self._free: queue.SimpleQueue = queue.SimpleQueue()  # the jails no simulation runs in
        for jail in self._jails:
            self._free.put(jail)
        self._closed = False

    def start_children(self) -> None:
        """Start the jails' children now rather than at their first simulations (see Pool.start)."""
        for jail in self._jails:
            jail.start()

    def close(self) -> None:
        """Stop every simulation and the jails' children."""
        self._closed = True  # (a simulation between two chunks starts no other)
        for jail in self._jails:
            jail.close()

    def start(self, client: str, source: work.Source, agents: tuple, seed: int, games: int, played_with: str) -> str:
        """Start playing `games` games of `source` with `agents` from `seed`; the simulation's token."""
        try:
            jail = self._free.get_nowait()
        except queue.Empty:
            many = f"{self.caps.simulations} simulation{'s' if self.caps.simulations != 1 else ''}"
            raise Full(f"the playground runs {many} at most at once: wait for one to end, or stop it") from None
        simulation = Simulation(games, self.caps.simulation_seconds * time_scale())
        try:
            token = self.kept.add(client, simulation)
        except Full:
            self._free.put(jail)
            raise
        simulation.thread = threading.Thread(target=self._run, args=(simulation, jail, source, agents, seed,
                                                                     played_with),
                                             name="rulesdsl-simulation", daemon=True)
        simulation.thread.start()
        return token

    def get(self, client: str, token) -> Simulation:
        return self.kept.get(client, token)

    def _run(self, simulation: Simulation, jail, source, agents: tuple, seed: int, played_with: str) -> None:
        deadline = time.monotonic() + simulation.seconds
        late, ended = threading.Event(), threading.Event()
        watcher = threading.Thread(target=_watch, args=(simulation, jail, deadline, late, ended),
                                   name="rulesdsl-simulation-limit", daemon=True)
        watcher.start()
        lines, chunk, spent, state = [], 1, 0.0, "failed"
        try:
            while len(lines) < simulation.games and not (simulation.stop_asked or late.is_set() or self._closed):
                indices = list(range(len(lines), min(simulation.games, len(lines) + chunk)))
                start = time.monotonic()
                lines += jail.run(work.play_games, source, agents, seed, indices, seconds=simulation.seconds,
                                  what=f"simulating {source.name}")
                took = time.monotonic() - start
                spent += took
                simulation.done = len(lines)
                chunk = chunk * 2 if took < CHUNK_SECONDS / 2 else max(1, chunk // 2) if took > CHUNK_SECONDS else chunk
            if len(lines) == simulation.games:
                found = jail.run(work.summarise, source, agents, lines, played_with, spent,
                                 seconds=self.caps.request_seconds, what=f"reporting on {source.name}")
                simulation.summary, simulation.report = found["summary"], found["report"]
                state = "done"
            else:
                simulation.error, state = _stopped(simulation, late.is_set()), "stopped"
        except JobKilled as exc:
            if exc.reason in ("cancelled", "time") or late.is_set():  # asked to, or at its limit
                simulation.error, state = _stopped(simulation, late.is_set() or exc.reason == "time"), "stopped"
            else:  # a crash, memory filled: located at the rule that ran
                simulation.error = source.named(exc).format()
        except RulesDslError as exc:  # a rule that fails in one of the games
            simulation.error = str(exc)
        except Exception as exc:  # noqa: BLE001 - a bug of ours: said in the page, the server lives on
            simulation.error = crash_note(exc, f"simulating {source.name}")
            print(simulation.error, file=sys.stderr)
        finally:
            ended.set()
            watcher.join()
            self._free.put(jail)  # before the simulation says it ended: another may start as soon as it does
            simulation.state = state


def _watch(simulation: Simulation, jail, deadline: float, late: threading.Event, ended: threading.Event) -> None:
    """Cancel the simulation's job when it is asked to stop or reaches its limit (and again, until it ends)."""
    while not ended.is_set():
        if time.monotonic() > deadline:
            late.set()
        if late.is_set() or simulation.stop_asked:
            jail.cancel()
        time.sleep(_TICK)


def _stopped(simulation: Simulation, late: bool) -> str:
    games = f"after {simulation.done:,} of {simulation.games:,} games"
    if late:
        return (f"the simulation was stopped at its limit of {simulation.seconds:g} s, {games} (hint: a game that "
                "never ends? give it flow: max_turns, or simulate fewer games)")
    return f"the simulation was stopped {games}"
