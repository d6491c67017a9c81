"""Fixtures shared by the test files."""

from __future__ import annotations

import pytest


@pytest.fixture
def write(tmp_path):
    """write(text, name="game") -> the path of a rule file holding `text`, in the test's own folder."""
    def write_text(text: str, name: str = "game") -> str:
        path = tmp_path / (name if name.endswith(".yaml") else f"{name}.yaml")
        path.write_text(text, encoding="utf-8")
        return str(path)
    return write_text
