"""Simultaneous steps in compiled code: the engine's state machine (engine/state.py acting_players and apply) over the
vector. The seats still to choose are the step's `actors` that have not chosen; a seat's choice is kept in the
vector (the move's row, its kind + 1 first: 0 is no choice yet) and counted in `pending`, and no effect of the move
runs; once no seat waits, the count returns to 0, the step's `resolve` effects run with `choices` (per seat, its
choice: read as choices[p].name, or `for choice in choices`), the choices are cleared and play goes on by goto()
or the step's next, worked out for the player whose turn it is."""

from __future__ import annotations

class Simultaneous:
    """The printed parts of a game's simultaneous steps (none where it has none: stubs the playout loop calls)."""

    def __init__(self, program):
        self.program = program
        self.names = [name for name, step in program.ir.steps.items() if step.kind == "simultaneous"]
        width, seats = program.width, program.t.seats
        # a seat's choice: the move's row (width words) at X_choices + seat * width
        self.offset = program.packing.reserve("choices", seats * width) if self.names else None

    def header(self) -> list:
        """The module's constants: per step whether it is simultaneous, and where the choices are kept."""
        program = self.program
        simul = [int(program.ir.steps[name].kind == "simultaneous") for name in program.steps]
        lines = [f"SIMUL = _table({simul!r}, 1)  # per step: 1 simultaneous"]
        if self.names:
            lines.append(f"X_choices = {self.offset}  # kept: each seat's choice at a simultaneous step")
        return lines

    def source(self) -> str:
        """waiting(s) (the seats still to choose, in the actors' order) and first_waiting(s); with simultaneous
        steps, chosen(s, row, who), which apply() calls there, and each step's actors and resolve."""
        if not self.names:
            return STUBS
        program, p, m = self.program, self.program.p, self.program.m
        parts, dispatch, resolve = [], [], []
        for name in self.names:
            step, index = program.ir.steps[name], program.t.step_index[name]
            code, rep = p.ex(step.actor, {})
            if rep not in ("a", "i"):
                raise p.unsupported(step.actor, "actors that are not a seat or a list of seats")
            bad = m.code(f"the players to choose should be seats from 0 to {program.t.seats - 1}, not {{0}}",
                         step.decl)
            none = m.code("the players to choose at this simultaneous step are none", step.decl)
            parts.append("\n".join([
                "@_jit", f"def Y_{index}(s, me):", f"    a = {code if rep == 'a' else f'_single({code})'}",
                "    for i in range(a.shape[0]):", "        if a[i] < 0 or a[i] >= NS:",
                f"            raise ValueError({bad!r}, a[i])",
                "    if a.shape[0] == 0:  # nobody would ever choose: play could not go on",
                f"        raise ValueError({none!r})", "    return a"]))
            dispatch += [f"    if st == {index}:", f"        return Y_{index}(s, s[O_player])"]
            # (draws chance() asks for are not resumed after resolve: with no calls given, chance() is refused there)
            p.given, env, calls, p.calls = {"choices": ("0", "choices")}, {}, p.calls, None
            try:
                body = [line for stmt in step.effects.get("resolve", ()) for line in p.st(stmt, env, "    ")]
            finally:
                p.given, p.calls = {}, calls
            parts.append("\n".join([
                "@_jit", f"def R_{index}(s):", "    me = s[O_player]", "    st = s[O_step]", *body,
                "    s[X_choices:X_choices + NS * W] = 0", "    g = s[X_goto]", "    if g:", "        s[X_goto] = 0",
                "        go(s, g - 1)", "        return", f"    go(s, N_{index}(s, me))"]))
            resolve += [f"    if st == {index}:", f"        R_{index}(s)", "        return"]
        nobody = m.code("no player is to choose at this simultaneous step", ("flow",),
                        "the step's actors should hold a seat whenever play reaches it")
        parts.append("\n".join(["@_jit", "def actors(s):", "    st = s[O_step]", *dispatch, "    return _none()"]))
        parts.append(WAITING.format(nobody=nobody))
        parts.append("\n".join([CHOSEN, *program.positions.leave(), *resolve]))
        return "\n\n\n".join(parts)


def load(state, python_state) -> None:
    """Write the choices made so far at a simultaneous step of `python_state` (an engine State) into the vector of
    `state` (a CompiledState packed from it)."""
    game = state.game
    at = game.packing.kept.get("choices")
    if at is None or not python_state.pending:
        return
    width = game.program.width
    for seat, move in python_state.pending.items():
        row = game.row(move)
        row[0] += 1
        state.s[at + seat * width:at + (seat + 1) * width] = row


def pending_moves(state) -> list:
    """The choices a CompiledState's vector keeps (a state whose history is not kept: the vector environments'), as
    Moves in seat order: the history's last entries the Python engine would hold for them."""
    game = state.game
    at = game.packing.kept.get("choices")
    if at is None:
        return []
    width, moves = game.program.width, []
    for seat in range(game.num_players):
        row = state.s[at + seat * width:at + (seat + 1) * width].copy()
        if row[0] > 0:
            row[0] -= 1
            moves.append(game.move(row, seat))
    return moves


STUBS = '''@_jit
def waiting(s):
    return _none()


@_jit
def first_waiting(s):
    return -1'''

WAITING = '''@_jit
def waiting(s):
    a = actors(s)
    out = np.empty(a.shape[0], np.int64)
    n = 0
    for i in range(a.shape[0]):
        if s[X_choices + a[i] * W] == 0:
            out[n] = a[i]
            n += 1
    return out[:n]


@_jit
def first_waiting(s):
    w = waiting(s)
    if w.shape[0] == 0:
        raise ValueError("{nobody}")
    return w[0]


@_jit
def _choice(s, p, fields, none, missing):
    at = X_choices + p * W
    k = s[at] - 1
    if k < 0:
        raise ValueError(none)
    j = fields[k]
    if j == 0:
        raise ValueError(missing)
    return s[at + j]'''

CHOSEN = '''@_jit
def chosen(s, row, who):
    at = X_choices + _seat(who) * W
    if s[at] == 0:
        s[O_pending] += 1
    s[at] = row[0] + 1
    for j in range(1, W):
        s[at + j] = row[j]
    if waiting(s).shape[0] > 0:
        return
    s[O_pending] = 0
    st = s[O_step]'''
