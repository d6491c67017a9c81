"""Logs, states and results are untrusted input; exit codes say whose mistake it is; runs end and stop cleanly; what
Python cannot stop from inside (a crash, a step of C code, memory) is stopped by the jail, located."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rulesdsl.budget import TIME_SCALE_VARIABLE
from rulesdsl.bundle import RuleBundle
from rulesdsl.cli import main
from rulesdsl.limits import DEFAULT_MAX_TURNS, MAX_TURNS_CAP

from .helpers import ROOT, game_lines, game_path, run_cli as run

ALT = "WBWBWBWBWBWBWBWBWBWBWBWB"
HUGE = "9" * 5000
MARKER = "MARKER-SECRET-7f3a"
FOREVER = """\
game: Forever
players: {count: 2}
board: {grid: {columns: a, rows: 1}}
moves:
  wait: {notation: wait, do: []}
flow:
  steps:
    play: {moves: [wait], next: end_turn}
end:
  - when: "false"
    winners: "[]"
"""


# -- helpers -----------------------------------------------------------------------------------------------
def simulated(capsys, folder: Path, game: str = "mabula", games: int = 3, name: str = "r.jsonl") -> Path:
    """A results file of a small run, written into `folder`."""
    out = folder / name
    code, _, _ = run(capsys, "simulate", game, "--games", str(games), "--seed", "1", "--agents", "random,random",
                     "--quiet", "--out", str(out))
    assert code == 0
    return out


def lines_of(path: Path) -> list[dict]:
    return game_lines(path)


def write_lines(path: Path, rows) -> Path:
    """A results file of the given rows (dicts, or raw text for a row that is not JSON)."""
    path.write_text("".join((row if isinstance(row, str) else json.dumps(row)) + "\n" for row in rows))
    return path


def marker_rules(folder: Path) -> Path:
    """A valid rule file outside the data's folder, whose game name would show if it were ever read."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "marker.yaml"
    path.write_text(Path(game_path("mabula")).read_text().replace("game: Mabula", f"game: {MARKER}", 1))
    assert MARKER in path.read_text()
    return path


def one_line_error(err: str, where: str) -> None:
    """The error is one line starting FILE:LINE (and perhaps a hint line), never a traceback."""
    first, *rest = err.strip().splitlines()
    assert first.startswith(where + ":") and "error:" in first, err
    assert all(line.startswith("  hint:") for line in rest), err
    assert "Traceback" not in err


# -- which rule file a log or results file may name --------------------------------------------------------
@pytest.mark.parametrize("command", ["replay", "report"])
@pytest.mark.parametrize("how", ["absolute", "relative", "link"])
def test_a_rule_file_outside_the_results_folder_is_never_read(capsys, tmp_path, command, how):
    marker = marker_rules(tmp_path / "outside")
    data = tmp_path / "data"
    data.mkdir()
    line = lines_of(simulated(capsys, tmp_path))[0]
    if how == "absolute":
        line["file"] = str(marker)
    elif how == "relative":
        line["file"] = "../outside/marker.yaml"
    else:  # a link in the folder that leads out of it
        (data / "link.yaml").symlink_to(marker)
        line["file"] = "link.yaml"
    results = write_lines(data / "r.jsonl", [line])
    code, out, err = run(capsys, command, str(results))
    assert code == 1 and MARKER not in out + err
    one_line_error(err, f"{results}:1")
    assert "--rules FILE" in err


def test_a_log_naming_a_system_file_is_refused_and_rules_can_be_given(capsys, tmp_path):
    log = tmp_path / "game.json"
    assert run(capsys, "play", "mabula", "--seats", "random,random", "--seed", "5", "--log", str(log))[0] == 0
    data = json.loads(log.read_text())
    assert data["file"] == "mabula"  # bundled games are recorded by name
    data["file"] = "/etc/passwd"
    log.write_text(json.dumps(data, indent=1))
    code, out, _ = run(capsys, "replay", str(log))  # the rules it carries are played; the file named is not read
    assert code == 0 and "replayed and verified" in out
    del data["rules"]  # a log without its rules: the file it names is read only if it may be
    log.write_text(json.dumps(data, indent=1))
    code, out, err = run(capsys, "replay", str(log))
    assert code == 1 and "root:" not in out + err and "--rules" in err
    code, out, _ = run(capsys, "replay", str(log), "--rules", "mabula")
    assert code == 0 and "replayed and verified" in out


def test_results_of_a_bundled_game_replay_from_any_folder(capsys, tmp_path, monkeypatch):
    results = simulated(capsys, tmp_path)
    assert {line["file"] for line in lines_of(results)} == {"mabula"}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, out, _ = run(capsys, "replay", str(results))
    assert code == 0 and "3 of 3 games replayed and verified" in out
    assert run(capsys, "report", str(results))[0] == 0


def test_an_old_results_file_naming_the_bundled_folder_still_replays(capsys, tmp_path):
    results = simulated(capsys, tmp_path)
    old = [dict(line, file=str(Path(game_path("mabula")).resolve())) for line in lines_of(results)]
    code, out, _ = run(capsys, "replay", str(write_lines(tmp_path / "old.jsonl", old)))
    assert code == 0 and "3 of 3 games replayed and verified" in out


