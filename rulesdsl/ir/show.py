"""The IR made readable: expressions and statements as rules-language text, types in short, and a game as an outline."""

from __future__ import annotations

import re
from decimal import Decimal

from ..lang import types as T
from . import nodes as N
from .naming import spec_at
from .game import Chance, GameIR, MovePlan, Step

# The grammar's precedence levels (lang/grammar.lark), lowest first: a slot that needs level p takes an expression
# of level p or above as it is, and one of a lower level in brackets.
IFELSE, OR, AND, NOT, CMP, RANGE, SUM, TERM, FACTOR, POWER, ATOM = range(11)
_BINARY = {"+": SUM, "-": SUM, "*": TERM, "/": TERM, "//": TERM, "%": TERM}
_INDENT = "  "


# -- expressions and statements as text ---------------------------------------------------------------------
def source(node) -> str:
    """`node` (an expression or a statement) as a rule writes it, bracketed only where precedence needs it:
    parsing the text gives the tree it was lowered from. If and Loop give their head (`if x`, `for x in xs`).
    Built without recursion: a long sum is a deep tree."""
    todo, done = [(node, False)], []  # done: (text, level) of the finished nodes, in order
    while todo:
        item, ready = todo.pop()
        slots, level, compose = _form(item)
        if not ready:
            todo.append((item, True))
            todo.extend((child, False) for child, _ in reversed(slots))
            continue
        parts = done[len(done) - len(slots):] if slots else []
        del done[len(done) - len(slots):]
        texts = [text if got >= need else f"({text})" for (text, got), (_, need) in zip(parts, slots)]
        done.append((compose(texts), level))
    return done[0][0]


def _form(node) -> tuple[list, int, object]:
    """How `node` is written: its sub-expressions with the level each slot needs, its own level, and a function
    of their texts (in that order) that writes it."""
    match node:
        case N.Const(value=value):
            text = _literal(value)
            return [], FACTOR if text.startswith("-") else ATOM, lambda _: text
        case N.Ref(name=name):
            return [], ATOM, lambda _: name
        case N.Unary(op="not", operand=x):
            return [(x, NOT)], NOT, lambda t: f"not {t[0]}"
        case N.Unary(op=op, operand=x):
            return [(x, FACTOR)], FACTOR, lambda t: op + t[0]
        case N.Binary(op="**", left=left, right=right):
            return [(left, ATOM), (right, FACTOR)], POWER, lambda t: f"{t[0]} ** {t[1]}"
        case N.Binary(op=op, left=left, right=right):
            level = _BINARY.get(op, SUM)
            return [(left, level), (right, level + 1)], level, lambda t: f"{t[0]} {op} {t[1]}"
        case N.Logic(op="and", left=left, right=right):
            return [(left, AND), (right, NOT)], AND, lambda t: f"{t[0]} and {t[1]}"
        case N.Logic(left=left, right=right):
            return [(left, OR), (right, AND)], OR, lambda t: f"{t[0]} or {t[1]}"
        case N.Compare(ops=ops, operands=operands):
            words = ["not in" if op == "notin" else op for op in ops]
            return [(x, RANGE) for x in operands], CMP, \
                lambda t: t[0] + "".join(f" {w} {x}" for w, x in zip(words, t[1:]))
        case N.Cond(test=test, then=then, other=other):
            return [(then, OR), (test, OR), (other, IFELSE)], IFELSE, lambda t: f"{t[0]} if {t[1]} else {t[2]}"
        case N.Range(low=low, high=high):
            return [(low, SUM), (high, SUM)], RANGE, lambda t: f"{t[0]}..{t[1]}"
        case N.Attr(obj=obj, name=name):
            return [(obj, ATOM)], ATOM, lambda t: f"{t[0]}.{name}"
        case N.Index(obj=obj, index=index):
            return [(obj, ATOM), (index, IFELSE)], ATOM, lambda t: f"{t[0]}[{t[1]}]"
        case N.Slice(obj=obj, low=low, high=high):
            slots = [(obj, ATOM)] + [(x, IFELSE) for x in (low, high) if x is not None]

            def sliced(t):
                rest = iter(t[1:])
                return f"{t[0]}[{next(rest) if low is not None else ''}:{next(rest) if high is not None else ''}]"
            return slots, ATOM, sliced
        case N.Display(kind="table", items=items):
            return [(x, IFELSE) for pair in items for x in pair], ATOM, \
                lambda t: "{" + ", ".join(f"{k}: {v}" for k, v in zip(t[0::2], t[1::2])) + "}"
        case N.Display(kind="tuple", items=items):
            return [(x, IFELSE) for x in items], ATOM, lambda t: f"({t[0]},)" if len(t) == 1 else f"({', '.join(t)})"
        case N.Display(items=items):
            return [(x, IFELSE) for x in items], ATOM, lambda t: f"[{', '.join(t)}]"
        case N.Call(func=func, args=args, kwargs=kwargs):
            slots = [(x, IFELSE) for x in args] + [(v, IFELSE) for _, v in kwargs]
            names = [""] * len(args) + [f"{k}=" for k, _ in kwargs]
            return slots, ATOM, lambda t: f"{func}({', '.join(n + x for n, x in zip(names, t))})"
        case N.Comp(elt=elt, clauses=clauses, generator=generator):
            # a generator is written bare (only as a call's first argument, which needs no brackets round it)
            slots = [(elt, IFELSE)] + [(c, ATOM) for c in clauses]
            return slots, ATOM, lambda t: " ".join(t) if generator else f"[{' '.join(t)}]"
        case N.Clause(targets=targets, iterable=iterable, conds=conds):
            head = "for " + ", ".join(t.name for t in targets) + " in "
            return [(iterable, OR)] + [(c, OR) for c in conds], ATOM, \
                lambda t: head + t[0] + "".join(f" if {c}" for c in t[1:])
        case N.Assign(target=target, op=op, value=value):
            return [(target, ATOM), (value, IFELSE)], IFELSE, lambda t: f"{t[0]} {op} {t[1]}"
        case N.Do(call=call):
            return [(call, ATOM)], ATOM, lambda t: t[0]
        case N.If(test=test):
            return [(test, IFELSE)], IFELSE, lambda t: f"if {t[0]}"
        case N.Loop(clause=clause):
            return [(clause, ATOM)], IFELSE, lambda t: t[0]
    return [], ATOM, lambda _: "?"  # none where the file has no expression


