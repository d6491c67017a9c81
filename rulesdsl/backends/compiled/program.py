"""A game's whole step printed as one module: legal moves, applying a move, the flow machine, end rules, scoring
and a random playout loop, all over the packed state vector `s` (packing.py).

A move inside compiled code is a row of whole numbers: its kind (its index in the layout's moves), then its
arguments as the layout numbers them. The flow machine is Python's (engine/state.py `_go`): end_turn checks the
end, passes the turn, counts it and stops at the turn cap; where play waits within the turn of a seat's move, the
end is checked once more; a seat to choose with no legal move meets the file's no_moves rule (nomoves.py).
A game's first step may be a chance step drawing an arrangement of a fixed list of items: it is drawn here, from
the chance stream exactly as engine/arrange.py draws it, and applied; the playout loop draws it too. What the module
does not take raises Unsupported, located.
"""

from __future__ import annotations

import math

from ...engine.arrange import TRIES, two_kinds
from ...engine.nodes import CHANCE as CHANCE_SEAT
from ...errors import RulesDslError
from ...limits import MAX_DRAWN
from ...ir import nodes as N
from ...ir.forms import Atom, Many, Nothing, OneOf
from .actors import Actors
from .batch import TEMPLATE as KERNELS
from .bounds import length_bound
from .calls import Calls
from .draws import Draw
from .fractional import FRACTION, Fractions
from .messages import MadeMessage
from .nomoves import no_moves_source
from .outcomes import Outcomes
from .parts import Listed, Parts, arg_widths, bind, flat, spread, width
from .parts import columns as row_columns
from .places import _may_be_none, _optional
from .positions import Positions
from .printer import Module, Printer
from .repeats import Repeats
from .simultaneous import Simultaneous
from .tables import Tables
from .tiers import Tiers, after_effects
from .unsupported import Unsupported

DECISION, CHANCE = 0, 1
MAX_LISTED = 1 << 16  # the most moves compiled code lists at once (rows of its buffer)


