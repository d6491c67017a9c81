"""Compiling moves: parameter loops with hoisted conditions, effects, notation templates, compound parts."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Callable

from ..errors import close_names, suggestion
from ..ir import nodes as N
from ..ir.python import Compiler
from ..lang import ast as A
from ..lang import types as T
from ..lang.compiler import CompileProblem, Scope, built, local
from ..lang.emit import Append, Assign, Comment, Continue, Effect, For, Guard, If, Return, Stmt, Try, Yield
from ..lang.held import items
from ..lang.parser import SyntaxProblem, parse
from ..limits import MAX_LOOP_DEPTH, MAX_PARAMS, MAX_PARTS, MAX_TEMPLATE_CHARS
from ..lang.builtins import value_key
from .compile_support import _FAIL, _flatten, _ident
from .bounds import inferred_bound
from .reads import NOTHING
from .game import Rules
from .parts import Repeat, compound, repeated
from .rules import InternedMoves, Move, MoveRule, ParamDomain
from .values import notation_text, text_of

_UNKNOWN = ("unknown_function", "unknown_attribute", "unknown_option")  # names notation may lack, besides plain ones
# A param whose domain is a constant of at most this many values, each holding at most _HELD_MOST items, has that
# bound known when its value is written into the position (see Binding.held): no call counts it.
_HELD_VALUES, _HELD_MOST = 10_000, 1000
_IDENT = re.compile(r"[A-Za-z_]\w*")
_STOPS = ("any", "stuck", "longest")  # which sequences of a repeated part are moves (see parts.repeated)


@dataclass
class _Check:
    """A move's `when` condition; `index` is its place in the rule's checks (what explain returns)."""

    code: str
    index: int


@dataclass
class _Level:
    """One depth of a move's parameter loops (depth 0 is before the first loop): the loop over a param's domain,
    then the lets and checks for which that param is the last name bound."""

    param: str | None = None
    domain: str | None = None
    index: int = 0  # the place of "param must be one of its domain" in the rule's checks
    node: object = None  # the domain's syntax tree
    path: tuple = ()  # where the domain is written
    scope: object = None  # the names the domain may use
    among: object = None  # the syntax tree of the param's declared bound (`among:`), if any
    among_path: tuple = ()
    lets: list[Assign] = field(default_factory=list)
    checks: list[tuple[int, _Check]] = field(default_factory=list)  # (i, check): it runs after lets[i]; -1: first

    def statements(self, leave: Callable[[_Check], Stmt]) -> list[Stmt]:
        """The lets and checks in the order they run, each check a Guard that leaves by leave(check)."""
        steps = [check for after, check in self.checks if after < 0]
        for i, let in enumerate(self.lets):
            steps += [let] + [check for after, check in self.checks if after == i]
        return [Guard(s.code, leave(s)) if isinstance(s, _Check) else s for s in steps]

    def loop(self, body: list[Stmt]) -> For:
        return For((f"L_{self.param}",), self.domain, body)


@dataclass
class _Search:
    """How a move's legal argument tuples are found: nested loops over the params' domains, each let and check
    hoisted into the loop of the last param it uses, so that a value that fails a check is dropped before the
    loops inside it run. Every kind of function made for the move below walks it."""

    levels: list[_Level]  # levels[0] is before any loop, levels[i] in the loop of param i - 1
    own: list[str]  # the move's own args: its params, then its lets
    lets: list[Assign] = field(default_factory=list)  # in file order
    checks: list[tuple[str, str | None]] = field(default_factory=list)  # (description, why): the rule's checks
    depth_of: dict[str, int] = field(default_factory=dict)  # param or let -> the depth that binds it
    held: dict[str, int] = field(default_factory=dict)  # param -> the most items one of its values holds, if known
    # what the params and lets are read by, for the check of params no move prints (see _unprinted)
    values: dict = field(default_factory=dict)  # param -> its domain's values, where they are known at load
    reads: dict = field(default_factory=dict)  # param or let -> the params and lets its domain or value reads
    checked: set = field(default_factory=set)  # the params and lets the checks read

    @property
    def args(self) -> str:
        """Python of the tuple of the move's own args."""
        return "(" + "".join(f"L_{a}, " for a in self.own) + ")"


def _loops(search: _Search, innermost: list[Stmt], first: list[Stmt] = ()) -> list[Stmt]:
    """The loops, with `innermost` run for each tuple of args that passes every check; a check that fails
    goes on to the loop's next value (before any loop, it returns). `first` opens the first param's loop."""
    body = innermost
    for depth in range(len(search.levels) - 1, 0, -1):
        level = search.levels[depth]
        body = [level.loop((list(first) if depth == 1 else []) + level.statements(lambda _: Continue()) + body)]
    return search.levels[0].statements(lambda _: Return()) + body


def _reads_nothing(reads) -> bool:
    """Whether an expression with these reads gives the same value in every state."""
    return reads is not None and not reads.parts and not reads.flow


def _generate(search: _Search) -> list[Stmt]:
    """gen(S, me): yields the args of every legal move."""
    return _loops(search, [Yield(search.args)])


