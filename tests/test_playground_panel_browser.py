"""The playground's status panel, time travel and empty-folder page in a real browser (Debian's headless Chromium
driven by Playwright), each checked in the DOM and by a screenshot that must not be blank."""

from __future__ import annotations

import json
import shutil

import pytest

from rulesdsl.api import load_game
from rulesdsl.loading import bundled_games

from .helpers import serving
from .test_playground_browser import CHROMIUM, CHROMIUM_ARGS, MABULA_CELLS

sync_api = pytest.importorskip("playwright.sync_api")
Image = pytest.importorskip("PIL.Image")
np = pytest.importorskip("numpy")
pytest.importorskip("starlette")


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with sync_api.sync_playwright() as playwright:
        profile = tmp_path_factory.mktemp("chromium-profile")  # a fresh profile: nothing of another run
        context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 1000})
        yield context
        context.close()


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    """A server of a folder holding Mabula and MARK."""
    folder = tmp_path_factory.mktemp("games")
    for name in ("mabula", "mark"):
        shutil.copy(bundled_games()[name], folder / f"{name}.yaml")
    with serving(str(folder)) as port:
        yield f"http://127.0.0.1:{port}/"


def _open(browser, url: str, game: str | None = None):
    """A page of the playground at `url`, showing a new game of the bundled `game` (a file of the folder)."""
    page = browser.new_page()
    page.set_default_timeout(15_000)
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    if game is not None:
        if page.eval_on_selector("#file", "s => s.value") != f"{game}.yaml":
            page.select_option("#file", f"{game}.yaml")
        seats = json.dumps(load_game(game).player_names)  # the panel shows this game's seats: its game is on
        page.wait_for_function(f"JSON.stringify([...document.querySelectorAll('#seat-table tr.seat-row')]"
                               f".map(r => r.dataset.name)) === JSON.stringify({seats})")
        page.wait_for_selector(".legal-move")
    return page


def _screenshot(page, path, selector: str | None = None) -> float:
    """A screenshot saved at `path` (of the element `selector`, else of the page); the spread of its pixels' grey
    levels (0: one flat colour, nothing drawn)."""
    (page.locator(selector) if selector else page).screenshot(path=str(path))
    pixels = np.asarray(Image.open(path).convert("L"), dtype=float)
    return float(pixels.std())


def _pieces(page) -> list:
    return sorted(page.eval_on_selector_all("#board g.piece", "gs => gs.map(g => g.dataset.cell + g.textContent)"))


def test_the_panel_shows_seats_scores_money_and_the_dice_as_faces(browser, games, tmp_path):
    page = _open(browser, games, "mark")
    page.wait_for_selector(".legal-move")
    rows = page.locator("#seat-table tr.seat-row")
    assert rows.count() == 2
    names = [rows.nth(i).locator("td").first.text_content().lstrip("\u25b6 ") for i in range(2)]
    assert names == ["p1", "p2"]
    assert page.locator("#seat-table th").all_text_contents() == ["seat", "score", "money"]
    mover = page.locator("#seat-table tr.to-move td").first.text_content().lstrip("\u25b6 ")
    assert f"{mover} to play" in page.locator("#status").text_content()
    for i in range(2):  # a number in each seat's score and money
        assert all(cell.isdigit() for cell in rows.nth(i).locator("td").all_text_contents()[1:])
    # the dice rolled: drawn as faces, and said by the last roll in the history
    assert page.locator(".die-group > span").all_text_contents() == ["die_a", "die_b"]
    faces = page.eval_on_selector_all("svg.die", "ds => ds.map(d => d.dataset.face)")
    page.click("#play-panel summary")  # (folded, so the history shows further down)
    history = page.eval_on_selector_all("#history li", "ls => ls.map(l => l.textContent)")
    assert f"roll {faces[0]} {faces[1]}" in [h for h in history if h.startswith("roll")][-1:]
    # drawn in the panel, not listed again among the variables
    listed = page.eval_on_selector_all("#variables tr td:first-child", "ts => ts.map(t => t.textContent)")
    assert not {"die_a", "die_b"} & set(listed) and not any(t.startswith("money") for t in listed)
    assert page.locator("#last").text_content() == "last: " + history[-1]
    assert _screenshot(page, tmp_path / "panel.png", "#panel") > 10
    assert _screenshot(page, tmp_path / "page.png") > 10
    page.close()