def test_a_rule_file_beside_the_results_is_used(capsys, tmp_path, monkeypatch):
    own = tmp_path / "mine.yaml"
    shutil.copy(game_path("mabula"), own)
    out = tmp_path / "r.jsonl"
    assert run(capsys, "simulate", str(own), "--games", "2", "--agents", "random,random", "--quiet",
               "--out", str(out))[0] == 0
    monkeypatch.chdir(Path(game_path("mabula")).parent)
    code, text, _ = run(capsys, "replay", str(out))
    assert code == 0 and "2 of 2 games replayed and verified" in text


# -- results and logs carry the rules they were played with ----------------------------------------------------
def _own_rules(folder: Path) -> Path:
    """A user's copy of Mabula, under another name, in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    own = folder / "mine.yaml"
    own.write_text(Path(game_path("mabula")).read_text().replace("game: Mabula", "game: Mine", 1))
    return own


def test_results_moved_away_from_deleted_rules_still_replay_and_report(capsys, tmp_path, monkeypatch):
    own = _own_rules(tmp_path / "work")
    out = tmp_path / "work" / "r.jsonl"
    assert run(capsys, "simulate", str(own), "--games", "3", "--seed", "2", "--agents", "random,random", "--quiet",
               "--out", str(out))[0] == 0
    first = json.loads(out.read_text().splitlines()[0])
    assert first["rulesdsl_rules"] == 1 and [Path(f["name"]).name for f in first["files"]] == ["mine.yaml"]
    moved = tmp_path / "elsewhere" / "r.jsonl"
    moved.parent.mkdir()
    shutil.move(out, moved)
    own.unlink()  # nothing but the results file is left
    monkeypatch.chdir(tmp_path)
    code, text, _ = run(capsys, "replay", str(moved))
    assert code == 0 and "3 of 3 games replayed and verified" in text
    code, text, _ = run(capsys, "report", str(moved))
    assert code == 0 and "Mine: 3 games" in text


def test_a_log_replays_after_its_rule_file_is_deleted(capsys, tmp_path):
    own = _own_rules(tmp_path / "work")
    log = tmp_path / "game.json"
    assert run(capsys, "play", str(own), "--seats", "random,random", "--seed", "3", "--log", str(log))[0] == 0
    own.unlink()
    code, text, _ = run(capsys, "replay", str(log))
    assert code == 0 and "replayed and verified" in text


def test_a_resumed_run_keeps_one_rules_line(capsys, tmp_path):
    own = _own_rules(tmp_path)
    out = tmp_path / "r.jsonl"
    base = ["simulate", str(own), "--seed", "4", "--agents", "random,random", "--quiet", "--out", str(out)]
    assert run(capsys, *base, "--games", "2")[0] == 0
    assert run(capsys, *base, "--games", "4", "--resume")[0] == 0
    rows = [json.loads(row) for row in out.read_text().splitlines()]
    assert ["rulesdsl_rules" in row for row in rows] == [True, False, False, False, False]
    assert [row["index"] for row in rows[1:]] == [0, 1, 2, 3]


@pytest.mark.parametrize("damage, message", [
    (lambda rules: rules["files"][0].update(text=rules["files"][0]["text"] + "# edited\n"),
     "do not match its content hash"),
    (lambda rules: rules.update(files="mine.yaml"), "should be an object with 'files'"),
    (lambda rules: rules.update(rulesdsl_rules=99), "a rules line of format 99"),
])
@pytest.mark.parametrize("command", ["replay", "report"])
def test_a_damaged_rules_line_is_one_located_error(capsys, tmp_path, damage, message, command):
    own = _own_rules(tmp_path)
    out = tmp_path / "r.jsonl"
    assert run(capsys, "simulate", str(own), "--games", "2", "--agents", "random,random", "--quiet",
               "--out", str(out))[0] == 0
    rows = [json.loads(row) for row in out.read_text().splitlines()]
    damage(rows[0])
    write_lines(out, rows)
    code, _, err = run(capsys, command, str(out))
    assert code == 1 and message in err
    one_line_error(err, f"{out}:1")


# -- malformed results, logs and states: one line, located, exit 1 ------------------------------------------
def _damaged_line(line: dict, how: str):
    """A results line damaged in one way; (row, column where the error is reported or None)."""
    if how == "list":
        return [1, 2, 3], None
    if how == "options-list":
        return dict(line, options=["a"]), None
    if how == "moves-not-strings":
        return dict(line, moves=[1, {"a": 2}]), None
    if how == "seed-string":
        return dict(line, seed="abc"), None
    if how == "missing-moves":
        return {k: v for k, v in line.items() if k != "moves"}, None
    if how == "winner-out-of-range":
        return dict(line, winners=[7]), None
    if how == "deep":
        return "[" * 100_000, 101
    if how == "huge-int":
        return json.dumps(line).replace('"seed": ', f'"seed": {HUGE}, "was": ', 1), True
    if how == "syntax":
        return '{"index": 1,, }', 13
    raise AssertionError(how)


@pytest.mark.parametrize("command", ["replay", "report"])
@pytest.mark.parametrize("how", ["list", "options-list", "moves-not-strings", "seed-string", "missing-moves",
                                 "winner-out-of-range", "deep", "huge-int", "syntax"])
def test_a_damaged_results_line_is_one_located_error(capsys, tmp_path, command, how):
    good = lines_of(simulated(capsys, tmp_path))
    row, column = _damaged_line(good[1], how)
    results = write_lines(tmp_path / "bad.jsonl", [good[0], row, good[2]])
    code, out, err = run(capsys, command, str(results))
    assert code == 1 and HUGE not in err
    where = f"{results}:2"
    if column is not None:  # a JSON problem: line and column
        where += ":" + (str(column) if column is not True else "")
        assert err.startswith(where), err
    else:
        one_line_error(err, where)


def line_of_key(text: str, key: str) -> int:
    """The line of a JSON file written one entry a line that holds top-level entry `key`."""
    return next(n for n, row in enumerate(text.splitlines(), 1) if row.lstrip().startswith(f'"{key}":'))


@pytest.mark.parametrize("damage, message, located", [
    ({"options": ["x"]}, "'options' should be an object", True),
    ({"seed": "one"}, "'seed' should be a whole number", True),
    ({"moves": "b1-b2"}, "'moves' should be a list of moves", True),
    ({"max_turns": -3}, "'max_turns' should be a whole number", True),
    ({"moves": ["@9 b1-b2"]}, "names no seat of this game", False),
])
def test_a_damaged_log_is_one_located_error(capsys, tmp_path, damage, message, located):
    log = tmp_path / "game.json"
    assert run(capsys, "play", "mabula", "--seats", "random,random", "--log", str(log))[0] == 0
    text = json.dumps(dict(json.loads(log.read_text()), **damage), indent=1)
    log.write_text(text)
    code, _, err = run(capsys, "replay", str(log))
    assert code == 1 and message in err
    one_line_error(err, f"{log}:{line_of_key(text, next(iter(damage)))}" if located else str(log))


@pytest.mark.parametrize("text, where", [("[" * 100_000, ":1:101"), ('{"rulesdsl_log": ' + HUGE + "}", ":1:18"),
                                         ("{\n  nope\n}", ":2:3")])
def test_a_log_that_is_not_json_is_located(capsys, tmp_path, text, where):
    log = tmp_path / "game.json"
    log.write_text(text)
    code, _, err = run(capsys, "replay", str(log))
    assert code == 1 and err.startswith(f"{log}{where}: error:") and HUGE not in err


def _saved_state(capsys) -> dict:
    code, out, _ = run(capsys, "show", "mabula", "--setup", ALT, "--json")
    assert code == 0
    return json.loads(out)


@pytest.mark.parametrize("damage, message", [
    ({"cells": [1]}, "'cells' should be an object"),
    ({"cells": {"zz9": {"kind": "marble", "colour": "white"}}}, "no cell \"zz9\""),
    ({"cells": {"b1": {"kind": "dragon"}}}, "is not a piece of this game"),
    ({"cells": {"b1": "x"}}, "is not a piece of this game"),
    ({"zones": {"nowhere": []}}, "no zone \"nowhere\""),
    ({"vars": [1]}, "'vars' should be an object"),
    ({"player": 99}, "'player' should be a seat from 0 to 1"),
    ({"turn": -5}, "'turn' should be a whole number"),
    ({"step": ["play"]}, "no step [\"play\"]"),
    ({"pending": {"abc": "b1-b2"}}, "'pending' entry \"abc\""),
    ({"pending": {"9" * 50: "b1-b2"}}, "'pending' entry"),
    ({"pending": {"0": "b1-b2"}}, "'pending' holds choices, but step 'play' is not a simultaneous step"),
    ({"secret": {"x": 1}}, "'secret' entry \"x\""),
    ({"history": [1]}, "'history' should be a list of moves"),
    ({"capped": "yes"}, "'capped' should be true or false"),
])
def test_a_damaged_state_is_reported_not_a_traceback(capsys, tmp_path, damage, message):
    path = tmp_path / "state.json"
    text = json.dumps(dict(_saved_state(capsys), **damage), indent=2)
    path.write_text(text)
    code, _, err = run(capsys, "moves", "mabula", "--state", str(path))
    assert code == 1 and message in err
    one_line_error(err, f"{path}:{line_of_key(text, next(iter(damage)))}")


@pytest.mark.parametrize("text, where", [("[" * 100_000, ":1:101"), ('{"format": 1, "turn": ' + HUGE + "}", ":1:23"),
                                         ("\xff", None)])
def test_a_state_that_is_not_json_is_located(capsys, tmp_path, text, where):
    path = tmp_path / "state.json"
    path.write_bytes(text.encode("latin-1") if where is None else text.encode())
    code, _, err = run(capsys, "show", "mabula", "--state", str(path))
    assert code == 1 and HUGE not in err
    assert err.startswith(f"{path}{where or ''}: error:")


# -- files bounded in size before they are read -----------------------------------------------------------
GUARD = 10.0  # seconds: a generous guard against reading a huge file whole, not a speed measurement


def sparse(path: Path, size: int) -> Path:
    """A file of `size` bytes that takes no room on disk."""
    with open(path, "wb") as f:
        f.truncate(size)
    return path


@pytest.mark.parametrize("command, name", [("moves mabula --state", "state.json"), ("replay", "game.json")])
def test_a_huge_state_or_log_is_refused_by_its_size_before_it_is_read(capsys, tmp_path, command, name):
    path = sparse(tmp_path / name, 300_000_000)
    start = time.perf_counter()
    code, _, err = run(capsys, *command.split(), str(path))
    assert time.perf_counter() - start < GUARD
    assert code == 1 and err.startswith(f"{path}: error: the file is larger than 32 MB (300 MB)")
    one_line_error(err, str(path))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_pipe_that_never_ends_is_read_no_further_than_the_limit(capsys, tmp_path, monkeypatch):
    import threading

    from rulesdsl import limits

    # (the state is read by the jail's child process, with the limit as rulesdsl sets it)
    fifo = tmp_path / "state.json"
    os.mkfifo(fifo)
    sent = []

    def writer():  # writes until the reader goes away: far more than the limit
        try:
            with open(fifo, "wb") as pipe:
                while sum(sent) < 100_000_000:
                    sent.append(pipe.write(b" " * 65536))
        except BrokenPipeError:
            pass

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    code, _, err = run(capsys, "moves", "mabula", "--state", str(fifo))
    thread.join(GUARD)
    assert code == 1 and err.startswith(f"{fifo}: error: the file is larger than {limits.MAX_STATE_BYTES // 10 ** 6} MB\n")
    assert sum(sent) < limits.MAX_STATE_BYTES + 2_000_000  # the reader stopped just past the limit, with what the pipe buffers


def test_a_results_file_is_read_line_by_line_and_each_line_is_bounded(capsys, tmp_path, monkeypatch):
    results = simulated(capsys, tmp_path, games=16)  # a rules line, then a line per game
    longest = max(len(line) + 1 for line in results.read_bytes().splitlines())
    assert results.stat().st_size > 3 * longest
    monkeypatch.setattr("rulesdsl.sim.records.MAX_RESULTS_LINE_BYTES", longest)  # far below the file's size
    assert run(capsys, "replay", str(results), "--quiet")[0] == 0
    with results.open("a") as out:
        out.write(json.dumps(lines_of(results)[0] | {"agents": ["random", "x" * longest]}) + "\n")
    code, _, err = run(capsys, "report", str(results))
    assert code == 1 and err.startswith(f"{results}:18: error: the line is longer than {longest:,} bytes")


def test_a_state_holding_more_than_a_game_may_keep_is_refused(capsys, tmp_path, monkeypatch):
    state = _saved_state(capsys)
    # (the state is read by the jail's child process, with the limit as rulesdsl sets it: a state over it is built)
    from rulesdsl.limits import MAX_STATE_ITEMS
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state))
    code, _, err = run(capsys, "moves", "mabula", "--state", str(path))
    assert code == 0  # Mabula keeps nothing but the board
    rules = tmp_path / "pile.yaml"
    rules.write_text(FOREVER.replace("moves:", "vars:\n  pile: {init: \"[1, 2]\"}\nmoves:", 1))
    code, out, _ = run(capsys, "show", str(rules), "--json")
    saved = json.loads(out)
    third = MAX_STATE_ITEMS // 3 + 1
    path.write_text(json.dumps(saved | {"vars": {"pile": [[0] * third, [0] * third, [0] * third]}}))
    code, _, err = run(capsys, "moves", str(rules), "--state", str(path))
    assert code == 1 and f"its zones and variables hold more than {MAX_STATE_ITEMS:,} items in all" in err


@pytest.mark.parametrize("record", [{"self": 1, "by": 2}, {"__class__": 1}, {"a b": 1}, [1]])
def test_a_record_in_a_state_has_names_for_keys(capsys, tmp_path, record):
    rules = tmp_path / "record.yaml"
    rules.write_text(FOREVER.replace("moves:", "vars:\n  r: {init: \"none\"}\nmoves:", 1))
    _, out, _ = run(capsys, "show", str(rules), "--json")
    path = tmp_path / "state.json"
    path.write_text(json.dumps(json.loads(out) | {"vars": {"r": {"record": record}}}))
    code, out, err = run(capsys, "moves", str(rules), "--state", str(path))
    if set(record) == {"self", "by"}:
        assert code == 0 and out.split() == ["wait"]
    else:
        assert code == 1 and "is not a record: an object whose keys are names" in err


# -- outputs that other tools read: spreadsheets, terminals, crash files -------------------------------------
HOSTILE = r"""game: "=HYPERLINK(\"http://x\") \e]0;retitled\a\e[2J"
players: {count: 2, names: ["=cmd|' /C calc'!A0\e[8m", "+\e[31mred\rOVER"]}
variants:
  "@sum": {description: "-\e[2Jcleared", changes: {flow: {max_turns: 5}}}
