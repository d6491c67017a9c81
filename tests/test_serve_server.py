"""Attacks on a real `rulesdsl serve` process, on 127.0.0.1: a flood of requests whose rule code never ends,
with simulations that never end, leaves the page answering within a second and the workers free again (the
rest are told to come back, 503); rule code that crashes the process, spins in one step of C code or fills memory
stops its jail, not the server, with a located error; and bodies too large are refused from their length or as
they stream in, never read whole."""

from __future__ import annotations

import http.client
import json
import re
import socket
import threading
import time
from collections import Counter

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

import rulesdsl  # noqa: E402

from .helpers import serving  # noqa: E402
from .test_serve_app import GAME  # noqa: E402
from .test_serve_attacks import FOREVER, SLOW  # noqa: E402

FLOOD = 45  # requests at once: more than the 40 threads the server once ran rule code in
# moves that crash the process (with the test's job: see serve_crash.py), compare two thousand pairs of
# million-item lists in one step of C code, fill memory a list of a million items at a time, and hash a tuple nested
# a million deep (which once crashed the process)
ATTACK = """\
game: Attack
players: {count: 2}
board: {cells: [a, b]}
vars: {total: 0}
moves:
  crash: {notation: crash, do: ["total = size(distinct('segfault' + str(turn)))"]}
  spin:
    notation: spin
    do: ["a = list(0..999999)", "b = list(0..999999)", "total = 1 if repeat(a, 20000) == repeat(b, 20000) else 0"]
  fill: {notation: fill, do: ["total = size([repeat(i, 999999) for i in 0..9999])"]}
  nest: {notation: nest, do: ["t = 0", {for: "i in 0..999999", do: ["t = (t,)"]}, "total = size(distinct([t, t]))"]}
  wait: {notation: wait}
flow:
  steps:
    play: {moves: [crash, spin, fill, nest, wait], next: end_turn}
end:
  - when: "false"
    winners: "[]"
"""
PAGE_SECONDS = 1.0  # the page must answer within this, however busy the workers are (the brief's deadline)
MB = 1024 * 1024


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The port of a real server on a folder with a plain game, one whose moves take for ever to list and one
    that never ends; budgets scaled down tenfold (the request's 30 s, the move's 5 s) so that the flood passes
    quickly."""
    folder = tmp_path_factory.mktemp("served")
    (folder / "line.yaml").write_text(GAME, encoding="utf-8")
    (folder / "slow.yaml").write_text(SLOW, encoding="utf-8")
    (folder / "forever.yaml").write_text(FOREVER, encoding="utf-8")
    with serving(str(folder), {"RULESDSL_TIME_SCALE": "0.1"}) as port:
        yield port


def _post(port: int, name: str, data: dict, cookie: str = "") -> tuple[int, dict, dict]:
    """(status, headers with lower-case names, answer) of an API request, sent with `cookie` (a client's)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request("POST", f"/api/{name}", json.dumps(data), {"Content-Type": "application/json",
                                                                      "Cookie": cookie})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, json.loads(response.read())
    finally:
        connection.close()


def _page_seconds(port: int) -> float:
    start = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", "/")
        response = connection.getresponse()
        assert response.status == 200 and b"rulesdsl playground" in response.read()
    finally:
        connection.close()
    return time.monotonic() - start


def test_45_requests_of_never_ending_rule_code_leave_the_page_answering(server):
    # two simulations that never end take the simulation threads, then the flood comes
    status, headers, _ = _post(server, "config", {})
    cookie = headers["set-cookie"].split(";")[0]
    simulations = [_post(server, "simulate", {"path": "forever.yaml", "games": 1000, "agents": ["random", "random"]},
                         cookie)[2]["simulation"] for _ in range(2)]
    answers = []
    request = {"path": "slow.yaml", "text": SLOW, "seats": ["human", "human"]}
    flood = [threading.Thread(target=lambda: answers.append(_post(server, "new", request))) for _ in range(FLOOD)]
    for thread in flood:
        thread.start()
    waits = []
    while any(thread.is_alive() for thread in flood) and len(waits) < 600:  # bounded: 600 looks at most
        waits.append(_page_seconds(server))
        time.sleep(0.05)
    for thread in flood:
        thread.join(120)
    assert len(answers) == FLOOD and len(waits) >= 3
    assert max(waits) < PAGE_SECONDS, sorted(waits)[-5:]
    statuses = Counter(status for status, _, _ in answers)
    assert set(statuses) <= {400, 503} and statuses[503] >= 1 and statuses[400] >= 1, statuses
    for status, headers, body in answers:
        assert "internal" not in body
        if status == 503:
            assert headers["retry-after"] == "2" and body["error"].endswith("try again in a moment")
        else:  # stopped by its budget, which names the rule that ran too long
            assert "took longer than" in body["error"], body
    status, _, view = _post(server, "new", {"path": "line.yaml", "seats": ["human", "human"]})
    assert status == 200 and view["legal"] == ["a1-b1"]  # the workers are free again
    for token in simulations:
        assert _post(server, "stop", {"simulation": token}, cookie)[0] == 200
    for token in simulations:
        for _ in range(200):
            job = _post(server, "simulation", {"simulation": token}, cookie)[2]
            if job["state"] != "running":
                break
            time.sleep(0.05)
        assert job["state"] == "stopped" and job["error"].startswith("the simulation was stopped")


