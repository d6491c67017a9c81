"""Reports on a results file: PNG charts, a summary per variant, and which rules the games used."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from ..engine.load import load_game
from ..errors import RulesDslError
from ..loading import bundled_games
from .stats import mean_sd, wilson


def _numeric(score):
    if isinstance(score, (int, float)) and not isinstance(score, bool):
        return float(score)
    if isinstance(score, list) and score and isinstance(score[0], (int, float)):
        return float(score[0])
    return None


def by_variant(lines: list[dict]) -> dict:
    groups = defaultdict(list)
    for line in lines:
        groups[line.get("variant") or "(base rules)"].append(line)
    return dict(groups)


def rule_coverage(lines: list[dict], rules_path=None) -> str:
    """How often each move kind, chance step and end rule was used; those never used are listed.

    The games are read with `rules_path`; without it, with the rule file the first line names (trusted:
    the command checks which rule file a results file may name, see records.rules_named_by)."""
    first = lines[0]
    path = rules_path or bundled_games().get(first["file"]) or first["file"]
    game = load_game(path, first.get("variant"), first.get("options") or {}, first.get("max_turns"))
    rules = game.rules
    counts: dict[str, int] = defaultdict(int)
    ends: dict = defaultdict(int)
    for line in lines:
        for name, n in line.get("rule_counts", {}).items():
            counts[name] += n
        ends["turn cap" if line.get("capped") else line.get("ended_by")] += 1
    kinds = [name for name, rule in rules.moves.items() if not rule.inputs]  # parts count as their move
    kinds += [s.name for s in rules.steps.values() if s.kind == "chance"]
    kinds += ["pass"] if any(s.pass_rule is not None for s in rules.steps.values()) else []
    out = [f"rule coverage over {len(lines)} games of {game.name}:"]
    width = max(len(k) for k in kinds) if kinds else 10
    for kind in kinds:
        out.append(f"  {kind:<{width}}  {counts.get(kind, 0):>10,}")
    for i, end in enumerate(rules.end_rules):
        out.append(f"  {'end rule ' + str(i + 1):<{width}}  {ends.get(i, 0):>10,}  games ended by it")
    unused = [k for k in kinds if not counts.get(k)] + \
        [f"end rule {i + 1}" for i in range(len(rules.end_rules)) if not ends.get(i)]
    if ends.get("turn cap"):
        out.append(f"  games stopped at the turn cap: {ends['turn cap']}")
    out.append("never used: " + (", ".join(unused) if unused else "(none)"))
    return "\n".join(out)


def write_report(lines: list[dict], folder: Path, rules_path=None) -> list[Path]:
    """Charts (PNG) and a coverage table for a results file; returns the files written."""
    try:
        import matplotlib
    except ImportError:
        raise RulesDslError("charts need matplotlib: pip install 'rulesdsl[report]'") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    folder.mkdir(parents=True, exist_ok=True)
    groups = by_variant(lines)
    written = []

    def save(fig, name):
        path = folder / name
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)

    title = lines[0]["game"]
    fig, ax = plt.subplots(figsize=(7, 4))
    for label, group in groups.items():
        ax.hist([g["plies"] for g in group], bins=30, alpha=0.6, label=label)
    ax.set(title=f"{title}: game length", xlabel="moves and chance outcomes per game", ylabel="games")
    ax.legend()
    save(fig, "game-length.png")

    fig, ax = plt.subplots(figsize=(7, 4))
    n_groups = len(groups)
    for k, (label, group) in enumerate(groups.items()):
        seats = len(group[0]["agents"])
        rates, errors = [], [[], []]
        for p in range(seats):
            wins = sum(p in g["winners"] for g in group)
            lo, hi = wilson(wins, len(group))
            rate = wins / len(group)
            rates.append(rate)
            errors[0].append(rate - lo)
            errors[1].append(hi - rate)
        xs = [p + (k - (n_groups - 1) / 2) * 0.8 / n_groups for p in range(seats)]
        ax.bar(xs, rates, width=0.8 / n_groups, yerr=errors, capsize=4, label=label)
    seats = len(lines[0]["agents"])
    ax.set_xticks(range(seats), [f"seat {p}\n{lines[0]['agents'][p]}" for p in range(seats)])
    ax.set(title=f"{title}: win rate per seat (95% CI)", ylabel="share of games won")
    ax.legend()
    save(fig, "win-rate.png")

    fig, ax = plt.subplots(figsize=(7, 4))
    plotted = False
    for label, group in groups.items():
        for p in range(len(group[0]["agents"])):
            values = [_numeric(g["scores"][p]) for g in group if g["scores"]]
            values = [v for v in values if v is not None]
            if values:
                ax.hist(values, bins=25, alpha=0.5, label=f"{label}, seat {p}")
                plotted = True
    ax.set(title=f"{title}: final scores", xlabel="score", ylabel="games")
    if plotted:
        ax.legend(fontsize=8)
    save(fig, "scores.png")

    if len(groups) > 1:
        fig, (left, right) = plt.subplots(1, 2, figsize=(9, 4))
        labels = list(groups)
        means, halves = [], []
        for group in groups.values():
            m, sd = mean_sd([g["plies"] for g in group])
            means.append(m)
            halves.append(1.96 * sd / len(group) ** 0.5)
        left.bar(labels, means, yerr=halves, capsize=4)
        left.set(title="mean game length (95% CI)", ylabel="moves and outcomes")
        draws = [sum(not g["winners"] for g in group) / len(group) for group in groups.values()]
        first = [sum(0 in g["winners"] for g in group) / len(group) for group in groups.values()]
        right.bar([x - 0.2 for x in range(len(labels))], first, width=0.4, label="seat 0 wins")
        right.bar([x + 0.2 for x in range(len(labels))], draws, width=0.4, label="draws")
        right.set_xticks(range(len(labels)), labels)
        right.set(title="results by variant")
        right.legend()
        save(fig, "variants.png")

    coverage = folder / "coverage.txt"
    coverage.write_text(rule_coverage(lines, rules_path) + "\n", encoding="utf-8")
    written.append(coverage)
    return written
