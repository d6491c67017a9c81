"""Every example script runs with its default arguments (each in under a minute)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .helpers import ROOT

SCRIPTS = sorted((ROOT / "examples").glob("*.py"))


def test_there_are_examples():
    assert len(SCRIPTS) >= 4


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_example_runs(script):
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() and "Traceback" not in done.stderr
