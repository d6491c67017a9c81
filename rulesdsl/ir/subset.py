"""The compiled subset: whether each rule of a game is one a compiled backend can take, and if not, why, located.

The contract, one stable code a reason:
- `untyped`: a value the rule reads or writes whose static type is not known at load (T.ANY), reported where the
  unknown type comes from (the innermost such node whose parts are typed), not at everything computed from it;
- `runtime_text`: text built while playing (`+`, `*` or `%` on text, a built-in that builds text) outside notation,
  render and features (texts only compared are interned, and fine);
- `unbounded_list`: a variable or zone whose type is a list with no bound on its length, that the rule grows
  (`+=`, `x = x + ...`, `place` into a zone);
- `unsupported`: a call of a built-in declared `compiled=False` (lang/declare.py), with its reason;
- `unfit_state`: a part of the state that arrays of a size fixed at load cannot hold (layout.py says why),
  reported at its declaration as a rule of its own (`var x`, `zone x`, `pieces`).
What play never runs compiled is left out: how a move is printed (`notation`), the bound its actions are
numbered by (`among`), worked out at load like every value of data, lets, the board and pieces, and who sees a
place (a `visible:` expression), worked out for observations from the state converted to the Python engine's.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..errors import Problem
from ..lang import types as T
from ..source import Document
from . import nodes as N
from .game import GameIR, MovePlan
from .show import labels, source, type_text

UNTYPED, RUNTIME_TEXT, UNBOUNDED_LIST, UNSUPPORTED, UNFIT_STATE = \
    "untyped", "runtime_text", "unbounded_list", "unsupported", "unfit_state"
CODES = (UNTYPED, RUNTIME_TEXT, UNBOUNDED_LIST, UNSUPPORTED, UNFIT_STATE)
_STATEMENTS = (N.Assign, N.Do, N.If, N.Loop, N.Clause)
_TEXT_OPS = ("+", "*", "%")
_ASSIGNED = ("temp", "local")  # names a rule's effects give a value (`local`: known to the compiler's scope)
_LOCALS = {"param": "the param", "let": "the let", "loop": "the loop variable", "arg": "the argument",
           "input": "the input", "temp": "", "var": "the variable", "zone": "the zone", "data": "the table",
           "global": "the let"}
_HINTS = {
    UNTYPED: "a compiled backend holds every value in a type fixed at load: until this one is known, the rule "
             "runs in Python",
    RUNTIME_TEXT: "compare fixed texts instead, or build text only in notation, render or features",
    UNBOUNDED_LIST: "a compiled backend holds a list in a size fixed at load: keep a count, or a table keyed by "
                    "a fixed set, instead of a list that grows",
    UNSUPPORTED: "compute it another way, or only where play does not run it (notation, render, features)",
    UNFIT_STATE: "a compiled backend holds the state in arrays of a size fixed at load: declare capacity: on a "
                 "list or zone that grows, and values: on a piece attribute",
}


@dataclass(frozen=True)
class Reason:
    """Why a rule is not in the subset: `code` (see CODES), what is wrong, and where (`at`: the node's (path,
    start, end), see nodes.Node)."""

    code: str
    message: str
    at: tuple
    told: str | None = None  # a hint of its own, in place of its code's

    @property
    def hint(self) -> str:
        return self.told or _HINTS[self.code]


@dataclass
class Verdict:
    """One rule (`rule`: its label, as `compile` lists it) and why it is not in the subset (none: it is)."""

    rule: str
    reasons: list = field(default_factory=list)

    @property
    def compiled(self) -> bool:
        return not self.reasons


def check(game: GameIR) -> list[Verdict]:
    """Every rule of the game, in the order `compile` lists them, with the reasons it is not in the subset."""
    definers = _definers(game)
    verdicts = []
    for label, decl in labels(game).items():
        roots = [node for path, found in game.exprs.items()
                 if path[:len(decl)] == decl and _played(path) for node in found]
        verdicts.append(Verdict(label, _Rule(game, definers).reasons(roots) + _constructs(game, decl)))
    return verdicts


# keys of a rule that a compiled backend does not take yet, whatever they say: (the key's path's end, why)
_CONSTRUCTS: dict = {}  # (none today: a draw's refill: is taken)


def _constructs(game: GameIR, decl: tuple) -> list[Reason]:
    """The reasons (`unsupported`) for the keys of the rule at `decl` that a compiled backend does not take."""
    return [Reason(UNSUPPORTED, _CONSTRUCTS[path[-2:]], found[0].at) for path, found in game.exprs.items()
            if path[:len(decl)] == decl and path[-2:] in _CONSTRUCTS and found]


def state(layout) -> list[Verdict]:
    """The parts of the state (layout.py) a compiled backend cannot hold, each as a rule of its own."""
    verdicts = [Verdict(slot.name, [_unfit(slot)]) for slot in layout.unfit() if slot.kind != "log"]
    if layout.pieces_unfit:
        verdicts.append(Verdict("pieces", [Reason(UNFIT_STATE, f"pieces cannot be numbered: {layout.pieces_unfit}",
                                                  (("pieces",), None, None))]))
    return verdicts


def _unfit(slot) -> Reason:
    """Why a part of the state does not fit: its size, or a construct the backend does not take yet."""
    if slot.construct:
        return Reason(UNSUPPORTED, slot.why, (slot.decl, None, None),
                      "a compiled backend does not take it yet: the Python engine plays the game (--backend python, "
                      "or auto, the default)")
    return Reason(UNFIT_STATE, f"'{slot.name}' cannot be held in a fixed size: {slot.why}", (slot.decl, None, None))


def problems(verdict: Verdict, doc: Document) -> list[Problem]:
    """A verdict's reasons as problems located in the rule file (`doc`, the file as it was compiled)."""
    found = []
    for reason in verdict.reasons:
        path, start, end = reason.at
        width = 1 if start is None else max(1, end - start)
        problem = doc.problem(path or ("game",), reason.message, reason.hint, offset=start, width=width,
                              code=reason.code, fields=(("rule", verdict.rule),))
        found.append(replace(problem, severity="warning"))  # the rule runs, in Python
    return found


