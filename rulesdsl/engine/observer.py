"""What one viewer may see of a state: zones and variables, pending simultaneous choices and history."""

from __future__ import annotations


class Hidden:
    """A place the viewer may not see, standing in for its value: a list shows its length only."""

    __slots__ = ("count",)

    def __init__(self, value):
        self.count = len(value) if isinstance(value, list) else None

    def to_json(self) -> dict:
        return {"hidden": True if self.count is None else self.count}

    def __str__(self) -> str:
        return "(hidden)" if self.count is None else f"({self.count} hidden)"


AUDIENCE = -1  # the viewer who is no seat: sees only what all seats see


class Observer:
    """What `viewer` may see of a game's states: the one place visibility is decided (after OpenSpiel's
    observers). Every output (JSON observations, terminal pictures, agents' views) is built from it.

    `viewer` is a seat, or None for the table: all seats' views at once (OpenSpiel's private info of all
    players), which sees every place but those declared `visible: none`, every pending choice and every
    secret history entry somebody saw; or AUDIENCE, no seat: what every seat sees (a screen players share). A place
    of a zone or variable is seen when it is `visible: all`; `owner`: by the seat that holds it (its seat, or its
    key when the keys are seats); `team`: by that seat's team (`players: teams`); `none`: by nobody. A place whose
    key is no seat (a cell, a colour) is nobody's: only the table sees it when it is `owner` or `team`. `visible:`
    an expression of `viewer` is worked out on `state` for each seat looking (the table sees what some seat sees,
    the audience what every seat sees). A place reveal() turned face up is seen by all."""

    __slots__ = ("viewer", "_partners", "revealed", "state", "_seats")

    def __init__(self, rules, viewer: int | None, revealed=frozenset(), state=None):
        self.viewer = viewer
        self.revealed = revealed  # (zone name, seat or key) of the places reveal() shows to everyone
        self.state = state  # the state a `visible:` expression is worked out on (none needed without one)
        teams = rules.teams
        self._partners = () if viewer is None or viewer == AUDIENCE else tuple(p for p, t in enumerate(teams) if t == teams[viewer])
        self._seats = range(rules.num_players) if viewer is None or viewer == AUDIENCE else (viewer,)

    def sees(self, holder, owner) -> bool:
        """Whether the viewer sees the place of `holder` held by `owner` (a seat, a key, or None)."""
        visible = holder.visible
        if visible == "all" or (holder.name, owner) in self.revealed:
            return True
        if holder.sight is not None:
            return self._sight(holder, owner)
        if self.viewer is None and visible != "none":
            return True
        if owner.__class__ is not int:  # only a seat owns a place (a cell, which is a number too, owns none)
            return False
        if visible == "owner":
            return owner == self.viewer
        return visible == "team" and owner in self._partners

    def _sight(self, holder, owner) -> bool:
        """Whether the viewer sees a place whose `visible:` is an expression, worked out on the state."""
        if self.state is None:
            raise ValueError(f"'{holder.name}' is visible by an expression of the state: observe it with one")
        S = self.state
        key = owner if holder.keys is not None else None
        seat = owner if owner.__class__ is int and 0 <= owner < S.rules.num_players else None  # (a seat's key too)
        if self.viewer == AUDIENCE:
            return all(S.sight(holder, p, seat, key) for p in self._seats)
        return any(S.sight(holder, p, seat, key) for p in self._seats)

    def unseen(self, holder, value) -> list:
        """(seat or key, place) for each place of a zone's or variable's state value the viewer may not see."""
        if holder.visible == "all":  # the common case, kept quick for agents sampling states
            return []
        return [(owner, place) for owner, place in holder.places(value) if not self.sees(holder, owner)]

    def value(self, holder, value):
        """A zone's or variable's state value as the viewer sees it: its shape kept, unseen places Hidden."""
        return holder.map(value, lambda owner, place: place if self.sees(holder, owner) else Hidden(place))

    def holders(self, S):
        """(holder, value as seen) for every zone, then every variable, in file order."""
        rules = S.rules
        for holders, values in ((rules.zones, S.zones), (rules.vars, S.vars)):
            for holder, value in zip(holders, values):
                yield holder, self.value(holder, value)

    def key(self, S) -> list:
        """What the viewer sees of state S, its history apart, as one value compared with ==: equal for two states
        exactly when the viewer cannot tell them apart (the flow, the board, each place seen, the size of each list
        unseen, the pending choices as seen)."""
        parts = [S.step, S.player, S.turn, S.terminal, S.winners, S.capped, S.cells, S.left, S.revealed, S.calls,
                 self.pending(S)]
        rules, sees = S.rules, self.sees
        for holders, values in ((rules.zones, S.zones), (rules.vars, S.vars)):
            for holder, value in zip(holders, values):
                if holder.visible == "all":
                    parts.append(value)  # (the common case: seen whole)
                else:
                    parts.append([(owner, place if sees(holder, owner) else
                                   (Hidden, len(place) if isinstance(place, list) else None))
                                  for owner, place in holder.places(value)])
        return parts

    def pending(self, S) -> dict:
        """The simultaneous choices made so far: seat -> move, or None where the viewer may not see it."""
        return {p: m if self._saw((p,)) else None for p, m in S.pending.items()}

    def history(self, S) -> list:
        """The history in notation: others' unrevealed choices read '(secret choice)', secret entries the
        viewer did not see '(hidden)'."""
        unrevealed = self._unrevealed(S)
        secret = S.secret
        return ["(secret choice)" if i in unrevealed else
                "(hidden)" if i in secret and not self._saw(secret[i]) else text
                for i, text in enumerate(S.history_texts())]

    def entry(self, S, i: int) -> str:
        """History entry `i` in notation as the viewer sees it (see history())."""
        if i in self._unrevealed(S):
            return "(secret choice)"
        return "(hidden)" if i in S.secret and not self._saw(S.secret[i]) else str(S.history[i])

    def last_move(self, S):
        """The last move a player made (what `last_move` reads), or None where the viewer did not see it:
        another player's choice still secret at a simultaneous step, or a secret entry of the history."""
        move = S.last
        if move is None:
            return None
        for i in range(len(S.history) - 1, -1, -1):  # its entry is the last one holding it
            if S.history[i] is move:
                if i in self._unrevealed(S):
                    return None
                return None if i in S.secret and not self._saw(S.secret[i]) else move
        return move

    def _unrevealed(self, S) -> set:
        """The entries of the history that are others' choices still secret at a simultaneous step: the pending
        choices are its last entries, in the order made (an equal move made earlier was revealed)."""
        first = len(S.history) - len(S.pending)
        return {first + k for k, p in enumerate(S.pending) if not self._saw((p,))}

    def _saw(self, seats) -> bool:
        """Whether the viewer is among `seats` (the table: whether anybody is)."""
        return bool(seats) if self.viewer is None else self.viewer in seats
