"""Structural validation of rule documents against the JSON Schema, every violation located in the YAML."""

from __future__ import annotations

import json
from functools import lru_cache

from jsonschema import Draft202012Validator
from jsonschema.exceptions import relevance

from .errors import Problem, did_you_mean
from .loading import package_dir
from .source import Document


@lru_cache(maxsize=1)
def rule_schema() -> dict:
    """The JSON Schema of rule files (schemas/rules.schema.json)."""
    return json.loads((package_dir("schemas") / "rules.schema.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    return Draft202012Validator(rule_schema())


def _leaf_errors(error):
    """The most specific errors under a oneOf/anyOf failure (what the user most likely meant)."""
    if not error.context:
        return [error]
    best = sorted(error.context, key=relevance)[-1]
    deepest = [e for e in error.context if len(e.absolute_path) == len(best.absolute_path)]
    if len(best.absolute_path) > len(error.absolute_path):
        return [e for leaf in deepest for e in _leaf_errors(leaf)][:1]
    return [error]


def _message(error, doc: Document) -> tuple[str, str | None, bool]:
    """(message, hint, point at key) in the rule file's own words."""
    path = tuple(error.absolute_path)
    where = "/".join(map(str, path)) or "the file"
    if error.validator == "additionalProperties":
        extra = [k for k in error.instance if k not in (error.schema.get("properties") or {})]
        known = list((error.schema.get("properties") or {}).keys())
        name = extra[0] if extra else "?"
        hint = did_you_mean(str(name), known) or (f"allowed here: {', '.join(known)}" if known else None)
        return f"unknown key '{name}' in {where}", hint, True
    if error.validator == "required":
        return f"{where} is missing {error.message.split(' is a required')[0]}", \
            error.schema.get("description"), False
    if error.validator == "enum":
        options = ", ".join(map(repr, error.validator_value))
        return f"{where}: {error.instance!r} is not allowed", f"use one of {options}", False
    if error.validator == "type":
        want = error.validator_value
        want = " or ".join(want) if isinstance(want, list) else want
        return f"{where} should be {_article(want)}, not {_json_type(error.instance)}", \
            error.schema.get("description"), False
    if error.validator in ("oneOf", "anyOf"):
        descriptions = [s.get("description") for s in error.validator_value if isinstance(s, dict)]
        hint = error.schema.get("description") or next((d for d in descriptions if d), None)
        return f"{where} has the wrong form", hint, False
    return f"{where}: {error.message}", error.schema.get("description"), False


def _article(word: str) -> str:
    names = {"object": "a mapping", "array": "a list", "string": "a string", "integer": "a whole number",
             "number": "a number", "boolean": "true or false", "null": "empty"}
    return " or ".join(names.get(w.strip(), w) for w in word.split(" or "))


def _json_type(value) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if value is None:
        return "empty"
    return f"the string {value!r}"


def validate_structure(doc: Document) -> list[Problem]:
    """Every schema violation of `doc`, each located at its YAML node."""
    problems, seen = [], set()
    for error in sorted(_validator().iter_errors(doc.data), key=lambda e: list(map(str, e.absolute_path))):
        for leaf in _leaf_errors(error):
            message, hint, at_key = _message(leaf, doc)
            path = tuple(leaf.absolute_path)
            if leaf.validator == "additionalProperties":
                extra = [k for k in leaf.instance if k not in (leaf.schema.get("properties") or {})]
                path = path + (extra[0],) if extra else path
            problem = doc.problem(path, message, hint, key=at_key)
            key = (problem.location, message)
            if key not in seen:
                seen.add(key)
                problems.append(problem)
    return problems