class Program:
    """The printed module of one game and what its caller needs to call it."""

    def __init__(self, game, packing):
        rules, layout = game.rules, game.layout
        self.game, self.rules, self.ir, self.layout, self.packing = game, rules, rules.ir, layout, packing
        self.where = lambda path: rules.where(path) if rules.where is not None and path else None
        self.m = Module(self.where)
        self.t = Tables(rules, layout)
        self.p = Printer(self.m, self.t, self.ir, packing)
        self.kinds = list(layout.moves)
        self.kind_index = {k.label: i for i, k in enumerate(self.kinds)}
        self.players = [i for i, k in enumerate(self.kinds) if k.player]
        self.outcomes = [i for i, k in enumerate(self.kinds) if k.label.endswith(".outcome")]
        self.width = 1 + max((len(self.kinds[i].args) for i in self.players + self.outcomes), default=0)
        self.capacity = 0
        self.steps = list(layout.steps)
        self.arrangements = {}  # step name -> Arrangement
        self.calls = Calls(self)
        self.draws = {}  # step name -> Draw (made as the module is printed)
        self.p.calls = self.calls  # chance() in effects writes the draws it asks for
        self.width = max([self.width] + [3 + len(rules.steps[name].inputs) for name, step in self.ir.steps.items()
                                         if step.kind == "chance" and step.chance.kind == "draw"])
        self.parts = Parts(self)  # compound moves: a row holds their parts' arguments too
        self.repeats = Repeats(self)  # moves of one part repeated: their parts made, with room for the most
        self.positions = self.p.positions = Positions(self)  # compared (one move per position), and counted
        self.width = max([self.width] + [1 + self.parts.columns(name) for name in self.parts.plans]
                         + [1 + self.repeats.columns(name) for name in self.repeats.plans]
                         + [1 + sum(w for _, w in arg_widths(self, k)) for k in self.players + self.outcomes])
        # a row of a playout's log: the seat, the move or outcome (W columns), who sees it, how many moves the seat
        # chose among, whether it was a choice at a simultaneous step
        self.log_width = max(self.width + 4, 5)
        self.terminal, self.last_row = packing.fields["terminal"].offset, packing.fields["last_row"].offset
        self.sim = Simultaneous(self)
        self.actors = Actors(self)
        self.source = self._print()

    # -- the whole module -----------------------------------------------------------------------------------------
    def _print(self) -> str:
        self._check_flow()
        parts = [self._legal(), self._apply(), self._flow(), self._end(), self._no_moves(), self._by_score(),
                 self._chance(), self.sim.source(), self.actors.source()]
        # (a bound multiplied over many params, a compound move's parts above all, may pass any real count: the rows
        # listed at once stop there, with a located error where a position would list more)
        self.capacity = min(self.capacity, MAX_LISTED)
        parts.append(self._own_returns())
        if self.calls.active:
            parts.append(self.calls.source())
        exists = []
        while set(self.p.steps_exist) - set(exists):  # can_move() asked for these
            name = next(n for n in self.p.steps_exist if n not in exists)
            exists.append(name)
            parts.append(self._moves_of(name, exists=True))
        fields = [f"{f.ident} = {f.offset}  # {f.name}: {f.dtype}{list(f.shape)}" for f in self.packing.fields.values()]
        fields += [f"X_{name} = {offset}  # scratch: {name}" for name, offset in self.packing.scratch.items()]
        texts = self.m.table("directions", self.t.direction_of_text(self.m.texts))
        head = [HEADER, f"NC = {self.t.cells}  # cells", f"NS = {self.t.seats}  # seats",
                f"END_TURN = {len(self.steps)}", f"MAX_TURNS = {int(self.game.max_turns)}",
                f"W = {self.width}  # a move's row: its kind, then its arguments",
                f"KIND = _table({[self._kind(s) for s in self.steps]!r}, 1)  # per step: 0 decision, 1 chance",
                f"AUTO = _table({[int(self._step(s).kind == 'auto') for s in self.steps]!r}, 1)  # per step",
                f"DRAWN = _table({[int(bool(e.draw)) for e in self.rules.end_rules]!r}, 1)  # per end rule: a draw",
                *self.sim.header(), *self.actors.header(), *self.positions.header(),
                *fields, *(source for _, source in self.m.tables.values()), f"TEXT_DIRECTION = {texts}", HELPERS]
        functions = [source for _, source in self.m.functions.values()] + parts
        functions += [playout_source(bool(self.sim.names), self.positions.counted), KERNELS]
        return "\n".join(head) + "\n\n\n" + "\n\n\n".join(functions) + "\n"

    @property
    def drawn(self) -> int:
        """Room for the items the chance steps of a playout draw: each arrangement once, and the most one `draw:`
        step draws at once when chance steps draw items again and again (a playout hands back when the room is
        used up)."""
        again = self.draws or any(name != self.rules.start for name in self.arrangements)  # drawn again and again
        return sum(a.size for a in self.arrangements.values()) + (MAX_DRAWN if again else 0)

    def _kind(self, name: str) -> int:
        return CHANCE if self.ir.steps[name].kind == "chance" else DECISION

    def _step(self, name):
        return self.ir.steps[name]

    def _at(self, decl):
        return self.where(decl)

    def _check_flow(self) -> None:
        rules = self.rules
        for name, step in self.ir.steps.items():
            if step.kind not in ("decision", "chance", "auto", "simultaneous"):
                raise Unsupported(self._at(step.decl), f"{step.kind} steps")
            model = rules.steps[name]
            if step.kind == "chance":
                # (a fixed arrangement is the Python engine's to apply: at the start, in the first position it makes)
                if step.chance.kind == "arrangement" and (name == rules.start or model.arrangement.fixed is None):
                    self.arrangements[name] = Arrangement(self, name)
                    continue
                if step.chance.kind == "draw":
                    continue
                if step.chance.kind != "outcomes" or model.inputs and name not in self.calls.inputs:
                    raise Unsupported(self._at(step.decl), "a chance step other than outcomes, a draw or an "
                                      "arrangement (not fixed: after the start)")
            if set(step.effects) - {"do", "after", "resolve"}:
                raise Unsupported(self._at(step.decl), "a step's effects other than do:, after: and resolve:")
            if step.kind == "simultaneous" and (model.tiers or model.after is not None):
                raise Unsupported(self._at(step.decl), "a simultaneous step's fallback tiers or after: effects")
            for branch in step.next:
                if not isinstance(branch.to, str):
                    raise Unsupported(self._at(step.decl), "a next step worked out while playing")
            for rule in [*model.moves, *(r for tier in model.tiers for r in tier), model.pass_rule]:
                if rule is not None and (rule.next is not None and rule.next_target is None
                                         or rule.visible_to is not None and step.kind != "chance"):
                    raise Unsupported(self._at(rule.path), "a move with its own next step, or visible_to")
        for n in self.ir.nodes():
            if isinstance(n, N.Call) and n.func == "leave":
                raise Unsupported(self.m.locate(n), f"{n.func}() in effects")
            if isinstance(n, N.Call) and n.func == "goto" and (not n.args or not isinstance(n.args[0], N.Const)
                                                                or n.args[0].value not in self.ir.steps):
                raise Unsupported(self.m.locate(n), "goto() of a step worked out while playing")

    # -- legal moves ----------------------------------------------------------------------------------------------
    def _legal(self) -> str:
        lines = ["@_jit", "def legal(s, me, out):", "    st = s[O_step]"]
        for name, step in self.ir.steps.items():
            if step.kind not in ("decision", "simultaneous"):
                continue
            index = self.t.step_index[name]
            lines.append(f"    if st == {index}:")
            if self.rules.steps[name].tiers:
                lines += Tiers(self, name).lines(index)
            else:
                lines.append(f"        n = {self._moves_of(name)}(s, me, out, 0)")
            if self.rules.steps[name].pass_rule is not None:
                lines += ["        if n == 0:", f"            out[0, 0] = {self.kind_index[name + '.pass']}",
                          "            n = 1"]
                self.capacity = max(self.capacity, 1)
            else:
                names = tuple(self.rules.player_names)  # (the seat raised, by its name, as the Python engine says it)
                stuck = self.m.code(MadeMessage(lambda p: f"{names[p]} has no legal move and the step declares no "
                                                          "'pass'"), step.decl,
                                    "add 'pass: pass' to the step, or a move that is always legal")
                lines += ["        if n == 0:", f"            raise ValueError({stuck!r}, me)"]
            lines.append("        return n")
        lines.append("    " + self.m.error("no moves are listed at this step", ("flow",)))
        return "\n".join(lines)

    def moves_of(self, name: str, plan=None) -> str:
        """The name of the function listing the moves of a step (of `plan`, its outcomes, at a chance step)."""
        return self._moves_of(name, plan=plan)

    def _moves_of(self, name: str, exists: bool = False, plan=None) -> str:
        """The function listing the moves of a step (`exists`: telling whether there is one): its name, or the
        whole source for `exists`."""
        step, index = self._step(name), self.t.step_index[name]
        fname = f"{'X' if exists else 'L'}_{index}"
        head = f"def {fname}(s, me):" if exists else f"def {fname}(s, me, out, n):"
        lines, once = ["@_jit", head], {}
        for found in [plan] if plan is not None else [self.ir.moves[move] for move in step.moves]:
            lines += self._generate(found, exists, once)
        lines.append("    return False" if exists else "    return n")
        if exists:
            return "\n".join(lines)
        self.m.functions[("moves", name)] = (fname, "\n".join(lines))
        return fname

    def _generate(self, plan, exists: bool, once: dict | None = None, given: dict | None = None, tail=None) -> list:
        """Loops over a move's params, its lets and checks placed as soon as what they read is bound. `once`: the
        lists of the function's first loops so far (code -> name), each worked out once per listing; `given`: the
        move's inputs, bound by the caller (a part of a compound move, parts.py); `tail(env, pad, bound)`: the lines
        for each move found, instead of listing it."""
        rule = self._rule_of(plan)
        called = plan.kind == "outcome" and plan.decl[2] in self.calls.inputs  # inputs a chance() call gives
        inputs = given
        given = list(plan.inputs) if called else []
        own = [p.name for p in plan.params] + [l.name for l in plan.lets] \
            + (["parts"] if plan.parts or plan.repeat is not None else [])
        if plan.inputs and not called and inputs is None or rule.arg_names != own:
            raise Unsupported(self._at(plan.decl), "a move with inputs, listed at a step")
        env, lines, pad = dict(inputs or {}), [], "    "
        if given:  # the inputs of the call whose draw this is: the first waiting
            lines += ["    if s[O_calls_draws_len] == 0:",
                      "        " + self.m.error("the step takes inputs, which only chance() gives", plan.decl)]
        for j, name in enumerate(given):
            lines.append(f"    in{j} = s[{self.calls.inputs[plan.decl[2]][j]}]")
            env[name] = (f"in{j}", "i")
        pending = [("let", i, l) for i, l in enumerate(plan.lets)] + [("check", i, c) for i, c in enumerate(plan.checks)]
        names = {p.name for p in plan.params} | {l.name for l in plan.lets}
        bound_count = 1
        if not plan.params:  # a loop run once, so that a check may skip it
            lines.append(f"{pad}for _once in range(1):")
            pad += "    "
        for i, param in enumerate(plan.params):
            pairs = False  # (a list of tuples, below)
            filled = self.p.into(param.domain, env, f"b{i}")
            if filled is not None:  # the buffer is made once, before the loops
                lines.insert(0, f"    b{i} = np.empty({filled[1]}, np.int64)")
                lines += [f"{pad}m{i} = {filled[0]}", f"{pad}for i{i} in range(m{i}):", f"{pad}    v{i} = b{i}[i{i}]"]
            elif (walked := self.p.walk_head(param.domain, env, f"v{i}", f"d{i}", pad, True)) is not None:
                lines += walked
            else:
                domain, rep = self.p.ex(param.domain, env)
                # (a list of tuples: each value a row, as a tuple is read; its row the tuple's columns, parts.py)
                pairs = rep in ("a2", "ar") and plan.kind != "outcome" and width(param.type) > 1
                if rep == "ar" and not isinstance(width(param.type), Listed) or rep != "a" and not pairs:
                    raise Unsupported(self._at(param.decl), "a param whose values are not a list of single values")
                free = self.p._free(param.domain, env)
                if once is not None and i == 0 and not free and not domain.isidentifier():
                    domain = _worked_once(once, domain, lines)
                row = f"d{i}[i{i}, 1:1 + d{i}[i{i}, 0]]" if rep == "ar" else f"d{i}[i{i}]"  # (ragged: its length first)
                lines += [f"{pad}d{i} = {domain}", f"{pad}for i{i} in range(d{i}.shape[0]):", f"{pad}    v{i} = {row}"]
                if pairs and isinstance(width(param.type), Listed):  # (rows of any length, up to the layout's)
                    lines += [f"{pad}    if v{i}.shape[0] > {width(param.type) - 1}:",
                              f"{pad}        " + self.m.error("a list longer than the layout bounds", param.decl)]
                elif pairs:
                    lines += [f"{pad}    if v{i}.shape[0] != {width(param.type)}:",
                              f"{pad}        " + self.m.error("a value of another length than the param's tuples",
                                                              param.decl)]
            pad += "    "
            env[param.name] = (f"v{i}", "a" if filled is None and pairs else "i")
            bound_count *= self._bound(param)
            pending = self._place(pending, env, names, lines, pad)
        pending = self._place(pending, env, names, lines, pad)
        if pending:
            raise Unsupported(self._at(plan.decl), "a let or check that reads a name bound after it")
        if tail is not None:
            return lines + tail(env, pad, bound_count)
        if plan.parts:
            return lines + self.parts.tail(plan, env, pad, exists, bound_count)
        if plan.repeat is not None:
            return lines + self.repeats.tail(plan, env, pad, exists, bound_count)
        if exists:
            return lines + [f"{pad}return True"]
        self.capacity += bound_count
        kind = self.kind_index[f"{plan.decl[2]}.outcome" if plan.kind == "outcome" else plan.name]
        args = [f"in{j}" for j in range(len(given))] \
            + [c for p in plan.params for c in spread(env[p.name], width(p.type))] \
            + [env[l.name][0] for l in plan.lets]
        lines += [f"{pad}if n >= out.shape[0]:",
                  f"{pad}    " + self.m.error("more moves are legal at once than the layout bounds", plan.decl),
                  f"{pad}out[n, 0] = {kind}"]
        lines += [f"{pad}out[n, {j + 1}] = {a}" for j, a in enumerate(args)]
        return lines + [f"{pad}n += 1"]

    def _rule_of(self, plan):
        """The model's rule of a move plan (a move, or a chance step's outcomes)."""
        if plan.kind == "outcome":
            return self.rules.steps[plan.decl[2]].moves[0]
        return self.rules.moves[plan.name]

    def _place(self, pending, env, names, lines, pad) -> list:
        """Emit the lets (in order) and checks whose params and lets are bound; return what is left."""
        left = []
        for what, i, item in _ordered(pending, env, names):
            node = item.value if what == "let" else item.test
            reads = {n.name for n in N.walk(node) if isinstance(n, N.Ref) and n.kind in ("param", "let")}
            if (reads & names) - set(env) or (what == "let" and any(w == "let" for w, _, _ in left)):
                left.append((what, i, item))
                continue
            if what == "let":
                code, rep = self.p.ex(item.value, env)
                if rep != "i":
                    raise Unsupported(self._at(item.decl), "a move's let holding a list")
                lines.append(f"{pad}w{i} = {code}")
                env[item.name] = (f"w{i}", rep)
            else:
                lines += [f"{pad}if not {self.p.scalar(item.test, env)}:", f"{pad}    continue"]
        return left

    def _bound(self, param) -> int:
        """The most values a param takes (its `among:` list, or its domain's bound)."""
        for t in (param.among.type if param.among is not None else None, param.domain.type):
            if t is not None and t.name in ("list", "seq", "range") and t.high is not None:
                return t.high
        if isinstance(param.domain, N.Range):  # distinct numbers: as many as its type's range holds
            item = param.domain.type.items[0] if param.domain.type.items else None
            if item is not None and item.name == "int" and item.low is not None and item.high is not None:
                return max(item.high - item.low + 1, 0)
        if isinstance(param.domain, N.Ref) and param.domain.kind == "region":
            return len(self.t.regions.get(param.domain.name, ()))
        item = param.domain.type.items[0] if param.domain.type.name == "list" and param.domain.type.items else None
        if isinstance(param.domain, N.Call) and param.domain.func == "distinct" and item is not None \
                and item.name == "text" and item.names:  # distinct texts of an enumeration: at most all of them
            return len(item.names)
        found = [length_bound(x, self.ir) for x in (param.among, param.domain)]
        if any(n is not None for n in found):
            return min(n for n in found if n is not None)
        most = self._most(param.domain)
        if most is None:
            most = self._declared_bound(param)
        if most is not None:
            return most
        raise Unsupported(self._at(param.decl), "a param whose number of values has no known bound (give it among:)")

    def _declared_bound(self, param) -> int | None:
        """The size of the `among:` list of a move's first param, worked out at load for each seat (the model's bound
        reads no position), when its type does not say it; else None."""
        rule = self.rules.moves.get(param.decl[1]) if param.decl[:1] == ("moves",) else None
        domains = getattr(rule, "domains", None) or ()
        if not domains or domains[0].name != param.name or not domains[0].declared or rule.inputs:
            return None
        try:
            return max(len(list(domains[0].bound(None, me))) for me in range(self.t.seats))
        except (RulesDslError, TypeError, ValueError, AttributeError):
            return None

    def _most(self, node) -> int | None:
        """The most items a list expression holds, where the board says it (a region, a row of a region per key,
        lists of those joined by +), else None."""
        if isinstance(node, N.Ref) and node.kind == "region" and node.name in self.t.regions:
            return len(self.t.regions[node.name])
        if isinstance(node, N.Index) and isinstance(node.obj, N.Ref) and node.obj.kind == "region" \
                and node.obj.name in self.t.keyed:
            return max(self.t.keyed_tables(node.obj.name)[2], default=0)
        if isinstance(node, N.Ref) and node.kind == "engine" and node.name == "cells":
            return self.t.cells
        if isinstance(node, N.Call) and node.target == "builtin" and node.func == "list" and len(node.args) == 1:
            return self._most(node.args[0])
        if isinstance(node, N.Display) and node.kind == "list":
            return len(node.items)
        if isinstance(node, N.Binary) and node.op == "+":
            left, right = self._most(node.left), self._most(node.right)
            return left + right if left is not None and right is not None else None
        return None

    # -- applying a move ----------------------------------------------------------------------------------------
    def _apply(self) -> str:
        last = self.layout.slots["last"].form
        lines = ["@_jit", "def apply(s, row, who):", "    k = row[0]", "    st = s[O_step]",
                 "    s[X_rule] = k + 1", "    s[X_turn] = s[O_turn]", "    s[O_ply] += 1",
                 "    if who >= 0:", f"        s[{self._ident('last.player')}] = who",
                 f"        s[O_last_row] = s[O_ply] - 1"]
        for member in last.members:
            for leaf in member.leaves():
                size, ident = math.prod(leaf.shape), self._ident(leaf.name)  # (a move's parts: several words)
                lines.append(f"        s[{ident}:{ident} + {size}] = 0" if size > 1 else f"        s[{ident}] = 0")
        for place, kind in enumerate(self.players):
            lines.append(f"        {'if' if place == 0 else 'elif'} k == {kind}:")
            lines.append(f"            s[{self._ident('last.rule')}] = {place}")
            # (a tuple's values, a compound move's parts among them, take a column each: parts.py)
            items = [(j if atom is item else -1, atom) for j, item in enumerate(last.members[place].items)
                     for atom in flat(item)]
            column = 0
            for j, item in items:
                column += 1
                if isinstance(item, Many):  # the parts of a move of repeated parts (repeats.py)
                    lines += self._last_many(item, column)
                    column += row_columns(item) - 1
                    continue
                if _optional(item):  # none or a single value: its tag, and the value when there is one
                    lines += self._last_optional(item, f"row[{column}]")
                    continue
                if self._never_none(kind, j, item):  # a number typed as maybe none that never is
                    lines += [f"            s[{self._ident(item.tag.name)}] = 1",
                              f"            s[{self._ident(item.members[1].leaf.name)}] = row[{column}]"]
                    continue
                if not isinstance(item, Atom):
                    raise Unsupported(self._at(self.kinds[kind].path), "a move argument that is not a single value")
                value = f"row[{column}]"
                if item.kind == "text":
                    value = f"_place({self.p.places.enum(item)}, {value})"
                lines.append(f"            s[{self._ident(item.leaf.name)}] = {value}")
        if self.sim.names:  # a choice is kept, and no effect of its move runs (simultaneous.py)
            lines += ["    if SIMUL[st]:", "        chosen(s, row, who)", "        return"]
        lines += self.positions.leave()
        effects = []
        for kind in self.players + self.outcomes:
            plan = self._plan(self.kinds[kind])
            fname = f"A_{kind}"
            if plan is not None and (plan.parts or plan.repeat is not None):  # each part's, then the move's own
                source, width = (self.parts if plan.parts else self.repeats).apply_source(kind, plan)
                effects.append(source)
                lines.append(f"    {'if' if kind == self.players[0] else 'elif'} k == {kind}:")
                lines.append(f"        {fname}(s, who{''.join(f', row[{j + 1}]' for j in range(width))})")
                continue
            env, columns = bind(arg_widths(self, kind))  # (a tuple takes a column per item: parts.py)
            statements = plan.effects if plan is not None else ()
            body = [line for stmt in statements for line in self.p.st(stmt, env, "    ")] or ["    pass"]
            params = "".join(f", a{j}" for j in range(columns))
            effects.append("\n".join([f"@_jit\ndef {fname}(s, me{params}):", *body]))
            if kind in self.outcomes:
                continue
            args = "".join(f", row[{j + 1}]" for j in range(columns))
            lines.append(f"    {'if' if kind == self.players[0] else 'elif'} k == {kind}:")
            lines.append(f"        {fname}(s, who{args})")
        after, run = after_effects(self)
        effects += after
        lines += run
        own = {}  # a move's own next step, a constant
        for kind in self.players:
            rule = self._rule_of_kind(self.kinds[kind])
            if rule is not None and rule.next is not None:
                own[kind] = len(self.steps) if rule.next_target == "end_turn" else self.t.step_index[rule.next_target]
        passes = self.m.table(("kinds", "pass"), [int(k.label.endswith(".pass")) for k in self.kinds])
        lines += self.then("who", {n: s for n, s in self.ir.steps.items() if s.kind == "decision"}, own,
                           is_pass=f"{passes}[k]")
        return "\n\n\n".join(effects + ["\n".join(lines)])

    def _never_none(self, kind: int, j: int, form) -> bool:
        """Whether argument j of move kind `kind`, held as none or a number, is a let that never gives none."""
        if not (isinstance(form, OneOf) and len(form.members) == 2 and isinstance(form.members[0], Nothing)
                and isinstance(form.members[1], Atom) and form.members[1].kind == "int"):
            return False
        plan = self._plan(self.kinds[kind])
        at = j - len(plan.params) if plan is not None else -1
        return plan is not None and 0 <= at < len(plan.lets) and not _may_be_none(plan.lets[at].value, self.ir)

    def _last_optional(self, form, value: str, at: str = "", pad: str = "            ") -> list:
        """The lines recording a move's argument that is none or a single value (places._optional) as the last
        move's (`at`: the index in its arrays, a part's of a move of repeated parts)."""
        atom = form.members[1]
        absent = "0" if atom.kind == "piece" else "-1"
        number = f"_place({self.p.places.enum(atom)}, {value})" if atom.kind == "text" else value
        return [f"{pad}if {value} == {absent}:", f"{pad}    s[{self._ident(form.tag.name)}{at}] = 0", f"{pad}else:",
                f"{pad}    s[{self._ident(form.tag.name)}{at}] = 1",
                f"{pad}    s[{self._ident(atom.leaf.name)}{at}] = {number}"]

    def _last_many(self, form, column: int) -> list:
        """The lines recording the parts of a move of repeated parts (a Many at `column` of the row: their count,
        then each part's columns) as the last move's."""
        pad, wide = "                ", row_columns(form.item)
        lines = [f"            s[{self._ident(form.length.name)}] = row[{column}]",
                 f"            for j in range(row[{column}]):"]
        for a, atom in enumerate(flat(form.item)):
            value = f"row[{column} + 1 + j * {wide} + {a}]"
            if _optional(atom):
                lines += self._last_optional(atom, value, " + j", pad)
            elif isinstance(atom, Atom):
                number = f"_place({self.p.places.enum(atom)}, {value})" if atom.kind == "text" else value
                lines.append(f"{pad}s[{self._ident(atom.leaf.name)} + j] = {number}")
            else:
                raise Unsupported(None, "a part of a move of repeated parts that is not single values")
        return lines

    def then(self, me: str, steps: dict, own: dict | None = None, has_me: str = "1", me_seat: str | None = None,
             is_pass: str = "0") -> list:
        """Lines sending play on after a move or outcome at one of `steps`: after draws chance() asked for (the
        mover `me_seat`, else `me`), else where goto() said, else the move's own next (`own`: kind -> the step's
        index), else by the step's next (worked out for the seat `me`)."""
        lines = self.calls.then(me_seat or me, has_me, is_pass) if self.calls.active else []
        lines += ["    g = s[X_goto]", "    if g:", "        s[X_goto] = 0", "        go(s, g - 1)", "        return"]
        for kind, target in (own or {}).items():
            lines += [f"    if k == {kind}:", f"        go(s, {target})", "        return"]
        for name in steps:
            lines.append(f"    if st == {self.t.step_index[name]}:")
            lines.append(f"        go(s, N_{self.t.step_index[name]}(s, {me}))")
        return lines

    def _rule_of_kind(self, kind):
        """The model's rule of a move kind made by a seat (a move, or a step's pass)."""
        if kind.path[0] == "moves":
            return self.rules.moves[kind.label]
        return self.rules.steps[kind.path[2]].pass_rule

    def _plan(self, kind):
        if kind.path[0] == "moves":
            return self.ir.moves[kind.label]
        if kind.label.endswith(".outcome"):
            return self._step(kind.path[2]).chance.outcomes
        return self._step(kind.path[2]).passing

    def _ident(self, leaf: str) -> str:
        return self.packing.fields[leaf].ident

    # -- the flow machine -----------------------------------------------------------------------------------------
    def _flow(self) -> str:
        parts = []
        for name, step in self.ir.steps.items():
            lines = [f"@_jit\ndef N_{self.t.step_index[name]}(s, me):"]
            for branch in step.next:
                target = len(self.steps) if branch.to == "end_turn" else self.t.step_index[branch.to]
                if branch.test is None:
                    lines.append(f"    return {target}")
                    break
                lines += [f"    if {self.p.scalar(branch.test, {})}:", f"        return {target}"]
            else:  # no next, or none of its cases holds: the turn ends (as model/compile_flow.py's _next)
                lines.append(f"    return {len(self.steps)}")
            parts.append("\n".join(lines))
        auto = [name for name, step in self.ir.steps.items() if step.kind == "auto"]
        for name in auto:  # an automatic step's effects, then where goto() said, else its next
            index = self.t.step_index[name]
            env = {}
            body = [line for stmt in self._step(name).effects.get("do", ()) for line in self.p.st(stmt, env, "    ")]
            asked = [f"    if s[X_asked]:\n        g = s[X_goto]\n        s[X_goto] = 0\n"
                     f"        return called(s, g - 1, {index}, 0, 0, 0)"] if self.calls.active else []
            parts.append("\n".join([f"@_jit\ndef U_{index}(s):", "    me = s[O_player]", *body, *asked,
                                    "    g = s[X_goto]", "    if g:", "        s[X_goto] = 0", "        return g - 1",
                                    f"    return N_{index}(s, me)"]))
        dispatch = [f"    {'if' if i == 0 else 'elif'} st == {self.t.step_index[name]}:\n"
                    f"        return U_{self.t.step_index[name]}(s)" for i, name in enumerate(auto)]
        parts.append("\n".join(["@_jit\ndef automatic(s, st):", *dispatch, "    return -1"]))
        start = self.t.step_index[self.rules.turn_start]
        winners = self.layout.slots["winners"].form
        listed = _member(winners, Many)
        parts.append(self._next_player())
        # (the draws a move asked for by chance() are the move's: the end is not asked while they wait)
        waiting = "s[O_calls_draws_len] == 0" if self.calls.active else "True"
        parts.append(GO.format(turn_start=start, capped_tag=listed, no_draws_waiting=waiting,
                               error=self.m.error("the flow went round automatic steps without reaching a decision",
                                                  ("flow",))))
        return "\n\n\n".join(parts)

    def _next_player(self) -> str:
        """`next_player(s)`: the seat whose turn comes next (flow: next_player, worked out with `me` the player whose
        turn ends; else the next seat round the table), checked to be a seat as the Python engine checks it."""
        node = self.ir.exprs.get(("flow", "next_player"), [None])[0]
        if self.rules.next_player is None:
            return "@_jit\ndef next_player(s):\n    return (s[O_player] + 1) % NS"
        kinds = {t.name for t in node.type.items} if node is not None and node.type.name == "union" else \
            {node.type.name if node is not None else "any"}
        if not kinds <= {"int", "seat", "cell"}:
            raise Unsupported(self._at(("flow", "next_player")), "flow: next_player that is not a whole number")
        error = self.m.code("the player whose turn it is became {0}, which is no seat", ("flow", "next_player"),
                            f"seats are 0 to {self.t.seats - 1}")
        return "\n".join(["@_jit", "def next_player(s):", "    me = s[O_player]",
                          f"    p = {self.p.scalar(node, {})}", "    if p < 0 or p >= NS:",
                          f"        raise ValueError({error!r}, p)", "    return p"])

    # -- the end --------------------------------------------------------------------------------------------------
    def _end(self) -> str:
        winners, ended = self.layout.slots["winners"].form, self.layout.slots["ended_by"].form
        lines = ["@_jit", "def check_end(s):", "    me = s[O_player]"]
        for number, end in enumerate(self.ir.end):
            if end.no_moves is not None:  # (asked where a seat has no move: see _no_moves)
                continue
            lines.append(f"    if {self.p.scalar(end.when, {})}:")
            if end.winners is None:
                draw = self.rules.end_rules[number].ties == "draw"
                lines.append(f"        w = by_score(s, {draw})")
            else:
                code, rep = self.p.ex(end.winners, {})
                lines.append(f"        w = {code if rep == 'a' else f'_single({code})'}")
            lines += [f"        {line}" for line in self.calls.ended(end)]  # draws waiting: an error, not dropped
            lines += [f"        _won(s, w, {_member(winners, Many)}, {_member(ended, Atom)}, {number})",
                      "        return True"]
        lines.append("    return False")
        return "\n".join(lines)

    def _no_moves(self) -> str:
        winners, ended = self.layout.slots["winners"].form, self.layout.slots["ended_by"].form
        return no_moves_source(self, _member(winners, Many), _member(ended, Atom))

    def _by_score(self) -> str:
        scoring = self.ir.scoring
        if Fractions(self.p).scoring(self.ir):  # a score or tiebreak that is a fraction (fractional.py)
            return Fractions(self.p).by_score(self.ir)
        score = "0"
        if scoring.get("score") is not None:
            score = self._per_player(scoring["score"], "i")
        tiebreak = None
        if scoring.get("tiebreak") is not None:
            tiebreak = self._per_player(scoring["tiebreak"], None)
        return BY_SCORE.format(score=score, tiebreak="True" if tiebreak else "False",
                               compare=f"_compare({tiebreak}(s, p), {tiebreak}(s, top))" if tiebreak else "0")

    def _per_player(self, node, rep) -> str:
        """A function of (s, me) for a scoring expression; its name, called with the player as `me`."""
        code, got = self.p.ex(node, {})
        if rep is not None and got != rep or got == "a2":
            raise Unsupported(self.m.locate(node), "a score that is not a whole number")
        name = f"S_{len(self.m.functions)}"
        wrap = f"_single({code})" if got == "i" and rep is None else code
        self.m.functions[("score", id(node))] = (name, f"@_jit\ndef {name}(s, me):\n    return {wrap}")
        return f"{name}(s, p)" if rep == "i" else name


    def _own_returns(self) -> str:
        """OWN_RETURNS, whether the file gives `scoring: returns`, and own_returns(s, into), which writes each seat's
        (engine/state.py returns(); `returns` calls it once the game has ended): whole numbers, as floats."""
        node = self.ir.scoring.get("returns")
        if node is None:
            return "OWN_RETURNS = False\n\n\n@_jit\ndef own_returns(s, into):\n    return"
        if Fractions(self.p).kind(node) == FRACTION:
            return Fractions(self.p).own_returns(node)
        code, got = self.p.ex(node, {})
        if got != "i" or node.type.name != "int":  # (a float, or a value that may be none, true or false)
            raise Unsupported(self.m.locate(node), "returns that are not always whole numbers")
        return ("OWN_RETURNS = True\n\n\n@_jit\ndef own_returns(s, into):\n    for me in range(NS):\n"
                f"        into[me] = {code}")

    # -- chance ---------------------------------------------------------------------------------------------------
    def _chance(self) -> str:
        """Each chance step's draw and its outcome applied, and `chance`, which the playout loop calls at a chance
        step: the outcome's row (its kind, then its arguments) written to `row`; the items an arrangement draws
        written to `drawn` from `at`, and how many they are."""
        parts, lines = [], ["@_jit", "def chance(s, rng, drawn, at, out, row):", "    st = s[O_step]"]
        for name, arrangement in self.arrangements.items():
            index = self.t.step_index[name]
            parts.append(arrangement.source(index))
            lines += [f"    if st == {index}:", f"        if at + {arrangement.size} > drawn.shape[0]:",
                      "            return -1  # no room left: the playout hands back for a fresh buffer",
                      f"        order = drawn[at:at + {arrangement.size}]",
                      f"        D_{index}(s, rng, order)", f"        row[0] = {self.kind_index[name + '.arrangement']}",
                      f"        E_{index}(s, {CHANCE_SEAT}, order)", f"        return {arrangement.size}"]
        for name, step in self.ir.steps.items():
            if step.kind == "chance" and step.chance.kind == "draw":
                index = self.t.step_index[name]
                self.draws[name] = Draw(self, name)
                parts.append(self.draws[name].source(index))
                lines += [f"    if st == {index}:", f"        return DR_{index}(s, rng, drawn, at, row)"]
            elif step.kind == "chance" and name not in self.arrangements:
                index = self.t.step_index[name]
                parts.append(Outcomes(self, name).source(index))
                lines += [f"    if st == {index}:", f"        P_{index}(s, rng, out, row)", "        return 0"]
        lines += ["    if st >= 0:  # (always: the return after it types the function)",
                  "        " + self.m.error("no outcome is drawn at this step", ("flow",)), "    return 0"]
        return "\n\n\n".join(parts + ["\n".join(lines)])


