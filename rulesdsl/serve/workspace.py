"""What the playground serves, without the web: the folder's files, validation, games, replays, simulations."""

from __future__ import annotations

import itertools
import json
import os
import threading
from pathlib import Path

from ..engine.load import compile_game
from ..errors import Location, MoveError, Problem, RulesDslError, RulesError, UsageError
from ..findings import FileReport, as_json
from ..limits import MAX_FILE_BYTES
from ..loading import load_document, with_variant
from ..overrides import override_problems
from ..sim.compare import BASE
from ..sim.log import read_log, replay_positions
from ..sim.records import numbered_results
from ..sim.report import analyse, analysed
from ..sim.report_html import render
from ..sim.simulate import RunSpec, simulate
from .scene import Scene
from .session import Session

RULE_SUFFIXES = (".yaml", ".yml")
LOG_SUFFIXES = (".json", ".jsonl")
MAX_LISTED = 500  # files listed from the folder, of each kind
MAX_WALKED = 20_000  # entries of the folder looked at to list them
MAX_KEPT = 32  # games, replays and simulations kept at once (the oldest is dropped)
MAX_SIMULATED = 10_000  # games one simulation may play


class Refused(Exception):
    """A request the playground refuses (a path outside the folder, an unknown game): told to the browser."""


class Workspace:
    """The playground of one folder: only files under it are read or written; every rule file is loaded as
    untrusted input (sandboxed compiled code, under the time and memory budgets)."""

    def __init__(self, folder: str | Path):
        self.root = Path(folder).resolve()
        self._ids = itertools.count(1)
        self.sessions: dict[int, Session] = {}
        self.replays: dict[int, tuple] = {}  # id -> (scene, positions)
        self.simulations: dict[int, dict] = {}
        self._lock = threading.Lock()

    # -- files ---------------------------------------------------------------------------------
    def path(self, relative: str) -> Path:
        """The file `relative` names under the folder; Refused for an absolute path or one leading out of it
        (through '..' or a symbolic link)."""
        if not relative or Path(relative).is_absolute() or "\\" in relative or "\0" in relative:
            raise Refused(f"not a file of the served folder: {relative!r}")
        path = (self.root / relative).resolve()
        if not path.is_relative_to(self.root):
            raise Refused(f"not a file of the served folder: {relative!r}")
        return path

    def files(self) -> dict:
        """The rule files and the logs or results files under the folder (relative paths, in folder order),
        hidden folders and node_modules left out; a walk of at most MAX_WALKED entries (a home folder is big)."""
        rules, logs, walked = [], [], 0
        for folder, subfolders, names in os.walk(self.root):  # links to folders are not followed
            subfolders[:] = sorted(d for d in subfolders if not d.startswith(".") and d != "node_modules")
            walked += len(names) + len(subfolders)
            for name in sorted(names):
                path = Path(folder) / name
                found = rules if path.suffix in RULE_SUFFIXES else logs if path.suffix in LOG_SUFFIXES else None
                if found is None or name.startswith(".") or len(found) >= MAX_LISTED or \
                        not path.resolve().is_relative_to(self.root):  # a link out of the folder
                    continue
                found.append(path.relative_to(self.root).as_posix())
            if walked > MAX_WALKED:
                break
        return {"rules": rules, "logs": logs}

    def read(self, relative: str) -> str:
        path = self.path(relative)
        if path.suffix not in RULE_SUFFIXES or not path.is_file():
            raise Refused(f"no rule file {relative!r} in the served folder")
        data = path.read_bytes()[:MAX_FILE_BYTES + 1]
        return data.decode("utf-8", "replace")

    def save(self, relative: str, text: str) -> None:
        """Write a rule file under the folder (the editor's Save)."""
        path = self.path(relative)
        if path.suffix not in RULE_SUFFIXES:
            raise Refused("only rule files (.yaml) are saved")
        if len(text.encode("utf-8")) > MAX_FILE_BYTES:
            raise Refused(f"the text is larger than {MAX_FILE_BYTES:,} bytes")
        path.write_text(text, encoding="utf-8")

    # -- validation and games ------------------------------------------------------------------
    def validate(self, relative: str, text: str, variant: str | None = None, options: dict | None = None) -> dict:
        """The problems `validate` reports for the edited text (file, line, column, code, severity, message,
        hint), and what the game offers (players, variants, options) when it compiles."""
        report = FileReport(relative)
        game = None
        try:
            game, doc = self._compile(relative, text, variant, options)
            report.summary = game.summary()
            report.problems += override_problems(with_variant(doc, variant))
        except RulesError as exc:
            report.problems += exc.problems
        except RulesDslError as exc:  # a budget or limit met while loading
            report.problems.append(Problem(str(exc), Location(relative), code="limit_exceeded"))
        found = json.loads(as_json([report]))["files"][0]
        here = str(self.path(relative))
        for problem in found["problems"]:  # located in the edited text, or in another file (an overlay's base)
            problem["here"] = problem["file"] in (here, relative)
            problem["file"] = relative if problem["here"] else Path(problem["file"]).name
        if game is not None:
            rules = game.rules
            found["game"] = {"name": game.name, "players": game.player_names, "variants": rules.variants,
                             "options": {k: {f: v for f, v in (spec or {}).items() if f in ("default", "choices",
                                                                                         "type", "help")}
                                         for k, spec in rules.option_specs.items()}}
        return found

    def new_game(self, relative: str, text: str | None, seed: int, seats: list[str], variant: str | None = None,
                 options: dict | None = None) -> tuple[int, Session]:
        """A new game of the (edited) rule file; RulesError if it does not compile, UsageError for bad seats."""
        game, _ = self._compile(relative, text, variant, options)
        session = Session(game, seed, seats)
        return self._keep(self.sessions, session), session

    def session(self, number: int) -> Session:
        try:
            return self.sessions[number]
        except KeyError:
            raise Refused("no such game (the server was restarted?): start a new game") from None

    def _compile(self, relative: str, text: str | None, variant, options):
        path = self.path(relative)
        if path.suffix not in RULE_SUFFIXES:
            raise Refused(f"{relative!r} is no rule file (.yaml)")
        if text is not None and len(text.encode("utf-8")) > MAX_FILE_BYTES:
            raise RulesError([Problem(f"the file is larger than {MAX_FILE_BYTES:,} bytes", Location(relative),
                                      code="limit_exceeded", fields={"limit": "MAX_FILE_BYTES"})])
        doc = load_document(path, text=text if text is not None else self.read(relative))
        return compile_game(doc, path, variant, options or {}), doc

    # -- replays -------------------------------------------------------------------------------
    def replay(self, relative: str, index: int = 0) -> tuple[int, int]:
        """Open a game log, or game `index` of a results file: (replay id, number of positions)."""
        path = self.path(relative)
        if path.suffix not in LOG_SUFFIXES or not path.is_file():
            raise Refused(f"no log or results file {relative!r} in the served folder")
        if path.suffix == ".jsonl":
            lines = [line for _, line in numbered_results(path)]
            if not 0 <= index < len(lines):
                raise Refused(f"{relative} holds {len(lines)} games: choose 0 to {len(lines) - 1}")
            log = lines[index]
        else:
            log = read_log(path)
        game, positions = replay_positions(log, str(path))
        return self._keep(self.replays, (Scene(game.rules), positions)), len(positions)

    def replay_view(self, number: int, ply: int) -> dict:
        try:
            scene, positions = self.replays[number]
        except KeyError:
            raise Refused("no such replay: open the log again") from None
        ply = max(0, min(ply, len(positions) - 1))
        state = positions[ply]
        view = scene.of(state, None)
        history = state.history_texts()
        view.update(ply=ply, plies=len(positions) - 1, history=history, told=history[-1:], legal=[])
        return view

    def report(self, relative: str) -> str:
        """The HTML balance report of a results file (`rulesdsl report --format html`), read with the rule file
        it names (which must lie beside it, or be a bundled game: see records.rules_named_by)."""
        path = self.path(relative)
        if path.suffix != ".jsonl" or not path.is_file():
            raise Refused(f"no results file (.jsonl) {relative!r} in the served folder")
        return render(analyse(str(path)))

    # -- simulations ---------------------------------------------------------------------------
    def simulate(self, relative: str, text: str | None, games: int, agents: list[str], seed: int = 0,
                 variant: str | None = None, options: dict | None = None) -> int:
        """Start a batch of games in the background; its progress, summary and HTML report come from
        simulation(). The report reads the games with the rules they were played with (maybe unsaved text)."""
        if not 1 <= games <= MAX_SIMULATED:
            raise Refused(f"simulate 1 to {MAX_SIMULATED:,} games")
        game, _ = self._compile(relative, text, variant, options)
        if len(agents) != game.num_players:
            raise UsageError(f"{game.name} has {game.num_players} players: name one agent per seat")
        Session(game, seed, agents)  # checks the agents' names before the thread starts
        job = {"done": 0, "games": games, "summary": None, "report": None, "error": None}
        spec = RunSpec(str(self.path(relative)), variant, tuple(sorted((options or {}).items())), None,
                       tuple(agents), seed)
        number = self._keep(self.simulations, job)
        unsaved = text is not None and (not self.path(relative).is_file() or text != self.read(relative))
        played_with = f"{relative} (unsaved edits)" if unsaved else relative
        threading.Thread(target=_run, args=(job, spec, game, played_with), daemon=True,
                         name=f"simulation {number}").start()
        return number

    def simulation(self, number: int) -> dict:
        try:
            return dict(self.simulations[number])
        except KeyError:
            raise Refused("no such simulation") from None

    def _keep(self, table: dict, value) -> int:
        with self._lock:
            number = next(self._ids)
            table[number] = value
            while len(table) > MAX_KEPT:
                del table[next(iter(table))]
        return number


class _Counter:
    """Where simulate() writes each finished game's line: counted for the progress bar, kept for the report."""

    def __init__(self, job: dict):
        self.job, self.lines = job, []

    def write(self, text: str) -> None:
        self.lines.append(text)
        self.job["done"] += 1

    def flush(self) -> None:
        pass


def _run(job: dict, spec: RunSpec, game, played_with: str) -> None:
    out = _Counter(job)
    try:
        summary = simulate(spec, job["games"], out, game=game)
        lines = [json.loads(line) for line in out.lines]
        job["summary"] = summary.format()
        job["report"] = render(analysed(lines, {spec.variant or BASE: game}, "a playground simulation", played_with))
    except (RulesDslError, MoveError) as exc:
        job["error"] = str(exc)
