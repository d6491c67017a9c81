"""The score and status panel of a scene: each seat's score and own variables, the values chance drew (dice), the
lists of small numbers (chips) and what the last move changed, read from the state and typed by the IR."""

from __future__ import annotations

from ..engine.nodes import SIMULTANEOUS, TERMINAL
from ..engine.observer import Hidden, Observer
from ..errors import RulesDslError
from ..ir import nodes as N
from ..model.values import text_of

MAX_CHIPS = 40  # numbers shown as chips per list; the rest are counted
MAX_TEXT = 40  # characters of one value in the panel


class Panel:
    """What a game's panel shows, decided once from its IR: which variables are per seat, which hold what
    chance drew (assigned from a chance outcome's params), which are lists of numbers or short texts."""

    def __init__(self, rules, colour):
        self.rules = rules
        self.colour = lambda value: colour(value, rules.render_colours)  # the scene's colour of a value
        ir = rules.ir
        types = {h.name: h.type for h in ir.holders if h.kind == "var"}
        self.per_seat = [h.name for h in ir.holders if h.kind == "var" and h.per == "player"]
        self.drawn = [name for name in _drawn(ir) if name in types and name not in self.per_seat]
        self.chips = [name for name, t in types.items() if name not in self.per_seat and name not in self.drawn
                      and _list_of_small(t)]
        self.scored = rules.score is not None

    def of(self, S, viewer: int | None, seen: list) -> dict:
        """The panel of state S as `viewer` sees it; `seen`: (holder, value as seen) of every shown holder."""
        rules = self.rules
        values = {h.name: (h, v) for h, v in seen if not h.zone}
        names = rules.player_names
        who = S.current_player()
        acting = set(S.acting_players()) if who == SIMULTANEOUS else {who} if who >= 0 else set()
        scores, score_note = self._scores(S, viewer, who)
        seats = []
        for p, name in enumerate(names):
            own = []
            for var in self.per_seat:
                if var in values:
                    place = values[var][1][p]
                    own.append({"name": var, **_value(place)})
            seats.append({"seat": p, "name": name, "score": scores[p] if scores is not None else None,
                          "to_move": p in acting, "values": own})
        dice = [{"name": var, "faces": [_face(values[var][1], self.colour)]} for var in self.drawn if var in values]
        chips = [dict(_chips(values[var][1], self.colour), name=var) for var in self.chips if var in values]
        return {"seats": seats, "scored": self.scored, "score_note": score_note, "dice": dice, "chips": chips,
                "shown": [var for var in self.per_seat + self.drawn + self.chips if var in values]}

    def _scores(self, S, viewer: int | None, who: int) -> tuple[list | None, str | None]:
        """Each seat's score, or None with why: a score may read what the viewer may not see (a hand), so during
        play it is shown only when the viewer sees every place of the state."""
        if not self.scored:
            return None, None
        if who != TERMINAL and _unseen(S, viewer):
            return None, "hidden until the end: the scores read places this seat does not see"
        try:
            scores = S.scores()
        except RulesDslError as exc:  # a score that fails in this position: said, the rest of the view still shown
            return None, f"the score cannot be worked out here: {str(exc)[:200]}"
        return [s if isinstance(s, (int, float)) and not isinstance(s, bool) else text_of(s)[:MAX_TEXT]
                for s in scores], None


def last_move(before: dict | None, after: dict, history: list) -> dict | None:
    """What the last ply changed, from the scenes before and after it (as one viewer sees them, so a hidden
    piece's move shows no more than the viewer saw): the text of the ply and the cells whose pieces changed."""
    if before is None or not history:
        return None
    return {"text": history[-1], "cells": [after["cells"][c]["name"] for c in _changed(before, after)]}


def _changed(before: dict, after: dict) -> list[int]:
    def stacks(scene):
        found = {}
        for p in scene["pieces"]:
            found.setdefault(p["cell"], []).append((p["kind"], p["text"], p["fill"], p.get("hidden", False),
                                                    tuple(sorted(p["attributes"].items()))))
        return found
    old, new = stacks(before), stacks(after)
    return sorted(c for c in set(old) | set(new) if old.get(c) != new.get(c))


def _unseen(S, viewer: int | None) -> bool:
    """Whether some place of the state is hidden from the viewer."""
    observer = Observer(S.rules, viewer, S.revealed, S)
    rules = S.rules
    for holders, values in ((rules.zones, S.zones), (rules.vars, S.vars)):
        for holder, value in zip(holders, values):
            if observer.unseen(holder, value):
                return True
    return False


def _drawn(ir) -> list[str]:
    """The variables a chance outcome assigns one of its params to (the dice rolled, the face turned up), in file order."""
    found = []
    for step in ir.steps.values():
        plan = step.chance.outcomes if step.chance is not None else None
        if plan is None:
            continue
        params = {p.name for p in plan.params}
        for effect in plan.effects:
            for node in N.walk(effect):
                # `die = n`: the value drawn itself, not one worked out from it
                if node.__class__ is N.Assign and node.op == "=" and node.target.__class__ is N.Ref \
                        and node.target.kind == "var" and node.value.__class__ is N.Ref \
                        and node.value.kind == "param" and node.value.name in params:
                    if node.target.name not in found:
                        found.append(node.target.name)
    return found


def _list_of_small(t) -> bool:
    """A list type whose items are whole numbers or short texts (a choice of names)."""
    if t.name != "list" or len(t.items) != 1:
        return False
    item = t.items[0]
    kinds = item.items if item.name == "union" else (item,)
    return all(k.name in ("int", "bool") or k.name == "text" and k.names for k in kinds)


def _value(place) -> dict:
    """A variable's value as the panel shows it: its text, and the number when it is one."""
    if isinstance(place, Hidden):
        return {"text": "(hidden)", "hidden": True}
    number = place if isinstance(place, (int, float)) and not isinstance(place, bool) else None
    return {"text": text_of(place)[:MAX_TEXT], "number": number}


def _face(place, colour) -> dict:
    """A drawn value as a die's face: a whole number (drawn as pips up to 6), a text (and its colour), or none
    (nothing drawn yet)."""
    if isinstance(place, Hidden):
        return {"text": "?", "hidden": True}
    if place is None:
        return {"text": "", "blank": True}
    if isinstance(place, int) and not isinstance(place, bool):
        return {"text": str(place), "number": place}
    text = text_of(place)[:MAX_TEXT]
    return {"text": text, "fill": colour(text)}


def _chips(place, colour) -> dict:
    """A list of small values as chips (each its text, and colour when it names one), the rest counted."""
    if isinstance(place, Hidden):
        return {"items": [], "count": place.count, "hidden": True}
    items = list(place) if isinstance(place, (list, tuple)) else []
    return {"items": [{"text": text_of(v)[:MAX_TEXT], "fill": colour(v)}
                      for v in items[:MAX_CHIPS]], "count": len(items)}
