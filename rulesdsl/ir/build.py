"""Building a game's IR from the nodes the model compiler lowered as it compiled each expression and statement,
once the type pass has settled every type."""

from __future__ import annotations

from ..lang import types as T
from . import nodes as N
from .game import Board, Branch, Chance, Check, EndRule, Function, GameIR, Holder, Let, MovePlan, Param, Step


class Builder:
    """Files the IR nodes of one compiled file by where they are written, typed, and puts them together as a
    GameIR.

    `records`: (path, node) in the order compiled (a node lowered as a param's inferred bound is filed under the
    param's `among`); `types`: the type pass's id(node) -> Type; `loop_heads`: the path of each `for:` effect's head
    -> its clause (its collection and conditions are recorded at that path too, and filed as the clause)."""

    def __init__(self, records: list, types: dict, loop_heads: dict, binding_type=lambda b: b.type):
        self.types, self.binding_type = types, binding_type
        self.exprs: dict = {}
        for path, node in records:
            if path in loop_heads:
                self.exprs[path] = [loop_heads[path]]
            else:
                self.exprs.setdefault(path, []).append(node)
        nodes = [node for found in self.exprs.values() for top in found for node in N.walk(top)]
        # where a name the effects assign is first assigned -> the value it is given there, which types it where it
        # is assigned (where it is read, the type pass types it by every value it is given)
        self.first = {}
        for node in nodes:
            if isinstance(node, N.Assign) and isinstance(node.target, N.Ref) and node.target.kind == "temp" \
                    and node.target.at == node.target.decl_at:
                self.first.setdefault(node.target.decl_at, node.value)
        for node in reversed(nodes):  # (the items of a node before the node)
            self._type(node)
        for node in nodes:
            if isinstance(node, N.Ref) and id(node) not in self.types:
                N.typed(node, self._unread(node))

    def _type(self, node: N.Node) -> None:
        """Give `node` the type the type pass found for it: a comprehension handed to an aggregate, a list of its
        items; a call made for what it does, what it gives (none where it gives nothing known)."""
        found = self.types.get(id(node))
        if found in (None, T.ANY) and isinstance(node, N.Comp) and node.generator:
            found = T.list_(T.widen(node.elt.type))
        elif isinstance(node, N.Do) and node.call.type == T.ANY:
            N.typed(node.call, T.NONE_T)
        if found is not None:
            N.typed(node, found)

    def _unread(self, ref: N.Ref) -> T.Type:
        """The type of a name the type pass does not read (one assigned): of a name of the effects, the value it is
        first given; else what it names."""
        first = self.first.get(ref.decl_at) if ref.kind == "temp" else None
        if first is not None and first.type != T.ANY:
            return first.type
        return T.ANY if ref.binding is None else self.binding_type(ref.binding)

    # -- the parts of the game ------------------------------------------------------------------------
    def one(self, path: tuple):
        found = self.exprs.get(path)
        return found[0] if found else None

    def effects(self, path: tuple, items) -> tuple:
        if isinstance(items, (str, dict)):
            items = [items]
        out = []
        for k, item in enumerate(items or ()):
            at = path + (k,)
            if isinstance(item, str):
                out.extend(self.exprs.get(at, ()))
            elif isinstance(item, dict) and "if" in item:
                out.append(N.If(self.one(at + ("if",)), self.effects(at + ("then",), item.get("then")),
                                self.effects(at + ("else",), item.get("else")), at=(at, 0, 0)))
            elif isinstance(item, dict) and "for" in item and self.one(at + ("for",)) is not None:
                out.append(N.Loop(self.one(at + ("for",)), self.effects(at + ("do",), item.get("do")), at=(at, 0, 0)))
        return tuple(out)

    def checks(self, path: tuple, items) -> list:
        """The checks at `path`: a list of them, or one (located at `path` itself)."""
        found = []
        for at, item in ([(path + (k,), item) for k, item in enumerate(items)] if isinstance(items, list) else
                         [(path, items)] if items else []):
            if isinstance(item, dict):
                found.append(Check(self.one(at + ("test",)), item.get("why"), at))
            else:
                found.append(Check(self.one(at), None, at))
        return found

    def plan(self, path: tuple, spec: dict, kind: str = "move", name: str | None = None) -> MovePlan:
        plan = MovePlan(name or str(path[-1]), path, kind, inputs=[str(i) for i in spec.get("inputs") or []])
        if isinstance(spec.get("inputs"), dict):  # a part: the values it hands to its move's inputs
            plan.move = spec.get("move") if isinstance(spec.get("move"), str) else None
            plan.given = [Let(n, path + ("inputs", n), self.one(path + ("inputs", n))) for n in spec["inputs"]]
        for p, pspec in (spec.get("params") or {}).items() if isinstance(spec.get("params"), dict) else ():
            ppath = path + ("params", p)
            domain = self.one(ppath + ("in",)) if isinstance(pspec, dict) else self.one(ppath)
            why = pspec.get("why") if isinstance(pspec, dict) else None
            among = self.one(ppath + ("among",))  # written, or worked out by the compiler
            typed = T.item_type(domain.type) if domain is not None else T.ANY
            plan.params.append(Param(p, ppath, typed, domain, among, why))
        for n in spec.get("let") or {} if isinstance(spec.get("let"), dict) else ():
            plan.lets.append(Let(n, path + ("let", n), self.one(path + ("let", n))))
        plan.checks = self.checks(path + ("when",), spec.get("when"))
        plan.notation = self._notation(path + ("notation",), spec.get("notation"))
        plan.effects = self.effects(path + ("do",), spec.get("do"))
        plan.weight, plan.visible_to = self.one(path + ("weight",)), self.one(path + ("visible_to",))
        for k, part in enumerate(spec.get("parts") or ()):
            if isinstance(part, dict):
                plan.parts.append(self.plan(path + ("parts", k), part, "part", f"{plan.name}[{k}]"))
        repeat = spec.get("repeat")
        if isinstance(repeat, dict):
            at = path + ("repeat",)
            plan.repeat = self.plan(at, {k: v for k, v in repeat.items() if k in ("move", "inputs", "when")}, "part",
                                    f"{plan.name}[]")
            plan.repeat.move = repeat.get("move") if isinstance(repeat.get("move"), str) else None
            using = repeat.get("using")
            for key, where in (("using", at + ("using", next(iter(using), ""))) if isinstance(using, dict) and using
                               else ("using", None), ("chain", at + ("chain",)), ("prefer", at + ("prefer",))):
                found = self.one(where) if where is not None else None
                if found is not None:
                    plan.repeat_exprs[key] = found
            plan.repeat_rules = {k: repeat[k] for k in ("max", "min", "stop") if k in repeat}
        plan.one_per_position = spec.get("one_per_position") is True
        return plan

    def _notation(self, path: tuple, template) -> tuple:
        fields = iter(self.exprs.get(path, ()))
        if not isinstance(template, str):
            return tuple(fields)
        out, i = [], 0
        while i < len(template):
            j = template.find("{", i)
            k = template.find("}", j) if j >= 0 else -1
            if j < 0 or k < 0:
                out.append(template[i:])
                break
            if j > i:
                out.append(template[i:j])
            out.append(next(fields, None))
            i = k + 1
        return tuple(out)

    def step(self, name: str, spec: dict, compiled) -> Step:
        path = ("flow", "steps", name)
        kind = getattr(compiled, "kind", "") or ("chance" if "chance" in spec else "move")
        step = Step(name, path, kind, actor=self.one(path + ("actor",)) or self.one(path + ("actors",)))
        step.moves = [m if isinstance(m, str) else next(iter(m), "") for m in spec.get("moves") or ()
                      if isinstance(m, (str, dict))]
        for key in ("do", "after", "resolve"):
            if spec.get(key):
                step.effects[key] = self.effects(path + (key,), spec[key])
        nxt = spec.get("next")
        if isinstance(nxt, list):
            step.next = [Branch(self.one(path + ("next", k, "if")), b.get("to")) for k, b in enumerate(nxt)
                         if isinstance(b, dict)]
        elif nxt is not None:
            step.next = [Branch(None, self.one(path + ("next",)) or nxt)]
        chance = spec.get("chance")
        if isinstance(chance, dict):
            cpath = path + ("chance",)
            if "outcomes" in chance:
                outcomes = dict(chance.get("outcomes") or {}, inputs=spec.get("inputs") or [])
                step.chance = Chance("outcomes", self.plan(cpath + ("outcomes",), outcomes, "outcome", name))
            else:
                step.chance = Chance("draw" if "draw" in chance else "arrangement")
                step.chance.exprs = {k: self.one(cpath + (k,)) for k in ("arrangement", "fixed", "draw", "from",
                                                                         "refill", "visible_to") if k in chance}
                step.chance.require = self.checks(cpath + ("require",), chance.get("require"))
                step.chance.effects = self.effects(cpath + ("do",), chance.get("do"))
        if isinstance(spec.get("pass"), (dict, str)):  # (a text: the pass's notation)
            passing = spec["pass"] if isinstance(spec["pass"], dict) else {"notation": spec["pass"]}
            step.passing = self.plan(path + ("pass",), passing, "pass", "pass")
        return step