board: {cells: [a, b, c]}
pieces:
  stone: {attributes: {owner: [0, 1]}, derived: {symbol: "'\\x1b[5mX'"}}
moves:
  put:
    params: {c: "[x for x in cells if empty(x)]"}
    notation: "{c}\e[1m\x9b2J"
    do: ["place(piece('stone', owner=me), c)"]
flow:
  steps:
    play: {moves: [put], next: end_turn}
end:
  - when: "size(occupied()) == 3"
    winners: "[0]"
"""  # YAML's escapes: \e is ESC, \a BEL, \r a carriage return, \x9b the one-character CSI
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x80-\x9f]")


def test_games_csv_quotes_every_text_cell_a_spreadsheet_would_run(capsys, tmp_path):
    import csv

    rules = tmp_path / "hostile.yaml"
    rules.write_text(HOSTILE, encoding="utf-8")
    results = tmp_path / "r.jsonl"
    assert run(capsys, "simulate", str(rules), "--games", "4", "--agents", "random,random", "--variant", "@sum",
               "--quiet", "--out", str(results))[0] == 0
    rows = lines_of(results)
    rows[0]["agents"] = ["-2+3", "@SUM(A1)"]  # agent names come from the results file, which anyone may edit
    write_lines(results, rows)
    assert run(capsys, "report", str(results), "--out", str(tmp_path / "report"))[0] == 0
    with open(tmp_path / "report" / "games.csv", encoding="utf-8", newline="") as f:
        cells = [cell for row in csv.reader(f) for cell in row]
    assert "'=cmd|' /C calc'!A0\\x1b[8m_agent" in cells and "'@sum" in cells and "'-2+3" in cells and "'@SUM(A1)" in cells
    assert all(not cell[:1] in ("=", "+", "-", "@", "\t", "\r") or cell.lstrip("-").isdigit() for cell in cells)
    assert not any(RAW_CONTROL.search(cell) for cell in cells)
    assert not RAW_CONTROL.search((tmp_path / "report" / "report.txt").read_text(encoding="utf-8"))


@pytest.mark.parametrize("argv", [
    "validate {rules} --play 2", "show {rules}", "moves {rules}", "simulate {rules} --games 3 --agents random,random",
    "simulate {rules} --games 3 --agents random,random --variant @sum", "play {rules} --seats random,random --seed 1",
    "moves {rules} --setup x", "show {rules} --json",
])
def test_no_control_character_of_a_file_reaches_the_terminal_raw(capsys, tmp_path, argv):
    rules = tmp_path / "hostile.yaml"
    rules.write_text(HOSTILE, encoding="utf-8")
    code, out, err = run(capsys, *argv.format(rules=rules).split())
    assert code in (0, 1, 2) and out + err
    assert not RAW_CONTROL.search(out + err), repr(out + err)
    if argv.endswith("--json"):
        assert json.loads(out)["game"].endswith("\x1b[2J")  # JSON escapes them itself, and stays JSON
    else:
        assert "\\x1b" in out + err


def test_pictures_and_errors_handed_to_programs_are_escaped_too(tmp_path):
    import rulesdsl
    from rulesdsl.errors import GameRuntimeError
    from rulesdsl.render import render_state
    from rulesdsl.terminal import safe_text

    rules = tmp_path / "hostile.yaml"
    rules.write_text(HOSTILE.replace('do: ["place', 'do: ["check(false, name_of(me))", "place'), encoding="utf-8")
    state = rulesdsl.load_game(str(rules)).new_initial_state()
    assert "\\x1b[8m to play" in render_state(state) and not RAW_CONTROL.search(render_state(state))
    with pytest.raises(GameRuntimeError) as info:
        state.apply(state.legal_moves()[0])
    assert not RAW_CONTROL.search(info.value.format()) and "\\x1b[8m" in info.value.format()
    assert safe_text("a\x1b[2J\tb\n\u202e") == "a\\x1b[2J\tb\n\\u202e" == safe_text(safe_text("a\x1b[2J\tb\n\u202e"))


def test_an_error_quoting_the_file_escapes_it_and_keeps_its_caret(capsys, tmp_path):
    # YAML refuses control characters raw, but not the marks that reorder text (U+202E shows what follows it
    # backwards): the line quoted under an error may hold them
    rules = tmp_path / "bad.yaml"
    rules.write_text(FOREVER.replace('when: "false"', 'when: "nothing + \u202e"'), encoding="utf-8")
    code, _, err = run(capsys, "validate", str(rules))
    assert code == 1 and "\u202e" not in err
    line, caret = [text for text in err.splitlines() if "nothing" in text or text.strip() == "^" * 6]
    assert line.endswith('"nothing + \\u202e"') and caret.index("^") == line.index("\\u202e")


def test_crash_files_are_private_new_and_unguessable(capsys, monkeypatch, tmp_path):
    def broken(args):
        raise ValueError("a bug")

    monkeypatch.setattr("rulesdsl.cli.games.run", broken)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    now = time.strftime("%Y%m%d-%H%M%S")  # the name files had: a link planted there made us write through it
    for second in (now, time.strftime("%Y%m%d-%H%M%S", time.localtime(time.time() + 1))):
        (tmp_path / f"rulesdsl-crash-{second}-{os.getpid()}.txt").symlink_to(victim)
    assert run(capsys, "games")[0] == 3 and run(capsys, "games")[0] == 3
    crashes = [p for p in tmp_path.glob("rulesdsl-crash-*.txt") if not p.is_symlink()]
    assert len(crashes) == 2 and victim.read_text() == "keep me"
    for crash in crashes:
        assert crash.stat().st_mode & 0o777 == 0o600 and "a bug" in crash.read_text()
        assert str(os.getpid()) not in crash.name  # nothing in the name that another user could work out


# -- exit codes --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [["simulate", "mabula", "--agents", "random,random", "--seed", HUGE],
                                  ["simulate", "mabula", "--agents", "random,random", "--max-turns", HUGE],
                                  ["moves", "mabula", "--seed", "12x"]])
def test_a_huge_or_bad_number_argument_is_a_short_usage_error(capsys, argv):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and HUGE not in err and len(err.splitlines()[-1]) < 200


@pytest.mark.parametrize("argv, message", [
    (["moves", "mark", "--option", f"players={HUGE}"], "too long"),
    (["moves", "mark", "--option", "players=9"], "between 2 and 4"),
    (["moves", "no/such/rules.yaml"], "no such file"),
    (["moves", "mabula", "--state", "no-such-state.json"], "no such file"),
    (["replay", "no-such-log.json"], "no such file"),
    (["replay", "no-such-log.json", "--rules", "no-such-rules.yaml"], "no such file"),
    (["simulate", "mabula", "--agents", "random,randon"], "unknown agent 'randon'"),
    (["moves", "mabula", "--setup", "WWW"], "--setup"),
])
def test_usage_errors_exit_2(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err and HUGE not in err and err.startswith("error:")


def test_a_malformed_file_that_exists_exits_1(capsys, tmp_path):
    log = tmp_path / "game.json"
    log.write_text("{}")
    assert run(capsys, "replay", str(log))[0] == 1


def test_an_internal_error_exits_3_with_a_crash_file(capsys, monkeypatch, tmp_path):
    def broken(args):
        raise ValueError("a bug, not a usage mistake")

    monkeypatch.setattr("rulesdsl.cli.games.run", broken)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    code, out, err = run(capsys, "games")
    assert code == 3 and len(err.strip().splitlines()) == 1 and "bug in rulesdsl" in err
    crash = next(tmp_path.glob("rulesdsl-crash-*.txt"))
    assert str(crash) in err and "Traceback" in crash.read_text() and "a bug, not a usage mistake" in crash.read_text()
    with pytest.raises(ValueError):
        main(["--debug", "games"])


# -- --out, --force and --resume ---------------------------------------------------------------------------
def test_out_refuses_to_replace_results_without_force(capsys, tmp_path):
    results = simulated(capsys, tmp_path)
    before = results.read_text()
    code, _, err = run(capsys, "simulate", "mabula", "--games", "3", "--seed", "2", "--agents", "random,random",
                       "--quiet", "--out", str(results))
    assert code == 2 and "already exists" in err and "--force" in err and results.read_text() == before
    code, _, _ = run(capsys, "simulate", "mabula", "--games", "2", "--seed", "2", "--agents", "random,random",
                     "--quiet", "--out", str(results), "--force")
    assert code == 0 and len(lines_of(results)) == 2 and results.read_text() != before


@pytest.mark.parametrize("change, message", [
    (["--seed", "2"], "seed 1, not 2"),
    (["--agents", "random,first"], "agents random,random, not random,first"),
    (["--variant", "product"], "variant (none), not product"),
    (["--option", "setup=" + ALT], "options (none), not setup="),
    (["--max-turns", "50"], "turn cap (none), not 50"),
    (["--games", "2"], "beyond --games 2"),
    (["--force"], "--force replaces it"),
])
def test_resume_refuses_another_run(capsys, tmp_path, change, message):
    results = simulated(capsys, tmp_path)
    before = results.read_text()
    argv = {"--seed": "1", "--agents": "random,random", "--games": "3"}
    for flag, value in zip(change[::2], change[1::2] + [None]):
        argv[flag] = value
    flat = [x for flag, value in argv.items() for x in ([flag] if value is None else [flag, value])]
    code, _, err = run(capsys, "simulate", "mabula", *flat, "--quiet", "--out", str(results), "--resume")
    assert code == 2 and message in err and results.read_text() == before


def test_resume_continues_the_same_run_and_may_add_games(capsys, tmp_path):
    results = simulated(capsys, tmp_path)
    fresh = simulated(capsys, tmp_path, games=5, name="fresh.jsonl")
    code, out, _ = run(capsys, "simulate", "mabula", "--games", "5", "--seed", "1", "--agents", "random,random",
                       "--quiet", "--out", str(results), "--resume")
    assert code == 0 and "Mabula: 5 games" in out and results.read_text() == fresh.read_text()


# -- the default turn cap ----------------------------------------------------------------------------------
def test_a_game_without_an_end_stops_at_the_default_turn_cap(capsys, tmp_path):
    rules = tmp_path / "forever.yaml"
    rules.write_text(FOREVER)
    out = tmp_path / "r.jsonl"
    # in a process of its own: without a cap, the game would never end
    done = subprocess.run([sys.executable, "-m", "rulesdsl", "simulate", str(rules), "--games", "1", "--agents",
                           "random,random", "--quiet", "--out", str(out)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert f"games stopped at the turn cap: 1 (cap: {DEFAULT_MAX_TURNS:,} turns, the default)" in done.stdout
    line = lines_of(out)[0]
    assert line["capped"] and line["turns"] == DEFAULT_MAX_TURNS and line["winners"] == []
    code, text, _ = run(capsys, "simulate", str(rules), "--games", "1", "--agents", "random,random", "--quiet",
                        "--max-turns", "7")
    assert "games stopped at the turn cap: 1 (cap: 7 turns, as given)" in text


def test_no_bundled_game_comes_near_the_default_cap(capsys):
    code, out, _ = run(capsys, "simulate", "mark", "--games", "3", "--agents", "random,random", "--quiet")
    turns = float(out.split("turns: mean ")[1].split()[0])
    assert code == 0 and turns < DEFAULT_MAX_TURNS / 10


# -- robust runs: a killed worker, a killed parent ---------------------------------------------------------
linux_only = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


def children(pid: int) -> list[tuple[int, str]]:
    """(pid, command line) of the live child processes of `pid`, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            found.append((int(entry.name), command))
    return found


