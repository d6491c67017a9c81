"""The playground as a person meets it: a move's round trip, and how long the page takes while hostile rule files run.

Usage:  python benchmarks/playground.py [--moves 40] [--attack-seconds 8] [--checkout PATH]

A real `rulesdsl serve` process (of this checkout, or of --checkout) serves a folder holding the bundled games and
a hostile rule file. Each bundled game is played from a new game with a human at the first seat and random agents
at the others: every human move (chosen at random among the legal ones) is one `POST /api/move`, timed by the
clock from sending to the whole answer read, the agents' replies included. Then requests whose rule code spends
seconds inside one step of C code (comparing two thousand pairs of million-item lists) are sent again and again,
one per worker, while `GET /` is timed every 50 ms.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ["mabula", "mark", "fast-track", "marble-chase"]
# a move whose effects compare two thousand pairs of million-item lists: one step of C code of many seconds
ATTACK = """\
game: Attack
players: {count: 2}
board: {cells: [a, b]}
vars: {total: 0}
moves:
  go:
    notation: go
    do: ["a = list(0..999999)", "b = list(0..999999)", "total = 1 if repeat(a, 2000) == repeat(b, 2000) else 0"]
flow:
  steps:
    play: {moves: [go], next: end_turn}
end:
  - when: "false"
    winners: "[]"
"""


class Client:
    """One browser: its cookie, and a connection kept open."""

    def __init__(self, port: int):
        self.port, self.cookie = port, ""
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)

    def post(self, name: str, data: dict) -> tuple[int, dict, float]:
        """(status, answer, seconds by the clock) of one API request."""
        start = time.perf_counter()
        self.connection.request("POST", f"/api/{name}", json.dumps(data), {"Content-Type": "application/json",
                                                                           "Cookie": self.cookie})
        response = self.connection.getresponse()
        body = json.loads(response.read())
        seconds = time.perf_counter() - start
        cookie = response.getheader("set-cookie")
        if cookie:
            self.cookie = cookie.split(";")[0]
        return response.status, body, seconds


def page_seconds(port: int) -> float:
    start = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    try:
        connection.request("GET", "/")
        response = connection.getresponse()
        response.read()
        assert response.status == 200
    finally:
        connection.close()
    return time.perf_counter() - start


def moves(port: int, game: str, count: int, rng: random.Random) -> list[float]:
    """The round trips of up to `count` human moves of one game (a new game when one ends)."""
    client = Client(port)
    request = {"path": f"{game}.yaml", "seed": rng.randrange(10 ** 6)}  # a human, then random agents
    status, view, _ = client.post("new", request)
    assert status == 200, view
    took = []
    while len(took) < count:
        if not view["legal"]:
            status, view, _ = client.post("new", dict(request, seed=rng.randrange(10 ** 6)))
            continue
        status, view, seconds = client.post("move", {"session": view["session"], "move": rng.choice(view["legal"])})
        assert status == 200, view
        took.append(seconds)
    return took


def under_attack(port: int, seconds: float, workers: int) -> tuple[list[float], list[int]]:
    """GET / timed every 50 ms while `workers` clients post the attack again and again; (the page's times, the
    statuses of the attacks)."""
    statuses, stop = [], threading.Event()

    def attacker():
        client = Client(port)
        while not stop.is_set():
            status, _, _ = client.post("new", {"path": "attack.yaml", "seats": ["random", "random"]})
            statuses.append(status)

    threads = [threading.Thread(target=attacker) for _ in range(workers)]
    for thread in threads:
        thread.start()
    time.sleep(0.5)  # the attacks are under way
    waits, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        waits.append(page_seconds(port))
        time.sleep(0.05)
    stop.set()
    for thread in threads:
        thread.join()
    return waits, statuses


def summary(times: list[float]) -> str:
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return (f"median {statistics.median(ordered) * 1000:7.1f} ms   90% {p90 * 1000:7.1f} ms   "
            f"max {ordered[-1] * 1000:7.1f} ms   ({len(ordered)})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=40, help="human moves timed per game")
    parser.add_argument("--attack-seconds", type=float, default=8.0, help="how long the page is timed under attack")
    parser.add_argument("--checkout", default=str(ROOT), help="the rulesdsl checkout whose server is measured")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="rulesdsl-playground-"))
    for game in GAMES:
        shutil.copy(ROOT / "games" / f"{game}.yaml", folder)
    (folder / "attack.yaml").write_text(ATTACK, encoding="utf-8")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=args.checkout)
    server = subprocess.Popen([sys.executable, "-m", "rulesdsl", "serve", str(folder), "--port", str(port)],
                              env=env, cwd=args.checkout,  # (-m looks in the current folder first)
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(400):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        rng = random.Random(args.seed)
        print(f"rulesdsl serve of {args.checkout}")
        print(f"GET / while idle          {summary([page_seconds(port) for _ in range(20)])}")
        for game in GAMES:
            print(f"a move of {game:<15} {summary(moves(port, game, args.moves, rng))}")
        waits, statuses = under_attack(port, args.attack_seconds, 2)
        print(f"GET / under attack        {summary(waits)}")
        print(f"  attacks answered: {dict(sorted({s: statuses.count(s) for s in statuses}.items()))}; "
              f"server alive: {server.poll() is None}")
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
