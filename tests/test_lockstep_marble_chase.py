"""Lockstep differential test: games/marble-chase.yaml run by the interpreter against the hand-written
implementation in tests/reference/marble_chase_direct.py, side by side along seeded random games.

At every decision both list the same legal moves (sorted notations), at every chance node the same
outcomes with the same probabilities (to 1e-9), and at the end both give the same winners and scores.
Moves are picked with a seeded random.Random from the interpreter's list, chance outcomes drawn from the
interpreter's probabilities; the same notation is applied to both.

The CI part plays a handful of games per configuration (and a few with chance weighted so that marbles
keep missing, to reach the re-shot limits). RULESDSL_LONG_LOCKSTEP=1 plays many more: per configuration
RULESDSL_LONG_LOCKSTEP_GAMES (default 200) games with the true chance plus a quarter as many with misses.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from functools import lru_cache
from pathlib import Path

import pytest

from rulesdsl.api import load_game
from rulesdsl.engine.state import CHANCE, SIMULTANEOUS

from .reference import marble_chase_direct as direct

RULES = str(Path(__file__).resolve().parent.parent / "games" / "marble-chase.yaml")

CONFIGS = {
    "2 players": {},
    "4 players, teams, match": {"players": 4, "teams": True, "match": True},
    "3 players, skills": {"players": 3, "skills": "expert,standard"},
    "2 players, capped at 40 turns": {"max_turns": 40},  # the engine's turn cap (a draw), not a rule
}


def _options(config):
    """The rule file's options of a configuration, as the interpreter takes them (strings)."""
    return {k: str(v).lower() for k, v in CONFIGS[config].items() if k != "max_turns"}

LONG = os.environ.get("RULESDSL_LONG_LOCKSTEP") == "1"
LONG_GAMES = int(os.environ.get("RULESDSL_LONG_LOCKSTEP_GAMES", "200"))


@lru_cache(maxsize=None)
def _game(config):
    return load_game(RULES, options=_options(config), max_turns=CONFIGS[config].get("max_turns"))


def _fail(config, seed, history, what):
    pytest.fail(f"{config}, seed {seed}, after {len(history)} plies: {what}\n"
                f"reproduce: state = load_game({RULES!r}, options={_options(config)}, "
                f"max_turns={CONFIGS[config].get('max_turns')}).new_initial_state({seed}); "
                f"then apply in order:\n{history}", pytrace=False)


def _misses(text):
    """Chance weights that make a marble miss often, to reach the re-shot limits (10 re-shots, a second out)."""
    return 30 if text == "no-slot" else 1


def lockstep_game(config, seed, chance_weight=None):
    """Play one seeded random game in lockstep; returns (decisions compared, chance nodes compared, plies).

    Chance outcomes are drawn with the interpreter's probabilities, or with chance_weight(notation)."""
    state = _game(config).new_initial_state(seed)
    mine = direct.new_game(seed, **CONFIGS[config])
    rng = random.Random(seed)
    history = []
    decisions = chances = 0
    while not state.terminal:
        if mine.terminal:
            _fail(config, seed, history, "the direct implementation ended the game, the interpreter did not")
        player = state.current_player()
        if player != mine.current_player():
            _fail(config, seed, history, f"player to move: interpreter {player}, direct {mine.current_player()}")
        if player == SIMULTANEOUS:
            _fail(config, seed, history, "the interpreter has a simultaneous step; Marble Chase has none")
        if player == CHANCE:
            theirs = sorted((str(m), p) for m, p in state.chance_outcomes())
            ours = sorted((mine.notation(m), p) for m, p in mine.chance_outcomes())
            if [t for t, _ in theirs] != [t for t, _ in ours] or \
                    any(abs(p - q) > 1e-9 for (_, p), (_, q) in zip(theirs, ours)):
                _fail(config, seed, history, f"chance outcomes differ:\n interpreter {theirs}\n direct      {ours}")
            chances += 1
            outcomes = state.chance_outcomes()
            weights = [p if chance_weight is None else chance_weight(str(m)) for m, p in outcomes]
            move = rng.choices([m for m, _ in outcomes], weights=weights)[0]
        else:
            legal = state.legal_moves(player)
            theirs = sorted(str(m) for m in legal)
            ours = sorted(mine.notation(m) for m in mine.legal_moves(player))
            if theirs != ours:
                _fail(config, seed, history, f"legal moves of seat {player} differ:\n"
                      f" only interpreter {sorted(set(theirs) - set(ours))}\n only direct {sorted(set(ours) - set(theirs))}\n"
                      f" interpreter {theirs}\n direct      {ours}")
            if state.turn != mine.turn:
                _fail(config, seed, history, f"turns ended: interpreter {state.turn}, direct {mine.turn}")
            decisions += 1
            move = legal[rng.randrange(len(legal))]
        text = str(move)
        history.append(text)
        state.apply(move)
        mine.apply_notation(text)
    if not mine.terminal:
        _fail(config, seed, history, "the interpreter ended the game, the direct implementation did not")
    if list(state.winners) != mine.winners:
        _fail(config, seed, history, f"winners: interpreter {state.winners}, direct {mine.winners}")
    if list(state.scores()) != mine.scores():
        _fail(config, seed, history, f"scores: interpreter {state.scores()}, direct {mine.scores()}")
    # (turns are compared at every decision, not at the end: after a match's deciding game the interpreter
    # also closes the turn when no marble is left, bookkeeping of a finished game)
    if state.capped != mine.capped or state.ply != mine.ply:
        _fail(config, seed, history, f"capped/ply: interpreter {state.capped, state.ply}, direct {mine.capped, mine.ply}")
    return decisions, chances, len(history)


