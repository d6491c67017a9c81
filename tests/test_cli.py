"""The rulesdsl command end to end: each subcommand's output, exit codes and error reporting."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
import yaml

from rulesdsl.cli import main

from .helpers import ROOT, game_lines, game_path, run_cli as run

ALT = "WBWBWBWBWBWBWBWBWBWBWBWB"


def test_validate_summarises_the_game_and_its_variants(capsys):
    code, out, _ = run(capsys, "validate", game_path("mabula"))
    assert code == 0
    assert "Mabula: 2 players (white, black)" in out and "variants: product" in out
    assert "variant product: ok" in out and "option setup=" in out


def test_validate_counts_one_of_a_kind_in_the_singular(capsys):
    code, out, _ = run(capsys, "validate", str(ROOT / "examples" / "tutorial" / "three-in-a-row.yaml"))
    assert code == 0 and "2 players (cross, nought), 9 cells, 1 move, 1 step, no chance," in out  # was "1 moves"


def test_bundled_game_names_work_as_files(capsys):
    code, out, _ = run(capsys, "validate", "mabula")
    assert code == 0 and "ok" in out


def test_games_lists_bundled_games(capsys):
    code, out, _ = run(capsys, "games")
    names = [line.split()[0] for line in out.splitlines()]
    assert code == 0 and {"mabula", "mark", "fast-track", "marble-chase"} <= set(names)


def test_moves_from_a_setup(capsys):
    code, out, _ = run(capsys, "moves", "mabula", "--setup", ALT)
    lines = out.split()
    assert code == 0 and len(lines) == 72 and lines[0] == "b1-b2"


def test_moves_from_a_saved_state(capsys, tmp_path):
    import rulesdsl

    state = rulesdsl.load_game(game_path("mabula")).new_initial_state()
    state.apply(ALT)
    state.apply("b1-b4")
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state.to_json()))
    code, out, _ = run(capsys, "moves", "mabula", "--state", str(path), "--json")
    data = json.loads(out)
    assert code == 0 and data["player"] == "black" and "c1-c2" in data["moves"]


def test_perft(capsys):
    code, out, _ = run(capsys, "perft", "mabula", "--setup", ALT, "--depth", "2", "--all")
    assert code == 0 and "depth 1: 72 " in out and "depth 2: 5,040 " in out


def test_simulate_reports_and_writes_results(capsys, tmp_path):
    results = tmp_path / "results.jsonl"
    code, out, _ = run(capsys, "simulate", "mabula", "--games", "30", "--seed", "7", "--agents", "random,random",
                       "--out", str(results))
    assert code == 0
    assert "Mabula: 30 games" in out and "95% CI" in out and "games/s" in out and "draws" in out
    lines = game_lines(results)
    assert len(lines) == 30 and lines[0]["index"] == 0 and lines[0]["moves"][0].count("W") == 12
    code, out, _ = run(capsys, "replay", str(results))
    assert code == 0 and "30 of 30 games replayed and verified" in out


def test_simulate_compares_variants(capsys):
    code, out, _ = run(capsys, "simulate", "mabula", "--games", "10", "--agents", "random,random",
                       "--variant", "product")
    assert code == 0 and "Mabula [product]: 10 games" in out


def test_simulate_is_reproducible(capsys, tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (a, b):
        run(capsys, "simulate", "mabula", "--games", "5", "--seed", "3", "--agents", "random,random",
            "--out", str(path))
    assert a.read_text() == b.read_text()


def test_play_against_an_agent_with_a_log(capsys, monkeypatch, tmp_path):
    # white types moves (one illegal, one malformed first); black is the 'first' agent
    moves = ["c1-c2", "nonsense", "b1-b2"]
    log = tmp_path / "game.json"
    script = "\n".join(moves) + "\n" + "\n".join(["?"] + ["quit"]) + "\n"
    monkeypatch.setattr("sys.stdin", io.StringIO(script))
    code, out, _ = run(capsys, "play", "mabula", "--seats", "human,first", "--setup", ALT, "--log", str(log))
    assert code == 130  # stopped with 'quit'
    assert "illegal move: only your own marbles" in out
    assert "malformed move" in out
    assert "black plays c1-c2" in out


def test_play_to_the_end_and_replay_the_log(capsys, tmp_path):
    log = tmp_path / "game.json"
    code, out, _ = run(capsys, "play", "mabula", "--seats", "random,random", "--seed", "5", "--log", str(log))
    assert code == 0 and ("winner:" in out or "draw" in out)
    data = json.loads(log.read_text())
    assert data["moves"] and data["result"]["plies"] == len(data["moves"])
    code, out, _ = run(capsys, "replay", str(log))
    assert code == 0 and "replayed and verified" in out


def test_a_game_played_from_a_given_setup_replays(capsys, tmp_path):
    log = tmp_path / "setup.log"
    code, _, _ = run(capsys, "play", game_path("mabula"), "--setup", ALT, "--seats", "random,random", "--log", str(log))
    assert code == 0
    code, out, _ = run(capsys, "replay", str(log))
    assert code == 0 and "replayed and verified" in out


def test_replay_detects_a_tampered_log(capsys, tmp_path):
    log = tmp_path / "game.json"
    run(capsys, "play", "mabula", "--seats", "random,random", "--seed", "5", "--log", str(log))
    data = json.loads(log.read_text())
    data["result"]["winners"] = [1 - w for w in data["result"]["winners"]] or [0]
    log.write_text(json.dumps(data))
    code, out, _ = run(capsys, "replay", str(log))
    assert code == 1 and "winners differ" in out


@pytest.mark.parametrize("argv, message", [
    (["moves", "mabula", "--option", "colour=red"], "unknown option 'colour'"),
    (["moves", "mabula", "--option", "setup"], "--option expects NAME=VALUE"),
    (["moves", "mabula", "--variant", "prodcut"], "did you mean 'product'?"),
    (["moves", "mabula", "--setup", "WWW"], "an arrangement holds exactly"),
    (["moves", "no/such/file.yaml"], "no such file"),
    (["play", "mabula", "--seats", "human"], "names 1 seats"),
])
def test_user_mistakes_get_one_clear_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and message in err  # usage errors: arguments the game refuses, a file that is not there


def test_unknown_agent(capsys):
    code, _, err = run(capsys, "simulate", "mabula", "--agents", "random,randon", "--games", "1")
    assert code == 2 and "unknown agent 'randon'" in err and "did you mean 'random'" in err


def test_a_malformed_variant_is_located_when_it_is_chosen(capsys, tmp_path):
    path = tmp_path / "v.yaml"
    path.write_text(open(game_path("mabula"), encoding="utf-8").read().replace(
        "variants:\n  product:", "variants:\n  plain: 3\n  product:"), encoding="utf-8")
    code, _, err = run(capsys, "simulate", str(path), "--variant", "plain", "--games", "1", "--agents", "random,random")
    assert code == 1 and f"{path}:" in err and "variant 'plain' should be a mapping" in err and "hint:" in err


def test_a_saved_state_reads_back_and_a_damaged_one_is_refused(capsys, tmp_path):
    saved = tmp_path / "state.json"
    code, out, _ = run(capsys, "show", game_path("mabula"), "--setup", ALT, "--json")
    saved.write_text(out, encoding="utf-8")
    code, out, _ = run(capsys, "moves", game_path("mabula"), "--state", str(saved))
    assert code == 0 and "b1-b2" in out.split()
    data = json.loads(saved.read_text())
    data["player"] = None
    saved.write_text(json.dumps(data), encoding="utf-8")
    code, _, err = run(capsys, "moves", game_path("mabula"), "--state", str(saved))
    assert code == 1 and "'player' should be a seat from 0 to 1" in err


def test_bad_counts_are_refused_and_a_results_file_survives_a_refused_run(capsys, tmp_path):
    with pytest.raises(SystemExit):
        main(["perft", "mabula", "--depth", "-1"])
    assert "too small" in capsys.readouterr().err
    kept = tmp_path / "kept.jsonl"
    kept.write_text("earlier results\n", encoding="utf-8")
    code, _, err = run(capsys, "simulate", "mabula", "--games", "2", "--agents", "random", "--out", str(kept))
    assert code == 2 and "--agents names 1 agents" in err and kept.read_text() == "earlier results\n"


HEAPS = """
game: Heaps
options:
  heaps:
    type: list
    items: int
    min: 1
    default: [1, 2]
    help: the heap sizes, separated by commas
