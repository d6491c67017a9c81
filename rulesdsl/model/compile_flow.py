"""Compiling the flow: steps (decisions, chance, simultaneous, automatic), their next steps and passes."""

from __future__ import annotations

import re
from dataclasses import replace

from ..lang import types as T
from ..lang.compiler import Scope, built, local
from ..lang.emit import If, Return, expressions
from ..lang.parser import SyntaxProblem, parse
from ..limits import MAX_TURNS_CAP
from .compile_support import _FAIL, _ident
from .refill import refilled, refilling
from .game import Rules
from .rules import END_TURN, Arrangement, Draw, MoveRule, Step

_OUTCOME_FIELD = re.compile(r"\{\s*outcome\s*\}")


def _constant_target(value) -> str | None:
    """The step a 'next' always leads to (None when it depends on the state)."""
    return END_TURN if value is None else value if isinstance(value, str) else None


def _reads_state(fn) -> bool:
    """Whether a generated function's body mentions the state S (every state access goes through it)."""
    return any(re.search(r"\bS\b", code) for code in expressions(fn.tree.body))


class FlowCompiler:
    """Part of ModelCompiler: compiling the flow.

    It works on ModelCompiler's state, declared here: it reads the rule document and the top scope, and fills
    in the rules' steps and flow, through ModelCompiler's methods (problem, expr, function, move_rule...).
    """

    data: dict
    root: Scope
    rules: Rules

    def declare_steps(self, steps: dict) -> None:
        """The step names, and the inputs of each chance step, known before anything that names one compiles."""
        self.rules.steps = dict.fromkeys(steps)
        self.rules.chance_inputs = {name: [str(i) for i in spec.get("inputs") or []]
                                    for name, spec in steps.items() if isinstance(spec, dict) and "chance" in spec}

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
                self.unknown(("flow", key), f"no step named '{getattr(r, key)}'", getattr(r, key), steps)
            else:
                self._not_called_only(("flow", key), getattr(r, key))
        first = flow.get("first_player", 0)
        code = self.expr(("flow", "first_player"), first, self.root)
        r.first_player = None if code is _FAIL else self.lambda_("S, me", code, "flow first_player")
        nxt = flow.get("next_player")
        if nxt is not None:
            code = self.expr(("flow", "next_player"), nxt, self.root)
            r.next_player = None if code is _FAIL else self.lambda_("S, me", code, "flow next_player")
        r.max_turns = flow.get("max_turns")
        if isinstance(r.max_turns, int) and r.max_turns > MAX_TURNS_CAP:  # a game that never ends must stop soon
            r.warnings.append(replace(self.doc.problem(
                ("flow", "max_turns"), f"max_turns {r.max_turns:,} is more than a rule file may ask: games stop "
                f"after {MAX_TURNS_CAP:,} turns", "give more on the command line if you mean it (--max-turns N)",
                code="turn_cap_clamped", fields={"asked": r.max_turns, "limit": MAX_TURNS_CAP}), severity="warning"))
            r.max_turns, r.max_turns_clamped = MAX_TURNS_CAP, True
        self._automatic_loops(steps)
        self._called_steps()

    def _not_called_only(self, path, name) -> bool:
        """A problem, and False, when play would reach step `name` by `path` but it takes inputs (chance() only)."""
        if self.rules.chance_inputs.get(name):
            self.problem(path, f"step '{name}' takes inputs ({', '.join(self.rules.chance_inputs[name])}), so "
                         "play cannot simply go there", f"call it from effects: chance('{name}', ...)")
            return False
        return True

    def _called_steps(self) -> None:
        """The outcomes of each chance step that chance() calls return to the caller when it was called."""
        for name in sorted(self.rules.called):
            step = self.rules.steps.get(name)
            if step is None:
                continue
            if step.arrangement is not None:
                self.problem(step.path + ("chance",), f"step '{name}' draws an arrangement, which chance() cannot "
                             "call", "call a step with 'outcomes:' or 'draw:'")
            for rule in step.moves + ([step.draw.rule] if step.draw else []):
                rule.apply = _returning(rule.apply)
    def _automatic_loops(self, specs: dict) -> None:
        """Report automatic steps that go round for ever: each one's 'next' is a fixed automatic step and
        none of them can leave by goto() or stop at a chance step by chance() (or a procedure, which might)."""
        procedures = set(self.data.get("procedures") or {})

        def fixed_successor(name):
            step = self.rules.steps.get(name)
            spec = specs.get(name) or {}
            if step is None or step.kind != "auto" or step.next_target in (None, END_TURN):
                return None
            words = set(re.findall(r"[A-Za-z_]\w*", str(spec.get("do") or "")))
            return None if words & {"goto", "chance"} or words & procedures else step.next_target

        reported = set()
        for start in specs:
            path, name = [], start
            while name is not None and name not in path and name not in reported:
                path.append(name)
                name = fixed_successor(name)
            if name is None or name in reported or name not in path:
                reported.update(path)
                continue
            loop = path[path.index(name):]
            reported.update(path)
            self.problem(("flow", "steps", name, "next"), "the automatic steps " + " -> ".join(loop + [name]) +
                         " go round for ever: each one's 'next' is fixed and none can leave the loop",
                         "make a 'next' conditional (a list of {if: ..., to: ...}), or let the loop reach a "
                         "decision, chance or simultaneous step")

    def _next(self, path, value, scope, label: str):
        """Compile a step's 'next': a step name, or a list of {if, to} cases ending with {to}."""
        steps = self.rules.steps
        if value is None:
            return lambda S, me: END_TURN

        def check(name, p):
            if name != END_TURN and name not in steps:
                self.unknown(p, f"no step named '{name}'", name, list(steps) + [END_TURN])
                return False
            return self._not_called_only(p, name)

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
                body.append(If(code, [Return(repr(target))]))
            else:
                body.append(Return(repr(target)))
        if not body or not isinstance(body[-1], Return):  # the turn ends when no case applies
            body.append(Return(repr(END_TURN)))
        return self.function("next", "S, me", body, label) if ok else None

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
        label = f"step {name}"
        if "inputs" in spec and kind != "chance":
            self.problem(path + ("inputs",), "only a chance step takes inputs", "a chance step with inputs is "
                         "called from effects: chance('step', value, ...)")
        step.inputs = self.rules.chance_inputs.get(name, [])
        if step.inputs and "next" in spec:
            self.problem(path + ("next",), f"step '{name}' takes inputs, so it is only called, and play goes back "
                         "to its caller: it has no 'next'", "leave 'next' out; the caller's own 'next' follows")
        step.next = self._next(path + ("next",), spec.get("next"), self.root, label)
        step.next_target = _constant_target(spec.get("next"))
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
                            self.unknown(mpath, f"no move named '{mname}'", mname, declared,
                                         f"moves of this game: {', '.join(map(str, declared))}" if declared else
                                         "declare it under 'moves:'")
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
                                      self.root, label)
                if rule is not None:
                    rule.is_pass = True
                    if "next" in pass_spec:
                        rule.next = self._next(path + ("pass", "next"), pass_spec["next"], self.root, label)
                        rule.next_target = _constant_target(pass_spec["next"])
                    step.pass_rule = rule
        if spec.get("after"):
            move = built("move", 1)
            move.typed_by = self.record_of(lambda: step.moves)
            body = self.effects(path + ("after",), spec["after"], self.root.child(move=move))
            if body is not _FAIL:
                step.after = self.function(f"after_{_ident(name)}", "S, me, L_move", body, label)
        if kind == "decision":
            code = self.expr(path + ("actor",), spec.get("actor", "player"), self.root)
            step.actor = None if code is _FAIL else self.lambda_("S, me=None", code, label)
            step.turn_player_acts = spec.get("actor", "player") == "player"
        elif kind == "simultaneous":
            code = self.expr(path + ("actors",), spec.get("actors"), self.root)
            step.actors = None if code is _FAIL else self.lambda_("S, me=None", code, label)
            step.fixed_actors = self._fixed_seats(spec.get("actors"), step.actors)
            choices = built("choices", 2)  # records of the moves' values, in a list
            record = self.record_of(lambda: step.moves)
            choices.typed_by = lambda: T.list_(T.optional(record()), len(self.rules.player_names))
            scope = self.root.child(choices=choices)
            body = self.effects(path + ("resolve",), spec.get("resolve") or [], scope)
            if body is not _FAIL:
                step.effects = self.function(f"resolve_{_ident(name)}", "S, me, L_choices", body, label)
        elif kind == "auto":
            body = self.effects(path + ("do",), spec.get("do") or [], self.root.child())
            if body is not _FAIL:
                step.effects = self.function(f"auto_{_ident(name)}", "S, me", body, label)
        else:
            self._chance(path + ("chance",), step, spec["chance"] or {}, label)
        return step

    def _fixed_seats(self, text, actors) -> list | None:
        """The seats a simultaneous step's `actors` gives in every state, when it reads nothing of the state
        and gives a valid list of seats; else None (asked in each state, and checked there)."""
        try:
            reads = self._read_analysis().of(parse(text)) if actors is not None and isinstance(text, str) else None
        except SyntaxProblem:
            return None
        if reads is None or reads.parts or reads.flow:
            return None
        try:
            seats = actors(None)
        except Exception:  # noqa: BLE001 - reported in play, where the error names the turn
            return None
        count = self.rules.num_players
        if isinstance(seats, (list, tuple, range)) and len(seats) and \
                all(type(p) is int and 0 <= p < count for p in seats):  # (none: refused in play, located)
            return list(seats)
        return None

    def _chance(self, path, step, spec, label: str):
        if spec.get("refill") is not None and "draw" not in spec:
            self.problem(path + ("refill",), "only a draw refills its pile: this step draws no items from a zone",
                         "refill: goes with draw: and from: (cards drawn from a zone)")
        if "arrangement" in spec:
            outcome = local("outcome")  # the items in the order drawn: a list of the arrangement's items
            items = self.expr(path + ("arrangement",), spec["arrangement"], self.root,
                              then=lambda t: setattr(outcome, "type", T.list_(T.item_type(t), t.high)))
            scope = self.root.child(outcome=outcome)
            require, codes = [], []
            for k, item in enumerate(spec.get("require") or []):
                text, why = (item.get("test"), item.get("why")) if isinstance(item, dict) else (item, None)
                cpath = path + ("require", k) + (("test",) if isinstance(item, dict) else ())
                code = self.expr(cpath, text, scope)
                if code is not _FAIL:
                    require.append((self.lambda_("S, me, L_outcome", code, label), why or str(text)))
                    codes.append(code)
            # all requirements in one function: each draw of the sampler costs one call
            accept = self.lambda_("S, me, L_outcome", " and ".join(f"({c})" for c in codes) or "True", label)
            fixed = None
            if spec.get("fixed") is not None:
                code = self.expr(path + ("fixed",), spec["fixed"], self.root)
                fixed = None if code is _FAIL else self.lambda_("S, me", code, label)
            body = self.effects(path + ("do",), spec.get("do") or [], scope.child())
            if items is _FAIL or body is _FAIL:
                return
            step.arrangement = Arrangement(self.lambda_("S, me", items, label), require, accept, fixed,
                                           self.function(f"arrange_{_ident(step.name)}", "S, me, L_outcome", body,
                                                         label),
                                           fixed_text=str(spec.get("fixed", "")), path=path, name=step.name)
        elif "outcomes" in spec:
            outcome = dict(spec["outcomes"] or {}, inputs=step.inputs)
            outcome.setdefault("weight", 1)
            rule = self.move_rule(path + ("outcomes",), step.name, outcome, self.root, label)
            if rule is not None:
                step.moves.append(rule)
                # outcomes that depend on what a call gives are listed for each call
                step.state_free = not step.inputs and not _reads_state(rule.generate) and \
                    not _reads_state(rule.weight)
                if not step.state_free and not step.inputs:
                    step.unchanged = self.unchanged(outcome, ("params", "let", "when", "weight"), label)
        elif "draw" in spec:
            self._draw(path, step, spec, label)
        else:
            self.problem(path, "a chance step needs 'outcomes:' (enumerated, with weights), 'draw:' (several items "
                         "at once) or 'arrangement:'")

    def _draw(self, path, step, spec, label: str) -> None:
        """A chance step drawing several items at once: its outcome is the multiset drawn (see engine/draws.py)."""
        inputs = {i: local(i) for i in step.inputs}
        self.typed_function(("inputs", step.name), list(inputs.values()))  # typed by the chance() calls
        given = self.root.child(**inputs)
        outcome = local("outcome")  # the items drawn
        scope = given.child(outcome=outcome)
        count = self.expr(path + ("draw",), spec["draw"], given)
        if "from" not in spec:
            self.problem(path, "a draw needs 'from:', the items it draws from",
                         "e.g. from: \"1..6\" with replace: true for dice, from: \"deck\" for cards")
        items = self.expr(path + ("from",), spec.get("from"), given,
                          then=lambda t: setattr(outcome, "type", T.list_(T.item_type(t)))) if "from" in spec else _FAIL
        template = str(spec.get("notation", step.name + " {outcome}"))
        note = self.template(path + ("notation",), template, scope)
        if note is not _FAIL and not _OUTCOME_FIELD.search(template):
            self.problem(path + ("notation",), "a draw's notation shows the items drawn as {outcome}",
                         f"e.g. notation: \"{step.name} {{outcome}}\"")
            note = _FAIL
        refill = None
        if spec.get("refill") is not None:
            refill = self.expr(path + ("refill",), spec["refill"], given)
            if spec.get("replace"):
                self.problem(path + ("refill",), "a draw with replacement never runs out: it has nothing to refill",
                             "refill: is for cards drawn from a zone (replace: false, the default)")
                refill = _FAIL
        body = self.effects(path + ("do",), spec.get("do") or [], scope.child())
        seen_by = None if spec.get("visible_to") is None else self.expr(path + ("visible_to",), spec["visible_to"], scope)
        if _FAIL in (count, items, note, body, seen_by, refill):
            return
        sig = "S, me" + "".join(f", L_{i}" for i in step.inputs)
        rule = MoveRule(step.name, path, ["outcome"], [], inputs=step.inputs, template=template,
                        notation_at=self.rules.where(path + ("notation",)))
        effects = self.function(f"draw_{_ident(step.name)}", sig + ", L_outcome", body, label)
        rule.apply = lambda S, me, *args: effects(S, me, *args[:-1], list(args[-1]))  # the effects change a list
        refill_of = None
        if refill is not None:
            refill_of = refilling(self.rules, self.lambda_(sig, items, label), self.lambda_(sig, refill, label))
            rule.apply = refilled(self.rules, rule.apply, self.lambda_(sig, items, label), refill_of)
        rule.note = self.function("note", "me" + sig[len("S, me"):] + ", L_outcome", [Return(note)], label)
        if seen_by is not None:
            rule.visible_to = self.lambda_(sig + ", L_outcome", seen_by, label)
        step.draw = Draw(self.lambda_(sig, items, label), self.lambda_(sig, count, label), bool(spec.get("replace")),
                         rule, refill_of)


def _returning(apply):
    """The effects of a called chance step's outcome: when the state stands at a call (see Position.calls), they
    start with no draw asked for, so that the engine goes on with the draws still waiting, then where the caller
    was going (unless these effects ask for more draws, or for another step)."""
    def run(S, me, *args):
        if S.calls:
            S.goto = (None,)
        apply(S, me, *args)
    return run
