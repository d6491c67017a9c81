"""A rule file as a single-agent Gymnasium environment: one seat learns against fixed rulesdsl agents. Importing
this module registers each bundled game with Gymnasium: gymnasium.make("rulesdsl/<Name>-v0")."""

from __future__ import annotations

from ..agents import PlayerView, make_agent
from ..engine.play import play, start, streams
from ..loading import bundled_games
from ..render import render_state
from .common import Loaded, PicklesState, Seeds, engine_state

NAMESPACE = "rulesdsl"

try:  # optional: the `gymnasium` extra
    import gymnasium
    import numpy as np
    from gymnasium import spaces
except ImportError:  # pragma: no cover - without the extra the module is not usable
    gymnasium = np = spaces = None


def make(path_or_name, seat: int = 0, opponents=("random",), variant: str | None = None,
         options: dict | None = None, render_mode: str | None = None, backend: str = "python"):
    """The environment of `seat` in a rule file's game, the other seats played by `opponents` (agent specs
    such as 'random' or 'mcts:iterations=50', one for all or one per other seat), on `backend` (python, compiled
    or auto: see api.load_game)."""
    if gymnasium is None:
        raise ImportError("the Gymnasium environment needs the 'gymnasium' extra: pip install 'rulesdsl[gymnasium]'")
    return SeatEnv(Loaded(path_or_name, variant, options, backend=backend), seat, list(opponents), render_mode)


class SeatEnv(PicklesState, gymnasium.Env if gymnasium is not None else object):
    """Observations are {"observation": the seat's tensor, "action_mask": its legal actions}; the reward is the
    seat's return when the game ends (+1 win, -1 loss, 0 draw, or the file's `scoring: returns`). An action that is
    not legal ends the episode as a loss (-1), so that every action of the space is a valid step. Chance and the
    opponents' choices are seeded by `reset(seed)`: the same seed and actions give the same game; `reset()` without
    a seed starts the game after the last one (common.Seeds: the first seed given seeds the games after it, as a
    vector environment's autoreset does; with no seed ever given, the first game's seed comes from the operating
    system)."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, loaded: Loaded, seat: int, opponents: list, render_mode: str | None = None):
        self.loaded, self.seat, self.render_mode = loaded, seat, render_mode
        others = [p for p in range(loaded.game.num_players) if p != seat]
        specs = opponents * len(others) if len(opponents) == 1 else opponents
        if len(specs) != len(others):
            raise ValueError(f"give one opponent for all other seats or one per seat ({len(others)})")
        self.opponents = {p: make_agent(spec) for p, spec in zip(others, specs)}
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (loaded.tensor.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (loaded.num_actions,), np.int8)})
        self.action_space = spaces.Discrete(loaded.num_actions)
        self.state, self._rngs, self._seeds = None, {}, Seeds()

    def reset(self, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        seed = self._seeds.next(seed)
        self.state = start(self.loaded.game, seed)  # the game `simulate` plays with this seed and these agents
        self._rngs = streams(seed, self.loaded.game.num_players)[1]
        self._others_play()
        return self._observe(), {}

    def step(self, action):
        legal = self.loaded.actions.legal(self.state, self.seat)
        move = legal.get(int(action))
        if move is None:
            return self._observe(), -1.0, True, False, {"illegal_action": int(action)}
        self.state.apply(move)
        self._others_play()
        state = self.state
        reward = state.returns()[self.seat] if state.is_terminal() else 0.0
        return self._observe(), reward, state.is_terminal() and not state.capped, state.capped, {}

    def _others_play(self) -> None:
        """Chance and the opponents act until the seat is to choose or the game ends."""
        play(self.state, self._opponent, None, self._rngs, stop_for=(self.seat,))

    def _opponent(self, state, player, legal, rng):
        return self.opponents[player].choose(PlayerView(state, player), legal, rng)

    def _observe(self) -> dict:
        mask = np.zeros(self.loaded.num_actions, np.int8)
        if self.seat in self.state.acting_players():
            mask[list(self.loaded.actions.legal(self.state, self.seat))] = 1
        return {"observation": self.loaded.observe(self.state, self.seat), "action_mask": mask}

    def render(self):
        return render_state(engine_state(self.state), self.seat)


def env_id(name: str) -> str:
    """The Gymnasium id of a bundled game's name: each dash-separated part capitalized (a-b: rulesdsl/AB-v0)."""
    return f"{NAMESPACE}/{''.join(part.capitalize() for part in name.replace('_', '-').split('-'))}-v0"


def register_bundled() -> list[str]:
    """Register every bundled game with Gymnasium under env_id(name) (make's arguments, such as seat, opponents or
    backend, pass through gymnasium.make); the ids registered."""
    ids = []
    for name in sorted(bundled_games()):
        ids.append(env_id(name))
        if ids[-1] not in gymnasium.registry:
            gymnasium.register(ids[-1], entry_point=f"{__name__}:make", kwargs={"path_or_name": name})
    return ids


if gymnasium is not None:
    register_bundled()
