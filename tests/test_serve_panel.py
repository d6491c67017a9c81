"""The playground's status panel (scores, seats' variables, dice, chips, the last ply), its time travel through the
game being played, and the bundled games offered in a folder without rule files."""

from __future__ import annotations

import re

import pytest
import yaml

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from rulesdsl.api import load_game  # noqa: E402
from rulesdsl.engine.nodes import SIMULTANEOUS  # noqa: E402
from rulesdsl.engine.rng import Rng  # noqa: E402
from rulesdsl.loading import bundled_games  # noqa: E402
from rulesdsl.model.values import text_of  # noqa: E402
from rulesdsl.serve.app import create_app  # noqa: E402
from rulesdsl.serve.scene import Scene  # noqa: E402
from rulesdsl.sim.runner import random_step  # noqa: E402

BUNDLED = sorted(bundled_games())

# Each seat's points are its own secret; the score reads them
SECRET_POINTS = """\
game: Secret points
players: {count: 2, names: [north, south]}
board:
  grid: {columns: a, rows: 1}
vars:
  points: {per: player, visible: owner, init: "owner + 1"}
moves:
  add:
    notation: "add"
    do: ["points[me] += 2"]
flow:
  steps:
    play: {moves: [add], next: end_turn}
end:
  - when: "turn >= 3"
    winners: "[]"
scoring:
  score: "points[me]"
"""


@pytest.fixture
def served(tmp_path):
    """A server of an empty folder (the bundled games are opened read-only), with a file of its own beside it."""
    folder = tmp_path / "empty"
    folder.mkdir()
    with TestClient(create_app(folder), base_url="http://127.0.0.1:8000") as client:

        def call(name, **data):
            response = client.post(f"/api/{name}", json=data)
            return response.status_code, response.json()
        call.client, call.folder = client, folder
        yield call


def _declared(name: str) -> dict:
    """What a bundled game's rule file declares, read from its YAML (not through the engine)."""
    doc = yaml.safe_load(bundled_games()[name].read_text(encoding="utf-8"))
    hidden = set((doc.get("render") or {}).get("hide") or [])  # not drawn in the playground
    variables = {v: spec for v, spec in (doc.get("vars") or {}).items() if v not in hidden}
    per_seat = [v for v, spec in variables.items() if isinstance(spec, dict) and spec.get("per") == "player"]
    drawn = []  # `VAR = PARAM` in a chance step's outcomes
    for step in (doc.get("flow") or {}).get("steps", {}).values():
        outcomes = ((step or {}).get("chance") or {}).get("outcomes") or {}
        params = set(outcomes.get("params") or {})
        for statement in outcomes.get("do") or []:
            found = re.fullmatch(r"\s*(\w+)\s*=\s*(\w+)\s*", statement) if isinstance(statement, str) else None
            if found and found[1] in variables and found[2] in params and found[1] not in drawn:
                drawn.append(found[1])
    return {"scored": "score" in (doc.get("scoring") or {}), "per_seat": per_seat, "drawn": drawn}


def _value(state, name: str):
    rules = state.rules
    return next(value for holder, value in zip(rules.vars, state.vars) if holder.name == name)


def _play(served, view, moves: int) -> dict:
    for _ in range(moves):
        if not view["legal"]:
            break
        status, view = served("move", session=view["session"], move=view["legal"][-1])
        assert status == 200, view
    return view


