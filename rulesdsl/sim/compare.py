"""Variants compared with the first: game length and each seat's win rate, game by game when they share seeds."""

from __future__ import annotations

from dataclasses import dataclass

from .stats import mcnemar_p_value, mean_interval, paired_p_value, shown_p, welch_p_value

BASE = "(base rules)"  # how the rules without a variant are labelled
DRAWS = "draws"  # the measure of the draw rate (games without a winner)


@dataclass
class Games:
    """What a comparison needs of one variant's games: each game's seed, length and winners."""

    label: str
    seeds: list
    lengths: list
    winners: list  # per game, the seats that won
    seats: int | None = None  # how many seats the games have (None: as many as the comparison's seat names)
    returns: list | None = None  # per game, each seat's returns, when the rules give their own (`scoring: returns`)

    @classmethod
    def of_lines(cls, label: str, lines: list[dict], own_returns: bool = False) -> Games:
        """The games of results lines; `own_returns`: the rules give returns of their own, compared when every
        line records them."""
        returns = [g.get("returns") for g in lines]
        return cls(label, [g["seed"] for g in lines], [g["plies"] for g in lines], [g["winners"] for g in lines],
                   len(lines[0]["agents"]) if lines else None,
                   returns if own_returns and lines and all(r is not None for r in returns) else None)


def unpairable(base: Games, other: Games) -> str | None:
    """Why `other` cannot be compared with `base` (games of different player counts), or None."""
    if base.seats is not None and other.seats is not None and base.seats != other.seats:
        return (f"not compared: {other.label} has {other.seats} players and {base.label} {base.seats}; games "
                "of different player counts cannot be paired, nor their seats' wins compared")
    return None


@dataclass
class Difference:
    """One measure of a variant against the base: both values, the test used and its p-value."""

    measure: str  # 'game length' or a seat's name
    base: float
    other: float
    p: float
    test: str
    detail: str = ""  # what the test counted (the games whose winner differs)

    @property
    def significant(self) -> bool:
        return self.p < 0.05


def pairing(base: Games, other: Games) -> list[int] | None:
    """For each game of `base`, the position of the game of `other` with the same seed; None unless both ran
    exactly the same seeds (variants of one simulate run do: game i's seed depends only on the run seed and i)."""
    where = {seed: i for i, seed in enumerate(other.seeds)}
    if len(where) != len(other.seeds) or len(set(base.seeds)) != len(base.seeds) or set(where) != set(base.seeds):
        return None
    return [where[seed] for seed in base.seeds]


def mean(values) -> float:
    return sum(values) / len(values) if values else 0.0


def differences(base: Games, other: Games, seat_names: list[str]) -> tuple[bool, list[Difference]]:
    """(paired?, the differences in game length and in each seat's win rate) of `other` against `base`."""
    order = pairing(base, other)
    lengths = other.lengths if order is None else [other.lengths[i] for i in order]
    winners = other.winners if order is None else [other.winners[i] for i in order]
    found = [Difference("game length", mean(base.lengths), mean(lengths),
                        (welch_p_value if order is None else paired_p_value)(base.lengths, lengths),
                        "Welch t test" if order is None else "paired t test")]
    for seat, name in enumerate(seat_names):
        won_base = [seat in w for w in base.winners]
        won = [seat in w for w in winners]
        if order is None:
            found.append(Difference(name, mean(won_base), mean(won), welch_p_value(won_base, won),
                                    "Welch t test on wins"))
        else:
            changed = sum(a != b for a, b in zip(won_base, won))
            found.append(Difference(name, mean(won_base), mean(won), mcnemar_p_value(won_base, won),
                                    "exact McNemar test", f"{changed} of {len(won)} games change this seat's result"))
    if len(seat_names) > 1:  # alone, a game without a winner is a loss, not a draw
        found.append(draw_difference(base.winners, winners, order is not None))
    return order is not None, found


def return_differences(base: Games, other: Games, seat_names: list[str]) -> list[Difference]:
    """Each seat's mean return in `other` against `base`, when both record returns of their own: a paired t test
    on the games of the same seeds, else Welch's t test."""
    if base.returns is None or other.returns is None:
        return []
    order = pairing(base, other)
    rows = other.returns if order is None else [other.returns[i] for i in order]
    found = []
    for seat, name in enumerate(seat_names):
        a, b = [r[seat] for r in base.returns], [r[seat] for r in rows]
        found.append(Difference(name, mean(a), mean(b), (welch_p_value if order is None else paired_p_value)(a, b),
                                "Welch t test" if order is None else "paired t test"))
    return found


def draw_difference(base: list, other: list, paired: bool) -> Difference:
    """The draw rate (games without a winner) of `other` against `base`: an exact McNemar test on draw / no draw
    per game when the games are paired by seed, Welch's t test on the draw indicators otherwise."""
    drawn_base, drawn = [not w for w in base], [not w for w in other]
    if not paired:
        return Difference(DRAWS, mean(drawn_base), mean(drawn), welch_p_value(drawn_base, drawn),
                          "Welch t test on draws")
    changed = sum(a != b for a, b in zip(drawn_base, drawn))
    return Difference(DRAWS, mean(drawn_base), mean(drawn), mcnemar_p_value(drawn_base, drawn),
                      "exact McNemar test", f"{changed} of {len(drawn)} games change between draw and decided")


def compare_text(groups: list[Games], seat_names: list[str]) -> str:
    """The variant comparison as text: each variant's mean length (95% t interval), then each variant against the
    first, in game length and in each seat's win rate."""
    base = groups[0]
    lines = ["game length by variant (moves and outcomes):"]
    width = max(20, *(len(group.label) for group in groups))
    for group in groups:
        m, low, high = mean_interval(group.lengths)
        lines.append(f"  {group.label:<{width}} mean {m:8.1f}  95% CI [{low:.1f}, {high:.1f}]  "
                     f"n = {len(group.lengths)}")
    for group in groups[1:]:
        why = unpairable(base, group)
        if why:
            lines.append(f"{group.label} against {base.label}: {why}")
            continue
        paired, found = differences(base, group, seat_names)
        how = "paired by seed" if paired else "not the same seeds, so unpaired"
        lines.append(f"{group.label} against {base.label} ({how}; significant: p < 0.05):")
        for d in found:
            if d.measure == "game length":
                change = f"{d.base:.1f} -> {d.other:.1f} ({d.other - d.base:+.1f})"
            else:
                change = f"{d.base:.1%} -> {d.other:.1%} ({(d.other - d.base) * 100:+.1f} points)"
            verdict = "significant" if d.significant else "not significant"
            detail = f"; {d.detail}" if d.detail else ""
            label = d.measure if d.measure in ("game length", DRAWS) else f"{d.measure} wins"
            lines.append(f"  {label:<20} {change}, {shown_p(d.p)} ({verdict}, {d.test}{detail})")
        for d in return_differences(base, group, seat_names):
            verdict = "significant" if d.significant else "not significant"
            label = f"{d.measure} return"
            lines.append(f"  {label:<20} {d.base:+.3f} -> {d.other:+.3f} ({d.other - d.base:+.3f}), {shown_p(d.p)} "
                         f"({verdict}, {d.test})")
    return "\n".join(lines)

