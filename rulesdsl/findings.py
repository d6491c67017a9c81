"""What `validate` finds in a rule file, and its reports for programs: JSON, GitHub Actions annotations, or
SARIF 2.1.0 for code scanning."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import budget
from .budget import TimeBudgetExceeded
from .backends.compiled.build import takes
from .engine.load import compile_game
from .errors import Problem, RulesError
from .jail import heartbeat
from .limits import LOAD_SECONDS
from .loading import load_document, with_variant
from .overrides import inherited_variant_problems, override_problems
from .sim.checkplay import check_by_playing
from .source import Document

FORMATS = ("text", "json", "github", "sarif")
_SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


@dataclass
class FileReport:
    """One rule file as validate saw it: its summary when it compiled, and its problems (its variants' too)."""

    file: str
    summary: str | None = None  # None: the file itself did not compile
    problems: list = field(default_factory=list)  # Problem
    variants: dict = field(default_factory=dict)  # variant name -> number of problems (0: ok)
    broken: dict = field(default_factory=dict)  # variant name -> its problems, for a variant that does not compile
    lines: list = field(default_factory=list)  # what validate says under the file's first line (None: nothing)
    doc: Document | None = None  # the file as loaded, when it compiled
    game: object = None  # the compiled game (of `variant`, if one was named), when it compiled
    options: dict = field(default_factory=dict)  # the value of each option the game was checked with

    def __getstate__(self):  # a report sent back from a jail leaves the compiled game behind (code, not data)
        return {**vars(self), "game": None}


def check_file(file: str, variant: str | None = None, options: dict | None = None, games: int = 0,
               text: str | None = None, backend: str | None = None) -> FileReport:
    """Everything validate finds in one rule file: the game's problems, then each variant's (all of them,
    unless `variant` names one), then the overrides that change nothing and what `games` random games of
    each found. `text`: the file's content when it is not what is on disk (an editor's buffer). `backend` (python,
    compiled or auto): which backend plays the games, said in a line (where it falls back, why, located; where
    `compiled` was asked for and does not take the game, that is an error). In a jail (jail.py), the game's load,
    its variants' loads together, and each game played are units of work of their own."""
    report = FileReport(file)
    try:
        doc = load_document(file, text=text)
        game = compile_game(doc, file, variant, options)
    except RulesError as exc:
        report.problems += exc.problems
        return report
    report.doc, report.game, report.summary = doc, game, game.summary()
    report.options = dict(game.rules.option_values)
    warnings = override_problems(with_variant(doc, variant)) + inherited_variant_problems(doc) + game.rules.warnings
    played = []  # problems found by playing
    if backend is not None:
        report.lines.append(_backend_line(game, backend, report))
        if report.problems:  # compiled asked for, and not taken: nothing is played
            return report
    backend = backend or "python"
    report.lines.append(_play_check(lambda: compile_game(doc, file, variant, options, inline=False), file, games,
                                    played, backend))
    variants = doc.data.get("variants") or {} if variant is None else {}
    for name, loaded in _load_variants(doc, file, list(variants), options).items():
        if isinstance(loaded, RulesError):
            report.variants[name] = len(loaded.problems)
            report.broken[name] = loaded.problems
            report.problems += loaded.problems
            report.lines.append(f"  variant {name}: {count_problems(len(loaded.problems))}")
            continue
        warnings += loaded
        report.variants[name] = 0
        report.lines.append(f"  variant {name}: ok - {(variants[name] or {}).get('description', '')}")
        warnings += override_problems(with_variant(doc, name))
        report.lines.append(_play_check(lambda name=name: compile_game(doc, file, name, options, inline=False),
                                        file, games, played, backend))
    # a variant's warnings repeat its overlay's: once each
    warnings = sorted({p for p in warnings if p.severity == "warning"}, key=Problem.sort_key)
    report.problems += warnings + played
    return report


def _load_variants(doc: Document, file: str, names: list, options: dict | None) -> dict:
    """Each variant compiled (name -> its warnings, or the RulesError of its problems), all of them within one load
    budget: a file may declare thousands of variants, and a budget each would let it run for hours. Those left
    when the budget runs out are each one problem, at the variant."""
    heartbeat(f"loading the variants of {file}", LOAD_SECONDS)
    loaded: dict = {}
    try:
        for name in names:
            if budget.exhausted():
                break
            try:
                loaded[name] = compile_game(doc, file, name, options).rules.warnings  # (the game is let go)
            except RulesError as exc:
                loaded[name] = exc
    except TimeBudgetExceeded:  # (between two loads)
        pass
    for name in names[len(loaded):]:
        loaded[name] = RulesError([doc.problem(("variants", name), "this variant was not loaded: loading the "
                                               f"variants before it took the {LOAD_SECONDS:g} s they share",
                                               "declare fewer variants, or make them quicker to load", key=True,
                                               code="limit_exceeded", fields={"limit": "LOAD_SECONDS"})])
    return loaded


budget.guard(_load_variants, LOAD_SECONDS, "loading the variants of the rule file")


def _backend_line(game, backend: str, report: FileReport) -> str:
    """The line saying which backend plays the game; `compiled` that does not take it is an error of the report."""
    if backend == "python":
        return "  backend: python (as asked)"
    why = takes(game)
    if why is None:
        return "  backend: compiled (the compiled backend takes every rule)"
    if backend == "compiled":
        report.problems += [replace(p, hint="use --backend auto (the Python engine where it does not) or python",
                                    code="not_compiled") for p in why.error().problems]
        return "  backend: compiled refused (see the error above)"
    return f"  backend: python (auto: the compiled backend does not take it yet: {why})"


def _play_check(compile_once, file: str, games: int, found: list, backend: str = "python") -> str | None:
    """validate --play: random games of one game (a variant's too, compiled by `compile_once()`); their problems
    are added to `found`, and the line saying what was played is returned (None: no games asked for)."""
    if games <= 0:
        return None
    problems, summary, variant = check_by_playing(compile_once, games, file, backend)
    found += problems
    return f"  {'variant ' + variant + ': ' if variant else ''}{summary}"


def count_problems(n: int) -> str:
    """'1 problem', '3 problems'."""
    return f"{n} problem{'s' if n != 1 else ''}"


def problem_json(problem, file: str) -> dict:
    """A problem for programs: file, line, column, code, severity, message, hint."""
    loc = problem.location
    return {"file": loc.file if loc and loc.file else file, "line": loc.line if loc else 0,
            "column": loc.col if loc else 0, "code": problem.code, "severity": problem.severity,
            "message": problem.message, "hint": problem.hint}


def as_json(reports: list[FileReport]) -> str:
    """One JSON document: every file with its summary, variants and problems (file, line, column, code,
    severity, message, hint)."""
    files = [{"file": r.file, "ok": not any(p.severity == "error" for p in r.problems), "summary": r.summary,
              "variants": r.variants, "problems": [problem_json(p, r.file) for p in r.problems]} for r in reports]
    return json.dumps({"files": files, "problems": sum(len(f["problems"]) for f in files)}, indent=2)


def _escape(text: str, property_value: bool = False) -> str:
    """GitHub workflow-command escaping (of a message, or of a property value, which also escapes , and :)."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if property_value else text


def as_github(reports: list[FileReport]) -> str:
    """One GitHub Actions annotation per problem: shown on the line in a pull request's diff."""
    lines = []
    for report in reports:
        for p in report.problems:
            found = problem_json(p, report.file)
            level = "warning" if found["severity"] == "warning" else "error"
            place = f"file={_escape(found['file'], True)}"
            if found["line"]:
                place += f",line={found['line']}" + (f",col={found['column']}" if found["column"] else "")
            text = p.message + (f" (hint: {p.hint})" if p.hint else "")
            lines.append(f"::{level} {place},title={_escape('rulesdsl ' + p.code, True)}::{_escape(text)}")
    return "\n".join(lines)


def _uri(file: str) -> str:
    """A SARIF artifact location: a relative path as it is (relative to where validate ran), else a file URI."""
    path = Path(file)
    return path.as_uri() if path.is_absolute() else path.as_posix()


def as_sarif(reports: list[FileReport], version: str) -> str:
    """A SARIF 2.1.0 log with one result per problem, its rule the problem's code."""
    results, codes = [], {}
    for report in reports:
        for p in report.problems:
            found = problem_json(p, report.file)
            codes.setdefault(p.code, {"id": p.code, "shortDescription": {"text": f"rulesdsl problem '{p.code}' "
                                                                                  "(see docs/errors.md)"}})
            region = {"startLine": max(1, found["line"])}
            if found["column"]:
                region["startColumn"] = found["column"]
            message = p.message + (f" (hint: {p.hint})" if p.hint else "")
            results.append({"ruleId": p.code, "level": "warning" if found["severity"] == "warning" else "error",
                            "message": {"text": message},
                            "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(found["file"])},
                                                                "region": region}}]})
    run = {"tool": {"driver": {"name": "rulesdsl", "version": version, "rules": list(codes.values())}},
           "results": results}
    return json.dumps({"$schema": _SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2)
