"""Simulation at scale: results independent of workers and of Dask, resumable files (those of the old random
stream too), reports."""

from __future__ import annotations

import json

import pytest

import rulesdsl
from rulesdsl.sim.simulate import read_results

from .helpers import ROOT, game_lines, game_path, run_cli as run


def results(path):
    return game_lines(path)


def test_results_do_not_depend_on_the_number_of_workers(capsys, tmp_path):
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    base = ["simulate", "mark", "--games", "12", "--seed", "5", "--agents", "random,greedy", "--quiet"]
    assert run(capsys, *base, "--out", str(one))[0] == 0
    assert run(capsys, *base, "--workers", "2", "--out", str(two))[0] == 0
    assert one.read_text() == two.read_text()
    lines = results(one)
    assert [line["index"] for line in lines] == list(range(12))
    assert len({line["seed"] for line in lines}) == 12


def test_dask_local_cluster_gives_the_same_results(capsys, tmp_path):
    pytest.importorskip("dask.distributed")
    local, dask = tmp_path / "local.jsonl", tmp_path / "dask.jsonl"
    base = ["simulate", "mabula", "--games", "16", "--seed", "2", "--agents", "random,random", "--quiet"]
    run(capsys, *base, "--out", str(local))
    code, out, _ = run(capsys, *base, "--dask", "local", "--workers", "2", "--chunk", "3", "--out", str(dask))
    assert code == 0 and "Mabula: 16 games" in out
    assert local.read_text() == dask.read_text()
    assert " s to start or reach the Dask cluster" in out  # reported apart from the games' time


