"""Every bound the playground sets on what its clients may ask of the machine, in one place (docs/security.md)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Caps:
    """The playground's bounds (seconds are multiplied by RULESDSL_TIME_SCALE, as every budget is). Tests make
    smaller ones; the defaults suit one person's browser tabs with room to spare."""

    request_bytes: int = 2 * 1024 * 1024  # a request's body: an edited rule file (250 kB at most) and its settings
    path_chars: int = 1_024  # a path of the served folder named in a request (a file name: 255 bytes)
    workers: int = 2  # requests running rule code at once (the others wait their turn)
    queued: int = 8  # requests waiting for a worker; beyond them: 503, try again
    request_seconds: float = 30.0  # one request's rule code, by processor time and by the clock
    simulations: int = 2  # simulations running at once, each in a thread of its own
    simulation_seconds: float = 120.0  # one simulation, by the clock: then it is stopped and says so
    simulated_games: int = 10_000  # games of one simulation
    games_per_client: int = 16  # games kept per client: a new one lets the client's least recently used go
    games: int = 256  # games kept in all: beyond them a new game is refused (503), no one else's is dropped
    replays_per_client: int = 8  # logs and results files open for replay, per client and in all
    replays: int = 64
    simulations_per_client: int = 8  # simulations kept with their reports, per client and in all
    simulations_kept: int = 64
    idle_seconds: float = 3_600.0  # a game, replay or simulation unused this long may make room for a new one
    retry_after: int = 2  # seconds a client refused for being busy is told to wait