@pytest.mark.parametrize("config", list(CONFIGS))
def test_lockstep(config):
    seeds = {"2 players": range(4), "4 players, teams, match": range(2), "3 players, skills": range(2),
             "2 players, capped at 40 turns": range(3)}[config]
    for seed in seeds:
        decisions, chances, _ = lockstep_game(config, seed)
        assert decisions > 0 and chances > 0


def test_lockstep_with_many_misses():
    """Marbles that keep missing: the 10 re-shot limit and the second out are reached many times."""
    for seed in range(3):
        lockstep_game("2 players, capped at 40 turns", seed, _misses)


@pytest.mark.skipif(not LONG, reason="long lockstep run: set RULESDSL_LONG_LOCKSTEP=1")
@pytest.mark.parametrize("config", list(CONFIGS))
def test_lockstep_long(config):
    import time

    start = time.perf_counter()
    games = decisions = chances = plies = 0
    for seed in range(1000, 1000 + LONG_GAMES):
        d, c, p = lockstep_game(config, seed)
        games, decisions, chances, plies = games + 1, decisions + d, chances + c, plies + p
    for seed in range(5000, 5000 + LONG_GAMES // 4):  # marbles that keep missing (re-shot limits)
        d, c, p = lockstep_game(config, seed, _misses)
        games, decisions, chances, plies = games + 1, decisions + d, chances + c, plies + p
    print(f"\nlockstep {config}: {games} games, {decisions} decisions and {chances} chance nodes compared, "
          f"{plies} plies, {time.perf_counter() - start:.1f}s")


def test_direct_sampler_follows_its_enumerated_outcomes():
    """The benchmark's playout draws shots directly (out/miss, drift, depth); the draws follow the
    probabilities that the lockstep compares with the interpreter (chi-square, p = 0.0001)."""
    rng = random.Random(7)
    for col, line, occupied in ((1, "back", {1: (2, 1, 0)}), (4, "front", {}), (6, "back", {2: (5, 0, -1)})):
        g = direct.new_game(0)
        g.apply(("first", 0))
        g.apply(("shoot", col, line))
        g.marbles = dict(occupied)
        g.shot_no = 3
        expected = dict(g.chance_outcomes())
        assert sum(expected.values()) == pytest.approx(1)
        n = 20_000
        seen = Counter(g.sample_chance(rng) for _ in range(n))
        assert set(seen) <= set(expected)
        chi2 = sum((seen[k] - n * p) ** 2 / (n * p) for k, p in expected.items())
        df = len(expected) - 1
        k = 2 / (9 * df)
        assert chi2 < df * (1 - k + 3.719 * k ** 0.5) ** 3, (col, line, chi2, seen)


def test_random_playout_plays_to_the_end():
    for config, options in CONFIGS.items():
        winners, plies = direct.random_playout(3, **options)
        assert plies > 100 and (winners == [] if "max_turns" in options else winners), config
