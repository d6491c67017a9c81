"""Perft: the number of move paths of a given depth, the standard check of a move generator."""

from __future__ import annotations

from .nodes import SIMULTANEOUS


def perft(state, depth: int) -> int:
    """Move paths of exactly `depth` moves from `state` (chance outcomes count as moves; a game that
    ends early counts 0; at a simultaneous step the first waiting player's choices are the moves)."""
    if depth == 0:
        return 1
    if state.terminal:
        return 0
    if state.current_player() == SIMULTANEOUS:
        moves = state.legal_moves(state.acting_players()[0])
    else:
        moves = state.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for move in moves:
        child = state.clone()
        child.apply(move)
        total += perft(child, depth - 1)
    return total
