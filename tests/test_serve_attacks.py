"""Attacks on the playground's server (issue 23's list), through Starlette's test client: each ends in a 4xx
with a JSON error saying what is wrong, never a 500 nor an internal error; what it aimed at (another client's
games, a file outside the folder or not a file, the server's time) stays out of reach. The attacks that need a
real server process (threads exhausted, bodies never sent whole) are in test_serve_server.py."""

from __future__ import annotations

import json
import os
import random
import stat
import threading
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from rulesdsl.cli import main  # noqa: E402
from rulesdsl.serve import work  # noqa: E402
from rulesdsl.serve.app import COOKIE, create_app  # noqa: E402
from rulesdsl.serve.caps import Caps  # noqa: E402

from .test_serve_app import GAME  # noqa: E402

# each seat holds a card nobody else sees
CARDS = """\
game: Cards
players: {count: 2, names: [north, south]}
pieces:
  card: {attributes: {rank: "1..9"}}
zones:
  hand: {per: player, visible: owner, init: "[piece('card', rank=owner + 1)]"}
moves:
  pass: {notation: pass}
flow:
  steps:
    play: {moves: [pass], next: end_turn}
end:
  - when: "false"
    winners: "[]"
"""
# a game that never ends, played to a turn cap nobody reaches
FOREVER = """\
game: Forever
players: {count: 2}
moves:
  wait: {notation: wait}
flow:
  max_turns: 1000000000000
  steps:
    play: {moves: [wait], next: end_turn}
end:
  - when: "false"
    winners: "[]"
"""
# listing the moves takes 10^12 steps
SLOW = FOREVER.replace("wait: {notation: wait}", 'wait: {let: {n: "size([y for y in 0..999999 for z in 0..999999 '
                                                  'if y < 0])"}, notation: "wait{n}"}')


@pytest.fixture
def make_served():
    """make_served(folder, **create_app's keywords) -> call(name, client=None, **data) -> (status, answer) posted to
    the playground of `folder` as `client` (a test client: a browser with its own cookies). The apps' jails end
    with the test."""
    apps = []

    def make(folder, **kwargs):
        app = create_app(folder, "line.yaml", caps=kwargs.pop("caps", Caps()), **kwargs)
        apps.append(app)
        first = TestClient(app, base_url="http://127.0.0.1:8000")

        def call(name, client=None, **data):
            response = (client or first).post(f"/api/{name}", json=data)
            return response.status_code, response.json()
        call.client, call.folder = first, folder
        call.browser = lambda: TestClient(app, base_url="http://127.0.0.1:8000")
        return call
    yield make
    for app in apps:
        app.state.workspace.close()


@pytest.fixture
def folder(tmp_path):
    folder = tmp_path / "served"
    folder.mkdir()
    for name, text in (("line.yaml", GAME), ("cards.yaml", CARDS), ("forever.yaml", FOREVER),
                       ("slow.yaml", SLOW)):
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def served(make_served, folder):
    return make_served(folder)


def refused(answer, status: int = 400, words: str = "") -> None:
    """A refusal the client is meant to read: its status (4xx, or 503: busy), a JSON error saying `words`, no
    crash."""
    code, body = answer
    assert code == status and (400 <= code < 500 or code == 503), answer
    assert "internal" not in body and words in body["error"], answer


def post(served, name: str, body: bytes):
    response = served.client.post(f"/api/{name}", content=body, headers={"Content-Type": "application/json"})
    return response.status_code, response.json()


# -- the file system ---------------------------------------------------------------------------------------
def test_a_symbolic_link_loop_in_the_folder_is_skipped_and_said(served):
    (served.folder / "loop.yaml").symlink_to(served.folder / "round.yaml")
    (served.folder / "round.yaml").symlink_to(served.folder / "loop.yaml")
    (served.folder / "deep").mkdir()
    (served.folder / "deep" / "self").symlink_to(served.folder / "deep")  # a folder that holds itself
    status, config = served("config")
    assert status == 200 and config["rules"] == ["cards.yaml", "forever.yaml", "line.yaml", "slow.yaml"]
    assert config["skipped"] == ["loop.yaml: its symbolic links make a loop",
                                 "round.yaml: its symbolic links make a loop"]
    for name in ("read", "validate", "new", "save"):
        refused(served(name, path="loop.yaml", text=GAME),
                words="cannot use 'loop.yaml': its symbolic links make a loop")


@pytest.mark.parametrize("path", ["x" * 5_000 + ".yaml", "a/" * 600 + "b.yaml", "n" * 300 + ".yaml"])
def test_a_very_long_path_is_refused(served, path):
    for name in ("read", "validate", "new", "save", "replay", "report"):
        refused(served(name, path=path, text=GAME), words="is too long")


