"""Building a game's IR from what the model compiler recorded: every expression and statement with the names
around it, lowered once the type pass has settled every type."""

from __future__ import annotations

from ..lang import types as T
from . import nodes as N
from .game import Board, Branch, Chance, Check, EndRule, Function, GameIR, Holder, Let, MovePlan, Param, Step
from .lower import Lowerer, Name

# the sections whose keys are names the rules read, and what each names
_SECTIONS = {"data": "data", "let": "global", "vars": "var", "zones": "zone", "functions": "function",
             "procedures": "procedure"}
_BOARD_SECTIONS = {"regions": "region", "directions": "direction"}


def spec_at(data, path: tuple):
    """The rule file's value at `path` (None where there is none)."""
    for key in path:
        if isinstance(data, dict):
            data = data.get(key)
        elif isinstance(data, list) and isinstance(key, int) and 0 <= key < len(data):
            data = data[key]
        else:
            return None
    return data


class Builder:
    """Lowers the records of one compiled file (see model/compile_types.py) and puts them together as a GameIR.

    `records`: (path, node, scope, is_statement) in the order compiled (the scope says what the engine's names
    mean there); `types`: the type pass's id(node) ->
    Type; `loop_heads`: the path of each `for:` effect's head -> its parsed clause; `offsets`: id(node) -> where
    in its string a node parsed from part of it starts (a notation field)."""

    def __init__(self, data: dict, file: str, records: list, types: dict, loop_heads: dict, offsets: dict,
                 binding_type=lambda b: b.type, holder_type=lambda name: T.ANY):
        self.data, self.file, self.types, self.binding_type = data, file, types, binding_type
        self.holder_type = holder_type  # name -> the type the type pass gave a variable, zone or constant
        self.records, self.loop_heads, self.offsets = records, loop_heads, offsets
        self.game_names = self._game_names()
        self.loop_names: dict = {}  # path of a `for:` effect -> the names its head binds
        self.temps: dict = {}  # path of a rule -> the names its effects assign
        self.exprs: dict = {}

    def _game_names(self) -> dict:
        names = {}
        for section, kind in _SECTIONS.items():
            for name in (self.data.get(section) or {}) if isinstance(self.data.get(section), dict) else ():
                typed = self.holder_type(name) if kind in ("data", "global", "var", "zone") else T.ANY
                names[name] = Name(kind, (section, name), const=kind in ("data", "global"), type=typed)
        board = self.data.get("board") if isinstance(self.data.get("board"), dict) else {}
        for section, kind in _BOARD_SECTIONS.items():
            for name in board.get(section) or {} if isinstance(board.get(section), dict) else ():
                names.setdefault(name, Name(kind, ("board", section, name), const=True))
        return names

    def _type_of_name(self, scope):
        def type_of(name: str) -> T.Type:
            b = scope.lookup(name) if scope is not None else None
            return T.ANY if b is None else self.binding_type(b)
        return type_of

    def _fallback(self, scope, path: tuple):
        """What names neither the file's sections nor its rules declare mean in `scope` (at `path`): the engine's,
        and the names the engine gives a rule, declared by the key that introduces them (see _given)."""
        def meaning(name: str) -> Name:
            b = scope.lookup(name) if scope is not None else None
            if b is None:
                return Name("unknown")
            if b.kind in ("var", "zone", "option"):
                return Name(b.kind, const=b.kind == "option", type=b.type)
            if b.is_const and b.type == T.CELL:
                return Name("cell", const=True, type=b.type)
            if b.kind == "local":
                return Name("local", self._given(name, path), type=b.type)
            return Name("engine", const=b.is_const, type=b.type)
        return meaning

    def _given(self, name: str, path: tuple) -> tuple | None:
        """The key that introduces a name the engine gives the rule at `path`: a compound move's `parts`, a part's
        `part`, a step's `move` (after:) or `choices` (resolve:), a chance step's `outcome`, a `key` (of keys:),
        the cell `c` a board attribute, link or picture position is worked out for, a place's `owner`."""
        for n in range(len(path), 0, -1):
            prefix, spec = path[:n], spec_at(self.data, path[:n])
            if name == "part" and len(prefix) >= 2 and prefix[-2] == "parts":
                return prefix
            if not isinstance(spec, dict):
                continue
            for key, gives in (("parts", "parts"), ("after", "move"), ("resolve", "choices"), ("keys", "key"),
                               ("arrangement", "outcome"), ("draw", "outcome")):
                if name == gives and key in spec:
                    return prefix + (key,)
            if name in ("c", "owner") and (prefix[:2] in (("board", "attributes"), ("board", "links")) and n == 3
                                           or prefix[:1] in (("vars",), ("zones",)) and n == 2):
                return prefix
        if name == "c" and path[:1] == ("render",):
            return path
        return None

    def _locals(self, path: tuple) -> tuple[dict, tuple]:
        """The names a rule declares around `path` (params, lets, inputs, loop variables), and the path of the
        innermost rule (whose effects' new names are shared)."""
        names, rule = {}, path[:2]
        for n in range(1, len(path) + 1):
            prefix = path[:n]
            spec = spec_at(self.data, prefix)
            if prefix in self.loop_names:
                names.update(self.loop_names[prefix])
            if not isinstance(spec, dict) or n < 2 or isinstance(path[n - 1], int):
                continue
            params = spec.get("params")
            if isinstance(params, list):
                rule = prefix
                names.update({p: Name("arg", prefix + ("params", i)) for i, p in enumerate(params) if isinstance(p, str)})
            elif isinstance(params, dict):
                rule = prefix
                names.update({p: Name("param", prefix + ("params", p)) for p in params})
            if isinstance(spec.get("inputs"), list):
                names.update({p: Name("input", prefix + ("inputs", i)) for i, p in enumerate(spec["inputs"])
                              if isinstance(p, str)})
            if isinstance(spec.get("let"), dict) and prefix != ("let",):
                names.update({p: Name("let", prefix + ("let", p)) for p in spec["let"]})
        return names, rule

    def lower_all(self) -> None:
        for path, node, scope, is_stmt in self.records:
            if path in self.loop_heads:
                if path not in self.loop_names:
                    self._head(path, scope)
                continue
            found = self._lower(path, node, scope, is_stmt)
            if self.offsets.get(id(node)) == "among":  # a bound worked out for a param: its `among`
                path = (path[:-1] if path[-1] == "in" else path) + ("among",)
            self.exprs.setdefault(path, []).append(found)

    def _lowerer(self, path: tuple, node, scope) -> tuple[Lowerer, dict, tuple]:
        local, rule = self._locals(path)
        temps = self.temps.setdefault(rule, {})
        names = {**self.game_names, **temps, **local}
        text = spec_at(self.data, path)
        offset = self.offsets.get(id(node), 0)
        offset = offset if isinstance(offset, int) else 0
        return Lowerer(path, names, self.types, self._fallback(scope, path), offset,
                       text[offset:] if isinstance(text, str) else "", self._type_of_name(scope)), temps, tuple(names)

    def _lower(self, path: tuple, node, scope, is_stmt: bool):
        lowerer, temps, before = self._lowerer(path, node, scope)
        found = lowerer.stmt(node) if is_stmt else lowerer.expr(node)
        temps.update({k: v for k, v in lowerer.names.items() if k not in before})
        return found

    def _head(self, path: tuple, scope) -> None:
        """A `for:` effect's head: one clause, whose names its body reads."""
        head = self.loop_heads[path]
        lowerer, _, _ = self._lowerer(path, head, scope)
        frame = {}
        clause = lowerer.clause(head, frame)
        self.loop_names[path[:-1]] = frame
        self.exprs[path] = [clause]

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
                                                                         "visible_to") if k in chance}
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
    builder = Builder(data, compiler.doc.file, compiler.ir_records(), compiler.typer.types or {},
                      compiler.loop_heads, compiler.ir_offsets, compiler.typer.binding_type, compiler.holder_type)
    builder.lower_all()
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
                                   compiler.holder_type(holder.name), builder.one((section, holder.name, "init"))))
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
            game.end.append(EndRule(("end", k), builder.one(("end", k, "when")), builder.one(("end", k, "winners")),
                                    {key: builder.one(("end", k, key)) for key in spec if key not in ("when", "winners")}))
    for key in (data.get("scoring") or {}) if isinstance(data.get("scoring"), dict) else ():
        game.scoring[key] = builder.one(("scoring", key))
    return game
