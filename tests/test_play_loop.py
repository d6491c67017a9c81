"""The one play loop: choosers and streams, and the commands built on it (play reproduces simulate, replay --show)."""

from __future__ import annotations

import io
import json
import re

import pytest

import rulesdsl
from rulesdsl.agents import FirstAgent, RandomAgent
from rulesdsl.engine.play import play, streams, uniform
from rulesdsl.engine.rng import Rng
from rulesdsl.engine.state import CHANCE, SIMULTANEOUS
from rulesdsl.sim.runner import play_game, random_playout, random_step

from .helpers import ROOT, game_lines, load, run_cli as run

SEALED_BIDS = str(ROOT / "examples" / "games" / "sealed-bids.yaml")


def first(state, player, legal, rng):
    return legal[0]


def test_the_loop_asks_the_chooser_with_each_seats_own_stream_and_reports_every_move():
    game = load("mark")
    state = game.new_initial_state(5)
    chance, seats = streams(5, game.num_players)
    asked, seen = [], []

    def scripted(now, player, legal, rng):
        assert rng is seats[player] and legal == now.legal_moves(player)
        asked.append(player)
        return legal[-1]

    play(state, scripted, chance, seats, lambda now, move: seen.append((now.ply, move)))
    assert state.terminal and [ply for ply, _ in seen] == list(range(state.ply))
    assert [move for _, move in seen] == state.history
    assert asked == [m.player for m in state.history if m.player != CHANCE]


def test_the_chance_stream_moves_only_at_chance_nodes_and_a_seats_only_at_its_decisions():
    game = load("mark")
    state = game.new_initial_state(8)
    chance, seats = streams(8, game.num_players)
    streams_of = [chance] + seats
    before = [s.getstate() for s in streams_of]

    def observe(now, move):
        after = [s.getstate() for s in streams_of]
        moved = [a != b for a, b in zip(after, before)]
        if move.player == CHANCE:
            assert moved == [True] + [False] * len(seats)
        elif not now.is_simultaneous_node():  # below(1) draws nothing: a forced move leaves the stream as it is
            chose = len(now.legal_moves(move.player)) > 1
            assert moved == [chose and i == move.player + 1 for i in range(len(streams_of))]
        else:  # all waiting players have chosen before the first choice is applied
            assert not moved[0]
        before[:] = after

    play(state, uniform, chance, seats, observe)
    assert state.terminal and any(m.player == CHANCE for m in state.history)


def test_the_dice_do_not_depend_on_the_agents():
    game = load("mark")

    def outcomes(chooser):
        drawn = []
        state = game.new_initial_state(11)
        play(state, chooser, *streams(11, game.num_players),
             observe=lambda now, move: drawn.append(str(move)) if move.player == CHANCE else None)
        return drawn

    a = outcomes(uniform)
    b = outcomes(lambda now, p, legal, rng: legal[0] if p == 1 else uniform(now, p, legal, rng))
    assert a != b and a[:min(len(a), len(b))] == b[:min(len(a), len(b))]  # other games, the same rolls


def test_the_same_seed_plays_the_same_game():
    game = load("mark")
    assert random_playout(game, 3).history == random_playout(game, 3).history
    assert random_playout(game, 3).history != random_playout(game, 4).history
    agents = [RandomAgent(), FirstAgent()]
    assert play_game(game, agents, 9) == play_game(load("mark"), agents, 9)


def test_random_playout_is_the_loop_with_the_uniform_chooser_and_the_games_streams():
    game = load("mabula")
    state = game.new_initial_state(21)
    play(state, uniform, *streams(21, game.num_players))
    assert random_playout(game, 21).history == state.history
    record = play_game(game, [RandomAgent(), RandomAgent()], 21)  # a random agent draws as the uniform chooser
    assert record.moves == [str(m) for m in state.history]


def test_a_limit_stops_after_that_many_moves_even_within_a_simultaneous_step():
    game = rulesdsl.load_game(SEALED_BIDS)
    state = game.new_initial_state(1)
    chance, seats = streams(1, game.num_players)
    play(state, first, chance, seats, limit=1)  # the prize is revealed
    assert state.ply == 1 and state.current_player() == SIMULTANEOUS and len(state.acting_players()) == 3
    play(state, first, chance, seats, limit=2)  # two of the three bids
    assert state.ply == 3 and state.acting_players() == [2]
    play(state, first, chance, seats, limit=0)
    assert state.ply == 3


def test_random_step_makes_one_node():
    game = rulesdsl.load_game(SEALED_BIDS)
    state = game.new_initial_state(2)
    rng = Rng(2)
    random_step(state, rng)
    assert state.ply == 1 and state.current_player() == SIMULTANEOUS
    random_step(state, rng)  # every waiting player bids
    assert state.ply == 4 and state.current_player() == CHANCE


@pytest.mark.parametrize("name, agents, index", [("mabula", "random,random", 1), ("mark", "random,greedy", 0),
                                                 ("sealed-bids", "random,first,random", 2)])
def test_play_with_agents_plays_the_game_simulate_played_with_that_seed(capsys, tmp_path, name, agents, index):
    file = SEALED_BIDS if name == "sealed-bids" else name
    results, log = tmp_path / "r.jsonl", tmp_path / "game.json"
    assert run(capsys, "simulate", file, "--games", "3", "--seed", "6", "--agents", agents, "--out", str(results),
               "--quiet")[0] == 0
    line = game_lines(results)[index]
    code, out, _ = run(capsys, "play", file, "--seats", agents, "--seed", str(line["seed"]), "--log", str(log))
    assert code == 0
    data = json.loads(log.read_text())
    assert data["moves"] == line["moves"] and data["rule_counts"] == line["rule_counts"]
    assert data["result"]["winners"] == line["winners"] and data["seed"] == line["seed"]
    assert run(capsys, "replay", str(log), *(["--rules", file] if file == SEALED_BIDS else []))[0] == 0


