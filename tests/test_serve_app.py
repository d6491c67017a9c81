"""The playground's server through Starlette's test client: files, validation, play, undo, replay, simulate."""

from __future__ import annotations

import socket
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from rulesdsl.cli import main  # noqa: E402
from rulesdsl.loading import bundled_games  # noqa: E402
from rulesdsl.serve.app import create_app  # noqa: E402

GAME = """\
game: Line
players: {count: 2, names: [cross, nought]}
board:
  grid: {columns: abc, rows: 1}
  directions: {east: [1, 0], west: [-1, 0]}
  init: {a1: "piece('stone', owner=0)", c1: "piece('stone', owner=1)"}
pieces:
  stone: {attributes: {owner: [0, 1]}}
moves:
  step:
    params:
      from: {in: cells, why: that is not a cell}
      to: {in: "[c for c in cells if empty(c)]", why: a stone moves to an empty cell}
    when:
      - test: "at(from) != none and at(from).owner == me"
        why: you move only your own stone
    notation: "{from}-{to}"
    do: ["move(from, to)"]
flow:
  steps:
    play: {moves: [step], next: end_turn}
end:
  - when: "at(cell('b1')) != none"
    winners: "[at(cell('b1')).owner]"
"""


@pytest.fixture
def served(tmp_path):
    folder = tmp_path / "served"
    folder.mkdir()
    (folder / "line.yaml").write_text(GAME, encoding="utf-8")
    (tmp_path / "outside.yaml").write_text(GAME, encoding="utf-8")
    # (the client's block ends the app, and with it the jails' children)
    with TestClient(create_app(folder, "line.yaml"), base_url="http://127.0.0.1:8000") as client:

        def call(name, **data):
            response = client.post(f"/api/{name}", json=data)
            return response.status_code, response.json()
        call.client, call.folder = client, folder
        yield call


def test_the_page_and_its_editor_are_served(served):
    assert "rulesdsl playground" in served.client.get("/").text
    for name in ("editor.js", "playground.js", "playground.css"):
        assert served.client.get(f"/static/{name}").status_code == 200


def test_config_lists_the_folder_files(served):
    (served.folder / "game.log.json").write_text("{}", encoding="utf-8")
    bundled = sorted(path.name for path in bundled_games().values())
    assert served("config") == (200, {"first": "line.yaml", "folder": "served", "copies_to": None,
                                      "rules": ["line.yaml"], "bundled": bundled,
                                      "logs": ["game.log.json"], "skipped": [], "view_as": False})


def test_validate_gives_validate_s_problems_located_in_the_edited_text(served):
    status, found = served("validate", path="line.yaml", text=GAME)
    assert status == 200 and found["ok"] and found["problems"] == []
    assert found["game"]["players"] == ["cross", "nought"]
    status, found = served("validate", path="line.yaml", text=GAME.replace('do: ["move(from, to)"]',
                                                                          'do: ["mvoe(from, to)"]'))
    assert status == 200 and not found["ok"]
    [problem] = found["problems"]
    line = GAME.splitlines().index('    do: ["move(from, to)"]') + 1
    assert (problem["line"], problem["column"], problem["code"], problem["here"]) == (line, 11, "unknown_function",
                                                                                       True)
    assert problem["message"] == "unknown function 'mvoe'" and problem["hint"] == "did you mean 'move'?"


def test_a_game_is_played_by_notation_and_by_clicks_and_undone(served):
    status, view = served("new", path="line.yaml", seed=0, seats=["human", "human"])
    assert status == 200 and view["status"] == "turn 1: cross to play (play)"
    assert view["legal"] == ["a1-b1"] and view["to_move"] == 0
    session = view["session"]
    # a click on a stone that is not yours: the rule's why
    status, view = served("click", session=session, cells=["c1"])
    assert view["click"] == {"why": "you move only your own stone"}
    status, view = served("click", session=session, cells=["a1"])
    assert view["click"] == {"next": ["b1"]}
    status, view = served("click", session=session, cells=["a1", "b1"])
    assert view["click"] == {"play": "a1-b1"}
    assert view["status"] == "winner: cross" and view["history"] == ["a1-b1"] and view["can_undo"]
    status, view = served("undo", session=session)
    assert view["history"] == [] and view["legal"] == ["a1-b1"] and not view["can_undo"]
    status, error = served("move", session=session, move="c1-b1")
    assert status == 400 and error["error"] == "you move only your own stone" and error["kind"] == "illegal"
    status, view = served("move", session=session, move="a1-b1")
    assert status == 200 and view["status"] == "winner: cross"


