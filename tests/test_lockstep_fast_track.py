"""Lockstep differential test: games/fast-track.yaml run by the interpreter against the hand-written
tests/reference/fast_track_direct.py, side by side along seeded random games.

At every decision both list the same legal moves (sorted notations), at every chance node the same outcomes with
the same probabilities, and at the end the same winners and scores. Each decision is drawn with a seeded
random.Random from the interpreter's list; each chance outcome is drawn by the interpreter (its own seeded Rng) and
applied to the direct implementation through its notation.

The CI part plays a handful of games per configuration; the long run (RULESDSL_LONG_LOCKSTEP=1) plays
RULESDSL_LOCKSTEP_GAMES (default 200) per configuration and prints its figures:

    RULESDSL_LONG_LOCKSTEP=1 python -m pytest -o addopts= -q -s tests/test_lockstep_fast_track.py -k long
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest

from rulesdsl.api import load_game
from rulesdsl.engine.state import CHANCE

from .reference import fast_track_direct as direct

RULES = str(Path(__file__).resolve().parent.parent / "games" / "fast-track.yaml")

CONFIGS = {
    "square-2": {},
    "hex-2": {"board": "hex"},
    "square-4-pairs": {"players": 4, "teams": "pairs"},
    "hex-6-pairs": {"board": "hex", "players": 6, "teams": "pairs"},
    "square-2x2-colours": {"colours_per_player": 2},
}
CI_GAMES = {"square-2": 3, "hex-2": 3, "square-4-pairs": 2, "hex-6-pairs": 1, "square-2x2-colours": 2}

_games: dict = {}


def game_for(name: str):
    if name not in _games:
        _games[name] = load_game(RULES, options=CONFIGS[name])
    return _games[name]


class Mismatch(AssertionError):
    pass


def _fail(name, seed, history, what, theirs, ours, mine):
    only_theirs = sorted(set(theirs) - set(ours))
    only_ours = sorted(set(ours) - set(theirs))
    raise Mismatch(
        f"{what} differ in {name} {CONFIGS[name]} seed {seed} after {len(history)} plies\n"
        f"  interpreter only: {only_theirs}\n  direct only:      {only_ours}\n"
        f"  interpreter: {theirs}\n  direct:      {ours}\n"
        f"  position (direct): {mine}\n"
        f"  history (apply in order to game.new_initial_state({seed}) / direct.new_game({seed}, **options)):\n"
        f"  {history}")


def lockstep(name: str, seed: int) -> tuple[int, int, int, int]:
    """Play one game in lockstep; returns (decisions compared, chance nodes compared, plies)."""
    options = CONFIGS[name]
    state = game_for(name).new_initial_state(seed)
    mine = direct.new_game(seed, **options)
    rng = random.Random(seed)
    history: list[str] = []
    decisions = chances = 0
    while not state.terminal:
        player = state.current_player()
        if player != mine.current_player():
            _fail(name, seed, history, "players to move", [player], [mine.current_player()], mine)
        if player == CHANCE:
            theirs = sorted((str(m), p) for m, p in state.chance_outcomes())
            ours = sorted((mine.notation(m), p) for m, p in mine.chance_outcomes())
            if [t for t, _ in theirs] != [t for t, _ in ours] or any(
                    abs(a[1] - b[1]) > 1e-9 for a, b in zip(theirs, ours)):
                _fail(name, seed, history, "chance outcomes", theirs, ours, mine)
            chances += 1
            move = state.sample_chance()
        else:
            legal = state.legal_moves(player)
            theirs = sorted(str(m) for m in legal)
            our_moves = mine.legal_moves(player)
            ours = sorted(mine.notation(m) for m in our_moves)
            if theirs != ours:
                _fail(name, seed, history, "legal moves", theirs, ours, mine)
            decisions += 1
            move = legal[rng.randrange(len(legal))]
        text = str(move)
        history.append(text)
        state.apply(move)
        mine.apply_notation(text)
    if not mine.terminal or list(state.winners) != mine.winners or state.scores() != mine.scores():
        _fail(name, seed, history, "results", [state.terminal, state.winners, state.scores()],
              [mine.terminal, mine.winners, mine.scores()], mine)
    return decisions, chances, state.ply


@pytest.mark.parametrize("name", list(CONFIGS))
def test_lockstep(name):
    for seed in range(CI_GAMES[name]):
        lockstep(name, seed)


def test_spec_tie_example():
    """The spec's own example ("Which effects are legal", 1, [decided]): 2 players with 2 colours, a 2 in hand;
    red on m41 and yellow on m13 are both 1 hop from their Fast Track exits; yellow cannot move 2 (own yellow on
    m14 and m28), so both `2 m41-m43` and `2 m13-yellow-pen` are legal."""
    game = load_game(RULES, options={"colours_per_player": 2})
    state = game.new_initial_state(0)
    data = state.to_json()
    marble = {"kind": "marble", "travelling": False}
    cells = {"m41": "red", "m13": "yellow", "m14": "yellow", "m28": "yellow"}
    data["cells"] = {cell: dict(marble, colour=colour) for cell, colour in cells.items()}
    pens = {"red": 3, "yellow": 1, "blue": 4, "green": 4}
    data["zones"]["pen"] = {"table": [[c, [{"piece": dict(marble, colour=c)}] * k] for c, k in pens.items()]}
    data["zones"]["hand"] = [[{"piece": {"kind": "card", "rank": "2"}}], []]
    data.update(step="play", player=0, ply=1, turn=0, history=[])
    state = game.state_from_json(data)
    mine = direct.new_game(0, colours_per_player=2)
    mine.phase, mine.player, mine.hand[0] = direct._PLAY, 0, ["2"]
    for cell, colour in cells.items():
        mine.board[int(cell[1:])] = direct.COLOUR_NAMES.index(colour)
    assert sorted(mine.notation(m) for m in mine.legal_moves()) == ["2 m13-yellow-pen", "2 m41-m0", "2 m41-m43"]
    assert sorted(str(m) for m in state.legal_moves(0)) == ["2 m13-yellow-pen", "2 m41-m0", "2 m41-m43"]


@pytest.mark.skipif(os.environ.get("RULESDSL_LONG_LOCKSTEP") != "1", reason="long run: set RULESDSL_LONG_LOCKSTEP=1")
@pytest.mark.parametrize("name", list(CONFIGS))
def test_long_lockstep(name):
    games = int(os.environ.get("RULESDSL_LOCKSTEP_GAMES", "200"))
    first = int(os.environ.get("RULESDSL_LOCKSTEP_FIRST_SEED", "1000"))
    start = time.perf_counter()
    decisions = chances = plies = 0
    for seed in range(first, first + games):
        d, c, p = lockstep(name, seed)
        decisions, chances, plies = decisions + d, chances + c, plies + p
    print(f"\n{name}: {games} games, {decisions} decisions and {chances} chance nodes compared, "
          f"{plies / games:.0f} plies per game, "
          f"{time.perf_counter() - start:.0f}s")


def test_the_direct_implementation_checks_options():
    with pytest.raises(ValueError):
        direct.new_game(0, players=3, teams="pairs")
    with pytest.raises(ValueError):
        direct.new_game(0, players=3, colours_per_player=2)
    winners, plies = direct.random_playout(1)
    assert plies > 0 and len(winners) == 1