def test_saving_into_a_missing_folder_is_refused(served):
    refused(served("save", path="nowhere/line.yaml", text=GAME),
            words="no folder 'nowhere' in the served folder: Save writes into folders that exist")
    assert not (served.folder / "nowhere").exists()


def test_saving_onto_a_named_pipe_is_refused_at_once(served):
    os.mkfifo(served.folder / "pipe.yaml")
    (served.folder / "folder.yaml").mkdir()
    done = []
    worker = threading.Thread(target=lambda: done.append(served("save", path="pipe.yaml", text=GAME)), daemon=True)
    worker.start()
    worker.join(30)  # a guard against the hang this attack caused: opening the pipe waited for a reader for ever
    assert done, "saving onto a named pipe did not return"
    refused(done[0], words="'pipe.yaml' is not a regular file: it is not replaced")
    refused(served("save", path="folder.yaml", text=GAME), words="'folder.yaml' is not a regular file")
    refused(served("read", path="pipe.yaml"), words="'pipe.yaml' is not a regular file")
    assert stat.S_ISFIFO(os.lstat(served.folder / "pipe.yaml").st_mode)
    assert "pipe.yaml: not a regular file" in served("config")[1]["skipped"]


def test_a_link_to_a_file_outside_the_folder_is_neither_read_nor_written(served):
    outside = served.folder.parent / "outside.yaml"
    outside.write_text("kept", encoding="utf-8")
    (served.folder / "out.yaml").symlink_to(outside)
    for name in ("read", "save", "validate", "replay", "report"):
        refused(served(name, path="out.yaml", text=GAME), words="not a file of the served folder: 'out.yaml'")
    assert outside.read_text(encoding="utf-8") == "kept"


# -- the request's JSON ------------------------------------------------------------------------------------
def test_json_nested_100000_deep_is_refused(served):
    body = b'{"path": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    refused(post(served, "read", body), words="request:1:109: error: JSON nested more than 100 deep")


def test_a_5000_digit_number_is_refused(served):
    body = b'{"path": "line.yaml", "seed": ' + b"7" * 5_000 + b"}"
    refused(post(served, "new", body), words="request:1:31: error: a whole number of 5,000 digits (at most 100)")


@pytest.mark.parametrize("number", [b"1e999", b"-1e999", b"NaN", b"Infinity"])
def test_1e999_and_numbers_json_cannot_carry_are_refused(served, number):
    body = b'{"path": "line.yaml", "seed": ' + number + b"}"
    refused(post(served, "new", body), words=f"request:1:31: error: the number {number.decode()} is too large")


@pytest.mark.parametrize("body, words", [
    (b"[1, 2]", "send a JSON object"), (b'{"path": ', "request:1:10: error: not JSON"),
    (b'{"path": "\xff"}', "the request is not UTF-8 text (byte 11)"), (b'"text"', "send a JSON object")])
def test_a_body_that_is_not_a_json_object_is_refused(served, body, words):
    refused(post(served, "read", body), words=words)


@pytest.mark.parametrize("name, fields, words", [
    ("new", {"seats": 5}, "'seats' should be a list"), ("new", {"seats": [1]}, "'seats' should be a text"),
    ("new", {"options": [1]}, "'options' should be a JSON object"), ("new", {"variant": ["x"]}, "'variant' should"),
    ("new", {"seed": True}, "'seed' should be a whole number"), ("new", {"seed": 10 ** 30}, "whole number"),
    ("new", {"seed": 0.5}, "whole number"), ("new", {"path": 7}, "'path' should be a text"),
    ("new", {"seats": ["human"] * 300}, "at most 256"), ("new", {"seats": ["x" * 2_000, "random"]}, "longer than"),
    ("new", {"seats": ["wizard", "human"]}, "unknown agent 'wizard'"),
    ("new", {"seats": ["human", "human", "human"]}, "2 players; 3 seats"),
    ("new", {"seats": ["mcts:speed=3", "human"]}, "no such setting"),
    ("new", {"seats": ["mcts:iterations=many", "human"]}, "a setting has a value of the wrong kind"),
    ("new", {"variant": "nothing"}, "variant"), ("new", {"options": {"size": 3}}, "option"),
    ("save", {"text": 3}, "'text' should be a text"), ("read", {"path": None}, "'path' should be a text"),
    ("replay", {"path": "line.yaml"}, "no log or results file 'line.yaml'"),
    ("replay", {"path": "line.yaml", "game": "x"}, "'game' should be a whole number"),
    ("simulate", {"games": 0, "agents": ["random", "random"]}, "simulate 1 to 10,000 games"),
    ("simulate", {"games": 10 ** 9, "agents": ["random", "random"]}, "simulate 1 to 10,000 games"),
    ("simulate", {"games": 2, "agents": ["random"]}, "name one agent per seat"),
    ("simulate", {"games": 2, "agents": "random,random"}, "'agents' should be a list"),
])
def test_fields_of_the_wrong_kind_are_refused(served, name, fields, words):
    refused(served(name, **{"path": "line.yaml", "text": GAME, **fields}), words=words)


