"""Overrides that change nothing: unread additions, values set to what they were, deletions of nothing."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from .errors import Problem, close_names, suggestion
from .source import Document


def override_problems(doc: Document) -> list[Problem]:
    """An error for each key an overlay or variant added that the game never reads (most often a misspelt
    name) or deleted that the base does not have, and a warning for each value it set to the value the base
    already had. Only what the file itself writes is reported (an inherited variant's changes are its base's)."""
    problems, words, base_keys = [], None, {}  # base_keys: the base's keys of each section, for did-you-mean
    added = {path for path, kind in doc.overrides if kind == "added"}  # not what the base has

    def candidates(path: tuple) -> list:
        if path[:-1] not in base_keys:
            parent = _get(doc.data, path[:-1])
            base_keys[path[:-1]] = [k for k in parent if path[:-1] + (k,) not in added] \
                if isinstance(parent, dict) else []
        return close_names(str(path[-1]), base_keys[path[:-1]])

    for path, kind in doc.overrides:
        if not _written_here(doc, path):
            continue
        if kind == "same":
            same = doc.problem(path, f"'{path[-1]}' is set to the value it already has in the base game",
                               "this override changes nothing: remove it, or give it another value",
                               key=True, code="override_unchanged", fields={"path": path})
            problems.append(replace(same, severity="warning"))
        elif kind == "missing":
            close = candidates(path)
            problems.append(doc.problem(path, f"'{path[-1]}' is deleted (set to null), but the base game has no "
                                        f"{_dotted(path)}", suggestion(close) or "a null deletes a key of the "
                                        "base game; this one deletes nothing: remove it",
                                        key=True, code="override_missing", fields={"path": path, "candidates": close}))
        elif kind == "added" and _is_user_name(doc, path):
            words = _words(doc.data, ("variants",)) if words is None else words
            if words[path[-1]] > _words(_at(doc.data, path), None)[path[-1]] + 1:
                continue  # named somewhere besides its own key and definition
            close = candidates(path)
            problems.append(doc.problem(path, f"'{path[-1]}' is not in the base game and nothing reads it",
                                        suggestion(close) or "an override that nothing reads changes nothing: "
                                        f"{_USED_BY.get(path[:-1], 'use it in an expression')}, or change a key "
                                        "the base game has",
                                        key=True, code="override_unread",
                                        fields={"path": path, "candidates": close}))
    return problems


def inherited_variant_problems(doc: Document) -> list[Problem]:
    """A warning for each variant, inherited from the base, that undoes a change the overlay makes, or that no
    longer changes anything under the overlay: its description, written for the base game, may no longer be
    true. `doc` is the overlay as loaded, with no variant applied."""
    changed = [path for path, kind in doc.overrides if kind in ("added", "changed", "deleted")]
    variants = doc.data.get("variants") if isinstance(doc.data, dict) else None
    if not changed or not isinstance(variants, dict):
        return []
    problems = []
    for name, spec in variants.items():
        changes = spec.get("changes") if isinstance(spec, dict) else None
        prefix = ("variants", name, "changes")
        if not changes or not isinstance(changes, dict) or _written_here(doc, ("variants", name, "description")):
            continue  # a variant the overlay describes anew is its own
        leaves = [(leaf, value) for leaf, value in _leaves(changes, ()) if not _written_here(doc, prefix + leaf)]
        hint = (f"check that the variant still means what it says: give it a new description and changes under "
                f"'variants: {name}:' here, or remove it here with 'variants: {{{name}: null}}'")
        described = spec.get("description")
        said = f"; its description ('{described}') was written for the base game" if described else ""
        unchanged, same = [], True  # the overlay's changes the variant repeats; whether it changes nothing now
        for leaf, value in leaves:
            collides = [p for p in changed if p[:len(leaf)] == leaf or leaf[:len(p)] == p]
            now = _get(doc.data, leaf)
            if now == value and type(now) is type(value):
                unchanged += collides
                continue
            same = False
            for path in collides:
                problem = doc.problem(path, f"variant '{name}', inherited from the base game, undoes this change: it "
                                      f"sets {_dotted(leaf)} as the base game's variant does{said}", hint, key=True,
                                      code="variant_inherited", fields={"variant": name, "path": path})
                problems.append(replace(problem, severity="warning"))
        if same and unchanged:
            problem = doc.problem(unchanged[0], f"variant '{name}', inherited from the base game, changes nothing "
                                  f"under this overlay, which already makes its changes{said}", hint, key=True,
                                  code="variant_inherited", fields={"variant": name, "path": unchanged[0]})
            problems.append(replace(problem, severity="warning"))
    return problems


# the sections whose entries are named by the designer and read only where something names them
NAMED_SECTIONS = {("let",), ("data",), ("functions",), ("procedures",), ("vars",), ("zones",), ("moves",),
                  ("pieces",), ("options",), ("board", "directions"), ("board", "regions"), ("board", "links"),
                  ("flow", "steps")}


# how an entry of a section comes to be used, where that is not by being named in an expression
_USED_BY = {("moves",): "offer it in a step's 'moves:' list", ("flow", "steps"): "name it in another step's 'next:'"}


def _is_user_name(doc: Document, path: tuple) -> bool:
    """True for a name a designer gives an entry that only what names it reads (a 'let', a table of 'data', a
    function, a move, a zone...), unless it is a 'let' whose expression is a load-time check(...), which runs
    without being read."""
    if path[:-1] not in NAMED_SECTIONS or not isinstance(path[-1], str):
        return False
    return not (path[0] == "let" and any(_CHECK.search(text) for text in _texts(_at(doc.data, path), (), None)))


def _written_here(doc: Document, path: tuple) -> bool:
    """True when the node at `path` (or its nearest ancestor) is written in the file being checked."""
    info = doc.info(path)
    return info is None or info.loc.file == doc.file


def _dotted(path: tuple) -> str:
    return "'" + ".".join(map(str, path)) + "'"


def _leaves(node, at: tuple):
    """(path, value) of each value in a mapping of changes that is not itself a mapping (null included)."""
    for key, value in node.items():
        if isinstance(value, dict) and value:
            yield from _leaves(value, at + (key,))
        else:
            yield at + (key,), value


def _get(data, path: tuple):
    """The value at `path`, or None where there is none."""
    for key in path:
        if not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    return data


_CHECK = re.compile(r"(?<![\w.])check\s*\(")


def _words(node, skip: tuple | None) -> Counter:
    """How many times each word occurs in the strings and keys of `node` (once over the file: overlays can be
    large)."""
    return Counter(word for text in _texts(node, (), skip) for word in _WORD.findall(text))


_WORD = re.compile(r"\w+")


def _texts(node, at: tuple, skip: tuple):
    """The strings of `node`, the keys of its mappings included, leaving out the subtree at `skip` (the
    'variants' section, whose changes not applied read nothing)."""
    if at == skip:
        return
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            if at + (key,) != skip:
                yield str(key)
            yield from _texts(value, at + (key,), skip)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _texts(value, at + (i,), skip)


def _at(data, path: tuple):
    for key in path:
        data = data[key]
    return data
