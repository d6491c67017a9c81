"""Where the data shipped with the package lives: the bundled games and the JSON Schema."""

from __future__ import annotations

from pathlib import Path


def package_dir(name: str) -> Path:
    """The bundled `games` or `schemas` folder: inside the installed package, or beside it in a checkout."""
    here = Path(__file__).resolve().parent
    installed = here / name
    return installed if installed.is_dir() else here.parent / name
