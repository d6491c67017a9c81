"""Decision steps whose `actor:` is an expression (not the player whose turn it is): who decides there, worked out in
compiled code as engine/state.py `_decider` works it out, from the position when play is at the step. The value must
be a seat: anything else is a located error (the Python engine would fail later, where the value is used)."""

from __future__ import annotations

from ...ir import nodes as N


def turn_player_acts(step) -> bool:
    """Whether the player whose turn it is decides at a decision step (its actor is `player`)."""
    return isinstance(step.actor, N.Ref) and step.actor.name == "player" and step.actor.kind == "engine"


class Actors:
    """The printed `actor(s)` of a game's decision steps with an actor expression, and their table ACTED."""

    def __init__(self, program):
        self.program = program
        self.names = [name for name, step in program.ir.steps.items()
                      if step.kind == "decision" and not turn_player_acts(step)]

    def header(self) -> list:
        acted = [int(name in self.names) for name in self.program.steps]
        return [f"ACTED = _table({acted!r}, 1)  # per step: 1 where an actor expression decides who moves"]

    def source(self) -> str:
        program, p, m = self.program, self.program.p, self.program.m
        parts, dispatch = [], []
        for name in self.names:
            step, index = program.ir.steps[name], program.t.step_index[name]
            bad = m.code(f"the step's actor should be a seat from 0 to {program.t.seats - 1}, not {{0}}",
                         step.decl, "the actor expression gives no seat in this position")
            parts.append("\n".join(["@_jit", f"def V_{index}(s, me):", f"    a = {p.scalar(step.actor, {})}",
                                    "    if a < 0 or a >= NS:", f"        raise ValueError({bad!r}, a)",
                                    "    return a"]))
            dispatch += [f"    if st == {index}:", f"        return V_{index}(s, s[O_player])"]
        parts.append("\n".join(["@_jit", "def actor(s):", "    st = s[O_step]", *dispatch, "    return s[O_player]"]))
        return "\n\n\n".join(parts)
