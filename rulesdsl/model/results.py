"""A game's results beyond win and loss (`scoring: returns`): whether they depend on the seat, and their utility."""

from __future__ import annotations

from ..lang import ast as A

# What a game's returns add up to (`scoring: utility`), as OpenSpiel names the kinds of games.
UTILITIES = ("zero_sum", "constant_sum", "identical", "general_sum")


def reads_seat(node, bodies: dict) -> bool:
    """Whether the expression `node` may give each seat a different value: it reads `me`, directly or through a
    function of the file it calls (whose `me` is the caller's). `bodies`: a function's name -> its syntax tree, or
    None for one that cannot be read (taken to read `me`). A function that calls itself is read once."""
    seen: set = set()
    todo = [node]
    while todo:
        for inner in A.walk(todo.pop()):
            if isinstance(inner, A.Name) and inner.id == "me":
                return True
            if isinstance(inner, A.Call) and inner.func in bodies and inner.func not in seen:
                seen.add(inner.func)
                if bodies[inner.func] is None:
                    return True
                todo.append(bodies[inner.func])
    return False


def derived_utility(num_players: int, has_returns: bool, seat_dependent: bool) -> str:
    """The utility of a game that declares none: win and loss is zero-sum between two seats (+1 and -1, or 0 and
    0) and general-sum otherwise; returns that read no seat are every seat's the same, a cooperative game."""
    if not has_returns:
        return "zero_sum" if num_players == 2 else "general_sum"
    return "general_sum" if seat_dependent else "identical"