def test_fields_of_a_game_of_the_wrong_kind_are_refused(served):
    status, view = served("new", path="line.yaml", seats=["human", "human"])
    session = view["session"]
    for name, fields, words in [("move", {"move": ["a1-b1"]}, "'move' should be a text"),
                                ("move", {}, "missing field 'move'"), ("click", {"cells": "a1"}, "should be a list"),
                                ("move", {"move": "z9-z9"}, "that is not a cell"), ("state", {"viewer": 7}, "seat 7"),
                                ("state", {"viewer": "x"}, "'viewer' should be a whole number")]:
        refused(served(name, session=session, **fields), 403 if fields.get("viewer") == 7 else 400, words)
    refused(served("state", session=7), words="missing field 'session'")


def test_a_lone_surrogate_is_refused(served):
    body = json.dumps({"path": "line.yaml", "text": "game: \ud800"}).encode()  # escaped: JSON that may be sent
    refused(post(served, "save", body), words="'text' holds a lone surrogate")
    assert (served.folder / "line.yaml").read_text(encoding="utf-8") == GAME


def test_a_body_larger_than_the_limit_is_refused(make_served, folder):
    served = make_served(folder, caps=Caps(request_bytes=1_000))
    refused(served("save", path="line.yaml", text="x" * 2_000), 413, "the request is larger than 1,000 bytes")
    assert (folder / "line.yaml").read_text(encoding="utf-8") == GAME


def test_only_json_requests_are_answered(served):
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
        response = served.client.post("/api/save", content=b'{"path": "line.yaml", "text": "x"}',
                                      headers={"Content-Type": kind})
        assert response.status_code == 415 and "send JSON" in response.json()["error"]
    assert (served.folder / "line.yaml").read_text(encoding="utf-8") == GAME


# -- clients and their games -------------------------------------------------------------------------------
def test_a_game_is_an_unguessable_token_bound_to_its_client(served):
    status, view = served("new", path="line.yaml", seats=["human", "human"])
    session = view["session"]
    assert status == 200 and isinstance(session, str) and len(session) >= 32
    cookie = served.client.cookies.get(COOKIE)
    assert cookie and len(cookie) >= 32
    stranger = served.browser()
    for name, fields in (("state", {}), ("move", {"move": "a1-b1"}), ("undo", {}), ("click", {"cells": ["a1"]})):
        refused(served(name, stranger, session=session, **fields), 404, "no such game")
    for guess in ("1", "2", session[:-1], session + "x"):
        refused(served("state", session=guess), 404, "no such game")
    status, view = served("move", session=session, move="a1-b1")  # untouched by the stranger
    assert status == 200 and view["history"] == ["a1-b1"]


def test_the_client_cookie_is_http_only_and_same_site_strict(served):
    response = served.browser().get("/")
    cookie = response.headers["set-cookie"]
    assert cookie.startswith(f"{COOKIE}=") and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert response.headers["x-frame-options"] == "DENY"


def test_a_client_sees_only_the_seats_it_plays(served):
    status, view = served("new", path="cards.yaml", seats=["human", "random"])
    hands = {place["owner"]: place for zone in view["zones"] if zone["name"] == "hand" for place in zone["places"]}
    assert view["viewer"] == 0 and not hands["north"].get("hidden") and hands["south"]["hidden"]
    refused(served("state", session=view["session"], viewer=1), 403, "you do not play seat 1")
    status, view = served("new", path="cards.yaml", seats=["random", "random"])  # played by agents only: the table
    assert status == 200 and view["viewer"] is None


def test_viewing_as_any_seat_is_an_option_of_the_server(make_served, folder):
    served = make_served(folder, view_as=True)
    assert served("config")[1]["view_as"] is True
    status, view = served("new", path="cards.yaml", seats=["human", "random"], viewer=1)
    hands = {place["owner"]: place for zone in view["zones"] if zone["name"] == "hand" for place in zone["places"]}
    assert status == 200 and view["viewer"] == 1 and hands["north"]["hidden"] and not hands["south"].get("hidden")
    refused(served("state", session=view["session"], viewer=5), 400, "Cards has no seat 5: its seats are 0 to 1")