def test_an_interrupted_run_resumes_without_repeating_or_losing_games(capsys, tmp_path):
    full, cut = tmp_path / "full.jsonl", tmp_path / "cut.jsonl"
    base = ["simulate", "mabula", "--games", "10", "--seed", "9", "--agents", "random,random", "--quiet"]
    run(capsys, *base, "--out", str(full))
    lines = full.read_text().splitlines(keepends=True)
    assert "rulesdsl_rules" in json.loads(lines[0])  # the rules the run played come first, then a line per game
    cut.write_text("".join(lines[:5]) + lines[5][: len(lines[5]) // 2])  # a run killed mid-line
    assert len(read_results(cut)) == 4
    code, out, _ = run(capsys, *base, "--out", str(cut), "--resume")
    assert code == 0 and "Mabula: 10 games" in out
    assert cut.read_text() == full.read_text()


# Played before results named their random stream (mt19937-v0): 4 Mabula games, --seed 3, random,greedy; a log
# of 'play mabula --seats random,greedy --seed 11 --log'.
OLD_RESULTS = ROOT / "tests" / "fixtures" / "mabula-mt19937-v0.jsonl"
OLD_LOG = ROOT / "tests" / "fixtures" / "mabula-mt19937-v0.log.json"


def test_results_and_logs_name_their_random_stream(capsys, tmp_path):
    out, log = tmp_path / "r.jsonl", tmp_path / "game.json"
    run(capsys, "simulate", "mabula", "--games", "2", "--agents", "random,random", "--quiet", "--out", str(out))
    run(capsys, "play", "mabula", "--seats", "random,random", "--seed", "4", "--log", str(log))
    assert [line["rng"] for line in results(out)] == ["splitmix64-v1"] * 2
    assert json.loads(log.read_text())["rng"] == "splitmix64-v1"


def test_results_and_logs_of_the_old_stream_still_replay(capsys):
    assert all("rng" not in line for line in results(OLD_RESULTS))
    code, text, _ = run(capsys, "replay", str(OLD_RESULTS))
    assert code == 0 and "4 of 4 games replayed and verified" in text
    code, text, _ = run(capsys, "replay", str(OLD_LOG))
    assert code == 0 and "25 moves replayed and verified" in text


def test_a_run_of_the_old_stream_resumes_on_that_stream(capsys, tmp_path):
    old = results(OLD_RESULTS)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(json.dumps(line) + "\n" for line in old[:2]))
    code, out, _ = run(capsys, "simulate", "mabula", "--games", "4", "--seed", "3", "--agents", "random,greedy",
                       "--quiet", "--out", str(cut), "--resume")
    assert code == 0 and "Mabula: 4 games" in out
    resumed = results(cut)
    assert [line.get("rng") for line in resumed] == [None, None, "mt19937-v0", "mt19937-v0"]

    def game(line):  # what was played; the new lines also record the stream, the rules' hash and the branching
        return {k: v for k, v in line.items() if k not in ("rng", "rules_sha256", "branching")}
    assert [game(line) for line in resumed] == [game(line) for line in old]  # as the old code played them


@pytest.mark.parametrize("streams, message", [
    (["philox-v9"], "played with the random stream 'philox-v9', which this version of rulesdsl does not have"),
    ([None, "splitmix64-v1"], ":2 holds another run: random stream splitmix64-v1, not mt19937-v0"),
])
def test_resume_refuses_a_stream_it_cannot_continue(capsys, tmp_path, streams, message):
    lines = []
    for line, stream in zip(results(OLD_RESULTS), streams):
        if stream is not None:
            line["rng"] = stream
        lines.append(json.dumps(line) + "\n")
    cut = tmp_path / "r.jsonl"
    cut.write_text("".join(lines))
    code, _, err = run(capsys, "simulate", "mabula", "--games", "4", "--seed", "3", "--agents", "random,greedy",
                       "--quiet", "--out", str(cut), "--resume")
    assert code == 2 and message in err and cut.read_text() == "".join(lines)
    code, text, _ = run(capsys, "replay", str(cut))  # the moves replay whatever drew them
    assert code == 0 and "replayed and verified" in text


def test_resume_needs_an_out_file(capsys):
    code, _, err = run(capsys, "simulate", "mabula", "--games", "2", "--agents", "random,random", "--resume")
    assert code == 2 and "--resume" in err


def test_every_game_of_a_results_file_replays(capsys, tmp_path):
    out = tmp_path / "r.jsonl"
    run(capsys, "simulate", "examples/games/sealed-bids.yaml", "--games", "5", "--agents",
        "random,greedy,random", "--quiet", "--out", str(out))
    # a rule file outside the results' folder is read only when named with --rules
    code, text, _ = run(capsys, "replay", str(out), "--rules", "examples/games/sealed-bids.yaml")
    assert code == 0 and "5 of 5 games replayed and verified" in text


def test_results_lines_hold_what_a_report_needs(capsys, tmp_path):
    out = tmp_path / "r.jsonl"
    run(capsys, "simulate", "mabula", "--games", "3", "--agents", "random,greedy", "--option",
        "setup=WBWBWBWBWBWBWBWBWBWBWBWB", "--quiet", "--out", str(out))
    line = results(out)[0]
    for key in ("index", "seed", "agents", "variant", "options", "winners", "scores", "plies", "turns",
                "rule_counts", "moves", "ended_by"):
        assert key in line
    assert line["agents"] == ["random", "greedy"] and line["options"] == {"setup": "WBWBWBWBWBWBWBWBWBWBWBWB"}
    assert line["rule_counts"]["push"] >= 20


def test_summary_shows_agents_caps_and_intervals(capsys):
    code, out, _ = run(capsys, "simulate", "mabula", "--games", "20", "--agents", "greedy,random", "--quiet")
    assert "agent      greedy" in out and "(of 20 seats played)" in out
    assert "games stopped at the turn cap: 0" in out


def test_report_writes_charts_the_text_report_and_games_csv(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "r.jsonl"
    run(capsys, "simulate", "mark", "--games", "6", "--agents", "random,random", "--variant", "standard",
        "--variant", "four-row-ending", "--quiet", "--out", str(out))
    code, text, _ = run(capsys, "report", str(out), "--out", str(tmp_path / "report"))
    assert code == 0
    names = {p.name for p in (tmp_path / "report").iterdir()}
    assert names == {"game-length.png", "win-rate.png", "scores.png", "variants.png", "report.txt", "games.csv"}
    for variant in ("standard", "four-row-ending"):
        assert f"rule coverage over 6 games of MARK [{variant}]" in text
    assert "never used" in text and "four-row-ending against standard (paired by seed" in text
    assert (tmp_path / "report" / "report.txt").read_text(encoding="utf-8") == text[:text.index("wrote ")]
    for png in ("game-length.png", "win-rate.png"):
        assert (tmp_path / "report" / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_rule_coverage_lists_rules_never_used(tmp_path):
    from rulesdsl.sim.report import analyse, coverage_text

    path = tmp_path / "dead.yaml"
    path.write_text(open(game_path("mabula")).read().replace(
        "moves:\n  push:", "moves:\n  never:\n    params: {c: cells}\n    when: \"false\"\n  push:", 1))
    from rulesdsl import simulate

    summary_out = tmp_path / "r.jsonl"
    with open(summary_out, "w") as out:
        simulate(path, 2, ["random", "random"], out=out)
    [variant] = analyse(str(summary_out)).variants
    never = path.read_text().splitlines().index("  never:") + 2  # its definition, where validate --play puts it
    assert coverage_text(variant).splitlines()[-1] == f"  {path}:{never}:5: move 'never' was never made"


def test_a_game_that_ends_on_its_last_allowed_turn_is_not_capped():
    from rulesdsl.sim.runner import random_playout

    free = random_playout(rulesdsl.load_game(game_path("mabula")), 3)
    # the game ends during turn number free.turn (the turn it ends in does not pass): free.turn + 1 turns
    at_cap = random_playout(rulesdsl.load_game(game_path("mabula"), max_turns=free.turn + 1), 3)
    short = random_playout(rulesdsl.load_game(game_path("mabula"), max_turns=free.turn), 3)
    assert (at_cap.winners, at_cap.capped) == (free.winners, False) and free.winners
    assert (short.winners, short.capped) == ([], True)
