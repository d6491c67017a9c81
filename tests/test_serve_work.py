"""The playground's rule code as plain data (serve/work.py): what goes in and comes out survives pickling, and
the whole playground works with its rule code run in another process, as a pool of jails will run it."""

from __future__ import annotations

import multiprocessing
import pickle
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from rulesdsl.cli import main  # noqa: E402
from rulesdsl.serve import work  # noqa: E402
from rulesdsl.serve.caps import Caps  # noqa: E402

from .test_serve_app import GAME  # noqa: E402
from .test_serve_attacks import make_served  # noqa: E402


class InChild:
    """An executor with the interface the runner expects, running each job in a spawned child process."""

    def __init__(self):
        self.pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))

    def run(self, fn, /, *args, seconds: float, what: str):
        return self.pool.submit(fn, *args).result(timeout=120)

    def cancel(self) -> None:
        raise AssertionError("nothing is cancelled here")

    def close(self) -> None:
        self.pool.shutdown()


def test_what_crosses_the_seam_pickles(tmp_path):
    path = tmp_path / "line.yaml"
    path.write_text(GAME, encoding="utf-8")
    source = work.Source(str(path), "line.yaml", GAME)
    assert pickle.loads(pickle.dumps(source)) == source
    found = work.check(source)
    assert pickle.loads(pickle.dumps(found)) == found and found["game"]["players"] == ["cross", "nought"]
    step = work.game_action(source, 0, ("human", "human"), None, "state", None, None, False)
    again = pickle.loads(pickle.dumps(step))
    assert again == step and again["record"] == {"plies": [], "humans": [], "since": 0}
    moved = work.game_action(source, 0, ("human", "human"), step["record"], "move", "a1-b1", None, False)
    assert moved["record"]["plies"] == ["a1-b1"] and moved["view"]["status"] == "winner: cross"


def test_the_playground_runs_with_its_rule_code_in_another_process(tmp_path):
    (tmp_path / "line.yaml").write_text(GAME, encoding="utf-8")
    assert main(["play", str(tmp_path / "line.yaml"), "--seats", "random,random", "--log",
                 str(tmp_path / "game.json")]) == 0
    served = make_served(tmp_path, make=InChild, caps=Caps(workers=1))
    status, found = served("validate", path="line.yaml", text=GAME)
    assert status == 200 and found["ok"]
    status, view = served("new", path="line.yaml", seats=["human", "human"])
    assert status == 200 and view["legal"] == ["a1-b1"]
    status, view = served("move", session=view["session"], move="a1-b1")
    assert view["history"] == ["a1-b1"] and view["status"] == "winner: cross"
    status, view = served("undo", session=view["session"])
    assert view["history"] == [] and view["legal"] == ["a1-b1"]
    status, view = served("replay", path="game.json")
    assert status == 200 and view["plies"] == 1
    status, started = served("simulate", path="line.yaml", games=5, agents=["random", "random"])
    for _ in range(600):
        job = served("simulation", simulation=started["simulation"])[1]
        if job["state"] != "running":
            break
        time.sleep(0.05)
    assert job["state"] == "done" and job["done"] == 5 and "5 games in" in job["summary"]
