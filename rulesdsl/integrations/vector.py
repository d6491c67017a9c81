"""Many games of a rule file stepped per call: a Gymnasium VectorEnv of one learning seat, and a batched step of
every seat for multi-agent (PettingZoo-style) learning; actions, masks, observations and rewards as NumPy arrays.

On the compiled backend the games are packed vectors stepped by kernels in compiled code (backends/compiled/batch.py)
whenever the other seats play uniformly at random; otherwise, and on the Python backend, the games are stepped one
after another by the engine. Both give the same games for the same seeds and actions, move for move.
"""

from __future__ import annotations

from ..agents import PlayerView, make_agent
from ..backends.compiled.batch import ActionTables, BoardTensor, unnumbered
from ..backends.compiled.simultaneous import pending_moves
from ..backends.compiled.unsupported import Unsupported
from ..engine.play import play, start, streams
from ..engine.rng import derive_seed
from .common import Loaded, fresh_seed, next_seed

VECTOR_ROOM = 256  # keys of positions left a step of the compiled games has room for (a game that counts them)

try:  # optional: the `gymnasium` extra
    import gymnasium
    import numpy as np
    from gymnasium import spaces
    from gymnasium.vector import AutoresetMode, VectorEnv
    from gymnasium.vector.utils import batch_space
except ImportError:  # pragma: no cover - without the extra the module is not usable
    gymnasium = np = spaces = None
    VectorEnv = object


def make_vec(path_or_name, num_envs: int, seat: int = 0, opponents=("random",), variant: str | None = None,
             options: dict | None = None, backend: str = "python") -> "SeatVectorEnv":
    """`num_envs` games of a rule file as one Gymnasium VectorEnv of `seat`, the other seats played by `opponents`
    (agent specs, one for all or one per other seat), on `backend` (python, compiled or auto)."""
    if gymnasium is None:
        raise ImportError("the vector environment needs the 'gymnasium' extra: pip install 'rulesdsl[gymnasium]'")
    return SeatVectorEnv(Loaded(path_or_name, variant, options, backend=backend), num_envs, seat, list(opponents))


def make_batch(path_or_name, num_envs: int, variant: str | None = None, options: dict | None = None,
               backend: str = "python") -> "TurnBatch":
    """`num_envs` games of a rule file in which every seat learns: one action per game for the seat to choose."""
    if gymnasium is None:
        raise ImportError("the batched environment needs the 'gymnasium' extra: pip install 'rulesdsl[gymnasium]'")
    return TurnBatch(Loaded(path_or_name, variant, options, backend=backend), num_envs)


# -- the games ------------------------------------------------------------------------------------------------------
class _EngineGames:
    """N games stepped one by one through the Game/State API (either backend): the reference."""

    def __init__(self, loaded: Loaded, n: int, learner: list, agents: dict):
        self.loaded, self.n, self.learner, self.agents = loaded, n, learner, agents
        self.states, self.rngs = [None] * n, [[] for _ in range(n)]
        self.seats = loaded.game.num_players
        self.learning = tuple(p for p in range(self.seats) if learner[p])

    def reset(self, which, seeds) -> None:
        game = self.loaded.game
        for i, seed in zip(which, seeds):
            self.states[i] = start(game, seed)  # the game `simulate` plays with this seed and these agents
            self.rngs[i] = streams(seed, self.seats)[1]
            self._others(i)

    def _others(self, i: int) -> None:
        """Chance and the seats that do not learn play until a learning seat is to choose or the game ends."""
        play(self.states[i], self._agent, None, self.rngs[i], stop_for=self.learning)

    def _agent(self, state, player, legal, rng):
        return self.agents[player].choose(PlayerView(state, player), legal, rng)

    def _acting(self, state) -> int:
        if state.is_terminal() or state.is_chance_node():
            return -1
        return next((p for p in state.acting_players() if self.learner[p]), -1)

    def step(self, actions, skip) -> tuple:
        rewards = np.zeros((self.n, self.seats), np.float64)
        ended, capped, illegal = (np.zeros(self.n, np.bool_) for _ in range(3))
        for i, state in enumerate(self.states):
            if skip[i]:
                continue
            me = self._acting(state)
            move = self.loaded.actions.legal(state, me).get(int(actions[i])) if me >= 0 else None
            if move is None:
                illegal[i] = ended[i] = True
                if me >= 0:
                    rewards[i, me] = -1.0
                continue
            state.apply(move)
            self._others(i)
            if state.is_terminal():
                rewards[i] = state.returns()
                ended[i], capped[i] = True, bool(state.capped)
        return rewards, ended, capped, illegal

    def masks(self) -> tuple:
        to_act = np.full(self.n, -1, np.int64)
        mask = np.zeros((self.n, self.loaded.num_actions), np.int8)
        for i, state in enumerate(self.states):
            to_act[i] = me = self._acting(state)
            if me >= 0:
                mask[i, list(self.loaded.actions.legal(state, me))] = 1
        return to_act, mask

    def observe(self, seats) -> np.ndarray:
        return np.stack([self.loaded.observe(state, int(seat)) for state, seat in zip(self.states, seats)])

    def state(self, i: int):
        return self.states[i]