def start_run(tmp_path: Path, out: Path, *run_args: str) -> subprocess.Popen:
    """`rulesdsl simulate ... --workers 2` in the background (by default 400 random games of MARK)."""
    run_args = run_args or ("mark", "--games", "400", "--agents", "random,random")
    argv = [sys.executable, "-m", "rulesdsl", "simulate", *run_args, "--seed", "1", "--workers", "2", "--quiet",
            "--out", str(out)]
    return subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def workers_of(run_: subprocess.Popen, until, timeout: float = 30) -> list[int]:
    """The worker pids of a run once `until()` holds (the workers are up and playing)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        # jailed workers: forks of the run, or fresh interpreters started by multiprocessing
        workers = [pid for pid, command in children(run_.pid) if "resource_tracker" not in command]
        if len(workers) == 2 and until():
            return workers
        assert run_.poll() is None, run_.communicate()
        time.sleep(0.05)
    raise AssertionError("the workers did not start")


@linux_only
def test_a_killed_worker_ends_the_run_with_a_resume_hint(tmp_path):
    out = tmp_path / "r.jsonl"
    run_ = start_run(tmp_path, out)
    try:
        # once a game is written (after the rules line the file starts with)
        workers = workers_of(run_, lambda: out.exists() and out.read_text().count("\n") > 1)
        os.kill(workers[0], signal.SIGKILL)
        _, err = run_.communicate(timeout=20)
    finally:
        run_.kill()
    assert run_.returncode == 1 and "--resume" in err and "worker process stopped" in err
    assert "Traceback" not in err
    kept = lines_of(out)
    assert 0 < len(kept) < 400 and [line["index"] for line in kept] == list(range(len(kept)))


@linux_only
def test_workers_end_when_the_run_is_killed(tmp_path):
    out = tmp_path / "r.jsonl"
    # long games (a strong search on both sides): the workers are in the middle of one when the run dies
    slow = "mcts:iterations=20000"
    run_ = start_run(tmp_path, out, "mabula", "--games", "4", "--agents", f"{slow},{slow}")
    workers = []
    try:
        workers = workers_of(run_, lambda: True)
        time.sleep(2)  # they have started and taken their first game
        run_.kill()
        run_.wait()  # not communicate(): orphaned workers would keep its pipes open
        deadline = time.monotonic() + 5
        alive = workers
        while alive and time.monotonic() < deadline:
            alive = [pid for pid in workers if _running(pid)]
            time.sleep(0.05)
        assert not alive, "workers outlived their run"
    finally:
        run_.kill()
        for pid in workers:  # leave nothing behind, whatever happened
            if _running(pid):
                os.kill(pid, signal.SIGKILL)
        run_.stdout.close()
        run_.stderr.close()


def _running(pid: int) -> bool:
    """Whether a process exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


