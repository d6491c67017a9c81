"""A rule file as a PettingZoo AEC environment: integer actions with masks, fixed-shape observations."""

from __future__ import annotations

from ..render import render_state
from .common import Loaded

try:  # optional: the `rl` extra
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError:  # pragma: no cover - without the extra the module is not usable
    np = spaces = None
    AECEnv = object


def env(path_or_name, variant: str | None = None, options: dict | None = None, render_mode: str | None = None):
    """The AEC environment of a rule file (a path, or a bundled game's name) with its variant and options."""
    if np is None:
        raise ImportError("the PettingZoo environment needs the 'rl' extra: pip install 'rulesdsl[rl]'")
    return RulesEnv(Loaded(path_or_name, variant, options), render_mode)


class RulesEnv(AECEnv):
    """One seat acts at a time (at a simultaneous step, each chooser in turn, none seeing the others' choice).
    Chance is drawn inside `step` by the state's sampler, seeded by `reset(seed)`: the same seed and actions
    give the same game. Observations are {"observation": the seat's tensor, "action_mask": its legal actions};
    rewards are the game's returns (+1 win, -1 loss, 0 draw) when it ends; a game stopped by its turn cap
    is truncated."""

    metadata = {"render_modes": ["ansi", "human"], "name": "rulesdsl", "is_parallelizable": False}

    def __init__(self, loaded: Loaded, render_mode: str | None = None):
        super().__init__()
        self.loaded, self.render_mode = loaded, render_mode
        self.metadata = dict(self.metadata, name=f"rulesdsl:{loaded.game.name}")
        self.possible_agents = list(loaded.agents)
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        size = loaded.tensor.size
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (loaded.num_actions,), np.int8)})
        self._action_space = spaces.Discrete(loaded.num_actions)
        self.state = None

    def observation_space(self, agent):
        return self._observation_space

    def action_space(self, agent):
        return self._action_space

    def reset(self, seed: int | None = None, options: dict | None = None):
        self.state = self.loaded.game.new_initial_state(seed=seed)
        self.loaded.resolve_chance(self.state)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._select()

    def observe(self, agent):
        seat = self._seat[agent]
        mask = np.zeros(self.loaded.num_actions, np.int8)
        if seat in self.state.acting_players():
            mask[list(self.loaded.actions.legal(self.state, seat))] = 1
        tensor = np.asarray(self.loaded.tensor.values(self.state, seat), np.float32)
        return {"observation": tensor, "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._seat[agent]
        state = self.state
        state.apply(self.loaded.actions.move(state, int(action), seat))
        self.loaded.resolve_chance(state)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        if state.is_terminal():
            for a, value in zip(self.possible_agents, state.returns()):
                self.rewards[a] = value
            ended = dict.fromkeys(self.agents, True)
            if state.capped:
                self.truncations = ended
            else:
                self.terminations = ended
        self._accumulate_rewards()
        self._select()
        if self.render_mode == "human":
            print(self.render())

    def _select(self) -> None:
        """The agent to act next: the (first still to choose) acting seat; after the end, the first agent."""
        acting = self.state.acting_players()
        self.agent_selection = self.possible_agents[acting[0]] if acting else self.agents[0]

    def render(self):
        return render_state(self.state)

    def close(self):
        pass
