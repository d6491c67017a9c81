"""Game-quality measures of a set of games (after Browne's evaluation of generated games): decisiveness, drama,
lead changes, branching factor by phase, first-move advantage and the spread of game length. Defined in
docs/report.md; computed from results lines alone (old lines without branching or score traces say so)."""

from __future__ import annotations

from dataclasses import dataclass
from statistics import quantiles

from .stats import mean_sd, wilson

PHASES = ("first third", "middle third", "last third")


@dataclass
class Measure:
    """One quality measure: its name, its value as text (or why it cannot be computed), and what it counted."""

    name: str
    value: str
    detail: str = ""
    number: float | None = None  # the value itself, None when not computable


def decisiveness(lines: list[dict]) -> Measure:
    """The share of games with at least one winner, with its 95% Wilson interval."""
    decided = sum(bool(line["winners"]) for line in lines)
    low, high = wilson(decided, len(lines))
    rate = decided / len(lines) if lines else 0.0
    return Measure("decisiveness", f"{rate:.1%} [{low:.1%}, {high:.1%}]",
                   f"{decided} of {len(lines)} games have a winner", rate)


def _trace(line: dict) -> list | None:
    """The line's score trace as [(turn, scores)], or None when it has none."""
    trace = line.get("score_trace")
    if not trace:
        return None
    return [(entry[0], entry[1:]) for entry in trace]


def leader(scores: list) -> int | None:
    """The seat with the highest score alone, or None on a tie for the lead."""
    best = max(scores)
    leaders = [p for p, s in enumerate(scores) if s == best]
    return leaders[0] if len(leaders) == 1 else None


def behind_share(line: dict) -> float | None:
    """For a game with one winner and a score trace: the share of its turns during which the eventual winner's
    score was below another seat's (each trace entry holds until the next, the last until the game's end)."""
    trace = _trace(line)
    if trace is None or len(line["winners"]) != 1:
        return None
    winner = line["winners"][0]
    end = max(line["turns"], trace[-1][0])
    total = behind = 0
    for i, (turn, scores) in enumerate(trace):
        until = trace[i + 1][0] if i + 1 < len(trace) else end
        span = max(until - turn, 0)
        total += span
        if scores[winner] < max(scores):
            behind += span
    if total == 0:  # every entry at one turn: count entries instead
        return sum(s[winner] < max(s) for _, s in trace) / len(trace)
    return behind / total


def lead_changes(line: dict) -> int | None:
    """How often the sole leader changed over the game's score trace (ties for the lead change nothing)."""
    trace = _trace(line)
    if trace is None:
        return None
    changes, current = 0, None
    for _, scores in trace:
        now = leader(scores)
        if now is not None:
            changes += current is not None and now != current
            current = now
    return changes


NO_TRACE = ("not computable: no game records a score trace (simulate --score-trace records one when the rules "
            "define numeric scores)")


def drama(lines: list[dict]) -> Measure:
    """Mean share of the turns the eventual winner spent behind, over games with one winner and a score trace."""
    shares = [s for s in map(behind_share, lines) if s is not None]
    if not shares:
        traced = any(line.get("score_trace") for line in lines)
        why = "not computable: no game with one winner has a score trace" if traced else NO_TRACE
        return Measure("drama", why)
    m, _ = mean_sd(shares)
    comebacks = sum(s > 0 for s in shares)
    return Measure("drama", f"{m:.1%} of turns behind",
                   f"the winner was ever behind in {comebacks} of {len(shares)} games "
                   f"({comebacks / len(shares):.1%})", m)


def lead_change_measure(lines: list[dict]) -> Measure:
    """Mean lead changes per game, over games with a score trace."""
    counts = [c for c in map(lead_changes, lines) if c is not None]
    if not counts:
        return Measure("lead changes", NO_TRACE)
    m, sd = mean_sd(counts)
    some = sum(c > 0 for c in counts)
    return Measure("lead changes", f"{m:.2f} per game (sd {sd:.2f})",
                   f"{some} of {len(counts)} games have at least one", m)


def branching(lines: list[dict]) -> list[Measure]:
    """Mean legal moves per decision over all decisions, then in each third of the games' decisions."""
    parts = [[0, 0], [0, 0], [0, 0]]
    for line in lines:
        for part, (moves, decisions) in zip(parts, line.get("branching") or ()):
            part[0] += moves
            part[1] += decisions
    moves, decisions = sum(p[0] for p in parts), sum(p[1] for p in parts)
    if not decisions:
        recorded = any(line.get("branching") for line in lines)
        why = "not computable: " + ("no game has a decision" if recorded else
                                     "the results were written before legal moves were counted")
        return [Measure("branching factor", why)]
    out = [Measure("branching factor", f"{moves / decisions:.2f} legal moves per decision",
                   f"{decisions:,} decisions", moves / decisions)]
    for name, (m, d) in zip(PHASES, parts):
        out.append(Measure(f"  {name}", f"{m / d:.2f}" if d else "(no decisions)", f"{d:,} decisions",
                           m / d if d else None))
    return out


def first_move(firsts: list, lines: list[dict], seats: int) -> Measure:
    """How often the seat that decided first won, against an even share of the wins (1 / seats)."""
    known = [(line, seat) for line, seat in zip(lines, firsts) if seat is not None]
    if not known:
        return Measure("first-move advantage", "not computable: no game opens with one seat's decision")
    wins = sum(seat in line["winners"] for line, seat in known)
    low, high = wilson(wins, len(known))
    even = 1 / seats
    verdict = "outside" if not low <= even <= high else "inside"
    return Measure("first-move advantage", f"{wins / len(known):.1%} [{low:.1%}, {high:.1%}] won",
                   f"even share {even:.1%}, {verdict} the interval; {len(known)} games", wins / len(known) - even)


def length_spread(lines: list[dict]) -> Measure:
    """The standard deviation and interquartile range of game length (moves and chance outcomes)."""
    lengths = [line["plies"] for line in lines]
    _, sd = mean_sd(lengths)
    if len(lengths) < 2:
        return Measure("length spread", f"sd {sd:.1f}", "one game: no quartiles", sd)
    q1, _, q3 = quantiles(lengths, n=4, method="inclusive")
    return Measure("length spread", f"sd {sd:.1f}, IQR {q3 - q1:g}", f"quartiles {q1:g} and {q3:g}", sd)


def measures(lines: list[dict], firsts: list, seats: int) -> list[Measure]:
    """Every quality measure of one variant's games, in the order reports show them."""
    return [decisiveness(lines), drama(lines), lead_change_measure(lines), *branching(lines),
            first_move(firsts, lines, seats), length_spread(lines)]


def quality_text(lines: list[dict], firsts: list, seats: int) -> list[str]:
    """The measures as report lines."""
    out = ["game quality (see docs/report.md):"]
    for m in measures(lines, firsts, seats):
        out.append(f"  {m.name:<22} {m.value}" + (f"  ({m.detail})" if m.detail else ""))
    return out
