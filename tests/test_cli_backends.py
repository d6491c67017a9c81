"""--backend on the commands that play games: the same output on both backends, which backend was chosen and why
(--verbose, validate; a fallback located), the compiled module printed by compile --show --backend compiled."""

from __future__ import annotations

import ast
import json
import re

import pytest

pytest.importorskip("numba")

from .helpers import ROOT, run_cli as run  # noqa: E402

TUTORIAL = str(ROOT / "examples/tutorial/three-in-a-row.yaml")
PYTHON_ONLY = str(ROOT / "tests/compiled_games/python-only.yaml")  # outside the compiled subset for good


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
    code, out, err = run(capfd, "moves", PYTHON_ONLY, "--backend", "auto")
    assert code == 0 and out
    assert re.search(r"backend: python: the compiled backend does not take it yet: \S*python-only\.yaml:\d+:\d+: \S", err)
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
    for backend in ("compiled", "auto"):
        code, out, err = run(capfd, "replay", str(tmp_path / "python.json"), "--rules", TUTORIAL, "--backend", backend)
        assert code == 0 and "replayed and verified" in out and "backend: compiled" in err


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
