"""The report as one self-contained HTML page: tables, intervals, the variants compared, charts embedded, rule
coverage with unused rules at their lines. Every text from a results or rule file is escaped; nothing is fetched."""

from __future__ import annotations

import base64
from html import escape

from ..errors import RulesDslError
from .compare import DRAWS, Games, differences, return_differences, unpairable
from .report import Analysis, analyse, distributions, first_player, interval
from .quality import measures
from .report_charts import chart_images
from .stats import mean_interval, return_interval, shown_p, wilson

STYLE = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 62em; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
h3 { font-size: 1em; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
th, td { padding: 0.2em 0.7em; border-bottom: 1px solid #e4e4e4; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.note { color: #555; font-size: 0.9em; } .dead { color: #a40000; } .sig { font-weight: bold; }
img { max-width: 100%; }
"""
# the page fetches nothing and runs nothing, and tells the browser so: should a text ever slip past escaping,
# it could neither load nor send anything
POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def html_report(results_path: str, rules_path: str | None = None) -> str:
    """The HTML report of a results file (the rule file it names is read only if it may be: see records)."""
    return render(analyse(results_path, rules_path))


def render(analysis: Analysis) -> str:
    """The page for an analysed results file; the charts are left out, with a note, without matplotlib."""
    try:
        images = chart_images(analysis)
    except RulesDslError as exc:
        images, missing = {}, str(exc)
    else:
        missing = ""
    title = escape(analysis.title)
    games = sum(len(v.lines) for v in analysis.variants)
    body = [f"<h1>{title}: balance report</h1>",
            f"<p>{games:,} games from <code>{escape(str(analysis.path))}</code>, played with "
            f"<code>{escape(str(analysis.rules_path))}</code>; variants: "
            f"{', '.join(escape(v.label) for v in analysis.variants)}. Intervals are 95%: Wilson for rates, "
            "Student's t for means.</p>"]
    body += _wins(analysis)
    body += _returns(analysis)
    if len(analysis.variants) > 1:
        body += _comparison(analysis)
    body += _distributions(analysis)
    body += _quality(analysis)
    body.append("<h2>Charts</h2>")
    if missing:
        body.append(f'<p class="note">{escape(missing)}</p>')
    for name, png in images.items():
        data = base64.b64encode(png).decode("ascii")
        body.append(f'<p><img alt="{escape(name)}" src="data:image/png;base64,{data}"></p>')
    body += _coverage(analysis)
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">\n'
            f"<title>{title}: balance report</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


def _table(header: list[str], rows: list[list], marked=()) -> str:
    """An HTML table; cells are escaped, numbers right-aligned, the rows numbered in `marked` in bold."""
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    lines = []
    for i, row in enumerate(rows):
        cells = "".join(f'<td class="n">{cell:,}</td>' if isinstance(cell, int) else f"<td>{escape(str(cell))}</td>"
                        for cell in row)
        lines.append(f'<tr class="sig">{cells}</tr>' if i in marked else f"<tr>{cells}</tr>")
    return f"<table><tr>{head}</tr>\n" + "\n".join(lines) + "</table>"


def _rate(hits: int, n: int) -> list:
    low, high = wilson(hits, n)
    return [hits, f"{hits / n if n else 0:.1%}", f"[{low:.1%}, {high:.1%}]"]


def _wins(analysis: Analysis) -> list[str]:
    """Per variant: each seat's wins, shared wins, draws, and the first player's share."""
    out = ["<h2>Results per seat</h2>"]
    for variant in analysis.variants:
        summary, n = variant.summary, len(variant.lines)
        agents = variant.lines[0]["agents"]
        rows = [[name, agents[p]] + _rate(summary.wins[p], n) for p, name in enumerate(variant.seats)]
        rows.append(["shared", "(won by more than one seat)"] + _rate(summary.shared, n))
        rows.append(["draws", "(no winner)"] + _rate(summary.draws, n))
        out.append(f"<h3>{escape(variant.label)}: {n:,} games</h3>")
        out.append(_table(["seat", "agent", "wins", "rate", "95% CI"], rows))
        if summary.shared:
            out.append('<p class="note">Shared games count as a win for each of their winners, so the seats\' '
                       "rates add up to more than 100%.</p>")
        found = first_player(variant)
        if found:
            wins, known, low, high, even = found
            verdict = "outside" if not low <= even <= high else "inside"
            out.append(f"<p>First-player advantage: the seat that decided first won {wins / known:.1%} "
                       f"[{low:.1%}, {high:.1%}] of {known:,} games; an even share, {even:.1%}, lies {verdict} "
                       "that interval.</p>")
        if summary.capped:
            out.append(f"<p>{summary.capped:,} games stopped at the turn cap (scored as draws).</p>")
    return out


def _returns(analysis: Analysis) -> list[str]:
    """Each seat's mean return with its 95% t interval, per variant whose rules give returns of their own."""
    rows = []
    for variant in analysis.variants:
        summary = variant.summary
        if summary.own_returns and summary.return_rows:
            for p, name in enumerate(summary.player_names):
                m, low, high = mean_interval(row[p] for row in summary.return_rows)
                rows.append([variant.label, name, summary.agents[p], len(summary.return_rows), f"{m:+.3f}",
                             return_interval(low, high)])
    if not rows:
        return []
    return ["<h2>Returns</h2>", '<p class="note">Each seat\'s result as the rules give it (<code>scoring: '
            "returns</code>): its mean over the games, with the 95% Student's t interval.</p>",
            _table(["variant", "seat", "agent", "n", "mean", "95% CI"], rows)]


def _comparison(analysis: Analysis) -> list[str]:
    """Each variant against the first: game length and each seat's win rate, with the test used."""
    base = analysis.variants[0]
    base_games = Games.of_lines(base.label, base.lines, base.game.rules.returns is not None)
    out = ["<h2>Variants compared</h2>",
           f'<p class="note">Each variant against <b>{escape(base.label)}</b>. Runs of the same seeds are compared '
           "game by game: game length by a paired t test, a seat's wins by an exact McNemar test (of the games "
           "whose result for that seat changes, how many go each way), the draw rate by an exact McNemar test on "
           "draw or not. Otherwise Welch's t test. Bold: p &lt; 0.05."
           "</p>"]
    for variant in analysis.variants[1:]:
        other = Games.of_lines(variant.label, variant.lines, variant.game.rules.returns is not None)
        why = unpairable(base_games, other)
        if why:
            out.append(f"<h3>{escape(variant.label)} against {escape(base.label)}</h3>")
            out.append(f"<p>{escape(why[0].upper() + why[1:])}.</p>")
            continue
        paired, found = differences(base_games, other, base.seats)
        rows = []
        for d in found:
            if d.measure == "game length":
                values = [d.measure, f"{d.base:.1f}", f"{d.other:.1f}", f"{d.other - d.base:+.1f}"]
            else:
                values = [d.measure if d.measure == DRAWS else f"{d.measure} wins", f"{d.base:.1%}", f"{d.other:.1%}",
                          f"{(d.other - d.base) * 100:+.1f} points"]
            rows.append(values + [shown_p(d.p), d.test, d.detail])
        for d in return_differences(base_games, other, base.seats):
            found.append(d)  # (marked significant below, in the order of the rows)
            rows.append([f"{d.measure} return", f"{d.base:+.3f}", f"{d.other:+.3f}", f"{d.other - d.base:+.3f}",
                         shown_p(d.p), d.test, ""])
        significant = {i for i, d in enumerate(found) if d.significant}
        table = _table(["measure", base.label, variant.label, "change", "p", "test", ""], rows, significant)
        how = "paired by seed" if paired else "different seeds: unpaired"
        out.append(f"<h3>{escape(variant.label)} against {escape(base.label)} ({how})</h3>")
        out.append(table)
    return out


def _distributions(analysis: Analysis) -> list[str]:
    """Game length and each seat's numeric score per variant: mean, 95% t interval, median and range."""
    rows = [[variant.label, label, n, f"{m:.2f}", interval(low, high, 2), f"{median:g}", f"{least:g} to {most:g}"]
            for variant in analysis.variants
            for label, n, m, low, high, median, least, most in distributions(variant)]
    return ["<h2>Game length and scores</h2>",
            _table(["variant", "measure", "n", "mean", "95% CI", "median", "range"], rows)]


def _quality(analysis: Analysis) -> list[str]:
    """Per variant: the game-quality measures (quality.py), each with what it counted."""
    rows = [[variant.label, m.name.strip(), m.value, m.detail]
            for variant in analysis.variants
            for m in measures(variant.lines, variant.first, len(variant.seats))]
    return ["<h2>Game quality</h2>",
            '<p class="note">Decisiveness, drama, lead changes, branching factor (mean legal moves per decision; '
            "then in each third of the games' decisions), first-move advantage and the spread of game length, "
            "as defined in docs/report.md.</p>",
            _table(["variant", "measure", "value", ""], rows)]


def _coverage(analysis: Analysis) -> list[str]:
    """Per variant: how often each rule was used, and the rules no game used at their file:line."""
    out = ["<h2>Rule coverage</h2>"]
    for variant in analysis.variants:
        rows, ends, dead = variant.coverage()
        out.append(f"<h3>{escape(variant.label)}: {len(variant.lines):,} games</h3>")
        table_rows = [[name, n, note] for name, n, note in rows]
        if ends.get("turn cap"):
            table_rows.append(["turn cap", ends["turn cap"], "games stopped by it"])
        out.append(_table(["rule", "times used", ""], table_rows))
        if dead:
            items = "".join(f"<li><code>{escape(str(where or variant.game.rules.source))}</code>: {escape(what)}</li>"
                            for what, where in dead)
            out.append(f'<p class="dead">Never used (a rule no game uses may be unreachable):</p><ul>{items}</ul>')
        else:
            out.append("<p>Every rule was used.</p>")
    return out
