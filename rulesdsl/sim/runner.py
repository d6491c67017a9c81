"""Play one game with agents from a seed, recording every decision and chance outcome."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..agents.base import RandomAgent
from ..agents.view import PlayerView
from ..engine.play import play, streams, uniform
from ..engine.rng import STREAM
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
    ended_by: int | None = None  # index of the end rule that ended the game (None: the turn cap)
    breakdown: list | None = None  # per player, the rule file's score breakdown (named numbers)
    returns: list | None = None  # per player, +1 win, -1 loss, 0 draw (see State.returns)
    rng: str = STREAM  # the random stream the seed was drawn with (engine.rng.STREAMS)
    branching: list | None = None  # [legal moves, decisions] in each third of the game's decisions (quality.py)
    score_trace: list | None = None  # [turn, score per seat...] at each turn start where the scores changed (asked for)

    def to_json(self) -> dict:
        data = {"seed": self.seed, "rng": self.rng, "agents": self.agents, "winners": self.winners,
                "scores": [encode(s) for s in self.scores], "plies": self.plies, "turns": self.turns,
                "capped": self.capped, "ended_by": self.ended_by, "breakdown": self.breakdown,
                "rule_counts": self.rule_counts, "returns": self.returns,
                "moves": self.moves}
        if self.branching is not None:
            data["branching"] = self.branching
        if self.score_trace is not None:
            data["score_trace"] = self.score_trace
        return data


def thirds(counts: list[int]) -> list[list[int]]:
    """[legal moves summed, decisions] over the first, middle and last third of a game's decisions (a decision
    in the first third when its position i of n has 3i < n, in the last when 3i >= 2n)."""
    parts = [[0, 0], [0, 0], [0, 0]]
    n = len(counts)
    for i, legal in enumerate(counts):
        part = parts[min(2, 3 * i // n)]
        part[0] += legal
        part[1] += 1
    return parts


def numeric_scores(scores) -> list | None:
    """Scores as numbers (a tuple score by its first part), or None when one is not a number."""
    out = []
    for s in scores:
        s = s[0] if isinstance(s, (list, tuple)) and s else s
        if not isinstance(s, (int, float)) or isinstance(s, bool):
            return None
        out.append(s)
    return out


def entry(move, simultaneous: bool) -> str:
    """How a history entry is written in logs."""
    return f"@{move.player} {move}" if simultaneous else str(move)


def agent_chooser(agents):
    """A chooser for the play loop that asks each seat's agent, showing it only its player's view."""
    def choose(state, player, legal, rng):
        return agents[player].choose(PlayerView(state, player), legal, rng)
    return choose


def play_game(game, agents, seed: int, on_move=None, stream: str = STREAM, score_trace: bool = False) -> GameRecord:
    """Play `game` to the end with one agent per seat; same game, agents, seed and stream give the same record.

    Chance is drawn from one seeded stream and each seat's agent from its own, so an agent's
    choices never shift the dice. Agents see only their player's view.
    """
    names = [getattr(a, "spec", a.name) for a in agents]
    state = game.new_initial_state(seed)
    if on_move is None and not score_trace and stream == STREAM and hasattr(state, "playout") \
            and all(type(a) is RandomAgent for a in agents):
        return _played_through(state, seed, names)
    return record_game(state, seed, agent_chooser(agents), names, on_move, stream, score_trace)


def _played_through(state, seed: int, agents: list) -> GameRecord:
    """The record of a game of random agents played whole in compiled code (a state of the compiled backend):
    the same record as record_game's, move for move."""
    chance, seats = streams(seed, state.rules.num_players)
    choices: list[int] = []
    together: list[int] = []  # the choices made at simultaneous steps, logged with their seat
    state.playout(chance, seats, choices=choices, together=together)
    if not together:
        return _record(state, seed, agents, choices, None)
    entries, counts, at = [], {}, set(together)
    for i, move in enumerate(state.history):
        entries.append(entry(move, i in at))
        counts[move.name] = counts.get(move.name, 0) + 1
    return _record(state, seed, agents, choices, None, entries=entries, counts=counts)


def record_game(state, seed: int, choose, agents: list, on_move=None, stream: str = STREAM,
                score_trace: bool = False) -> GameRecord:
    """Play `state` to the end with `choose` (chance and each seat drawing from the streams of `seed`, of the
    kind `stream`) and record the game. Moves made before (a chosen setup, a saved start) begin the record, so
    that it replays from the seed. `on_move(state, move)` is told of each move just before it is applied.
    `score_trace`: also record the scores at the start of each turn (when the rules define numeric ones)."""
    entries = list(state.history_texts())
    counts: dict[str, int] = {}
    for move in state.history:
        counts[move.name] = counts.get(move.name, 0) + 1

    legal_counts: list[int] = []  # per decision, how many moves the deciding seat had to choose from

    def counted(now, player, legal, rng):
        legal_counts.append(len(legal))
        return choose(now, player, legal, rng)

    # the score trace, when asked for: one score per seat per turn, which may cost as much as the game's moves
    # (a score that counts groups on the board), and only when the rules define numeric scores
    trace: list | None = [] if score_trace and state.rules.score is not None else None
    last_turn = [None]

    def traced(now) -> None:
        nonlocal trace
        if trace is None or now.turn == last_turn[0]:
            return
        last_turn[0] = now.turn
        scores = numeric_scores(now.scores())
        if scores is None:
            trace = None
        elif not trace or trace[-1][1:] != scores:
            trace.append([now.turn] + scores)

    def observe(now, move):
        traced(now)
        name = move[0].name
        counts[name] = counts.get(name, 0) + 1
        entries.append(entry(move, now.is_simultaneous_node()))
        if on_move is not None:
            on_move(now, move)

    chance, seats = streams(seed, state.rules.num_players, stream)
    play(state, counted, chance, seats, observe)
    last_turn[0] = None  # the final scores close the trace
    traced(state)
    return _record(state, seed, agents, legal_counts, trace, stream, entries, counts)


def _record(state, seed: int, agents: list, choices: list, trace, stream: str = STREAM, entries=None,
            counts=None) -> GameRecord:
    """The record of a game ended at `state`: `entries` and `counts` (its history as logged, and the moves made by
    name) default to what the history says."""
    if entries is None:  # (no choice at a simultaneous step: each entry is the move as written)
        entries, counts = state.history_texts(), {}
        for move in state.history:
            counts[move.name] = counts.get(move.name, 0) + 1
    return GameRecord(seed, agents, list(entries), list(state.winners or []), state.scores(), state.ply, state.turn,
                      state.capped, counts, state.ended_by,
                      state.breakdowns() if state.rules.breakdown is not None else None, state.returns(), stream,
                      thirds(choices), trace)


def random_step(state, rng) -> None:
    """Apply one uniformly random legal move (for every player waiting at a simultaneous step), or a
    sampled outcome at a chance node, all drawn from `rng`."""
    play(state, uniform, rng, [rng] * state.rules.num_players, limit=max(1, len(state.acting_players())))


def random_playout(game, seed: int):
    """Play one game with uniformly random moves and return the final state: the loop that benchmarks
    and AI libraries run, without recording anything. Chance and each seat draw from the streams of
    `seed`, as in play_game."""
    state = game.new_initial_state(seed)
    chance, seats = streams(seed, game.num_players)
    play(state, uniform, chance, seats)
    return state
