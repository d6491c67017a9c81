"""Logs and results files read as untrusted data: parsed with limits, checked field by field. The rules they were
played with travel inside them (a rules line of a results file, a log's `rules`); a file without them names a rule
file, used only when it is a bundled game or lies in their own folder."""

from __future__ import annotations

import os
import stat
from itertools import count
from pathlib import Path

from ..bundle import RuleBundle, bundle_from_json, bundle_json
from ..engine.serialize import key_line, kind_of, parse_json, shown
from ..errors import Location, Problem, RulesError, UsageError
from ..limits import MAX_CARRIED_RULES, MAX_RESULTS_LINE_BYTES
from ..loading import bundled_games
from ..resources import package_dir

MAX_RETURN = 1e300  # the largest a game's returns may be in a results file (finite, and with room to add up)
LOG_FORMAT = 1  # the version of the game log format ("rulesdsl_log")
RULES_FORMAT = 1  # the version of a results file's rules line ("rulesdsl_rules")

MAX_SEED = 2 ** 64 - 1  # seeds are whole numbers of at most 20 digits
MAX_COUNT = 10 ** 12  # indices, plies, turns, rule counts
MAX_TEXT = 10_000  # longest move, agent or option text
RESULTS_HINT = "results files are written by 'rulesdsl simulate --out FILE', one JSON object per line"
LOG_HINT = "logs are written by 'rulesdsl play --log FILE'"
RULES_HINT = "give the rule file explicitly with --rules FILE"


# -- field checks: each returns None, or what is wrong as a phrase ('should be ..., not ...') -----------
def whole(low: int, high: int, what: str | None = None):
    """A check: a whole number in [low, high] (`what` describes the range in messages)."""
    what = what or f"a whole number from {low:,} to {high:,}"

    def check(value):
        if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
            return None
        return f"should be {what}, not {shown(value)}"
    return check


def text(limit: int = MAX_TEXT):
    """A check: a string of at most `limit` characters."""
    def check(value):
        if isinstance(value, str) and len(value) <= limit:
            return None
        got = f"{len(value):,} characters" if isinstance(value, str) else shown(value)
        return f"should be a string of at most {limit:,} characters, not {got}"
    return check


def flag(value):
    """A check: true or false."""
    return None if isinstance(value, bool) else f"should be true or false, not {shown(value)}"


