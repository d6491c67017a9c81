"""Compile a validated rule document into the game model: names resolved, geometry precomputed, code generated."""

from __future__ import annotations

from ..errors import Location, Problem, RulesError, did_you_mean
from ..lang import ast as A
from ..lang.builtins import Builtin, RuleValueError, pure_builtins
from ..lang.compiler import Binding, CompileProblem, Compiler, Scope, local
from ..lang.parser import SyntaxProblem, parse
from ..source import Document
from .board import Region
from .builtins import game_builtins
from .pieces import PieceKind
from .rules import END_TURN, Arrangement, EndRule, Move, MoveRule, Step
from .game import Rules
from .values import text_of

_FAIL = object()  # marks an expression that did not compile (its problem is already recorded)
_BROKEN = Binding("", kind="broken")  # a name whose definition failed: uses of it are not reported again


class ModelCompiler:
    """Builds a Rules object from a Document, collecting every problem instead of stopping at the first."""

    def __init__(self, doc: Document, option_values: dict | None = None, variant: str | None = None):
        self.doc = doc
        self.data = doc.data
        self.problems: list[Problem] = []
        self.given_options = dict(option_values or {})
        self.rules = Rules()
        self.rules.source = doc.file
        self.rules.variant = variant
        self.namespace: dict = {"__builtins__": __builtins__}
        self._fn_count = 0

    # -- problems ---------------------------------------------------------------------------
    def problem(self, path, message, hint=None, key=False):
        self.problems.append(self.doc.problem(path, message, hint, key=key))

    def _expr_problem(self, path, exc, text):
        if getattr(exc, "quiet", False):
            return
        self.problems.append(self.doc.problem(path, exc.message, exc.hint, offset=exc.start if
                                              isinstance(exc, CompileProblem) else exc.offset,
                                              width=max(1, (exc.end - exc.start) if isinstance(exc, CompileProblem)
                                                        else 1)))

    # -- expressions ------------------------------------------------------------------------
    def parse_at(self, path, text, start="expr"):
        if isinstance(text, bool) or text is None or isinstance(text, (int, float)):
            return A.Const(text)
        if not isinstance(text, str):
            self.problem(path, f"expected an expression (a string), got {type(text).__name__}")
            return _FAIL
        try:
            return parse(text, start)
        except SyntaxProblem as exc:
            self.problems.append(self.doc.problem(path, exc.message, exc.hint, offset=exc.offset))
            return _FAIL

    def loop_head(self, path, head):
        """Parse the head of a 'for:' effect ("name in collection") as a one-clause comprehension."""
        if not isinstance(head, str):
            return self.parse_at(path, head)
        prefix = "[0 for "
        try:
            node = parse(f"{prefix}{head}]")
        except SyntaxProblem as exc:
            if exc.offset - len(prefix) >= len(head.rstrip()):  # at the wrapper's ']': the text ended too early
                try:
                    parse(prefix + head)
                except SyntaxProblem as inner:
                    exc = inner
            offset = min(max(0, exc.offset - len(prefix)), len(head))
            self.problems.append(self.doc.problem(path, exc.message, exc.hint, offset=offset))
            return _FAIL
        for sub in A.walk(node):  # positions in the user's text, not in the wrapper
            sub.start, sub.end = max(0, sub.start - len(prefix)), max(0, sub.end - len(prefix))
            spans = getattr(sub, "keyword_spans", None)
            if spans:
                sub.keyword_spans = {k: (a - len(prefix), b - len(prefix)) for k, (a, b) in spans.items()}
        return node

    def code(self, path, node, scope) -> str | object:
        if node is _FAIL:
            return _FAIL
        try:
            return self.compiler.expr(node, scope)
        except CompileProblem as exc:
            self._expr_problem(path, exc, None)
            return _FAIL

    def expr(self, path, text, scope):
        """Compile the expression at `path` to Python source (or _FAIL)."""
        return self.code(path, self.parse_at(path, text), scope)

    def function(self, name: str, args: str, body: list[str]):
        """Define a generated Python function in the game's namespace and return it."""
        self._fn_count += 1
        fname = f"{name}_{self._fn_count}"
        source = f"def {fname}({args}):\n" + "\n".join("    " + line for line in body or ["pass"]) + "\n"
        exec(compile(source, f"<rules:{self.doc.file}:{name}>", "exec"), self.namespace)  # noqa: S102
        fn = self.namespace[fname]
        fn.source = source
        return fn

    def lambda_(self, args: str, code: str):
        return self.function("expr", args, [f"return {code}"])

    def evaluate_now(self, path, text, scope, what="value"):
        """Evaluate a load-time expression (data that depends on options, board geometry...)."""
        code = self.expr(path, text, scope)
        if code is _FAIL:
            return _FAIL
        try:
            return self.lambda_("S, me", code)(None, None)
        except Exception as exc:  # noqa: BLE001 - a rule file mistake, reported at its location
            self.problem(path, f"cannot compute this {what}: {_describe(exc)}")
            return _FAIL

    # -- top level --------------------------------------------------------------------------
    def compile(self) -> Rules:
        d = self.data
        r = self.rules
        r.name = str(d.get("game", "untitled"))
        r.description = str(d.get("description", "")).strip()
        r.variants = {k: str((v or {}).get("description", "")) for k, v in (d.get("variants") or {}).items()}
        self.builtins = pure_builtins()
        attributes = {"x", "y", "name", "index", "kind", "owner", "col", "row"}
        attributes.update(*(set((v or {}).get("attributes", {}) or {}) | set((v or {}).get("derived", {}) or {})
                            for v in (d.get("pieces") or {}).values()))
        attributes.update(((d.get("board") or {}).get("attributes") or {}).keys())
        for move in (d.get("moves") or {}).values():  # simultaneous choices read as choices[p].<param>
            attributes.update((move or {}).get("params") or {}, (move or {}).get("let") or {})
        self.compiler = Compiler(self.builtins, self.namespace, attributes)
        self._options()
        self.root = Scope({
            "option": Binding("option", kind="option", const=r.option_values, is_const=True),
            "me": Binding("me"),
            "player": Binding("S.player", assignable=True),
            "turn": Binding("S.turn"),
        })
        self._players()
        self.compiler.add_builtins(game_builtins(r))
        self._data()
        self._board()
        self._lets_after_board()
        self._pieces()
        self._zones_and_vars()
        self._functions()
        self._moves()
        self._flow()
        self._end_and_scoring()
        self._render()
        if self.problems:
            raise RulesError(self.problems)
        r.namespace = self.namespace
        return r

    def _render(self):
        """Terminal layout hints: rows of cells to draw (evaluated once) and variables not to show."""
        spec = self.data.get("render") or {}
        rows = []
        entries = spec.get("rows") or []
        if isinstance(entries, str):  # one expression giving (label, cells) pairs
            pairs = self.evaluate_now(("render", "rows"), entries, self.root, "list of (label, cells) rows")
            entries = [] if pairs is _FAIL else [{"label": str(label), "cells": cells} for label, cells in pairs]
        for i, row in enumerate(entries):
            path = ("render", "rows", i) if not isinstance(spec.get("rows"), str) else ("render", "rows")
            cells = row.get("cells")
            if isinstance(cells, str):
                cells = self.evaluate_now(path + ("cells",), cells, self.root, "list of cells")
            if cells is _FAIL:
                continue
            board = self.rules.board
            found = [c if hasattr(c, "index") else board.by_name.get(str(c)) for c in cells]
            if None in found:
                self.problem(path + ("cells",), "every entry of a render row must be a cell")
                continue
            rows.append((str(row.get("label", "")), found))
        self.rules.render_rows = rows
        known = {v["name"] for v in self.rules.vars} | {z["name"] for z in self.rules.zones}
        for i, name in enumerate(spec.get("hide") or []):
            if name not in known:
                self.problem(("render", "hide", i), f"no variable or zone named '{name}'", did_you_mean(name, known))
        self.rules.render_hide = set(spec.get("hide") or [])

    def _options(self):
        r = self.rules
        declared = self.data.get("options") or {}
        r.option_specs = declared
        values = {}
        for name, spec in declared.items():
            spec = spec or {}
            values[name] = spec.get("default")
            if values[name] is not None and "type" in spec:  # the default must itself be a valid value
                try:
                    coerce_option(name, spec, values[name])
                except ValueError as exc:
                    self.problem(("options", name, "default"), f"the default of {exc}", spec.get("help"))
        here = Location(self.doc.file)  # options given on the command line have no line to point at
        for name, raw in self.given_options.items():
            if name not in declared:
                hint = did_you_mean(name, declared) or f"options of this game: {', '.join(declared) or 'none'}"
                self.problems.append(Problem(f"unknown option '{name}'", here, hint))
                continue
            spec = declared[name] or {}
            try:
                values[name] = coerce_option(name, spec, raw)
            except ValueError as exc:
                self.problems.append(Problem(str(exc), here, spec.get("help")))
        r.option_values = values

    def _players(self):
        r, d = self.rules, self.data
        spec = d.get("players") or {}
        count = spec.get("count", 2)
        if isinstance(count, str):
            count = self.evaluate_now(("players", "count"), count, self.root, "player count")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            if count is not _FAIL:
                self.problem(("players", "count"), f"the number of players must be a whole number >= 1, got {count!r}")
            count = 2
        r.num_players = count
        names = spec.get("names")
        if isinstance(names, str):
            names = self.evaluate_now(("players", "names"), names, self.root, "list of player names")
        if names is None or names is _FAIL:
            names = [f"p{i}" for i in range(count)]
        names = [str(n) for n in names]
        if len(names) < count:
            self.problem(("players", "names"), f"{len(names)} names for {count} players",
                         "give one name per player")
            names += [f"p{i}" for i in range(len(names), count)]
        r.player_names = names[:count]
        self.root.names["players"] = Binding("", const=list(range(count)), is_const=True)
        self.root.names["num_players"] = Binding("", const=count, is_const=True)

    def declare(self, path, name) -> None:
        """Record that `path` declares `name`; a second declaration of one name is a problem."""
        first = self._declared.get(name)
        if first is not None:
            where, _ = self.doc.locate(first, key=True)
            self.problem(path, f"'{name}' is already declared (at {first[0]}: line {where.line})",
                         "data, lets, functions, regions, zones and variables share one set of names", key=True)
        elif name in self.root.names:
            self.problem(path, f"'{name}' is a name the language defines", "choose another name", key=True)
        else:
            self._declared[name] = path

    def _declare_all(self):
        board = self.data.get("board") or {}
        for group, items in (("data", self.data.get("data")), ("let", self.data.get("let")),
                             ("functions", self.data.get("functions")),
                             ("procedures", self.data.get("procedures")), ("zones", self.data.get("zones")),
                             ("vars", self.data.get("vars")), ("board", board.get("regions"))):
            for name in items or {}:
                self.declare((group, "regions", name) if group == "board" else (group, name), name)

    def _data(self):
        self._declared: dict = {}
        self._declare_all()
        for name, value in (self.data.get("data") or {}).items():
            self.root.names[name] = Binding("", const=value, is_const=True)
        # A let that uses the board (cells, regions, cell(), links...) is computed once the board is built;
        # every other let first, since the board itself may depend on them (its size, say).
        board_words = {"cells"} | set(((self.data.get("board") or {}).get("regions") or {})) | {
            b.name for b in self.builtins.values() if b.category == "board"}
        self._board_lets = []
        for name, text in (self.data.get("let") or {}).items():
            node = self.parse_at(("let", name), text) if isinstance(text, str) else None
            words = set() if node in (None, _FAIL) else {
                n.id if isinstance(n, A.Name) else n.func for n in A.walk(node) if isinstance(n, (A.Name, A.Call))}
            if words & (board_words | {n for n, _ in self._board_lets}):
                self._board_lets.append((name, text))
                self.root.names[name] = Binding("", kind="later")
                continue
            self._let(name, text)

    def _let(self, name, text):
        value = self.evaluate_now(("let", name), text, self.root)
        self.root.names[name] = _BROKEN if value is _FAIL else Binding("", const=value, is_const=True)

    def _lets_after_board(self):
        for name, text in self._board_lets:
            del self.root.names[name]
            self._let(name, text)

    # -- board -------------------------------------------------------------------------------
    def _board(self):
        spec = self.data.get("board") or {}
        board = self.rules.board  # filled in place: built-ins already hold it
        grid = spec.get("grid")
        if grid:
            columns = grid.get("columns", 8)
            columns = list(columns) if isinstance(columns, str) else (
                [str(i) for i in range(1, columns + 1)] if isinstance(columns, int) else [str(c) for c in columns])
            rows = grid.get("rows", 8)
            rows = [str(i) for i in range(1, rows + 1)] if isinstance(rows, int) else [str(r) for r in rows]
            template = grid.get("name", "{col}{row}")
            for y, row in enumerate(rows, 1):
                for x, col in enumerate(columns, 1):
                    board.add_cell(template.format(col=col, row=row), x=x, y=y, col=col, row=row)
        names = spec.get("cells")
        if isinstance(names, str):
            names = self.evaluate_now(("board", "cells"), names, self.root, "list of cells")
            names = [] if names is _FAIL else names
        for name in names or []:
            if str(name) in board.by_name:
                self.problem(("board", "cells"), f"cell '{name}' is defined twice")
            else:
                board.add_cell(str(name))
        removed = spec.get("remove") or []
        if removed:
            for i, name in enumerate(removed):
                if str(name) not in board.by_name:
                    self.problem(("board", "remove", i), f"no cell named '{name}' to remove",
                                 did_you_mean(str(name), board.by_name))
            keep = [c for c in board.cells if c.name not in {str(n) for n in removed}]
            board.cells, board.by_name = [], {}
            for c in keep:
                attrs = {k: v for k, v in c.__dict__.items() if k not in ("name", "index")}
                board.add_cell(c.name, **attrs)
        self.root.names["cells"] = Binding("", const=Region(board.cells), is_const=True)
        for name, vec in (spec.get("directions") or {}).items():
            board.directions[str(name)] = tuple(vec)
        cell_scope = self.root.child(c=local("c"))
        for name, text in (spec.get("attributes") or {}).items():
            code = self.expr(("board", "attributes", name), text, cell_scope)
            if code is _FAIL:
                continue
            fn = self.lambda_("S, me, L_c", code)
            for c in board.cells:
                try:
                    setattr(c, name, fn(None, None, c))
                except Exception as exc:  # noqa: BLE001
                    self.problem(("board", "attributes", name), f"cannot compute '{name}' for cell {c}: "
                                 f"{_describe(exc)}")
                    break
        for name, value in (spec.get("regions") or {}).items():  # after attributes: regions may filter by them
            self._region(board, name, value)
        for name, link in (spec.get("links") or {}).items():
            self._link(board, name, link or {})
        adjacency = spec.get("adjacency")
        for i, d in enumerate(adjacency or []):
            if d not in board.directions:
                self.problem(("board", "adjacency", i), f"unknown direction '{d}'", did_you_mean(d, board.directions))
        board.finish_geometry(adjacency)

    def _cells_of(self, path, value, board):
        if isinstance(value, str):
            value = self.evaluate_now(path, value, self.root, "list of cells")
            if value is _FAIL:
                return None
        if not isinstance(value, (list, tuple)):
            self.problem(path, "a region is a list of cells (names, or an expression giving cells)")
            return None
        cells = []
        for i, item in enumerate(value):
            cell = board.by_name.get(str(item))
            if cell is None:
                self.problem(path + (i,) if not isinstance(self.doc._value(path), str) else path,
                             f"no cell named '{item}'", did_you_mean(str(item), board.by_name))
                continue
            cells.append(cell)
        return Region(cells)

    def _region(self, board, name, value):
        self.root.names[name] = _BROKEN  # until it is computed
        path = ("board", "regions", name)
        if isinstance(value, dict):  # one region per key: {keys: expr, cells: expr using 'key'}
            keys = self.evaluate_now(path + ("keys",), value.get("keys"), self.root, "list of keys")
            if keys is _FAIL:
                return
            code = self.expr(path + ("cells",), value.get("cells"), self.root.child(key=local("key")))
            if code is _FAIL:
                return
            fn = self.lambda_("S, me, L_key", code)
            table = {}
            for key in keys:
                try:
                    table[key] = self._cells_of(path + ("cells",), fn(None, None, key), board)
                except Exception as exc:  # noqa: BLE001
                    self.problem(path + ("cells",), f"cannot compute region '{name}' for {key!r}: {_describe(exc)}")
                    return
            board.regions[name] = table
        else:
            region = self._cells_of(path, value, board)
            if region is None:
                return
            board.regions[name] = region
        self.root.names[name] = Binding("", const=board.regions[name], is_const=True)

    def _link(self, board, name, spec):
        path = ("board", "links", name)
        keys = [None]
        scope = self.root.child(c=local("c"))
        if "keys" in spec:
            keys = self.evaluate_now(path + ("keys",), spec["keys"], self.root, "list of keys")
            if keys is _FAIL:
                return
            scope = scope.child(key=local("key"))
        code = self.expr(path + ("next",), spec.get("next"), scope)
        if code is _FAIL:
            return
        fn = self.lambda_("S, me, L_c, L_key=None", code)
        tables, switches = {}, {}
        for key in keys:
            row, switch = [], []
            for c in board.cells:
                try:
                    target = fn(None, None, c, key)
                except Exception as exc:  # noqa: BLE001
                    self.problem(path + ("next",), f"cannot compute link '{name}' from {c}: {_describe(exc)}")
                    return
                new_key = None
                if isinstance(target, (list, tuple)):  # [cell, key]: the walk goes on with the other key's table
                    if len(target) != 2 or target[1] not in keys:
                        self.problem(path + ("next",), f"link '{name}' from {c} gives {list(target)!r}",
                                     "a link gives a cell, none, or [cell, key] with one of its keys")
                        return
                    target, new_key = target
                if target is not None and not hasattr(target, "index"):
                    target = board.by_name.get(str(target))
                row.append(target)
                switch.append(new_key)
            tables[key] = tuple(row)
            switches[key] = tuple(switch)
        board.links[name] = tables
        board.link_switches[name] = switches

    # -- pieces, zones, vars -----------------------------------------------------------------
    def _pieces(self):
        kinds = self.rules.kinds
        for kind, spec in (self.data.get("pieces") or {}).items():
            spec = spec or {}
            attributes = {}
            for attr, domain in (spec.get("attributes") or {}).items():
                if isinstance(domain, list):
                    attributes[attr] = {"values": domain}
                else:
                    attributes[attr] = dict(domain or {})
            kinds[kind] = PieceKind(kind, attributes, {})
        for kind, spec in (self.data.get("pieces") or {}).items():
            derived = {}
            attrs = list(kinds[kind].attributes)
            scope = self.root.child(**{a: local(a) for a in attrs})
            for name, text in ((spec or {}).get("derived") or {}).items():
                code = self.expr(("pieces", kind, "derived", name), text, scope)
                if code is _FAIL:
                    continue
                fn = self.lambda_("S, me, " + ", ".join(f"L_{a}" for a in attrs), code)
                derived[name] = (lambda f: lambda values: f(None, None, *values.values()))(fn)
            kinds[kind].derived = derived

    def _zones_and_vars(self):
        r = self.rules
        for i, (name, spec) in enumerate((self.data.get("zones") or {}).items()):
            spec = spec or {}
            keys = None
            if spec.get("keys") is not None:
                keys = self.evaluate_now(("zones", name, "keys"), spec["keys"], self.root, "list of keys")
                keys = [] if keys is _FAIL else list(keys)
            r.zones.append({"name": name, "per": spec.get("per"), "keys": keys, "visible": spec.get("visible", "all"),
                            "init": spec.get("init")})
            self.root.names[name] = Binding(f"S.zones[{i}]", kind="zone")
        for i, (name, spec) in enumerate((self.data.get("vars") or {}).items()):
            spec = spec if isinstance(spec, dict) else {"init": spec}
            r.vars.append({"name": name, "per": spec.get("per"), "visible": spec.get("visible", "all"),
                           "init": spec.get("init")})
            self.root.names[name] = Binding(f"S.vars[{i}]", assignable=True, kind="var")
        for group, items in (("zones", r.zones), ("vars", r.vars)):
            for item in items:
                path = (group, item["name"])
                init = item["init"]
                scope = self.root.child(owner=local("owner"), key=local("key"))
                if init is None:
                    item["init_fn"] = None
                    continue
                code = self.expr(path + ("init",), init, scope)
                item["init_fn"] = _FAIL if code is _FAIL else self.lambda_("S, me, L_owner=None, L_key=None", code)

    def _functions(self):
        """User functions (named expressions) and procedures (named effects), called like built-ins."""
        kinds = (("functions", "value", "U"), ("procedures", "do", "P"))
        for section, _, prefix in kinds:
            for name, spec in (self.data.get(section) or {}).items():
                spec = spec or {}
                if name in self.builtins:
                    self.problem((section, name), f"'{name}' is already a built-in function", "choose another name",
                                 key=True)
                    continue
                params = [str(p) for p in spec.get("params") or []]
                call = "".join(f", {{{i}}}" for i in range(len(params)))
                self.builtins[name] = Builtin(name, None, len(params), len(params), f"{name}({', '.join(params)})",
                                              str(spec.get("description", "")), section, state=True,
                                              effect=section == "procedures",
                                              inline=f"{prefix}_{_ident(name)}(S, me{call})")
        for section, body_key, prefix in kinds:
            for name, spec in (self.data.get(section) or {}).items():
                spec = spec or {}
                b = self.builtins.get(name)
                if b is None or b.category != section:
                    continue
                params = [str(p) for p in spec.get("params") or []]
                scope = self.root.child(**{p: local(p) for p in params})
                if section == "functions":
                    code = self.expr((section, name, body_key), spec.get(body_key), scope)
                    body = _FAIL if code is _FAIL else [f"return {code}"]
                else:
                    body = self.effects((section, name, body_key), spec.get(body_key) or [], scope)
                if body is _FAIL:
                    continue
                fn = self.function(f"{prefix}_{_ident(name)}", "S, me" + "".join(f", L_{p}" for p in params), body)
                self.namespace[f"{prefix}_{_ident(name)}"] = fn
                b.fn = (lambda f: lambda S, *args: f(S, None, *args))(fn)

    # -- moves -------------------------------------------------------------------------------
    def _moves(self):
        moves = self.data.get("moves") or {}
        for name, spec in moves.items():
            rule = self.move_rule(("moves", name), name, spec or {}, self.root)
            if rule is not None:
                self.rules.moves[name] = rule
        for rule in list(self.rules.moves.values()):
            if rule.part_specs:
                self._parts(rule)

    def _parts(self, rule: MoveRule) -> None:
        """A compound move: after its own params, each part is a legal move of another kind, made in order."""
        from .parts import compound

        base = rule.inputs + rule.params + rule.lets
        parts = []
        for i, spec in enumerate(rule.part_specs):
            path = rule.path + ("parts", i)
            spec = spec or {}
            target = self.rules.moves.get(spec.get("move"))
            if target is None:
                self.problem(path + ("move",), f"no move named '{spec.get('move')}'",
                             did_you_mean(str(spec.get("move")), self.rules.moves))
                continue
            if target.part_specs:
                self.problem(path + ("move",), "a part cannot itself have parts")
                continue
            scope = self.root.child(**{n: local(n) for n in base}, parts=local("parts"))
            given = spec.get("inputs") or {}
            missing = [n for n in target.inputs if n not in given]
            if missing:
                self.problem(path, f"move '{target.name}' needs input '{missing[0]}'",
                             f"give it under inputs: ({', '.join(target.inputs)})")
                continue
            codes = [self.expr(path + ("inputs", n), given[n], scope) for n in target.inputs]
            when = None
            if spec.get("when") is not None:
                when = self.expr(path + ("when",), spec["when"], scope.child(part=local("part")))
            if _FAIL in codes or when is _FAIL:
                continue
            sig = "S, me" + "".join(f", L_{n}" for n in base) + ", L_parts"
            inputs_fn = self.function(f"inputs_{_ident(rule.name)}_{i}", sig, ["return (" + "".join(
                c + ", " for c in codes) + ")"])
            when_fn = None if when is None else self.function(f"when_{_ident(rule.name)}_{i}", sig + ", L_part",
                                                               [f"return {when}"])
            parts.append((target, inputs_fn, when_fn))
        if len(parts) == len(rule.part_specs):
            compound(rule, parts)

    def _free_names(self, node):
        return {n.id for n in A.walk(node) if isinstance(n, A.Name)} if node is not _FAIL else set()

    def move_rule(self, path, name, spec, scope) -> MoveRule | None:
        """Compile one move (or chance outcome) definition into a MoveRule."""
        extra_args = [f"L_{i}" for i in spec.get("inputs") or []]
        scope = scope.child(**{str(i): local(str(i)) for i in spec.get("inputs") or []})
        params = list((spec.get("params") or {}).items())
        lets = list((spec.get("let") or {}).items())
        whens = spec.get("when") or []
        if not isinstance(whens, list):
            whens = [whens]
        rule = MoveRule(name, path, [p for p, _ in params], [n for n, _ in lets])
        rule.inputs = [str(i) for i in spec.get("inputs") or []]
        rule.part_specs = spec.get("parts") or []
        inner = scope.child(**{n: local(n) for n in rule.arg_names})
        if rule.part_specs:
            inner.names["parts"] = local("parts")
        binders = [p for p, _ in params] + [n for n, _ in lets]
        levels = {}
        ok = True
        # Each loop level i binds param i; lets and checks go right after the last name they use.
        slots: list[list[str]] = [[] for _ in range(len(params) + 1)]
        explain_slots: list[list[str]] = [[] for _ in range(len(params) + 1)]
        level_lets: list[list] = [[] for _ in range(len(params) + 1)]  # (name, line) per loop level
        loop_lines, let_lines = [], []  # for the candidates generator (domains only, no conditions)
        level_checks: list[list] = [[] for _ in range(len(params) + 1)]  # (anchor let, gen line, explain line)
        checks = []
        seen = scope.child()
        for i, (pname, dom) in enumerate(params):
            seen.names[pname] = local(pname)
            ppath, why = path + ("params", pname), None
            if isinstance(dom, dict):  # {in: domain, why: message when a value is not in it}
                dom, why, ppath = dom.get("in"), dom.get("why"), ppath + ("in",)
            node = self.parse_at(ppath, dom)
            code = self.code(ppath, node, scope.child(**seen.names))
            if code is _FAIL:
                ok = False
                continue
            used = self._free_names(node) & set(binders)
            later = used - set(binders[:i])
            if later:
                self.problem(ppath, f"parameter '{pname}' uses '{sorted(later)[0]}', "
                             "which is defined after it", "order the parameters so each uses only earlier ones")
                ok = False
            levels[pname] = i + 1
            slots[i + 1].insert(0, f"for L_{pname} in {code}:")
            loop_lines.append(f"for L_{pname} in {code}:")
            explain_slots[i + 1].insert(0, f"if L_{pname} not in {code}: return {len(checks)}")
            checks.append((f"{pname} must be one of {dom}", why))
        for j, (lname, text) in enumerate(lets):
            node = self.parse_at(path + ("let", lname), text)
            code = self.code(path + ("let", lname), node, inner)
            if code is _FAIL:
                ok = False
                continue
            used = self._free_names(node) & set(binders)
            later = used - set(binders[: len(params) + j])
            if later:
                self.problem(path + ("let", lname), f"'{lname}' uses '{sorted(later)[0]}', which is defined after it")
                ok = False
            level = max([levels.get(u, 0) for u in used] or [0])
            levels[lname] = level
            level_lets[level].append((lname, f"L_{lname} = {code}"))
            let_lines.append(f"L_{lname} = {code}")
        for k, item in enumerate(whens):
            cpath = path + ("when", k)
            text, why = (item.get("test"), item.get("why")) if isinstance(item, dict) else (item, None)
            if isinstance(item, dict):
                cpath = cpath + ("test",)
            node = self.parse_at(cpath, text)
            code = self.code(cpath, node, inner)
            if code is _FAIL:
                ok = False
                continue
            used = self._free_names(node) & set(binders)
            level = max([levels.get(u, 0) for u in used] or [0])
            # a check runs right after the last let of its level that it needs (or before all of them)
            anchor = max([i for i, (n, _) in enumerate(level_lets[level]) if n in used] or [-1])
            level_checks[level].append((anchor, f"if not {code}: continue" if level else f"if not {code}: return",
                                        f"if not {code}: return {len(checks)}"))
            checks.append((str(text), why))
        for level in range(len(slots)):
            lets_here = level_lets[level]
            for anchor in range(-1, len(lets_here)):
                if anchor >= 0:
                    slots[level].append(lets_here[anchor][1])
                    explain_slots[level].append(lets_here[anchor][1])
                for at, gen_line, explain_line in level_checks[level]:
                    if at == anchor:
                        slots[level].append(gen_line)
                        explain_slots[level].append(explain_line)
        rule.checks = checks
        own = rule.params + rule.lets  # a compound move's parts are added around these
        arg_code = "(" + "".join(f"L_{a}, " for a in own) + ")"
        # generator
        body, indent = [], ""
        for level, lines in enumerate(slots):
            for line in lines:
                if level == 0 and line.endswith(": continue"):
                    line = line[: -len("continue")] + "return"
                body.append(indent + line)
                if line.startswith("for "):
                    indent += "    "
        loops = body[:]
        body.append(indent + f"yield {arg_code}")
        body.insert(0, "if False: yield None")
        # Two faster forms of the same loops: one appends ready-made moves to a list, one stops at the
        # first legal move (for can_move and end checks).
        self._fn_count += 1
        rule_name = f"R_{self._fn_count}"
        collect_body = ["append = out.append"] + loops + [indent + f"append(NEW(MOVE, ({rule_name}, {arg_code}, me)))"]
        exists_body = loops + [indent + "return True"] + ["return False"]
        explain_body = [line for lines in explain_slots for line in lines] + ["return -1"]
        # candidates: every combination of parameter values, legal or not (to explain refused moves)
        candidates_body, indent = ["if False: yield None"], ""
        for line in loop_lines:
            candidates_body.append(indent + line)
            indent += "    "
        candidates_body += [indent + "try:"] + [indent + "    " + line for line in let_lines or ["pass"]]
        candidates_body += [indent + "except Exception:", indent + ("    continue" if loop_lines else "    return"),
                            indent + f"yield {arg_code}"]
        # effects
        effect_scope = scope.child(**{n: local(n) for n in own})
        effect_body = self.effects(path + ("do",), spec.get("do") or [], effect_scope)
        if effect_body is _FAIL:
            ok = False
        # notation
        template = spec.get("notation")
        if template is None:
            template = name + "".join(f" {{{p}}}" for p in rule.params)
        rule.template = str(template)
        note_code = self.template(path + ("notation",), str(template), inner)
        if note_code is _FAIL:
            ok = False
        weight_code = None
        if "weight" in spec:
            weight_code = self.expr(path + ("weight",), spec["weight"], inner)
            ok = ok and weight_code is not _FAIL
        seen_by = None
        if spec.get("visible_to") is not None:
            seen_by = self.expr(path + ("visible_to",), spec["visible_to"], inner)
            ok = ok and seen_by is not _FAIL
        if not ok:
            return None
        sig = "S, me" + "".join(f", {a}" for a in extra_args)
        args_sig = sig + "".join(f", L_{a}" for a in own)
        rule.generate = self.function(f"gen_{_ident(name)}", sig, body)
        if not rule.part_specs:
            self.namespace.setdefault("NEW", tuple.__new__)
            self.namespace.setdefault("MOVE", Move)
            self.namespace[rule_name] = rule
            rule.collect = self.function(f"collect_{_ident(name)}", "S, me, out" + sig[len("S, me"):], collect_body)
            rule.exists = self.function(f"exists_{_ident(name)}", sig, exists_body)
        rule.candidates = self.function(f"candidates_{_ident(name)}", sig, candidates_body)
        rule.explain = self.function(f"explain_{_ident(name)}", sig + "".join(f", L_{p}" for p in rule.params),
                                     explain_body)
        rule.apply = self.function(f"do_{_ident(name)}", args_sig, effect_body)
        rule.note = self.function(f"note_{_ident(name)}", "me" + "".join(f", {a}" for a in extra_args)
                                  + "".join(f", L_{a}" for a in own)
                                  + (", L_parts" if rule.part_specs else ""), [f"return {note_code}"])
        if weight_code is not None:
            rule.weight = self.function(f"weight_{_ident(name)}", args_sig, [f"return {weight_code}"])
        if seen_by is not None:
            rule.visible_to = self.function(f"visible_{_ident(name)}", args_sig, [f"return {seen_by}"])
        return rule

    def template(self, path, template: str, scope):
        """Compile a notation template such as '{from}-{to}' into a Python string expression."""
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
            try:
                node = parse(inner_text)
                no_state = Scope({n: b for n, b in _flatten(scope).items() if b.kind not in ("var", "zone")})
                saved = {n: b for n, b in self.builtins.items() if b.state}
                for n in saved:
                    del self.builtins[n]
                try:
                    code = self.compiler.expr(node, no_state)
                finally:
                    self.builtins.update(saved)
            except SyntaxProblem as exc:
                self.problems.append(self.doc.problem(path, exc.message, exc.hint, offset=j + 1 + exc.offset))
                return _FAIL
            except CompileProblem as exc:
                if exc.quiet:
                    return _FAIL
                hint = exc.hint
                if exc.message.startswith("unknown name"):
                    usable = sorted(n for n, b in _flatten(scope).items() if b.kind == "local")
                    hint = did_you_mean(exc.message.split("'")[1], usable) or \
                        "notation may use only the move's params and lets" + \
                        (f" ({', '.join(usable)})" if usable else "") + " and 'me'"
                elif "unknown" in exc.message:
                    hint = (hint + "; " if hint else "") + "notation may use only the move's params, lets and 'me'"
                self.problems.append(self.doc.problem(path, exc.message, hint, offset=j + 1 + exc.start,
                                                      width=max(1, exc.end - exc.start)))
                return _FAIL
            parts.append(f"F_text({code})")
            i = k + 1
        self.namespace["F_text"] = text_of
        return " + ".join(parts) if parts else "''"

    # -- effects -----------------------------------------------------------------------------
    def effects(self, path, items, scope) -> list[str] | object:
        """Python source lines for a list of effects (statements, if/else, for loops)."""
        if isinstance(items, (str, dict)):
            items = [items]
        lines, ok = [], True
        for k, item in enumerate(items):
            ipath = path + (k,)
            if isinstance(item, str):
                node = self.parse_at(ipath, item, "stmt")
                if node is _FAIL:
                    ok = False
                    continue
                try:
                    lines.extend(self.compiler.stmt(node, scope))
                except CompileProblem as exc:
                    self._expr_problem(ipath, exc, item)
                    ok = False
                    if isinstance(node, A.Assign) and isinstance(node.target, A.Name) \
                            and scope.lookup(node.target.id) is None:
                        scope.names[node.target.id] = local(node.target.id)  # no knock-on 'unknown name'

            elif isinstance(item, dict) and "if" in item:
                cond = self.expr(ipath + ("if",), item["if"], scope)
                then = self.effects(ipath + ("then",), item.get("then") or [], scope.child())
                other = self.effects(ipath + ("else",), item.get("else") or [], scope.child())
                if _FAIL in (cond, then, other):
                    ok = False
                    continue
                lines.append(f"if {cond}:")
                lines.extend("    " + ln for ln in then or ["pass"])
                if other:
                    lines.append("else:")
                    lines.extend("    " + ln for ln in other)
            elif isinstance(item, dict) and "for" in item:
                node = self.loop_head(ipath + ("for",), item["for"])
                if node is _FAIL or not isinstance(node, A.Comprehension) or len(node.fors) != 1:
                    if node is not _FAIL:
                        self.problem(ipath + ("for",), "write the loop as 'name in collection'")
                    ok = False
                    continue
                clause = node.fors[0]
                iterable = self.code(ipath + ("for",), clause.iterable, scope)
                # a loop variable never overwrites a parameter or local of the same name outside the loop
                targets = {t: self.compiler.loop_local(t, scope) for t in clause.targets}
                body_scope = scope.child(**targets)
                conds = [self.code(ipath + ("for",), c, body_scope) for c in clause.conds]
                body = self.effects(ipath + ("do",), item.get("do") or [], body_scope)
                if _FAIL in [iterable, body, *conds]:
                    ok = False
                    continue
                lines.append(f"for {', '.join(targets[t].code for t in clause.targets)} in {iterable}:")
                for c in conds:
                    lines.append(f"    if not {c}: continue")
                lines.extend("    " + ln for ln in body or ["pass"])
            else:
                self.problem(ipath, "an effect is a statement string, or a mapping with 'if:' or 'for:'",
                             "e.g.  - \"move(from, to)\"   or   - if: \"cond\"\\n    then: [...]")
                ok = False
        return lines if ok else _FAIL

    # -- flow --------------------------------------------------------------------------------
    def _flow(self):
        r = self.rules
        flow = self.data.get("flow") or {}
        steps = flow.get("steps") or {}
        if not steps:
            self.problem(("flow",), "the game has no steps", "declare flow: steps: with at least one step")
            return
        r.steps = {}
        for name in steps:  # names first, so 'next' and goto() can refer to any step
            r.steps[name] = None
        for name, spec in steps.items():
            step = self._step(("flow", "steps", name), name, spec or {})
            if step is not None:
                r.steps[name] = step
        r.start = flow.get("start", next(iter(steps)))
        r.turn_start = flow.get("turn_start", r.start)
        for key in ("start", "turn_start"):
            if getattr(r, key) not in steps:
                self.problem(("flow", key), f"no step named '{getattr(r, key)}'", did_you_mean(getattr(r, key), steps))
        first = flow.get("first_player", 0)
        code = self.expr(("flow", "first_player"), first, self.root)
        r.first_player = None if code is _FAIL else self.lambda_("S, me", code)
        nxt = flow.get("next_player")
        if nxt is not None:
            code = self.expr(("flow", "next_player"), nxt, self.root)
            r.next_player = None if code is _FAIL else self.lambda_("S, me", code)
        r.max_turns = flow.get("max_turns")

    def _next(self, path, value, scope):
        """Compile a step's 'next': a step name, or a list of {if, to} cases ending with {to}."""
        steps = self.rules.steps
        if value is None:
            return lambda S, me: END_TURN

        def check(name, p):
            if name != END_TURN and name not in steps:
                self.problem(p, f"no step named '{name}'", did_you_mean(str(name), list(steps) + [END_TURN]))
                return False
            return True

        if isinstance(value, str):
            return (lambda S, me, v=value: v) if check(value, path) else None
        if not isinstance(value, list):
            self.problem(path, "'next' is a step name or a list of {if: condition, to: step}")
            return None
        body, ok = [], True
        for k, case in enumerate(value):
            case = case or {}
            target = case.get("to")
            ok = check(target, path + (k, "to")) and ok
            if "if" in case:
                code = self.expr(path + (k, "if"), case["if"], scope)
                if code is _FAIL:
                    ok = False
                    continue
                body.append(f"if {code}: return {target!r}")
            else:
                body.append(f"return {target!r}")
        body.append(f"return {END_TURN!r}")
        return self.function("next", "S, me", body) if ok else None

    def _step(self, path, name, spec) -> Step | None:
        r = self.rules
        if "chance" in spec:
            kind = "chance"
        elif "actors" in spec:
            kind = "simultaneous"
        elif "moves" in spec:
            kind = "decision"
        else:
            kind = "auto"
        step = Step(name, kind, path)
        step.next = self._next(path + ("next",), spec.get("next"), self.root)
        if kind in ("decision", "simultaneous"):
            entries = spec.get("moves") or []
            tiered = any(isinstance(e, list) for e in entries)
            for i, entry in enumerate(entries):
                tier = []
                for j, mname in enumerate(entry if isinstance(entry, list) else [entry]):
                    mpath = path + ("moves", i) + ((j,) if isinstance(entry, list) else ())
                    if mname not in r.moves:
                        if mname not in (self.data.get("moves") or {}):
                            declared = self.data.get("moves") or {}
                            self.problem(mpath, f"no move named '{mname}'",
                                         did_you_mean(str(mname), declared) or
                                         (f"moves of this game: {', '.join(map(str, declared))}" if declared else
                                          "declare it under 'moves:'"))
                        continue
                    rule = r.moves[mname]
                    if rule.inputs:
                        self.problem(mpath, f"move '{mname}' takes inputs ({', '.join(rule.inputs)}), so it can only "
                                     "be a part of another move")
                        continue
                    group = spec.get("fallback_by")
                    if group is not None and group not in rule.arg_names:
                        self.problem(mpath, f"move '{mname}' has no parameter '{group}' to fall back by",
                                     "every move of a tiered step needs the 'fallback_by' parameter")
                        continue
                    tier.append(rule)
                    step.moves.append(rule)
                if tiered:
                    step.tiers.append(tier)
            step.fallback_by = spec.get("fallback_by")
            pass_spec = spec.get("pass")
            if pass_spec is not None:
                if isinstance(pass_spec, str):
                    pass_spec = {"notation": pass_spec}
                rule = self.move_rule(path + ("pass",), "pass",
                                      {"notation": pass_spec.get("notation", "pass"), "do": pass_spec.get("do")},
                                      self.root)
                if rule is not None:
                    rule.is_pass = True
                    if "next" in pass_spec:
                        rule.next = self._next(path + ("pass", "next"), pass_spec["next"], self.root)
                    step.pass_rule = rule
        if spec.get("after"):
            body = self.effects(path + ("after",), spec["after"], self.root.child(move=local("move")))
            if body is not _FAIL:
                step.after = self.function(f"after_{_ident(name)}", "S, me, L_move", body)
        if kind == "decision":
            code = self.expr(path + ("actor",), spec.get("actor", "player"), self.root)
            step.actor = None if code is _FAIL else self.lambda_("S, me=None", code)
            step.turn_player_acts = spec.get("actor", "player") == "player"
        elif kind == "simultaneous":
            code = self.expr(path + ("actors",), spec.get("actors"), self.root)
            step.actors = None if code is _FAIL else self.lambda_("S, me=None", code)
            scope = self.root.child(choices=local("choices"))
            body = self.effects(path + ("resolve",), spec.get("resolve") or [], scope)
            if body is not _FAIL:
                step.effects = self.function(f"resolve_{_ident(name)}", "S, me, L_choices", body)
        elif kind == "auto":
            body = self.effects(path + ("do",), spec.get("do") or [], self.root.child())
            if body is not _FAIL:
                step.effects = self.function(f"auto_{_ident(name)}", "S, me", body)
        else:
            self._chance(path + ("chance",), step, spec["chance"] or {})
        return step

    def _chance(self, path, step, spec):
        if "arrangement" in spec:
            items = self.expr(path + ("arrangement",), spec["arrangement"], self.root)
            scope = self.root.child(outcome=local("outcome"))
            require = []
            for k, item in enumerate(spec.get("require") or []):
                text, why = (item.get("test"), item.get("why")) if isinstance(item, dict) else (item, None)
                cpath = path + ("require", k) + (("test",) if isinstance(item, dict) else ())
                code = self.expr(cpath, text, scope)
                if code is not _FAIL:
                    require.append((self.lambda_("S, me, L_outcome", code), why or str(text)))
            fixed = None
            if spec.get("fixed") is not None:
                code = self.expr(path + ("fixed",), spec["fixed"], self.root)
                fixed = None if code is _FAIL else self.lambda_("S, me", code)
            body = self.effects(path + ("do",), spec.get("do") or [], scope.child())
            if items is _FAIL or body is _FAIL:
                return
            step.arrangement = Arrangement(self.lambda_("S, me", items), require, fixed,
                                           self.function(f"arrange_{_ident(step.name)}", "S, me, L_outcome", body),
                                           fixed_text=str(spec.get("fixed", "")), path=path, name=step.name)
        elif "outcomes" in spec:
            outcome = dict(spec["outcomes"] or {})
            outcome.setdefault("weight", 1)
            rule = self.move_rule(path + ("outcomes",), step.name, outcome, self.root)
            if rule is not None:
                step.moves.append(rule)
        else:
            self.problem(path, "a chance step needs 'outcomes:' (enumerated, with weights) or 'arrangement:'")

    # -- end and scoring ---------------------------------------------------------------------
    def _end_and_scoring(self):
        r = self.rules
        for k, spec in enumerate(self.data.get("end") or []):
            path = ("end", k)
            spec = spec or {}
            when = self.expr(path + ("when",), spec.get("when"), self.root)
            winners = spec.get("winners", "highest_score")
            winners_fn = None
            if winners != "highest_score":
                code = self.expr(path + ("winners",), winners, self.root)
                if code is _FAIL:
                    continue
                winners_fn = self.lambda_("S, me=None", code)
            if when is _FAIL:
                continue
            r.end_rules.append(EndRule(path, self.lambda_("S, me=None", when), winners_fn,
                                       spec.get("ties", "draw")))
        scoring = self.data.get("scoring") or {}
        for key in ("score", "tiebreak", "evaluation", "breakdown"):
            if scoring.get(key) is not None:
                code = self.expr(("scoring", key), scoring[key], self.root)
                if code is not _FAIL:
                    setattr(r, key, self.lambda_("S, me", code))