def test_a_human_seat_leaves_chance_to_the_seeds_chance_stream(capsys, monkeypatch, tmp_path):
    results = tmp_path / "r.jsonl"
    run(capsys, "simulate", "mabula", "--games", "2", "--seed", "1", "--agents", "random,random", "--out",
        str(results), "--quiet")
    line = game_lines(results)[1]
    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    code, out, _ = run(capsys, "play", "mabula", "--seats", "human,random", "--seed", str(line["seed"]))
    assert code == 130 and f"[setup] {line['moves'][0]}\n" in out  # the same setup as the simulated game


@pytest.fixture
def mabula_results(capsys, tmp_path):
    results = tmp_path / "r.jsonl"
    run(capsys, "simulate", "mabula", "--games", "3", "--seed", "2", "--agents", "random,greedy", "--out",
        str(results), "--quiet")
    return results


def test_replay_show_prints_every_move_and_each_position_and_ends_with_the_result(capsys, mabula_results):
    line = game_lines(mabula_results)[2]
    code, out, _ = run(capsys, "replay", str(mabula_results), "--game", "2", "--show")
    assert code == 0 and out.startswith("game 2: 25 moves replayed and verified\n")
    shown = re.findall(r"^(\d+)\. (?:chance|white|black): (.*)$", out, re.M)
    assert [int(number) for number, _ in shown] == list(range(1, len(line["moves"]) + 1))
    assert [move for _, move in shown] == line["moves"]
    assert out.count("a b c d e f g h") == len(line["moves"]) + 1  # the start, then after every move
    winner = ["white", "black"][line["winners"][0]]
    assert out.rstrip().splitlines()[-1].startswith(f"winner: {winner}")


def test_replay_step_waits_for_enter_and_q_stops(capsys, monkeypatch, mabula_results):
    monkeypatch.setattr("sys.stdin", io.StringIO("\n" * 40))
    code, out, _ = run(capsys, "replay", str(mabula_results), "--game", "0", "--step")
    assert code == 0 and out.count("(Enter: next move, q: stop)") == game_lines(mabula_results)[0]["plies"]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n\nq\n"))
    code, out, _ = run(capsys, "replay", str(mabula_results), "--game", "0", "--step")
    assert code == 130 and "\n2. " in out and "\n3. " not in out


def test_a_game_out_of_range_is_a_usage_error(capsys, mabula_results, tmp_path):
    code, out, err = run(capsys, "replay", str(mabula_results), "--game", "3", "--show")
    assert code == 2 and not out
    assert f"--game 3: {mabula_results} has no game 3 (its games are numbered 0 to 2)" in err
    with pytest.raises(SystemExit) as exited:
        run(capsys, "replay", str(mabula_results), "--game", "-1")
    assert exited.value.code == 2 and "too small" in capsys.readouterr().err
    log = tmp_path / "game.json"
    run(capsys, "play", "mabula", "--seats", "random,random", "--log", str(log))
    assert run(capsys, "replay", str(log), "--game", "0", "--show")[0] == 0
    code, _, err = run(capsys, "replay", str(log), "--game", "1")
    assert code == 2 and "has no game 1 (its games are numbered 0 to 0)" in err


def test_an_error_in_the_results_file_stays_located(capsys, mabula_results):
    lines = mabula_results.read_text().splitlines()
    lines[1] = lines[1].replace('"plies": ', '"plies": -')
    mabula_results.write_text("\n".join(lines) + "\n")
    code, _, err = run(capsys, "replay", str(mabula_results), "--game", "0", "--show")
    assert code == 1 and f"{mabula_results}:2" in err


def test_play_stops_where_a_seat_it_does_not_ask_is_to_choose():
    game = rulesdsl.load_game(str(ROOT / "examples" / "games" / "sealed-bids.yaml"))
    state = game.new_initial_state(2)
    chance, seats = streams(2, game.num_players)
    play(state, uniform, chance, seats, stop_for=(1,))
    assert state.current_player() == SIMULTANEOUS and state.acting_players() == [1]
    assert sorted(state.pending) == [p for p in range(game.num_players) if p != 1]  # the others chose first
    ply = state.ply
    play(state, uniform, chance, seats, stop_for=(1,))
    assert state.ply == ply  # nothing left to do for the loop
    play(state, uniform, chance, seats)
    assert state.terminal


def test_a_simultaneous_step_whose_actors_are_none_is_a_located_error(tmp_path):
    text = (ROOT / "examples" / "games" / "sealed-bids.yaml").read_text().replace('actors: "players"', 'actors: "[]"')
    (tmp_path / "nobody.yaml").write_text(text)
    game = rulesdsl.load_game(str(tmp_path / "nobody.yaml"))
    state = game.new_initial_state(1)
    chance, seats = streams(1, game.num_players)
    with pytest.raises(rulesdsl.GameRuntimeError) as caught:
        play(state, uniform, chance, seats)  # rather than waiting for ever on nobody
    assert "the players to choose at this simultaneous step are none" in str(caught.value)
    assert "nobody.yaml:" in str(caught.value)