def number(value):
    """A check: a number (not a boolean)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return None if ok else f"should be a number, not {shown(value)}"


def finite(value):
    """A check: a number (not a boolean) within a float's finite range, as a game's returns are."""
    if number(value) is not None:
        return number(value)
    return None if abs(value) <= MAX_RETURN else f"should be a finite number of at most {MAX_RETURN:g}, not " \
        f"{'a number beyond it' if value == value else 'NaN'}"


def anything(value):
    """A check that accepts any JSON value (already bounded in depth and size by the parser)."""
    return None


def optional(check):
    """A check that also accepts null."""
    return lambda value: None if value is None else check(value)


def list_of(check, what: str, limit: int | None = None):
    """A check: a list (of at most `limit` items) whose every item passes `check`."""
    def check_list(value):
        if not isinstance(value, list):
            return f"should be {what}, not {kind_of(value)}"
        if limit is not None and len(value) > limit:
            return f"should be {what} of at most {limit:,} items, not {len(value):,}"
        for i, item in enumerate(value):
            wrong = check(item)
            if wrong:
                return f"item {i + 1} {wrong}"
        return None
    return check_list


def exactly(n: int, check, what: str):
    """A check: a list of exactly `n` items, each passing `check`."""
    items = list_of(check, what, n)

    def check_list(value):
        if isinstance(value, list) and len(value) != n:
            return f"should be {what}, not a list of {len(value)}"
        return items(value)
    return check_list


def object_of(check, what: str):
    """A check: an object whose every value passes `check`."""
    def check_object(value):
        if not isinstance(value, dict):
            return f"should be {what}, not {kind_of(value)}"
        for key, item in value.items():
            wrong = check(item)
            if wrong:
                return f"entry {shown(key)} {wrong}"
        return None
    return check_object


def one_of(*checks, what: str):
    """A check that passes when any of `checks` does."""
    def check(value):
        if any(c(value) is None for c in checks):
            return None
        return f"should be {what}, not {shown(value)}"
    return check


SEED = whole(-MAX_SEED, MAX_SEED, "a whole number of at most 20 digits")
COUNT = whole(0, MAX_COUNT)
OPTIONS = object_of(one_of(text(1000), whole(-10 ** 18, 10 ** 18), flag,
                           what="a string, a whole number or true/false"), "an object of option values")
AGENTS = list_of(text(200), "a list of agent names", 64)
SEATS = list_of(whole(0, 63), "a list of seats")
MOVES = list_of(text(), "a list of moves in notation (strings)")

# name -> (check, required)
LINE_FIELDS = {
    "index": (COUNT, True), "game": (text(200), True), "file": (text(4096), True),
    "rules_sha256": (optional(text(64)), False),
    "variant": (optional(text(200)), False), "options": (optional(OPTIONS), False),
    "max_turns": (optional(whole(1, MAX_COUNT)), False), "run_seed": (optional(SEED), False),
    "seed": (SEED, True), "rng": (text(64), False), "agents": (AGENTS, True), "winners": (SEATS, True),
    "scores": (list_of(anything, "a list of scores", 64), True), "plies": (COUNT, True), "turns": (COUNT, True),
    "capped": (flag, True), "ended_by": (optional(COUNT), False),
    "breakdown": (optional(list_of(optional(object_of(number, "an object of numbers")), "a list per seat", 64)),
                  False),
    "rule_counts": (object_of(COUNT, "an object of counts"), True), "moves": (MOVES, True),
    "returns": (optional(list_of(finite, "a list of returns", 64)), False),
    # game-quality data (sim/quality.py); files written before them lack them and still read
    "branching": (optional(exactly(3, exactly(2, COUNT, "[legal moves, decisions]"), "three [moves, decisions]")),
                  False),
    "score_trace": (optional(list_of(list_of(number, "[turn, scores...]", 65), "a list of [turn, scores...]")),
                    False),
}
RESULT_FIELDS = {
    "winners": (optional(SEATS), False), "scores": (optional(list_of(anything, "a list of scores", 64)), False),
    "plies": (optional(COUNT), False), "turns": (optional(COUNT), False), "capped": (optional(flag), False),
}
LOG_FIELDS = {
    "game": (text(200), True), "file": (text(4096), True), "file_sha256": (optional(text(64)), False),
    "variant": (optional(text(200)), False), "options": (optional(OPTIONS), False),
    "max_turns": (optional(whole(1, MAX_COUNT)), False), "seed": (optional(SEED), False),
    "rng": (text(64), False), "agents": (optional(AGENTS), False), "moves": (MOVES, True), "final_state": (optional(text(64)), False),
    "rules": (anything, False),  # the rule bundle (bundle.bundle_json), checked when it is read
}


def field_problem(data, fields: dict, what: str) -> tuple[str, str] | None:
    """(field, what is wrong) for the first field of `data` that fails its check, or None."""
    if not isinstance(data, dict):
        return "", f"{what} should be a JSON object, not {kind_of(data)}"
    for name, (check, required) in fields.items():
        if name not in data:
            if required:
                return name, f"missing field '{name}'"
            continue
        wrong = check(data[name])
        if wrong:
            return name, f"'{name}' {wrong}"
    return None


def seat_problem(line: dict) -> str | None:
    """Fields that must agree with the number of seats (one agent per seat)."""
    seats = len(line["agents"])
    if any(p >= seats for p in line["winners"]):
        return f"a winner is seat {max(line['winners'])}, but the line has {seats} agents"
    if len(line["scores"]) != seats:
        return f"{len(line['scores'])} scores for {seats} agents"
    if line.get("returns") is not None and len(line["returns"]) != seats:
        return f"{len(line['returns'])} returns for {seats} agents"
    if line.get("breakdown") is not None and len(line["breakdown"]) != seats:
        return f"{len(line['breakdown'])} score breakdowns for {seats} agents"
    if any(len(entry) != seats + 1 for entry in line.get("score_trace") or ()):
        return f"a score trace entry is not [turn, one score for each of {seats} agents]"
    return None


# -- reading files -----------------------------------------------------------------------------------------
def read_text(path, hint: str, limit: int) -> str:
    """The text of a data file named on the command line, of at most `limit` bytes: missing is a usage error,
    unreadable or larger a problem. A larger file is refused by its size before it is read, and no file is read
    further than the limit (a pipe, or a file still growing, has no size to go by)."""
    path = Path(path)
    with _opened(path, hint) as stream:
        size = _size(stream)
        data = b"" if size is not None and size > limit else _read(stream, path, hint, limit + 1)
    if size is not None and size > limit or len(data) > limit:
        raise RulesError([Problem(f"the file is larger than {_bytes(limit)}" + (f" ({_bytes(size)})" if size else ""),
                                  Location(str(path)), f"{hint}; a real one is far smaller: is this the file you "
                                  "meant?")])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RulesError([Problem(f"not UTF-8 text (byte {exc.start + 1})", Location(str(path)), hint)]) from None


def read_lines(path, hint: str, limit: int):
    """(line number, text, whether it ends with a newline) of each line of a data file, read one at a time: the file
    may be large (a results file has a line per game), but no line longer than `limit` bytes is read whole."""
    path = Path(path)
    with _opened(path, hint) as stream:
        for number in count(1):
            line = _read(stream, path, hint, limit + 1, whole=False)
            if not line:
                return
            if len(line) > limit:
                raise RulesError([Problem(f"the line is longer than {_bytes(limit)}", Location(str(path), number),
                                          f"{hint}; no line of one is this long")])
            try:
                yield number, line.decode("utf-8"), line.endswith(b"\n")
            except UnicodeDecodeError as exc:
                raise RulesError([Problem(f"not UTF-8 text (byte {exc.start + 1} of the line)",
                                          Location(str(path), number), hint)]) from None


def _opened(path: Path, hint: str):
    """The file open for reading bytes: missing is a usage error, unreadable a problem."""
    try:
        return path.open("rb")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise UsageError(f"no such file: {path}" if not path.is_dir() else f"{path} is a folder, not a file",
                         hint) from None
    except OSError as exc:
        raise RulesError([Problem(f"cannot read it: {exc.strerror or exc}", Location(str(path)), hint)]) from None


def _size(stream) -> int | None:
    """The size of the open file, or None for what has none to go by (a pipe, a device)."""
    status = os.fstat(stream.fileno())
    return status.st_size if stat.S_ISREG(status.st_mode) else None


def _read(stream, path: Path, hint: str, most: int, whole: bool = True) -> bytes:
    """At most `most` bytes of the stream: all of them (`whole`), or up to the end of the line."""
    try:
        return stream.read(most) if whole else stream.readline(most)
    except OSError as exc:  # a folder opened on some systems, a device that refuses
        raise RulesError([Problem(f"cannot read it: {exc.strerror or exc}", Location(str(path)), hint)]) from None


def _bytes(n: int) -> str:
    """A size as people read it: 300 MB, 16 MB, 2,000 bytes."""
    return f"{n / 1e6:,.0f} MB" if n >= 1_000_000 else f"{n:,} bytes"


def check_line(data, path, number: int) -> dict:
    """A results line's data, checked; a RulesError at PATH:NUMBER otherwise."""
    wrong = field_problem(data, LINE_FIELDS, "a results line")
    message = wrong[1] if wrong else seat_problem(data)
    if message:
        raise RulesError([Problem(message, Location(str(path), number), RESULTS_HINT + "; this line is damaged")])
    return data


