"""The published JSON Schema: every key described, every bundled file and overlay accepted, for editors and CI."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest
import yaml
from jsonschema import Draft202012Validator

from rulesdsl.cli import main
from rulesdsl.schema import rule_schema, schema_path, with_overlays

from .helpers import ROOT

SCHEMA = json.loads((ROOT / "schemas" / "rules.schema.json").read_text(encoding="utf-8"))
RULE_FILES = sorted({*ROOT.glob("games/*.yaml"), *ROOT.glob("examples/**/*.yaml"), *ROOT.glob("examples/overlays/*.yaml")})

# The keywords whose values are schemas (one, a list, or a mapping of names to schemas).
ONE, LIST, NAMED = ("additionalProperties", "items", "if", "then", "else", "not", "contains"), \
    ("anyOf", "oneOf", "allOf", "prefixItems"), ("$defs", "patternProperties")


def undescribed(node, path: str = "#"):
    """The paths of the properties, anywhere in the schema `node`, that have no description."""
    if not isinstance(node, dict):
        return
    for name, sub in (node.get("properties") or {}).items():
        if not (isinstance(sub, dict) and isinstance(sub.get("description"), str) and sub["description"].strip()):
            yield f"{path}/properties/{name}"
        yield from undescribed(sub, f"{path}/properties/{name}")
    for key in NAMED:
        for name, sub in (node.get(key) or {}).items():
            yield from undescribed(sub, f"{path}/{key}/{name}")
    for key in ONE:
        yield from undescribed(node.get(key), f"{path}/{key}")
    for key in LIST:
        for i, sub in enumerate(node.get(key) or []):
            yield from undescribed(sub, f"{path}/{key}/{i}")


def errors(data) -> list[str]:
    return [e.message for e in Draft202012Validator(SCHEMA).iter_errors(data)]


def test_the_schema_is_a_valid_draft_2020_12_schema():
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(SCHEMA)


def test_every_property_has_a_description():
    assert not list(undescribed(SCHEMA)), "properties without a description in schemas/rules.schema.json"


def test_the_walk_finds_a_property_without_a_description():
    schema = {"$defs": {"a": {"anyOf": [{"properties": {"x": {"$ref": "#/$defs/b"}}}]}},
              "properties": {"y": {"description": "Y.", "additionalProperties": {"properties": {"z": {}}}}}}
    assert list(undescribed(schema)) == ["#/properties/y/additionalProperties/properties/z",
                                         "#/$defs/a/anyOf/0/properties/x"]


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_bundled_and_example_file_matches_the_schema(path):
    assert errors(yaml.safe_load(path.read_text(encoding="utf-8"))) == []


def test_the_examples_include_overlays():
    assert {"mabula-no-tiebreak.yaml", "mark-rich-start.yaml"} <= {p.name for p in RULE_FILES}


def test_an_overlay_names_only_what_it_changes():
    assert errors({"extends": "mabula", "scoring": {"tiebreak": None}}) == []
    assert errors({"extends": "mark"}) == []


def test_a_file_that_extends_nothing_names_its_game_and_flow():
    assert errors({"players": {"count": 2}}) == ["'game' is a required property", "'flow' is a required property"]
    assert errors({"game": "x", "flow": {"steps": {"a": {"do": []}}}}) == []


def test_an_overlay_is_still_checked_key_by_key():
    assert errors({"extends": 3}) == ["3 is not of type 'string'"]
    assert errors({"extends": "mabula", "flowz": {}}) == ["Additional properties are not allowed ('flowz' was unexpected)"]


def reasons(data) -> set[str]:
    """The messages of every failure, those inside an anyOf (a key that may also be null) included."""
    found, todo = set(), list(Draft202012Validator(SCHEMA).iter_errors(data))
    while todo:
        error = todo.pop()
        found.add(error.message)
        todo += error.context or []
    return found


def test_an_overlay_may_change_part_of_a_section_and_delete_any_key():
    assert errors({"extends": "mark", "flow": {"max_turns": 50}}) == []  # the steps stay the base's
    assert errors({"extends": "mark", "moves": {"sell": {"when": None}}, "let": None, "render": None}) == []
    assert "Additional properties are not allowed ('bogus' was unexpected)" in \
        reasons({"extends": "mark", "flow": {"steps": {"play": {"moves": ["a"], "bogus": 1}}}})
    assert "0 is less than the minimum of 1" in reasons({"extends": "mark", "flow": {"max_turns": 0}})


def test_a_list_in_an_overlay_replaces_the_base_list_and_is_checked_whole():
    assert "'when' is a required property" in reasons({"extends": "mark", "end": [{"winners": "[]"}]})


def test_a_variant_s_changes_are_checked_as_an_overlay_is():
    game = {"game": "x", "flow": {"steps": {"a": {"do": []}}}}
    assert errors({**game, "variants": {"v": {"changes": {"flow": {"max_turns": 9}, "let": {"a": None}}}}}) == []
    assert "Additional properties are not allowed ('flwo' was unexpected)" in \
        reasons({**game, "variants": {"v": {"changes": {"flwo": {}}}}})


def test_the_overlay_part_is_generated_from_the_rule_file_part():
    assert with_overlays(SCHEMA) == SCHEMA, "regenerate: python docs/update_schema.py"


def test_validate_still_checks_the_game_an_overlay_makes(tmp_path, capsys):
    overlay = tmp_path / "lost-step.yaml"
    overlay.write_text("extends: mabula\nflow:\n  steps:\n    play:\n      next: nowhere\n", encoding="utf-8")
    assert errors(yaml.safe_load(overlay.read_text())) == []  # the overlay itself is well formed...
    assert main(["validate", str(overlay)]) == 1  # ...but the merged game goes to a step it does not have
    assert f"{overlay}:5:13: error: no step named 'nowhere'" in capsys.readouterr().err


def test_the_code_uses_the_published_schema():
    assert schema_path() == (ROOT / "schemas" / "rules.schema.json").resolve()
    assert rule_schema() == SCHEMA


@pytest.mark.skipif(importlib.util.find_spec("check_jsonschema") is None, reason="check-jsonschema not installed")
def test_check_jsonschema_accepts_the_examples_and_refuses_a_broken_file(tmp_path):
    def check(*files):
        return subprocess.run([sys.executable, "-m", "check_jsonschema", "--schemafile", str(schema_path()),
                               *map(str, files)], capture_output=True, text=True, timeout=120)
    done = check(*RULE_FILES)
    assert done.returncode == 0, done.stdout + done.stderr
    broken = tmp_path / "broken.yaml"
    broken.write_text("game: x\n", encoding="utf-8")
    done = check(broken)
    assert done.returncode == 1 and "'flow' is a required property" in done.stdout