def _collect(search: _Search, ref: str) -> list[Stmt]:
    """collect(S, me, out, skip=None): appends every legal Move, interned: moves_of[a][b]... is the Move with args
    (a, b, ...), made on first use (see rules.InternedMoves). Values of the first param in `skip` are passed over
    (a fallback tier lists moves only for the values the tiers before it left without one)."""
    interned = "moves_of" + "".join(f"[L_{a}]" for a in search.own)
    first = [Guard(f"(skip is None or L_{search.levels[1].param} not in skip)", Continue())] \
        if len(search.levels) > 1 else []
    return [Assign("moves_of", f"I_{ref}[me]")] + _loops(search, first=first, innermost=[Try(
        [Append(interned)], "TypeError",
        [Comment("unhashable args: a move of its own, its args made read-only"),
         Append(f"MOVE({ref}, {search.args}, me)")])])


def _exists(search: _Search) -> list[Stmt]:
    """exists(S, me): whether there is a legal move, stopping at the first (for can_move and end checks)."""
    return _loops(search, [Return("True")]) + [Return("False")]


def _candidates(search: _Search) -> list[Stmt]:
    """candidates(S, me): every combination of param values, legal or not (to explain a refused move); one
    whose lets cannot be computed is left out."""
    body = [Yield(search.args)]
    if search.lets:
        body.insert(0, Try(search.lets, "Exception", [Continue() if len(search.levels) > 1 else Return()]))
    for level in reversed(search.levels[1:]):
        body = [level.loop(body)]
    return body


def _explain(search: _Search) -> list[Stmt]:
    """explain(S, me, *params): the index in the rule's checks of the first that the params fail, or -1."""
    body = []
    for depth, level in enumerate(search.levels):
        if depth:
            body.append(If(f"L_{level.param} not in {level.domain}", [Return(str(level.index))]))
        body += level.statements(lambda check: Return(str(check.index)))
    return body + [Return("-1")]