def read_results(path) -> list[dict]:
    """The checked lines of a results file (a last line cut short by an interrupted run is dropped)."""
    return [line for _, line in numbered_results(path)]


def rules_line(bundle: RuleBundle) -> dict:
    """The line of a results file that carries the rules its games were played with."""
    return {"rulesdsl_rules": RULES_FORMAT, **bundle_json(bundle)}


def numbered_results(path, bundles: dict | None = None) -> list[tuple[int, dict]]:
    """(line number, checked line) for each game of a results file, read line by line; a last line cut short is
    dropped. The rules lines go to `bundles` (content hash -> RuleBundle), each checked against its hash."""
    lines = []
    for number, row, ended in read_lines(path, RESULTS_HINT, MAX_RESULTS_LINE_BYTES):
        if not row.strip():
            continue
        if not ended and not _complete_json(row):  # the last line, written in part when the run stopped
            break
        data = parse_json(row, str(path), number, RESULTS_HINT)
        if isinstance(data, dict) and "rulesdsl_rules" in data:
            bundle = _rules_of_line(data, path, number)
            if bundles is not None:
                bundles[bundle.digest] = bundle
                if len(bundles) > MAX_CARRIED_RULES:  # each is kept while the file is read: they must not fill memory
                    raise RulesError([Problem(f"the file carries more than {MAX_CARRIED_RULES} sets of rules",
                                              Location(str(path), number),
                                              RESULTS_HINT + "; a run carries one per rule file it played")])
            continue
        lines.append((number, check_line(data, path, number)))
    return lines


def _rules_of_line(data: dict, path, number: int) -> RuleBundle:
    """The rules a rules line carries; a RulesError at PATH:NUMBER when it is damaged."""
    if data.get("rulesdsl_rules") != RULES_FORMAT:
        wrong = f"a rules line of format {shown(data.get('rulesdsl_rules'))}, which this version does not read"
    else:
        found = bundle_from_json(data)
        if isinstance(found, RuleBundle):
            return found
        wrong = f"the rules it carries {found}"
    raise RulesError([Problem(wrong, Location(str(path), number), RESULTS_HINT + "; this line is damaged")])


