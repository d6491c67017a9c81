"""Every example script runs, at a small size (each takes its own --games or the like; the code it runs is the
same at any size)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from .helpers import ROOT

SCRIPTS = sorted((ROOT / "examples").glob("*.py"))
# the arguments each script runs with here: its own options, at a size that plays a few games of each kind
SMALL = {"compare_mark_endings": ["--games", "20"], "custom_agent": ["--games", "40"],
         "fast_track_team_tournament": ["--games", "4"], "rl_afterstate_value": ["--train", "100", "--eval", "20"],
         "sweep_marble_chase_skills": ["--games", "30"]}


def test_there_are_examples_and_each_has_its_small_size():
    assert len(SCRIPTS) >= 4 and sorted(SMALL) == [script.stem for script in SCRIPTS]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_example_runs(script):
    done = subprocess.run([sys.executable, str(script), *SMALL[script.stem]], capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() and "Traceback" not in done.stderr
