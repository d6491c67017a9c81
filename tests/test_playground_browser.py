"""The playground in a real browser: headless Chromium (Debian's) driven by Playwright against `rulesdsl serve`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rulesdsl.cli import main
from rulesdsl.loading import bundled_games

from .helpers import serving

sync_api = pytest.importorskip("playwright.sync_api")
pytest.importorskip("starlette")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip("the chromium browser is not installed (apt-get install chromium)", allow_module_level=True)

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
MABULA_CELLS = 60  # an 8 x 8 grid without its corners
HOSTILE_AGENT = "<img src=x onerror=\"parent.document.body.dataset.pwned = 1\">"  # written into a results file


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The real server process on a free port, serving a folder with Mabula, a logged game of it and a results
    file of two games whose first agent's name is HTML."""
    folder = tmp_path_factory.mktemp("served")
    shutil.copy(bundled_games()["mabula"], folder / "mabula.yaml")
    assert main(["play", str(folder / "mabula.yaml"), "--seats", "random,random", "--seed", "2",
                 "--log", str(folder / "game.json")]) == 0
    runs = folder / "runs.jsonl"
    assert main(["simulate", str(folder / "mabula.yaml"), "--games", "2", "--agents", "random,random",
                 "--out", str(runs), "--quiet"]) == 0
    lines = [json.loads(line) for line in runs.read_text(encoding="utf-8").splitlines()]
    runs.write_text("".join(json.dumps(dict(line, agents=[HOSTILE_AGENT, "random"])) + "\n" for line in lines),
                    encoding="utf-8")
    with serving(str(folder / "mabula.yaml")) as port:
        yield f"http://127.0.0.1:{port}/", folder


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, served):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.set_default_timeout(10_000)
    page.goto(served[0])
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_selector(".legal-move")
    yield page
    page.close()


def test_the_board_is_drawn_and_a_legal_move_is_made_by_clicking(page):
    assert page.locator("#board g.cell").count() == MABULA_CELLS
    assert page.locator("#board g.piece").count() == 24  # the setup: 12 marbles each on the edge
    move = page.locator(".legal-move").first.text_content()
    source, target = move.split("-")
    page.click(f"#board g.cell[data-cell='{source}']")
    page.wait_for_selector(f"#board g.cell.target[data-cell='{target}']")  # the cells it may go to
    page.click(f"#board g.cell[data-cell='{target}']")
    page.wait_for_function(f"document.querySelector('#history').textContent.includes('{move}')")
    # the random agent answered: white is to play again
    page.wait_for_function("document.querySelector('#status').textContent.startsWith('turn 3: white')")
    assert page.locator("#message").text_content() == ""


def test_an_illegal_click_shows_the_rule_s_why(page):
    legal_sources = {m.split("-")[0] for m in page.locator(".legal-move").all_text_contents()}
    black = next(c.get_attribute("data-cell") for c in page.locator("#board g.cell").all()
                 if c.get_attribute("data-cell") in ("b1", "c1", "d1", "e1", "f1", "g1")
                 and c.get_attribute("data-cell") not in legal_sources)
    page.click(f"#board g.cell[data-cell='{black}']")
    page.wait_for_function("document.querySelector('#message').textContent !== ''")
    assert page.locator("#message").text_content() == \
        "illegal: only your own marbles that are still on the edge can be pushed"


def test_a_typo_in_the_editor_is_shown_at_its_line_and_character(page):
    line = page.locator(".cm-line", has_text='- "push(from, to)"')
    line.click()
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")  # before the closing quote
    page.keyboard.type("!")
    page.wait_for_selector("#problems li.error")
    problem = page.locator("#problems li.error").first.text_content()
    assert problem.startswith("mabula.yaml:66:")
    assert page.locator(".cm-lintRange-error").count() >= 1  # marked in the text
    # the game stays the last valid version: its board is still drawn
    assert page.locator("#board g.cell").count() == MABULA_CELLS


def test_a_logged_game_is_replayed_forwards_and_backwards(page):
    page.click("#replay-panel summary")
    page.select_option("#log", "game.json")
    page.click("#open-log")
    page.wait_for_function("document.querySelector('#ply-text').textContent.startsWith('position 0 of')")
    assert page.locator("#board g.piece").count() == 0  # before the setup
    page.click("#forward")
    page.wait_for_function("document.querySelector('#ply-text').textContent.startsWith('position 1 of')")
    assert page.locator("#board g.piece").count() == 24
    page.click("#forward")
    page.wait_for_function("document.querySelector('#ply-text').textContent.startsWith('position 2 of')")
    assert page.locator("#history li").count() == 2
    page.click("#back")
    page.wait_for_function("document.querySelector('#ply-text').textContent.startsWith('position 1 of')")
    assert page.locator("#history li").count() == 1


def test_a_simulation_runs_with_a_progress_bar_and_reports(page):
    page.click("#simulate-panel summary")
    page.fill("#sim-games", "4")
    page.click("#simulate")
    page.wait_for_selector("#sim-report pre", timeout=30_000)
    assert "4 games in" in page.locator("#sim-report pre").text_content()
    assert page.eval_on_selector("#sim-progress", "p => [p.value, p.max]") == [4, 4]
    # below it, the HTML report of those games: its win table counts each game once (no shared wins in Mabula)
    report = page.frame_locator("#report")
    assert report.locator("h1").text_content() == "Mabula: balance report"
    assert report.locator("h3").first.text_content() == "(base rules): 4 games"
    rows = report.locator("table").first.locator("tr")
    seats = [[rows.nth(i).locator("td").nth(k).text_content() for k in range(3)] for i in (1, 2, 4)]
    assert [seat for seat, _, _ in seats] == ["white", "black", "draws"]
    assert [agent for _, agent, _ in seats[:2]] == ["random", "random"]
    assert sum(int(wins) for _, _, wins in seats) == 4
    assert report.locator("img").count() == 3  # the charts, embedded


def test_a_results_file_s_report_opens_in_the_sandboxed_frame(page):
    page.click("#replay-panel summary")
    page.select_option("#log", "runs.jsonl")
    page.click("#open-report")
    report = page.frame_locator("#report")
    assert report.locator("h1").text_content() == "Mabula: balance report"
    assert report.locator("h3").first.text_content() == "(base rules): 2 games"
    # the agent's name is shown as text, never run; and the frame is of no origin: the page cannot be reached
    assert report.locator("table").first.locator("tr").nth(1).locator("td").nth(1).text_content() == HOSTILE_AGENT
    assert report.locator("img").count() == 3
    assert page.eval_on_selector("#report", "f => [f.getAttribute('sandbox'), f.contentDocument]") == ["", None]
    assert page.get_attribute("body", "data-pwned") is None and page.locator("#message").text_content() == ""


def test_a_long_simulation_is_stopped_from_the_page(page):
    page.click("#simulate-panel summary")
    page.fill("#sim-games", "10000")
    page.click("#simulate")
    page.wait_for_function("document.querySelector('#sim-progress').value > 0", timeout=30_000)
    page.click("#stop-sim")
    page.wait_for_function("document.querySelector('#sim-report').textContent.startsWith('the simulation was stopped')",
                           timeout=30_000)
    assert page.locator("#stop-sim").is_disabled()
    assert " of 10,000 games" in page.locator("#sim-report").text_content()
