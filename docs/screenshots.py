"""Screenshots of each bundled game in the playground, for the README (docs/img/playground-<game>.png).

Run from the repository root with the extra 'serve' and Playwright installed and Debian's chromium:
python docs/screenshots.py. The page is driven as the browser tests drive it; the games are set up from seed 1
with random agents at every seat but the first, and a few moves played so that pieces stand on the board."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from rulesdsl.loading import bundled_games

ROOT = Path(__file__).resolve().parent
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]
MOVES = 6  # moves the first seat makes (the first legal move each time) before the picture


def main() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    folder = next(iter(bundled_games().values())).parent
    server = subprocess.Popen([sys.executable, "-m", "rulesdsl", "serve", str(folder), "--port", str(port)])
    try:
        time.sleep(2)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = browser.new_page(viewport={"width": 1500, "height": 1000})
            for name in bundled_games():
                page.goto(f"http://127.0.0.1:{port}/")
                page.wait_for_selector("body[data-ready='1']")
                page.select_option("#file", f"{name}.yaml")
                page.wait_for_function(f"document.querySelector('#status').textContent !== ''")
                page.fill("#seed", "1")
                page.click("#new")
                for _ in range(MOVES):
                    page.wait_for_timeout(300)
                    if page.locator(".legal-move").count():
                        page.locator(".legal-move").first.click()
                page.wait_for_timeout(500)
                page.screenshot(path=str(ROOT / "img" / f"playground-{name}.png"))
                print(f"docs/img/playground-{name}.png")
            browser.close()
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