class MoveCompiler:
    """Part of ModelCompiler: compiling moves, and the effects that moves, steps and procedures share.

    It works on ModelCompiler's state, declared here: it reads the rule document, the top scope, the
    expression compiler and the built-ins, and adds to the rules, to the namespace of generated code (the
    objects that code names) and to the problems, through ModelCompiler's methods (problem, expr, function...).
    """

    data: dict
    root: Scope
    compiler: Compiler
    builtins: dict
    rules: Rules
    namespace: dict
    problems: list
    _read_analysis: Callable

    def _moves(self):
        moves = self.data.get("moves") or {}
        self._searches = {}  # move name -> its _Search (see _unprinted)
        for name, spec in moves.items():
            rule = self.move_rule(("moves", name), name, spec or {}, self.root, f"move {name}")
            if rule is not None:
                self.rules.moves[name] = rule
        for name, rule in list(self.rules.moves.items()):
            self._unprinted(rule, self._searches.pop(name, None))
            if rule.part_specs:
                self._parts(rule)
            elif rule.repeat_spec is not None:
                self._repeat(rule)

    def _unprinted(self, rule: MoveRule, search) -> None:
        """A param that provably makes moves print alike: its domain is a list known at load of at least two
        values, and neither the notation, nor a check, nor a later param's domain reads it (or a let worked out
        from it). Wherever one move of the kind is legal, so are those that differ from it only in that param,
        all written the same: no one could type any of them."""
        if search is None or search is _FAIL or rule.compound or rule.inputs:
            return
        for i, param in enumerate(rule.params):
            values = search.values.get(param)
            if values is None or search.reads.get(param):
                continue
            distinct = set()
            for value in values:
                distinct.add(value_key(value))
                if len(distinct) > 1:
                    break
            if len(distinct) < 2:
                continue
            made = {param}
            for let in rule.lets:
                if search.reads.get(let, set()) & made:
                    made.add(let)
            later = set().union(*(search.reads.get(p, set()) for p in rule.params[i + 1:]))
            if made & (rule.printed | search.checked | later):
                continue
            self.problem(rule.path + ("params", param), f"moves of '{rule.name}' that differ only in '{param}' "
                         "print alike: no condition reads it and the notation does not print it, so wherever one "
                         "is legal, so are the others, all written the same", f"print {{{param}}} in the notation, "
                         "or leave the param out", key=True, code="moves_print_alike", fields={"name": param})

    def _parts(self, rule: MoveRule) -> None:
        """A compound move: after its own params, each part is a legal move of another kind, made in order."""
        base = rule.inputs + rule.params + rule.lets
        parts = []
        for i, spec in enumerate(rule.part_specs):
            path = rule.path + ("parts", i)
            spec = spec or {}
            target = self.rules.moves.get(spec.get("move"))
            if target is None:
                self.unknown(path + ("move",), f"no move named '{spec.get('move')}'", spec.get("move"), self.rules.moves)
                continue
            if target.compound:
                self.problem(path + ("move",), "a part cannot itself have parts")
                continue
            # parts: (inputs, args) of each part, each a tuple of values; the move's own names as it types them
            own = getattr(rule, "bindings", {})
            scope = self.root.child(**{n: own.get(n) or local(n) for n in base}, parts=self._parts_binding(rule))
            given = spec.get("inputs") or {}
            missing = [n for n in target.inputs if n not in given]
            if missing:
                self.problem(path, f"move '{target.name}' needs input '{missing[0]}'",
                             f"give it under inputs: ({', '.join(target.inputs)})")
                continue
            codes = [self.expr(path + ("inputs", n), given[n], scope, then=self.input_given(target.name, k))
                     for k, n in enumerate(target.inputs)]
            when = None
            if spec.get("when") is not None:
                part = built("part", 1)
                part.typed_by = self._part_record(target)
                when = self.expr(path + ("when",), spec["when"], scope.child(part=part))
            if _FAIL in codes or when is _FAIL:
                continue
            sig = "S, me" + "".join(f", L_{n}" for n in base) + ", L_parts"
            label = f"move {rule.name}"
            inputs_fn = self.function(f"inputs_{_ident(rule.name)}_{i}", sig,
                                      [Return("(" + "".join(c + ", " for c in codes) + ")")], label)
            when_fn = None if when is None else self.function(f"when_{_ident(rule.name)}_{i}", sig + ", L_part",
                                                               [Return(when)], label)
            parts.append((target, inputs_fn, when_fn))
        if len(parts) == len(rule.part_specs):
            compound(rule, parts)

    def _repeat(self, rule: MoveRule) -> None:
        """A move of one part move made again and again while it can be (see parts.repeated): the part's inputs,
        its conditions (`when:` on every part, `chain:` on each after the first), the list each part takes an item
        of (`using:`), the bound on parts, which sequences are moves (`stop:`) and the tie rule (`prefer:`)."""
        spec, path = rule.repeat_spec, rule.path + ("repeat",)
        target = self.rules.moves.get(spec.get("move"))
        if target is None:
            self.unknown(path + ("move",), f"no move named '{spec.get('move')}'", spec.get("move"), self.rules.moves)
            return
        if target.compound:
            self.problem(path + ("move",), "a part cannot itself have parts",
                         "repeat a move of no parts; a move of repeated parts is one part of none")
            return
        base = rule.inputs + rule.params + rule.lets
        own = getattr(rule, "bindings", {})
        names = {n: own.get(n) or local(n) for n in base}
        ok, item, using_code, item_names = True, None, None, {}
        using = spec.get("using")
        if using is not None:
            if not isinstance(using, dict) or len(using) != 1 or not _IDENT.fullmatch(str(next(iter(using)))):
                self.problem(path + ("using",), "using: names the item each part takes and the list it is taken from",
                             "one name and a list: using: {die: \"dice\"} (each part takes one die, each once)")
                return
            item, pool = next(iter(using.items()))
            if item in base or item in ("part", "parts"):
                self.problem(path + ("using", item), f"'{item}' is a name of move '{rule.name}' already",
                             "name the item something else", key=True, code="duplicate_name", fields={"name": item})
                return
            binding = local(item)
            self.typed_function(("using", rule.name), [binding])  # typed by the items of the list
            item_names = {item: binding}

            def then(found, name=rule.name):
                self._called(("using", name), [T.item_type(found)])
            using_code = self.expr(path + ("using", item), pool, self.root.child(**names), then=then)
            ok = using_code is not _FAIL
        most, least, stop = spec.get("max"), spec.get("min", 1), spec.get("stop", "stuck")
        if most is None and using is None:
            self.problem(path, f"the parts of move '{rule.name}' have no bound",
                         f"declare the most parts a move has (max: 1 to {MAX_PARTS}), or give using: a list whose "
                         "items the parts take, each once", code="limit_exceeded", fields={"limit": "MAX_PARTS"})
            ok = False
        for key, value, low in (("max", most, 1), ("min", least, 1)):
            if value is None:
                continue
            if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= MAX_PARTS:
                self.problem(path + (key,), f"{key}: is a whole number of parts from {low} to {MAX_PARTS}, "
                             f"not {value!r}", "a move of repeated parts has at most "
                             f"{MAX_PARTS} parts", code="limit_exceeded", fields={"limit": "MAX_PARTS"})
                ok = False
        if ok and most is not None and least > most:
            self.problem(path + ("min",), f"min: {least} is more than max: {most}", "no move could be made")
            ok = False
        if stop not in _STOPS:
            self.problem(path + ("stop",), f"stop: is one of {', '.join(_STOPS)}, not {stop!r}",
                         "any: a move may stop after any part; stuck: only where no part can follow (a capture "
                         "that must go on); longest: only with the most parts any move has here")
            ok = False
        scope = self.root.child(**names, parts=self._parts_binding(rule))
        each = scope.child(**item_names)
        given = spec.get("inputs") or {}
        missing = [n for n in target.inputs if n not in given]
        extra = [n for n in given if n not in target.inputs]
        if missing or extra:
            self.problem(path + (("inputs", extra[0]) if extra else ()),
                         f"move '{target.name}' needs input '{missing[0]}'" if missing else
                         f"move '{target.name}' has no input '{extra[0]}'",
                         f"give it under inputs: ({', '.join(target.inputs)})" if target.inputs else
                         f"move '{target.name}' declares no inputs")
            return
        codes = [self.expr(path + ("inputs", n), given[n], each, then=self.input_given(target.name, k))
                 for k, n in enumerate(target.inputs)]
        conditions = {}
        for key in ("when", "chain"):
            if spec.get(key) is not None:
                part = built("part", 1)
                part.typed_by = self._part_record(target)
                conditions[key] = self.expr(path + (key,), spec[key], each.child(part=part))
        prefer = None
        if spec.get("prefer") is not None:
            text = str(spec["prefer"])

            def number(found):  # (the sequences are compared by it: a number, the higher preferred)
                if found not in (T.ANY, T.NOTHING) and not T.numeric(found):
                    raise CompileProblem(f"prefer: gives {T.describe(found)}, not a number", 0, len(text),
                                         "a number worked out from parts: the sequences of the highest are moves",
                                         code="type_error")
            prefer = self.expr(path + ("prefer",), text, scope, then=number)
        if not ok or _FAIL in codes or _FAIL in conditions.values() or prefer is _FAIL:
            return
        sig = "S, me" + "".join(f", L_{n}" for n in base)
        label, name = f"move {rule.name}", _ident(rule.name)
        each_sig = sig + ", L_parts" + (f", L_{item}" if item is not None else ", L__item")

        def define(kind, args, value):
            return self.function(f"{kind}_{name}", args, [Return(value)], label)
        repeat = Repeat(target, define("inputs", each_sig, "(" + "".join(c + ", " for c in codes) + ")"),
                        most=most, least=least, stop=stop)
        for key, code in conditions.items():
            setattr(repeat, key, define(key, each_sig + ", L_part", code))
        if using_code is not None:
            repeat.using = define("using", sig, using_code)
        if prefer is not None:
            repeat.prefer = define("prefer", sig + ", L_parts", prefer)
        repeated(rule, repeat, MAX_PARTS)

    def _part_record(self, target: MoveRule):
        """typed_by of a record of one part's values, made with move `target`: its params and lets (as
        record_of types them) and its inputs."""
        values = self.record_of(lambda: [target])

        def typed():
            found = values()
            fields = dict(zip(found.names, found.items))
            for name, binding in getattr(target, "input_bindings", {}).items():
                fields.setdefault(name, self.typer.binding_type(binding))
            return T.record(**dict(sorted(fields.items())))
        return typed

    def _parts_binding(self, rule: MoveRule):
        made = built("parts", 3)
        made.typed_by = self._parts_type(rule)
        return made

    def _parts_type(self, rule: MoveRule):
        """typed_by of a compound move's `parts`: a record of each part's values, in order."""
        def typed():
            if rule.repeat_spec is not None:
                target = self.rules.moves.get(rule.repeat_spec.get("move"))
                most = rule.repeat_spec.get("max")
                return T.list_(self._part_record(target)() if target is not None else T.ANY,
                               most if isinstance(most, int) and not isinstance(most, bool) else MAX_PARTS)
            records = [self._part_record(t)() if t else T.ANY
                       for t in (self.rules.moves.get((s or {}).get("move")) for s in rule.part_specs)]
            return T.list_(T.union(*records) if records else T.ANY, len(records))
        return typed

    def _free_names(self, node):
        return A.free_names(node) if node is not _FAIL else set()

    def move_rule(self, path, name, spec, scope, label: str) -> MoveRule | None:
        """Compile one move (or chance outcome) definition into a MoveRule; its functions are filed under `label`."""
        params = spec.get("params") or {}
        if isinstance(params, dict) and len(params) > MAX_PARAMS:
            # each param is a loop of the search for legal moves, and Python nests at most 20 blocks
            self.problem(path + ("params", list(params)[MAX_PARAMS]), f"a move has at most {MAX_PARAMS} params; "
                         f"this one has {len(params)}", "gather several choices in one param (a cell, a list, a "
                         "record), or split the move into steps", key=True, code="limit_exceeded",
                         fields={"limit": "MAX_PARAMS"})
            return None
        rule = MoveRule(name, path, list(spec.get("params") or {}), list(spec.get("let") or {}),
                        notation_at=self.rules.where(path + ("notation",)))
        rule.inputs = [str(i) for i in spec.get("inputs") or []]
        rule.part_specs = spec.get("parts") or []
        rule.repeat_spec = spec["repeat"] if isinstance(spec.get("repeat"), dict) else None
        rule.one_per_position = spec.get("one_per_position") is True
        if rule.one_per_position and not rule.compound:
            self.problem(path + ("one_per_position",), f"move '{name}' has no parts: one_per_position makes one "
                         "move of the moves whose parts reach the same position",
                         "remove it, or give the move parts: or repeat:")
        if rule.part_specs and rule.repeat_spec is not None:
            self.problem(path + ("repeat",), f"move '{name}' has both parts: and repeat:",
                         "a move is made of a fixed list of parts or of one part repeated: keep one")
            rule.part_specs = []
        inputs = {i: local(i) for i in rule.inputs}
        rule.input_bindings = inputs  # (what a record of a part's values holds besides its params and lets)
        # typed by what every part or chance() call gives them, as a function's params are (see TypeChecker)
        self.typed_function(("inputs", name), list(inputs.values()))
        scope = scope.child(**inputs)
        # a compound move's parts: the (inputs, args) of each, built over the values of the file (see depth_of)
        inner = scope.child(**{n: self._parts_binding(rule) if n == "parts" and rule.compound else local(n)
                               for n in rule.arg_names})
        own = rule.params + rule.lets  # a compound move's parts are added around these
        # each part reports its own problems, so all are compiled before any failure is acted on
        search = self._search(path, spec, rule, scope, inner)
        if path[0] == "moves":
            self._searches[name] = search  # (for _unprinted, once every move is compiled)
        # (the same bindings as the checks': the type pass types both from the params' domains and the lets)
        bindings = {n: inner.names[n] for n in own}
        for n, most in (search.held.items() if search is not _FAIL else ()):
            # a param's value written into the position is counted with no call
            bindings[n].held = most  # (the checks are compiled already, and write nothing)
        rule.bindings = bindings  # (what a record of its values holds: see TypeChecker.record_of)
        effects = self.effects(path + ("do",), spec.get("do") or [], scope.child(**bindings))
        note = self._notation(path, spec, rule, inner)
        weight = self.expr(path + ("weight",), spec["weight"], inner) if "weight" in spec else None
        # (`visible_to: all`: every player sees it, as with none, said so: see leaks.revealed_choices)
        seen_by = None if spec.get("visible_to") in (None, "all") else \
            self.expr(path + ("visible_to",), spec["visible_to"], inner)
        if any(part is _FAIL for part in (search, effects, note, weight, seen_by)):
            return None
        sig = "S, me" + "".join(f", L_{i}" for i in rule.inputs)
        args_sig = sig + "".join(f", L_{a}" for a in own)

        def define(kind, args, body):
            return self.function(f"{kind}_{_ident(name)}", args, body, label)

        rule.generate = define("gen", sig, _generate(search))
        if not rule.compound:  # a compound move's legal moves come from its parts (see parts.py)
            ref = self._move_objects(rule)
            rule.collect = define("collect", "S, me, out" + sig[len("S, me"):] + ", skip=None", _collect(search, ref))
            rule.exists = define("exists", sig, _exists(search))
        rule.candidates = define("candidates", sig, _candidates(search))
        rule.explain = define("explain", sig + "".join(f", L_{p}" for p in rule.params), _explain(search))
        rule.apply = define("do", args_sig, effects)
        rule.note = define("note", "me" + sig[len("S, me"):] + "".join(f", L_{a}" for a in own)
                           + (", L_parts" if rule.compound else ""), [Return(note)])
        if weight is not None:
            rule.weight = define("weight", args_sig, [Return(weight)])
        if seen_by is not None:
            rule.visible_to = define("visible", args_sig, [Return(seen_by)])
        rule.domains = self._domains(rule, search, sig, define)
        return rule

    def _domains(self, rule: MoveRule, search: _Search, sig: str, define) -> list[ParamDomain]:
        """Each param's domain as a function of the seat and the params before it, whether it reads the
        position, and a bound of it that does not (integer actions number the values of the domain, or else
        of its bound, see engine/actions.py): the param's `among:`, else one inferred (see bounds.py)."""
        analysis = self._read_analysis()
        domains = []
        for i, level in enumerate(search.levels[1:]):
            earlier = "".join(f", L_{p}" for p in rule.params[:i])
            values = define(f"domain_{_ident(level.param)}", sig + earlier, [Return(level.domain)])
            fixed = _reads_nothing(analysis.of(level.node))
            bound, bound_path = self._bound(rule, level, fixed, analysis), level.among_path or level.path
            bound_fn = None if bound is None else define(f"among_{_ident(level.param)}", sig + earlier, [Return(bound)])
            domains.append(ParamDomain(level.param, values, fixed, level.path, bound_fn, bound_path,
                                       declared=level.among is not None))
        return domains

    def _bound(self, rule: MoveRule, level: _Level, fixed: bool, analysis) -> str | None:
        """The Python of the param's bound (None: none, or its domain needs none)."""
        if level.among is not None:
            if not _reads_nothing(analysis.of(level.among)):
                self.problem(level.among_path, f"the bound of param '{level.param}' of '{rule.name}' reads the "
                             "position", "'among' lists every value the param can take, from the rule file alone "
                             "(cells, players, a constant list, a range of options)", code="among_reads_position")
                return None
            code = self.code(level.among_path, level.among, level.scope)
            return None if code is _FAIL else code
        if fixed:
            return None
        node = inferred_bound(level.node, analysis, self.builtins)
        if node is None:
            return None
        # the IR files it as the param's `among`, as if written there
        among = (level.path[:-1] if level.path[-1] == "in" else level.path) + ("among",)
        # all cells or all players mean the game's, whatever the params are named
        scope = self.root if isinstance(node, A.Name) and node.id in ("cells", "players") else level.scope
        code = self.code(level.path, node, scope, filed=among)
        return None if code is _FAIL else code

    def _move_objects(self, rule: MoveRule) -> str:
        """Put the rule and its table of interned moves in the namespace; the rule's name there."""
        ref = self.fresh("R")
        self.namespace.setdefault("MOVE", Move)
        self.namespace[ref] = rule
        self.namespace[f"I_{ref}"] = InternedMoves(rule, len(rule.params) + len(rule.lets))
        return ref

    def _notation(self, path, spec, rule: MoveRule, scope):
        """The notation's Python (a string expression); sets rule.template, by default the name and params."""
        template = spec.get("notation")
        if template is None:
            template = rule.name + "".join(f" {{{p}}}" for p in rule.params)
        rule.template = str(template)
        fields: list = []
        code = self.template(path + ("notation",), rule.template, scope, fields)
        rule.printed = frozenset().union(*(used for _, _, used in fields))
        printed = any(not _IDENT.fullmatch(text.strip()) for text, _, _ in fields)
        if code is not _FAIL and printed and not rule.compound:
            # a field that prints an expression cannot be read back into a param: to tell which param a refused
            # move gets wrong, each field is printed on its own (see engine/notation.py)
            sig = "me" + "".join(f", L_{i}" for i in rule.inputs) + "".join(f", L_{a}" for a in rule.params + rule.lets)
            rule.fields = [(frozenset(used) & set(rule.params),
                            self.function(f"field_{_ident(rule.name)}", sig, [Return(f"F_text({field})")]))
                           for _, field, used in fields]
        return code

    def _search(self, path, spec, rule: MoveRule, scope, inner) -> _Search | object:
        """The move's parameter loops with its lets and `when` checks placed in them (see _Search); sets
        rule.checks. _FAIL when a part does not compile."""
        search = _Search([_Level() for _ in range(len(rule.params) + 1)], rule.params + rule.lets)
        whens = spec.get("when") or []
        # all three run, each reporting its own problems
        ok = all([self._param_loops(path, list((spec.get("params") or {}).items()), rule, scope, search, inner),
                  self._place_lets(path, list((spec.get("let") or {}).items()), rule, inner, search),
                  self._place_checks(path, whens, rule, inner, search)])
        rule.checks = search.checks
        return search if ok else _FAIL

    def _param_loops(self, path, params, rule: MoveRule, scope, search: _Search, inner) -> bool:
        """Loop i + 1 runs over the domain of param i, which may use the params before it."""
        ok = True
        seen = scope.child()
        for i, (pname, dom) in enumerate(params):
            seen.names[pname] = local(pname)
            ppath, why, among, among_path = path + ("params", pname), None, None, ()
            if isinstance(dom, dict):  # {in: domain, why: message when a value is not in it, among: its bound}
                if dom.get("among") is not None:
                    among_path = ppath + ("among",)
                    among = self.parse_at(among_path, dom["among"])
                dom, why, ppath = dom.get("in"), dom.get("why"), ppath + ("in",)
            node = self.parse_at(ppath, dom)
            found = self.lowered(ppath, node, scope.child(**seen.names),
                                 then=_typing(seen.names[pname], inner.names[pname], item=True))
            if found is _FAIL or among is _FAIL:
                ok = False
                continue
            code, lowered = found
            binders = rule.params + rule.lets
            later = (self._free_names(node) & set(binders)) - set(binders[:i])
            if later:
                self.problem(ppath, f"parameter '{pname}' uses '{sorted(later)[0]}', "
                             "which is defined after it", "order the parameters so each uses only earlier ones")
                ok = False
            search.levels[i + 1] = _Level(pname, code, len(search.checks), node=node, path=ppath,
                                          scope=scope.child(**seen.names), among=among, among_path=among_path)
            known, values = self.compiler.const_value(lowered)
            if not known and isinstance(lowered, N.Display) and lowered.kind != "table":  # written out: ['red', 'blue']
                found = [self.compiler.const_value(item) for item in lowered.items]
                known, values = all(k for k, _ in found), [v for _, v in found]
            if known and isinstance(values, range):  # values known now: what each holds is too
                search.held[pname] = 0
            elif known and isinstance(values, (list, tuple)) and len(values) <= _HELD_VALUES:
                most = max((items(v, _HELD_MOST) for v in values), default=0)
                if most <= _HELD_MOST:
                    search.held[pname] = most
            search.depth_of[pname] = i + 1
            search.reads[pname] = self._free_names(node) & set(binders)
            if known and isinstance(values, (list, tuple, range)):
                search.values[pname] = values
            search.checks.append((f"{pname} must be one of {dom}", why))
        return ok

    def _place_lets(self, path, lets, rule: MoveRule, inner, search: _Search) -> bool:
        """Each let is computed in the loop of the last param (or let) it uses, as soon as that is bound."""
        ok = True
        binders = rule.params + rule.lets
        for j, (lname, text) in enumerate(lets):
            node = self.parse_at(path + ("let", lname), text)
            code = self.code(path + ("let", lname), node, inner, then=_typing(inner.names[lname]))
            if code is _FAIL:
                ok = False
                continue
            used = self._free_names(node) & set(binders)
            later = used - set(binders[: len(rule.params) + j])
            if later:
                self.problem(path + ("let", lname), f"'{lname}' uses '{sorted(later)[0]}', which is defined after it")
                ok = False
            search.reads[lname] = used
            depth = search.depth_of[lname] = max((search.depth_of.get(u, 0) for u in used), default=0)
            let = Assign(f"L_{lname}", code)
            search.levels[depth].lets.append(let)
            search.lets.append(let)
        return ok

    def _place_checks(self, path, whens, rule: MoveRule, inner, search: _Search) -> bool:
        """Each check runs in the loop of the last param it uses, right after the last let of that loop it reads:
        a value that fails it is dropped before the loops inside are run for it. `whens`: a list, or one check."""
        ok = True
        binders = set(rule.params + rule.lets)
        for k, item in enumerate(whens) if isinstance(whens, list) else [(None, whens)]:
            cpath = path + ("when",) + (() if k is None else (k,))  # one check is located at 'when:' itself
            text, why = (item.get("test"), item.get("why")) if isinstance(item, dict) else (item, None)
            if isinstance(item, dict):
                cpath = cpath + ("test",)
            node = self.parse_at(cpath, text)
            code = self.code(cpath, node, inner)
            if code is _FAIL:
                ok = False
                continue
            used = self._free_names(node) & binders
            search.checked |= used
            level = search.levels[max((search.depth_of.get(u, 0) for u in used), default=0)]
            reads = {f"L_{u}" for u in used}
            after = max((i for i, let in enumerate(level.lets) if let.target in reads), default=-1)
            level.checks.append((after, _Check(code, len(search.checks))))
            search.checks.append((str(text), why))
        return ok

    def template(self, path, template: str, scope, found: list | None = None):
        """Compile a notation template such as '{from}-{to}' into a Python string expression; each field's
        (text, Python, names it reads) is added to `found`, if given."""
        if len(template) > MAX_TEMPLATE_CHARS:  # (printed for every move listed, and read against typed moves)
            self.problems.append(self.doc.problem(
                path, f"a notation template has at most {MAX_TEMPLATE_CHARS:,} characters; this one has "
                f"{len(template):,}", "write a short notation, such as '{from}-{to}'", code="limit_exceeded",
                fields={"limit": "MAX_TEMPLATE_CHARS"}))
            return _FAIL
        parts, i = [], 0
        while i < len(template):
            j = template.find("{", i)
            if j < 0:
                parts.append(repr(template[i:]))
                break
            if j > i:
                parts.append(repr(template[i:j]))
            k = template.find("}", j)
            if k < 0:
                self.problems.append(self.doc.problem(path, "unclosed '{' in notation", "write {param}",
                                                      offset=j))
                return _FAIL
            inner_text = template[j + 1:k]
            saved = {n: b for n, b in self.builtins.items() if b.state}  # notation calls none of these
            try:
                node = parse(inner_text)
                # notation is printed without a state: names read from it (vars, zones, player, turn) are out
                no_state = Scope({n: b for n, b in _flatten(scope).items()
                                  if b.kind not in ("var", "zone") and not re.search(r"\bS\b", b.code)})
                lowered = self.lowerer(path, no_state, offset=j + 1).expr(node)
                stateless = self._stateless_functions(saved)  # (asked while every built-in is there)
                for n in saved:
                    del self.builtins[n]
                self.builtins.update(stateless)
                try:
                    code = self.compiler.expr(lowered)
                finally:
                    self.builtins.update(saved)
            except SyntaxProblem as exc:
                self.problems.append(self.doc.problem(path, exc.message, exc.hint, offset=j + 1 + exc.offset,
                                                      code=exc.code, fields=exc.fields))
                return _FAIL
            except CompileProblem as exc:
                if exc.quiet:
                    return _FAIL
                hint, fields = exc.hint, exc.fields
                name = exc.fields.get("name")
                if exc.code == "unknown_name" and name in _flatten(scope) and name not in no_state.names:
                    # a name of the position or the flow (a variable, a zone, player, turn): a let prints it
                    self.problems.append(self.doc.problem(
                        path, f"'{name}' reads the position, which notation cannot: a move is written the same "
                        "whenever it is printed", "compute it in a let of the move (let: {v: \"...\"}) and "
                        "print {v}" + ("; the player making the move is 'me'" if name == "player" else ""),
                        offset=exc.start, width=max(1, exc.end - exc.start), code="misused_name",
                        fields={"name": name}))
                    return _FAIL
                if exc.code == "unknown_name":  # the names notation may use are fewer than the move's
                    usable = sorted(n for n, b in _flatten(scope).items() if b.kind == "local")
                    close = close_names(exc.fields["name"], usable)
                    fields = dict(fields, candidates=close)
                    hint = suggestion(close) or "notation may use only the move's params and lets" + \
                        (f" ({', '.join(usable)})" if usable else "") + " and 'me'"
                elif exc.code == "unknown_function" and name in saved:
                    self.problems.append(self.doc.problem(
                        path, f"'{name}' reads the position, which notation cannot: a move is written the same "
                        "whenever it is printed", "call in notation only functions of the move's params, lets and "
                        "'me'; compute what the position says in a let of the move", offset=exc.start,
                        width=max(1, exc.end - exc.start), code="misused_name", fields={"name": name}))
                    return _FAIL
                elif exc.code in _UNKNOWN:
                    hint = (hint + "; " if hint else "") + "notation may use only the move's params, lets and 'me'"
                # (where in the whole template: the field's IR is placed there)
                self.problems.append(self.doc.problem(path, exc.message, hint, offset=exc.start,
                                                      width=max(1, exc.end - exc.start), code=exc.code, fields=fields))
                return _FAIL
            parts.append(f"F_text({code})")
            self.record_expr(path, lowered)
            if found is not None:
                found.append((inner_text, code, self._free_names(node)))
            i = k + 1
        self.namespace["F_text"], self.namespace["F_notation"] = text_of, notation_text
        return f"F_notation(({''.join(p + ', ' for p in parts)}))" if parts else "''"  # flat: any number of fields

    def _stateless_functions(self, builtins: dict) -> dict:
        """The file's functions among `builtins` that read nothing of the position nor of the flow (neither
        directly nor through what they call), as notation calls them: with no state."""
        analysis = self._read_analysis()
        return {name: replace(b, inline=b.inline.replace("(S, me", "(None, me", 1))
                for name, b in builtins.items()
                if b.category == "functions" and b.inline and analysis.of(A.Call(name, [], [])) == NOTHING}

    def _loop_typing(self, clause: N.Clause):
        """then() of a `for:` effect's collection (see code()): its type gives the loop names theirs."""
        return lambda iterable: self.typer.targets(clause, iterable)

    def effects(self, path, items, scope, loops: int = 0) -> list | object:
        """The statements (emit form) of a list of effects (statements, if/else, for loops) inside `loops` `for:`
        blocks; _FAIL if one does not compile."""
        if isinstance(items, (str, dict)):
            items = [items]
        stmts, ok = [], True
        for k, item in enumerate(items):
            ipath = path + (k,)
            if isinstance(item, str):
                node = self.parse_at(ipath, item, "stmt")
                if node is _FAIL:
                    ok = False
                    continue
                lowerer = self.lowerer(ipath, scope)
                try:
                    lowered = lowerer.stmt(node)
                    stmts.extend(Effect(code, ipath) for code in self.compiler.stmt(lowered))
                    scope.names.update(lowerer.new)  # the names it assigns first are the effects' own from here on
                    self.record_stmt(ipath, lowered)
                except CompileProblem as exc:
                    self._expr_problem(ipath, exc, item)
                    ok = False
                    if isinstance(node, A.Assign) and isinstance(node.target, A.Name) \
                            and scope.lookup(node.target.id) is None:
                        scope.names[node.target.id] = local(node.target.id)  # no knock-on 'unknown name'

            elif isinstance(item, dict) and "if" in item:
                cond = self.expr(ipath + ("if",), item["if"], scope)
                then = self.effects(ipath + ("then",), item.get("then") or [], scope.child(), loops)
                other = self.effects(ipath + ("else",), item.get("else") or [], scope.child(), loops)
                if _FAIL in (cond, then, other):
                    ok = False
                    continue
                stmts.append(If(cond, then, other, ipath + ("if",)))
            elif isinstance(item, dict) and "for" in item and loops >= MAX_LOOP_DEPTH:
                # each block is a loop of the Python printed for the effects, which nests at most 20 blocks
                self.problem(ipath + ("for",), f"'for:' blocks are nested more than {MAX_LOOP_DEPTH} deep",
                             "move the inner loops into a procedure of their own", code="limit_exceeded",
                             fields={"limit": "MAX_LOOP_DEPTH"})
                ok = False
            elif isinstance(item, dict) and "for" in item:
                node = self.loop_head(ipath + ("for",), item["for"])
                if node is _FAIL or not isinstance(node, A.Comprehension) or len(node.fors) != 1:
                    if node is not _FAIL:
                        self.problem(ipath + ("for",), "write the loop as 'name in collection'")
                    ok = False
                    continue
                head = ipath + ("for",)
                # a loop variable never overwrites a parameter or local of the same name outside the loop
                targets = {t: self.compiler.loop_local(t, scope.lookup(t) is not None) for t in node.fors[0].targets}
                frame: dict = {}  # (the names the body reads, for the IR)
                try:
                    clause = self.lowerer(head, scope).clause(node.fors[0], frame, targets)
                except CompileProblem as exc:  # nested too deeply to lower
                    self._expr_problem(head, exc, None)
                    ok = False
                    continue
                self.naming.loops[ipath] = frame
                self.loop_heads[head] = clause
                iterable = self.printed(head, clause.iterable, then=self._loop_typing(clause), transient=True)
                body_scope = scope.child(**targets)
                conds = [self.printed(head, c) for c in clause.conds]
                body = self.effects(ipath + ("do",), item.get("do") or [], body_scope, loops + 1)
                if _FAIL in [iterable, body, *conds]:
                    ok = False
                    continue
                stmts.append(For(tuple(targets[t.name].code for t in clause.targets), iterable[0],
                                 [Guard(c[0], Continue(), head) for c in conds] + body, where=head))
            else:
                self.problem(ipath, "an effect is a statement string, or a mapping with 'if:' or 'for:'",
                             "e.g.  - \"move(from, to)\"   or   - if: \"cond\"\\n    then: [...]")
                ok = False
        return stmts if ok else _FAIL


def _typing(*bindings, item: bool = False):
    """then() of an expression (see ModelCompiler.code) that gives `bindings` its type (item: the type of its
    items, for a param over a domain)."""
    def then(typed):
        for binding in bindings:
            binding.type = T.item_type(typed) if item else typed
    return then
