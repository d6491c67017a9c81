"""Play one game with agents from a seed, recording every decision and chance outcome."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..agents.view import PlayerView
from ..engine.rng import Rng, derive_seed
from ..engine.serialize import encode
from ..engine.state import CHANCE, SIMULTANEOUS


@dataclass
class GameRecord:
    """What happened in one game: enough to report on it and to replay it."""

    seed: int
    agents: list
    moves: list  # notation; a simultaneous choice is written '@<seat> <move>'
    winners: list
    scores: list
    plies: int
    turns: int
    capped: bool
    rule_counts: dict = field(default_factory=dict)
    ended_by: int | None = None  # index of the end rule that ended the game (None: the turn cap)
    breakdown: list | None = None  # per player, the rule file's score breakdown (named numbers)

    def to_json(self) -> dict:
        return {"seed": self.seed, "agents": self.agents, "winners": self.winners,
                "scores": [encode(s) for s in self.scores], "plies": self.plies, "turns": self.turns,
                "capped": self.capped, "ended_by": self.ended_by, "breakdown": self.breakdown,
                "rule_counts": self.rule_counts,
                "moves": self.moves}


def entry(move, simultaneous: bool) -> str:
    """How a history entry is written in logs."""
    return f"@{move.player} {move}" if simultaneous else str(move)


def play_game(game, agents, seed: int, on_move=None) -> GameRecord:
    """Play `game` to the end with one agent per seat; same game, agents and seed give the same record.

    Chance is drawn from one seeded stream and each seat's agent from its own, so an agent's
    choices never shift the dice. Agents see only their player's view.
    """
    state = game.new_initial_state(seed)
    chance_rng = Rng(derive_seed(seed, "chance"))
    agent_rngs = [Rng(derive_seed(seed, "agent", p)) for p in range(game.num_players)]
    entries = []
    counts: dict[str, int] = {}
    while not state.terminal:
        player = state.current_player()
        if player == CHANCE:
            moves = [(state.sample_chance(chance_rng), False)]
        elif player == SIMULTANEOUS:
            moves = []
            for p in state.acting_players():  # each chooses from a view without the others' choices
                legal = state.legal_moves(p)
                moves.append((agents[p].choose(PlayerView(state, p), legal, agent_rngs[p]), True))
        else:
            legal = state.legal_moves(player)
            moves = [(agents[player].choose(PlayerView(state, player), legal, agent_rngs[player]), False)]
        for move, simultaneous in moves:
            name = move[0].name
            counts[name] = counts.get(name, 0) + 1
            entries.append((move, simultaneous))
            if on_move is not None:
                on_move(state, move)
            state.apply(move)
    return GameRecord(seed, [getattr(a, "spec", a.name) for a in agents], [entry(m, s) for m, s in entries],
                      list(state.winners or []), state.scores(), state.ply, state.turn, state.capped, counts,
                      state.ended_by, state.breakdowns() if state.rules.breakdown is not None else None)


def random_step(state, rng) -> None:
    """Apply one uniformly random legal move (for every player waiting at a simultaneous step), or a
    sampled outcome at a chance node."""
    player = state.current_player()
    if player == CHANCE:
        state.apply(state.sample_chance(rng))
    elif player == SIMULTANEOUS:
        for p in state.acting_players():
            legal = state.legal_moves(p)
            state.apply(legal[rng.below(len(legal))])
    else:
        legal = state.legal_moves(player)
        state.apply(legal[rng.below(len(legal))])


def random_playout(game, seed: int):
    """Play one game with uniformly random moves and return the final state: the loop that benchmarks
    and AI libraries run, without recording anything."""
    state = game.new_initial_state(seed)
    rng = Rng(seed)
    while not state.terminal:
        random_step(state, rng)
    return state
