"""What an agent is given: one player's view of a state, and states sampled consistently with it."""

from __future__ import annotations

from ..engine.rng import Rng


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

        Pieces the player cannot see (hidden zones: others' hands, draw piles) are pooled, put in a
        canonical order and dealt back at random, keeping every place's count; other players'
        pending secret choices are forgotten. The result depends only on the view and `rng`.
        """
        S = self._state.clone()
        S.rng = Rng(rng.below(1 << 62))
        me = self.player
        for p in [p for p in S.pending if p != me]:
            del S.pending[p]
        places = []
        for i, spec in enumerate(S.rules.zones):
            value = S.zones[i]
            if spec["per"] == "player":
                entries = list(enumerate(value))
            elif spec.get("keys") is not None:
                entries = list(value.items())
            else:
                entries = [(None, value)]
            for owner, pieces in entries:
                visible = spec["visible"] == "all" or (spec["visible"] == "owner" and owner == me)
                if not visible and pieces:
                    places.append(pieces)
        if places:
            pool = sorted(piece for pieces in places for piece in pieces)
            rng.shuffle(pool)
            start = 0
            for pieces in places:
                pieces[:] = pool[start:start + len(pieces)]
                start += len(pieces)
        return S
