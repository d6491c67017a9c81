"""The report's charts as PNG images (matplotlib, the `report` extra): win rates, game length, scores, variants."""

from __future__ import annotations

import io
import math

from ..errors import RulesDslError
from ..terminal import safe_text
from .compare import DRAWS, Games, differences, unpairable
from .stats import mean_interval, shown_p, wilson

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
    """Each seat's win rate per variant with its 95% Wilson interval, and the even share of the wins (games of
    several player counts: each variant's bars over its own seats, the axis named by the widest's)."""
    figure = Figure(figsize=(7, 4.2))
    ax = figure.add_subplot()
    widest = max(analysis.variants, key=lambda v: len(v.seats))
    seats = widest.seats
    count = len(analysis.variants)
    for k, variant in enumerate(analysis.variants):
        games = len(variant.lines)
        rates, below, above = [], [], []
        for p in range(len(variant.seats)):
            wins = variant.summary.wins[p]
            low, high = wilson(wins, games)
            rates.append(wins / games)
            below.append(max(0.0, wins / games - low))  # rounding must not make a bar's error negative
            above.append(max(0.0, high - wins / games))
        xs = [p + (k - (count - 1) / 2) * WIDTH / count for p in range(len(variant.seats))]
        ax.bar(xs, rates, width=WIDTH / count, yerr=[below, above], capsize=4, label=_n(variant))
    for share in sorted({1 / len(v.seats) for v in analysis.variants}, reverse=True):
        ax.axhline(share, color="black", linestyle="--", linewidth=1, label=f"even share ({share:.0%})")
    agents = widest.lines[0]["agents"]
    ax.set_xticks(range(len(seats)), [safe_text(f"{name}\n{agent}") for name, agent in zip(seats, agents)])
    ax.set(title=f"{safe_text(analysis.title)}: win rate per seat (95% Wilson CI), {_games(analysis)}", xlabel="seat and agent",
           ylabel="share of games won", ylim=(0, 1))
    ax.legend(fontsize=8)
    return figure


LINES = ("-", "--", ":", "-.")  # one per variant, in turn: identical histograms still show as two outlines


def _bins(values: list, most: int):
    """Bin edges shared by every variant's histogram (else each would draw its own and their heights would not
    compare): at most `most` bins over the range of all values, whole-number wide for whole numbers."""
    low, high = min(values), max(values)
    if all(float(v).is_integer() for v in values):
        step = max(1, math.ceil((high - low + 1) / most))
        return [low - 0.5 + i * step for i in range(math.ceil((high - low + 1) / step) + 1)]
    if low == high:
        return [low - 0.5, high + 0.5]
    return [low + (high - low) * i / most for i in range(most + 1)]


def _overlaid(ax, groups: list, most: int) -> None:
    """Histograms of several variants on one axis, none hiding another: a light fill each, under a step
    outline of its own colour and line style, with a legend. `groups`: [(label, values)]."""
    values = [v for _, group in groups for v in group]
    bins = _bins(values, most)
    for k, (label, group) in enumerate(groups):
        colour = f"C{k % 10}"
        ax.hist(group, bins=bins, histtype="stepfilled", alpha=0.15, color=colour)
        ax.hist(group, bins=bins, histtype="step", linewidth=1.6, linestyle=LINES[k % len(LINES)], color=colour,
                label=label)


def _lengths(Figure, analysis):
    """The distribution of game length, one outline per variant."""
    figure = Figure(figsize=(7, 4))
    ax = figure.add_subplot()
    groups = [(f"{_n(v)}, mean {sum(v.summary.lengths) / len(v.summary.lengths):.1f}", v.summary.lengths)
              for v in analysis.variants]
    _overlaid(ax, groups, 30)
    ax.set(title=f"{safe_text(analysis.title)}: game length, {_games(analysis)}", xlabel="moves and chance outcomes per game", ylabel="games")
    ax.legend(fontsize=8)
    return figure


def _scores(Figure, analysis):
    """Each seat's final scores in a panel of its own, one outline per variant."""
    seats = max((v.seats for v in analysis.variants), key=len)
    figure = Figure(figsize=(7, 1.2 + 1.8 * len(seats)))
    axes = figure.subplots(len(seats), 1, sharex=True, squeeze=False)[:, 0]
    for p, ax in enumerate(axes):
        groups = [(_n(v), v.scores(p)) for v in analysis.variants if p < len(v.seats)]
        groups = [(label, values) for label, values in groups if values]
        drawn = bool(groups)
        if drawn:
            _overlaid(ax, groups, 25)
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
    left.set(xlabel="variant", ylabel="moves and chance outcomes")
    left.set_title(f"mean game length (95% t CI), {_games(analysis)}", fontsize=10)
    for offset, name, counts in ((-0.2, "first player wins", lambda v: v.first_player_wins()),
                                 (0.2, "draws (p: against the first)", lambda v: (v.summary.draws, len(v.lines)))):
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
        if name.startswith("draws"):  # each variant's draw rate against the first's, as compared, over its bar
            for x, p in _draw_tests(analysis):
                right.annotate(shown_p(p), (x + offset, min(0.95, rates[x] + high_err[x] + 0.02)), ha="center",
                               fontsize=7, fontweight="bold" if p < 0.05 else "normal")
    seats = len(analysis.variants[0].seats)
    right.axhline(1 / seats, color="black", linestyle="--", linewidth=1, label=f"even share ({1 / seats:.0%})")
    right.set_xticks(range(len(labels)), labels)
    right.set(xlabel="variant", ylabel="share of games", ylim=(0, 1))
    right.set_title("results by variant (95% Wilson CI)", fontsize=10)
    right.legend(fontsize=8)
    return figure


def _draw_tests(analysis) -> list[tuple[int, float]]:
    """(position, p-value) of each variant's draw rate against the first's, as the comparison tests it (exact
    McNemar on games paired by seed, else Welch); variants of another player count are left out."""
    base = Games.of_lines(analysis.variants[0].label, analysis.variants[0].lines)
    found = []
    for x, variant in enumerate(analysis.variants[1:], 1):
        other = Games.of_lines(variant.label, variant.lines)
        if unpairable(base, other) is None and len(variant.seats) > 1:
            _, differences_found = differences(base, other, variant.seats)
            found += [(x, d.p) for d in differences_found if d.measure == DRAWS]
    return found