vars:
  sizes: {init: "list(option.heaps)"}
moves:
  take:
    params: {h: "0..size(sizes) - 1", n: "1..sizes[h]"}
    do: ["sizes[h] -= n"]
flow:
  steps:
    play: {moves: [take]}
end:
  - when: "sum(sizes) == 0"
    winners: "[next_seat(player, -1)]"
"""


def test_a_list_option_on_the_command_line(capsys, tmp_path):
    path = tmp_path / "heaps.yaml"
    path.write_text(HEAPS)
    code, out, _ = run(capsys, "validate", str(path))
    assert code == 0 and "option heaps=1,2: the heap sizes" in out  # the default, as --option takes it
    code, out, _ = run(capsys, "moves", str(path), "--option", "heaps=2,1")
    assert code == 0 and out.splitlines() == ["take 0 1", "take 0 2", "take 1 1"]
    code, _, err = run(capsys, "moves", str(path), "--option", "heaps=2,two")
    assert code == 2 and "item 2 of option heaps must be a whole number, got 'two'" in err
    assert "invalid literal" not in err


def test_schema_prints_the_path_of_the_installed_schema(capsys):
    code, out, _ = run(capsys, "schema")
    path = Path(out.strip())
    assert code == 0 and path.is_absolute() and path.name == "rules.schema.json"
    assert json.loads(path.read_text(encoding="utf-8"))["title"] == "rulesdsl rule file"


def test_schema_write_copies_it_into_a_new_folder_and_again_over_the_same_copy(capsys, tmp_path):
    folder = tmp_path / "editor" / "schemas"
    for _ in range(2):  # the second time the file is there, identical: nothing to refuse
        code, out, _ = run(capsys, "schema", "--write", str(folder))
        assert code == 0 and out.strip() == str((folder / "rules.schema.json").resolve())
    assert (folder / "rules.schema.json").read_bytes() == (ROOT / "schemas" / "rules.schema.json").read_bytes()


def test_schema_write_replaces_a_different_file_only_with_force(capsys, tmp_path):
    old = tmp_path / "rules.schema.json"
    old.write_text("{}", encoding="utf-8")
    code, _, err = run(capsys, "schema", "--write", str(tmp_path))
    assert code == 2 and err.startswith(f"error: --write: {old} already exists with other content\n")
    assert "add --force" in err and old.read_text() == "{}"
    code, _, _ = run(capsys, "schema", "--write", str(tmp_path), "--force")
    assert code == 0 and old.read_bytes() == (ROOT / "schemas" / "rules.schema.json").read_bytes()


@pytest.mark.parametrize("argv, message", [
    (["schema", "--force"], "error: --force replaces a schema written by --write"),
    (["schema", "--write", "README.md"], "error: --write 'README.md' is a file, not a folder"),
])
def test_schema_usage_errors(capsys, argv, message, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and err.startswith(message)


def test_validate_shows_the_option_values_it_checked_as_option_takes_them(capsys):
    code, out, _ = run(capsys, "validate", "marble-chase", "--option", "players=4", "--option", "teams=true")
    assert code == 0
    assert "option players=4 (default 2):" in out and "option teams=true (default false):" in out
    assert "option match=false:" in out  # not given: its default, written as --option takes it


def test_validate_checks_several_files_at_once(capsys, tmp_path):
    # the pre-commit hook passes every changed rule file to one 'rulesdsl validate'
    broken = tmp_path / "broken.yaml"
    broken.write_text("game: x\n", encoding="utf-8")
    code, out, err = run(capsys, "validate", str(ROOT / "examples" / "overlays" / "mark-rich-start.yaml"),
                         str(broken), str(ROOT / "examples" / "tutorial" / "sixes.yaml"))
    assert code == 1 and "mark-rich-start.yaml: ok - MARK (rich start, steep market)" in out
    assert "sixes.yaml: ok - Sixes" in out and f"{broken}:1:1: error: the file is missing 'flow'" in err


def test_the_pre_commit_hook_runs_validate_on_the_rule_files_given(capsys):
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "rulesdsl-validate" and hook["language"] == "python" and hook["pass_filenames"] is True
    files = re.compile(hook["files"])
    assert files.search("rules/game.yaml") and files.search("game.yml") and not files.search("game.yaml.bak")
    command, *args = hook["entry"].split()
    assert f'{command} = "rulesdsl.cli:main"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    code, out, _ = run(capsys, *args, str(ROOT / "examples" / "tutorial" / "sixes.yaml"),
                       str(ROOT / "examples" / "overlays" / "mabula-no-tiebreak.yaml"))
    assert code == 0 and out.count(".yaml: ok - ") == 2
