"""The names a rule file declares: plain identifiers only, none beginning with '_', checked before compiling."""

from __future__ import annotations

from ..lang.compiler import is_name

# Where a rule file declares names, as paths with '*' for any key; a trailing '[]' marks a list of names.
# Every one of these names can reach an expression (or generated code), so each must be a plain identifier.
_DECLARED = [
    ("data",), ("let",), ("functions",), ("procedures",), ("zones",), ("vars",), ("options",), ("moves",),
    ("pieces",), ("pieces", "*", "attributes"), ("pieces", "*", "derived"),
    ("board", "regions"), ("board", "attributes"), ("board", "links"), ("board", "directions"),
    ("flow", "steps"), ("moves", "*", "params"), ("moves", "*", "let"), ("moves", "*", "inputs[]"),
    ("functions", "*", "params[]"), ("functions", "*", "let"), ("procedures", "*", "params[]"),
    ("flow", "steps", "*", "chance", "outcomes", "params"), ("flow", "steps", "*", "chance", "outcomes", "let"),
    ("flow", "steps", "*", "chance", "outcomes", "inputs[]"), ("flow", "steps", "*", "inputs[]"),
]
_HINT = "a name starts with a letter and holds only letters, digits and '_' (names beginning with '_' are reserved)"


def _places(data, pattern: tuple, path: tuple = ()):
    """(path, container) for every mapping or list in `data` that `pattern` names."""
    if not pattern:
        yield path, data
        return
    head, rest = pattern[0], pattern[1:]
    if not isinstance(data, dict):
        return
    keys = list(data) if head == "*" else [head.removesuffix("[]")] if head.removesuffix("[]") in data else []
    for key in keys:
        yield from _places(data[key], rest, path + (key,))


def check_names(doc, report) -> None:
    """Report (report(path, message, hint, key, code, name)) every declared name that is not a plain identifier and
    remove it from the document, so that nothing after this sees it."""
    data = doc.data
    for pattern in _DECLARED:
        listed = pattern[-1].endswith("[]")
        for path, found in list(_places(data, pattern)):
            if listed and isinstance(found, list):
                bad = [i for i, name in enumerate(found) if not is_name(name)]
                for i in reversed(bad):
                    report(path + (i,), f"{found[i]!r} cannot be a name", _HINT, False, "bad_name", found[i])
                    del found[i]
            elif not listed and isinstance(found, dict):
                for name in [n for n in found if not is_name(n)]:
                    report(path + (name,), f"'{name}' cannot be a name", _HINT, True, "bad_name", name)
                    del found[name]
    _refuse_repeats(data, report)
    _refuse_underscore_keys(data, (), report)


def _refuse_repeats(data, report) -> None:
    """A name given twice among one function's parameters and lets, or among one move's inputs, params and
    lets (they share one scope): reported at the second, which is removed."""
    for section in ("functions", "procedures", "moves"):
        specs = data.get(section)
        for name, spec in specs.items() if isinstance(specs, dict) else ():
            seen: set = set()
            for part in ("inputs", "params", "let") if isinstance(spec, dict) else ():
                found = spec.get(part)
                if not isinstance(found, (list, dict)):
                    continue
                repeated = []
                for i, given in enumerate(list(found)):
                    if given in seen:
                        repeated.append(i if isinstance(found, list) else given)
                    seen.add(given)
                for key in reversed(repeated):
                    given = found[key] if isinstance(found, list) else key
                    report((section, name, part, key), f"'{given}' is declared twice in {section[:-1]} '{name}'",
                           "the params, lets and inputs of one move, and a function's params and lets, need names "
                           "of their own", isinstance(found, dict), "duplicate_name", given)
                    del found[key]


def _refuse_underscore_keys(data, path: tuple, report) -> None:
    """Any other key beginning with '_' (outside data tables, which are only ever indexed) is refused."""
    todo = [(data, path)]
    while todo:
        node, where = todo.pop()
        if isinstance(node, dict):
            for key in list(node):
                if isinstance(key, str) and key.startswith("_") and where[:1] != ("data",):
                    report(where + (key,), f"'{key}': keys beginning with '_' are reserved", _HINT, True, "bad_name", key)
                    del node[key]
                else:
                    todo.append((node[key], where + (key,)))
        elif isinstance(node, list):
            todo.extend((item, where + (i,)) for i, item in enumerate(node))