class Arrangement:
    """A chance step drawing an arrangement of a fixed list of items (numbers, or texts by their numbers): its
    requirements, its draw (engine/arrange.py's, bit for bit) and its effects, printed."""

    def __init__(self, program, name):
        self.program, self.name = program, name
        step, p = program.ir.steps[name], program.p
        chance, self.decl = step.chance, step.decl
        items = chance.exprs["arrangement"]
        if not all(getattr(n, "const", True) for n in N.walk(items) if isinstance(n, N.Ref)) or any(
                isinstance(n, N.Call) and not (n.target == "builtin" and getattr(program.ir.builtins.get(n.func),
                                                                                 "fold", False))
                for n in N.walk(items)):
            raise Unsupported(program.m.locate(items), "an arrangement of items that depend on the position")
        model = program.rules.steps[name].arrangement
        try:
            values = list(model.items(program.game.new_initial_state(0), CHANCE_SEAT))
        except (RulesDslError, TypeError):
            raise Unsupported(program.m.locate(items), "an arrangement of items that are not a list") from None
        if all(isinstance(v, str) for v in values):
            self.numbers = [program.m.text(v) for v in values]
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            self.numbers = [int(v) for v in values]
        else:
            raise Unsupported(program.m.locate(items), "an arrangement of items that are not all numbers or all texts")
        self.values = dict(zip(self.numbers, values))  # number -> the item, as the Python engine holds it
        self.number_of = dict(zip(values, self.numbers))
        self.size = len(values)
        self.shape = two_kinds(values)
        if self.shape is not None and self.size > 64:
            raise Unsupported(program.m.locate(items), "an arrangement of more than 64 items of two kinds")
        env = {"outcome": ("outcome", "a")}
        self.tests = [p.scalar(check.test, env) for check in chance.require]
        self.effects = [line for stmt in chance.effects for line in p.st(stmt, env, "    ")]
        self.error = program.m.error("no arrangement meets the requirements", step.decl)

    def source(self, index: int) -> str:
        accept = ["@_jit", f"def Q_{index}(s, me, outcome):"]
        accept += [f"    if not {test}:\n        return False" for test in self.tests] + ["    return True"]
        if self.shape is not None:
            kinds, n, count = self.shape
            first, second = (self.number_of[k] for k in kinds)
            mask = (1 << n) - 1
            draw = TWO_KINDS.format(index=index, fields=64 // n, n=n, mask=mask, count=count, first=first,
                                    second=second, tries=TRIES, error=self.error)
        else:
            draw = SHUFFLED.format(index=index, items=self.program.m.table(("arrangement", self.name), self.numbers),
                                   tries=TRIES, error=self.error)
        apply = [f"@_jit\ndef E_{index}(s, me, outcome):", "    st = s[O_step]", "    s[X_rule] = 0",
                 "    s[X_turn] = s[O_turn]", "    s[O_ply] += 1", *self.program.positions.leave(), *self.effects,
                 *self.program.then("s[O_player]", {self.name: None}, me_seat=str(CHANCE_SEAT))]
        return "\n\n\n".join(["\n".join(accept), draw, "\n".join(apply)])

    def move(self, drawn) -> tuple:
        """The outcome (the items drawn, as the Python engine holds them) of numbers `drawn`."""
        return tuple(self.values[int(n)] for n in drawn)