# -- the jail: attacks that Python cannot stop from inside, through the command ----------------------------
ATTACK = """\
game: Attack
players: {count: 2}
board: {cells: [a, b]}
LETvars: {total: 0}
moves:
  go:
    notation: go
    do: DO
flow:
  steps:
    play: {moves: [go], next: end_turn}
end:
  - when: "turn >= 3"
    winners: "[]"
"""
DEADLINE = 10  # seconds by the clock for any one attack, on a busy two-core machine


def attack(tmp_path: Path, do: list, *argv: str, let: str = "", scale: float | None = None):
    """Run `rulesdsl ARGV` (FILE: a rule file whose move `go` has the effects `do`) as a process of its own;
    (the rule file, the finished process, seconds by the clock)."""
    path = tmp_path / "attack.yaml"
    path.write_text(ATTACK.replace("DO", json.dumps(do)).replace("LET", f"let: {json.dumps(let)}\n" if let else ""))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop(TIME_SCALE_VARIABLE, None)
    if scale is not None:
        env[TIME_SCALE_VARIABLE] = str(scale)
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "rulesdsl", *(str(path) if a == "FILE" else a for a in argv)],
                          capture_output=True, text=True, timeout=120, env=env)
    return path, done, time.monotonic() - start


def located(err: str, path: Path) -> re.Match:
    """The error's first line, located FILE:LINE:COL; never a traceback."""
    assert "Traceback" not in err and "Fatal Python error" not in err, err
    found = re.match(rf"{re.escape(str(path))}:(\d+):(\d+): error: ", err)
    assert found, err
    return found