def test_agents_play_their_seats_and_the_seat_s_view_is_drawn(served):
    status, view = served("new", path="line.yaml", seed=0, seats=["random", "human"])
    # cross (random) has one move: played before the human's turn, which never comes (the game is won)
    assert view["history"] == ["a1-b1"] and view["told"] == ["a1-b1"] and view["status"] == "winner: cross"
    status, error = served("new", path="line.yaml", seed=0, seats=["wizard", "human"])
    assert status == 400 and "wizard" in error["error"]


def test_unsaved_text_is_played_and_save_writes_only_in_the_folder(served):
    edited = GAME.replace("names: [cross, nought]", "names: [red, blue]")
    status, view = served("new", path="line.yaml", text=edited, seed=0, seats=["human", "human"])
    assert view["status"] == "turn 1: red to play (play)"
    assert "cross" in (served.folder / "line.yaml").read_text(encoding="utf-8")  # not saved
    assert served("save", path="line.yaml", text=edited) == (200, {"saved": "line.yaml"})
    assert "red" in (served.folder / "line.yaml").read_text(encoding="utf-8")
    status, error = served("save", path="notes.txt", text="x")
    assert status == 400 and not (served.folder / "notes.txt").exists()


def test_a_read_only_folder_is_saved_as_a_copy_in_the_working_folder(tmp_path, monkeypatch):
    from rulesdsl.serve.command import copies_folder, where
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    bundled, first = where("mabula")  # the installed package's games are never written by the playground
    assert first == "mabula.yaml" and copies_folder(bundled) == work.resolve()
    assert copies_folder(work.resolve()) is None  # the working folder itself is written
    before = (bundled / "mabula.yaml").read_bytes()
    with TestClient(create_app(bundled, first, copies=work), base_url="http://127.0.0.1:8000") as client:
        def call(name, **data):
            response = client.post(f"/api/{name}", json=data)
            return response.status_code, response.json()
        assert call("config")[1]["copies_to"] == str(work.resolve())
        edited = before.decode("utf-8").replace("game: Mabula", "game: My Mabula")
        assert call("save", path="mabula.yaml", text=edited) == \
            (200, {"saved": "mabula.yaml", "copy": str(work.resolve() / "mabula.yaml")})
        status, error = call("save", path="../mabula.yaml", text=edited)
        assert status == 400 and "not a file of the served folder" in error["error"]
    assert (bundled / "mabula.yaml").read_bytes() == before
    assert (work / "mabula.yaml").read_text(encoding="utf-8") == edited


@pytest.mark.parametrize("path", ["../outside.yaml", "sub/../../outside.yaml", "/etc/passwd", "link.yaml",
                                  "linked/outside.yaml", ""])
def test_paths_out_of_the_folder_are_refused(served, path):
    (served.folder / "link.yaml").symlink_to(served.folder.parent / "outside.yaml")
    (served.folder / "linked").symlink_to(served.folder.parent)
    for name in ("read", "validate", "new", "save"):
        status, error = served(name, path=path, text=GAME)
        assert status == 400 and error["error"].startswith("not a file of the served folder"), (name, error)
    assert (served.folder.parent / "outside.yaml").read_text(encoding="utf-8") == GAME
    assert served("config")[1]["rules"] == ["line.yaml"]  # links out of the folder are not listed


