"""A draw that refills its pile (`refill:`) printed for compiled code, as the Python engine draws it
(engine/draws.py RefillPool, model/refill.py): when the pile holds fewer items than the draw takes, every item of it
is drawn and the rest without replacement from the refill (one uniform pick of the chance stream each), the outcome
listing the distinct items in the order they first appear in the pile, then in the refill; before the outcome's
effects run, the refill's pieces are moved onto the pile. Pile and refill are zone places (anything else is not
taken, located); the same place for both is the Python engine's error, located at the step."""

from __future__ import annotations

from .unsupported import Unsupported


class Refill:
    """The refill of one draw step (`draw`, a draws.Draw being made): its zone places and the code using them."""

    def __init__(self, program, step, env):
        p, self.p, self.program = program.p, program.p, program
        self.pile, self.spare = step.chance.exprs["from"], step.chance.exprs["refill"]
        places = [p.zones.place(node, env) for node in (self.pile, self.spare)]
        if None in places:
            raise Unsupported(program.m.locate(self.spare), "a draw that refills a pile that is not a zone's place "
                                                            "from another")
        self.places, self.env, self.decl = places, env, step.decl

    def fields(self) -> dict:
        """What the refilling draw's template (draws.py DRAW) is filled with beyond a plain draw's."""
        m = self.program.m
        (pile, _, _, _, _), (base, length, cap, _, _) = self.places
        m.functions.setdefault(("helper", "refilled"), ("_refilled", REFILLED))
        return {"refill": REFILL.format(
            pile=pile, spare=f"_rt.zone_items(s, {base}, {length}, {cap})", spare_base=base,
            same=m.code("a draw's refill is the very zone it draws from", self.decl),
            short=m.code("cannot draw {0} items from the {1} in the pile and the {2} of its refill", self.decl))}

    def before_effects(self, call) -> list:
        """The lines, before a refilling draw's effects, moving the refill's pieces onto the pile when it held fewer
        items than the outcome has (`outcome`, the items drawn)."""
        pile = self.places[0]
        lines = [f"    if s[{pile[1]}] < outcome.shape[0]:"]
        return lines + self.p.moved_all(call, self.spare, self.pile, self.env, "        ")


# (in DR_: `items` and `count` are the pile and the number drawn; drawn here when the pile holds too few)
REFILL = '''    if {pile} == {spare_base}:
        raise ValueError("{same}")
    spare = {spare}
    if count > items.shape[0] and count <= MOST:
        if items.shape[0] + spare.shape[0] < count:
            raise ValueError("{short}", count, items.shape[0], spare.shape[0])
        if at + count > drawn.shape[0]:
            return -1
        outcome = drawn[at:at + count]
        _refilled(rng, items, spare, count, outcome)
        return DONE(s, row, at, count, outcome{{ins}})'''

REFILLED = '''@_jit
def _refilled(rng, pile, spare, count, into):
    """Every item of the pile and count - its length of the refill's, drawn without replacement (RefillPool.sample),
    written to `into`: each distinct item of pile and refill together as often as it was drawn, in their order."""
    kinds, counts = _rt.tally(_rt.concat(pile, spare))
    spare_kinds, spare_counts = _rt.tally(spare)
    rest = np.empty(count - pile.shape[0], np.int64)
    _rt.draw_items(rng, 0, spare_kinds, spare_counts, count - pile.shape[0], False, rest)
    j = 0
    for k in range(kinds.shape[0]):
        times = 0
        for i in range(pile.shape[0]):
            times += pile[i] == kinds[k]
        for i in range(rest.shape[0]):
            times += rest[i] == kinds[k]
        for _ in range(times):
            into[j] = kinds[k]
            j += 1'''

