"""Overrides that change nothing: keys an overlay or a variant adds that nothing reads, values set to what they were."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from .errors import Problem, close_names, suggestion
from .source import Document


def override_problems(doc: Document) -> list[Problem]:
    """An error for each key an overlay or variant added that the game never reads (most often a misspelt
    name), and a warning for each value it set to the value the base already had."""
    problems, words, base_keys = [], None, {}  # base_keys: the base's keys of each section, for did-you-mean
    added = {path[-1] for path, kind in doc.overrides if kind == "added"}  # not what the base has
    for path, kind in doc.overrides:
        if kind == "same":
            same = doc.problem(path, f"'{path[-1]}' is set to the value it already has in the base game",
                               "this override changes nothing: remove it, or give it another value",
                               key=True, code="override_unchanged", fields={"path": path})
            problems.append(replace(same, severity="warning"))
        elif _is_user_name(doc, path):
            words = _words(doc.data, ("variants",)) if words is None else words
            if words[path[-1]] > _words(_at(doc.data, path), None)[path[-1]]:
                continue  # an expression outside the key itself names it
            if path[:-1] not in base_keys:
                base_keys[path[:-1]] = [k for k in _at(doc.data, path[:-1]) if k not in added]
            close = close_names(str(path[-1]), base_keys[path[:-1]])
            problems.append(doc.problem(path, f"'{path[-1]}' is not in the base game and nothing reads it",
                                        suggestion(close) or "an override that nothing reads changes nothing: "
                                        "use it in an expression, or change a key the base game has",
                                        key=True, code="override_unread",
                                        fields={"path": path, "candidates": close}))
    return problems


# the sections whose entries are read only where an expression names them
NAMED_BY_EXPRESSIONS = ("let", "data", "functions", "procedures")


def _is_user_name(doc: Document, path: tuple) -> bool:
    """True for a name a designer gives an entry that only expressions read (a 'let', a table of 'data', a
    function), unless its expression is a load-time check(...), which runs without being read."""
    if len(path) != 2 or path[0] not in NAMED_BY_EXPRESSIONS or not isinstance(path[1], str):
        return False
    return not (path[0] == "let" and any(_CHECK.search(text) for text in _texts(_at(doc.data, path), (), None)))


_CHECK = re.compile(r"(?<![\w.])check\s*\(")


def _words(node, skip: tuple | None) -> Counter:
    """How many times each word occurs in the strings of `node` (once over the file: overlays can be large)."""
    return Counter(word for text in _texts(node, (), skip) for word in _WORD.findall(text))


_WORD = re.compile(r"\w+")


def _texts(node, at: tuple, skip: tuple):
    """The strings of `node` (keys aside), leaving out the subtree at `skip` (the 'variants' section, whose
    changes not applied read nothing)."""
    if at == skip:
        return
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _texts(value, at + (key,), skip)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _texts(value, at + (i,), skip)


def _at(data, path: tuple):
    for key in path:
        data = data[key]
    return data