class _CompiledGames:
    """N games as rows of packed vectors, stepped by the compiled kernels; the other seats play uniformly at
    random, each from its own stream as the random agent draws."""

    def __init__(self, loaded: Loaded, n: int, learner: list):
        game = loaded.game
        self.loaded, self.game, self.n, self.seats = loaded, game, n, game.num_players
        self.tables = ActionTables(game, loaded.actions)  # Unsupported: moves the tables cannot number
        self.fn = game.kernels()
        self.board = BoardTensor(game, loaded.tensor) if loaded.tensor.board_only else None
        self.first = game.new_initial_state(0)
        self.start = self.first.s.copy()
        program = game.program
        self.S = np.repeat(self.start[None, :], n, axis=0)
        self.R = np.zeros((n, self.seats, 2), np.uint64)
        self.learner = np.array(learner, np.bool_)
        self.out = np.empty((max(program.capacity, 1), program.width), np.int64)
        self.acts = np.empty(max(program.capacity, 1), np.int64)
        self.drawn = np.empty(max(program.drawn, 1), np.int64)
        self.own = np.zeros((1, 2), np.uint64)
        self.into = np.zeros(self.seats, np.float64)

    def _call(self, fn, *args):
        return self.game.call(self.first, self.first.step, fn, *args)

    def _room(self) -> None:
        """Room in every row for the keys of the positions a step may leave, in a game that counts them (see
        backends/compiled/packing.py): the rows and the first position lengthened together when one runs short."""
        packing = self.game.packing
        if packing.positions is None:
            return
        width = packing.length_for(self.S.shape[1], int(self.S[:, packing.positions].max()), VECTOR_ROOM)
        if width > self.S.shape[1]:
            self.S = np.pad(self.S, ((0, 0), (0, width - self.S.shape[1])))
            self.start = np.pad(self.start, (0, width - len(self.start)))

    def reset(self, which, seeds) -> None:
        which = np.asarray(which, np.int64)
        keys = np.array([[derive_seed(seed, "agent", p) for p in range(self.seats)] for seed in seeds],
                        np.int64).reshape(len(which), self.seats)
        wrapped = np.array([derive_seed(seed, "chance") for seed in seeds], np.uint64).view(np.int64)  # as start()
        self._room()
        self._call(self.fn["reset_games"], self.S, self.R, which, wrapped, keys, self.start, self.learner, self.out,
                   self.drawn, self.own)

    def step(self, actions, skip) -> tuple:
        rewards = np.zeros((self.n, self.seats), np.float64)
        ended, capped, illegal = (np.zeros(self.n, np.bool_) for _ in range(3))
        self._room()
        bad = self._call(self.fn["step_games"], self.S, self.R, np.asarray(actions, np.int64),
                         np.asarray(skip, np.bool_), self.learner, self.out, self.acts, self.drawn, self.own,
                         self.into, rewards, ended, capped, illegal, *self.tables.args())
        if bad >= 0:
            raise unnumbered(self.game, self.loaded.actions, self.state(bad))
        return rewards, ended, capped, illegal

    def masks(self) -> tuple:
        to_act = np.full(self.n, -1, np.int64)
        mask = np.zeros((self.n, self.loaded.num_actions), np.int8)
        bad = self._call(self.fn["masks"], self.S, self.learner, self.out, self.acts, to_act, mask,
                         *self.tables.args())
        if bad >= 0:
            raise unnumbered(self.game, self.loaded.actions, self.state(bad))
        return to_act, mask

    def observe(self, seats) -> np.ndarray:
        if self.board is not None:
            return self.board.values(self.S)
        return np.stack([self.loaded.observe(self.state(i), int(seat)) for i, seat in enumerate(seats)])

    def state(self, i: int):
        """Game i as a CompiledState (its history not kept: the last move is not known to it; choices waiting at a
        simultaneous step are its only entries)."""
        state = self.first.clone()
        state.s = self.S[i].copy()
        state.s[self.game.program.last_row] = -1
        state._history, state._made = pending_moves(state), []
        return state


