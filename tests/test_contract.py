"""The API contract, checked by seeded random playouts of every bundled game and example rule file."""

from __future__ import annotations

import json

import pytest

import rulesdsl
from rulesdsl import CHANCE, SIMULTANEOUS, TERMINAL, MoveError, Rng
from rulesdsl.sim.runner import random_step

from .helpers import GAMES, ROOT

RULE_FILES = sorted(GAMES.glob("*.yaml")) + sorted((ROOT / "examples").rglob("*.yaml"))
PLY_LIMIT = 20_000


def _variants(path):
    from rulesdsl.loading import load_document

    return [None] + list((load_document(path).data.get("variants") or {}))


CASES = [(path, variant) for path in RULE_FILES for variant in _variants(path)]


def _id(case):
    path, variant = case
    return path.stem + (f"[{variant}]" if variant else "")


def check_node(state, game):
    player = state.current_player()
    n = game.num_players
    assert player in (CHANCE, SIMULTANEOUS) or 0 <= player < n
    if player == CHANCE:
        try:
            outcomes = state.chance_outcomes()
        except MoveError:
            return  # an arrangement: too many outcomes to list
        assert outcomes and abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
        assert all(p > 0 for _, p in outcomes)
        texts = [str(m) for m, _ in outcomes]
        assert len(set(texts)) == len(texts), "chance outcomes must print differently"
        for move, _ in outcomes[:20]:
            assert state.parse_move(str(move)) == move
        return
    players = state.acting_players()
    assert players and all(0 <= p < n for p in players)
    for p in players:
        legal = state.legal_moves(p)
        assert legal, "a player to move always has a move (a pass at least)"
        texts = [str(m) for m in legal]
        assert len(set(texts)) == len(texts), f"two legal moves print alike: {texts}"
        for move in legal[:30]:
            assert state.parse_move(str(move), p) == move
    for p in range(n):
        view = state.observation(p)
        json.dumps(view)
        for q, text in view["pending"].items():
            assert int(q) == p or text == "chosen", "a pending secret choice leaked"


def playout(game, seed, checks=True):
    state = game.new_initial_state(seed)
    rng = Rng(seed)
    plies = 0
    while not state.is_terminal():
        if checks:
            check_node(state, game)
            if plies % 7 == 0 and state.current_player() != CHANCE:
                copy = game.state_from_json(json.loads(json.dumps(state.to_json())))
                assert copy.to_json() == state.to_json()
                assert [str(m) for m in copy.legal_moves()] == [str(m) for m in state.legal_moves()]
                clone = state.clone()
                assert clone.to_json() == state.to_json()
        random_step(state, rng)
        plies += 1
        assert plies < PLY_LIMIT, "the game does not end"
    assert state.current_player() == TERMINAL
    assert state.legal_moves() == []
    returns = state.returns()
    assert len(returns) == game.num_players
    assert set(state.winners) <= set(range(game.num_players))
    if state.winners:
        assert all(returns[p] == 1.0 for p in state.winners)
    return state


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_random_playouts_keep_the_contract(case):
    path, variant = case
    game = rulesdsl.load_game(path, variant)
    for seed in range(6):
        playout(game, seed)


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_playouts_are_deterministic(case):
    path, variant = case
    game = rulesdsl.load_game(path, variant)
    first = [str(m) for m in playout(game, 99, checks=False).history]
    again = [str(m) for m in playout(rulesdsl.load_game(path, variant), 99, checks=False).history]
    assert first == again


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.stem)
def test_many_playouts_end(path):
    game = rulesdsl.load_game(path)
    for seed in range(100, 140):
        playout(game, seed, checks=False)
