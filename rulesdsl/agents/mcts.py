"""Monte Carlo tree search (UCT) over states sampled from the player's view (information-set MCTS)."""

from __future__ import annotations

import math
import time

from ..engine.play import play, uniform
from ..engine.nodes import CHANCE, SIMULTANEOUS
from .base import Agent
from .evaluate import shares


WORLDS = 16  # states sampled from a view with hidden information, for one choice (the iterations share them)


def _key(move):
    """How the tree tells moves apart across sampled states: the move itself (a value), or its notation
    when an argument cannot be hashed."""
    try:
        hash(move)
        return move
    except TypeError:
        return str(move)


class _Node:
    __slots__ = ("children", "visits", "reward", "player")

    def __init__(self, player: int):
        self.children: dict = {}  # move key (see _key) -> node
        self.visits = 0
        self.reward = 0.0  # summed result of `player`, who made the move into this node
        self.player = player


class MctsAgent(Agent):
    """UCT with a budget of iterations (default 200) or seconds; each iteration samples the hidden state.

    Where the game hides information, WORLDS states are sampled from the view at once and the iterations take
    them in turn. Chance outcomes are sampled, simultaneous steps are searched one actor at a time from each
    actor's own side, and rollouts are random, cut after `depth` moves and scored by the rule
    file's evaluation (else its score). A budget in seconds is not reproducible; iterations are.
    """

    name = "mcts"
    settings = ("iterations", "seconds", "c", "depth")
    searches = True

    def __init__(self, iterations=200, seconds=None, c=1.4, depth=60):
        self.iterations = int(iterations)
        self.seconds = None if seconds is None else float(seconds)
        self.c = float(c)
        self.depth = int(depth)

    def choose(self, view, legal, rng):
        if len(legal) == 1:
            return legal[0]
        by_key = {_key(m): m for m in legal}
        root = _Node(view.player)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        done, worlds = 0, None
        if view.game.rules.has_hidden_information:
            # the states the view allows are sampled together (each sample replays the game): the iterations take
            # them in turn
            worlds = view.determinizations(rng, WORLDS if deadline is not None else min(self.iterations, WORLDS))
        while (done < self.iterations) if deadline is None else (time.perf_counter() < deadline or done == 0):
            self._iterate(view.determinize(rng) if worlds is None else worlds[done % len(worlds)].clone(), root, rng)
            done += 1
        visits = {k: root.children[k].visits for k in by_key if k in root.children}
        if not visits:  # no search reached this decision (a budget in seconds that ran out at once, say)
            return legal[rng.below(len(legal))]
        most = max(visits.values())
        best = [k for k in by_key if visits.get(k) == most]
        return by_key[best[rng.below(len(best))]]

    def _iterate(self, state, root: _Node, rng) -> None:
        node, path = root, [root]
        expanded = False
        while not state.terminal and not expanded:
            # at the root, the search is for the player choosing (at a simultaneous step the others'
            # secret choices are forgotten, so they are waiting too)
            actor, legal = self._options(state, rng, root.player if node is root else None)
            if actor is None:
                continue
            keys = [_key(m) for m in legal]
            untried = [i for i, k in enumerate(keys) if k not in node.children]
            if untried:
                i = untried[rng.below(len(untried))]
                child = node.children[keys[i]] = _Node(actor)
                expanded = True
            else:
                log_n = math.log(node.visits + 1)
                best, i = -1.0, 0
                for j, k in enumerate(keys):
                    c = node.children[k]
                    score = c.reward / c.visits + self.c * math.sqrt(log_n / c.visits)
                    if score > best:
                        best, i = score, j
                child = node.children[keys[i]]
            state.apply(legal[i])
            node = child
            path.append(node)
        result = self._rollout(state, rng)
        for n in path:
            n.visits += 1
            n.reward += result[n.player]

    def _options(self, state, rng, prefer=None):
        """(actor, legal moves) at a decision; chance outcomes are sampled on the spot (actor None). At a
        simultaneous step the actor is `prefer` if still waiting, else the first waiting."""
        player = state.current_player()
        if player == CHANCE:
            state.apply(state.sample_chance(rng))
            return None, []
        if player == SIMULTANEOUS:
            waiting = state.acting_players()
            player = prefer if prefer in waiting else waiting[0]
        return player, state.legal_moves(player)

    def _rollout(self, state, rng) -> list[float]:
        # random moves and outcomes for at most `depth` moves, all drawn from the agent's own stream; a state of
        # the compiled backend plays them in one call of compiled code, drawing exactly what play() draws
        rollout = getattr(state, "rollout", None)
        if rollout is not None:
            rollout(rng, self.depth)
        else:
            play(state, uniform, rng, [rng] * state.rules.num_players, limit=self.depth)
        return shares(state)
