"""Many seeded games, on one process, several, or a Dask cluster, streamed to JSONL with a summary."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from ..agents import make_agent
from ..backends.compiled.build import describe as backend_of, with_backend
from ..bundle import RuleBundle, bundle_document, read_bundle
from ..engine.load import compile_game
from ..engine.rng import OLD_STREAM, STREAM, derive_seed
from ..errors import GameRuntimeError
from ..limits import GAME_SECONDS, LOAD_SECONDS
from .cluster import dask_results
from .compare import BASE, Games, compare_text
from .pool import in_jails, in_processes
from .progress import note, show_progress
from .records import read_results, rules_label, same_rules  # noqa: F401 - read_results is used from here too
from .runner import play_game
from .stats import mean_interval, mean_sd, return_interval, wilson


@dataclass(frozen=True)
class RunSpec:
    """Everything that decides a run's games: rules, variant, options, turn cap, agents, seed and random stream.

    `bundle` holds the rules themselves (read from `file` when a run starts, see `prepared`): every game of
    a run, in this process, in worker processes or on a cluster, is played from that one reading. `stream`
    is the kind of random stream (engine.rng.STREAMS): the current one, or the one a resumed run was begun with."""

    file: str
    variant: str | None
    options: tuple  # sorted (name, value) pairs
    max_turns: int | None
    agents: tuple
    seed: int
    bundle: RuleBundle | None = None
    stream: str = STREAM
    backend: str = "python"  # what plays the games (api.load_game): the same games whichever it is
    score_trace: bool = False  # record each game's scores turn by turn (for drama and lead changes)

    def matches(self, line: dict, folder: Path | None = None) -> bool:
        """Whether a results line belongs to this run (`folder`: where the results file is)."""
        return self.difference(line, folder) is None

    def difference(self, line: dict, folder: Path | None = None) -> str | None:
        """How a results line's run differs from this one ('seed 3, not 5'), or None when it is this run's."""
        theirs = {"variant": line.get("variant"), "options": dict(line.get("options") or {}),
                  "turn cap": line.get("max_turns"), "agents": list(line.get("agents") or ()),
                  "seed": line.get("run_seed"), "random stream": line.get("rng", OLD_STREAM)}
        ours = {"variant": self.variant, "options": dict(self.options), "turn cap": self.max_turns,
                "agents": agent_names(self.agents), "seed": self.seed, "random stream": self.stream}
        label = _label(self.file)
        if line.get("file") != label and not same_rules(str(line.get("file")), self.file, folder):
            return f"rule file {line.get('file')}, not {label}"
        recorded = line.get("rules_sha256")  # older results files do not record it
        if recorded is not None and self.bundle is not None and recorded != self.bundle.digest:
            return (f"rules with content hash {recorded[:12]}..., not {self.bundle.digest[:12]}... (the rule file "
                    "or a file it extends has changed since the run began)")
        for key, value in theirs.items():
            if value != ours[key]:
                return f"{key} {_plain(value)}, not {_plain(ours[key])}"
        return None


def _plain(value) -> str:
    """A run setting as the command line writes it."""
    if value is None:
        return "(none)"
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in value.items()) or "(none)"
    if isinstance(value, list):
        return ",".join(map(str, value))
    return str(value)


MAX_CACHED_GAMES = 8  # a cluster worker serves run after run: it keeps the games of the latest only
_games: dict = {}  # the compiled games of the runs this process has played, the latest few
_agents: dict = {}  # agent specs -> the agents made from them, once per process
_labels: dict = {}  # rule file -> how results name it (a bundled game by name)


def _label(file: str) -> str:
    """How results name a run's rule file (a bundled game by name), worked out once per process."""
    label = _labels.get(file)
    if label is None:
        label = _labels[file] = rules_label(file)
    return label


def prepared(spec: RunSpec) -> RunSpec:
    """The spec with its rules read (once, here: workers need neither the files nor their paths) and the rule
    file named as results name it."""
    bundle = spec.bundle or read_bundle(spec.file)
    return replace(spec, file=_label(spec.file), bundle=bundle)


def _game_key(spec: RunSpec) -> tuple:
    return spec.bundle.digest, spec.variant, spec.options, spec.max_turns, spec.backend


def _game(spec: RunSpec):
    """The compiled game of a prepared spec, once per process (workers keep it between tasks), compiled from
    the spec's bundle in memory and checked as any rule file is."""
    key = _game_key(spec)
    game = _games.get(key)
    if game is None:
        while len(_games) >= MAX_CACHED_GAMES:
            del _games[next(iter(_games))]
        game = _games[key] = with_backend(compile_game(bundle_document(spec.bundle), spec.file, spec.variant,
                                                       dict(spec.options), spec.max_turns), spec.backend)
    return game


