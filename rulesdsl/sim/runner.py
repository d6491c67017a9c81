"""Play one game with agents from a seed, recording every decision and chance outcome."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..engine.rng import Rng, derive_seed
from ..engine.state import CHANCE, SIMULTANEOUS
from ..engine.serialize import encode


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

    def to_json(self) -> dict:
        return {"seed": self.seed, "agents": self.agents, "winners": self.winners,
                "scores": [encode(s) for s in self.scores], "plies": self.plies, "turns": self.turns,
                "capped": self.capped, "rule_counts": self.rule_counts, "moves": self.moves}


def entry(move, simultaneous: bool) -> str:
    """How a history entry is written in logs."""
    return f"@{move.player} {move}" if simultaneous else str(move)


def play_game(game, agents, seed: int, on_move=None) -> GameRecord:
    """Play `game` to the end with one agent per seat; same game, agents and seed give the same record."""
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
            for p in state.acting_players():
                legal = state.legal_moves(p)
                moves.append((agents[p].choose(state, p, legal, agent_rngs[p]), True))
        else:
            legal = state.legal_moves(player)
            moves = [(agents[player].choose(state, player, legal, agent_rngs[player]), False)]
        for move, simultaneous in moves:
            name = move[0].name
            counts[name] = counts.get(name, 0) + 1
            entries.append((move, simultaneous))
            if on_move is not None:
                on_move(state, move)
            state.apply(move)
    return GameRecord(seed, [a.name for a in agents], [entry(m, s) for m, s in entries], list(state.winners or []),
                      state.scores(), state.ply, state.turn, state.capped, counts)
