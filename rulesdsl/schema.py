"""Structural validation of rule documents against the JSON Schema, every violation located in the YAML."""

from __future__ import annotations

import copy
import json
from functools import lru_cache
from pathlib import Path

from jsonschema import Draft202012Validator

from .errors import Problem, close_names, suggestion
from .resources import package_dir
from .source import Document


def schema_path() -> Path:
    """The installed JSON Schema of rule files (schemas/rules.schema.json), an absolute path."""
    return package_dir("schemas") / "rules.schema.json"


@lru_cache(maxsize=1)
def rule_schema() -> dict:
    """The JSON Schema of rule files (schemas/rules.schema.json)."""
    return json.loads(schema_path().read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _validator() -> Draft202012Validator:
    """The validator of loaded documents (overlays merged). A variant's changes are not checked in place: each
    variant is checked once applied, so that every variant's problems are found in one run."""
    schema = copy.deepcopy(rule_schema())
    schema["$defs"][_PARTIAL + "rules"] = {"type": "object"}
    return Draft202012Validator(schema)


def top_level_keys() -> list[str]:
    """The keys a rule file may have at its top level."""
    return list(rule_schema()["$defs"]["rules"]["properties"])


# The schema's rule-file part is $defs/rules, written by hand. Its overlay part is generated from it
# (docs/update_schema.py): an overlay or a variant's changes names only what it changes, so nothing in a mapping
# is required there and any key may be null (which deletes it); a list replaces the base's whole and stays complete.
_REQUIRING = ("required", "minProperties", "dependentRequired", "dependentSchemas", "if", "then", "else", "not")
_WHOLE = ("items", "prefixItems", "contains")
_MAPPINGS = ("properties", "patternProperties")
_PARTIAL = "partial_"


def with_overlays(schema: dict) -> dict:
    """`schema` with its overlay part generated from $defs/rules: $defs/partial_* (each definition as an overlay
    may write it) and the top level that picks the rule file or the overlay part by 'extends'."""
    schema = copy.deepcopy(schema)
    defs = {name: node for name, node in (schema.get("$defs") or {}).items()
            if not name.startswith(_PARTIAL) and name != "overlay"}
    if "properties" in schema:  # the rule file written at the top level: move it to $defs/rules
        defs = {"rules": {"type": "object", "additionalProperties": schema.get("additionalProperties", False),
                          "required": (schema.get("else") or {}).get("required", ["game", "flow"]),
                          "properties": schema["properties"]}, **defs}
    changes = defs["rules"]["properties"]["variants"]["additionalProperties"]["properties"]["changes"]
    changes.pop("type", None)
    changes["$ref"] = f"#/$defs/{_PARTIAL}rules"  # a variant's changes are written as an overlay is
    needs = _needing_partial(defs)
    out = {key: schema[key] for key in ("$schema", "$id", "title", "description") if key in schema}
    out.update({"type": "object", "if": {"required": ["extends"]}, "then": {"$ref": "#/$defs/overlay"},
                "else": {"$ref": "#/$defs/rules"}})
    out["$defs"] = dict(defs)
    for name in sorted(needs):
        out["$defs"][_PARTIAL + name] = _partial(defs[name], needs)
    # the one key an overlay must write as a rule file would
    out["$defs"][_PARTIAL + "rules"]["properties"]["extends"] = defs["rules"]["properties"]["extends"]
    out["$defs"]["overlay"] = {
        "description": "An overlay: 'extends' names the base file, and every other key is what it changes there "
                       "(mappings merge, other values replace, null deletes).",
        "allOf": [{"$ref": f"#/$defs/{_PARTIAL}rules"}], "required": ["extends"]}
    return out


def _needing_partial(defs: dict) -> set:
    """The definitions that an overlay may write differently (they hold mappings, or refer to such a one)."""
    direct = {name for name, node in defs.items() if _direct(node)}
    refs = {name: set(_refs(node)) for name, node in defs.items()}
    needs, grew = set(direct), True
    while grew:
        grew = False
        for name in defs:
            if name not in needs and refs[name] & needs:
                needs.add(name)
                grew = True
    return needs


def _direct(node) -> bool:
    if not isinstance(node, dict):
        return isinstance(node, list) and any(_direct(n) for n in node)
    if any(k in node for k in _REQUIRING + _MAPPINGS) or isinstance(node.get("additionalProperties"), dict):
        return True
    return any(_direct(v) for k, v in node.items() if k not in _WHOLE and k != "$defs")


def _refs(node):
    """The definitions `node` refers to outside list items."""
    if isinstance(node, list):
        for n in node:
            yield from _refs(n)
    elif isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            yield ref[len("#/$defs/"):]
        for key, value in node.items():
            if key not in _WHOLE:
                yield from _refs(value)


def _partial(node, needs: set):
    """`node` as an overlay may write it: nothing required, any key of a mapping may be null."""
    if isinstance(node, list):
        return [_partial(n, needs) for n in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in _REQUIRING:
            continue
        if key == "$ref" and isinstance(value, str) and value[len("#/$defs/"):] in needs:
            out[key] = "#/$defs/" + _PARTIAL + value[len("#/$defs/"):]
        elif key in _MAPPINGS:
            out[key] = {name: _nullable(sub, needs) for name, sub in value.items()}
        elif key == "additionalProperties" and isinstance(value, dict):
            out[key] = _nullable(value, needs)
        elif key in _WHOLE:
            out[key] = value
        else:
            out[key] = _partial(value, needs)
    return out


def _nullable(node, needs: set) -> dict:
    """A key's schema in an overlay: null (delete it from the base), or the key's schema made partial."""
    either = {"anyOf": [{"type": "null", "description": "null deletes this key from the base file"},
                        _partial(node, needs)]}
    if isinstance(node, dict) and isinstance(node.get("description"), str):
        return {"description": node["description"], **either}
    return either


def _branches(error) -> list[list]:
    """The errors of an anyOf/oneOf failure, grouped by the alternative they come from."""
    groups: dict = {}
    for e in error.context:
        groups.setdefault(e.relative_schema_path[0], []).append(e)
    return list(groups.values())


def _type_miss(error, path) -> bool:
    """True when `error` says the value at `path` is not even of the alternative's type."""
    if tuple(error.absolute_path) != path:
        return False
    if error.validator == "type":
        return True
    if error.validator in ("anyOf", "oneOf") and error.context:
        return all(any(_type_miss(e, path) for e in branch) for branch in _branches(error))
    return False


def _leaf_errors(error):
    """The errors under an anyOf/oneOf failure that concern the alternative the user most likely meant.

    Alternatives whose type does not fit the value are ignored; when exactly one fits (or one gets
    deepest into the value), its own errors are reported instead of a vague 'wrong form'.
    """
    if error.validator not in ("anyOf", "oneOf") or not error.context:
        return [error]
    path = tuple(error.absolute_path)
    fitting = [b for b in _branches(error) if not any(_type_miss(e, path) for e in b)]
    if not fitting:
        return [error]
    if len(fitting) > 1:
        depth = [max(len(e.absolute_path) for e in b) for b in fitting]
        if depth.count(max(depth)) > 1:
            return [error]
        fitting = [fitting[depth.index(max(depth))]]
    return [leaf for e in fitting[0] for leaf in _leaf_errors(e)]


def _types(error) -> list[str]:
    """The JSON types an anyOf/oneOf would accept (from the alternatives' 'type' errors)."""
    path, found = tuple(error.absolute_path), []
    for e in error.context:
        if tuple(e.absolute_path) != path:
            continue
        want = _types(e) if e.validator in ("anyOf", "oneOf") else \
            (e.validator_value if isinstance(e.validator_value, list) else [e.validator_value]) \
            if e.validator == "type" else []
        found += [w for w in want if w not in found]
    if "number" in found and "integer" in found:
        found.remove("integer")
    return found


def _description(error) -> str | None:
    """The description of the schema that failed, or of the nearest enclosing schema that has one."""
    own = error.schema.get("description") if isinstance(error.schema, dict) else None
    if isinstance(own, str):
        return own
    root = rule_schema()
    node, found = root, None
    for part in error.absolute_schema_path:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            break
        while isinstance(node, dict):
            if isinstance(node.get("description"), str):
                found = node["description"]
            if "$ref" not in node:
                break
            node = _resolve(root, node["$ref"])
    return found


def _resolve(root: dict, ref: str):
    node = root
    for part in ref.lstrip("#/").split("/"):
        node = node[part]
    return node


def _items(n: int) -> str:
    return f"{n} item{'' if n == 1 else 's'}"


def _known_keys(error) -> list:
    """The keys an additionalProperties failure allows (its schema's properties)."""
    return list((error.schema.get("properties") or {}).keys())


def _parents(error, key: str) -> list:
    """The keys allowed where an additionalProperties failure happened under which `key` is allowed: where a key
    written one level too shallow belongs (steps under flow, cells under board)."""
    root, found = rule_schema(), []
    for name, sub in (error.schema.get("properties") or {}).items():
        for _ in range(8):  # follow $refs
            if not isinstance(sub, dict) or "$ref" not in sub:
                break
            sub = _resolve(root, sub["$ref"])
        if isinstance(sub, dict) and key in (sub.get("properties") or {}):
            found.append(name)
    return found


def _enclosing_properties(error) -> dict:
    """The properties declared beside a failed keyword: in its own schema or, for a keyword inside a
    conditional ('then'/'else', as the keys only a file that is not an overlay requires), in the schema above."""
    own = error.schema.get("properties") if isinstance(error.schema, dict) else None
    if isinstance(own, dict):
        return own
    root = rule_schema()
    node, found, names = root, {}, False  # names: node is a mapping of names (properties, $defs), not a schema
    for part in list(error.absolute_schema_path)[:-1]:
        if not names and isinstance(node, dict) and isinstance(node.get("properties"), dict):
            found = node["properties"]
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            break
        names = part in ("properties", "$defs", "patternProperties") and not names
        while not names and isinstance(node, dict) and "$ref" in node:
            node = _resolve(root, node["$ref"])
    return found


def _unknown_keys(error) -> list:
    """The keys of the mapping that an additionalProperties failure refuses."""
    allowed = error.schema.get("properties") or {}
    return [k for k in error.instance if k not in allowed]


def _missing_keys(error) -> list:
    """The names a 'required' failure asks for that the mapping lacks.

    jsonschema reports each missing name as an error of its own, all with the same validator_value: every one
    of them yields all the names here, and validate_structure keeps each problem once."""
    return [name for name in error.validator_value if name not in error.instance]


def _subjects(error) -> list:
    """What one schema failure is about, one problem each: the unknown keys, the missing names, or just itself."""
    if error.validator == "additionalProperties":
        return _unknown_keys(error)
    if error.validator == "required":
        return _missing_keys(error)
    return [None]


def _message(error, doc: Document, subject=None) -> tuple[str, dict, str, str | None, bool]:
    """(code, fields, message, hint, point at key) in the rule file's own words; `subject` is the unknown key
    or the missing name the problem is about (see _subjects)."""
    path = tuple(error.absolute_path)
    where = "/".join(map(str, path)) or "the file"
    if error.validator == "additionalProperties":
        known = _known_keys(error)
        close = close_names(str(subject), known)
        parents = [] if close else _parents(error, str(subject))
        hint = suggestion(close) or (f"'{subject}' belongs under {' or '.join(repr(p) for p in parents)}: indent it "
                                     f"there" if parents else None) or \
            (f"allowed here: {', '.join(known)}" if known else None)
        inside = f"in {where}" if path else "at the top level"
        return "schema_unknown_key", {"path": path, "key": subject, "candidates": close, "allowed": known}, \
            f"unknown key '{subject}' {inside}", hint, True
    if error.validator == "required":
        prop = _enclosing_properties(error).get(subject, {})
        hint = prop.get("description") if isinstance(prop, dict) else None
        return "schema_required", {"path": path, "missing": subject}, \
            f"{where} is missing {subject!r}", hint or _description(error), False
    if error.validator == "enum":
        options = ", ".join(map(repr, error.validator_value))
        meaning = error.schema.get("description")  # what the key means, when the schema says so itself
        hint = f"use one of {options}" + (f": {meaning[0].lower()}{meaning[1:]}" if meaning else "")
        return "schema_enum", {"path": path, "value": error.instance, "allowed": error.validator_value}, \
            f"{where}: {error.instance!r} is not allowed", hint, False
    if error.validator == "type":
        want = error.validator_value
        want = want if isinstance(want, list) else [want]
        return "schema_type", {"path": path, "expected": want}, \
            f"{where} should be {_article(' or '.join(want))}, not {_json_type(error.instance)}", \
            _description(error), False
    if error.validator in ("anyOf", "oneOf"):
        types = _types(error)
        if types and _type_miss(error, path):
            return "schema_type", {"path": path, "expected": types}, \
                f"{where} should be {_article(' or '.join(types))}, not {_json_type(error.instance)}", \
                _description(error), False
        descriptions = [s.get("description") for s in error.validator_value if isinstance(s, dict)]
        hint = _description(error) or next((d for d in descriptions if d), None)
        return "schema_form", {"path": path}, f"{where} has the wrong form", hint, False
    if error.validator in ("minItems", "maxItems"):
        n, low = error.validator_value, error.validator == "minItems"
        exact = error.schema.get("minItems") == error.schema.get("maxItems")
        want = _items(n) if exact else f"{'at least' if low else 'at most'} {_items(n)}"
        return "schema_size", {"path": path, "limit": n, "size": len(error.instance)}, \
            f"{where} should have {want}, not {len(error.instance)}", _description(error), False
    if error.validator in ("minimum", "maximum"):
        word = "at least" if error.validator == "minimum" else "at most"
        return "schema_range", {"path": path, "limit": error.validator_value, "value": error.instance}, \
            f"{where} should be {word} {error.validator_value}, not {error.instance!r}", _description(error), False
    if error.validator == "minProperties" and error.validator_value == 1:
        return "schema_size", {"path": path, "limit": 1, "size": 0}, f"{where} is empty", _description(error), False
    # a rule of the schema with no words of our own: jsonschema's are shown, and the rule is named for programs
    return "schema_invalid", {"path": path, "validator": error.validator}, f"{where}: {error.message}", \
        _description(error), False


def _article(word: str) -> str:
    names = {"object": "a mapping", "array": "a list", "string": "a string", "integer": "a whole number",
             "number": "a number", "boolean": "true/false", "null": "empty"}
    words = [names.get(w.strip(), w.strip()) for w in word.split(" or ")]
    if words == ["true/false"]:
        return "true or false"
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


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
    leaves = [leaf for error in _validator().iter_errors(doc.data) for leaf in _leaf_errors(error)]
    # An unknown key that looks like a missing required one ('flowz' for 'flow') says it all: one problem.
    suggested = {}
    for leaf in leaves:
        if leaf.validator == "additionalProperties":
            known = _known_keys(leaf)
            for name in _unknown_keys(leaf):
                suggested.setdefault(tuple(leaf.absolute_path), set()).update(close_names(str(name), known))
    problems, seen = [], set()
    for leaf in leaves:
        path = tuple(leaf.absolute_path)
        for subject in _subjects(leaf):
            if leaf.validator == "required" and subject in suggested.get(path, ()):
                continue
            code, fields, message, hint, at_key = _message(leaf, doc, subject)
            at = path + (subject,) if leaf.validator == "additionalProperties" else path
            problem = doc.problem(at, message, hint, key=at_key, code=code, fields=fields)
            if (problem.location, message) not in seen:
                seen.add((problem.location, message))
                problems.append(problem)
    return problems
