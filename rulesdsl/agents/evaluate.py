"""How good a state is for a player: the rule file's evaluation, else its score, else the result."""

from __future__ import annotations


def _number(value) -> float:
    if isinstance(value, (list, tuple)):
        return float(value[0]) if value else 0.0
    if value is None:
        return 0.0
    return float(value)


def values(state) -> list[float]:
    """One number per player: higher is better. Terminal states use the result (+-1000)."""
    if state.terminal:
        return [1000.0 * r for r in state.returns()]
    return [_number(v) for v in state.evaluations()]


def advantage(state, player: int) -> float:
    """The player's value minus the best of the others (zero-sum view of a position)."""
    v = values(state)
    others = [x for q, x in enumerate(v) if q != player]
    return v[player] - (max(others) if others else 0.0)


def shares(state) -> list[float]:
    """A result in [0, 1] per player from values: the leaders share 1, the others get 0."""
    if state.terminal and not state.winners:
        return [0.5] * state.rules.num_players
    v = values(state)
    best = max(v)
    leaders = [p for p, x in enumerate(v) if x == best]
    return [1.0 / len(leaders) if p in leaders else 0.0 for p in range(len(v))]
