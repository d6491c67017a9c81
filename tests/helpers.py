"""Shared test helpers: paths, bundled games, positions built from compact descriptions, a real playground server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import rulesdsl
from rulesdsl.ir.lower import Lowerer
from rulesdsl.lang import ast as A

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "games"
SEALED = str(ROOT / "examples" / "games" / "sealed-bids.yaml")  # a small game of simultaneous secret bids


def lowered(node, scope):
    """An expression's or statement's AST lowered to the IR where `scope` holds the compiler's names, as the model
    compiler lowers what it compiles: what the Python backend prints and the type pass types."""
    lowerer = Lowerer((), {}, scope)
    return lowerer.stmt(node) if isinstance(node, (A.Assign, A.CallStmt)) else lowerer.expr(node)


def game_path(name: str) -> str:
    return str(GAMES / f"{name}.yaml")


def load(name: str, **kwargs):
    return rulesdsl.load_game(game_path(name), **kwargs)


def position(game, cells: dict, step: str, player: int = 0, zones: dict | None = None, vars: dict | None = None,
             ply: int = 1, turn: int = 0):
    """A state with the given pieces (cell name -> piece JSON), built through the public JSON format."""
    data = game.new_initial_state().to_json()
    data.update(cells=cells, step=step, player=player, ply=ply, turn=turn, history=[])
    if zones is not None:
        data["zones"].update(zones)
    if vars is not None:
        data["vars"].update(vars)
    return game.state_from_json(data)


def notations(moves) -> list[str]:
    return sorted(str(m) for m in moves)


def run_cli(capsys, *argv):
    """Run the rulesdsl command; (exit code, stdout, stderr), and never a traceback."""
    from rulesdsl.cli import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def revealed(game, prize: str = "prize 4"):
    """A sealed-bids state with its prize drawn: the players are to bid at once."""
    state = game.new_initial_state()
    assert state.current_player() == rulesdsl.CHANCE
    state.apply(prize)
    return state


@contextmanager
def serving(target: str, env: dict | None = None, preload: str | None = None, process: list | None = None):
    """The port of a real `rulesdsl serve TARGET` process of this checkout on 127.0.0.1 (with `env` added to
    its environment, and the module `preload` imported first: a job only tests register), ended when the block
    ends. `process`, if given, receives the server's Popen."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    environment = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
                       **(env or {}))
    command = ["-m", "rulesdsl"]
    if preload:
        command = ["-c", f"import sys, {preload}; from rulesdsl.cli import main; sys.exit(main(sys.argv[1:]))"]
    server = subprocess.Popen([sys.executable, *command, "serve", target, "--port", str(port)],
                              env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if process is not None:
        process.append(server)
    try:
        for _ in range(400):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                assert server.poll() is None, server.stdout.read().decode()
                time.sleep(0.05)
        yield port
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:  # a server that cannot answer a signal (held in a step of C code)
            server.kill()
            server.wait(10)


def game_lines(path) -> list[dict]:
    """The games of a results file, each line as JSON (the rules lines it carries left out)."""
    rows = [json.loads(row) for row in Path(path).read_text(encoding="utf-8").splitlines() if row.strip()]
    return [row for row in rows if "rulesdsl_rules" not in row]


def game_rows(path) -> list[str]:
    """The text of each game line of a results file (the rules lines left out), with their newlines."""
    return [row for row in Path(path).read_text(encoding="utf-8").splitlines(keepends=True)
            if not row.startswith('{"rulesdsl_rules"')]


def burn(seconds: float) -> str:
    """Use `seconds` of processor time, then say 'read'."""
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return "read"


class SlowToRead:
    """A job's argument whose reading in a jail's child takes `seconds` of processor time, as a new child's start
    may; it is read as 'read'."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def __reduce__(self):
        return burn, (self.seconds,)
