"""Where a rule file spends its time: seeded games played under Python's profiler, reported in the file's own words."""

from __future__ import annotations

import cProfile
import inspect
import os
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from ..agents import Agent
from ..engine.nodes import CHANCE
from ..engine.rng import derive_seed
from ..errors import GameRuntimeError
from ..lang.compiler import RULE_CODE_FILE
from ..model.owners import code_owners, written_at
from .runner import play_game

ENGINE = "engine (flow, move lists, notation)"
AGENTS = "agents (choosing moves)"
OTHER = "other rule expressions"
_AGENT_CODE = str(Path(inspect.getfile(Agent)).parent)  # code in this folder is the agents' own
_GENERATOR = inspect.CO_GENERATOR

@dataclass
class Row:
    """One line of the report: a part of the rule file, a built-in, the agents or the engine."""

    name: str
    where: str  # FILE:LINE of its definition ('' for built-ins and the engine)
    self_time: float  # seconds in its own code (and Python's and the engine's helpers it calls directly)
    total: float  # seconds from entering it to leaving it, what it calls included
    calls: int | None  # None: not countable (the engine, the agents, a listing read move by move)


@dataclass
class Profile:
    """What a profiled run played, and its rows sorted by self time."""

    game: str
    games: int
    decisions: int
    chance: int
    seconds: float
    rows: list

    def format(self, top: int = 25) -> str:
        rate = f"{self.decisions / self.seconds:,.0f} decisions/s" if self.seconds else "no time measured"
        lines = [f"{self.game}: {self.games:,} games, {self.decisions:,} decisions, {self.chance:,} chance outcomes, "
                 f"{self.seconds:.2f} s, {rate} (under the profiler, which slows play down: read the times "
                 "relative to each other)"]
        spent = sum(r.self_time for r in self.rows) or 1.0
        per = (lambda s: f"{s / self.decisions * 1e6:,.0f} µs") if self.decisions else (lambda s: "-")
        shown = self.rows[:top]
        width = max([len(r.name) for r in shown] + [len("what")])
        lines.append(f"{'self':>9} {'%':>6} {'self/dec':>11} {'total':>9} {'total/dec':>11} {'calls':>11} "
                     f"{'calls/dec':>9}  {'what':<{width}}  where")
        for r in shown:
            calls = "-" if r.calls is None else f"{r.calls:,}"
            per_calls = "-" if r.calls is None or not self.decisions else f"{r.calls / self.decisions:,.1f}"
            lines.append(f"{r.self_time:>7.3f} s {r.self_time / spent:>6.1%} {per(r.self_time):>11} "
                         f"{r.total:>7.3f} s {per(r.total):>11} {calls:>11} {per_calls:>9}  {r.name:<{width}}  "
                         f"{r.where}".rstrip())
        if len(self.rows) > top:
            lines.append(f"... and {len(self.rows) - top} more (--top {len(self.rows)} shows them all)")
        return "\n".join(lines)


def profile_games(game, agents: list[Agent], games: int, seed: int) -> Profile:
    """Play `games` games of `game` as simulate plays them (game i from the seed derived from `seed` and i)
    under cProfile, and attribute the time to the rule file's parts and the built-ins. Load the game with
    inline=False for a line per function of the file (a short one is otherwise compiled into its callers)."""
    counts = {"decisions": 0, "chance": 0}

    def on_move(state, move):
        counts["chance" if move.player == CHANCE else "decisions"] += 1

    names = code_names(game.rules)
    profiler = cProfile.Profile()
    start = time.perf_counter()
    profiler.enable()
    try:
        for index in range(games):
            try:
                play_game(game, agents, derive_seed(seed, index), on_move)
            except GameRuntimeError as exc:
                raise exc.with_hint(f"game {index} of the run with seed {seed} reaches it") from None
    finally:
        profiler.disable()
    seconds = time.perf_counter() - start
    rows = attribute(profiler.getstats(), names)
    return Profile(game.name, games, counts["decisions"], counts["chance"], seconds, rows)


