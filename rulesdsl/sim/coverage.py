"""Which rules games used: the moves, steps, end rules and functions that none of them did, each at its definition."""

from __future__ import annotations


def with_parts(rules, made: set[str]) -> set[str]:
    """The moves made, with the parts of each compound move made (a part is made with its move)."""
    made = set(made)
    for rule in rules.moves.values():
        if rule.name in made:
            made.update(part.name for part, _, _ in rule.parts)
    return made


def steps_reached(rules, made: set[str]) -> set[str]:
    """The steps at which one of the moves made was made: a move, chance outcome or pass of theirs."""
    return {step.name for step in rules.steps.values()
            if step.name in made or any(m.name in made for m in step.moves)
            or (step.pass_rule is not None and step.pass_rule.name in made)}


def dead_rules(rules, made: set[str], reached: set[str], ended_by: set[int],
               called: set | None = None) -> list[tuple[str, object]]:
    """(what was never used, its Location or None) for each move never made, step (not automatic) never reached
    and end rule that never ended a game; and, when the calls were watched (`called`: ('function' | 'procedure',
    name) of those called), each of the file's functions and procedures never called."""
    made = with_parts(rules, made)
    unused = [(f"move '{m.name}' was never made", m.path) for m in rules.moves.values()
              if m.name not in made and m.path is not None]
    unused += [(f"step '{s.name}' was never reached", s.path) for s in rules.steps.values()
               if s.kind != "auto" and s.name not in reached]
    unused += [(f"end rule {i + 1} never ended a game", e.path) for i, e in enumerate(rules.end_rules)
               if i not in ended_by]
    if called is not None:
        unused += [(f"{word} '{name}' was never called", (f"{word}s", name)) for word, name in own_functions(rules)
                   if (word, name) not in called]
    return [(message, rules.where(path) if rules.where else None) for message, path in unused]


def own_functions(rules):
    """('function' | 'procedure', name) of each of the rule file's own functions and procedures."""
    for label in rules.generated:
        word, _, name = label.partition(" ")
        if word in ("function", "procedure"):
            yield word, name