TWO_KINDS = '''@_jit
def D_{index}(s, rng, order):
    tries = {tries}
    while True:
        w = _rt.next64(rng, 0)
        for f in range({fields}):
            x = (w >> np.uint64(64 - {n} * (f + 1))) & np.uint64({mask})
            if _rt.ones(x) == {count}:
                _rt.fill(order, x, {n}, {first}, {second})
                if Q_{index}(s, -1, order):
                    return
                tries -= 1
                if tries <= 0:
                    {error}'''

SHUFFLED = '''@_jit
def D_{index}(s, rng, order):
    _rt.copy_into(order, {items})
    for _ in range({tries}):
        _rt.shuffle(rng, 0, order)
        if Q_{index}(s, -1, order):
            return
    {error}'''


def _ordered(pending: list, env: dict, names: set) -> list:
    """The lets and checks still to place, in the order the Python engine runs those its bound names allow
    (model/compile_moves.py _Level): first the checks that read no let still to come, then each let followed by the
    checks it was the last let for; what is not ready yet after them, in its order."""
    def reads(item) -> set:
        node = item[2].value if item[0] == "let" else item[2].test
        return {n.name for n in N.walk(node) if isinstance(n, N.Ref) and n.kind in ("param", "let")} & names

    bound, order, rest = set(env), [], list(pending)
    while True:
        ready = [x for x in rest if x[0] == "check" and not reads(x) - bound]
        lets = [x for x in rest if x[0] == "let"]
        order += ready
        rest = [x for x in rest if not any(x[:2] == r[:2] for r in ready)]
        if not lets or reads(lets[0]) - bound:
            return order + rest
        order.append(lets[0])
        rest = [x for x in rest if x[:2] != lets[0][:2]]
        bound.add(lets[0][2].name)


