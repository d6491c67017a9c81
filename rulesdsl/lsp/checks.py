"""validate's problems in an editor's buffer, as LSP diagnostics: checked under the load budget, never a crash."""

from __future__ import annotations

from .. import budget
from ..budget import TimeBudgetExceeded
from ..errors import Location, Problem, RulesError
from ..findings import check_file
from ..ir.occurrences import occurrences
from ..limits import CHECK_SECONDS
from ..loading import load_document
from ..source import Document

ERROR, WARNING = 1, 2  # LSP's DiagnosticSeverity
SOURCE = "rulesdsl"
BUG_HINT = ("this is a bug in rulesdsl, not in your file: 'rulesdsl --debug validate FILE' shows the details for a "
            "bug report")


def check_buffer(file: str, text: str) -> tuple[list[Problem], Document | None, list | None]:
    """The problems `rulesdsl validate FILE` reports for `text` as the content of `file` (static checks, no
    games played), the file as loaded (None when it cannot be read as YAML or its base cannot be found), and
    every name its rules write, resolved (ir/occurrences.py; None when it does not compile).

    A check that overruns the budget of loading a file, or fails inside rulesdsl, is one problem saying so:
    an editor's server must outlive any buffer. Running out of memory or stack is left to the jail the check runs
    in (lsp/workers.py), which locates it at the rule that was running."""
    budget.ensure_watchdog()
    try:
        return _checked(file, text)
    except (MemoryError, RecursionError):
        raise
    except TimeBudgetExceeded as exc:  # and MemoryBudgetExceeded
        return [Problem(f"checking this file stopped: {exc}", Location(file, 1, 1),
                        "rule files are far smaller and simpler; 'rulesdsl validate FILE' says the same",
                        code="limit_exceeded", fields={"limit": "CHECK_SECONDS"})], None, None
    except Exception as exc:  # noqa: BLE001 - a bug in rulesdsl: said once, in the editor, and the server lives on
        return [internal_problem(exc, file)], None, None


def internal_problem(exc: Exception, file: str) -> Problem:
    """The one problem that stands for a failure inside rulesdsl while checking `file`."""
    what = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
    return Problem(f"internal error while checking this file ({what})", Location(file), BUG_HINT, code="internal")


def _checked(file: str, text: str) -> tuple[list[Problem], Document | None, list | None]:
    report = check_file(file, text=text)
    doc = report.doc
    if doc is None:  # the file does not compile, but its names can still be shown
        try:
            doc = load_document(file, text=text)
        except RulesError:
            pass
    names = occurrences(report.game.rules.ir) if report.game is not None else None
    return report.problems, doc, names


budget.guard(_checked, CHECK_SECONDS, "checking the rule file")  # a load's own budget answers first


def units(text: str, encoding: str) -> int:
    """The length of `text` in the code units of a position encoding: utf-16 (LSP's default), utf-8, utf-32."""
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    if encoding == "utf-32":
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def column(text: str, count: int, encoding: str) -> int:
    """The 0-based character index in the line `text` of the position `count` code units into it."""
    used = 0
    for index, char in enumerate(text):
        if used >= count:
            return index
        used += units(char, encoding)
    return len(text)


def position(lines: list[str], line: int, col: int, encoding: str) -> dict:
    """The LSP position of the 1-based `line`:`col` (a character) of a text split into `lines`."""
    if not lines:
        return {"line": 0, "character": 0}
    index = min(max(line, 1), len(lines)) - 1
    text = lines[index]
    return {"line": index, "character": units(text[: max(col, 1) - 1], encoding)}


def diagnostic(problem: Problem, file: str, lines: list[str], encoding: str = "utf-16") -> dict:
    """One problem of the file `file` (whose text is split into `lines`) as an LSP Diagnostic (JSON). A problem
    located in another file (an overlay's base) is shown on the first line, with its own location."""
    loc = problem.location
    message = problem.message + (f"\nhint: {problem.hint}" if problem.hint else "")
    if loc is None or loc.file != file or not loc.line:
        if loc is not None and loc.file != file:
            message = f"{loc}: {message}"
        start = end = {"line": 0, "character": 0}
        if lines:
            end = {"line": 0, "character": units(lines[0], encoding)}
    else:
        start = position(lines, loc.line, loc.col, encoding)
        end = position(lines, loc.line, (loc.col or 1) + max(1, problem.width), encoding)
        text = lines[start["line"]] if lines else ""
        end["character"] = min(end["character"], units(text, encoding))
        if end["character"] <= start["character"] and text:  # a problem at the end of a line: its last character
            start = {"line": start["line"], "character": max(0, units(text, encoding) - 1)}
            end = {"line": start["line"], "character": units(text, encoding)}
    return {"range": {"start": start, "end": end}, "severity": WARNING if problem.severity == "warning" else ERROR,
            "code": problem.code, "source": SOURCE, "message": message}


def diagnostics(problems: list[Problem], file: str, text: str, encoding: str = "utf-16") -> list[dict]:
    """Every problem found in `text` (the content of `file`) as LSP Diagnostics (JSON), in the file's order."""
    lines = text.splitlines()  # as the YAML loader numbers them
    return [diagnostic(p, file, lines, encoding) for p in sorted(problems, key=Problem.sort_key)]