@pytest.mark.parametrize("name", BUNDLED)
def test_each_bundled_game_s_panel_follows_its_state_ply_by_ply(name):
    """The panel of every position of a random game, compared with the state it shows."""
    game = load_game(name)
    declared = _declared(name)
    scene, state, rng = Scene(game.rules), game.new_initial_state(4), Rng(4)
    seen_dice = set()
    for _ in range(60):
        panel = scene.of(state, None)["panel"]
        assert [s["name"] for s in panel["seats"]] == game.player_names
        who = state.current_player()
        acting = state.acting_players() if who == SIMULTANEOUS else [who] if who >= 0 else []
        assert [s["seat"] for s in panel["seats"] if s["to_move"]] == list(acting)
        assert panel["scored"] == declared["scored"]
        scores = state.scores() if declared["scored"] else [None] * game.num_players
        assert [s["score"] for s in panel["seats"]] == scores
        for seat in panel["seats"]:
            assert [v["name"] for v in seat["values"]] == declared["per_seat"]
            for v in seat["values"]:
                assert v["text"] == text_of(_value(state, v["name"])[seat["seat"]])
        assert [d["name"] for d in panel["dice"]] == declared["drawn"]
        for die in panel["dice"]:
            value = _value(state, die["name"])
            face = die["faces"][0]
            assert face.get("blank", False) == (value is None)
            if value is not None:
                assert face["text"] == text_of(value)
                seen_dice.add(die["name"])
        for chips in panel["chips"]:
            value = _value(state, chips["name"])
            assert [c["text"] for c in chips["items"]] == [text_of(v) for v in value] and chips["count"] == len(value)
        assert set(panel["shown"]) == set(declared["per_seat"] + declared["drawn"]
                                          + [c["name"] for c in panel["chips"]])
        if state.terminal:
            break
        random_step(state, rng)
    assert seen_dice == set(declared["drawn"])  # each die was rolled, and shown, in these plies


@pytest.mark.parametrize("name", BUNDLED)
def test_each_bundled_game_s_status_fields_through_the_server(served, name):
    status, view = served("new", path=f"{name}.yaml", bundled=True, seed=3)
    assert status == 200, view
    view = _play(served, view, 3)
    panel, declared = view["panel"], _declared(name)
    assert [s["name"] for s in panel["seats"]] == [p["name"] for p in view["players"]]
    assert panel["scored"] == declared["scored"]
    if declared["scored"]:  # every place of these games is seen by all: the scores are shown as play goes
        assert all(isinstance(s["score"], int) for s in panel["seats"]) and panel["score_note"] is None
    assert [[v["name"] for v in s["values"]] for s in panel["seats"]] == [declared["per_seat"]] * len(panel["seats"])
    assert [d["name"] for d in panel["dice"]] == declared["drawn"]
    to_move = [s["name"] for s in panel["seats"] if s["to_move"]]
    if view["legal"]:  # a human seat chooses: the status names the seat the panel marks
        assert len(to_move) >= 1 and to_move[0] in view["status"]
    assert view["ply"] == view["plies"] == len(view["history"])
    assert panel["last"]["text"] == view["history"][-1]
    names = {c["name"] for c in view["cells"]}
    assert set(panel["last"]["cells"]) <= names


def test_the_last_ply_s_cells_are_those_whose_pieces_changed(served):
    status, view = served("new", path="mabula.yaml", bundled=True, seed=0, seats=["human", "human"])
    before = {(p["cell"], p["level"]): p["text"] for p in view["pieces"]}
    move = view["legal"][0]
    status, view = served("move", session=view["session"], move=move)
    after = {(p["cell"], p["level"]): p["text"] for p in view["pieces"]}
    changed = {cell for (cell, _), _ in set(before.items()) ^ set(after.items())}
    assert view["panel"]["last"] == {"text": move, "cells": [view["cells"][c]["name"] for c in sorted(changed)]}
    assert move.split("-")[0] in view["panel"]["last"]["cells"]  # the pushed marble left its edge cell


def test_a_score_reading_hidden_places_is_shown_only_at_the_end(served):
    (served.folder / "secret.yaml").write_text(SECRET_POINTS, encoding="utf-8")
    status, view = served("new", path="secret.yaml", seed=0, seats=["human", "human"])
    panel = view["panel"]
    assert [s["score"] for s in panel["seats"]] == [None, None] and "hidden" in panel["score_note"]
    assert [s["values"][0]["text"] for s in panel["seats"]] == ["1", "(hidden)"]
    while view["legal"]:
        status, view = served("move", session=view["session"], move="add")
    assert [s["score"] for s in view["panel"]["seats"]] == [5, 6] and view["panel"]["score_note"] is None


# -- time travel --------------------------------------------------------------------------------------------
def _game(served, seed=0):
    status, view = served("new", path="mabula.yaml", bundled=True, seed=seed)
    assert status == 200, view
    return view