def test_a_client_s_new_games_never_drop_another_client_s(make_served, folder):
    served = make_served(folder, caps=Caps(games_per_client=3, games=5))
    mine = [served("new", path="line.yaml", seats=["human", "human"])[1]["session"] for _ in range(2)]
    other = served.browser()
    theirs = [served("new", other, path="line.yaml", seats=["human", "human"])[1]["session"] for _ in range(4)]
    refused(served("state", other, session=theirs[0]), 404, "no such game")  # their own oldest made room
    assert all(served("state", other, session=token)[0] == 200 for token in theirs[1:])
    assert all(served("state", session=token)[0] == 200 for token in mine)
    status, body = served("new", served.browser(), path="line.yaml")  # a third client: every place is in use
    refused((status, body), 503, "the playground keeps 5 at most, and all are in use: try again in a moment")
    response = served.browser().post("/api/new", json={"path": "line.yaml"})
    assert response.headers["retry-after"] == "2"
    assert all(served("state", session=token)[0] == 200 for token in mine)


def test_a_game_unused_for_long_makes_room_for_a_new_one(make_served, folder):
    served = make_served(folder, caps=Caps(games_per_client=3, games=2, idle_seconds=0.0))
    first = served("new", path="line.yaml")[1]["session"]
    served("new", path="line.yaml")
    status, _ = served("new", served.browser(), path="line.yaml")
    assert status == 200
    refused(served("state", session=first), 404, "no such game")


# -- rule code that never ends -----------------------------------------------------------------------------
def test_a_request_whose_rule_code_never_ends_is_stopped(make_served, folder):
    served = make_served(folder, caps=Caps(request_seconds=1.0))
    # stopped by the jail (its processor time) or by the pool (the clock, which counts the child's start too)
    status, body = served("new", path="slow.yaml", seats=["human", "human"])
    refused((status, body), words="slow.yaml:4:9: error: a game of slow.yaml was stopped: it ")
    assert body["reason"] == "time" and body["location"] == {"file": "slow.yaml", "line": 4, "column": 9}
    assert ("more than its 1 s of processor time" in body["error"] or "longer than its 2.5 s by the clock" in
            body["error"]) and "(while move 'wait' (listing) ran)" in body["error"]
    endless_load = FOREVER.replace("moves:", 'let: {n: "size([y for y in 0..999999 for z in 0..999999 if y < 0])"}\n'
                                            "moves:", 1)
    status, found = served("validate", path="forever.yaml", text=endless_load)
    assert status == 200 and not found["ok"]
    [problem] = found["problems"]
    assert (problem["code"], problem["file"], problem["here"]) == ("limit_exceeded", "forever.yaml", True)
    assert problem["message"].startswith("checking forever.yaml was stopped: it "), problem
    assert (problem["line"], problem["column"]) == (3, 10), problem  # the let that never ends
    assert served("new", path="line.yaml", seats=["human", "human"])[0] == 200  # the workers are free again


def _simulation(served, token: str, client=None) -> dict:
    for _ in range(600):
        status, job = served("simulation", client, simulation=token)
        assert status == 200
        if job["state"] != "running":
            return job
        time.sleep(0.05)
    raise AssertionError("the simulation did not end")


def _simulation_threads() -> list:
    return [t for t in threading.enumerate() if t.name.startswith("rulesdsl-simulation")]


def test_a_simulation_that_never_ends_is_stopped_at_its_limit(make_served, folder):
    served = make_served(folder, caps=Caps(simulation_seconds=1.0))
    # (a game stops at the turn cap, 100,000 turns: a thousand of them take far longer than the limit)
    status, started = served("simulate", path="forever.yaml", games=1000, agents=["random", "random"])
    assert status == 200
    job = _simulation(served, started["simulation"])
    assert job["state"] == "stopped" and job["report"] is None
    assert job["error"].startswith("the simulation was stopped at its limit of 1 s, after ") and \
        " of 1,000 games" in job["error"]
    for _ in range(100):  # its thread ends with it, and the thread that watched the limit
        if not _simulation_threads():
            break
        time.sleep(0.05)
    assert _simulation_threads() == []