SIMULATE = ("simulate", "FILE", "--games", "2", "--agents", "random,random", "--quiet")


def test_a_value_nested_a_million_deep_and_hashed_is_a_located_error(tmp_path):
    # without the jail the process dies of a segmentation fault (exit -11) while hashing it
    path, done, seconds = attack(tmp_path, ["t = 0", {"for": "i in 0..999999", "do": ["t = (t,)"]},
                                            "total = size(distinct([t, t]))"], *SIMULATE)
    assert done.returncode == 1 and seconds < DEADLINE
    located(done.stderr, path)
    assert "move 'go'" in done.stderr or "rule 'go'" in done.stderr


def test_a_huge_value_built_in_one_step_of_c_is_a_located_error(tmp_path):
    # zip of a thousand copies of a million items: 8 GB of tuples in one step of C code, once an internal error
    # (exit 3); now refused from its size before it is built (the jail's test of memory alone is in test_jail.py)
    column = "c" + ", c" * 999
    path, done, seconds = attack(tmp_path, ["c = numbers", f"total = size(zip({column}))"], *SIMULATE,
                                 let={"numbers": "list(0..999999)"}, scale=0.3)
    assert done.returncode == 1 and seconds < DEADLINE
    # refused before it is built, at the statement that would build it (zip counts its items first)
    assert located(done.stderr, path).groups() == ("9", "25")
    assert "rule 'go' failed on turn 0: zip" in done.stderr and "game 0 of the run with seed 0" in done.stderr


