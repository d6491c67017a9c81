"""The test suite itself: the slow tests named in conftest.py exist, so the daily subset leaves out what it says."""

from __future__ import annotations

import ast
from pathlib import Path

from .conftest import ALL, SLOW

TESTS = Path(__file__).resolve().parent


def test_every_slow_test_named_exists():
    for name, tests in SLOW.items():
        path = TESTS / name
        assert path.is_file(), f"{name} is listed as slow but does not exist"
        if tests is ALL:
            continue
        defined = {node.name for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                   if isinstance(node, ast.FunctionDef)}
        assert tests <= defined, f"{name} has no {sorted(tests - defined)}"