def _played(path: tuple) -> bool:
    """Whether play runs the expression at `path` (not notation, nor the bound `among` worked out at load)."""
    if path[-1] == "notation" and (len(path) < 2 or path[-2] not in ("params", "let", "inputs")):
        return False
    if path[-1] == "visible" and len(path) == 3 and path[0] in ("zones", "vars"):
        return False  # who sees a place is worked out for observations, in Python on every backend
    return not (path[-1] == "among" and len(path) >= 3 and path[-3] == "params")


def _definers(game: GameIR) -> dict:
    """(kind, declaration) of each name a rule declares -> the expressions its value comes from: a param's domain,
    a let's value, a loop variable's collection (a name the effects assign is its rule's: see _Rule)."""
    found: dict = {}
    plans = list(game.moves.values())
    for step in game.steps.values():
        plans += [p for p in (step.passing, step.chance.outcomes if step.chance else None) if p is not None]
    lets = [let for fn in game.functions.values() for let in fn.lets]
    while plans:
        plan: MovePlan = plans.pop()
        plans += plan.parts + ([plan.repeat] if plan.repeat is not None else [])
        lets += plan.lets
        for p in plan.params:
            if p.domain is not None:
                found.setdefault(("param", p.decl), []).append(p.domain)
    for let in lets:
        if let.value is not None:
            found.setdefault(("let", let.decl), []).append(let.value)
    for node in game.nodes():
        if isinstance(node, N.Clause):
            for target in node.targets:
                found.setdefault(_key(target), []).append(node.iterable)
    return found


def _key(ref: N.Ref) -> tuple:
    """What a name names: its kind and declaration (a name the effects assign: its kind and name, in its rule)."""
    if ref.kind in _ASSIGNED:
        return (ref.kind, ref.name)
    return (ref.kind, ref.decl if ref.decl is not None else ref.decl_at)


def _unknown(t: T.Type) -> bool:
    return t.name == "any"


