"""Many seeded games: per-game seeds from the run seed, results streamed to JSONL, a summary with intervals."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

from ..agents import make_agent
from ..engine.rng import derive_seed
from .runner import play_game
from .stats import mean_sd, paired_p_value, welch_p_value, wilson


@dataclass
class Summary:
    """Aggregate results of a run."""

    game: str
    variant: str | None
    agents: list
    player_names: list
    games: int = 0
    wins: list = field(default_factory=list)
    draws: int = 0
    capped: int = 0
    lengths: list = field(default_factory=list)
    seeds: list = field(default_factory=list)
    turns: list = field(default_factory=list)
    rule_counts: dict = field(default_factory=dict)
    elapsed: float = 0.0

    def add(self, record) -> None:
        if not self.wins:
            self.wins = [0] * len(self.player_names)
        self.games += 1
        for p in record.winners:
            self.wins[p] += 1
        if not record.winners:
            self.draws += 1
        self.capped += bool(record.capped)
        self.lengths.append(record.plies)
        self.seeds.append(record.seed)
        self.turns.append(record.turns)
        for name, n in record.rule_counts.items():
            self.rule_counts[name] = self.rule_counts.get(name, 0) + n

    def format(self) -> str:
        title = f"{self.game}" + (f" [{self.variant}]" if self.variant else "")
        lines = [f"{title}: {self.games} games, agents {','.join(self.agents)}"]
        lines.append(f"  {'seat':<10} {'agent':<10} {'wins':>6} {'rate':>7}  95% CI")
        for p, name in enumerate(self.player_names):
            w = self.wins[p] if self.wins else 0
            lo, hi = wilson(w, self.games)
            rate = w / self.games if self.games else 0
            lines.append(f"  {name:<10} {self.agents[p]:<10} {w:>6} {rate:>7.1%}  [{lo:.1%}, {hi:.1%}]")
        lo, hi = wilson(self.draws, self.games)
        rate = self.draws / self.games if self.games else 0
        lines.append(f"  {'draws':<10} {'':<10} {self.draws:>6} {rate:>7.1%}  [{lo:.1%}, {hi:.1%}]")
        if self.capped:
            lines.append(f"  games stopped at the turn cap: {self.capped}")
        if self.lengths:
            m, sd = mean_sd(self.lengths)
            lines.append(f"  game length (moves and outcomes): mean {m:.1f} (sd {sd:.1f}), min {min(self.lengths)}, "
                         f"max {max(self.lengths)}; turns: mean {sum(self.turns) / len(self.turns):.1f}")
        rate = self.games / self.elapsed if self.elapsed > 0 else float("inf")
        lines.append(f"  {self.games} games in {self.elapsed:.2f} s ({rate:,.0f} games/s)")
        return "\n".join(lines)


def simulate(game, games: int, seed: int, agent_names: list[str], out=None, on_game=None) -> Summary:
    """Play `games` games; game i uses seed derive_seed(seed, i), so any subset can be rerun exactly."""
    agents = [make_agent(a) for a in agent_names]
    summary = Summary(game.name, game.variant, agent_names, game.player_names)
    start = time.perf_counter()
    for index in range(games):
        game_seed = derive_seed(seed, index)
        record = play_game(game, agents, game_seed)
        summary.add(record)
        if out is not None:
            line = {"index": index, "game": game.name, "file": game.path, "variant": game.variant,
                    "options": game.options, "max_turns": game.max_turns, **record.to_json()}
            out.write(json.dumps(line) + "\n")
            out.flush()
        if on_game is not None:
            on_game(index, record)
    summary.elapsed = time.perf_counter() - start
    return summary


def compare_lengths(summaries: list[Summary]) -> str:
    """Game length of each variant against the first, with the p-value of the difference (Welch)."""
    base = summaries[0]
    lines = ["game length by variant (moves and outcomes):"]
    for summary in summaries:
        m, sd = mean_sd(summary.lengths)
        half = 1.96 * sd / (len(summary.lengths) ** 0.5) if summary.lengths else 0.0
        label = summary.variant or "(base rules)"
        line = f"  {label:<20} mean {m:8.1f}  95% CI [{m - half:.1f}, {m + half:.1f}]"
        if summary is not base:
            paired = summary.seeds == base.seeds  # same seeds: compare game by game
            p = (paired_p_value if paired else welch_p_value)(base.lengths, summary.lengths)
            verdict = "significant" if p < 0.05 else "not significant"
            test = "paired by seed" if paired else "Welch"
            line += (f"  vs {base.variant or '(base rules)'}: {m - mean_sd(base.lengths)[0]:+.1f}, "
                     f"p = {p:.3g} ({verdict}, {test})")
        lines.append(line)
    return "\n".join(lines)
