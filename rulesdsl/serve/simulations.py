"""The playground's simulations: each in a thread of its own, a few at once, played in chunks of games by an
executor (InProcess, or a jail) that is cancelled when the simulation is stopped or reaches its time limit."""

from __future__ import annotations

import sys
import threading
import time

from ..budget import time_scale
from ..errors import RulesDslError
from . import work
from .caps import Caps
from .crash import crash_note
from .kept import Full, Kept
from .runner import InProcess, JobStopped

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
    """At most `caps.simulations` running at once (Full beyond that); each kept for the client that started it."""

    def __init__(self, caps: Caps, make=InProcess):
        self.caps, self.make = caps, make
        self.kept = Kept(caps.simulations_per_client, caps.simulations_kept, caps.idle_seconds,
                         busy=lambda simulation: simulation.running)
        self._slots = threading.BoundedSemaphore(caps.simulations)

    def start(self, client: str, source: work.Source, agents: tuple, seed: int, games: int, played_with: str) -> str:
        """Start playing `games` games of `source` with `agents` from `seed`; the simulation's token."""
        if not self._slots.acquire(blocking=False):
            many = f"{self.caps.simulations} simulation{'s' if self.caps.simulations != 1 else ''}"
            raise Full(f"the playground runs {many} at most at once: wait for one to end, or stop it")
        simulation = Simulation(games, self.caps.simulation_seconds * time_scale())
        try:
            token = self.kept.add(client, simulation)
        except Full:
            self._slots.release()
            raise
        simulation.thread = threading.Thread(target=self._run, args=(simulation, source, agents, seed, played_with),
                                             name="rulesdsl-simulation", daemon=True)
        simulation.thread.start()
        return token

    def get(self, client: str, token) -> Simulation:
        return self.kept.get(client, token)

    def _run(self, simulation: Simulation, source, agents: tuple, seed: int, played_with: str) -> None:
        executor = self.make()
        deadline = time.monotonic() + simulation.seconds
        late = threading.Event()
        watcher = threading.Thread(target=_watch, args=(simulation, executor, deadline, late),
                                   name="rulesdsl-simulation-limit", daemon=True)
        watcher.start()
        lines, chunk, spent, state = [], 1, 0.0, "failed"
        try:
            while len(lines) < simulation.games and not simulation.stop_asked and not late.is_set():
                indices = list(range(len(lines), min(simulation.games, len(lines) + chunk)))
                start = time.monotonic()
                lines += executor.run(work.play_games, source, agents, seed, indices, seconds=simulation.seconds,
                                      what=f"simulating {source.name}")
                took = time.monotonic() - start
                spent += took
                simulation.done = len(lines)
                chunk = chunk * 2 if took < CHUNK_SECONDS / 2 else max(1, chunk // 2) if took > CHUNK_SECONDS else chunk
            if len(lines) == simulation.games:
                found = executor.run(work.summarise, source, agents, lines, played_with, spent,
                                     seconds=self.caps.request_seconds, what=f"reporting on {source.name}")
                simulation.summary, simulation.report = found["summary"], found["report"]
                state = "done"
            else:
                simulation.error, state = _stopped(simulation, late.is_set()), "stopped"
        except JobStopped:
            simulation.error, state = _stopped(simulation, late.is_set()), "stopped"
        except RulesDslError as exc:  # a rule that fails in one of the games
            simulation.error = str(exc)
        except Exception as exc:  # noqa: BLE001 - a bug of ours: said in the page, the server lives on
            simulation.error = crash_note(exc, f"simulating {source.name}")
            print(simulation.error, file=sys.stderr)
        finally:
            simulation.state = state
            executor.close()
            self._slots.release()
            watcher.join()


def _watch(simulation: Simulation, executor, deadline: float, late: threading.Event) -> None:
    """Cancel the simulation's job when it is asked to stop or reaches its limit (and again, until it ends)."""
    while simulation.running:
        if time.monotonic() > deadline:
            late.set()
        if late.is_set() or simulation.stop_asked:
            executor.cancel()
        time.sleep(_TICK)


def _stopped(simulation: Simulation, late: bool) -> str:
    games = f"after {simulation.done:,} of {simulation.games:,} games"
    if late:
        return (f"the simulation was stopped at its limit of {simulation.seconds:g} s, {games} (hint: a game that "
                "never ends? give it flow: max_turns, or simulate fewer games)")
    return f"the simulation was stopped {games}"