class _Rule:
    """The reasons of one rule, each said once (a name at its first use, an expression at its first place)."""

    def __init__(self, game: GameIR, definers: dict):
        self.game = game
        self.definers = definers
        self.assigned: dict = {}  # the names the rule's effects assign -> the values they are given
        self.found: dict = {}  # what a reason is about -> the reason

    def reasons(self, roots: list) -> list[Reason]:
        for root in roots:  # the names the rule's effects assign, and what they are given
            if isinstance(root, N.Assign) and isinstance(root.target, N.Ref) and root.target.kind in _ASSIGNED:
                self.assigned.setdefault(_key(root.target), []).append(root.value)
        for root in roots:
            effect = id(root.call) if isinstance(root, N.Do) else None  # called for what it does: no value
            bindings, runs = set(), set()
            for node, parent in _walk(root):
                if isinstance(node, N.Clause):
                    bindings.update(id(t) for t in node.targets)
                _mark_run(node, runs)
                if id(node) != effect and id(node) not in runs:
                    self._untyped(node, id(node) in bindings)
                self._text(node, parent)
                self._call(node)
                self._growth(node)
        return list(self.found.values())

    def _add(self, about: tuple, code: str, message: str, node) -> None:
        self.found.setdefault(about, Reason(code, message, node.at))

    # -- untyped --
    def _untyped(self, node, binding: bool) -> None:
        if isinstance(node, _STATEMENTS) or not _unknown(node.type):
            return
        if isinstance(node, N.Ref):
            self._untyped_name(node, binding)
            return
        parts = [c.iterable if isinstance(c, N.Clause) else c for c in node.children() if c is not None]
        if any(_unknown(p.type) for p in parts):
            return  # the type is lost below: reported there
        text = _short(source(node))
        if isinstance(node, N.Call):
            what = f"the value of '{node.func}()'" if node.target != "builtin" else f"what '{node.func}()' gives here"
        elif isinstance(node, N.Attr):
            what = f"the attribute '{node.name}' of {type_text(node.obj.type)}"
        elif isinstance(node, N.Index):
            what = f"an item of {type_text(node.obj.type)}"
        else:
            what = f"'{text}'"
        self._add(("expr", text), UNTYPED, f"the type of {what} is not known at load", node)

    def _untyped_name(self, ref: N.Ref, binding: bool) -> None:
        if ref.kind == "option" and ref.name == "option":  # the options' namespace, read as option.x
            return
        if ref.kind == "loop" and not binding:
            return  # reported where it is bound, if at all
        given = (self.assigned if ref.kind in _ASSIGNED else self.definers).get(_key(ref), ())
        if any(_unknown(d.type) for d in given):
            return  # unknown only because what gives it its value is: reported there
        what = " ".join(filter(None, [_LOCALS.get(ref.kind, ""), f"'{ref.name}'"]))
        if ref.kind == "loop" and given:
            what += f" (an item of {type_text(given[0].type)})"
        self._add(("name",) + _key(ref) + (ref.name,), UNTYPED, f"the type of {what} is not known at load", ref)

    # -- runtime_text --
    def _text(self, node, parent) -> None:
        if not self._builds_text(node) or (parent is not None and self._builds_text(parent)) or self._constant(node):
            return  # (the outermost of text built from text is the one reported)
        if isinstance(node, N.Call):
            why = self.game.builtins[node.func].why_not
            message = f"'{node.func}()' is called while playing, and {why}"
        else:
            message = f"text is built while playing ('{node.op}' on text)"
        self._add(("text", id(node)), RUNTIME_TEXT, message, node)

    def _builds_text(self, node) -> bool:
        if isinstance(node, N.Binary):
            return node.op in _TEXT_OPS and any(_text_only(t) for t in (node.type, node.left.type, node.right.type))
        declared = self._declared(node)
        return declared is not None and not declared.compiled and _text_only(declared.returns)

    # -- unsupported --
    def _call(self, node) -> None:
        declared = self._declared(node)
        if declared is None or declared.compiled or _text_only(declared.returns) or self._constant(node):
            return
        self._add(("call", node.func), UNSUPPORTED, f"'{node.func}()' has no compiled form: {declared.why_not}", node)

    def _declared(self, node):
        if isinstance(node, N.Call) and node.target == "builtin":
            return self.game.builtins.get(node.func)
        return None

    def _constant(self, node) -> bool:
        """Whether `node` is worked out once, at load: constants, and pure built-ins of them."""
        for sub in N.walk(node):
            if isinstance(sub, N.Ref) and not sub.const or isinstance(sub, (N.Comp, N.Clause)):
                return False
            if isinstance(sub, N.Call) and not getattr(self._declared(sub), "fold", False):
                return False
        return True

    # -- unbounded_list --
    def _growth(self, node) -> None:
        if isinstance(node, N.Assign):
            grows = node.op == "+=" or node.op == "=" and isinstance(node.value, N.Binary) \
                and node.value.op == "+" and source(node.target) in (source(node.value.left), source(node.value.right))
            if grows:
                self._unbounded(node.target, node)
        elif isinstance(node, N.Call) and node.func == "place" and node.target == "builtin" and len(node.args) == 2:
            self._unbounded(node.args[1], node)

    def _unbounded(self, place, node) -> None:
        root = place
        while isinstance(root, (N.Index, N.Attr)):
            root = root.obj
        if not isinstance(root, N.Ref) or root.kind not in ("var", "zone"):
            return
        if place.type.name in ("list", "seq") and place.type.high is None:
            what = f"{_LOCALS[root.kind]} '{root.name}'" + ("" if place is root else f" ({_short(source(place))})")
            self._add(("grows", source(place)), UNBOUNDED_LIST,
                      f"{what} grows here, and no bound on its length is known", node)


def _mark_run(node, runs: set) -> None:
    """Put in `runs` the steps of a run of operators (`a + b` in `a + b + c`) whose result has a known type: the
    type pass types a run as a whole, and each step's type follows from its operands'. (Each step once: a run
    may be thousands long.)"""
    if not isinstance(node, (N.Binary, N.Logic)) or id(node) in runs or _unknown(node.type):
        return
    step = node.left
    while type(step) is type(node) and id(step) not in runs:
        runs.add(id(step))
        step = step.left


def _text_only(t) -> bool:
    return isinstance(t, T.Type) and t.name == "text"


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _walk(root):
    """(node, its parent) for `root` and every node below it, parents first (without recursion)."""
    todo = [(root, None)]
    while todo:
        node, parent = todo.pop()
        yield node, parent
        todo.extend((child, node) for child in reversed(node.children()) if child is not None)


def counts(verdicts: list[Verdict]) -> dict:
    """How many reasons of each code the verdicts give (for a summary)."""
    found = dict.fromkeys(CODES, 0)
    for verdict in verdicts:
        for reason in verdict.reasons:
            found[reason.code] += 1
    return found
