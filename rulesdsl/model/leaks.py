"""Secrets made public: a located warning where effects assign a value read from a hidden place to a variable that
every player sees, and where a simultaneous step shows every player choices its moves say nothing of.

A hidden place is a zone or variable whose `visible:` is not `all` (an expression of the viewer too), or what a
secret move or chance outcome carries (its params and lets, a draw's `outcome`, when it declares `visible_to:`). The value assigned (or the key it is
stored at) is followed through the names the effects assign, their `for:` loops, a rule's lets, the file's
functions and the procedures it is handed to, from the typed IR. The size of a hidden place is public (views show
it), so `size(hand[p])` is no secret; nor is a place once the same effects `reveal()` it. What a secret decides only
by an `if:` is not followed.
"""

from __future__ import annotations

from dataclasses import replace

from ..ir import nodes as N
from ..ir.game import GameIR, MovePlan
from ..source import Document

CODE = "secret_made_public"
_HINT = ("declare the variable's visible: (owner, team, none or an expression of the viewer) if it is a secret too, "
         "or keep the value in the hidden place (and reveal() it when every player may see it)")
_PASSES = 4  # the effects are read again while a name assigned later in a loop makes more values secret


def secret_leaks(game: GameIR, doc: Document) -> list:
    """The warnings (Problems) at each assignment of a secret to a variable every player sees."""
    return _Leaks(game).problems(doc)


REVEALED = "choices_revealed"


def revealed_choices(game: GameIR, doc: Document, moves: dict) -> list:
    """A warning at each simultaneous step some of whose moves say nothing of who sees the choice: every player
    does once the step resolves, which a sealed choice must not be. A move says so with `visible_to:` (`all`: every
    player; `moves`: the file's moves as written)."""
    found = []
    for step in game.steps.values():
        if step.kind != "simultaneous":
            continue
        silent = [name for name in step.moves
                  if not isinstance(moves.get(name), dict) or moves[name].get("visible_to") is None]
        if silent:
            listed = ", ".join(f"'{name}'" for name in silent)
            problem = doc.problem(
                step.decl + ("moves",), f"the choices of move{'s' if len(silent) > 1 else ''} {listed} at "
                f"simultaneous step '{step.name}' are shown to every player once the step resolves",
                "say who sees them on the move: visible_to: all (sealed choices opened together) or, to keep a "
                "choice secret for good, the seats that see it (visible_to: \"me\")", code=REVEALED,
                fields={"step": step.name, "moves": silent})
            found.append(replace(problem, severity="warning"))
    return found


def _root(node):
    """The name an assignment target or a place is written on: `x` of `x`, `x[k]`, `x[k].f`."""
    while isinstance(node, (N.Index, N.Attr, N.Slice)):
        node = node.obj
    return node if isinstance(node, N.Ref) else None