def _worked_once(once: dict, domain: str, lines: list) -> str:
    """The name holding the list `domain` (code reading only the state and `me`) in a listing: the first loop over
    it works it out, later loops of the listing read it again (listing changes nothing it reads)."""
    if domain not in once:
        once[domain] = f"h{len(once)}"
        lines.append(f"    {once[domain]} = {domain}")
    return once[domain]


def _member(form, cls) -> int:
    """The tag of a OneOf's member of class `cls`."""
    if not isinstance(form, OneOf):
        raise Unsupported(None, "the engine's own fields are not in the layout this backend reads")
    return next(i for i, m in enumerate(form.members) if isinstance(m, cls))


HEADER = '''"""Generated by rulesdsl's compiled backend from a game's IR: read it, do not edit it."""

import numpy as np
from numba import njit

from rulesdsl.backends.compiled import runtime as _rt

# cached when read from a file; no C-callable wrapper (nothing takes their address: it would cost compile time);
# typed by the types of the arguments passed, not their values (see runtime.compiled)
_jit = _rt.compiled(boundscheck=True, cache="__file__" in globals(), nogil=True, no_cfunc_wrapper=True)
# the checks every index passes are inlined where used: a call between compiled functions is otherwise a real call
_tiny = njit(boundscheck=True, cache="__file__" in globals(), nogil=True, no_cfunc_wrapper=True, inline="always")


def _table(rows, dims):
    return np.array(rows, dtype=np.int64) if rows else np.zeros((0,) * dims, np.int64)

'''