def _games(loaded: Loaded, n: int, learner: list, agents: dict):
    """The compiled kernels where the game is compiled and every other seat plays at random, else the engine."""
    if loaded.backend == "compiled" and all(a.name == "random" for a in agents.values()):
        try:
            return _CompiledGames(loaded, n, learner)
        except Unsupported as exc:
            loaded.backend_note = f"the games are stepped one by one: {exc}"
    return _EngineGames(loaded, n, learner, agents)


def _seeds(seed, n: int, last: list) -> list:
    """Each game's seed for reset(seed): an int gives game i seed + i (as Gymnasium's SyncVectorEnv does), a list
    one each, None the game after the last one (a seed from the operating system at first: common.Seeds)."""
    if seed is None:
        return [fresh_seed() if s is None else next_seed(s) for s in last]
    if isinstance(seed, (int, np.integer)):
        return [int(seed) + i for i in range(n)]
    seeds = [int(s) if s is not None else (fresh_seed() if last[i] is None else next_seed(last[i]))
             for i, s in enumerate(seed)]
    if len(seeds) != n:
        raise ValueError(f"give one seed per game: {len(seeds)} for {n} games")
    return seeds


class SeatVectorEnv(VectorEnv):
    """N games of one learning seat, as Gymnasium's VectorEnv: `step(actions)` takes one action per game and gives
    observations {"observation": (N, size) float32, "action_mask": (N, actions) int8}, rewards (the seat's return
    when a game ends: +1 win, -1 loss, 0 draw, or the file's `scoring: returns`), terminations, truncations (a game
    stopped by its turn cap) and infos.
    A game that ended is started afresh at the next step, whose action it ignores (Gymnasium's next-step autoreset);
    its next seed follows from its last (next_seed). An action that is no legal move ends the game as a loss (-1),
    with `illegal_action` in the infos. The same seeds and actions give the games that SyncVectorEnv of
    gymnasium.make's SeatEnv gives, on either backend."""

    metadata = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP if gymnasium else None}

    def __init__(self, loaded: Loaded, num_envs: int, seat: int, opponents: list):
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number of at least 1, not {num_envs!r}")
        players = loaded.game.num_players
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat} is no seat of {loaded.game.name} (0 to {players - 1})")
        others = [p for p in range(players) if p != seat]
        specs = opponents * len(others) if len(opponents) == 1 else opponents
        if len(specs) != len(others):
            raise ValueError(f"give one opponent for all other seats or one per seat ({len(others)})")
        self.loaded, self.seat, self.num_envs = loaded, seat, num_envs
        self.games = _games(loaded, num_envs, [p == seat for p in range(players)],
                            {p: make_agent(spec) for p, spec in zip(others, specs)})
        self.backend = "compiled" if isinstance(self.games, _CompiledGames) else "python"
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (loaded.tensor.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (loaded.num_actions,), np.int8)})
        self.single_action_space = spaces.Discrete(loaded.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._last = [None] * num_envs  # each game's seed
        self._autoreset = np.zeros(num_envs, np.bool_)
        self._seats = np.full(num_envs, seat, np.int64)

    def reset(self, *, seed=None, options: dict | None = None):
        which = np.arange(self.num_envs)
        mask = (options or {}).get("reset_mask")
        if mask is not None:
            which = np.flatnonzero(np.asarray(mask, np.bool_))
        seeds = _seeds(seed, self.num_envs, self._last)
        self._start(which, [seeds[i] for i in which])
        self._autoreset[which] = False
        return self._observe(), {}

    def _start(self, which, seeds) -> None:
        for i, seed in zip(which, seeds):
            self._last[i] = seed
        self.games.reset(which, seeds)

    def step(self, actions):
        actions = np.asarray(actions, np.int64).reshape(self.num_envs)
        again = np.flatnonzero(self._autoreset)
        if again.size:
            self._start(again, [next_seed(self._last[i]) for i in again])
        rewards, ended, capped, illegal = self.games.step(actions, self._autoreset)
        reward = np.where(illegal, -1.0, rewards[:, self.seat])
        terminated, truncated = ended & ~capped, capped.copy()
        infos = {}
        for i in np.flatnonzero(illegal):
            infos = self._add_info(infos, {"illegal_action": int(actions[i])}, int(i))
        self._autoreset = terminated | truncated
        return self._observe(), reward, terminated, truncated, infos

    def _observe(self) -> dict:
        to_act, mask = self.games.masks()
        return {"observation": self.games.observe(self._seats), "action_mask": mask}

    def state(self, i: int):
        """Game i's state (on the compiled kernels, a copy without its history)."""
        return self.games.state(i)


class TurnBatch:
    """N games in which every seat learns, stepped together (PettingZoo's AEC turn order, batched): `agent[i]` is
    the seat to choose in game i, `action_mask[i]` its legal actions; `step(actions)` takes one action per game for
    that seat and gives (agent, observations (N, seats, size), action_mask, rewards (N, seats), terminations,
    truncations). Every seat observes after each step; rewards are the returns when a game ends. Autoreset as in
    SeatVectorEnv: a game that ended starts afresh at the next step, ignoring its action."""

    def __init__(self, loaded: Loaded, num_envs: int):
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a whole number of at least 1, not {num_envs!r}")
        self.loaded, self.num_envs = loaded, num_envs
        self.num_players = loaded.game.num_players
        self.possible_agents = list(loaded.agents)
        self.games = _games(loaded, num_envs, [True] * self.num_players, {})
        self.backend = "compiled" if isinstance(self.games, _CompiledGames) else "python"
        self.num_actions, self.observation_size = loaded.num_actions, loaded.tensor.size
        self._last = [None] * num_envs
        self._autoreset = np.zeros(num_envs, np.bool_)

    def reset(self, seed=None) -> tuple:
        """(agent, observations, action_mask) of new games: seeds as SeatVectorEnv.reset takes them."""
        which = np.arange(self.num_envs)
        seeds = _seeds(seed, self.num_envs, self._last)
        self._last = list(seeds)
        self.games.reset(which, seeds)
        self._autoreset[:] = False
        return self._observe()

    def step(self, actions) -> tuple:
        actions = np.asarray(actions, np.int64).reshape(self.num_envs)
        again = np.flatnonzero(self._autoreset)
        if again.size:
            seeds = [next_seed(self._last[i]) for i in again]
            for i, seed in zip(again, seeds):
                self._last[i] = seed
            self.games.reset(again, seeds)
        rewards, ended, capped, _ = self.games.step(actions, self._autoreset)
        terminated, truncated = ended & ~capped, capped.copy()
        self._autoreset = terminated | truncated
        agent, observations, mask = self._observe()
        return agent, observations, mask, rewards, terminated, truncated

    def _observe(self) -> tuple:
        agent, mask = self.games.masks()
        seen = [self.games.observe(np.full(self.num_envs, p, np.int64)) for p in range(self.num_players)]
        return agent, np.stack(seen, axis=1), mask

    def state(self, i: int):
        """Game i's state (on the compiled kernels, a copy without its history)."""
        return self.games.state(i)


__all__ = ["make_vec", "make_batch", "SeatVectorEnv", "TurnBatch", "next_seed"]
