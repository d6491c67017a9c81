"""The file's `no_moves:` end rule printed for the compiled backend: what play does where the seat to choose has no
legal move (engine/state.py `_no_moves`)."""

from __future__ import annotations


def no_moves_source(program, winners_tag: int, ended_tag: int) -> str:
    """`no_moves(s, st, passes)`, asked where play waits at step `st`: 0 when it waits there (a chance step, a step
    with a pass of its own, a seat with a move, or a file without the rule); 1 when the game ended there; 2 when the
    seat's turn passes (`passes` such turns in a row, this one counted: drawn once every seat has passed so)."""
    rules, lines = program.rules, ["@_jit", "def no_moves(s, st, passes):"]
    number = rules.no_moves
    if number is None:
        return "\n".join(lines + ["    return 0"])
    word = rules.end_rules[number].no_moves
    stuck = [name for name, step in program.ir.steps.items()
             if step.kind == "decision" and rules.steps[name].pass_rule is None]
    lines += ["    me = s[O_player]", "    stuck = False"]
    found = []
    for name in stuck:
        index = program.t.step_index[name]
        found.append(_exists(program, name, index))
        lines += [f"    if st == {index}:", f"        stuck = not NM_{index}(s, me)"]
    lines += ["    if not stuck:", "        return 0"]
    if word == "passes":
        lines += ["    if passes < NS:", "        return 2", "    w = np.empty(0, np.int64)"]
    elif word == "loses":  # every other seat wins
        lines += ["    w = np.empty(NS - 1, np.int64)", "    k = 0", "    for p in range(NS):", "        if p != me:",
                  "            w[k] = p", "            k += 1"]
    elif word == "wins":
        lines += ["    w = np.full(1, me, np.int64)"]
    else:
        lines += ["    w = np.empty(0, np.int64)"]
    lines += [f"    _won(s, w, {winners_tag}, {ended_tag}, {number})", "    return 1"]
    return "\n\n\n".join(found + ["\n".join(lines)])


def _exists(program, name: str, index: int) -> str:
    """`NM_<index>(s, me)`: whether seat `me` has a move at decision step `name`, from any of its moves (of every
    tier: a later tier has moves only where the earlier have none, so the step has one exactly when any has)."""
    model = program.rules.steps[name]
    moves = [rule.name for tier in model.tiers for rule in tier] if model.tiers else program.ir.steps[name].moves
    lines = ["@_jit", f"def NM_{index}(s, me):"]
    for move in moves:
        lines += program._generate(program.ir.moves[move], True)
    return "\n".join(lines + ["    return False"])