def _indices(region):
    """A region's cells by index (a region per key: a table of them)."""
    if isinstance(region, dict):
        return {key: _indices(cells) for key, cells in region.items()}
    return [int(c) for c in region]


def build(compiler) -> GameIR:
    """The IR of the game `compiler` (a model/compile.py ModelCompiler whose type pass has run) compiled."""
    rules, data = compiler.rules, compiler.data
    builder = Builder(compiler.ir_records(), compiler.typer.types or {}, compiler.loop_heads, compiler.typer.binding_type)
    cells = rules.board.cells
    board = Board([c.name for c in cells], directions=dict(rules.board.directions),
                  regions={n: _indices(r) for n, r in rules.board.regions.items()},
                  attributes={name: (typed, [getattr(c, name, None) for c in cells])
                              for name, typed in compiler.typer.cell_fields.items()
                              if any(name in vars(c) for c in cells)})
    game = GameIR(rules.name, compiler.doc.file, rules.num_players, board, exprs=builder.exprs,
                  max_legal=rules.max_legal, max_outcomes=rules.max_outcomes,
                  builtins={name: b for name, b in compiler.builtins.items()
                            if b.category not in ("functions", "procedures")})  # (the file's own are in functions)
    for holder in rules.zones + rules.vars:
        section = "zones" if holder.zone else "vars"
        game.holders.append(Holder(holder.name, (section, holder.name), "zone" if holder.zone else "var",
                                   holder.per or ("key" if holder.keys is not None else None), holder.visible,
                                   compiler.holder_type(holder.name), builder.one((section, holder.name, "init")),
                                   builder.one((section, holder.name, "visible"))))
    for section in ("data", "let"):
        for name in data.get(section) or {} if isinstance(data.get(section), dict) else ():
            game.data[name] = ((section, name), compiler.holder_type(name))
    for section, kind in (("functions", "function"), ("procedures", "procedure")):
        for name, spec in (data.get(section) or {}).items() if isinstance(data.get(section), dict) else ():
            spec = spec if isinstance(spec, dict) else {}
            path = (section, name)
            params = [p for p in spec.get("params") or [] if isinstance(p, str)]
            lets = [Let(n, path + ("let", n), builder.one(path + ("let", n)))
                    for n in spec.get("let") or {} if isinstance(spec.get("let"), dict)]
            game.functions[name] = Function(name, path, kind, params, lets, builder.one(path + ("value",)),
                                            builder.effects(path + ("do",), spec.get("do")))
    for name, spec in (data.get("moves") or {}).items() if isinstance(data.get("moves"), dict) else ():
        game.moves[name] = builder.plan(("moves", name), spec if isinstance(spec, dict) else {})
    flow = data.get("flow") if isinstance(data.get("flow"), dict) else {}
    for name, spec in (flow.get("steps") or {}).items() if isinstance(flow.get("steps"), dict) else ():
        game.steps[name] = builder.step(name, spec if isinstance(spec, dict) else {}, rules.steps.get(name))
    game.start = rules.start
    for k, spec in enumerate(data.get("end") or ()) if isinstance(data.get("end"), list) else ():
        if isinstance(spec, dict):
            word = spec.get("no_moves")
            game.end.append(EndRule(("end", k), builder.one(("end", k, "when")), builder.one(("end", k, "winners")),
                                    {key: builder.one(("end", k, key)) for key in spec
                                     if key not in ("when", "winners", "no_moves")},
                                    no_moves=word if isinstance(word, str) else None))
    for key in (data.get("scoring") or {}) if isinstance(data.get("scoring"), dict) else ():
        if key not in ("utility", "returns_range"):  # (settings, not expressions)
            game.scoring[key] = builder.one(("scoring", key))
    return game