HELPERS = '''

@_tiny
def _cell(c):
    if c < 0 or c >= NC:
        raise IndexError("no such cell")
    return c


@_tiny
def _seat(p):
    if p < 0 or p >= NS:
        raise IndexError("no such seat")
    return p


@_tiny
def _piece(k):
    if k <= 0:
        raise IndexError("the attribute of no piece")
    return k


@_jit
def _place(values, v):
    for i in range(values.shape[0]):
        if values[i] == v:
            return i
    raise IndexError("a value the piece's attribute does not declare")


@_tiny
def _seat_at(i):
    if i < -NS or i >= NS:
        raise IndexError("no such seat")
    return i % NS


@_tiny
def _row(rows, i):
    if i < -rows.shape[0] or i >= rows.shape[0]:
        raise IndexError("index out of range")
    return rows[i]


@_tiny
def _fits(x, low, high, code):
    if x < low or x > high:
        raise ValueError(code, x)
    return x


@_tiny
def _item(xs, i):
    if i < -xs.shape[0] or i >= xs.shape[0]:
        raise IndexError("index out of range")
    return xs[i]


@_tiny
def _divided(a, b, remainder):
    if b == 0:
        raise ZeroDivisionError("division by zero")
    return a % b if remainder else a // b


@_jit
def _grown(out):
    bigger = np.empty(2 * out.shape[0], np.int64)
    bigger[:out.shape[0]] = out
    return bigger


@_jit
def _none():
    return np.empty(0, np.int64)


@_jit
def _single(x):
    out = np.empty(1, np.int64)
    out[0] = x
    return out


@_jit
def _contains(xs, x):
    return _rt.contains(xs, x)


@_jit
def _max_of(xs, default, has_default):
    return _rt.max_of(xs, default, has_default)


@_jit
def _max_or(xs, code):
    if xs.shape[0] == 0:
        raise ValueError(code)
    return _rt.max_of(xs, 0, True)[0]


@_tiny
def _direction(text):
    if text < 0:
        return -1
    d = TEXT_DIRECTION[text]
    if d < 0:
        raise IndexError("unknown direction")
    return d


@_tiny
def _step(rays, lengths, c, d):
    if c < 0 or d < 0:
        return -1
    c = _cell(c)
    return rays[d, c, 0] if lengths[d, c] > 0 else -1


@_jit
def _occupied(s):
    out = np.empty(NC, np.int64)
    n = 0
    for c in range(NC):
        if s[O_cells + c] != 0:
            out[n] = c
            n += 1
    return out[:n]


@_jit
def _owned(s, owner, p):
    out = np.empty(NC, np.int64)
    n = 0
    for c in range(NC):
        if owner[s[O_cells + c]] == p:
            out[n] = c
            n += 1
    return out[:n]


@_jit
def _group_sizes(cells, adjacency):
    return _rt.group_sizes(cells, adjacency)


@_jit
def _push_targets(s, base, rays, lengths, direction, frm, within):
    return _rt.push_targets(s, base, rays, lengths, direction, frm, within)


@_jit
def _push(s, base, rays, lengths, frm, to):
    return _rt.push(s, base, rays, lengths, frm, to)


@_jit
def _compare(a, b):
    return _rt.compare(a, b)


@_jit
def _won(s, winners, list_tag, int_tag, rule):
    w = _rt.sorted_set(winners)
    for i in range(w.shape[0]):
        _seat(w[i])
    s[O_winners_tag] = list_tag
    s[O_winners_list_len] = w.shape[0]
    for i in range(NS):
        s[O_winners_list + i] = w[i] if i < w.shape[0] else 0
    s[O_ended_by_tag] = int_tag
    s[O_ended_by_int] = rule
    s[O_terminal] = 1
'''