def test_stepping_back_and_forward_changes_the_board_and_a_move_there_drops_the_rest(browser, games, tmp_path):
    page = _open(browser, games, "mabula")
    page.wait_for_selector(".legal-move")
    page.locator(".legal-move").first.click()  # the random agent answers
    page.wait_for_function("document.querySelector('#tt-text').textContent === 'position 3 of 3 (the game)'")
    now = _pieces(page)
    changed = page.eval_on_selector_all("#board g.cell.changed", "gs => gs.map(g => g.dataset.cell)")
    assert changed  # the agent's push, highlighted
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("document.querySelector('#tt-text').textContent.startsWith('position 2 of 3: looking back')")
    before = _pieces(page)
    assert before != now and page.locator(".legal-move").count() == 0  # the agent chose here: nothing to play
    assert _screenshot(page, tmp_path / "back.png") > 10
    page.click("#tt-back")
    page.wait_for_function("document.querySelector('#tt-text').textContent.startsWith('position 1 of 3')")
    assert page.locator("#tt-text").text_content().endswith("(a move here drops the later ones)")
    assert _pieces(page) != before
    page.keyboard.press("End")
    page.wait_for_function("document.querySelector('#tt-text').textContent === 'position 3 of 3 (the game)'")
    assert _pieces(page) == now  # the game was not changed by looking back
    page.keyboard.press("Home")
    page.wait_for_function("document.querySelector('#tt-text').textContent.startsWith('position 0 of 3')")
    assert page.locator("#board g.piece").count() == 0  # before the setup
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.querySelector('#tt-text').textContent.startsWith('position 1 of 3')")
    legal = page.locator(".legal-move").all_text_contents()
    other = legal[-1]
    page.click(f".legal-move:text-is('{other}')")  # played from here: the later plies give way
    page.wait_for_function("document.querySelector('#tt-text').textContent.endsWith('(the game)')")
    page.click("#play-panel summary")
    history = page.eval_on_selector_all("#history li", "ls => ls.map(l => l.textContent)")
    assert history[1] == other and len(history) == 3
    assert _screenshot(page, tmp_path / "played.png") > 10
    page.close()


def test_a_folder_without_rule_files_offers_the_bundled_games_and_the_tutorial(browser, tmp_path):
    folder = tmp_path / "nothing-here"
    folder.mkdir()
    with serving(str(folder)) as port:
        page = _open(browser, f"http://127.0.0.1:{port}/")
        assert page.locator("#empty").is_visible() and not page.locator("main").is_visible()
        assert "holds no rule file" in page.locator("#empty-text").text_content()
        buttons = page.locator(".open-bundled")
        assert sorted(buttons.evaluate_all("bs => bs.map(b => b.dataset.game)")) == \
            sorted(p.name for p in bundled_games().values())
        assert page.get_attribute("#tutorial", "href") == "/tutorial"
        assert _screenshot(page, tmp_path / "empty.png") > 5
        page.click(".open-bundled[data-game='mabula.yaml']")
        page.wait_for_selector(".legal-move")
        assert page.locator("#board g.cell").count() == MABULA_CELLS
        assert page.locator("#save").text_content() == "Save a copy"
        page.click("#save")
        page.wait_for_function("document.querySelector('#saved').textContent.startsWith('saved a copy')")
        assert (folder / "mabula.yaml").read_text(encoding="utf-8") == \
            bundled_games()["mabula"].read_text(encoding="utf-8")
        assert page.eval_on_selector("#file", "s => s.value") == "mabula.yaml"  # the copy is the file edited now
        assert page.locator("#save").text_content() == "Save"
        assert _screenshot(page, tmp_path / "opened.png") > 10
        page.close()
