"""Built-ins of the turn's flow: whether a player could move, where play goes after the current move, and
chance steps called from effects."""

from __future__ import annotations

from ...errors import did_you_mean
from ...lang.builtins import RuleValueError
from ...lang.constants import frozen
from ...lang.declare import builtin
from ...limits import MAX_CALLS
from ..values import text_of
from ..rules import END_TURN


def specialise_can_move(g, known, keywords, given):
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
    exists, seats = step.moves[0].exists, g.game.num_players

    def exists_for(S, player):
        """The move's own existence test, for a seat."""
        if player.__class__ is int and 0 <= player < seats:  # the common case, checked inline: a call per ply
            return exists(S, player)
        return exists(S, _seat(player, seats))
    return exists_for, {1}


def _seat(player, seats: int) -> int:
    """`player`, a seat of a game of `seats` players; a RuleValueError for any other value (a number past the
    players would ask about a player the game does not have)."""
    if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < seats:
        raise RuleValueError(f"can_move(): {text_of(player)[:40]} is not a seat (seats are 0 to {seats - 1})")
    return player


@builtin("flow", specialise=specialise_can_move, shown={"step": "current step"})
def can_move(g, S, player: "seat", step=None) -> "bool":
    """True when the player would have a legal move (a pass does not count)."""
    return g.game.has_moves(S, _seat(player, g.game.num_players), step)


# built-ins that read how often positions occurred: a game that calls one keeps its positions' keys
COUNTING = frozenset({"repeated"})


@builtin("flow")
def repeated(g, S, n: "int") -> "bool":
    """True when the position (its board, zones and variables) has occurred at least n
    times in this game, counting this one: repeated(3) is threefold repetition."""
    if n.__class__ is not int:
        raise RuleValueError(f"repeated(): the number of times should be a whole number, not {text_of(n)[:40]}")
    return n <= 1 or S.occurrences() >= n


def _no_step(name, steps) -> RuleValueError:
    """The error for a step name that the file does not declare."""
    close = did_you_mean(str(name), steps)
    if name == END_TURN:
        close = "end the turn with end_turn()"
    return RuleValueError(f"no step '{name}'" + (f" ({close})" if close else f" (steps: {', '.join(steps)})"))


def specialise_goto(g, known, keywords, given):
    """goto('step') names a step the file declares: checked when the file loads."""
    steps, name = g.game.steps, known.get(0)
    if name is not None and steps and (not isinstance(name, str) or name not in steps):
        raise _no_step(name, steps)
    return None  # the general call: it needs nothing worked out


@builtin("effects", effect=True, specialise=specialise_goto)
def goto(g, S, step) -> "none":
    """Continue at this step after the current move."""
    if not isinstance(step, str) or step not in g.game.steps:
        raise RuleValueError(f"goto(): no step '{step}'")
    if g.game.chance_inputs.get(step):
        raise RuleValueError(f"goto(): step '{step}' takes inputs, so it is called: chance('{step}', ...)")
    _continue_at(S, step)


@builtin("effects", effect=True)
def end_turn(g, S) -> "none":
    """End the turn after the current move."""
    _continue_at(S, g.game.END_TURN)


def _continue_at(S, target) -> None:
    """Where play goes after the current move; after the draws it asked for, if it asked for any."""
    asked = S.goto
    S.goto = target if asked.__class__ is not tuple else (target,) + asked[1:]


def specialise_chance(g, known, keywords, given):
    """chance('step', ...) names a chance step of the game, with as many values as it takes inputs."""
    name = known.get(0)
    inputs = g.game.chance_inputs
    if 0 not in known:  # a step worked out in play: any chance step may be called (the general form checks it)
        g.game.called.update(inputs)
        return None
    if name not in inputs:
        steps = g.game.steps
        if name in steps:
            raise RuleValueError(f"step '{name}' is not a chance step: only chance steps can be called")
        raise RuleValueError(f"no step '{name}'" + (f" ({close})" if (close := did_you_mean(name, steps)) else
                                                     f" (steps: {', '.join(steps)})"))
    wanted = inputs[name]
    if given - 1 != len(wanted):
        raise RuleValueError(f"step '{name}' takes {len(wanted)} input{'s' if len(wanted) != 1 else ''}"
                             + (f" ({', '.join(wanted)})" if wanted else "") + f", not {given - 1}")
    g.game.called.add(name)
    return (lambda S, *values: _ask(S, name, values)), {0}


def _ask(S, step: str, values: tuple) -> None:
    """Add a draw at `step` with these inputs to the draws the running effects asked for (see Position.goto)."""
    asked = S.goto
    if asked.__class__ is not tuple:  # the first draw these effects ask for: keep where they asked to go
        asked = (asked,)
    elif len(asked) > MAX_CALLS:
        raise RuleValueError(f"chance(): more than {MAX_CALLS:,} draws asked for at once")
    S.goto = asked + ((step, values),)


@builtin("effects", effect=True, specialise=specialise_chance)
def chance(g, S, step, *inputs) -> "none":
    """Draw at a chance step (given its inputs) once these effects end; play then goes on as it would have."""
    wanted = g.game.chance_inputs.get(step) if isinstance(step, str) else None
    if wanted is None:
        raise RuleValueError(f"chance(): no chance step '{text_of(step)[:40]}'")
    if len(inputs) != len(wanted):
        raise RuleValueError(f"chance(): step '{step}' takes {len(wanted)} input{'s' if len(wanted) != 1 else ''}, "
                             f"not {len(inputs)}")
    _ask(S, step, tuple(map(frozen, inputs)))  # read-only: the draw waits in the position, and in its copies