GO = '''@_jit
def go(s, target):
    moved = s[O_ply] > 0 and s[O_last_row] == s[O_ply] - 1  # a seat's move brought play here
    passes = 0  # turns passed in a row by seats with no legal move
    for _ in range(10000):
        if target == END_TURN:
            if s[O_ply] and check_end(s):
                return
            moved = False  # once the turn has passed, the end is asked at its end only
            s[O_player] = next_player(s)
            s[O_turn] += 1
            target = {turn_start}
            if s[O_turn] >= MAX_TURNS:
                s[O_step] = target
                s[O_terminal] = 1
                s[O_capped] = 1
                s[O_winners_tag] = {capped_tag}
                s[O_winners_list_len] = 0
                return
        s[O_step] = target
        if AUTO[target]:
            s[X_goto] = 0
            target = automatic(s, target)
            continue
        if moved and {no_draws_waiting} and check_end(s):  # play waits here, in the turn of a seat's move
            return
        if KIND[target] == 0 and no_moves(s, target, passes + 1) == 2:
            passes += 1
            target = END_TURN
            continue
        return
    {error}'''

BY_SCORE = '''@_jit
def scores(s, into):
    """Each seat's score (state.scores()), when the rules score whole numbers."""
    for p in range(NS):
        into[p] = {score}


@_jit
def by_score(s, draw):
    scores = np.empty(NS, np.int64)
    for p in range(NS):
        scores[p] = {score}
    best = _rt.largest(scores)
    top = -1
    count = 0
    for p in range(NS):
        if scores[p] == best:
            count += 1
            if top < 0:
                top = p
    keep = np.zeros(NS, np.bool_)
    for p in range(NS):
        keep[p] = scores[p] == best
    if count > 1 and {tiebreak}:
        for p in range(NS):
            if keep[p] and {compare} > 0:
                top = p
        count = 0
        for p in range(NS):
            keep[p] = keep[p] and {compare} == 0
            count += keep[p]
    out = np.empty(NS, np.int64)
    n = 0
    if count > 1 and draw:
        return out[:0]
    for p in range(NS):
        if keep[p]:
            out[n] = p
            n += 1
    return out[:n]'''

