"""Which part of a compiled rule file each generated function belongs to, and where that part is written: for the
profiler's report, and to say which rule was running when a job was stopped."""

from __future__ import annotations

import dataclasses
import inspect
import weakref

from .. import budget, jail
from ..errors import Location
from ..lang.compiler import RULE_CODE_FILE, loops_called
from .rules import MoveRule, Step

# What each function of the compiled model does, in the report's words (any other: the field's name).
_PHASES = {"generate": "listing", "collect": "listing", "exists": "listing", "candidates": "listing",
           "explain": "listing", "parts": "listing", "weight": "listing", "apply": "effects", "note": "notation",
           "visible_to": "visible to", "init_fn": "init", "items": "arrangement", "require": "arrangement",
           "accept": "arrangement", "fixed": "arrangement"}


def code_owners(rules) -> dict:
    """id(code object) -> (code, name, path) for every function generated from the rule file (and the
    comprehensions inside it) and every declared built-in; `path` is where the part is written in the rule file
    (None for built-ins and code no part names). Code is named by the part of the compiled rules that holds it
    (and the field it is held in: listing, effects...), never by its Python name."""
    names: dict = {}

    def add(fn, name: str, path: tuple | None, generated: bool = True) -> None:
        for found in _reachable(fn) if generated else (fn,):
            code = getattr(getattr(found, "__func__", found), "__code__", None)
            # a closure the model builds in Python (a compound move's listing) shares its code with every rule
            # that has one: only generated code is one rule's own
            if code is None or (generated and not code.co_filename.startswith(RULE_CODE_FILE)):
                continue
            # a comprehension belongs to the function it is written in, and so does a loop compiled on its own
            loops = loops_called(found, rules.namespace) if generated else []
            for outer in [code] + [loop.__code__ for loop in loops]:
                for inner in _nested(outer):
                    names.setdefault(id(inner), (inner, name, path))

    def add_fields(obj, name: str, path: tuple, phase=_phase) -> None:
        for field, fn in _functions(obj):
            add(fn, f"{name} ({phase(field)})" if phase(field) else name, path)

    for step in rules.steps.values():
        for rule in step.moves if step.kind == "chance" else ():
            add_fields(rule, f"chance '{step.name}'", rule.path,
                       lambda field: "outcomes" if _phase(field) == "listing" else _phase(field))
            add(step.unchanged, f"chance '{step.name}' (outcomes)", rule.path)  # whether to list them again
        add_fields(step, f"step '{step.name}'", step.path)
    for rule in list(rules.moves.values()) + [s.pass_rule for s in rules.steps.values() if s.pass_rule]:
        add_fields(rule, f"move '{rule.name}'", rule.path)
    for i, end in enumerate(rules.end_rules):  # its condition, and what tells whether to ask it again
        add_fields(end, f"end rule {i + 1}", end.path, lambda field: "winners" if field == "winners" else "")
    for key in ("score", "tiebreak", "evaluation", "breakdown", "returns"):
        add(getattr(rules, key), f"scoring ({key})", ("scoring", key))
    for key in ("first_player", "next_player"):
        add(getattr(rules, key), f"flow ({key})", ("flow", key))
    for section, word, holders in (("zones", "zone", rules.zones), ("vars", "variable", rules.vars)):
        for holder in holders:
            add(holder.init_fn, f"{word} '{holder.name}' (init)", (section, holder.name))
            add(holder.sight, f"{word} '{holder.name}' (visible)", (section, holder.name, "visible"))
    for kind in rules.kinds.values():
        for attribute, fn in kind.derived.items():
            add(fn, f"piece '{kind.name}' ({attribute})", ("pieces", kind.name, "derived", attribute))
    # The compiler files what it generates under the part of the file it comes from ("function side_cells",
    # "end 1": see Rules.generated). The file's own functions and procedures are named from there, and so is
    # anything generated that the model holds where the walk above does not look. Reading the labels is the
    # one place here that depends on how the compiler names generated code.
    for label, fns in rules.generated.items():
        word, _, name = label.partition(" ")
        for fn in fns:
            add(fn, label, (f"{word}s", name) if word in ("function", "procedure") else None)
    for value in rules.namespace.values():
        declared = getattr(value, "builtin", None)
        if declared is not None:
            add(value, f"built-in {declared.name}", None, generated=False)
    return names


def written_at(rules, path: tuple) -> Location | None:
    """Where a part of the rule file is written: at its own line, else at that of the nearest part enclosing it."""
    while path:
        loc = rules.where(path)
        if loc.line:
            return loc
        path = path[:-1]
    return None


def _phase(field: str) -> str:
    """What the function a field of the compiled model holds does, in the report's words."""
    return _PHASES.get(field, field.replace("_", " "))


def _functions(obj):
    """(field, value) for each field of a part of the compiled model that holds functions (directly, in a
    list or tuple, or in a record such as a step's arrangement)."""
    for field in dataclasses.fields(obj):
        value = getattr(obj, field.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, (MoveRule, Step)):
            yield from _functions(value)
        elif value is not None and not isinstance(value, (str, dict, MoveRule, Step)):
            yield field.name, value


def _reachable(value, depth: int = 0):
    """The functions in a value: itself, in lists and tuples, and those captured by a function's closure (how
    a compound move wraps its own listing, effects and notation), to a small depth."""
    if isinstance(value, (list, tuple)):
        for item in value if depth < 4 else ():
            yield from _reachable(item, depth + 1)
    elif callable(value) and hasattr(value, "__code__"):
        yield value
        for cell in (value.__closure__ or ()) if depth < 4 else ():
            try:
                yield from _reachable(cell.cell_contents, depth + 1)
            except ValueError:  # a cell not yet filled
                continue


def _nested(code):
    """A code object and those compiled inside it (comprehensions, generator expressions)."""
    yield code
    for const in code.co_consts:
        if inspect.iscode(const):
            yield from _nested(const)


# -- which rule a running frame belongs to -------------------------------------------------------
_compiled: dict = {}  # id of a compiled game's namespace -> [weak reference to its Rules, its code_owners or None]


def remember(rules) -> None:
    """Keep a compiled game where locate_rule finds it (weakly: a game nobody uses is forgotten); in a jail's
    child, also name its code for the parent (see jail.name_code)."""
    for key in [key for key, (ref, _) in _compiled.items() if ref() is None]:
        del _compiled[key]
    entry = _compiled[id(rules.namespace)] = [weakref.ref(rules), None]

    def names():
        entry[1] = entry[1] or code_owners(rules)
        for code, name, path in entry[1].values():
            if code.co_filename.startswith(RULE_CODE_FILE) and not code.co_name.startswith("<"):
                yield code.co_filename, code.co_name, name, (written_at(rules, path) if path else None) or \
                    Location(rules.source)

    jail.name_code(names)


def locate_rule(frame) -> tuple | None:
    """(name, Location) of the part of a compiled rule file whose generated code `frame` runs, or None.

    Called by the budget's watchdog from its own thread: the owners of a game's code are worked out the first
    time one of its frames is asked about."""
    code = frame.f_code
    if not code.co_filename.startswith(RULE_CODE_FILE):
        return None
    entry = _compiled.get(id(frame.f_globals))
    rules = entry[0]() if entry is not None else None
    if rules is None or rules.namespace is not frame.f_globals:
        return None
    if entry[1] is None:
        entry[1] = code_owners(rules)
    found = entry[1].get(id(code))
    if found is None or found[0] is not code:
        return None
    _, name, path = found
    return name, (written_at(rules, path) if path else None) or Location(rules.source)


budget.locate_with(locate_rule)
