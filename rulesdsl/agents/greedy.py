"""Greedy: tries every legal move one ply ahead and keeps the one that leaves the best position."""

from __future__ import annotations

from .base import Agent
from .evaluate import advantage


class GreedyAgent(Agent):
    """Scores each move by the position it leaves (rule file evaluation, else score); ties at random."""

    name = "greedy"
    settings = ()
    searches = True

    def choose(self, view, legal, rng):
        if len(legal) == 1:
            return legal[0]
        base = view.determinize(rng)
        best, best_moves = None, []
        for move in legal:
            child = base.clone()
            child.apply(move)
            value = advantage(child, view.player)
            if best is None or value > best:
                best, best_moves = value, [move]
            elif value == best:
                best_moves.append(move)
        return best_moves[rng.below(len(best_moves))]