def test_a_job_stopped_mid_rule_is_located_at_the_rule(tmp_path):
    # comparing two thousand pairs of million-item lists is one step of C code: the watchdog inside cannot stop it
    path, done, seconds = attack(tmp_path, ["a = list(0..999999)", "b = list(0..999999)",
                                            {"for": "i in 0..199999", "do": ["total = total + 1"]},
                                            "total = 1 if repeat(a, 2000) == repeat(b, 2000) else 0"],
                                 *SIMULATE, scale=0.3)
    assert done.returncode == 1 and seconds < DEADLINE
    assert located(done.stderr, path).groups() == ("7", "5")  # where move 'go' is written
    assert "game 0 of the run with seed 0 was stopped: one step of Python's own code ran for more than 1.5 s of " \
           "processor time (while move 'go' (effects) ran)" in done.stderr


def test_forty_slow_lets_share_the_load_s_budget(tmp_path):
    lets = {f"slow{i}": "sum(x * y for x in 0..999999 for y in 0..999999)" for i in range(40)}
    # each let may take 0.3 s and the load 2 s: one after the other, the lets would take 12 s
    path, done, seconds = attack(tmp_path, ["total = 1"], "validate", "FILE", let=lets, scale=0.1)
    assert done.returncode == 1 and seconds < DEADLINE
    located(done.stderr, path)
    assert "took longer than the 2 s allowed" in done.stderr or "was stopped" in done.stderr
    assert done.stderr.count("error:") < 20  # the load stopped, not one problem per let


