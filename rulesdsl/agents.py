"""Agents that choose moves for a seat; each sees only its own player's view of the game."""

from __future__ import annotations


class Agent:
    """Base class: `choose` returns one of `legal` for `player` at `state`.

    Agents must decide from what their player may see: `state.observation(player)` is that view.
    The random agent needs no view at all, which keeps random playouts fast.
    """

    name = "agent"

    def choose(self, state, player: int, legal: list, rng):
        raise NotImplementedError


class RandomAgent(Agent):
    """Picks uniformly among the legal moves."""

    name = "random"

    def choose(self, state, player, legal, rng):
        return legal[rng.below(len(legal))]


class FirstAgent(Agent):
    """Always picks the first legal move (in generation order): a deterministic baseline."""

    name = "first"

    def choose(self, state, player, legal, rng):
        return legal[0]


AGENTS = {"random": RandomAgent, "first": FirstAgent}


def make_agent(spec: str) -> Agent:
    """An agent from its name (see AGENTS); raises ValueError with the known names."""
    try:
        return AGENTS[spec]()
    except KeyError:
        from .errors import did_you_mean

        hint = did_you_mean(spec, AGENTS) or f"known agents: {', '.join(AGENTS)}"
        raise ValueError(f"unknown agent '{spec}' ({hint})") from None
