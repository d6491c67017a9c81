"""Agents for any described game: random, first, greedy (one move ahead) and mcts (UCT search)."""

from __future__ import annotations

from ..errors import did_you_mean
from .base import Agent, FirstAgent, RandomAgent
from .greedy import GreedyAgent
from .mcts import MctsAgent
from .view import PlayerView

AGENTS = {"random": RandomAgent, "first": FirstAgent, "greedy": GreedyAgent, "mcts": MctsAgent}


def make_agent(spec: str) -> Agent:
    """An agent from a spec such as 'random' or 'mcts:iterations=200:c=1.4'; ValueError if unknown."""
    name, *settings = str(spec).strip().split(":")
    cls = AGENTS.get(name)
    if cls is None:
        hint = did_you_mean(name, AGENTS) or f"known agents: {', '.join(AGENTS)}"
        raise ValueError(f"unknown agent '{name}' ({hint})")
    kwargs = {}
    for setting in settings:
        key, sep, value = setting.partition("=")
        if not sep:
            raise ValueError(f"agent setting '{setting}' should be NAME=VALUE (e.g. mcts:iterations=200)")
        kwargs[key.strip()] = value.strip()
    try:
        agent = cls(**kwargs)
    except TypeError:
        allowed = ", ".join(getattr(cls, "settings", ())) or "none"
        raise ValueError(f"agent '{name}' has no such setting in '{spec}' (settings: {allowed})") from None
    except ValueError as exc:
        raise ValueError(f"agent '{spec}': a setting has a value of the wrong kind ({exc}); "
                         "e.g. mcts:iterations=200:c=1.4:seconds=0.5") from None
    agent.spec = spec
    return agent


__all__ = ["Agent", "RandomAgent", "FirstAgent", "GreedyAgent", "MctsAgent", "PlayerView", "AGENTS", "make_agent"]