def test_a_rule_file_cannot_lift_the_turn_cap_past_its_maximum(tmp_path):
    forever = FOREVER.replace("flow:\n", "flow:\n  max_turns: 1000000000000\n")
    path = tmp_path / "forever.yaml"
    path.write_text(forever)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    warning = f"{path}:7:14: warning: max_turns 1,000,000,000,000 is more than a rule file may ask: games stop " \
              f"after {MAX_TURNS_CAP:,} turns\n  hint: give more on the command line if you mean it (--max-turns N)"
    start = time.monotonic()
    checked = subprocess.run([sys.executable, "-m", "rulesdsl", "validate", str(path)], capture_output=True,
                             text=True, timeout=60, env=env)
    assert checked.returncode == 0 and warning in checked.stderr
    done = subprocess.run([sys.executable, "-m", "rulesdsl", "simulate", str(path), "--games", "1", "--agents",
                           "random,random", "--quiet"], capture_output=True, text=True, timeout=60, env=env)
    assert time.monotonic() - start < 2 * DEADLINE  # two commands
    assert done.returncode == 0 and warning in done.stderr
    assert f"games stopped at the turn cap: 1 (cap: {MAX_TURNS_CAP:,} turns, the most a rule file may set)" in \
        done.stdout
    given = subprocess.run([sys.executable, "-m", "rulesdsl", "simulate", str(path), "--games", "1", "--agents",
                            "random,random", "--quiet", "--max-turns", "7"], capture_output=True, text=True,
                           timeout=60, env=env)
    assert "games stopped at the turn cap: 1 (cap: 7 turns, as given)" in given.stdout


def test_a_results_file_carrying_too_many_rule_sets_is_refused_at_the_line(capsys, tmp_path, monkeypatch):
    # every rules line is kept while the file is read: their number is bounded, as each line's size is
    own = _own_rules(tmp_path)
    out = tmp_path / "r.jsonl"
    assert run(capsys, "simulate", str(own), "--games", "1", "--agents", "random,random", "--quiet",
               "--out", str(out))[0] == 0
    rows = [json.loads(row) for row in out.read_text().splitlines()]
    rules, games = rows[0], rows[1:]
    variants = []
    for i in range(4):  # the same rules with a comment of its own: another bundle, with its own hash
        files = [dict(rules["files"][0], text=rules["files"][0]["text"] + f"# {i}\n")]
        digest = RuleBundle.of([(f["name"], f["text"].encode()) for f in files]).digest
        variants.append(dict(rules, files=files, sha256=digest))
    monkeypatch.setattr("rulesdsl.sim.records.MAX_CARRIED_RULES", 3)
    write_lines(out, variants + games)
    for command in ("replay", "report"):
        code, _, err = run(capsys, command, str(out))
        assert code == 1 and "carries more than 3 sets of rules" in err
        one_line_error(err, f"{out}:4")


def test_the_rules_a_results_file_carries_load_within_one_shared_budget(capsys, tmp_path, monkeypatch):
    # each set of rules loads within its own budget; together they would take several times the load's
    lets = "".join(f'  slow{i}: "sum(x * y for x in 0..999 for y in 0..{299 + i})"\n' for i in range(16))
    own = tmp_path / "slow.yaml"
    own.write_text(FOREVER.replace("moves:", "let:\n" + lets + "moves:", 1).replace('when: "false"', 'when: "turn > 2"'))
    out = tmp_path / "r.jsonl"
    assert run(capsys, "simulate", str(own), "--games", "1", "--agents", "random,random", "--quiet",
               "--out", str(out))[0] == 0
    rules, game = [json.loads(row) for row in out.read_text().splitlines()]
    rows = []
    for i in range(6):  # the same game played with six sets of rules, each another by a comment
        files = [dict(rules["files"][0], text=rules["files"][0]["text"] + f"# {i}\n")]
        digest = RuleBundle.of([(f["name"], f["text"].encode()) for f in files]).digest
        rows += [dict(rules, files=files, sha256=digest), dict(game, rules_sha256=digest, index=i)]
    write_lines(out, rows)
    monkeypatch.setenv(TIME_SCALE_VARIABLE, "0.1")  # a load may take 2 s, and all of them together 2 s
    code, _, err = run(capsys, "report", str(out))
    assert code == 1 and "took longer than the 2 s allowed" in err and "Traceback" not in err