def _flatten(scope: Scope) -> dict:
    chain = []
    while scope is not None:
        chain.append(scope.names)
        scope = scope.parent
    merged = {}
    for names in reversed(chain):
        merged.update(names)
    return merged


def _ident(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in str(name))


def _describe(exc: Exception) -> str:
    if isinstance(exc, RuleValueError):
        return str(exc)
    if isinstance(exc, (KeyError, IndexError)):
        return f"no entry {exc}" if isinstance(exc, KeyError) else "index out of range"
    if isinstance(exc, ZeroDivisionError):
        return "division by zero"
    if isinstance(exc, TypeError):
        return f"wrong kind of value ({exc})"
    return str(exc) or type(exc).__name__


def coerce_option(name: str, spec: dict, raw):
    """Convert an option value given as text (command line) or YAML to the option's declared type."""
    kind = spec.get("type", "string")
    choices = spec.get("choices")
    try:
        if kind == "int":
            value = int(raw)
            if "min" in spec and value < spec["min"] or "max" in spec and value > spec["max"]:
                raise ValueError(f"option {name} must be between {spec.get('min')} and {spec.get('max')}, got {value}")
        elif kind == "bool":
            if isinstance(raw, bool):
                value = raw
            elif str(raw).lower() in ("true", "yes", "1", "on"):
                value = True
            elif str(raw).lower() in ("false", "no", "0", "off"):
                value = False
            else:
                raise ValueError(f"option {name} is true or false, got {raw!r}")
        else:
            value = str(raw)
    except (TypeError, ValueError) as exc:
        if str(exc).startswith("option"):
            raise
        raise ValueError(f"option {name} must be {'a whole number' if kind == 'int' else kind}, got {raw!r}") from None
    if choices is not None and value not in choices:
        raise ValueError(f"option {name} must be one of {', '.join(map(str, choices))}, got {value!r}")
    return value
