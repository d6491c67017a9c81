"""Built-ins of the turn's flow: whether a player could move, and where play goes after the current move."""

from __future__ import annotations

from ...errors import did_you_mean
from ...lang.builtins import RuleValueError
from ...lang.declare import builtin
from ..rules import END_TURN


def specialise_can_move(g, known, keywords):
    """can_move(p, 'step') of a step with one kind of move is that move's own existence test."""
    steps = g.game.steps
    name = known.get(1)
    if not isinstance(name, str) or keywords:
        return None
    if steps and name not in steps:
        raise _no_step(name, steps)
    step = steps.get(name)
    if step is None or len(step.moves) != 1 or step.moves[0].exists is None:
        return None  # e.g. a step compiled later: the general form looks it up when called
    return step.moves[0].exists, {1}


@builtin("flow", specialise=specialise_can_move, shown={"step": "current step"})
def can_move(g, S, player, step=None):
    """True when the player would have a legal move (a pass does not count)."""
    return g.game.has_moves(S, player, step)


def _no_step(name, steps) -> RuleValueError:
    """The error for a step name that the file does not declare."""
    close = did_you_mean(str(name), steps)
    if name == END_TURN:
        close = "end the turn with end_turn()"
    return RuleValueError(f"no step '{name}'" + (f" ({close})" if close else f" (steps: {', '.join(steps)})"))


def specialise_goto(g, known, keywords):
    """goto('step') names a step the file declares: checked when the file loads."""
    steps, name = g.game.steps, known.get(0)
    if name is not None and steps and (not isinstance(name, str) or name not in steps):
        raise _no_step(name, steps)
    return None  # the general call: it needs nothing worked out


@builtin("effects", effect=True, specialise=specialise_goto)
def goto(g, S, step):
    """Continue at this step after the current move."""
    if not isinstance(step, str) or step not in g.game.steps:
        raise RuleValueError(f"goto(): no step '{step}'")
    S.goto = step


@builtin("effects", effect=True)
def end_turn(g, S):
    """End the turn after the current move."""
    S.goto = g.game.END_TURN
