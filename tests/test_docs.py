"""The documentation stays complete: every built-in and every top-level key appears in the reference."""

from __future__ import annotations

import json
import re

import rulesdsl
from rulesdsl.lang.builtins import pure_builtins
from rulesdsl.model.builtins import builtin_reference, game_builtins

from .helpers import ROOT, game_path

REFERENCE = (ROOT / "docs" / "language.md").read_text(encoding="utf-8")


def test_every_builtin_is_documented():
    rules = rulesdsl.load_game(game_path("mabula")).rules
    names = set(pure_builtins()) | set(game_builtins(rules))
    missing = sorted(n for n in names if not re.search(rf"`{n}\(", REFERENCE))
    assert not missing, f"built-ins missing from docs/language.md: {missing}"


def test_every_top_level_key_is_documented():
    schema = json.loads((ROOT / "schemas" / "rules.schema.json").read_text())
    missing = sorted(k for k in schema["$defs"]["rules"]["properties"] if f"`{k}`" not in REFERENCE)
    assert not missing, f"top-level keys missing from docs/language.md: {missing}"


def test_readme_starts_with_the_two_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```console", 1)[1].split("```", 1)[0].strip().splitlines()
    assert block[0].startswith("pip install '.[compiled]' && rulesdsl simulate")  # the compiled backend by default
    assert block[1] == "pip install '.[test]' && python -m pytest -n auto"  # every test, on every core
    ci = (ROOT / ".ci" / "run").read_text()
    assert block[1] in ci.splitlines(), ".ci/run must run exactly the README's test command"


def test_builtin_tables_are_current():
    # exactly the generated tables between the markers: an entry added, changed or left in the docs fails
    section = REFERENCE.split("<!-- builtins:start -->\n", 1)[1].split("<!-- builtins:end -->", 1)[0]
    comment, tables = section.split("\n", 1)
    assert "docs/update_builtins.py" in comment
    assert tables == builtin_reference(True), "regenerate: python docs/update_builtins.py"
