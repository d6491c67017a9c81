"""Draws asked for by chance() in effects, printed for compiled code as the Python engine keeps them (engine/state.py
`_called`, `_resume`; model/builtins/flow.py `chance`).

The draws wait in the layout's `calls` fields: where play resumes (the step asked for by goto(), else the caller's
step, whether it was a pass, and its mover) and the draws in order, each its step and inputs, the first being the
one drawn at the current step. chance() writes a draw after those waiting and counts it in the scratch word
`asked`; an outcome drawn at a called step first takes its own draw off the front and sets the scratch word
`called`. When the effects end, `called()` puts the draws asked for before those still waiting and sends play to
the first one's step, or, with none left, empties the calls and resumes. At most limits.MAX_CALLS draws wait, as in
the Python engine: beyond that, the same located errors.
"""

from __future__ import annotations

from ...engine.state import DRAWS_WAITING_HINT, draws_waiting_message
from ...ir.layout import END_TURN
from ...ir import nodes as N
from ...ir.forms import Atom, OneOf
from ...limits import MAX_CALLS
from .unsupported import Unsupported


class Calls:
    """The `calls` fields of a game whose effects call chance(), and the code that keeps them."""

    def __init__(self, program):
        self.program = program
        rules, layout = program.rules, program.layout
        self.called = [s for s in rules.steps if s in rules.called]  # the tags of calls.draws.step
        self.active = bool(self.called)
        self.inputs = {}  # called step -> the identifiers of its inputs' columns
        if not self.active:
            return
        then, step, _, me, draws = layout.slots["calls"].form.items
        if not (isinstance(then, OneOf) and isinstance(me, OneOf) and isinstance(step, Atom)):
            raise Unsupported(None, "the engine's calls are not in the layout this backend reads")
        self.then_values, self.step_values = then.members[1].values, step.values
        for label, member in zip(draws.item.labels, draws.item.members):
            columns = []
            for atom in member.items:
                if not isinstance(atom, Atom) or atom.kind not in ("int", "bool"):
                    raise Unsupported(program.where(("flow", "steps", label, "inputs")),
                                      "a called chance step's input that is not a whole number")
                columns.append(program.packing.fields[atom.leaf.name].ident)
            self.inputs[label] = columns
        self.capacity = draws.capacity

    def step_of_draw(self, name: str) -> int:
        """The tag calls.draws.step gives a draw at step `name`."""
        return self.called.index(name)

    # -- chance() in effects ------------------------------------------------------------------------------------
    def ask(self, printer, call, env) -> list:
        """The lines of chance('step', inputs...): a draw written after those waiting, and counted."""
        name = call.args[0].value if call.args and isinstance(call.args[0], N.Const) else None
        if name not in self.inputs or call.kwargs or len(call.args) - 1 != len(self.inputs[name]):
            raise printer.unsupported(call, "chance() of a step worked out while playing")
        values = [printer.scalar(arg, env) for arg in call.args[1:]]
        at = call.at[0]
        lines = ["a = s[X_asked]", f"if a >= {MAX_CALLS}:",
                 "    " + printer.m.error(f"chance(): more than {MAX_CALLS:,} draws asked for at once", at),
                 "q = s[O_calls_draws_len] + a",
                 f"if q < {self.capacity}:", f"    s[O_calls_draws_step + q] = {self.step_of_draw(name)}"]
        lines += [f"    s[{column} + q] = {value}" for column, value in zip(self.inputs[name], values)]
        return lines + ["s[X_asked] = a + 1"]

    def prologue(self) -> list:
        """The first lines applying an outcome at a called step: when it stands at a call, its own draw leaves the
        front of those waiting (the Python engine's effects then start with no draw asked for)."""
        columns = ["O_calls_draws_step", *(c for cs in self.inputs.values() for c in cs)]
        lines = ["    n = s[O_calls_draws_len]", "    if n > 0:", "        s[X_called] = 1",
                 "        s[O_calls_draws_len] = n - 1", "        for j in range(n - 1):"]
        lines += [f"            s[{c} + j] = s[{c} + j + 1]" for c in columns]
        return lines + [f"        s[{c} + n - 1] = 0" for c in columns]

    def then(self, me: str, has_me: str, is_pass: str) -> list:
        """Lines sending play on after effects that asked for draws, or that were an outcome at a call."""
        return ["    if s[X_asked] or s[X_called]:", "        g = s[X_goto]", "        s[X_goto] = 0",
                f"        go(s, called(s, g - 1, st, {is_pass}, {me}, {has_me}))", "        return"]

    def ended(self, end) -> list:
        """Lines refusing the end of the game at end rule `end` (IR) while draws wait, with the Python engine's
        located error (engine/state.py `_no_draws_waiting`): one code per step the next draw may be at."""
        if not self.active:
            return []
        m = self.program.m
        lines = ["n = s[O_calls_draws_len]", "if n > 0:", "    k = s[O_calls_draws_step]"]
        for k, name in enumerate(self.called):
            code = m.code(draws_waiting_message(name, "{0}"), end.decl, DRAWS_WAITING_HINT)
            raised = f'raise ValueError("{code}", n)'
            lines += [f"    if k == {k}:", f"        {raised}"] if k < len(self.called) - 1 else [f"    {raised}"]
        return lines

    # -- the module's function ------------------------------------------------------------------------------------
    def source(self) -> str:
        """called(s, then, st, is_pass, me, has_me): the step play goes to once effects at step `st` that asked for
        draws end (`then`: where goto() sent play, or -1)."""
        if not self.active:
            return ""
        program = self.program
        m, t = program.m, program.t
        end = len(program.steps)
        index = lambda name: end if name == END_TURN else t.step_index[name]  # noqa: E731
        then_text = [0] * (end + 1)
        for k, name in enumerate(self.then_values):
            then_text[index(name)] = k
        step_text = [self.step_values.index(name) for name in program.steps]
        then_step = [index(name) for name in self.then_values]
        text_step = [t.step_index[name] for name in self.step_values]
        draw_step = [t.step_index[name] for name in self.called]
        columns = ["O_calls_draws_step", *(c for cs in self.inputs.values() for c in cs)]
        rotate = [f"            for j in range(n):\n                tmp[j] = s[{c} + j]\n"
                  f"            for j in range(a):\n                s[{c} + j] = s[{c} + n + j]\n"
                  f"            for j in range(n):\n                s[{c} + a + j] = tmp[j]" for c in columns]
        resume = []
        for name in program.steps:
            step = program.rules.steps[name]
            own = step.pass_rule.next_target if step.pass_rule is not None and step.pass_rule.next is not None \
                else None
            i = t.step_index[name]
            if own is not None:
                resume.append(f"    if rs == {i} and is_pass:\n        return {index(own)}")
            resume.append(f"    if rs == {i}:\n        return N_{i}(s, who)")
        return CALLED.format(
            then_text=m.table(("calls", "then_text"), then_text), step_text=m.table(("calls", "step_text"), step_text),
            then_step=m.table(("calls", "then_step"), then_step), text_step=m.table(("calls", "text_step"), text_step),
            draw_step=m.table(("calls", "draw_step"), draw_step), max_calls=MAX_CALLS, rotate="\n".join(rotate),
            waiting=m.error(f"more than {MAX_CALLS:,} draws asked for by chance() are waiting", ("flow",)),
            resume="\n".join(resume), error=m.error("no step to resume at", ("flow",)))


