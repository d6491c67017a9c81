"""Golden files for the error messages of bad rule files.

Each tests/bad_rules/NAME.yaml is a rule file with one or a few mistakes; NAME.expected is the exact
stderr of `rulesdsl validate tests/bad_rules/NAME.yaml` run from the repository root (plus the extra
arguments in NAME.args, if that file exists, e.g. a `--option` that the game does not declare).

After an intended change to a message, regenerate with UPDATE_GOLDEN=1 and review every diff as a
user would: is line:col right, is the caret under the right character, does the hint help?
"""

from __future__ import annotations

import os
import re
import shlex

import pytest

from rulesdsl.cli import main

from .helpers import ROOT

BAD = ROOT / "tests" / "bad_rules"
CASES = sorted(BAD.glob("*.yaml"))


def test_there_are_cases():
    assert len(CASES) >= 20


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.stem)
def test_error_message_matches_the_golden_file(case, monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    rel = f"tests/bad_rules/{case.name}"
    args_file = case.with_suffix(".args")
    extra = shlex.split(args_file.read_text(encoding="utf-8")) if args_file.exists() else []

    code = main(["validate", rel, *extra])
    err = capsys.readouterr().err

    assert code == 1, err
    assert "Traceback" not in err
    assert "internal error" not in err
    # a case given --strict may fail on warnings alone (validate counts only errors in its last line)
    severities = ("error", "warning") if "--strict" in extra else ("error",)
    found = [line for line in err.splitlines() if not line.startswith(" ")
             and any(f"{severity}:" in line for severity in severities)]
    assert found, f"no '{' or '.join(severities)}:' line in:\n{err}"
    for line in found:
        # every problem is located in the file: file:line:col for problems in it, at least the file
        # name for those without a line (a missing base file, an option given on the command line)
        assert any(re.match(rf"{re.escape(rel)}:\d+:\d+: {severity}: ", line) or
                   line.startswith(f"{rel}: {severity}: ") for severity in severities), line
    errors = [line for line in found if "error:" in line]
    if errors or "--strict" not in extra:
        assert err.rstrip("\n").endswith(f"{rel}: {len(errors)} problem{'s' if len(errors) != 1 else ''}")

    expected_file = case.with_suffix(".expected")
    if os.environ.get("UPDATE_GOLDEN"):
        expected_file.write_text(err, encoding="utf-8")
        return
    assert expected_file.exists(), f"missing {expected_file.name}: run with UPDATE_GOLDEN=1 and review it"
    assert err == expected_file.read_text(encoding="utf-8")


def test_every_expected_file_has_a_case():
    orphans = [p.name for p in BAD.glob("*.expected") if not p.with_suffix(".yaml").exists()]
    assert not orphans