def playout_source(simultaneous: bool, counted: bool) -> str:
    """The module's play loop and what it calls (decider, logged, returns); the parts for simultaneous steps, and
    for keeping the positions left, only where the game has them: numba types and compiles every branch, dead or
    not, and they cost seconds."""
    return (DECIDER_SIMUL if simultaneous else DECIDER) + PLAYOUT.replace(
        "        #SIMULTANEOUS\n", PLAYOUT_SIMUL if simultaneous else "").replace(
        "        #ROOM\n", PLAYOUT_ROOM if counted else "")


# room for the key of the position each move leaves (positions.py): a playout of its own copy makes it; one in place
# hands back (as with a full log) to the caller, which made room for the moves it asked for and makes more
PLAYOUT_ROOM = """            if TAIL + s[POSITIONS] + ROOM_AHEAD > s.shape[0]:
                if not seeds.shape[0]:
                    why = 3
                    break
                s = _rt.with_room(s, POSITIONS, TAIL, ROOM_AHEAD)
"""

DECIDER = """@_jit
def decider(s):
    if ACTED[s[O_step]]:
        return actor(s)
    return s[O_player]
"""

DECIDER_SIMUL = """@_jit
def decider(s):
    if SIMUL[s[O_step]]:
        return first_waiting(s)
    if ACTED[s[O_step]]:
        return actor(s)
    return s[O_player]
"""

PLAYOUT = """

@_jit
def logged(log, done, seat, row):
    \"\"\"Row `done` of a playout's log: the seat (-1 for chance), then the move or the outcome's row.\"\"\"
    log[done, 0] = seat
    for j in range(W):
        log[done, 1 + j] = row[j]
    log[done, W + 1] = 0
    log[done, W + 3] = 0


@_jit
def playout(start, seeds, rng, max_steps, out, log, drawn, keep, shared, plies, results):
    \"\"\"Random moves from the seats' streams rng[1 + seat] (with `shared`, from rng[0] as well) and chance outcomes
    from rng[0]. With no `seeds`: from `start`, in place, until the end (0), max_steps (2) or the end of the log
    (3): (moves made, why it stopped, the row of the last seat's move or -1). With `keep`, each is written to a row
    of `log` (the seat, then the move; an outcome drawn: -1, its kind, then where its items start in `drawn`), then
    who sees it (see X_seen), then the number of moves the seat chose among (0 for an outcome), then 1 for a choice
    at a simultaneous step. With `seeds`: a whole playout from a copy of `start` for each seed (the state's own
    stream keyed by it, counter 0), the streams in `rng` running on from one to the next: each one's moves in
    `plies`, what each seat got in `results`. (One function for both: numba compiles each function with all it
    calls, so a second loop calling this one would cost the game's whole compile again.)\"\"\"
    row = np.empty(W, np.int64)
    done = 0
    why = 0
    last = -1
    for g in range(max(seeds.shape[0], 1)):
        s = start
        if seeds.shape[0]:
            s = start.copy()
            s[O_rng] = seeds[g]
            s[O_rng + 1] = 0
        done = 0
        at = 0
        why = 0
        last = -1
        while not s[O_terminal]:
            if done >= max_steps:
                why = 2
                break
            if keep and done >= log.shape[0]:
                why = 3
                break
        #ROOM
            if KIND[s[O_step]] != 0:
                s[X_seen] = 0
                size = chance(s, rng, drawn, at if keep else 0, out, row)
                if size < 0:  # no room left in `drawn`: nothing was drawn
                    why = 3
                    break
                if keep:
                    logged(log, done, -1, row)
                    log[done, W + 1] = s[X_seen]
                    log[done, W + 2] = 0
                    if size:
                        log[done, 2] = at
                    at += size
                done += 1
                continue
        #SIMULTANEOUS
            me = decider(s)
            n = legal(s, me, out)
            k = _rt.below(rng, 0 if shared else 1 + me, n)
            apply(s, out[k], me)
            if keep:
                logged(log, done, me, out[k])
                log[done, W + 2] = n
            last = done
            done += 1
        if seeds.shape[0]:
            plies[g] = s[O_ply]
            returns(s, results[g])
    return done, why, last


@_jit
def returns(s, into):
    \"\"\"What each seat gets at the end (engine/state.py returns()): 1 each winner, -1 the others; a lone seat that
    neither won nor drew -1; else 0 each (0 too before the end).\"\"\"
    into[:] = 0.0
    if not s[O_terminal]:
        return
    if OWN_RETURNS:  # the file's `scoring: returns`
        own_returns(s, into)
        return
    n = s[O_winners_list_len] if s[O_winners_tag] else 0
    if n > 0:
        into[:] = -1.0
        for i in range(n):
            into[_seat(s[O_winners_list + i])] = 1.0
        return
    if NS == 1 and not s[O_capped] and not (s[O_ended_by_tag] and DRAWN[s[O_ended_by_int]]):
        into[0] = -1.0"""

PLAYOUT_SIMUL = """            if SIMUL[s[O_step]]:  # every waiting seat chooses before any choice is applied (engine/play.py)
                w = waiting(s)
                m = min(w.shape[0], max_steps - done, log.shape[0] - done if keep else w.shape[0])
                if m == 0:
                    first_waiting(s)
                rows = np.empty((m, W), np.int64)
                among = np.empty(m, np.int64)
                for i in range(m):
                    n = legal(s, w[i], out)
                    among[i] = n
                    _rt.copy_into(rows[i], out[_rt.below(rng, 0 if shared else 1 + w[i], n)])
                for i in range(m):
                    apply(s, rows[i], w[i])
                    if keep:
                        logged(log, done, w[i], rows[i])
                        log[done, W + 2] = among[i]
                        log[done, W + 3] = 1
                    last = done
                    done += 1
                continue
"""