# -- naming the code -----------------------------------------------------------------------------
def code_names(rules) -> dict:
    """id(code object) -> (code, name, where) for every function generated from the rule file and every declared
    built-in (see model.owners.code_owners), `where` its part's FILE:LINE ('' for built-ins)."""
    return {key: (code, name, _where(rules, path)) for key, (code, name, path) in code_owners(rules).items()}


def _where(rules, path: tuple | None) -> str:
    """FILE:LINE of a part of the rule file (of the nearest enclosing part that has a line)."""
    loc = written_at(rules, path) if path else None
    if loc is None:
        return ""
    relative = os.path.relpath(loc.file)
    return f"{loc.file if relative.startswith('..') else relative}:{loc.line}"


# -- attributing the time ------------------------------------------------------------------------
def attribute(stats, names: dict) -> list[Row]:
    """Rows from cProfile's raw entries (Profile.getstats()), sorted by self time.

    Code with a name of its own (from code_names, or the agents') is a row. Any other code (the engine,
    Python's built-in functions, the language's operators) counts for whoever called it, split by the time
    each caller spent in it; code that nothing named called is the engine's."""
    entries = {id(e.code): e for e in stats}
    callers = defaultdict(list)  # id(code) -> [(id of the caller's code, the calls from it)]
    for e in stats:
        for sub in e.calls or ():
            if id(sub.code) != id(e.code):  # a recursive call is inside the outer one already
                callers[id(sub.code)].append((id(e.code), sub))
    owner = {key: _owner(e.code, names.get(key)) for key, e in entries.items()}
    shares: dict = {}

    def share(key, active=frozenset()) -> dict:
        """name -> the fraction of the time in `key` spent on behalf of that name."""
        if owner[key] is not None:
            return {owner[key]: 1.0}
        if key not in shares:
            if key in active or len(active) > 200:  # a cycle among unnamed code: the engine's own
                return {ENGINE: 1.0}
            shares[key] = mix(key, "totaltime", active | {key})
        return shares[key]

    def mix(key, measure: str, active=frozenset()) -> dict:
        edges = callers.get(key, [])
        weights = [getattr(sub, measure) for _, sub in edges]
        if sum(weights) <= 0:
            weights = [sub.callcount for _, sub in edges]
        whole = sum(weights)
        if not whole:
            return {ENGINE: 1.0}
        out: dict = defaultdict(float)
        for (caller, _), weight in zip(edges, weights):
            for name, part in share(caller, active).items():
                out[name] += part * weight / whole
        return out

    sums = defaultdict(lambda: [0.0, 0.0, 0.0, False])  # name -> [self, total, calls, calls countable]
    for key, e in entries.items():
        name = owner[key]
        if name is None:
            for payer, part in mix(key, "inlinetime").items():
                sums[payer][0] += e.inlinetime * part
            continue
        row = sums[name]
        row[0] += e.inlinetime
        # each resumption of a generator is a call to cProfile, so only plain functions' calls are counted
        counted = not e.code.co_flags & _GENERATOR
        for caller, sub in callers.get(key) or [(None, e)]:
            outside = 1.0 - (share(caller).get(name, 0.0) if caller is not None else 0.0)
            row[1] += sub.totaltime * outside
            if counted:
                row[2] += sub.callcount * outside
                row[3] = True
    sums[ENGINE][1] = sum(e.inlinetime for e in stats)
    where = {name: place for _, name, place in names.values()}
    # the split of shared code among its callers is proportional, so a total may come out a shade under its
    # self time: it is at least that
    rows = [Row(name, where.get(name, ""), s, max(s, t), round(c) if countable and name not in (ENGINE, AGENTS)
                else None) for name, (s, t, c, countable) in sums.items()]
    return sorted(rows, key=lambda r: (-r.self_time, r.name))


def _owner(code, named) -> str | None:
    """The row that code's own time belongs to, or None when it counts for its callers."""
    if named is not None:
        return named[1]
    if isinstance(code, str):  # a function of Python's, written in C
        return None
    if code.co_filename.startswith(RULE_CODE_FILE):
        return OTHER
    if code.co_filename.startswith(_AGENT_CODE):
        return AGENTS
    return None