@dataclass(frozen=True)
class GameInfo:
    """What a run needs to know of its game, wherever the game is compiled (a jail: see describe)."""

    name: str
    num_players: int
    player_names: list
    max_turns: int
    cap_source: str
    warnings: list  # Problems: what the compiler warns of (a turn cap clamped)
    backend: str = "python"  # which backend plays the games, and why (build.describe)
    fallback: bool = False  # whether a backend other than Python was asked for and Python plays them
    own_returns: bool = False  # whether the rules give each seat's result (`scoring: returns`), not win and loss


def describe(spec: RunSpec) -> GameInfo:
    """The game of a prepared spec, compiled (and kept, for the games that follow in this process), described."""
    game = _game(spec)
    return GameInfo(game.name, game.num_players, list(game.player_names), game.max_turns, game.cap_source,
                    list(game.rules.warnings), backend_of(game), getattr(game, "backend_note", None) is not None,
                    game.rules.returns is not None)


def game_seconds(agents) -> float:
    """The budget of one game in a jail: GAME_SECONDS, or none of its own when an agent looks ahead (its
    look-ahead is as long as its settings say; each call of rule code in it keeps its own budget)."""
    searching = (make_agent(a) if isinstance(a, str) else a for a in agents)
    return float("inf") if any(getattr(a, "searches", True) for a in searching) else GAME_SECONDS


def game_label(seed: int, index: int) -> str:
    """How a game of a run is named when its job is stopped."""
    return f"game {index} of the run with seed {seed}"


def play_chunk(spec: RunSpec, indices: list[int]) -> tuple[list[dict], float]:
    """Games `indices` of a run as their JSONL lines, and the processor seconds their play took (not compiling
    the game, once per process; nor time lost to other work on the machine). Pure: the same spec and
    indices give the same lines wherever they run."""
    _game(spec)
    start = time.thread_time()
    lines = [play_one(spec, index) for index in indices]
    return lines, time.thread_time() - start


def play_one(spec: RunSpec, index: int) -> dict:
    """Game `index` of a prepared run, as its JSONL line. Its seed depends only on the run seed and the index."""
    game = _game(spec)
    agents = _agents.get(spec.agents)
    if agents is None:  # agents keep nothing between calls (see agents.base.Agent): one set serves every game
        agents = _agents[spec.agents] = [make_agent(a) if isinstance(a, str) else a for a in spec.agents]
    try:
        record = play_game(game, agents, derive_seed(spec.seed, index), stream=spec.stream,
                           score_trace=spec.score_trace)
    except GameRuntimeError as exc:
        raise exc.with_hint(f"game {index} of the run with seed {spec.seed} reaches it") from None
    return {"index": index, "game": game.name, "file": spec.file, "rules_sha256": spec.bundle.digest,
            "variant": spec.variant, "options": dict(spec.options), "max_turns": spec.max_turns,
            "run_seed": spec.seed, **record.to_json(), "agents": agent_names(spec.agents)}


def agent_names(agents) -> list[str]:
    """How agents are named in results: their spec ('mcts:iterations=50'), or a custom agent's name."""
    return [a if isinstance(a, str) else getattr(a, "spec", a.name) for a in agents]


def _ordered(results_by_index, indices):
    """Yield results in index order from an iterator of (index, result) that may arrive in any order."""
    waiting, position = {}, 0
    for index, result in results_by_index:
        waiting[index] = result
        while position < len(indices) and indices[position] in waiting:
            yield waiting.pop(indices[position])
            position += 1


def _results(spec: RunSpec, indices: list[int], workers: int, dask: str | None, chunk: int | None = None,
             tell=None, ready=None, jails: list | None = None):
    """Results of the games at `indices`, in index order, computed on Dask, in `jails`, in processes or here
    (`tell` and `ready`: see dask_results)."""
    if dask:
        yield from _ordered(dask_results(play_chunk, spec, indices, dask, workers if workers > 1 else None, chunk,
                                         tell, ready), indices)
    elif jails or workers > 1:
        budgets = {"what": partial(game_label, spec.seed), "seconds": game_seconds(spec.agents),
                   "prepare": partial(_game, spec)}
        if jails:
            yield from in_jails(partial(play_one, spec), indices, jails, chunk, **budgets)
        else:
            yield from in_processes(partial(play_one, spec), indices, workers, chunk, **budgets)
    else:
        for index in indices:
            yield play_one(spec, index)


