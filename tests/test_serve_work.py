"""The playground's rule code as plain data (serve/work.py): what goes in and comes out survives pickling, as it
travels to and from the jails' children (every playground test runs its rule code in them)."""

from __future__ import annotations

import pickle

import pytest

pytest.importorskip("starlette")

from rulesdsl.serve import work  # noqa: E402

from .test_serve_app import GAME  # noqa: E402


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