def _literal(value) -> str:
    """A constant as the language writes it."""
    if value is None or isinstance(value, bool):
        return {None: "none", True: "true", False: "false"}[value]
    if isinstance(value, float):
        text = repr(value)
        if re.fullmatch(r"-?\d+\.\d+", text) or value != value or value in (float("inf"), float("-inf")):
            return text
        text = format(Decimal(text), "f")  # the language writes no exponent: 1e+20 is 100000000000000000000.0
        return text if "." in text else text + ".0"
    return repr(value)


# -- types in short --------------------------------------------------------------------------------------------
def type_text(t: T.Type) -> str:
    """A static type in a few characters: `int 0..5`, `list[cell; <=24]`, `text{'down', 'up'} | none`."""
    name = t.name
    if name == "int":
        if t.low is None and t.high is None:
            return "int"
        if t.low == t.high:
            return f"int {t.low}"
        return f"int {'' if t.low is None else t.low}..{'' if t.high is None else t.high}"
    if name == "text":
        return "text{" + ", ".join(map(repr, t.names)) + "}" if t.names else "text"
    if name in ("list", "seq"):
        bound = "" if t.high is None else f"; <={t.high}"
        return f"{'list' if name == 'list' else 'tuple'}[{type_text(t.items[0])}{', ...' if name == 'seq' else ''}" \
               f"{bound}]"
    if name == "range":
        low, high = t.items[0].low, t.items[0].high
        return "range" if low is None or high is None else f"range {low}..{high}"
    if name == "tuple":
        return "(" + ", ".join(map(type_text, t.items)) + ("," if len(t.items) == 1 else "") + ")"
    if name == "table":
        return f"table[{type_text(t.items[0])}, {type_text(t.items[1])}]"
    if name == "record":
        return "record{" + ", ".join(f"{n}: {type_text(i)}" for n, i in zip(t.names, t.items)) + "}" \
            if t.names else "record"
    if name == "union":
        return " | ".join(map(type_text, t.items))
    return name


# -- the outline -----------------------------------------------------------------------------------------------
def labels(game: GameIR) -> dict:
    """Every rule of the game by its label (`move push`, `step play`, `function hops`, `procedure land`,
    `flow first_player`, `end 1`, `scoring score`, as `compile` lists them) -> the path that declares it."""
    found = {}
    for name, fn in game.functions.items():
        found[f"{fn.kind} {name}"] = fn.decl
    for name, plan in game.moves.items():
        found[f"move {name}"] = plan.decl
    for name, step in game.steps.items():
        found[f"step {name}"] = step.decl
    for path in game.exprs:
        if len(path) == 2 and path[0] == "flow" and isinstance(path[1], str):
            found[f"flow {path[1]}"] = path
    for k, rule in enumerate(game.end):
        found[f"end {k + 1}"] = rule.decl
    for key in game.scoring:
        found[f"scoring {key}"] = ("scoring", key)
    return found