@dataclass
class Summary:
    """Aggregate results of a run."""

    game: str
    variant: str | None
    agents: list
    player_names: list
    games: int = 0
    wins: list = field(default_factory=list)
    agent_wins: dict = field(default_factory=dict)
    agent_seats: dict = field(default_factory=dict)
    draws: int = 0
    shared: int = 0  # games won by more than one seat
    capped: int = 0
    lengths: list = field(default_factory=list)
    seeds: list = field(default_factory=list)
    outcomes: list = field(default_factory=list)  # per game, the seats that won
    turns: list = field(default_factory=list)
    scores: list = field(default_factory=list)
    rule_counts: dict = field(default_factory=dict)
    breakdown: list = field(default_factory=list)  # per seat: {name: total over games}
    returns: list = field(default_factory=list)  # per seat: the total of its returns (lines that record them)
    returned: int = 0  # games whose lines record their returns
    losses: int = 0  # one seat: games it lost (no winner, and the rules do not call it a draw)
    elapsed: float = 0.0
    cluster_start: float | None = None  # seconds to start or reach a Dask cluster, apart from `elapsed`
    cap: int | None = None  # the turn cap the games were played with
    cap_source: str = ""  # 'given', 'rule file' or 'default'
    label: str | None = None  # the rule file (and variant) when a run plays several files: titles name it
    own_returns: bool = False  # the rules give each seat's result (`scoring: returns`): its mean is shown
    return_rows: list = field(default_factory=list)  # per game whose line records them, each seat's returns

    def add(self, line: dict) -> None:
        if not self.wins:
            self.wins = [0] * len(self.player_names)
        self.games += 1
        for p in line["winners"]:
            self.wins[p] += 1
        for p, agent in enumerate(line["agents"]):
            self.agent_seats[agent] = self.agent_seats.get(agent, 0) + 1
            self.agent_wins[agent] = self.agent_wins.get(agent, 0) + (p in line["winners"])
        returns = line.get("returns")
        if returns is not None:
            self.returned += 1
            self.return_rows.append(returns)
            self.returns = [a + b for a, b in zip(self.returns or [0.0] * len(returns), returns)]
        if not line["winners"]:
            if returns is not None and len(returns) == 1 and returns[0] < 0:
                self.losses += 1  # playing alone, a game nobody won is a loss, not a draw
            else:
                self.draws += 1
        self.capped += bool(line["capped"])
        self.lengths.append(line["plies"])
        self.seeds.append(line["seed"])
        self.outcomes.append(line["winners"])
        self.shared += len(line["winners"]) > 1
        self.turns.append(line["turns"])
        self.scores.append(line["scores"])
        for name, n in line["rule_counts"].items():
            self.rule_counts[name] = self.rule_counts.get(name, 0) + n
        for p, parts in enumerate(line.get("breakdown") or []):
            while len(self.breakdown) <= p:
                self.breakdown.append({})
            for name, value in (parts or {}).items():
                self.breakdown[p][name] = self.breakdown[p].get(name, 0) + value

    def _means(self) -> list[str]:
        """The mean return and the mean score of seat 0, where the lines record them (scores: numbers only)."""
        means = []
        if self.returned:
            means.append(f"mean return {self.returns[0] / self.returned:+.2f}")
        scores = [s[0] for s in self.scores if s and isinstance(s[0], (int, float)) and not isinstance(s[0], bool)]
        if scores:
            m, sd = mean_sd(scores)
            means.append(f"mean score {m:.2f} (sd {sd:.2f}), min {min(scores)}, max {max(scores)}")
        return means or ["no returns or scores recorded"]

    def returns_text(self) -> list[str]:
        """Each seat's mean return with its 95% t interval, when the rules give returns of their own (win and loss
        are shown as wins above)."""
        if not self.own_returns or not self.return_rows:
            return []
        lines = [f"  {'returns':<10} {'agent':<16} {'mean':>9}  95% CI  (n = {len(self.return_rows)})"]
        for p, name in enumerate(self.player_names):
            m, low, high = mean_interval(row[p] for row in self.return_rows)
            lines.append(f"  {name:<10} {self.agents[p]:<16} {m:>+9.3f}  {return_interval(low, high)}")
        return lines

    def format(self) -> str:
        shown = self.label or self.variant
        title = f"{self.game}" + (f" [{shown}]" if shown else "")
        lines = [f"{title}: {self.games} games, agents {','.join(self.agents)}"]
        lines.append(f"  {'seat':<10} {'agent':<16} {'wins':>6} {'rate':>7}  95% CI")
        for p, name in enumerate(self.player_names):
            w = self.wins[p] if self.wins else 0
            lo, hi = wilson(w, self.games)
            rate = w / self.games if self.games else 0
            lines.append(f"  {name:<10} {self.agents[p]:<16} {w:>6} {rate:>7.1%}  [{lo:.1%}, {hi:.1%}]")
        single = len(self.player_names) == 1
        shared = [("shared", self.shared)] if self.shared else []
        for label, n in ([("losses", self.losses)] if single else []) + shared + [("draws", self.draws)]:
            lo, hi = wilson(n, self.games)
            rate = n / self.games if self.games else 0
            lines.append(f"  {label:<10} {'':<16} {n:>6} {rate:>7.1%}  [{lo:.1%}, {hi:.1%}]")
        if self.shared:
            lines.append("  (shared: games won by more than one seat, which is why the seats' rates add up to more "
                         "than 100%)")
        if single:  # one seat: how well it played, beyond winning
            lines.append("  " + "; ".join(self._means()))
        if len(self.agent_seats) > 1:
            for agent, seats in self.agent_seats.items():
                w = self.agent_wins[agent]
                lo, hi = wilson(w, seats)
                lines.append(f"  {'agent':<10} {agent:<16} {w:>6} {w / seats:>7.1%}  [{lo:.1%}, {hi:.1%}]"
                             f"  (of {seats} seats played)")
        source = {"given": "as given", "rule file": "set by the rule file", "default": "the default",
                  "limit": "the most a rule file may set"}
        cap = f" (cap: {self.cap:,} turns, {source.get(self.cap_source, self.cap_source)})" if self.cap else ""
        lines.append(f"  games stopped at the turn cap: {self.capped}{cap}")
        if self.lengths:
            m, sd = mean_sd(self.lengths)
            lines.append(f"  game length (moves and outcomes): mean {m:.1f} (sd {sd:.1f}), min {min(self.lengths)}, "
                         f"max {max(self.lengths)}; turns: mean {sum(self.turns) / len(self.turns):.1f}")
        lines += self.returns_text()
        for p, parts in enumerate(self.breakdown):
            means = ", ".join(f"{name} {total / self.games:.1f}" for name, total in parts.items())
            lines.append(f"  mean score breakdown, {self.player_names[p]} ({self.agents[p]}): {means}")
        if self.elapsed > 0:  # a summary of a results file has no time
            rate = self.games / self.elapsed
            shown = f"{rate:,.0f}" if rate >= 10 else f"{rate:.2f}"
            cluster = "" if self.cluster_start is None else \
                f", after {self.cluster_start:.2f} s to start or reach the Dask cluster"
            lines.append(f"  {self.games} games in {self.elapsed:.2f} s ({shown} games/s){cluster}")
        return "\n".join(lines)


