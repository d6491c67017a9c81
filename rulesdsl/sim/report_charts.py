"""The report's charts as PNG images (matplotlib, the `report` extra): win rates, game length, scores, variants."""

from __future__ import annotations

import io
import math

from ..errors import RulesDslError
from ..terminal import safe_text
from .stats import mean_interval, wilson

WIDTH = 0.8  # of a seat's slot, shared by its variants' bars


def chart_images(analysis) -> dict[str, bytes]:
    """{file name: PNG} for an Analysis (see report.py). The same analysis gives the same bytes."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise RulesDslError("charts need matplotlib: pip install 'rulesdsl[report]'") from None
    charts = {"win-rate.png": _win_rates, "game-length.png": _lengths, "scores.png": _scores}
    if len(analysis.variants) > 1:
        charts["variants.png"] = _variants
    images = {}
    for name, draw in charts.items():
        figure = draw(Figure, analysis)
        figure.tight_layout()
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=110, metadata={"Software": None})  # no version: same bytes
        images[name] = buffer.getvalue()
    return images


# The files' names (game, seats, agents, variants) are drawn with their control characters shown as escapes
# (terminal.safe_text), as everywhere else: a font has no picture for them.

def _n(variant) -> str:
    return f"{safe_text(variant.label)} (n = {len(variant.lines)})"


def _games(analysis) -> str:
    """The number of games for a title: n, or n per variant."""
    counts = {len(v.lines) for v in analysis.variants}
    each = " per variant" if len(analysis.variants) > 1 else ""
    return f"n = {counts.pop():,} games{each}" if len(counts) == 1 else "n per variant in the legend"


def _win_rates(Figure, analysis):
    """Each seat's win rate per variant with its 95% Wilson interval, and the even share of the wins."""
    figure = Figure(figsize=(7, 4.2))
    ax = figure.add_subplot()
    seats = analysis.variants[0].seats
    count = len(analysis.variants)
    for k, variant in enumerate(analysis.variants):
        games = len(variant.lines)
        rates, below, above = [], [], []
        for p in range(len(seats)):
            wins = variant.summary.wins[p]
            low, high = wilson(wins, games)
            rates.append(wins / games)
            below.append(max(0.0, wins / games - low))  # rounding must not make a bar's error negative
            above.append(max(0.0, high - wins / games))
        xs = [p + (k - (count - 1) / 2) * WIDTH / count for p in range(len(seats))]
        ax.bar(xs, rates, width=WIDTH / count, yerr=[below, above], capsize=4, label=_n(variant))
    ax.axhline(1 / len(seats), color="black", linestyle="--", linewidth=1, label=f"even share ({1 / len(seats):.0%})")
    agents = analysis.variants[0].lines[0]["agents"]
    ax.set_xticks(range(len(seats)), [safe_text(f"{name}\n{agent}") for name, agent in zip(seats, agents)])
    ax.set(title=f"{safe_text(analysis.title)}: win rate per seat (95% Wilson CI), {_games(analysis)}", xlabel="seat and agent",
           ylabel="share of games won", ylim=(0, 1))
    ax.legend(fontsize=8)
    return figure


def _lengths(Figure, analysis):
    """The distribution of game length, one outline per variant."""
    figure = Figure(figsize=(7, 4))
    ax = figure.add_subplot()
    for variant in analysis.variants:
        lengths = variant.summary.lengths
        m = sum(lengths) / len(lengths)
        ax.hist(lengths, bins=30, histtype="step", linewidth=1.5, label=f"{_n(variant)}, mean {m:.1f}")
    ax.set(title=f"{safe_text(analysis.title)}: game length, {_games(analysis)}", xlabel="moves and chance outcomes per game", ylabel="games")
    ax.legend(fontsize=8)
    return figure


def _scores(Figure, analysis):
    """Each seat's final scores in a panel of its own, one outline per variant."""
    seats = analysis.variants[0].seats
    figure = Figure(figsize=(7, 1.2 + 1.8 * len(seats)))
    axes = figure.subplots(len(seats), 1, sharex=True, squeeze=False)[:, 0]
    for p, ax in enumerate(axes):
        drawn = False
        for variant in analysis.variants:
            values = variant.scores(p)
            if values:
                ax.hist(values, bins=25, histtype="step", linewidth=1.5, label=_n(variant))
                drawn = True
        ax.set(ylabel="games", title=safe_text(seats[p]))
        if drawn:
            ax.legend(fontsize=7)
        else:
            ax.text(0.5, 0.5, "no numeric scores", ha="center", va="center", transform=ax.transAxes)
    axes[-1].set(xlabel="final score")
    figure.suptitle(f"{safe_text(analysis.title)}: final scores per seat, {_games(analysis)}")
    return figure


def _variants(Figure, analysis):
    """Variant against variant: mean game length (95% t interval); first player's wins and draws (95% Wilson)."""
    figure = Figure(figsize=(9, 4))
    left, right = figure.subplots(1, 2)
    labels = [safe_text(v.label) for v in analysis.variants]
    means, below, above = [], [], []
    for variant in analysis.variants:
        m, low, high = mean_interval(variant.summary.lengths)
        finite = math.isfinite(low)  # one game has no interval
        means.append(m)
        below.append(max(0.0, m - low) if finite else 0)
        above.append(max(0.0, high - m) if finite else 0)
    left.bar(labels, means, yerr=[below, above], capsize=4)
    left.set(title=f"mean game length (95% t CI), {_games(analysis)}", xlabel="variant", ylabel="moves and chance outcomes")
    for offset, name, counts in ((-0.2, "first player wins", lambda v: v.first_player_wins()),
                                 (0.2, "draws", lambda v: (v.summary.draws, len(v.lines)))):
        rates, low_err, high_err = [], [], []
        for variant in analysis.variants:
            hits, n = counts(variant)
            low, high = wilson(hits, n)
            rate = hits / n if n else 0.0
            rates.append(rate)
            low_err.append(max(0.0, rate - low) if n else 0)
            high_err.append(max(0.0, high - rate) if n else 0)
        right.bar([x + offset for x in range(len(labels))], rates, width=0.4, yerr=[low_err, high_err], capsize=4,
                  label=name)
    seats = len(analysis.variants[0].seats)
    right.axhline(1 / seats, color="black", linestyle="--", linewidth=1, label=f"even share ({1 / seats:.0%})")
    right.set_xticks(range(len(labels)), labels)
    right.set(title="results by variant (95% Wilson CI)", xlabel="variant", ylabel="share of games", ylim=(0, 1))
    right.legend(fontsize=8)
    return figure
