"""The play loop: a state played forward, chance drawn from its own stream and each seat's moves from a chooser."""

from __future__ import annotations

import sys

from .. import budget
from ..limits import GAME_SECONDS, MOVE_SECONDS
from .nodes import CHANCE
from .rng import STREAM, derive_seed, stream_named


def streams(seed: int, players: int, stream: str = STREAM) -> tuple:
    """(chance stream, one stream per seat) of a game seed: a seat's choices never shift the dice or
    another seat's draws, so the same seed plays the same game whoever decides. `stream` names the kind of
    random stream (engine.rng.STREAMS): the current one unless a recorded run names an older one."""
    rng = stream_named(stream)
    return rng(derive_seed(seed, "chance")), [rng(derive_seed(seed, "agent", p)) for p in range(players)]


def start(game, seed: int):
    """The initial state of the game of `seed` as `simulate` plays it: its own sampler (what sample_chance() draws
    with when given no Rng) is the seed's chance stream, the first of streams(seed, ...)."""
    return game.new_initial_state(derive_seed(seed, "chance"))


def uniform(state, player, legal, rng):
    """The chooser of random playouts: any legal move, each as likely."""
    return legal[rng.below(len(legal))]


def play(state, choose, chance, seats, observe=None, limit=None, stop_for=()) -> None:
    """Play `state` forward in place until it ends, until `limit` moves (chance outcomes included) are made, or
    until a seat of `stop_for` is to choose (a person, a learner: what they choose is not this loop's to ask; at a
    simultaneous step, the other waiting seats choose first).

    Chance outcomes are drawn with the Rng `chance`; a decision is `choose(state, player, legal, rng)` with
    the seat's own Rng `seats[player]`. At a simultaneous step every waiting player chooses before any
    choice is applied, so nobody's choice depends on another's. `observe(state, move)` is told of each move
    just before it is applied. The rules of one game, all its moves together, have a budget of GAME_SECONDS,
    and those of one move (listing and applying it) MOVE_SECONDS; what `choose` runs (an agent's look-ahead)
    does not count.
    """
    left = sys.maxsize if limit is None else limit
    try:
        while left > 0 and not state.terminal:
            made = _move(state, choose, chance, seats, observe, left, stop_for)
            if not made:
                return
            left -= made
    except budget.TimeBudgetExceeded as exc:  # it arrived between two calls of rule code: the step is to blame
        raise state.stopped(exc) from None


def _move(state, choose, chance, seats, observe, left: int, stop_for) -> int:
    """One move of the play loop (at a simultaneous step, the choices of the first `left` waiting players not in
    `stop_for`): how many moves were made (none: a seat of `stop_for` is to choose). The state's calls are made
    here, directly, so that they count into the budgets of the move and the game."""
    player = state.current_player()
    if player >= 0:
        if player in stop_for:
            return 0
        moves = (choose(state, player, state.legal_moves(player), seats[player]),)
    elif player == CHANCE:
        moves = (state.sample_chance(chance),)
    else:  # simultaneous (within a limit, only the first waiting players still choose)
        moves = []
        for p in [p for p in state.acting_players() if p not in stop_for][:left]:
            moves.append(choose(state, p, state.legal_moves(p), seats[p]))
    for move in moves:
        if observe is not None:
            observe(state, move)
        state.apply(move)
    return len(moves)


budget.total(play, GAME_SECONDS, "the game's moves together")
budget.total(_move, MOVE_SECONDS, "the move (listing and applying it)")
