"""Golden playthroughs: a seeded random game of every rule file, move by move, compared with a stored copy.

A change in any rule, in move generation order, in notation or in randomness shows up here as a
readable diff. After an intended change, regenerate with UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import os

import pytest

import rulesdsl
from rulesdsl.agents import RandomAgent
from rulesdsl.render import render_state
from rulesdsl.sim.runner import play_game

from .helpers import GAMES, ROOT

FILES = sorted(GAMES.glob("*.yaml")) + sorted((ROOT / "examples").rglob("*.yaml"))
GOLDEN = ROOT / "tests" / "golden"
SEED = 2024


def playthrough(path) -> str:
    game = rulesdsl.load_game(path)
    lines = [f"game: {game.name}", f"file: {path.relative_to(ROOT)}", f"seed: {SEED}", ""]

    def on_move(state, move):
        who = "chance" if move.player < 0 else game.player_names[move.player]
        lines.append(f"{state.ply + 1:>4}  {who:<8} {move}")

    record = play_game(game, [RandomAgent() for _ in range(game.num_players)], SEED, on_move)
    final = game.new_initial_state(SEED)
    for text in record.moves:
        player = None
        if text.startswith("@"):
            seat, _, text = text[1:].partition(" ")
            player = int(seat)
        final.apply(text, player)
    lines += ["", render_state(final), ""]
    return "\n".join(lines)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_playthrough_matches_the_golden_file(path):
    expected_file = GOLDEN / f"{path.stem}.txt"
    text = playthrough(path)
    if os.environ.get("UPDATE_GOLDEN") or not expected_file.exists():
        expected_file.write_text(text, encoding="utf-8")
        if not os.environ.get("UPDATE_GOLDEN"):
            pytest.fail(f"wrote missing golden file {expected_file.name}; review and commit it")
    assert text == expected_file.read_text(encoding="utf-8")
