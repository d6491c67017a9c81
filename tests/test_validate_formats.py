"""`rulesdsl validate --format json|github|sarif`: every problem with its file, line, column, code, severity
and hint, for CI and code scanning; nothing else on stdout."""

from __future__ import annotations

import json

import pytest

from .helpers import game_path, run_cli as run

# Two mistakes, at known places.
BAD = """\
game: Bad
players: {count: 2}
moves:
  go:
    notation: "go"
    do: ["x = unknwn"]
flow:
  steps:
    play:
      moves: [go, stay]
"""


@pytest.fixture
def bad(tmp_path):
    path = tmp_path / "bad, file.yaml"  # a comma: escaped in GitHub annotations
    path.write_text(BAD)
    return str(path)


def test_json_carries_every_problem_located_with_its_code_severity_and_hint(capsys, bad):
    code, out, err = run(capsys, "validate", bad, game_path("mabula"), "--format", "json")
    assert code == 1 and err == ""
    report = json.loads(out)
    first, second = report["files"]
    assert first["ok"] is False and first["summary"] is None and report["problems"] == len(first["problems"]) == 2
    places = {(p["line"], p["column"], p["code"]) for p in first["problems"]}
    assert places == {(6, 15, "unknown_name"), (10, 19, "unknown_name")}
    for p in first["problems"]:
        assert p["file"] == bad and p["severity"] == "error" and p["message"] and p["hint"]
    assert second["ok"] is True and second["summary"].startswith("Mabula") and second["variants"] == {"product": 0}


def test_a_valid_file_gives_an_empty_report_and_exit_code_0(capsys):
    code, out, _ = run(capsys, "validate", game_path("mark"), "--format", "json")
    assert code == 0 and json.loads(out)["problems"] == 0
    code, out, _ = run(capsys, "validate", game_path("mark"), "--format", "github")
    assert code == 0 and out.strip() == ""


def test_github_annotations_one_per_problem(capsys, bad):
    code, out, _ = run(capsys, "validate", bad, "--format", "github")
    lines = out.strip().splitlines()
    assert code == 1 and len(lines) == 2
    escaped = bad.replace(",", "%2C").replace(":", "%3A")
    assert lines[0].startswith(f"::error file={escaped},line=6,col=15,title=rulesdsl unknown_name::unknown name")
    assert "(hint: " in lines[0]


def test_sarif_results_name_the_rule_and_the_region(capsys, bad):
    code, out, _ = run(capsys, "validate", bad, "--format", "sarif")
    log = json.loads(out)
    assert code == 1 and log["version"] == "2.1.0"
    run_ = log["runs"][0]
    assert run_["tool"]["driver"]["name"] == "rulesdsl"
    assert [r["id"] for r in run_["tool"]["driver"]["rules"]] == ["unknown_name"]
    regions = sorted((r["locations"][0]["physicalLocation"]["region"]["startLine"],
                      r["locations"][0]["physicalLocation"]["region"]["startColumn"]) for r in run_["results"])
    assert regions == [(6, 15), (10, 19)]
    uri = run_["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.startswith("file://") and uri.endswith("file.yaml")
    assert {r["level"] for r in run_["results"]} == {"error"}