def simulate(spec: RunSpec, games: int, out=None, workers: int = 1, dask: str | None = None,
             done: list[dict] | None = None, progress: bool = False, folder: Path | None = None,
             game=None, chunk: int | None = None, jails: list | None = None) -> Summary:
    """Play games 0..games-1 of a run (skipping those in `done`, lines of a results file in `folder`);
    write each line to `out` as it comes. `game` is the spec's game if the caller has compiled it already
    (from the spec's bundle). `chunk`: games per task sent to a worker (default: sized from their speed).
    `jails` (see jail.py): the game is compiled, and played unless on Dask, in them (one per worker), never
    here; without them, several workers are jailed processes of their own, and one worker is this process."""
    spec = prepared(spec)
    if game is not None:
        _games[_game_key(spec)] = game
    if jails:
        info = jails[0].run(describe, spec, seconds=LOAD_SECONDS, what=f"loading {spec.file}")
    else:
        info = describe(spec)
    summary = Summary(info.name, spec.variant, agent_names(spec.agents), info.player_names,
                      cap=info.max_turns, cap_source=info.cap_source, own_returns=info.own_returns)
    finished = {line["index"]: line for line in done or [] if spec.matches(line, folder)}
    for index in sorted(finished):
        if index < games:
            summary.add(finished[index])
    indices = [i for i in range(games) if i not in finished]
    bar = None
    if progress:
        label = info.name + (f" [{spec.variant}]" if spec.variant else "")
        bar = show_progress(games, label, initial=games - len(indices))
    start = time.perf_counter()

    def ready():  # a cluster's start is paid once per cluster, not per game: it is reported apart
        nonlocal start
        summary.cluster_start, start = time.perf_counter() - start, time.perf_counter()

    try:
        tell = partial(note, bar) if bar is not None else None  # e.g. where the cluster's dashboard is
        for line in _results(spec, indices, workers, dask, chunk, tell, ready, None if dask else jails):
            summary.add(line)
            if out is not None:
                out.write(json.dumps(line) + "\n")
                out.flush()
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    summary.elapsed = time.perf_counter() - start
    return summary


def compare_runs(summaries: list[Summary]) -> str:
    """Each variant's (or rule file's) run against the first: game length, each seat's win rate and the draw rate
    (see compare.py)."""
    groups = [Games(s.label or s.variant or BASE, s.seeds, s.lengths, s.outcomes, len(s.player_names),
                    s.return_rows if s.own_returns and len(s.return_rows) == s.games else None)
              for s in summaries]
    return compare_text(groups, summaries[0].player_names)
