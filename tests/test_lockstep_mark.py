"""Lockstep differential test: the interpreter running games/mark.yaml against the hand-written MARK in
tests/reference/mark_direct.py, along seeded random games.

At every decision both list the same legal moves (sorted notations), at every chance node the same outcomes
with the same probabilities, at every auction the same bidders with the same bids; the game ends at the same
ply with the same winners and scores. Moves are picked with a seeded random.Random from the interpreter's
list and applied to both (the interpreter's move object, its notation to the direct side); chance outcomes are drawn
by the interpreter (sample_chance, from the state's own sampler seeded by the game's seed) and applied to the
direct implementation with apply_notation. Only the public API is used: load_game, the State methods and
CHANCE/SIMULTANEOUS.

The CI part plays a handful of games per configuration. The long run (RULESDSL_LONG_LOCKSTEP=1, games per
configuration from RULESDSL_LOCKSTEP_GAMES, default 250) prints its figures:
    RULESDSL_LONG_LOCKSTEP=1 python -m pytest -o addopts= -q -s tests/test_lockstep_mark.py -k long
"""

from __future__ import annotations

import os
import random
import time
from collections import Counter
from pathlib import Path

import pytest

from rulesdsl.api import load_game
from rulesdsl.engine.state import CHANCE, SIMULTANEOUS

from .reference import mark_direct as direct

RULES = str(Path(__file__).resolve().parent.parent / "games" / "mark.yaml")

CONFIGS = [
    ("2 players", 2, "standard"),
    ("4 players", 4, "standard"),
    ("2 players, four-row ending", 2, "four-row-ending"),
    ("4 players, four-row ending", 4, "four-row-ending"),
]
IDS = [label for label, _, _ in CONFIGS]
_GAMES: dict = {}


def interpreter_game(players: int, variant: str):
    key = (players, variant)
    if key not in _GAMES:
        _GAMES[key] = load_game(RULES, variant=None if variant == "standard" else variant,
                                options={"players": players})
    return _GAMES[key]


class Mismatch(AssertionError):
    pass


def lockstep(players: int, variant: str, seed: int, stats: Counter | None = None) -> int:
    """Play one seeded random game on both sides; return the number of plies. Raises Mismatch with the
    history (notations, bids written '@<seat> bid <n>') on the first difference."""
    state = interpreter_game(players, variant).new_initial_state(seed)
    mine = direct.new_game(seed, players=players, variant=variant)
    pick = random.Random(seed)
    history: list[str] = []

    def fail(what: str, theirs, ours):
        raise Mismatch(f"{what}\nconfiguration: players={players} variant={variant} seed={seed}, "
                       f"ply {len(history)}\nhistory: {history}\ninterpreter: {theirs}\ndirect:      {ours}\n"
                       f"direct state:\n{mine}")

    while True:
        if state.terminal or mine.terminal:
            if state.terminal != mine.terminal:
                fail("one side ended the game", state.terminal, mine.terminal)
            break
        player = state.current_player()
        if player != mine.current_player():
            fail("different player to move", player, mine.current_player())
        if player == CHANCE:
            theirs = sorted((str(m), p) for m, p in state.chance_outcomes())
            ours = sorted((mine.notation(m), p) for m, p in mine.chance_outcomes())
            if [t for t, _ in theirs] != [t for t, _ in ours] \
                    or any(abs(a[1] - b[1]) > 1e-9 for a, b in zip(theirs, ours)):
                fail("different chance outcomes", theirs, ours)
            outcome = state.sample_chance()
            state.apply(outcome)
            mine.apply_notation(str(outcome))
            history.append(str(outcome))
            if stats is not None:
                stats["chance nodes"] += 1
            continue
        if player == SIMULTANEOUS:
            if state.acting_players() != mine.acting_players():
                fail("different bidders", state.acting_players(), mine.acting_players())
            seats = state.acting_players()
        else:
            seats = [player]
        for seat in seats:
            legal = state.legal_moves(seat)
            theirs = sorted(str(m) for m in legal)
            ours = sorted(mine.notation(m) for m in mine.legal_moves(seat))
            if theirs != ours:
                fail(f"different legal moves for seat {seat}", theirs, ours)
            chosen = legal[pick.randrange(len(legal))]
            move = str(chosen)
            state.apply(chosen)
            mine.apply_notation(move, seat)
            history.append(f"@{seat} {move}" if player == SIMULTANEOUS else move)
            if stats is not None:
                stats["decisions"] += 1
                stats[move.split()[0]] += 1
    if list(state.winners) != mine.winners:
        fail("different winners", state.winners, mine.winners)
    if list(state.scores()) != mine.scores():
        fail("different scores", state.scores(), mine.scores())
    if len(history) != mine.ply:
        fail("different ply counts", len(history), mine.ply)
    if stats is not None:
        stats["games"] += 1
        stats["plies"] += len(history)
    return len(history)


@pytest.mark.parametrize("label, players, variant", CONFIGS, ids=IDS)
def test_lockstep_random_games(label, players, variant):
    for seed in range(3):
        assert lockstep(players, variant, seed) > 0


def test_lockstep_three_players_poor_start():
    """An extra configuration: 3 players starting with $4, so storage fees are soon beyond their means."""
    for seed in range(2):
        state = load_game(RULES, options={"players": 3, "money": 4}).new_initial_state(seed)
        mine = direct.new_game(seed, players="3", money="4")
        pick = random.Random(seed)
        returns = 0
        while not state.terminal:
            player = state.current_player()
            if player == CHANCE:
                outcome = state.sample_chance()
                state.apply(outcome)
                mine.apply_notation(str(outcome))
                continue
            for seat in state.acting_players() if player == SIMULTANEOUS else [player]:
                legal = state.legal_moves(seat)
                assert sorted(map(str, legal)) == sorted(map(mine.notation, mine.legal_moves(seat)))
                move = legal[pick.randrange(len(legal))]
                returns += str(move).startswith("return")
                state.apply(move)
                mine.apply_notation(str(move), seat)
        assert mine.terminal and mine.winners == state.winners and mine.scores() == state.scores()
        assert returns > 0


def test_direct_random_playout_is_reproducible():
    for players in (2, 4):
        first = direct.random_playout(5, players=players)
        assert first == direct.random_playout(5, players=players)
        winners, plies = first
        assert winners and plies > 0


@pytest.mark.skipif(os.environ.get("RULESDSL_LONG_LOCKSTEP") != "1",
                    reason="long lockstep run: set RULESDSL_LONG_LOCKSTEP=1")
@pytest.mark.parametrize("label, players, variant", CONFIGS, ids=IDS)
def test_lockstep_long(label, players, variant):
    games = int(os.environ.get("RULESDSL_LOCKSTEP_GAMES", "250"))
    stats: Counter = Counter()
    start = time.perf_counter()
    for seed in range(1000, 1000 + games):
        lockstep(players, variant, seed, stats)
    elapsed = time.perf_counter() - start
    kinds = ", ".join(f"{k} {stats[k]}" for k in ("take", "produce", "sell", "return", "bid", "name", "pass"))
    print(f"\n{label}: {stats['games']} games, {stats['decisions']} decisions and {stats['chance nodes']} chance "
          f"nodes compared, {stats['plies'] / stats['games']:.1f} plies per game, {elapsed:.1f}s ({kinds})")
