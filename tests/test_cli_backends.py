"""--backend on the commands that play games: the same output on both backends, which backend was chosen and why
(--verbose, validate; a fallback located), the compiled module printed by compile --show --backend compiled."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import subprocess
import sys

import pytest

pytest.importorskip("numba")

from .helpers import ROOT, run_cli as run  # noqa: E402

TUTORIAL = str(ROOT / "examples/tutorial/three-in-a-row.yaml")
CHIPS = str(ROOT / "tests/compiled_games/chip-duel.yaml")
PYTHON_ONLY = str(ROOT / "tests/compiled_games/python-only.yaml")  # outside the compiled subset for good
BIDS = str(ROOT / "tests/compiled_games/blind-bids.yaml")  # simultaneous steps: choices logged with their seat


def _both(capfd, *argv) -> tuple:
    """(exit code, stdout, stderr) of the command on the Python backend, then on the compiled one (--verbose)."""
    python = run(capfd, *argv)
    compiled = run(capfd, *argv, "--backend", "compiled", "--verbose")
    return python, compiled


@pytest.mark.parametrize("command", [["show"], ["moves"], ["show", "--json"]])
def test_positions_read_the_same_on_both_backends_and_verbose_says_which(capfd, command):
    python, compiled = _both(capfd, *command, TUTORIAL, "--seed", "3")
    assert python[0] == compiled[0] == 0 and python[1] == compiled[1]
    assert "backend:" not in python[2]
    assert re.search(r"backend: compiled \(loaded in [\d.]+ s\)", compiled[2])


def test_auto_falls_back_saying_where_and_why(capfd):
    code, out, err = run(capfd, "simulate", PYTHON_ONLY, "--games", "1", "--agents", "random,random", "--backend",
                         "auto")
    assert code == 0 and "1 games" in out
    assert re.search(r"backend: python: the compiled backend does not take it yet: \S*python-only\.yaml:\d+:\d+: \S",
                     err)
    code, _, err = run(capfd, "moves", PYTHON_ONLY, "--backend", "compiled")
    assert code == 1 and re.search(r"python-only\.yaml:\d+:\d+: error: the compiled backend does not take", err)


def test_play_and_replay_give_the_same_game_on_both_backends(capfd, tmp_path):
    logs = []
    for backend in ("python", "compiled"):
        log = tmp_path / f"{backend}.json"
        code, out, _ = run(capfd, "play", TUTORIAL, "--seats", "random,random", "--seed", "5", "--backend", backend,
                           "--log", str(log))
        assert code == 0 and ("winner" in out or "draw" in out)
        logs.append(json.loads(log.read_text()))
    assert logs[0]["moves"] == logs[1]["moves"] and logs[0]["final_state"] == logs[1]["final_state"]
    for backend, chosen in (("compiled", "compiled"), ("auto", "python")):  # auto: move by move on the interpreter
        code, out, err = run(capfd, "replay", str(tmp_path / "python.json"), "--rules", TUTORIAL, "--backend", backend)
        assert code == 0 and "replayed and verified" in out and f"backend: {chosen}" in err


def test_replay_of_a_results_file_on_the_compiled_backend(capfd, tmp_path):
    out = tmp_path / "results.jsonl"
    assert run(capfd, "simulate", TUTORIAL, "--games", "20", "--agents", "random,random", "--out", str(out),
               "--quiet")[0] == 0
    code, printed, err = run(capfd, "replay", str(out), "--rules", TUTORIAL, "--backend", "compiled", "--quiet")
    assert code == 0 and "20 of 20 games replayed and verified" in printed and "backend: compiled" in err


def test_validate_says_which_backend_and_plays_on_it(capfd):
    code, out, _ = run(capfd, "validate", TUTORIAL, "--play", "3", "--backend", "compiled")
    assert code == 0
    assert "backend: compiled (the compiled backend takes every rule)" in out
    assert "played 3 random games on the compiled backend: 0 failed" in out
    code, out, _ = run(capfd, "validate", PYTHON_ONLY, "--backend", "auto")
    assert code == 0 and re.search(r"backend: python \(auto: the compiled backend does not take it yet: "
                                   r"\S*python-only\.yaml:\d+:\d+: ", out)
    code, _, err = run(capfd, "validate", PYTHON_ONLY, "--backend", "compiled")
    assert code == 1 and re.search(r"python-only\.yaml:\d+:\d+: error: the compiled backend does not take", err)


def test_compile_shows_the_compiled_module_as_plain_python(capfd):
    code, out, _ = run(capfd, "compile", TUTORIAL, "--show", "--backend", "compiled")
    assert code == 0
    tree = ast.parse(out)  # plain Python, read as such
    names = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert {"legal", "apply", "playout", "returns"} <= names
    code, listed, _ = run(capfd, "compile", TUTORIAL, "--backend", "compiled")
    assert code == 0 and re.match(r"\d+ functions, \d+ lines", listed) and {"legal", "apply"} <= set(listed.split())
    code, _, err = run(capfd, "compile", PYTHON_ONLY, "--show", "--backend", "compiled")
    assert code == 1 and re.search(r"python-only\.yaml:\d+:\d+: error: the compiled backend does not take", err)
    code, _, err = run(capfd, "compile", TUTORIAL, "--show")
    assert code == 2 and "--show needs a RULE" in err


def test_compile_check_with_the_compiled_backend_says_ok_or_every_reason_located(capfd):
    code, out, _ = run(capfd, "compile", TUTORIAL, "--check", "--backend", "compiled")
    assert code == 0 and out.strip() == "three-in-a-row.yaml: OK: the compiled backend takes it"
    code, out, _ = run(capfd, "compile", PYTHON_ONLY, "--check", "--backend", "compiled")
    located = re.findall(r"^\S*python-only\.yaml:\d+:\d+: error: \S.*$", out, re.M)
    assert code == 1 and located and "python-only.yaml: the compiled backend does not take it" in out
    code, out, _ = run(capfd, "compile", PYTHON_ONLY, "--check", "--backend", "compiled", "--format", "json")
    report = json.loads(out)
    assert code == 1 and not report["compiled"] and len(report["reasons"]) == len(located)
    assert all(r["line"] > 0 and r["column"] > 0 for r in report["reasons"])
    code, _, err = run(capfd, "compile", TUTORIAL, "--check", "--show", PYTHON_ONLY, "--backend", "compiled")
    assert code == 2 and "--check --backend compiled" in err


def test_auto_is_the_default_and_takes_the_compiled_backend_for_whole_games(capfd, monkeypatch):
    from rulesdsl import load_game
    from rulesdsl.backends.compiled.state import CompiledGame
    monkeypatch.delenv("RULESDSL_BACKEND")
    assert not isinstance(load_game(TUTORIAL), CompiledGame)  # the State API goes move by move: the interpreter
    assert isinstance(load_game(TUTORIAL, backend="auto"), CompiledGame)
    fallback = load_game(PYTHON_ONLY, backend="auto")
    assert not isinstance(fallback, CompiledGame) and re.search(r"python-only\.yaml:\d+:\d+: ", fallback.backend_note)
    code, _, err = run(capfd, "moves", TUTORIAL, "--verbose")  # move by move: the interpreter, compiling nothing
    assert code == 0 and "backend: python (auto: played move by move" in err
    simulate = ["simulate", "--games", "2", "--agents", "random,random", "--quiet"]
    code, _, err = run(capfd, *simulate[:1], TUTORIAL, *simulate[1:], "--verbose")  # whole games: compiled
    assert code == 0 and "backend: compiled" in err
    code, _, err = run(capfd, *simulate[:1], PYTHON_ONLY, *simulate[1:])  # the default falls back quietly
    assert code == 0 and "backend:" not in err
    code, _, err = run(capfd, *simulate[:1], PYTHON_ONLY, *simulate[1:], "--verbose")  # --verbose says where and why
    assert re.search(r"backend: python: the compiled backend does not take it yet: \S*python-only\.yaml:\d+:\d+: ", err)
    code, _, err = run(capfd, "simulate", TUTORIAL, "--games", "2", "--agents", "greedy,random", "--quiet", "--verbose")
    assert code == 0 and "backend: python (auto: agents other than random" in err
    code, out, _ = run(capfd, "validate", PYTHON_ONLY)
    assert code == 0 and re.search(r"backend: python \(auto: .*python-only\.yaml:\d+:\d+: ", out)
    monkeypatch.setenv("RULESDSL_BACKEND", "python")
    assert not isinstance(load_game(TUTORIAL), CompiledGame)
    monkeypatch.setenv("RULESDSL_BACKEND", "fast")
    code, _, err = run(capfd, "moves", TUTORIAL)
    assert code == 1 and "RULESDSL_BACKEND='fast' names no backend" in err


def test_the_readmes_first_command_runs_on_a_fresh_checkout_and_a_game_compiles_once(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "RULESDSL_BACKEND"}
    env["RULESDSL_CACHE"] = str(tmp_path / "cache")  # empty, as on a fresh checkout
    env["PYTHONPATH"] = str(ROOT)
    command = [sys.executable, "-m", "rulesdsl", "simulate", "mabula", "--seed", "1", "--agents", "random,random",
               "--quiet", "--verbose"]
    first = subprocess.run(command + ["--games", "1000"], env=env, capture_output=True, text=True, cwd=tmp_path,
                           timeout=600)  # the README's: too short a run for auto to compile the game first
    assert first.returncode == 0 and "compiling" not in first.stderr
    assert "backend: python: auto compiles a game for runs of 2,000 games or more" in first.stderr
    runs = [subprocess.run(command + ["--games", "30", "--backend", backend, "--out", str(tmp_path / f"{i}.jsonl")],
                           env=env, capture_output=True, text=True, cwd=tmp_path, timeout=600)
            for i, backend in enumerate(["compiled", "compiled", "auto"])]
    assert [r.returncode for r in runs] == [0, 0, 0]
    assert runs[0].stderr.count("compiling mabula for the compiled backend (once; cached)") == 1
    assert all("compiling" not in r.stderr for r in runs[1:])  # read from the cache
    assert all("backend: compiled" in r.stderr for r in runs)  # auto too, however short the run, once compiled
    assert len({(tmp_path / f"{i}.jsonl").read_bytes() for i in range(3)}) == 1


def test_auto_compiles_a_game_not_compiled_yet_only_for_long_runs():
    from rulesdsl.backends.compiled.build import AUTO_COMPILE_GAMES, IF_COMPILED, chosen_backend
    assert chosen_backend("auto", True, AUTO_COMPILE_GAMES) == "auto"
    assert chosen_backend("auto", True, AUTO_COMPILE_GAMES - 1) == IF_COMPILED
    assert chosen_backend("auto", False, 10**6) == "python"  # move by move
    assert chosen_backend("compiled", True, 1) == "compiled" and chosen_backend("python", True, 10**6) == "python"


# every game on each backend and in worker processes; auto and a Dask cluster (which start their workers alike
# whatever the game) with two of them
@pytest.mark.parametrize("game, agents, games, every_pool", [
    (TUTORIAL, "random,random", 40, False), ("mabula", "random,random", 40, True),
    (CHIPS, "random,random", 40, False), (BIDS, "random,random,random", 40, False),
    ("marble-chase", "random,random", 16, True),  # fractional weights
    ("fast-track", "random,random", 12, False)])  # compound moves, routes
def test_results_files_are_the_same_bytes_on_every_backend_worker_count_and_dask(capfd, tmp_path, game, agents, games,
                                                                                 every_pool):
    base = ["simulate", game, "--games", str(games), "--seed", "3", "--agents", agents, "--quiet"]
    runs = {"python": ["--backend", "python"], "compiled": ["--backend", "compiled"],
            "compiled, 2 workers": ["--backend", "compiled", "--workers", "2", "--chunk", "7"]}
    if every_pool:
        runs["auto, 2 workers"] = ["--backend", "auto", "--workers", "2"]
    if every_pool and importlib.util.find_spec("distributed") is not None:
        runs["compiled, dask"] = ["--backend", "compiled", "--dask", "local", "--workers", "2", "--chunk", "5"]
    files = {}
    for name, extra in runs.items():
        files[name] = tmp_path / f"{len(files)}.jsonl"
        code, out, _ = run(capfd, *base, *extra, "--out", str(files[name]))
        assert code == 0 and f"{games} games" in out, name
    expected = files["python"].read_bytes()
    assert expected.count(b"\n") == games + 1  # the rules, then a line per game
    for name, path in files.items():
        assert path.read_bytes() == expected, name


def test_fractional_scores_and_returns_write_the_same_results_bytes_on_both_backends(capfd, tmp_path):
    # floats are printed as Python prints them: the compiled backend gives the very same floats (and int stays int)
    files = []
    for backend in ("python", "compiled"):
        files.append(tmp_path / f"{backend}.jsonl")
        code, out, _ = run(capfd, "simulate", CHIPS, "--variant", "share", "--games", "30", "--seed", "5", "--agents",
                           "random,random", "--quiet", "--score-trace", "--backend", backend, "--out", str(files[-1]))
        assert code == 0 and "30 games" in out
    lines = [json.loads(row) for row in files[0].read_text().splitlines()[1:]]
    assert any(isinstance(v, float) and v != int(v) for line in lines for v in line["returns"] + line["scores"])
    assert files[1].read_bytes() == files[0].read_bytes()
