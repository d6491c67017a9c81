"""The balance report in the playground: a simulation's games and a results file of the served folder give the
HTML page `rulesdsl report --format html` writes, counted by hand here, with every text from the files escaped."""

from __future__ import annotations

import json
import re
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from starlette.testclient import TestClient  # noqa: E402

from rulesdsl.serve.app import create_app  # noqa: E402
from rulesdsl.sim.report import analyse  # noqa: E402
from rulesdsl.sim.report_html import render  # noqa: E402

from .helpers import game_lines, run_cli as run  # noqa: E402

# A coin is tossed, then heads (who always decides first) calls: heads wins on a 1, tails on a 2. The variant
# (named by each test) makes heads win every game.
TOSS = """\
game: Toss
players: {{count: 2, names: [heads, tails]}}
vars:
  coin: 0
  done: 0
variants:
  {variant}:
    description: heads wins every game
    changes:
      end:
        - when: "done == 1"
          winners: "[0]"
moves:
  call:
    notation: call
    do: ["done = 1"]
flow:
  steps:
    toss:
      chance:
        draw: "1"
        from: "1..2"
        replace: true
        notation: "coin {{outcome}}"
        do:
          - if: "1 in outcome"
            then: ["coin = 1"]
      next: turn
    turn:
      moves: [call]
      next: end_turn
end:
  - when: "done == 1"
    winners: "[0] if coin == 1 else [1]"
"""
GAMES = 16
SECTIONS = ("Results per seat", "Game length and scores", "Charts", "Rule coverage")
HOSTILE = "<script>alert(1)</script>"


@pytest.fixture
def served(tmp_path):
    folder = tmp_path / "served"
    folder.mkdir()
    (folder / "toss.yaml").write_text(TOSS.format(variant="sure"), encoding="utf-8")
    # (the client's block ends the app, and with it the jails' children)
    with TestClient(create_app(folder, "toss.yaml"), base_url="http://127.0.0.1:8000") as client:

        def call(name, **data):
            response = client.post(f"/api/{name}", json=data)
            return response.status_code, response.json()
        call.folder = folder
        yield call


def simulated(served, **request) -> dict:
    """The finished simulation job of a playground request."""
    status, started = served("simulate", **request)
    assert status == 200, started
    for _ in range(600):
        status, job = served("simulation", simulation=started["simulation"])
        if job["report"] or job["error"]:
            return job
        time.sleep(0.05)
    raise AssertionError("the simulation did not finish")


def results_file(served, capsys, *args) -> list[dict]:
    """Run `rulesdsl simulate` on the served toss.yaml into runs.jsonl; its lines."""
    out = served.folder / "runs.jsonl"
    code, _, err = run(capsys, "simulate", str(served.folder / "toss.yaml"), "--games", str(GAMES), "--agents",
                       "random,random", "--quiet", "--out", str(out), *args)
    assert code == 0, err
    return game_lines(out)


def win_row(seat: str, wins: int) -> str:
    """The row of a seat in the report's win table (agent random, of GAMES games)."""
    return f'<tr><td>{seat}</td><td>random</td><td class="n">{wins}</td><td>{wins / GAMES:.1%}</td>'


def without_origin(page: str) -> str:
    """The page without its one paragraph naming where the games and rules came from."""
    origin = re.compile(r"<p>[\d,]+ games from <code>.*?</code>, played with <code>.*?</code>")
    assert len(origin.findall(page)) == 1
    return origin.sub("", page)


def test_a_simulation_shows_the_html_report_of_its_games(served, capsys):
    saved = (served.folder / "toss.yaml").read_text(encoding="utf-8")  # the editor's text, as saved
    job = simulated(served, path="toss.yaml", text=saved, games=GAMES, agents=["random", "random"], seed=3)
    assert job["error"] is None and job["done"] == GAMES and f"{GAMES} games in" in job["summary"]
    page = job["report"]
    assert page.startswith("<!DOCTYPE html>") and "<h1>Toss: balance report</h1>" in page
    assert all(f"<h2>{section}</h2>" in page for section in SECTIONS)
    assert "<h2>Variants compared</h2>" not in page  # one variant: nothing to compare
    assert f"<p>{GAMES} games from <code>a playground simulation</code>, played with <code>toss.yaml</code>" in page
    # the same run from the command line: the same games, so the same report but for where they came from
    lines = results_file(served, capsys, "--seed", "3")
    assert without_origin(page) == without_origin(render(analyse(str(served.folder / "runs.jsonl"))))
    # counted by hand from the games' moves: heads won the games whose coin came up 1
    won = sum(line["moves"] == ["coin 1", "call"] for line in lines)
    assert sum(line["moves"] == ["coin 2", "call"] for line in lines) == GAMES - won and 0 < won < GAMES
    assert win_row("heads", won) in page and win_row("tails", GAMES - won) in page
    assert f"the seat that decided first won {won / GAMES:.1%}" in page  # heads decides first in every game
    # every game is the toss and the call: 2 plies, so a mean of 2.00 and no spread
    assert "<td>(base rules)</td><td>game length</td>" \
           f'<td class="n">{GAMES}</td><td>2.00</td><td>[2.00, 2.00]</td><td>2</td><td>2 to 2</td>' in page