def rules_of(record: dict, data_path, where: Location, bundles: dict | None = None) -> RuleBundle | Path:
    """The rules a log or results line was played with: those it carries (a log's `rules`, a results file's rules
    line of its content hash, in `bundles`), else the rule file it names if that may be read (rules_named_by)."""
    carried = record.get("rules")
    if isinstance(carried, RuleBundle):  # a results line given the rules of its file's rules line
        return carried
    if carried is not None:
        found = bundle_from_json(carried)
        if not isinstance(found, RuleBundle):
            raise RulesError([Problem(f"'rules' {found}", where, LOG_HINT + "; this log is damaged")])
        return found
    recorded = record.get("rules_sha256")
    if bundles and recorded in bundles:
        return bundles[recorded]
    return rules_named_by(record["file"], data_path, where)


def _complete_json(row: str) -> bool:
    """Whether a line without its newline is whole JSON (a run killed mid-write leaves it cut)."""
    try:
        parse_json(row, "", 1)
    except RulesError:
        return False
    return True


def check_log(data, path, text_: str) -> dict:
    """A game log's data, checked; a RulesError at PATH:LINE of the bad field otherwise."""
    if not isinstance(data, dict) or data.get("rulesdsl_log") != LOG_FORMAT:
        raise RulesError([Problem("not a rulesdsl game log", Location(str(path)), LOG_HINT + "; results files by "
                                  "'rulesdsl simulate --out' (name them .jsonl)")])
    wrong = field_problem(data, LOG_FIELDS, "a log")
    if wrong is None and data.get("result") is not None:
        wrong = field_problem(data["result"], RESULT_FIELDS, "'result'")
        wrong = wrong and ("result", wrong[1] if wrong[0] == "" else f"'result': {wrong[1]}")
    if wrong:
        raise RulesError([Problem(wrong[1], Location(str(path), key_line(text_, wrong[0]) if wrong[0] else 0),
                                  LOG_HINT + "; this log is damaged")])
    return data


# -- which rule file a log or results file may name --------------------------------------------------------
def bundled_name(named: str, folder: Path | None = None) -> str | None:
    """The bundled game that `named` stands for (its name, or a path into the bundled games folder), or None."""
    games = bundled_games()
    if named in games:
        return named
    home = package_dir("games").resolve()
    path = Path(named)
    candidates = [path] if path.is_absolute() else [c / path for c in (folder, Path.cwd()) if c is not None]
    for candidate in candidates:
        try:
            resolved = candidate.resolve()
        except (OSError, RuntimeError, ValueError):  # a loop of links, a NUL byte
            continue
        if resolved.parent == home and resolved.suffix == ".yaml" and resolved.stem in games:
            return resolved.stem
    return None


def rules_label(path) -> str:
    """How logs and results name a rule file: a bundled game by name, any other by its absolute path."""
    return bundled_name(str(path)) or str(Path(path).resolve())


def same_rules(a: str, b: str, folder: Path | None = None) -> bool:
    """Whether two recorded rule file names stand for the same file."""
    first, second = bundled_name(a, folder), bundled_name(b, folder)
    if first or second:
        return first == second
    try:
        return (folder or Path.cwd()).joinpath(a).resolve() == (folder or Path.cwd()).joinpath(b).resolve()
    except (OSError, RuntimeError, ValueError):
        return a == b


def rules_named_by(named: str, data_path, where: Location) -> Path:
    """The rule file a log or results line names, if it may be read: a bundled game, or a file that lies
    (links resolved) in the log's own folder. Anything else is refused, and never opened."""
    folder = Path(data_path).absolute().parent.resolve()
    name = bundled_name(named, folder)
    if name:
        return bundled_games()[name]
    try:
        resolved = (folder / named).resolve()  # an absolute `named` replaces the folder
    except (OSError, RuntimeError, ValueError):
        resolved = None
    if resolved is None or not resolved.is_relative_to(folder):
        raise RulesError([Problem(f"it names the rule file {shown(named, 80)}, which is neither a bundled game nor "
                                  "in its own folder, so it is not read", where,
                                  f"{RULES_HINT} if you trust it, or put it beside {Path(data_path).name}")])
    if not resolved.is_file():
        raise RulesError([Problem(f"the rule file it names, {shown(named, 80)}, does not exist", where, RULES_HINT)])
    return resolved