def find_rule(game: GameIR, name: str) -> list[str]:
    """The labels `name` names: a label itself, or the name of a move, step, function... without its kind."""
    return [label for label in labels(game) if name in (label, label.split(" ", 1)[1])]


class _Outline:
    """Writes the outline's lines; `types`: each expression followed by its type; `data`: the rule file's data,
    for what a rule says with no expression (`winners: highest_score`)."""

    def __init__(self, types: bool, data: dict | None):
        self.types, self.data, self.lines = types, data or {}, []

    def line(self, depth: int, text: str) -> None:
        self.lines.append(_INDENT * depth + text)

    def expr(self, depth: int, label: str, node) -> None:
        """`label: expression  # type` (no label: the expression alone)."""
        if node is None:
            return
        head = f"{label}: " if label else ""
        self.line(depth, head + source(node) + self._type(node))

    def _type(self, node) -> str:
        return f"  # {type_text(node.type)}" if self.types else ""

    def _typed_name(self, name: str, t: T.Type) -> str:
        return f"{name}: {type_text(t)}" if self.types else name

    # -- statements --
    def stmts(self, depth: int, stmts) -> None:
        for stmt in stmts:
            if isinstance(stmt, N.If):
                self.line(depth, source(stmt) + self._type(stmt.test))
                self.stmts(depth + 1, stmt.then)
                if stmt.other:
                    self.line(depth, "else")
                    self.stmts(depth + 1, stmt.other)
            elif isinstance(stmt, N.Loop):
                targets = ", ".join(f"{t.name}: {type_text(t.type)}" for t in stmt.clause.targets)
                self.line(depth, source(stmt) + (f"  # {targets}" if self.types else ""))
                self.stmts(depth + 1, stmt.body)
            elif isinstance(stmt, N.Assign):
                self.line(depth, source(stmt) + self._type(stmt.value))
            elif stmt is not None:
                self.line(depth, source(stmt))

    def checks(self, depth: int, label: str, checks: list) -> None:
        if checks:
            self.line(depth, label)
        for check in checks:
            self.expr(depth + 1, "", check.test)
            if check.why:
                self.line(depth + 2, f"why: {check.why}")

    def block(self, depth: int, label: str, stmts) -> None:
        if stmts:
            self.line(depth, label)
            self.stmts(depth + 1, stmts)

    # -- the parts of a game --
    def plan(self, depth: int, plan: MovePlan) -> None:
        """A move's (or a chance step's outcomes', a pass's, a part's) params, lets, checks, notation, effects."""
        if plan.inputs and not plan.given:
            self.line(depth, "inputs: " + ", ".join(plan.inputs))
        if plan.params:
            self.line(depth, "params")
        for p in plan.params:
            domain = f" in {source(p.domain)}" if p.domain is not None else ""
            self.line(depth + 1, self._typed_name(p.name, p.type) + domain)
            self.expr(depth + 2, "among", p.among)
            if p.why:
                self.line(depth + 2, f"why: {p.why}")
        for let in plan.lets:
            self._let(depth, let)
        self.checks(depth, "when", plan.checks)
        if plan.notation:
            self.line(depth, "notation: " + "".join(p if isinstance(p, str) else "{?}" if p is None
                                                    else "{" + source(p) + "}" for p in plan.notation))
        self.expr(depth, "weight", plan.weight)
        self.expr(depth, "visible_to", plan.visible_to)
        self.block(depth, "do", plan.effects)
        for part in plan.parts:
            self.line(depth, f"part {part.name}" + (f": {part.move}" if part.move else ""))
            for given in part.given:
                self.expr(depth + 1, given.name, given.value)
            self.plan(depth + 1, part)
        if plan.repeat is not None:
            rules = "".join(f", {k} {v}" for k, v in plan.repeat_rules.items())
            self.line(depth, f"repeat {plan.repeat.name}" + (f": {plan.repeat.move}" if plan.repeat.move else "")
                      + rules)
            for key in ("using", "chain", "prefer"):
                self.expr(depth + 1, key, plan.repeat_exprs.get(key))
            for given in plan.repeat.given:
                self.expr(depth + 1, given.name, given.value)
            self.plan(depth + 1, plan.repeat)
        if plan.one_per_position:
            self.line(depth, "one_per_position")

    def _let(self, depth: int, let) -> None:
        if let.value is None:
            self.line(depth, f"let {let.name}")
        else:
            self.line(depth, f"let {self._typed_name(let.name, let.value.type)} = {source(let.value)}")

    def function(self, depth: int, fn) -> None:
        self.line(depth, f"{fn.kind} {fn.name}({', '.join(fn.params)})")
        for let in fn.lets:
            self._let(depth + 1, let)
        self.expr(depth + 1, "value", fn.value)
        self.block(depth + 1, "do", fn.body)

    def step(self, depth: int, step: Step) -> None:
        chance = step.chance
        self.line(depth, f"step {step.name}: {step.kind}" + (f" ({chance.kind})" if chance else ""))
        self.expr(depth + 1, "actors" if step.kind == "simultaneous" else "actor", step.actor)
        if step.moves:
            self.line(depth + 1, "moves: " + ", ".join(step.moves))
        if chance is not None:
            self._chance(depth + 1, chance)
        for key, stmts in step.effects.items():
            self.block(depth + 1, key, stmts)
        if step.passing is not None:
            self.line(depth + 1, "pass")
            self.plan(depth + 2, step.passing)
        elif isinstance(spec_at(self.data, step.decl + ("pass",)), str):  # a pass named, not a plan of its own
            self.line(depth + 1, f"pass: {spec_at(self.data, step.decl + ('pass',))}")
        if len(step.next) == 1 and step.next[0].test is None:
            self.line(depth + 1, f"next: {self._to(step.next[0].to)}")
        elif step.next:
            self.line(depth + 1, "next")
            for branch in step.next:
                if branch.test is None:
                    self.line(depth + 2, self._to(branch.to))
                else:
                    self.line(depth + 2, f"{self._to(branch.to)} if {source(branch.test)}{self._type(branch.test)}")

    @staticmethod
    def _to(to) -> str:
        return source(to) if isinstance(to, N.Node) else str(to)

    def _chance(self, depth: int, chance: Chance) -> None:
        if chance.outcomes is not None:
            self.plan(depth, chance.outcomes)
        for key, node in chance.exprs.items():
            self.expr(depth, key, node)
        self.checks(depth, "require", chance.require)
        self.block(depth, "do", chance.effects)

    def end(self, depth: int, number: int, rule) -> None:
        self.line(depth, f"end {number}")
        if rule.no_moves is not None:
            self.line(depth + 1, f"no_moves: {rule.no_moves}")
            return
        self.expr(depth + 1, "when", rule.when)
        spec = spec_at(self.data, rule.decl)
        if rule.winners is not None:
            self.expr(depth + 1, "winners", rule.winners)
        elif isinstance(spec, dict) and "winners" in spec:
            self.line(depth + 1, f"winners: {spec['winners']}")
        for key, node in rule.exprs.items():
            if node is not None:
                self.expr(depth + 1, key, node)
            elif isinstance(spec, dict) and key in spec:
                self.line(depth + 1, f"{key}: {spec[key]}")

    def game(self, game: GameIR) -> None:
        self.line(0, f"game {game.name}: {game.seats} seats, {len(game.board.cells)} cells")
        for holder in game.holders:
            per = f" per {holder.per}" if holder.per else ""
            self.line(1, f"{holder.kind} {self._typed_name(holder.name, holder.type)}{per}")
            if holder.sight is not None:  # (who sees it, typed: the four words are not shown)
                self.expr(2, "visible", holder.sight)
        for fn in game.functions.values():
            self.function(1, fn)
        for name, plan in game.moves.items():
            self.line(1, f"move {name}")
            self.plan(2, plan)
        self.line(1, "flow" + (f": start at {game.start}" if game.start else ""))
        for label, path in labels(game).items():
            if label.startswith("flow "):
                for node in game.exprs.get(path, ()):
                    self.expr(2, path[1], node)
        for step in game.steps.values():
            self.step(2, step)
        for k, rule in enumerate(game.end):
            self.end(1, k + 1, rule)
        if game.scoring:
            self.line(1, "scoring")
        for key, node in game.scoring.items():
            self.expr(2, key, node)

    def rule(self, game: GameIR, label: str) -> None:
        kind, name = label.split(" ", 1)
        if kind in ("function", "procedure"):
            self.function(0, game.functions[name])
        elif kind == "move":
            self.line(0, label)
            self.plan(1, game.moves[name])
        elif kind == "step":
            self.step(0, game.steps[name])
        elif kind == "end":
            self.end(0, int(name), game.end[int(name) - 1])
        else:  # flow and scoring: one expression each
            for node in game.exprs.get(labels(game)[label], ()):
                self.expr(0, label, node)


def outline(game: GameIR, rule: str | None = None, *, types: bool = True, data: dict | None = None) -> str:
    """The game (or the one rule labelled `rule`, see labels()) as an indented listing: params with their types,
    domains, `among` and `why`; checks; lets; notation; effects; steps with their kind, actor, moves and ways on;
    chance; end rules; scoring. With `types`, every expression is followed by its static type (`# list[cell]`)."""
    out = _Outline(types, data)
    if rule is None:
        out.game(game)
    else:
        out.rule(game, rule)
    return "\n".join(out.lines)