def test_a_simulation_is_stopped_when_its_client_asks_and_only_then(served):
    status, started = served("simulate", path="forever.yaml", games=3, agents=["random", "random"])
    token = started["simulation"]
    stranger = served.browser()
    refused(served("stop", stranger, simulation=token), 404, "no such simulation")
    refused(served("simulation", stranger, simulation=token), 404, "no such simulation")
    assert served("simulation", simulation=token)[1]["state"] == "running"
    status, job = served("stop", simulation=token)
    assert status == 200
    job = _simulation(served, token)
    assert job["state"] == "stopped" and job["error"] == "the simulation was stopped after 0 of 3 games"
    for _ in range(100):
        if not _simulation_threads():
            break
        time.sleep(0.05)
    assert _simulation_threads() == []


def test_simulations_beyond_those_running_are_refused_busy(make_served, folder):
    served = make_served(folder, caps=Caps(simulations=1))
    token = served("simulate", path="forever.yaml", games=3, agents=["random", "random"])[1]["simulation"]
    refused(served("simulate", path="line.yaml", games=3, agents=["random", "random"]), 503,
            "the playground runs 1 simulation at most at once: wait for one to end, or stop it")
    served("stop", simulation=token)
    assert _simulation(served, token)["state"] == "stopped"
    status, started = served("simulate", path="line.yaml", games=3, agents=["random", "random"])
    assert status == 200 and _simulation(served, started["simulation"])["state"] == "done"


# -- the catch-all -----------------------------------------------------------------------------------------
def broken(source):
    """A job with a bug (module-level: the jail's child finds it by name)."""
    raise ZeroDivisionError("a bug")


def test_an_unexpected_error_is_a_json_error_naming_a_private_crash_file(served, monkeypatch, capsys):
    monkeypatch.setattr(work, "check", broken)
    response = served.client.post("/api/validate", json={"path": "line.yaml", "text": GAME})
    body = response.json()
    assert response.status_code == 500 and body["internal"] is True  # honest about a bug of ours
    assert body["error"].startswith("internal error (ZeroDivisionError: a bug) while answering /api/validate: this "
                                    "is a bug in rulesdsl, not in your files; the details are in ")
    path = body["error"].split("the details are in ")[1].split(" (please")[0]
    try:
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        assert 'raise ZeroDivisionError("a bug")' in open(path, encoding="utf-8").read()
    finally:
        os.remove(path)
    assert body["error"] in capsys.readouterr().err


def test_a_game_name_no_file_can_hold_is_answered_escaped(served):
    text = GAME.replace("game: Line", 'game: "Line \\ud800"')  # YAML's escape for a lone surrogate
    response = served.client.post("/api/new", json={"path": "line.yaml", "text": text, "seats": ["human", "human"]})
    assert response.status_code == 200 and b'"game":"Line \\ud800"' in response.content


# values of every kind a field may be sent with, right and wrong
ODD_VALUES = [None, "", 0, -1, 10 ** 19, 1.5, True, [], {}, [1], ["a1"], {"a": 1}, "line.yaml", "cards.yaml",
              "game.json", "runs.jsonl", "sub", "sub/", ".", "..", "/", "x" * 300, "\u00e9.yaml", "a\nb.yaml", " ", "human",
              ["human", "random"], "random", "a1-b1", "1", "[[[", "sub/x.yaml", "line.yaml/", "./line.yaml"]
FIELDS = ["path", "text", "seed", "seats", "variant", "options", "viewer", "session", "move", "cells", "game", "ply",
          "replay", "games", "agents", "simulation"]


def test_random_requests_never_reach_the_catch_all(served):
    assert main(["play", str(served.folder / "line.yaml"), "--seats", "random,random", "--log",
                 str(served.folder / "game.json")]) == 0
    (served.folder / "runs.jsonl").write_text("{}\n", encoding="utf-8")
    (served.folder / "sub").mkdir()
    session = served("new", path="line.yaml", seats=["human", "human"])[1]["session"]
    replay = served("replay", path="game.json")[1]["replay"]
    names = ["config", "read", "save", "validate", "new", "state", "move", "click", "undo", "replay", "replay_step",
             "report", "simulate", "simulation", "stop"]
    rng = random.Random(23)
    for _ in range(400):
        name = rng.choice(names)
        data = {field: rng.choice(ODD_VALUES) for field in rng.sample(FIELDS, rng.randint(0, 6))}
        data.update({"session": session} if rng.random() < 0.3 else {}, **({"replay": replay} if rng.random() < 0.2
                                                                          else {}))
        if name == "save" and data.get("path") in ("line.yaml", "cards.yaml"):
            data["path"] = "written.yaml"  # the games the test plays stay as they are
        status, answer = served(name, **dict(data, games=1) if name == "simulate" else data)
        assert status in (200, 400, 403, 404, 413, 503) and "internal" not in answer, (name, data, answer)