def test_stepping_back_and_forward_shows_earlier_positions_without_changing_the_game(served):
    view = _play(served, _game(served), 3)
    token, end, history = view["session"], view["plies"], view["history"]
    seen = []
    for ply in range(end + 1):
        status, back = served("state", session=token, at=ply)
        assert status == 200 and back["ply"] == ply and back["plies"] == end
        assert back["history"] == history[:ply]
        seen.append(sorted((p["cell"], p["text"]) for p in back["pieces"]))
    assert all(a != b for a, b in zip(seen, seen[1:]))  # every ply changed the board
    assert seen[0] == []  # before the setup
    status, now = served("state", session=token)
    assert now["plies"] == end and now["history"] == history and now["legal"] == view["legal"]


def test_a_move_at_an_earlier_position_drops_the_later_plies_as_undo_does(served):
    first = _play(served, _game(served), 1)
    token, point = first["session"], first["plies"]  # white chose here
    view = _play(served, first, 2)
    assert view["plies"] > point
    status, back = served("state", session=token, at=point)
    assert back["legal"] == first["legal"] and back["to_move"] == 0
    other = back["legal"][0]  # not the move played there before (the last of the list)
    assert other != view["history"][point]
    status, branched = served("move", session=token, at=point, move=other)
    assert status == 200, branched
    assert branched["history"][:point + 1] == first["history"] + [other]
    assert branched["ply"] == branched["plies"]
    status, undone = served("undo", session=token)  # undo goes back to the position played from
    assert undone["history"] == first["history"] and undone["legal"] == first["legal"]


def test_only_a_position_where_a_human_seat_chose_can_be_played_from(served):
    view = _play(served, _game(served), 2)
    token = view["session"]
    status, answer = served("move", session=token, at=0, move=view["legal"][0])
    assert status == 400 and "no human seat chooses at this position" in answer["error"]
    status, now = served("state", session=token)
    assert now["history"] == view["history"]  # unchanged


def test_a_click_at_an_earlier_position_that_plays_nothing_changes_nothing(served):
    first = _play(served, _game(served), 1)
    token, point = first["session"], first["plies"]
    view = _play(served, first, 1)
    source = first["legal"][0].split("-")[0]
    status, clicked = served("click", session=token, at=point, cells=[source])
    assert status == 200 and clicked["click"]["next"] and clicked["ply"] == point
    status, now = served("state", session=token)
    assert now["history"] == view["history"]


# -- a folder without rule files ----------------------------------------------------------------------------
def test_an_empty_folder_lists_the_bundled_games_and_opens_them_read_only(served):
    status, config = served("config")
    assert config["rules"] == [] and config["bundled"] == sorted(p.name for p in bundled_games().values())
    status, read = served("read", path="mark.yaml", bundled=True)
    assert read["text"] == bundled_games()["mark"].read_text(encoding="utf-8")
    status, saved = served("save", path="mark.yaml", bundled=True, text=read["text"] + "# mine\n")
    assert status == 200 and saved["copy"] == str(served.folder / "mark.yaml")
    assert (served.folder / "mark.yaml").read_text(encoding="utf-8").endswith("# mine\n")
    assert bundled_games()["mark"].read_text(encoding="utf-8") == read["text"]  # the bundled file is as it was
    status, again = served("save", path="mark.yaml", bundled=True, text="x")
    assert status == 400 and "is there already" in again["error"]
    assert served("config")[1]["rules"] == ["mark.yaml"]
    status, outside = served("read", path="../pyproject.toml", bundled=True)
    assert status == 400 and "not a file of the served folder" in outside["error"]
    status, flag = served("read", path="mark.yaml", bundled="yes")
    assert status == 400 and "'bundled' should be true or false" in flag["error"]


def test_the_tutorial_is_served_as_text(served):
    answer = served.client.get("/tutorial")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/plain")
    assert "tutorial" in answer.text.lower()


@pytest.mark.parametrize("at", [-1, -5, "x", 1.5])
def test_a_position_that_is_no_position_is_refused(served, at):
    view = _play(served, _game(served), 3)
    status, back = served("state", session=view["session"], at=at)
    assert status == 400 and "'at' should be" in back["error"]
    status, now = served("state", session=view["session"])
    assert status == 200 and now["plies"] == view["plies"]  # the game is as it was