def test_a_logged_game_is_stepped_through_forwards_and_backwards(served, capsys):
    log = served.folder / "game.json"
    assert main(["play", str(served.folder / "line.yaml"), "--seats", "random,random", "--log", str(log)]) == 0
    status, view = served("replay", path="game.json")
    assert status == 200 and (view["ply"], view["plies"]) == (0, 1)
    assert [p["cell"] for p in view["pieces"]] == [0, 2]
    status, view = served("replay_step", replay=view["replay"], ply=1)
    assert view["history"] == ["a1-b1"] and [p["cell"] for p in view["pieces"]] == [1, 2]
    status, view = served("replay_step", replay=view["replay"], ply=0)
    assert view["history"] == [] and [p["cell"] for p in view["pieces"]] == [0, 2]


def test_a_simulation_runs_in_the_background_and_reports(served):
    status, started = served("simulate", path="line.yaml", games=20, agents=["random", "random"], seed=1)
    assert status == 200
    for _ in range(200):
        status, job = served("simulation", simulation=started["simulation"])
        if job["report"] or job["error"]:
            break
        time.sleep(0.05)
    assert job["done"] == job["games"] == 20 and job["error"] is None
    assert "Line" in job["report"] and "cross" in job["report"] and "20 games" in job["report"]
    status, error = served("simulate", path="line.yaml", games=10 ** 9, agents=["random", "random"])
    assert status == 400


def test_a_hostile_file_cannot_hang_the_server(served):
    # a board of a million cells is refused at load, located, like any other problem
    hostile = GAME.replace("grid: {columns: abc, rows: 1}", "grid: {columns: 1000, rows: 1000}")
    status, found = served("validate", path="line.yaml", text=hostile)
    assert status == 200 and not found["ok"] and found["problems"][0]["code"] != "internal"
    status, found = served("validate", path="line.yaml", text="x" * (3 * 1024 * 1024))
    assert status == 413
    status, error = served("new", path="line.yaml", text="game: [", seats=["human", "human"])
    assert status == 400 and "line.yaml:1" in error["error"]


def test_only_json_requests_addressed_to_this_machine_are_answered(served):
    # a form or a plain-text POST, which any web page may send without asking, changes nothing
    response = served.client.post("/api/save", content='{"path": "line.yaml", "text": "x"}',
                                  headers={"Content-Type": "text/plain"})
    assert response.status_code == 415 and "cross" in (served.folder / "line.yaml").read_text(encoding="utf-8")
    assert served.client.get("/api/read?path=line.yaml").status_code == 405
    rebound = TestClient(served.client.app, base_url="http://evil.example:8000")
    assert rebound.post("/api/config", json={}).status_code == 400


def test_requests_missing_a_field_or_with_wrong_values_are_told_so(served):
    assert served("read") == (400, {"error": "missing field 'path'"})
    status, error = served("new", path="line.yaml", seed="x")
    assert status == 400 and "whole number" in error["error"]
    status, error = served("new", path="line.yaml", options=[1])
    assert status == 400 and "options" in error["error"]


def test_any_game_of_a_results_file_is_replayed(served):
    results = served.folder / "runs.jsonl"
    assert main(["simulate", str(served.folder / "line.yaml"), "--games", "3", "--agents", "random,random",
                 "--out", str(results), "--quiet"]) == 0
    for game in range(3):
        status, view = served("replay", path="runs.jsonl", game=game)
        assert status == 200 and view["plies"] == 1
        status, view = served("replay_step", replay=view["replay"], ply=5)  # past the end: the last position
        assert (view["ply"], view["history"], view["status"]) == (1, ["a1-b1"], "winner: cross")
    status, error = served("replay", path="runs.jsonl", game=3)
    assert status == 400 and error["error"] == "runs.jsonl holds 3 games: choose 0 to 2"
    status, error = served("replay", path="line.yaml")
    assert status == 400 and "no log or results file" in error["error"]


def test_serving_on_every_address_keeps_the_host_check(tmp_path):
    (tmp_path / "line.yaml").write_text(GAME, encoding="utf-8")
    app = create_app(tmp_path, "line.yaml", host="0.0.0.0", hosts=["play.example"])
    for name, status in (("evil.example", 400), ("play.example", 200), ("127.0.0.1", 200),
                         (socket.gethostname(), 200)):
        assert TestClient(app, base_url=f"http://{name}:8000").post("/api/config", json={}).status_code == status
