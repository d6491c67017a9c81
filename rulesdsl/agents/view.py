"""What an agent is given: one player's view of a state, and states sampled consistently with it."""

from __future__ import annotations

from ..engine.observer import Observer


class PlayerView:
    """One player's view of a state. Agents read only through it."""

    __slots__ = ("_state", "player")

    def __init__(self, state, player: int):
        self._state = state
        self.player = player

    @property
    def game(self):
        return self._state.game

    def observation(self) -> dict:
        """The state as this player may see it (JSON-ready)."""
        return self._state.observation(self.player)

    def legal_moves(self) -> list:
        return self._state.legal_moves(self.player)

    def determinize(self, rng) -> object:
        """A full state the player cannot tell from the real one, sampled with `rng`.

        What the player's Observer does not see is resampled, keeping every place's size: the pieces of
        all unseen zone places (others' hands, draw piles) are pooled, put in a canonical order and dealt
        back at random; so, one variable at a time, are the values of its unseen places (others' money, a
        face-down card). Other players' pending secret choices are forgotten. The result depends only on
        the view and `rng`.
        """
        given = self._state
        compiled = getattr(given, "python", None)  # a state of the compiled backend: sampled as the engine's
        rules = given.rules
        if compiled is not None and not rules.has_hidden_information and not rules.has_simultaneous:
            S = given.clone()  # nothing is hidden: the copy with a stream of its own, drawn as below
            S.reseed(rng.below(1 << 62))
            return S
        S = compiled() if compiled is not None else given.clone()
        S.rng = type(rng)(rng.below(1 << 62))  # the same stream as `rng` (see engine.rng)
        me = self.player
        seen = Observer(S.rules, me, S.revealed, S)
        S.last = seen.last_move(S)  # (None where it is another's secret choice)
        for p in [p for p in S.pending if p != me]:
            del S.pending[p]
        places = [pieces for holder, value in zip(S.rules.zones, S.zones)
                  for _, pieces in seen.unseen(holder, value) if pieces]
        if places:
            pool = sorted(piece for pieces in places for piece in pieces)
            rng.shuffle(pool)
            start = 0
            for pieces in places:
                pieces[:] = pool[start:start + len(pieces)]
                start += len(pieces)
        for i, holder in enumerate(S.rules.vars):
            unseen = seen.unseen(holder, S.vars[i])
            if len(unseen) > 1:  # a single unseen value has nowhere else to go
                pool = rng.shuffle(sorted((value for _, value in unseen), key=repr))
                for (owner, _), value in zip(unseen, pool):
                    S.vars[i][owner] = value
        S.changed()
        return given.game.compiled_state(S) if compiled is not None else S