def test_the_report_reads_the_rules_the_simulation_played_not_the_saved_file(served):
    edited = TOSS.format(variant="sure").replace("names: [heads, tails]", "names: [sun, moon]")
    job = simulated(served, path="toss.yaml", text=edited, games=GAMES, agents=["random", "random"],
                    variant="sure")
    page = job["report"]
    assert "played with <code>toss.yaml (unsaved edits)</code>" in page
    assert win_row("sun", GAMES) in page and win_row("moon", 0) in page  # the variant: the first seat wins all
    assert "<h3>sure: 16 games</h3>" in page and "heads" not in page
    assert "heads" in (served.folder / "toss.yaml").read_text(encoding="utf-8")  # nothing was saved


def test_a_results_file_of_the_folder_opens_as_its_html_report(served, capsys):
    lines = results_file(served, capsys, "--seed", "5", "--variant", "sure")
    status, answer = served("report", path="runs.jsonl")
    assert status == 200
    page = answer["report"]
    code, printed, _ = run(capsys, "report", str(served.folder / "runs.jsonl"), "--format", "html")
    assert code == 0 and page == printed  # the page `rulesdsl report --format html` prints
    assert all(f"<h2>{section}</h2>" in page for section in SECTIONS)
    assert len(lines) == GAMES and win_row("heads", GAMES) in page and win_row("tails", 0) in page


def test_only_results_files_of_the_folder_are_reported_with_located_errors(served, capsys):
    (served.folder.parent / "runs.jsonl").write_text("{}\n", encoding="utf-8")
    for path, error in [("toss.yaml", "no results file (.jsonl) 'toss.yaml' in the served folder"),
                        ("missing.jsonl", "no results file (.jsonl) 'missing.jsonl' in the served folder"),
                        ("../runs.jsonl", "not a file of the served folder: '../runs.jsonl'")]:
        assert served("report", path=path) == (400, {"error": error})
    lines = results_file(served, capsys)
    # a results file naming a rule file outside its folder: that file is never read
    for line in lines:
        line["file"] = "/etc/passwd"
    (served.folder / "runs.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    status, answer = served("report", path="runs.jsonl")
    assert status == 400 and 'runs.jsonl:1: error: it names the rule file "/etc/passwd"' in answer["error"]
    assert "is not read" in answer["error"] in answer["error"]
    (served.folder / "runs.jsonl").write_text('{"file": \n', encoding="utf-8")
    status, answer = served("report", path="runs.jsonl")
    assert status == 400 and "runs.jsonl:1" in answer["error"] and "Traceback" not in answer["error"]


def test_names_from_rule_and_results_files_are_escaped_in_both_reports(served, capsys):
    (served.folder / "toss.yaml").write_text(TOSS.format(variant=json.dumps(HOSTILE)), encoding="utf-8")
    job = simulated(served, path="toss.yaml", games=4, agents=["random", "random"], variant=HOSTILE)
    lines = results_file(served, capsys, "--variant", HOSTILE)
    for line in lines:
        line["agents"] = ["<img src=x onerror=alert(2)>", "random"]
    (served.folder / "runs.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    status, answer = served("report", path="runs.jsonl")
    assert status == 200
    for page in (job["report"], answer["report"]):
        assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        # and should a text ever slip through, the page forbids scripts and fetching anything
        assert '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; ' \
               "style-src 'unsafe-inline'\">" in page
    assert "<img src=x" not in answer["report"] and "&lt;img src=x onerror=alert(2)&gt;" in answer["report"]