def _raw(port: int, head: bytes, send_body) -> bytes:
    """What the server answers a request written by hand: `head`, then whatever send_body(socket) sends."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(head)
        try:
            send_body(s)
        except OSError:  # the server answered and closed the connection before all was sent: what is wanted
            pass
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
        return answer


def test_a_400_mb_body_is_refused_from_its_length_before_it_is_read(server):
    head = (b"POST /api/save HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 400000000\r\n\r\n")
    answer = _raw(server, head, lambda s: s.sendall(b'{"path": "line.yaml", "text": "'))  # and nothing more
    assert answer.startswith(b"HTTP/1.1 413 ")


def test_a_streamed_body_without_a_length_is_read_only_up_to_the_limit(server):
    head = (b"POST /api/save HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n")
    sent = []

    def stream(s):
        piece = b"x" * 65536
        for _ in range(20 * MB // len(piece)):  # 20 MB at most, stopped as soon as the server answers
            s.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
            sent.append(len(piece))
            s.setblocking(False)
            try:
                if s.recv(1, socket.MSG_PEEK):
                    return
            except BlockingIOError:
                pass
            finally:
                s.setblocking(True)
    answer = _raw(server, head, stream)
    assert answer.startswith(b"HTTP/1.1 413 ")
    assert sum(sent) < 10 * MB  # cut at 2 MB, with what the sockets held on the way


def test_a_length_that_is_no_number_is_refused(server):
    head = (b"POST /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: lots\r\n\r\n{}")
    assert _raw(server, head, lambda s: None).startswith(b"HTTP/1.1 400 ")


def test_rule_code_that_crashes_spins_in_c_or_fills_memory_stops_its_jail_not_the_server(tmp_path):
    (tmp_path / "attack.yaml").write_text(ATTACK, encoding="utf-8")
    where = rulesdsl.load_game(str(tmp_path / "attack.yaml")).rules.where  # where each move is written
    served = tmp_path / "served"
    served.mkdir()
    (served / "attack.yaml").write_text(GAME, encoding="utf-8")  # the attack is posted, not saved
    answers, process = {}, []

    def attacker(name: str, moves: list[str]) -> None:
        """One client's game of the posted attack, whose moves are played in turn."""
        status, headers, view = _post(port, "new", {"path": "attack.yaml", "text": ATTACK, "seats": ["human", "human"]})
        answers[name, "new"] = status, view
        for move in moves:
            answers[name, move] = _post(port, "move", {"session": view["session"], "move": move},
                                        headers["set-cookie"].split(";")[0])[::2]

    # the budgets scaled by a half: a move may take 2.5 s, and so may one step of C code
    with serving(str(served), {"RULESDSL_TIME_SCALE": "0.5"}, preload="tests.serve_crash", process=process) as port:
        clients = [threading.Thread(target=attacker, args=("first", ["spin", "crash", "wait"])),
                   threading.Thread(target=attacker, args=("second", ["fill", "nest", "crash", "wait"]))]
        for client in clients:  # both workers attacked at once
            client.start()
        waits = []
        while any(client.is_alive() for client in clients) and len(waits) < 1200:  # bounded: a minute at most
            waits.append(_page_seconds(port))
            time.sleep(0.05)
        for client in clients:
            client.join(120)
        assert process[0].poll() is None  # the server lives
    assert len(waits) >= 10 and max(waits) < PAGE_SECONDS, sorted(waits)[-5:]
    assert len(answers) == 9 and all(status != 500 for status, _ in answers.values()), answers
    said = {"crash": "a game of attack.yaml was stopped: its process crashed (SIGSEGV) (while move 'crash' (effects) "
                     "ran)",
            "spin": "a game of attack.yaml was stopped: one step of Python's own code ran for more than 2.5 s of "
                    "processor time (while move 'spin' (effects) ran)",
            # (filling memory takes time: on a busy machine the move's time budget may stop it first)
            "fill": ("rule 'fill' failed on turn 0: applying a move used more than the 2,048 MiB of memory allowed",
                     "rule 'fill' failed on turn 0: applying a move took longer than"),
            "nest": "rule 'nest' failed on turn 0: this value would nest more than 30 deep"}
    for (name, move), (status, body) in answers.items():
        if move in ("new", "wait"):  # the game plays on after each stop, its jail started again
            assert status == 200, (name, move, body)
            continue
        wanted = said[move] if isinstance(said[move], tuple) else (said[move],)
        assert status == 400 and "internal" not in body and any(w in body["error"] for w in wanted), (name, move, body)
        if "memory allowed" in body["error"]:  # the hint speaks of memory, not of a slow loop
            assert "builds values too large" in body["error"], body
        line = where(("moves", move)).line
        assert re.match(rf"(.*/)?attack\.yaml:{line}:\d+: error: ", body["error"]), (move, body)  # located
        if move in ("crash", "spin"):  # stopped by the jail, which says where
            assert body["location"]["file"] == "attack.yaml" and body["location"]["line"] == line, body