CALLED = '''@_jit
def called(s, then, st, is_pass, me, has_me):
    a = s[X_asked]
    s[X_asked] = 0
    n = s[O_calls_draws_len]
    if s[X_called]:
        s[X_called] = 0
        if then >= 0:
            s[O_calls_then_tag] = 1
            s[O_calls_then_text] = {then_text}[then]
    else:
        s[O_calls_then_tag] = 1 if then >= 0 else 0
        s[O_calls_then_text] = {then_text}[then] if then >= 0 else 0
        s[O_calls_step] = {step_text}[st]
        s[O_calls_pass] = is_pass
        s[O_calls_me_tag] = has_me
        s[O_calls_me_int] = me if has_me else 0
    if a + n > {max_calls}:
        {waiting}
    if a > 0:
        if n > 0:  # the draws asked for come before those still waiting
            tmp = np.empty(n, np.int64)
{rotate}
    s[O_calls_draws_len] = a + n
    if a + n > 0:
        return {draw_step}[s[O_calls_draws_step]]
    tag = s[O_calls_then_tag]
    text = s[O_calls_then_text]
    rs = {text_step}[s[O_calls_step]]
    is_pass = s[O_calls_pass]
    who = s[O_calls_me_int] if s[O_calls_me_tag] else -1
    if who < 0:
        who = s[O_player]
    s[O_calls_then_tag] = 0
    s[O_calls_then_text] = 0
    s[O_calls_step] = 0
    s[O_calls_pass] = 0
    s[O_calls_me_tag] = 0
    s[O_calls_me_int] = 0
    if tag:
        return {then_step}[text]
{resume}
    {error}'''
