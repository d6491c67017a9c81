"""A draw that refills its pile (`refill:`): the zones it reads, checked, and its pieces moved in before its effects."""

from __future__ import annotations

from ..lang.builtins import RuleValueError
from .builtins.places import is_zone, written
from .values import text_of


def refilling(game, pile_of, refill_of):
    """(S, me, *inputs) -> the refill zone of a draw, once both it and the pile are checked to be zones (the pieces
    go from one to the other: a list an expression made would lose them) and to be two different ones."""
    def refill(S, me, *inputs):
        pile, spare = pile_of(S, me, *inputs), refill_of(S, me, *inputs)
        for what, where in (("the pile drawn from", pile), ("the refill", spare)):
            if not is_zone(game, S, where):
                raise RuleValueError(f"a draw that refills moves pieces between zones: {what} "
                                     f"[{text_of(where)[:60]}] is not one of the zones the rule file declares")
        if pile is spare:
            raise RuleValueError("a draw's refill is the very zone it draws from")
        return spare
    return refill


def refilled(game, apply, pile_of, refill_of):
    """The effects of a refilling draw's outcome, after the refill's pieces are moved onto the pile (in their
    order) when it held fewer than the outcome has: the effects see every item drawn in the pile."""
    def run(S, me, *args):
        pile = pile_of(S, me, *args[:-1])
        if len(pile) < len(args[-1]):
            spare = refill_of(S, me, *args[:-1])
            written(game, S, pile, "refill").extend(written(game, S, spare, "refill"))
            spare.clear()
        apply(S, me, *args)
    return run
