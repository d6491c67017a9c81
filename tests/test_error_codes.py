"""Error codes: one table (errors.CODES), the same as docs/errors.md's, and every code rulesdsl gives is in it."""

from __future__ import annotations

import ast
import re


from rulesdsl.errors import CODES
from rulesdsl.findings import check_file
from rulesdsl.ir import subset

from .helpers import ROOT

DOCUMENTED = set(re.findall(r"^\| `([a-z_]+)` \|", (ROOT / "docs" / "errors.md").read_text(), re.M))


def _given_codes() -> dict[str, str]:
    """Every code written in rulesdsl's source where a code is given: `code="..."`, a mapping's "code", a string
    returned first in a tuple by the schema's translator: code -> the module that gives it."""
    found = {}
    for path in (ROOT / "rulesdsl").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            values = []
            if isinstance(node, ast.keyword) and node.arg == "code":
                values.append(node.value)
            elif isinstance(node, ast.Dict):
                values += [v for k, v in zip(node.keys, node.values)
                           if isinstance(k, ast.Constant) and k.value == "code"]
            elif path.name == "schema.py" and isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
                values.append(node.value.elts[0])
            for value in values:
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found[value.value] = str(path.relative_to(ROOT))
    return found


def test_the_table_is_the_documented_one():
    assert CODES - {"invalid"} == DOCUMENTED, "docs/errors.md and errors.CODES list different codes"
    assert re.search(r"code\s+`invalid`", (ROOT / "docs" / "errors.md").read_text())  # the catch-all, in prose


def test_every_code_the_source_gives_is_in_the_table():
    given = _given_codes()
    assert len(given) >= 30  # the scan finds the codes where they are written
    assert {code: where for code, where in given.items() if code not in CODES} == {}
    assert set(subset.CODES) <= CODES


def test_every_code_a_bad_rule_file_gets_is_in_the_table():
    seen = set()
    for path in sorted((ROOT / "tests" / "bad_rules").glob("*.yaml")):
        seen |= {p.code for p in check_file(str(path)).problems}
    assert len(seen) >= 15
    assert seen <= CODES, seen - CODES
