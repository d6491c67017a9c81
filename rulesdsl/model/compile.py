"""Compile a validated rule document into the game model: names resolved, geometry precomputed, code generated."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

from .. import budget
from ..errors import Location, Problem, RulesError, close_names, suggestion
from ..ir import nodes as N
from ..ir.build import build as build_ir
from ..ir.infer import Typer
from ..ir.lower import Lowerer
from ..ir.naming import Naming, spec_at
from ..ir.python import INLINE_NODES, Compiler
from ..lang import ast as A
from ..lang import checked
from ..lang.builtins import Builtin, pure_builtins
from ..lang import types as T
from ..lang.compiler import (ABSENT, EXISTING, RULE_CODE_FILE, SCALAR, Binding, CompileProblem, Scope, is_name, local,
                             typed_local)
from ..lang.emit import Assign, Comment, Function, Return, expressions, render
from ..lang.parser import SyntaxProblem, parse
from ..lang.verify import namespace_builtins, verify
from ..limits import (LOAD_SECONDS, MAX_KEYS, MAX_OPTION_ITEMS, MAX_PLAYERS, MAX_VALUE_DEPTH, VALUE_SECONDS,
                      LimitExceeded)
from ..source import Document
from .builtins import game_builtins
from .builtins.flow import COUNTING
from .compile_board import BoardCompiler
from .compile_flow import FlowCompiler
from .compile_moves import MoveCompiler
from .compile_render import RenderCompiler
from .compile_types import TypeChecker
from .compile_support import _BROKEN, _FAIL, _describe, _ident
from .game import Rules
from .holders import VISIBILITY_WORDS, Holder
from .names import check_names
from .leaks import revealed_choices, secret_leaks
from .owners import remember
from .pieces import PieceKind
from .reads import NOTHING, ReadAnalysis, key_code
from .results import UTILITIES, derived_utility, reads_seat
from .rules import EndRule
from .scans import located_scan
from .values import LAST_MOVE_CODE, MOVER_CODE, Cell, last_move_record, mover_of, text_of

_WINNERS_WORDS = ("highest_score", "draw")  # what `winners:` may be besides an expression
_LANGUAGE_LATER = ("cells",)  # names the language gives once the board is built, after names are declared
_LIMIT_HINT = "rule files are bounded in what they may build and how long they may run: see 'Names and limits' in " \
              "the language reference"


class ModelCompiler(BoardCompiler, MoveCompiler, FlowCompiler, RenderCompiler, TypeChecker):
    """Builds a Rules object from a Document, collecting every problem instead of stopping at the first."""

    def __init__(self, doc: Document, option_values: dict | None = None, variant: str | None = None,
                 inline: bool = True):
        self.doc = doc
        self.inline = inline  # compile calls of short functions into their callers (off: each is a call)
        self.data = doc.data
        self.problems: list[Problem] = []
        self.given_options = dict(option_values or {})
        self.rules = Rules()
        self.rules.source = doc.file
        self.rules.where = lambda path: doc.locate(path)[0]
        self.rules.variant = variant
        self.namespace: dict = {"__builtins__": namespace_builtins()}
        self._fn_count = 0
        self._parsed: dict = {}  # (text, start) -> its tree, parsed ahead to order the lets: parse_at takes it once
        self.naming = Naming(self.data)  # what each name means where it is written, for the IR
        self._expanded: dict = {}  # name -> (params' bindings, body's IR) of a function compiled into its callers
        self._reads: ReadAnalysis | None = None
        self._stopped_at = None  # the part being worked out when the load's budget ran out

    # -- problems ---------------------------------------------------------------------------
    def problem(self, path, message, hint=None, key=False, code="invalid", fields=()):
        # the load's budget (or one around it) ran out where a failure was caught: no value after it gets a fresh
        # budget of its own (see compile); a value that overran its own budget is that value's problem
        if budget.exhausted(ignoring=(ModelCompiler.evaluate_now,)):
            self._stopped_at = path
            raise budget.spent_error()
        self.problems.append(self.doc.problem(path, message, hint, key=key, code=code, fields=fields))

    def unknown(self, path, message: str, name, known, otherwise: str | None = None) -> None:
        """A name that the file does not declare where it is used (a step, move, cell, direction...), with the
        close names among those `known` as the hint (else `otherwise`)."""
        close = close_names(str(name), known)
        self.problem(path, message, suggestion(close) or otherwise, code="unknown_name",
                     fields=(("name", name), ("candidates", tuple(close))))

    def _expr_problem(self, path, exc, text):
        if getattr(exc, "quiet", False):
            return
        self.problems.append(self.doc.problem(path, exc.message, exc.hint, offset=exc.start if
                                              isinstance(exc, CompileProblem) else exc.offset,
                                              width=max(1, (exc.end - exc.start) if isinstance(exc, CompileProblem)
                                                        else 1), code=exc.code, fields=exc.fields))

    # -- expressions ------------------------------------------------------------------------
    def parse_at(self, path, text, start="expr"):
        if isinstance(text, bool) or text is None or isinstance(text, (int, float)):
            return A.Const(text)
        if not isinstance(text, str):
            self.problem(path, f"expected an expression (a string), got {type(text).__name__}", code="schema_type",
                         fields={"path": path, "expected": ("string",)})
            return _FAIL
        ahead = self._parsed.pop((text, start), None)  # (read, not changed, since it was parsed)
        if ahead is not None:
            return ahead
        try:
            return parse(text, start)
        except SyntaxProblem as exc:
            self.problems.append(self.doc.problem(path, exc.message, exc.hint, offset=exc.offset, code=exc.code,
                                                  fields=exc.fields))
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
            self.problems.append(self.doc.problem(path, exc.message, exc.hint, offset=offset, code=exc.code,
                                                  fields=exc.fields))
            return _FAIL
        for sub in A.walk(node):  # positions in the user's text, not in the wrapper
            sub.start, sub.end = max(0, sub.start - len(prefix)), max(0, sub.end - len(prefix))
            spans = getattr(sub, "keyword_spans", None)
            if spans:
                sub.keyword_spans = {k: (a - len(prefix), b - len(prefix)) for k, (a, b) in spans.items()}
        return node

    def lowerer(self, path, scope, offset: int = 0) -> Lowerer:
        """The Lowerer of what is written at `path` (from character `offset` of its string), in `scope`."""
        names, temps = self.naming.around(path)
        text = spec_at(self.data, path)
        return Lowerer(path, names, scope, offset, text[offset:] if isinstance(text, str) else "", temps,
                       lambda name: self.naming.given(name, path))

    def code(self, path, node, scope, then=None, transient: bool = False, filed=None) -> str | object:
        """The Python source of an expression's AST (or _FAIL, its problem recorded), lowered to the IR where it is
        written, then printed; `transient`: of a value used and dropped (see the Python backend's transient). Its
        type is worked out in the type pass (see compile_types.py), which calls then(type) if given; the IR files
        it at `path` (else at `filed`)."""
        found = self.lowered(path, node, scope, then, transient, filed)
        return found if found is _FAIL else found[0]

    def lowered(self, path, node, scope, then=None, transient: bool = False, filed=None) -> tuple | object:
        """(Python source, IR) of an expression's AST, or _FAIL: see code()."""
        if node is _FAIL:
            return _FAIL
        try:
            lowered = self.lowerer(path, scope).expr(node)
        except CompileProblem as exc:  # nested too deeply to lower
            self._expr_problem(path, exc, None)
            return _FAIL
        return self.printed(path, lowered, then, transient, filed)

    def printed(self, path, node: N.Node, then=None, transient: bool = False, filed=None) -> tuple | object:
        """(Python source, IR) of an expression lowered already, or _FAIL: see code()."""
        try:
            code = (self.compiler.transient if transient else self.compiler.expr)(node)
        except CompileProblem as exc:
            self._expr_problem(path, exc, None)
            return _FAIL
        self.record_expr(filed or path, node, then)
        return code, node

    def expr(self, path, text, scope, then=None):
        """Compile the expression at `path` to Python source (or _FAIL); see code()."""
        return self.code(path, self.parse_at(path, text), scope, then)

    def fresh(self, prefix: str) -> str:
        """A name for the namespace that nothing generated before has: prefix_N. Two such names differ in their
        last part, N; and no prefix begins as the names a rule file's own names become (U_name, P_name), so
        that none of these names can be one of them (a function `f_3` beside a function `f`)."""
        self._fn_count += 1
        return f"{prefix}_{self._fn_count}"

    def function(self, name: str, args: str, body: list, label: str | None = None):
        """Define a generated Python function (`body`: emit statements) in the game's namespace and return it,
        with its source and form as fn.source and fn.tree; filed under `label` in Rules.generated if given."""
        params = tuple(arg.strip() for arg in args.split(","))  # names the compiler made: no comma inside
        if params[0] == "S" and any("_cells[" in code for code in expressions(body)):
            body = [Comment("the list itself is never replaced while rules run"), Assign("_cells", "S.cells")] + body
        tree = Function(self.fresh(name), params, body)
        places: dict = {}
        source = render(tree, places)
        verify(source)
        exec(compile(source, f"{RULE_CODE_FILE}{self.doc.file}:{name}>", "exec"), self.namespace)  # noqa: S102
        fn = self.namespace[tree.name]
        fn.source, fn.tree = source, tree
        if places:  # a failure on one of these lines is located at the statement the file writes there
            for code in _code_objects(fn.__code__):
                self.rules.statements[code] = places
        if label is not None:
            self.rules.generated.setdefault(label, []).append(fn)
        return fn

    def lambda_(self, args: str, code: str, label: str | None = None):
        return self.function("expr", args, [Return(code)], label)

    def evaluate_now(self, path, text, scope, what="value"):
        """Evaluate a load-time expression (data that depends on options, board geometry...)."""
        try:  # (its budget, guarded below, may run out while it is compiled as well as while it runs)
            code = self.expr(path, text, scope)
            if code is _FAIL:
                return _FAIL
            try:
                self.type_now()  # a value that can never be worked out is a type error, said as one
            except CompileProblem as exc:
                self._expr_problem(path, exc, None)
                return _FAIL
        except (LimitExceeded, budget.TimeBudgetExceeded, MemoryError) as exc:
            return self._cannot(path, what, exc)
        try:
            value = self.lambda_("S, me", code)(None, None)
        except Exception as exc:  # noqa: BLE001 - a rule file mistake, reported at its location
            return self._cannot(path, what, exc)
        if what.startswith("list of") and not isinstance(value, (list, tuple, range)):
            self.problem(path, f"this should be a {what}, but it is {text_of(value)}",
                         "write a list, e.g. [a, b], or an expression that makes one", code="bad_value",
                         fields={"what": what})
            return _FAIL
        return value

    def _cannot(self, path, what: str, exc: Exception):
        """_FAIL, once a load-time expression that failed (`exc`) is reported at `path`."""
        limited = isinstance(exc, (LimitExceeded, budget.TimeBudgetExceeded, MemoryError))
        self.problem(path, f"cannot compute this {what}: {_describe(exc)}", _LIMIT_HINT if limited else None,
                     code="limit_exceeded" if limited else "evaluation_failed", fields={"what": what})
        return _FAIL

    # -- top level --------------------------------------------------------------------------
    def compile(self) -> Rules:
        """The compiled Rules; RulesError listing every problem found."""
        budget.ensure_watchdog()
        try:
            rules = self._compile()
        except budget.TimeBudgetExceeded as exc:
            where = self.doc.locate(self._stopped_at)[0] if self._stopped_at else Location(self.doc.file)
            raise RulesError(self.problems + [Problem(str(exc), where, "something in the rule file "
                                              "takes too long to work out: a load-time expression over a large "
                                              "collection, or a very large board", code="limit_exceeded",
                                              fields={"limit": "LOAD_SECONDS"})]) from None
        remember(rules)  # to say which of its rules runs, should a job playing it be stopped
        return rules

    def _compile(self) -> Rules:
        withdrawn = check_names(self.doc, lambda path, message, hint, key, code, name:
                                self.problem(path, message, hint, key=key, code=code, fields=(("name", name),)))
        d = self.data
        r = self.rules
        r.name = str(d.get("game", "untitled"))
        r.description = str(d.get("description", "")).strip()
        r.variants = {k: str((v or {}).get("description", "")) for k, v in (d.get("variants") or {}).items()}
        self.builtins = pure_builtins()
        attributes = {"x", "y", "name", "index", "kind", "owner", "col", "row", "by"}  # by: last_move.by
        attributes.update(*(set((v or {}).get("attributes", {}) or {}) | set((v or {}).get("derived", {}) or {})
                            for v in (d.get("pieces") or {}).values()))
        attributes.update(((d.get("board") or {}).get("attributes") or {}).keys())
        for move in (d.get("moves") or {}).values():  # simultaneous choices read as choices[p].<param>
            attributes.update((move or {}).get("params") or {}, (move or {}).get("let") or {})
            inputs = move.get("inputs") if isinstance(move, dict) else None
            if isinstance(inputs, list):  # a part's inputs, read as parts[i].<input>
                attributes.update(str(i) for i in inputs)
        self.compiler = Compiler(self.builtins, self.namespace, attributes)
        self.compiler.withdrawn = withdrawn
        self.compiler.code_file = f"{RULE_CODE_FILE}{self.doc.file}:loop>"
        self.compiler.scans.append(located_scan)
        self.start_types(Typer(self.builtins))
        last_move = self.record_of(lambda: [m for m in r.moves.values() if m is not None])
        self._options()
        self.root = Scope({
            "option": Binding("option", kind="option", const=r.option_values, is_const=True,
                              type=T.record(**{k: T.type_of_value(v) for k, v in r.option_values.items()
                                               if isinstance(k, str) and k.isidentifier()})),
            "me": Binding("me", depth=SCALAR, type=T.SEAT),
            # rule code may set it to anything (then refused)
            "player": Binding("S.player", assignable=True, type=T.SEAT),
            "turn": Binding("S.turn", depth=SCALAR, type=T.int_(0)),
            # a file's own name last_move (a variable...) takes its place; a record built over the move's values
            "last_move": Binding(LAST_MOVE_CODE, depth=(ABSENT, 1),
                                 typed_by=lambda: T.optional(last_move())),
            # the seat that made the last move, none before the first
            "mover": Binding(MOVER_CODE, depth=SCALAR, type=T.optional(T.SEAT), hideable=True),
            # the built-in, read as a name like `players`
            "active_players": Binding("F_active_players(S)", type=T.list_(T.SEAT)),
        })
        self.namespace["G_last_move"] = last_move_record
        self.namespace["G_mover"] = mover_of
        self._players()
        self.compiler.add_builtins(game_builtins(r))
        self._data()
        self._board()
        self._lets_after("board")
        self._pieces()
        self._lets_after("pieces")
        self._zones_and_vars()
        self._board_init()
        steps = (self.data.get("flow") or {}).get("steps")
        if isinstance(steps, dict):  # step names are known before anything that names one is compiled
            self.declare_steps(steps)
        self._attribute_depths()
        self._functions()
        self._lets_after("functions")
        self._moves()
        self._flow()
        self._end_and_scoring()
        self._actions_and_features()
        self._render()
        self.check_types()
        if self.problems:
            raise RulesError(self.problems)
        r.ir, r.ir_data = build_ir(self), self.data
        r.warnings += secret_leaks(r.ir, self.doc) + revealed_choices(r.ir, self.doc, self.data.get("moves") or {})
        r.counts_positions = any(isinstance(node, N.Call) and node.target == "builtin" and node.func in COUNTING
                                 for node in r.ir.nodes())
        r.namespace = self.namespace
        return r

    def _render(self):
        """Drawing hints: rows of cells to draw (evaluated once), variables not to show, where cells are drawn,
        the colours of values and the shapes of pieces."""
        spec = self.data.get("render") or {}
        rows = []
        entries = spec.get("rows") or []
        if isinstance(entries, str):  # one expression giving (label, cells) pairs
            pairs = self.evaluate_now(("render", "rows"), entries, self.root, "list of (label, cells) rows")
            if pairs is not _FAIL and not all(isinstance(p, (list, tuple)) and len(p) == 2 for p in pairs):
                self.problem(("render", "rows"), "each row should be a pair (label, cells)",
                             "e.g. [('top', [a1, b1]), ('bottom', [a2, b2])]")
                pairs = _FAIL
            entries = [] if pairs is _FAIL else [{"label": str(label), "cells": cells} for label, cells in pairs]
        for i, row in enumerate(entries):
            path = ("render", "rows", i) if not isinstance(spec.get("rows"), str) else ("render", "rows")
            cells = row.get("cells")
            if isinstance(cells, str):
                cells = self.evaluate_now(path + ("cells",), cells, self.root, "list of cells")
            if cells is _FAIL:
                continue
            board = self.rules.board
            found = [c if isinstance(c, Cell) else board.by_name.get(str(c)) for c in cells] \
                if isinstance(cells, (list, tuple)) else [None]
            if None in found:
                self.problem(path + ("cells",), "every entry of a render row must be a cell")
                continue
            rows.append((str(row.get("label", "")), found))
        self.rules.render_rows = rows
        known = {h.name for h in self.rules.zones + self.rules.vars}
        for i, name in enumerate(spec.get("hide") or []):
            if name not in known:
                self.unknown(("render", "hide", i), f"no variable or zone named '{name}'", name, known)
        self.rules.render_hide = set(spec.get("hide") or [])
        self._render_at(spec)
        self._render_colours(spec)
        self._render_shapes(spec)

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
                    values[name] = coerce_option(name, spec, values[name])
                except ValueError as exc:
                    self.problem(("options", name, "default"), f"the default of {exc}", spec.get("help"),
                                 code="bad_option_value", fields={"option": name, "value": values[name]})
        here = Location(self.doc.file)  # options given on the command line have no line to point at
        for name, raw in self.given_options.items():
            if name not in declared:
                close = close_names(name, declared)
                hint = suggestion(close) or f"options of this game: {', '.join(declared) or 'none'}"
                self.problems.append(Problem(f"unknown option '{name}'", here, hint, code="unknown_option",
                                             fields={"name": name, "candidates": close}))
                continue
            spec = declared[name] or {}
            try:
                values[name] = coerce_option(name, spec, raw)
            except ValueError as exc:
                self.problems.append(Problem(str(exc), here, spec.get("help"), code="bad_option_value",
                                             fields={"option": name, "value": raw}))
        r.option_values = values

    def _players(self):
        r, d = self.rules, self.data
        spec = d.get("players") or {}
        count = spec.get("count", 2)
        if isinstance(count, str):
            count = self.evaluate_now(("players", "count"), count, self.root, "player count")
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_PLAYERS:
            if count is not _FAIL:
                self.problem(("players", "count"), f"the number of players must be a whole number from 1 to "
                             f"{MAX_PLAYERS}, got {text_of(count)[:40]}")
            count = 2
        r.num_players = count
        names = spec.get("names")
        if isinstance(names, str):
            names = self.evaluate_now(("players", "names"), names, self.root, "list of player names")
        if names is not None and names is not _FAIL and not isinstance(names, (list, tuple)):
            self.problem(("players", "names"), "'names' should be a list of the players' names",
                         "e.g. names: [white, black]")
            names = None
        if names is None or names is _FAIL:
            names = [f"p{i}" for i in range(count)]
        names = [text_of(n) for n in names[:count]]
        if len(names) < count:
            self.problem(("players", "names"), f"{len(names)} names for {count} players",
                         "give one name per player")
            names += [f"p{i}" for i in range(len(names), count)]
        r.player_names = names[:count]
        self.root.names["players"] = Binding("", const=list(range(count)), is_const=True)
        self.root.names["num_players"] = Binding("", const=count, is_const=True)
        teams = spec.get("teams")  # read with the seats known: e.g. "[p % 2 for p in players]"
        if isinstance(teams, str):
            teams = self.evaluate_now(("players", "teams"), teams, self.root, "list of teams")
        if teams is not None and teams is not _FAIL and len(teams) != count:
            self.problem(("players", "teams"), f"{len(teams)} teams for {count} players",
                         "give each seat's team, e.g. teams: [0, 1, 0, 1] for partners across the table")
            teams = None
        r.teams = tuple(range(count) if teams is None or teams is _FAIL else teams)

    def declare(self, path, name) -> None:
        """Record that `path` declares `name`; a second declaration of one name is a problem."""
        first = self._declared.get(name)
        if first is not None:
            where, _ = self.doc.locate(first, key=True)
            self.problem(path, f"'{name}' is already declared (at {first[0]}: line {where.line})",
                         "data, lets, functions, regions, zones and variables share one set of names", key=True,
                         code="duplicate_name", fields={"name": name, "first": first})
        elif name in self.root.names or name in _LANGUAGE_LATER:
            self.problem(path, f"'{name}' is a name the language defines", "choose another name", key=True,
                         code="duplicate_name", fields={"name": name})
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
            if checked.depth(value) > MAX_VALUE_DEPTH:  # as deep as any value rule code may build, no deeper
                self.problem(("data", name), f"'{name}' nests more than {MAX_VALUE_DEPTH} deep (lists and tables "
                             "inside each other), the most a value of the language may", "flatten it: a table "
                             "keyed by pairs, say, instead of tables inside tables", code="limit_exceeded",
                             fields={"limit": "MAX_VALUE_DEPTH"})
            self.root.names[name] = Binding("", const=value, is_const=True)
        # A let is computed as soon as what it uses is there: one that uses the board (cells, regions, cell(),
        # links...) once the board is built, one that builds pieces once their kinds are known, one that calls the
        # file's functions once they are compiled; every other let first, since the board itself may depend on
        # them (its size, say). A let that uses another waits for it.
        stages = {"board": {"cells"} | set(((self.data.get("board") or {}).get("regions") or {})) | {
            b.name for b in self.builtins.values() if b.category == "board"},
                  "pieces": {b.name for b in self.builtins.values() if b.category == "pieces"},
                  "functions": set(self.data.get("functions") or {})}
        self._later_lets = {stage: [] for stage in stages}
        waiting: dict = {}  # let name -> the stage it waits for
        for name, text in (self.data.get("let") or {}).items():
            try:  # a let that does not parse is reported once, when it is computed below
                node = parse(text) if isinstance(text, str) else None
            except SyntaxProblem:
                node = None
            if node is not None:  # a long let is not parsed twice (its compile takes this tree)
                self._parsed[(text, "expr")] = node
            words = set() if node is None else {
                n.id if isinstance(n, A.Name) else n.func for n in A.walk(node) if isinstance(n, (A.Name, A.Call))}
            stage = None
            for later, used in stages.items():  # (in the order the stages come: the last one it needs)
                if words & (used | {n for n, s in waiting.items() if s == later}):
                    stage = later
            if stage is not None:
                waiting[name] = stage
                self._later_lets[stage].append((name, text))
                self.root.names[name] = Binding("", kind="later", const=stage)
                continue
            self._let(name, text)

    def _let(self, name, text, functions: bool = False):
        if functions:  # the file's functions that read no position, called with none (a let has no position)
            saved = {n: b for n, b in self.builtins.items() if b.state}
            stateless = self._stateless_functions(saved)
            if not self._calls_only(name, text, saved, stateless):
                self.root.names[name] = _BROKEN
                return
            for n in saved:
                del self.builtins[n]
            self.builtins.update(stateless)
            try:
                value = self.evaluate_now(("let", name), text, self.root)
            finally:
                for n in stateless:
                    del self.builtins[n]
                self.builtins.update(saved)
        else:
            value = self.evaluate_now(("let", name), text, self.root)
        self.root.names[name] = _BROKEN if value is _FAIL else Binding("", const=value, is_const=True)

    def _calls_only(self, name, text, functions: dict, stateless: dict) -> bool:
        """Whether the let `name` calls, of the file's `functions`, only compiled ones that read no position (those
        `stateless`); the problem at each call of one that reads the position (one that failed to compile is
        reported where it is defined)."""
        ok = True
        for call in A.walk(self._parsed.get((text, "expr")) or parse(text)):  # (read: its compile takes it next)
            if not isinstance(call, A.Call) or functions.get(call.func) is None \
                    or functions[call.func].category != "functions":
                continue
            if f"U_{_ident(call.func)}" not in self.namespace:
                ok = False
            elif call.func not in stateless:
                self.problems.append(self.doc.problem(
                    ("let", name), f"'{call.func}' reads the position, which a let cannot: a let is worked out once, "
                    "at load, before any position", "call here only functions of their params; read the position "
                    "in a function, or in the rule that needs it", code="misused_name", fields={"name": call.func},
                    offset=call.start, width=max(1, call.end - call.start)))
                ok = False
        return ok

    def _lets_after(self, stage: str):
        """Compute the lets that waited for `stage` (the board built, the pieces' kinds known, the functions
        compiled)."""
        for name, text in self._later_lets[stage]:
            del self.root.names[name]
            self._let(name, text, functions=stage == "functions")

    # -- pieces, zones, vars -----------------------------------------------------------------
    def _pieces(self):
        kinds = self.rules.kinds
        fields = self.typer.piece_fields  # each attribute's type, over every kind that has it
        for kind, spec in (self.data.get("pieces") or {}).items():
            spec = spec or {}
            attributes = {}
            for attr, domain in (spec.get("attributes") or {}).items():
                path = ("pieces", kind, "attributes", attr)
                domain = {"values": domain} if isinstance(domain, (list, str)) else dict(domain or {})
                if isinstance(domain.get("values"), str):  # a range or an expression: "1..13", "option.colours"
                    path += () if isinstance(spec["attributes"][attr], str) else ("values",)
                    values = self.evaluate_now(path, domain["values"], self.root, "list of values")
                    domain["values"] = None if values is _FAIL else list(values)
                attributes[attr] = domain
                values = domain.get("values")
                typed = T.ANY if not values else T.type_of_value(values[0])
                for value in values or ():
                    typed = T.join(typed, T.type_of_value(value))
                if "default" in domain:
                    typed = T.join(typed, T.type_of_value(domain["default"]))
                fields[attr] = typed if attr not in fields else T.join(fields[attr], typed)
            kinds[kind] = PieceKind(kind, attributes, {})
        for kind, spec in (self.data.get("pieces") or {}).items():
            derived = {}
            attrs = list(kinds[kind].attributes)
            bindings = {a: local(a) for a in attrs}
            for a, b in bindings.items():
                b.type = fields.get(a, T.ANY)
            scope = self.root.child(**bindings)
            for name, text in ((spec or {}).get("derived") or {}).items():
                code = self.expr(("pieces", kind, "derived", name), text, scope, then=self._derived_type(name))
                if code is _FAIL:
                    continue
                fn = self.lambda_("S, me, " + ", ".join(f"L_{a}" for a in attrs), code)
                derived[name] = (lambda f: lambda values: f(None, None, *values.values()))(fn)
            kinds[kind].derived = derived

    def _derived_type(self, name: str):
        """then() of a derived attribute (see code()): pieces' `name` has the type of its values."""
        def then(found):
            known = self.typer.piece_fields.get(name)
            self.typer.piece_fields[name] = found if known is None or known == T.ANY else T.join(known, found)
        return then

    def _attribute_depths(self):
        """How deep each attribute's values nest, where the rule file says (see Compiler.depth_of): those a piece
        attribute declares, those the board's attributes were given at load; the cells' own and a move's kind
        and seat are scalars. A name that is also a move's param or let (a field of last_move) is anything."""
        found = dict.fromkeys(("x", "y", "name", "index", "col", "row", "kind", "by"), SCALAR)

        def add(name, depth):
            old = found.get(name, depth)
            found[name] = (max(old[0], depth[0]), max(old[1], depth[1]))

        for kind in self.rules.kinds.values():
            for attribute, spec in kind.attributes.items():
                values = spec.get("values")
                add(attribute, (max(map(checked.depth, values), default=0), ABSENT) if values is not None else
                    EXISTING)
            for attribute in kind.derived:
                add(attribute, EXISTING)
        self.compiler.piece_attribute_depths = dict(found)  # at(c).name reads a piece's attribute only
        for attribute in (self.data.get("board") or {}).get("attributes") or {}:
            add(attribute, (max((checked.depth(getattr(c, attribute, None)) for c in self.rules.board.cells),
                                default=0), ABSENT))
        for move in (self.data.get("moves") or {}).values():
            for name in [*((move or {}).get("params") or {}), *((move or {}).get("let") or {})]:
                add(name, EXISTING)
        self.compiler.attribute_depths = found

    def _zones_and_vars(self):
        r = self.rules
        inits = []  # (group, holders, index, init): compiled once every zone and variable has its name
        for i, (name, spec) in enumerate((self.data.get("zones") or {}).items()):
            spec = spec or {}
            keys = self._holder_keys(("zones", name), spec)
            capacity = self._capacity(("zones", name), spec)
            slots = spec.get("observe") == "slots"
            if slots and capacity is None:  # (the schema checks the value; the slots need a known count)
                self.problem(("zones", name, "observe"), "observe: slots needs the zone's capacity: (how many "
                             "slots its places have)", "add capacity: N to the zone, or leave out observe:",
                             code="bad_value", fields={"what": "observe"})
            r.zones.append(Holder(name, True, spec.get("per"), keys, spec.get("visible", "all"), capacity=capacity,
                                  slots=slots))
            inits.append(("zones", r.zones, i, spec.get("init")))
            self.root.names[name] = Binding(f"S.zones[{i}]", kind="zone", part=1 + i, type=_holding(
                r.zones[i], len(r.player_names))(T.list_(T.PIECE_T, capacity)))
        for i, (name, spec) in enumerate((self.data.get("vars") or {}).items()):
            spec = spec if isinstance(spec, dict) else {"init": spec}
            keys = self._holder_keys(("vars", name), spec)
            capacity = self._capacity(("vars", name), spec)
            r.vars.append(Holder(name, False, spec.get("per"), keys, spec.get("visible", "all"), capacity=capacity))
            inits.append(("vars", r.vars, i, spec.get("init")))
            binding = self.root.names[name] = Binding(f"S.vars[{i}]", assignable=r.vars[i].whole, kind="var",
                                                      part=1 + len(r.zones) + i, keyed=keys is not None)
            if spec.get("per") in (None, "player"):  # (else its shape is a problem reported already: not typed)
                self.variable(binding, _holding(r.vars[i], len(r.player_names)), capacity)
        for group, holders, i, init in inits:
            if init is None:
                continue
            keys = holders[i].keys
            scope = self.root.child(owner=typed_local("owner", T.optional(T.SEAT)),
                                    key=typed_local("key", T.item_type(T.type_of_value(list(keys or ())))))
            given = None if group == "zones" else (lambda b: lambda t: self.typer.on_assign(b, t))(
                self.root.names[holders[i].name])
            code = self.expr((group, holders[i].name, "init"), init, scope, given)
            fn = _FAIL if code is _FAIL else self.lambda_("S, me, L_owner=None, L_key=None", code)
            holders[i] = replace(holders[i], init_fn=fn)
        for group, holders in (("zones", r.zones), ("vars", r.vars)):
            for i, holder in enumerate(holders):
                if holder.visible not in VISIBILITY_WORDS:
                    holders[i] = replace(holder, sight=self._sight((group, holder.name, "visible"), holder))
        r.bounded = [(i, h) for i, h in enumerate(r.zones + r.vars) if h.capacity is not None]
        # (zone?, index among the zones or the variables, capacity, one place?): what a move's quick look reads
        r.capacities = [(h.zone, i if h.zone else i - len(r.zones), h.capacity, h.per is None and h.keys is None)
                        for i, h in r.bounded]
        r.capacity_parts = [1 + i for i, _ in r.bounded]

    def _sight(self, path, holder):
        """A `visible:` written as an expression (see Holder.sight), or None (its problem recorded): true or false,
        of `viewer` (the seat looking), `owner` (the place's seat: per player, or keyed by seats) and `key` (a keyed
        place's key), each given only where the place has it, and the state."""
        text = holder.visible
        if not isinstance(text, str):  # (the schema reports it)
            return None
        names = {"viewer": typed_local("viewer", T.SEAT)}
        keyed, keys = holder.keys is not None, list(holder.keys or ())
        if holder.per == "player" or keyed:
            seats = holder.per == "player" or all(k.__class__ is int and 0 <= k < self.rules.num_players for k in keys)
            names["owner"] = typed_local("owner", T.SEAT if seats else T.optional(T.SEAT))  # (none: a key no seat)
        if keyed:
            names["key"] = typed_local("key", T.item_type(T.type_of_value(keys)))
        scope = self.root.child(**names)
        scope.names["me"] = Binding("", kind="unknown", const=frozenset(scope.all_names()) - {"me"},
                                    hint="in visible:, the seat looking is 'viewer'" +
                                         (" (and the place's seat 'owner')" if "owner" in names else ""))
        if "owner" not in names:
            scope.names["owner"] = Binding("", kind="unknown", const=frozenset(scope.all_names()) - {"owner"},
                                           hint=f"'{holder.name}' is one place: 'owner' is the seat of a place per "
                                                "player (per: player) or keyed by seats")
        if "key" not in names:
            scope.names["key"] = Binding("", kind="unknown", const=frozenset(scope.all_names()) - {"key"},
                                         hint=f"'{holder.name}' is not keyed: 'key' is the key of a place of keys:")
        if is_name(text) and scope.lookup(text) is None:  # a word mistyped, more likely than a name
            self.unknown(path, f"visible: '{text}' is not all, owner, team or none, nor a name known here", text,
                         [*VISIBILITY_WORDS, *scope.all_names()], "visible: is all, owner, team or none, or an "
                         "expression of the seat looking, 'viewer' (e.g. \"viewer != owner\")")
            return None

        def boolean(found):
            if found.name not in ("any", "nothing") and T.kinds(found) != {T.BOOL}:
                raise CompileProblem(f"visible: should give true or false, not {T.describe(found)}", 0,
                                     len(text), "e.g. visible: \"viewer != owner\" (all, owner, team and none are "
                                     "the words it may be instead)", code="type_error")
        code = self.expr(path, text, scope, then=boolean)
        return None if code is _FAIL else self.lambda_("S, me, L_viewer, L_owner=None, L_key=None", code)

    def _capacity(self, path, spec) -> int | None:
        """A zone's or list variable's declared `capacity:` (worked out at load), or None."""
        if spec.get("capacity") is None:
            return None
        found = self.evaluate_now(path + ("capacity",), spec["capacity"], self.root, "capacity")
        if found is _FAIL:
            return None
        if isinstance(found, bool) or not isinstance(found, int) or found < 0:
            self.problem(path + ("capacity",), f"a capacity is a whole number of items, 0 or more, not "
                         f"{text_of(found)[:40]}", "e.g. capacity: 4, or capacity: \"size(colours)\"", code="bad_value")
            return None
        return found

    def _holder_keys(self, path, spec) -> tuple | None:
        """The keys of a zone or variable declared with `keys:` (one place per key), or None."""
        if spec.get("keys") is None:
            return None
        if spec.get("per") is not None:
            self.problem(path + ("keys",), "a zone or variable has one place per player or one per key, not both",
                         "remove 'per' (keys: players gives one place per seat) or 'keys'", key=True)
        keys = self.evaluate_now(path + ("keys",), spec["keys"], self.root, "list of keys")
        if keys is _FAIL:
            return ()
        if len(keys) > MAX_KEYS:
            self.problem(path + ("keys",), f"{len(keys):,} keys are more than the {MAX_KEYS:,} places a zone or "
                         "variable may have", "use fewer keys", code="limit_exceeded", fields={"limit": "MAX_KEYS"})
            return ()
        try:
            repeated = [k for k, n in Counter(keys).items() if n > 1]
        except TypeError:  # a key that cannot be a key: a list
            self.problem(path + ("keys",), "keys must be numbers, strings, cells, players or tuples of them",
                         "e.g. keys: cells, keys: players or keys: \"[(p, r) for p in players for r in 1..2]\"")
            return ()
        if repeated:
            self.problem(path + ("keys",), f"the key {text_of(repeated[0])} is given more than once",
                         "each key names one place: list every key once")
            return ()
        return tuple(keys)

    def _functions(self):
        """User functions (named expressions) and procedures (named effects), called like built-ins."""
        kinds = (("functions", "value", "U"), ("procedures", "do", "P"))
        for section, body_key, prefix in kinds:
            for name, spec in (self.data.get(section) or {}).items():
                spec = spec or {}
                if name in self.builtins:
                    self.problem((section, name), f"'{name}' is already a built-in function", "choose another name",
                                 key=True, code="duplicate_name", fields={"name": name})
                    continue
                params = [str(p) for p in spec.get("params") or []]
                if section == "functions" and self.inline and not spec.get("let"):
                    self._expansion(name, params, spec.get(body_key))
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
                bindings, lowered = self._expanded.get(name) or ({p: local(p) for p in params}, None)
                self.typed_function(name, list(bindings.values()))
                scope = self.root.child(**bindings)
                if section == "functions":
                    lets, scope = self.let_block((section, name), spec.get("let"), scope)
                    path = (section, name, body_key)
                    if lowered is None:
                        code = self.expr(path, spec.get(body_key), scope, then=self.function_value(name))
                    else:  # (lowered already, to be compiled into its callers: see _expansion)
                        code = self.printed(path, lowered, then=self.function_value(name))
                        code = code if code is _FAIL else code[0]
                    body = _FAIL if code is _FAIL or lets is _FAIL else lets + [Return(code)]
                else:
                    body = self.effects((section, name, body_key), spec.get(body_key) or [], scope)
                if body is _FAIL:
                    continue
                fn = self.function(f"{section[:-1]}_{_ident(name)}", "S, me" + "".join(f", L_{p}" for p in params),
                                   body, f"{section[:-1]} {name}")
                self.namespace[f"{prefix}_{_ident(name)}"] = fn
                b.fn = (lambda f: lambda S, *args: f(S, None, *args))(fn)

    def let_block(self, path, lets, scope) -> tuple:
        """(statements, scope) of a `let:` block under `path`: each name is computed once, in order, and seen
        by the names after it and by what follows (the scope); the statements are _FAIL if one fails."""
        if lets is None:
            return [], scope
        if not isinstance(lets, dict):
            self.problem(path + ("let",), "'let' should map names to expressions", "e.g. let: {mine: \"owned(p)\"}",
                         code="schema_type", fields={"path": path + ("let",), "expected": ("object",)})
            return _FAIL, scope
        statements: list | object = []
        for name, text in lets.items():
            if not is_name(name):  # (a function's let names are checked with its params, in check_names)
                self.problem(path + ("let", name), f"'{name}' cannot be a name", "a name starts with a letter and "
                             "holds only letters, digits and '_'", key=True, code="bad_name", fields={"name": name})
                statements = _FAIL
                continue
            node = self.parse_at(path + ("let", name), text)
            binding = local(name)
            found = self.lowered(path + ("let", name), node, scope,
                                 then=lambda typed, b=binding: setattr(b, "type", typed))
            if found is _FAIL:
                statements = _FAIL
            elif statements is not _FAIL:
                statements.append(Assign(f"L_{name}", found[0]))
            binding = _BROKEN if found is _FAIL else binding
            if found is not _FAIL:  # nothing assigns it again (a function or end rule is an expression)
                binding.depth = self.compiler.depth_of(found[1])
            scope = scope.child(**{name: binding})
        return statements, scope

    def _expansion(self, name: str, params: list, text) -> None:
        """Let calls of a function with a short body be compiled into their callers (the Python backend's _inline):
        its body lowered now, with the bindings of its params, as it is compiled for itself later."""
        try:
            body = parse(text) if isinstance(text, str) else None
        except SyntaxProblem:  # reported where the body is compiled
            return
        if body is not None and sum(1 for _ in A.walk(body)) <= INLINE_NODES:  # (so not nested too deeply to lower)
            bindings = {p: local(p) for p in params}
            lowered = self.lowerer(("functions", name, "value"), self.root.child(**bindings)).expr(body)
            self._expanded[name] = (bindings, lowered)
            self.compiler.expansions[name] = (list(bindings.values()), lowered)

    # -- end and scoring ---------------------------------------------------------------------
    def unchanged(self, spec: dict, keys: tuple, label: str | None = None):
        """fn(S) -> a value that stays the same while nothing the expressions under `keys` of `spec` read is
        written (see model/reads.py), or None when that is not known (they may read anything, or have problems)."""
        if self.problems:
            return None
        analysis, reads = self._read_analysis(), NOTHING
        todo = [spec.get(key) for key in keys]
        while todo and reads is not None:
            value = todo.pop()
            if isinstance(value, dict):
                todo.extend(value.values())
            elif isinstance(value, list):
                todo.extend(value)
            elif isinstance(value, str):
                try:
                    reads = reads | analysis.of(parse(value))
                except SyntaxProblem:
                    reads = None
        return None if reads is None else self.lambda_("S, me=None", key_code(reads), label)

    def _read_analysis(self) -> ReadAnalysis:
        """What expressions read, with the file's functions' bodies (made once per compiled game)."""
        if self._reads is not None:
            return self._reads
        bodies = {}
        for name, spec in (self.data.get("functions") or {}).items():
            b = self.builtins.get(name)
            if b is not None and b.category == "functions":
                texts = list(((spec or {}).get("let") or {}).values()) + [(spec or {}).get("value")]
                try:  # a body that does not parse is reported where it is compiled; lets are read with it
                    bodies[name] = A.ListExpr([parse(t) if isinstance(t, str) else A.Const(t) for t in texts])
                except SyntaxProblem:
                    bodies[name] = None
        self._reads = ReadAnalysis(self.root, self.builtins, bodies)
        return self._reads

    def _end_and_scoring(self):
        r = self.rules
        no_moves = None  # the path of the file's no_moves rule
        for k, spec in enumerate(self.data.get("end") or []):
            path = ("end", k)
            spec = spec or {}
            if "no_moves" in spec:  # (its word and that it stands alone: the schema's)
                if no_moves is not None:
                    self.problem(path + ("no_moves",), "a second no_moves rule: a file has at most one",
                                 f"keep one: the first is at line {self.doc.locate(no_moves, key=True)[0].line}", key=True,
                                 code="no_moves_twice", fields={"first": no_moves})
                    continue
                for key in spec:
                    if key != "no_moves":
                        self.problem(path + (key,), f"'{key}' beside no_moves: a no_moves rule stands alone",
                                     "write an end condition as an item of its own: - when: ...", key=True,
                                     code="schema_unknown_key", fields={"key": key, "allowed": ("no_moves",)})
                no_moves = path + ("no_moves",)
                word = spec["no_moves"]
                r.no_moves = len(r.end_rules)
                r.end_rules.append(EndRule(path, None, None, draw=word in ("draws", "passes"), no_moves=word))
                continue
            lets, scope = self.let_block(path, spec.get("let"), self.root)
            when = self.expr(path + ("when",), spec.get("when"), scope)
            winners = spec.get("winners", "highest_score")
            winners_fn = None
            if isinstance(winners, str) and winners.isidentifier() and scope.lookup(winners) is None \
                    and close_names(winners, _WINNERS_WORDS) and winners not in _WINNERS_WORDS:
                self.problem(path + ("winners",), f"unknown winners '{winners}'",
                             suggestion(close_names(winners, _WINNERS_WORDS)) + " (winners: highest_score, draw, or "
                             "an expression giving the winning seats)", code="unknown_name",
                             fields={"name": winners, "candidates": tuple(close_names(winners, _WINNERS_WORDS))})
                continue
            if winners == "draw":
                winners_fn = self.lambda_("S, me=None", "[]", f"end {k + 1}")
            elif winners != "highest_score":
                code = self.expr(path + ("winners",), winners, scope)
                if code is _FAIL or lets is _FAIL:
                    continue
                winners_fn = self.function("expr", "S, me=None", lets + [Return(code)], f"end {k + 1}")
            if when is _FAIL or lets is _FAIL:
                continue
            r.end_rules.append(EndRule(path, self.function("expr", "S, me=None", lets + [Return(when)], f"end {k + 1}"),
                                       winners_fn, spec.get("ties", "draw"), draw=winners == "draw"))
        for end in r.end_rules:  # what each end condition reads: it is asked again only once that has changed
            if end.when is None:
                continue
            end.unchanged = self.unchanged(self.data["end"][end.path[1]], ("let", "when"))
        scoring = self.data.get("scoring") or {}
        for key in ("score", "tiebreak", "evaluation", "breakdown"):
            if scoring.get(key) is not None:
                code = self.expr(("scoring", key), scoring[key], self.root)
                if code is not _FAIL:
                    setattr(r, key, self.lambda_("S, me", code, f"scoring {key}"))
        self._returns(scoring)

    def _returns(self, scoring: dict) -> None:
        """`scoring: returns` (a number per seat: typed as one), its `utility` (declared, else derived from whether
        the returns read the seat) and `returns_range`."""
        r, path = self.rules, ("scoring", "returns")
        text = scoring.get("returns")
        seat_dependent = False
        if text is not None:
            def number(found):
                if not T.kinds(found) & {T.INT, T.FLOAT} or T.kinds(found) <= {T.BOOL, T.NONE}:
                    raise CompileProblem(f"returns should give a number, not {T.describe(found)}", 0,
                                         len(text) if isinstance(text, str) else 1, "each seat's result is a number, "
                                         "e.g. returns: \"chips[me] - 10\"", code="type_error")
            code = self.expr(path, text, self.root, then=number)
            if code is not _FAIL:
                r.returns = self.lambda_("S, me", code, "scoring returns")
                try:
                    tree = self.parse_at(path, text) if isinstance(text, str) else A.Const(text)
                    seat_dependent = tree is _FAIL or reads_seat(tree, self._read_analysis().bodies)
                except SyntaxProblem:  # (reported where it is compiled)
                    seat_dependent = True
        declared = scoring.get("utility")
        r.utility_declared = declared in UTILITIES
        r.utility = declared if declared in UTILITIES else derived_utility(r.num_players, text is not None,
                                                                            seat_dependent)
        bounds = scoring.get("returns_range")
        if isinstance(bounds, list) and len(bounds) == 2 and all(isinstance(b, (int, float)) and not isinstance(
                b, bool) for b in bounds):
            low, high = (float(b) if abs(b) < 1e300 else float("nan") for b in bounds)
            if not (math.isfinite(low) and math.isfinite(high) and low <= high):
                self.problem(("scoring", "returns_range"), f"returns_range should be two finite numbers, the lowest "
                             f"first, not {text_of(bounds)[:60]}", "e.g. returns_range: [-10, 10]", code="bad_value",
                             fields={"what": "returns_range"})
            else:
                r.returns_range = (low, high)


    def _actions_and_features(self):
        """The caps of integer actions (`actions:`) and the file's own observation features (`features:`)."""
        r = self.rules
        caps = self.data.get("actions") or {}
        r.max_legal, r.max_outcomes = caps.get("max_legal"), caps.get("max_outcomes")
        for name, text in (self.data.get("features") or {}).items():
            code = self.expr(("features", name), text, self.root)
            if code is not _FAIL:
                r.features.append((str(name), self.lambda_("S, me", code, f"feature {name}"), ("features", name)))


def _code_objects(code):
    """A function's code and the code of the comprehensions and lambdas within it, which run as their own."""
    yield code
    for const in code.co_consts:
        if hasattr(const, "co_consts"):
            yield from _code_objects(const)


budget.guard(ModelCompiler.compile, LOAD_SECONDS, "loading the rule file")
budget.guard(ModelCompiler.evaluate_now, VALUE_SECONDS, "working it out")


def _holding(holder: Holder, seats: int):
    """(the type of one place of a variable) -> the type of the variable: its one place, a list of places per
    seat, or a table of places by key."""
    if holder.per == "player":
        return lambda place: T.list_(place, seats)
    if holder.keys is not None:
        key = T.widen(T.type_of_value(list(holder.keys))).items[0] if holder.keys else T.ANY
        return lambda place: T.table(key, place)
    return lambda place: place


def _loading(frame) -> tuple | None:
    """(what, Location) of a load running in `frame`: the load-time value being worked out, else the file."""
    if frame.f_code is ModelCompiler.evaluate_now.__code__:
        compiler, path = frame.f_locals.get("self"), frame.f_locals.get("path")
        if isinstance(compiler, ModelCompiler) and isinstance(path, tuple) and path:
            return (f"{' '.join(map(str, path[:-1]))} '{path[-1]}'".strip(),
                    compiler.doc.locate(path)[0])
    elif frame.f_code is ModelCompiler.compile.__code__:
        compiler = frame.f_locals.get("self")
        if isinstance(compiler, ModelCompiler):
            return "loading the rule file", Location(compiler.doc.file)
    return None


budget.locate_with(_loading)


class _Refused(ValueError):
    """An option value of the right kind that the option's declaration refuses (out of range, not a choice)."""


def coerce_option(name: str, spec: dict, raw):
    """Convert an option value given as text (command line) or YAML to the option's declared type. A list
    option (type: list) is written with its items separated by commas (3,4,5) or as a YAML list; each item is
    converted to `items` (int, string or bool) and checked against `choices`, `min` and `max` as one value."""
    if spec.get("type") != "list":
        return _coerce_value(name, spec, spec.get("type", "string"), raw)
    if isinstance(raw, str):
        raw = [] if not raw.strip() else [item.strip() for item in raw.split(",")]
    elif not isinstance(raw, (list, tuple)):
        raise ValueError(f"option {name} is a list: write its items separated by commas, e.g. 3,4,5; got {raw!r}")
    if len(raw) > MAX_OPTION_ITEMS:
        raise _Refused(f"option {name} has {len(raw):,} items; an option holds at most {MAX_OPTION_ITEMS:,}")
    kind = spec.get("items", "string")
    values = []
    for i, item in enumerate(raw):
        try:
            values.append(_coerce_value(name, spec, kind, item))
        except ValueError as exc:
            raise type(exc)(f"item {i + 1} of {exc}") from None
    return values


def _coerce_value(name: str, spec: dict, kind: str, raw):
    """One value (an option's, or an item of a list option's) converted to `kind` and checked."""
    choices = spec.get("choices")
    try:
        if kind == "int":
            value = int(raw)
            if "min" in spec and value < spec["min"] or "max" in spec and value > spec["max"]:
                raise _Refused(f"option {name} must be between {spec.get('min')} and {spec.get('max')}, got {value}")
        elif kind == "bool":
            if isinstance(raw, bool):
                value = raw
            elif str(raw).lower() in ("true", "yes", "1", "on"):
                value = True
            elif str(raw).lower() in ("false", "no", "0", "off"):
                value = False
            else:
                raise _Refused(f"option {name} is true or false, got {raw!r}")
        else:
            value = str(raw)
    except _Refused:
        raise
    except (TypeError, ValueError, OverflowError):  # Python's own failure to convert; OverflowError: int(.inf)
        raise ValueError(f"option {name} must be {'a whole number' if kind == 'int' else kind}, got {raw!r}") from None
    if choices is not None and value not in choices:
        raise _Refused(f"option {name} must be one of {', '.join(map(str, choices))}, got {value!r}")
    return value
