"""The names a rule file declares: plain identifiers only, none beginning with '_', none taking the place of a name
the language gives, checked before compiling."""

from __future__ import annotations

from ..lang.compiler import is_name
from ..lang.parser import WORDS

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
# Of those, the names written in quotes where they are used ('step', piece('kind', ...)), never read as names.
_QUOTED = {("moves",), ("pieces",), ("board", "links"), ("board", "directions"), ("flow", "steps")}
_HINT = "a name starts with a letter and holds only letters, digits and '_' (names beginning with '_' are reserved)"
# The fields every cell has, which a board attribute would hide; Python's own read-only fields of a cell (an integer)
# are refused with them. Grid cells also have these:
CELL_FIELDS = ("name", "index", "real", "imag", "numerator", "denominator")
GRID_FIELDS = ("x", "y", "col", "row")
# A move's params and lets are read through last_move beside these fields of its own (`last_move.by`).
MOVE_FIELDS = ("by", "kind")
# A compound move's inputs, params and lets are seen with these, in its parts' inputs and conditions.
COMPOUND_NAMES = ("part", "parts")
PIECE_FIELDS = ("kind",)  # a piece's own field beside its attributes: `p.kind`
DRAW_NAMES = ("outcome",)  # what a draw or an arrangement step's effects read the items by


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


def _remove(found, key, path: tuple, message: str, hint: str, code: str, report) -> None:
    """Report the name at `key` of the mapping or list `found` (under `path`) and remove it."""
    name = found[key] if isinstance(found, list) else key
    report(path + (key,), message, hint, isinstance(found, dict), code, name)
    del found[key]


def check_names(doc, report) -> set:
    """Report (report(path, message, hint, key, code, name)) every declared name that is not a plain identifier, or
    that would take the place of a name the language gives, and remove it from the document, so that nothing after
    this sees it. Returns the names removed (their uses are a consequence, not worth reporting again)."""
    removed: set = set()

    def withdraw(path, message, hint, key, code, name):
        removed.add(name)
        report(path, message, hint, key, code, name)

    _check_names(doc.data, withdraw)
    return removed


def _check_names(data, report) -> None:
    for pattern in _DECLARED:
        listed = pattern[-1].endswith("[]")
        for path, found in list(_places(data, pattern)):
            if not isinstance(found, list if listed else dict):
                continue
            keys = range(len(found)) if listed else list(found)
            for key in reversed(keys) if listed else keys:
                name = found[key] if listed else key
                if not is_name(name):
                    _remove(found, key, path, f"{name!r} cannot be a name" if listed else f"'{name}' cannot be a name",
                            _HINT, "bad_name", report)
                elif name in WORDS and pattern not in _QUOTED:
                    _remove(found, key, path, f"'{name}' is a word of the language, not a name",
                            "true, false, none, and, or, not, in, if, else and for are never read as names: "
                            "choose another", "reserved_name", report)
    _refuse_reserved(data, report)
    _refuse_repeats(data, report)
    _refuse_underscore_keys(data, (), report)


def _refuse_reserved(data, report) -> None:
    """Names that would hide a field or a name the language gives in the same place (a move's param `by` beside
    last_move.by, a board attribute `name` beside each cell's name): reported at the name, which is removed where
    compiling it could go wrong (a cell renamed, a parameter given twice). Where it cannot, it is kept, so that
    what uses it is not reported as well."""
    board = data.get("board") if isinstance(data.get("board"), dict) else {}
    cell_fields = CELL_FIELDS + (GRID_FIELDS if board.get("grid") else ())
    moves = data.get("moves") if isinstance(data.get("moves"), dict) else {}
    compound = tuple(("moves", name) for name, spec in moves.items() if isinstance(spec, dict)
                     and (spec.get("parts") or spec.get("repeat")))
    steps = (data.get("flow") or {}).get("steps") if isinstance(data.get("flow"), dict) else None
    drawing = tuple(("flow", "steps", name) for name, spec in (steps.items() if isinstance(steps, dict) else ())
                    if isinstance(spec, dict) and isinstance(spec.get("chance"), dict)
                    and ("draw" in spec["chance"] or "arrangement" in spec["chance"]))
    rules = [  # (patterns, the names refused there, what they are there, whether the name is kept)
        ([("moves", "*", "params"), ("moves", "*", "let")], MOVE_FIELDS,
         "last_move.by and last_move.kind are the seat that made a move and the move's name", True),
        ([c + (part,) for c in compound for part in ("params", "let", "inputs[]")], COMPOUND_NAMES,
         "a compound move's parts read the parts made so far as parts, and the one being made as part", False),
        ([("pieces", "*", "attributes"), ("pieces", "*", "derived")], PIECE_FIELDS, "p.kind is a piece's kind", True),
        ([("board", "attributes")], cell_fields,
         "every cell has a name and an index" + (", and grid cells x, y, col and row" if board.get("grid") else ""),
         False),
        ([s + ("inputs[]",) for s in drawing], DRAW_NAMES, "a draw's or an arrangement's effects read what was "
         "drawn as outcome", False),
    ]
    for patterns, names, why, kept in rules:
        for pattern in patterns:
            listed = pattern[-1].endswith("[]")
            for path, found in list(_places(data, pattern)):
                if not isinstance(found, list if listed else dict):
                    continue
                keys = reversed(range(len(found))) if listed else list(found)
                for key in [k for k in keys if (found[k] if listed else k) in names]:
                    name = found[key] if listed else key
                    message, hint = f"'{name}' is a name the language gives here", f"{why}: call it something " \
                                                                                    f"else, e.g. '{name}_'"
                    if kept:
                        report(path + (key,), message, hint, not listed, "reserved_name", name)
                    else:
                        _remove(found, key, path, message, hint, "reserved_name", report)


def _refuse_repeats(data, report) -> None:
    """A name given twice among one function's parameters and lets, among one move's inputs, params and lets, or
    among a chance step's inputs and its outcomes' params and lets (each group shares one scope): reported at the
    second, which is removed."""
    groups = []  # (path of the declaration, what it is, the paths below it that declare names in one scope)
    for section in ("functions", "procedures", "moves"):
        specs = data.get(section)
        groups += [((section, name), f"{section[:-1]} '{name}'", (("inputs",), ("params",), ("let",)))
                   for name in (specs if isinstance(specs, dict) else ())]
    steps = data["flow"].get("steps") if isinstance(data.get("flow"), dict) else None
    groups += [(("flow", "steps", name), f"step '{name}'",
                (("inputs",), ("chance", "outcomes", "params"), ("chance", "outcomes", "let")))
               for name in (steps if isinstance(steps, dict) else ())]
    for where, what, parts in groups:
        seen: set = set()
        for part in parts:
            found = next((found for _, found in _places(data, where + part)), None)
            if not isinstance(found, (list, dict)):
                continue
            repeated = []
            for i, given in enumerate(list(found)):
                if given in seen:
                    repeated.append(i if isinstance(found, list) else given)
                seen.add(given)
            for key in reversed(repeated):
                _remove(found, key, where + part, f"'{found[key] if isinstance(found, list) else key}' is declared "
                        f"twice in {what}", "the inputs, params and lets of one move or chance step, and a function's "
                        "params and lets, need names of their own", "duplicate_name", report)


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
