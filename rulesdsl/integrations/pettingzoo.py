"""A rule file as a PettingZoo AEC environment: integer actions with masks, fixed-shape observations."""

from __future__ import annotations

from ..engine.play import start
from ..render import render_state
from .common import Loaded, PicklesState, Seeds, engine_state

try:  # optional: the `pettingzoo` extra
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv, ParallelEnv
except ImportError:  # pragma: no cover - without the extra the module is not usable
    np = spaces = None
    AECEnv = ParallelEnv = object


def env(path_or_name, variant: str | None = None, options: dict | None = None, render_mode: str | None = None,
        backend: str = "python"):
    """The AEC environment of a rule file (a path, or a bundled game's name) with its variant and options, on
    `backend` (python, compiled or auto: see api.load_game)."""
    if np is None:
        raise ImportError("the PettingZoo environment needs the 'pettingzoo' extra: pip install 'rulesdsl[pettingzoo]'")
    return RulesEnv(Loaded(path_or_name, variant, options, backend=backend), render_mode)


def parallel_env(path_or_name, variant: str | None = None, options: dict | None = None,
                 render_mode: str | None = None, backend: str = "python"):
    """The parallel environment of a game whose players always choose at once (every step with moves is a
    simultaneous step); ValueError for a game with turns."""
    if np is None:
        raise ImportError("the PettingZoo environment needs the 'pettingzoo' extra: pip install 'rulesdsl[pettingzoo]'")
    loaded = Loaded(path_or_name, variant, options, backend=backend)
    turns = [name for name, step in loaded.game.rules.steps.items() if step.kind == "decision"]
    if turns:
        raise ValueError(f"{loaded.game.name} has steps where one player decides ('{turns[0]}'): it is no parallel "
                         "environment; use env()")
    return RulesParallelEnv(loaded, render_mode)


def _spaces(loaded: Loaded):
    """(observation space, action space) of every agent of a game."""
    observation = spaces.Dict({
        "observation": spaces.Box(-np.inf, np.inf, (loaded.tensor.size,), np.float32),
        "action_mask": spaces.Box(0, 1, (loaded.num_actions,), np.int8)})
    return observation, spaces.Discrete(loaded.num_actions)


def _observe(loaded: Loaded, state, seat: int) -> dict:
    """A seat's observation: its tensor, and the mask of its legal actions (all 0 when it is not to choose)."""
    mask = np.zeros(loaded.num_actions, np.int8)
    if seat in state.acting_players():
        mask[list(loaded.actions.legal(state, seat))] = 1
    return {"observation": loaded.observe(state, seat), "action_mask": mask}


class _Table(PicklesState):
    """What both environments share: the game, every agent's spaces, a new game from a seed, the picture; they
    pickle (PicklesState)."""

    def _start(self, loaded: Loaded, render_mode: str | None) -> None:
        self.loaded, self.render_mode = loaded, render_mode
        self.possible_agents = list(loaded.agents)
        self._observation_space, self._action_space = _spaces(loaded)
        self.state, self._seeds = None, Seeds()

    def _new_game(self, seed: int | None) -> None:
        """A new game from `seed` (without one, the game after the last: common.Seeds), its chance at the start
        drawn, every agent in it."""
        self.state = start(self.loaded.game, self._seeds.next(seed))  # chance as `simulate` draws it
        self.loaded.resolve_chance(self.state)
        self.agents = list(self.possible_agents)

    def observation_space(self, agent):
        return self._observation_space

    def action_space(self, agent):
        return self._action_space

    def render(self):
        return render_state(engine_state(self.state))

    def close(self):
        pass


class RulesEnv(_Table, AECEnv):
    """One seat acts at a time (at a simultaneous step, each chooser in turn, none seeing the others' choice).
    Chance is drawn inside `step` by the state's sampler, seeded by `reset(seed)`: the same seed and actions
    give the same game; `reset()` without a seed plays the game after the last one (common.Seeds).
    Observations are {"observation": the seat's tensor, "action_mask": its legal actions}; rewards are the
    game's returns (+1 win, -1 loss, 0 draw, or the file's `scoring: returns`) when it ends; a game stopped by its
    turn cap is truncated."""

    metadata = {"render_modes": ["ansi", "human"], "name": "rulesdsl", "is_parallelizable": False}

    def __init__(self, loaded: Loaded, render_mode: str | None = None):
        super().__init__()
        self._start(loaded, render_mode)
        self.metadata = dict(self.metadata, name=f"rulesdsl:{loaded.game.name}")
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._new_game(seed)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._select()

    def observe(self, agent):
        return _observe(self.loaded, self.state, self._seat[agent])

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


class RulesParallelEnv(_Table, ParallelEnv):
    """Every acting seat chooses in one `step` (the others' actions are ignored: their masks are all 0); chance
    is drawn inside `step`, seeded by `reset(seed)`. Observations and rewards as in RulesEnv."""

    metadata = {"render_modes": ["ansi", "human"], "name": "rulesdsl_parallel", "is_parallelizable": True}

    def __init__(self, loaded: Loaded, render_mode: str | None = None):
        self._start(loaded, render_mode)
        self.agents = []

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._new_game(seed)
        return self._observations(), {agent: {} for agent in self.agents}

    def step(self, actions: dict):
        state, live = self.state, list(self.agents)
        for seat in state.acting_players():
            state.apply(self.loaded.actions.move(state, int(actions[self.possible_agents[seat]]), seat))
        self.loaded.resolve_chance(state)
        observations = self._observations()
        returns = state.returns()
        rewards = {agent: returns[self.possible_agents.index(agent)] for agent in live}
        ended = state.is_terminal()
        terminations = {agent: ended and not state.capped for agent in live}
        truncations = {agent: ended and state.capped for agent in live}
        if ended:
            self.agents = []
        if self.render_mode == "human":
            print(self.render())
        return observations, rewards, terminations, truncations, {agent: {} for agent in live}

    def _observations(self) -> dict:
        return {agent: _observe(self.loaded, self.state, seat) for seat, agent in enumerate(self.possible_agents)
                if agent in self.agents}
