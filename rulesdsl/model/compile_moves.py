"""Compiling moves: parameter loops with hoisted conditions, effects, notation templates, compound parts."""

from __future__ import annotations

import re

from ..errors import close_names, suggestion
from ..lang import ast as A
from ..lang.compiler import CompileProblem, Scope, local
from ..lang.parser import SyntaxProblem, parse
from .compile_support import _FAIL, _flatten, _ident
from .parts import compound
from .rules import InternedMoves, Move, MoveRule
from .values import text_of

_UNKNOWN = ("unknown_function", "unknown_attribute", "unknown_option")  # names notation may lack, besides plain ones


class MoveCompiler:
    """Part of ModelCompiler: compiling moves."""

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
        base = rule.inputs + rule.params + rule.lets
        parts = []
        for i, spec in enumerate(rule.part_specs):
            path = rule.path + ("parts", i)
            spec = spec or {}
            target = self.rules.moves.get(spec.get("move"))
            if target is None:
                self.unknown(path + ("move",), f"no move named '{spec.get('move')}'", spec.get("move"), self.rules.moves)
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
        # moves are interned: moves_of[a][b]... is the Move with args (a, b, ...), made on first use
        interned = "moves_of" + "".join(f"[L_{a}]" for a in own)
        collect_body = ["append = out.append", f"moves_of = I_{rule_name}[me]"] + loops + [
            indent + "try:", indent + f"    append({interned})",
            indent + "except TypeError:  # unhashable args: a move of its own",
            indent + f"    append(NEW(MOVE, ({rule_name}, {arg_code}, me)))"]
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
            self.namespace[f"I_{rule_name}"] = InternedMoves(rule, len(own))
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
                # notation is printed without a state: names read from it (vars, zones, player, turn) are out
                no_state = Scope({n: b for n, b in _flatten(scope).items()
                                  if b.kind not in ("var", "zone") and not re.search(r"\bS\b", b.code)})
                saved = {n: b for n, b in self.builtins.items() if b.state}
                for n in saved:
                    del self.builtins[n]
                try:
                    code = self.compiler.expr(node, no_state)
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
                if exc.code == "unknown_name":  # the names notation may use are fewer than the move's
                    usable = sorted(n for n, b in _flatten(scope).items() if b.kind == "local")
                    close = close_names(exc.fields["name"], usable)
                    fields = dict(fields, candidates=close)
                    hint = suggestion(close) or "notation may use only the move's params and lets" + \
                        (f" ({', '.join(usable)})" if usable else "") + " and 'me'"
                elif exc.code in _UNKNOWN:
                    hint = (hint + "; " if hint else "") + "notation may use only the move's params, lets and 'me'"
                self.problems.append(self.doc.problem(path, exc.message, hint, offset=j + 1 + exc.start,
                                                      width=max(1, exc.end - exc.start), code=exc.code, fields=fields))
                return _FAIL
            parts.append(f"F_text({code})")
            i = k + 1
        self.namespace["F_text"] = text_of
        return f"''.join(({''.join(p + ', ' for p in parts)}))" if parts else "''"  # flat: any number of fields

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
