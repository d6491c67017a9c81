"""Games and states pickle (engine/game.py, engine/state.py): unpickled, in this process or another, a state plays
on as the original does, chance draws included."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

from rulesdsl import Rng, load_game
from rulesdsl.loading import bundled_games

from .helpers import ROOT


def _play(state, rng: Rng, plies: int) -> list:
    """Random moves and the state's own chance draws for `plies` plies: the history texts and the JSON at the end."""
    for _ in range(plies):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply(state.sample_chance())
        else:
            player = state.acting_players()[0]
            legal = state.legal_moves(player)
            state.apply(legal[rng.below(len(legal))], player)
    return [state.history_texts(), state.to_json()]


@pytest.mark.parametrize("name", sorted(bundled_games()))
def test_an_unpickled_state_plays_on_as_the_original(name):
    game = load_game(name)
    state = game.new_initial_state(seed=5)
    _play(state, Rng(1), 12)
    copy = pickle.loads(pickle.dumps(state))
    assert copy.to_json() == state.to_json()
    assert _play(copy, Rng(2), 40) == _play(state, Rng(2), 40)


def test_a_game_pickles_with_its_variant_options_and_turn_cap():
    game = load_game("mark", variant="four-row-ending", max_turns=30)
    copy = pickle.loads(pickle.dumps(game))
    assert (copy.name, copy.variant, copy.max_turns, copy.cap_source) == (game.name, game.variant, 30, "given")
    game = load_game("mabula", options={"setup": "WWBB" * 6})
    copy = pickle.loads(pickle.dumps(game))
    assert copy.options == game.options
    assert copy.new_initial_state().history_texts() == game.new_initial_state().history_texts()


def test_a_game_pickles_as_the_rules_it_was_loaded_with(tmp_path):
    path = tmp_path / "rules.yaml"
    path.write_text((ROOT / "examples/tutorial/three-in-a-row.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    game = load_game(str(path))
    data = pickle.dumps(game)
    path.unlink()  # the pickle carries the rules: the file is no longer needed
    assert pickle.loads(data).player_names == game.player_names


def test_a_state_unpickles_in_another_process():
    state = load_game("mabula").new_initial_state(seed=9)
    _play(state, Rng(3), 6)
    script = ("import pickle, sys; state = pickle.loads(sys.stdin.buffer.read()); "
              "print(state.history_texts()[-1], state.seed)")
    done = subprocess.run([sys.executable, "-c", script], input=pickle.dumps(state), capture_output=True,
                          check=True, cwd=ROOT)
    assert done.stdout.decode().split() == [*state.history_texts()[-1].split(), "9"]