class _Leaks:
    """The secrets of one game and the assignments that make them public."""

    def __init__(self, game: GameIR):
        self.game = game
        self.hidden = {h.decl: h for h in game.holders if h.visible != "all"}
        self.public = {h.decl: h for h in game.holders if h.kind == "var" and h.visible == "all"}
        self.sources: dict = {}  # decl of a secret a rule is given (a secret plan's param, a secret draw) -> its text
        self.functions: dict = {}  # a function's name -> the secret its value reads ("": none)
        self.found: dict = {}  # id of an Assign -> (node, variable, secret)
        self.entered: set = set()  # (procedure, its secret params) read again with those secret
        self.todo: list = []  # (procedure body, its env) still to read: a worklist, so chains of calls need no stack
        self._function_secrets()

    # -- the rules and their effects --------------------------------------------------------------------------
    def problems(self, doc: Document) -> list:
        for plan in self.game.moves.values():
            self._plan(plan, None)
        for step in self.game.steps.values():
            for stmts in step.effects.values():
                self._rule(stmts)
            if step.passing is not None:
                self._plan(step.passing, None)
            chance = step.chance
            if chance is None:
                continue
            if chance.outcomes is not None:
                self._plan(chance.outcomes, None)
            elif chance.kind == "draw" and chance.exprs.get("visible_to") is not None:
                self.sources[step.decl + ("chance", "draw")] = f"the outcome of step '{step.name}' (visible_to)"
                self._rule(chance.effects)
            else:
                self._rule(chance.effects)
        for function in self.game.functions.values():
            if function.kind == "procedure":
                self._rule(function.body, {let.decl: self._secret(let.value, {}) for let in function.lets})
        while self.todo:
            self._rule(*self.todo.pop())
        found = []
        for node, variable, secret in sorted(self.found.values(), key=lambda f: (f[0].at[0], f[0].at[1] or 0)):
            path, start, end = node.at
            problem = doc.problem(path, f"variable '{variable}' is seen by every player (visible: all), but the value "
                                        f"assigned here reads a secret: {secret}",
                                  _HINT, offset=start, width=max(1, (end or 0) - (start or 0)), code=CODE,
                                  fields={"variable": variable, "secret": secret})
            found.append(replace(problem, severity="warning"))
        return found

    def _plan(self, plan: MovePlan, secret_of: str | None) -> None:
        """A move, outcome or pass: its params and lets are secrets when it (or the move it is part of) has
        visible_to."""
        if plan.visible_to is not None:
            what = {"outcome": "the outcome of step", "move": "a param of move"}
            secret_of = f"{what.get(plan.kind, 'a param of')} '{plan.name}' (visible_to)"
        if secret_of is not None:
            for param in plan.params:
                self.sources[param.decl] = f"'{param.name}', {secret_of}"
        env: dict = {}
        for let in plan.lets:
            env[let.decl] = self._secret(let.value, env)
        self._rule(plan.effects, env)
        for part in plan.parts + ([plan.repeat] if plan.repeat is not None else []):
            self._plan(part, secret_of)

    def _rule(self, stmts: tuple, env: dict | None = None) -> None:
        """One rule's effects, read until the names they assign are settled; what each assignment reveals."""
        env = dict(env or {})
        for _ in range(_PASSES):
            before = dict(env)
            self._statements(stmts, env, set())
            if env == before:
                break

    def _statements(self, stmts, env: dict, revealed: set) -> None:
        for stmt in stmts:
            if isinstance(stmt, N.Assign):
                self._assign(stmt, env, revealed)
            elif isinstance(stmt, N.Do):
                if stmt.call.func == "reveal" and stmt.call.args and _root(stmt.call.args[0]) is not None:
                    revealed.add(_root(stmt.call.args[0]).decl)  # face up from here on in these effects
                elif stmt.call.target == "procedure":
                    self._procedure(stmt.call, env, revealed)
            elif isinstance(stmt, N.If):
                self._statements(stmt.then, env, set(revealed))
                self._statements(stmt.other, env, set(revealed))
            elif isinstance(stmt, N.Loop):
                secret = self._secret(stmt.clause.iterable, env, revealed)
                for target in stmt.clause.targets:
                    if secret and isinstance(target, N.Ref):
                        env[target.decl_at] = secret
                self._statements(stmt.body, env, revealed)

    def _procedure(self, call: N.Call, env: dict, revealed: set) -> None:
        """A procedure handed secrets: its body read again with those params secret (once per procedure and set
        of secret params)."""
        procedure = self.game.functions.get(call.func)
        if procedure is None:
            return
        given = {}
        for i, arg in enumerate(call.args[:len(procedure.params)]):
            secret = self._secret(arg, env, revealed)
            if secret:
                given[procedure.decl + ("params", i)] = secret
        key = (call.func, tuple(sorted(given)))
        if given and key not in self.entered:
            self.entered.add(key)
            for let in procedure.lets:
                given[let.decl] = self._secret(let.value, given)
            self.todo.append((procedure.body, given))

    def _assign(self, stmt: N.Assign, env: dict, revealed: set) -> None:
        root = _root(stmt.target)
        if root is None:
            return
        secret = self._secret(stmt.value, env, revealed)
        target = stmt.target
        while not secret and isinstance(target, (N.Index, N.Attr, N.Slice)):  # the key stored at tells it too
            secret = next(filter(None, (self._secret(k, env, revealed) for k in target.children()[1:])), "")
            target = target.obj
        if root.kind in ("temp", "loop"):
            if secret:
                env[root.decl_at] = secret
        elif root.kind == "var" and root.decl in self.public and secret:
            self.found.setdefault(id(stmt), (stmt, root.name, secret))

    # -- what an expression reads ----------------------------------------------------------------------------
    def _secret(self, node, env: dict, revealed: set = frozenset()) -> str:
        """The first secret `node` reads, as the warning names it ("": none)."""
        todo = [node] if node is not None else []
        while todo:
            node = todo.pop()
            if isinstance(node, N.Ref):
                found = self._ref(node, env, revealed)
                if found:
                    return found
                continue
            if isinstance(node, N.Call) and node.target == "function":
                found = self.functions.get(node.func, "")
                if found:
                    return found
            if isinstance(node, N.Call) and node.func == "size" and node.args:
                place = _root(node.args[0])
                if place is not None and place.decl in self.hidden:  # how many it holds: every view shows it
                    todo.extend(_keys(node.args[0]))
                    continue
            todo.extend(node.children())
        return ""

    def _ref(self, ref: N.Ref, env: dict, revealed: set) -> str:
        if ref.kind in ("zone", "var"):
            holder = self.hidden.get(ref.decl)
            if holder is None or ref.decl in revealed:
                return ""
            seen = holder.visible if holder.sight is None else f'"{holder.visible}"'  # (an expression, quoted)
            return f"{'zone' if holder.kind == 'zone' else 'variable'} '{holder.name}' (visible: {seen})"
        if ref.kind in ("temp", "loop"):
            return env.get(ref.decl_at, "")
        if ref.kind in ("let", "arg"):
            return env.get(ref.decl, "")
        return self.sources.get(ref.decl, "") if ref.decl is not None else ""

    def _function_secrets(self) -> None:
        """The secret each function of the file reads (its lets and value, and the functions it calls): what each
        reads itself, then handed on to its callers along the calls (no recursion: a file may chain thousands)."""
        callers: dict = {}  # name -> the functions that call it
        functions = {name: f for name, f in self.game.functions.items() if f.kind == "function"}
        for name, function in functions.items():
            nodes = [let.value for let in function.lets] + [function.value]
            self.functions[name] = next(filter(None, (self._secret(n, {}) for n in nodes)), "")
            for node in (inner for n in nodes if n is not None for inner in N.walk(n)):
                if isinstance(node, N.Call) and node.target == "function" and node.func in functions:
                    callers.setdefault(node.func, set()).add(name)
        todo = [name for name, secret in self.functions.items() if secret]
        while todo:
            name = todo.pop()
            for caller in callers.get(name, ()):
                if not self.functions[caller]:
                    self.functions[caller] = self.functions[name]
                    todo.append(caller)


def _keys(place) -> list:
    """The keys a place is written with (`k` of `hand[k]`): what `size(hand[k])` reads besides how many."""
    keys = []
    while isinstance(place, (N.Index, N.Attr, N.Slice)):
        keys.extend(place.children()[1:])
        place = place.obj
    return keys
