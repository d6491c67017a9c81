"""The agent interface, and the simplest agents: random and first."""

from __future__ import annotations


class Agent:
    """Chooses a move for one seat. `choose` gets the player's view, never the full state.

    `view.observation()` is what the player may see, `view.player` who they are, and search agents
    call `view.determinize(rng)` for a full state drawn from all those consistent with what the player
    has seen (secret choices and outcomes it did not see drawn anew), so they can look ahead without
    peeking.

    An agent keeps nothing between calls: its choice depends only on the view, the legal moves and
    `rng` (the seat's own seeded stream). So one agent object serves every game of a run, and the same
    seed replays the same game.
    """

    name = "agent"
    searches = False  # whether choosing plays rule code ahead on copies of the state (its time is the agent's)

    def choose(self, view, legal: list, rng):
        raise NotImplementedError

    def __repr__(self) -> str:
        return self.name


class RandomAgent(Agent):
    """Picks uniformly among the legal moves."""

    name = "random"

    def choose(self, view, legal, rng):
        return legal[rng.below(len(legal))]


class FirstAgent(Agent):
    """Always picks the first legal move (in generation order): a deterministic baseline."""

    name = "first"

    def choose(self, view, legal, rng):
        return legal[0]
