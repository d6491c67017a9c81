"""What an agent is given: one player's view of a state, and states sampled consistently with it."""

from __future__ import annotations

from ..engine.observer import Observer
from . import sampling


class PlayerView:
    """One player's view of a state. Agents read only through it."""

    __slots__ = ("_state", "player", "_evidence")

    def __init__(self, state, player: int):
        self._state = state
        self.player = player
        self._evidence = None  # ((ply, history length), what the player saw): worked out once per position

    @property
    def game(self):
        return self._state.game

    def observation(self) -> dict:
        """The state as this player may see it (JSON-ready)."""
        return self._state.observation(self.player)

    def legal_moves(self) -> list:
        return self._state.legal_moves(self.player)

    def determinize(self, rng, choose=None) -> object:
        """A full state the player cannot tell from the real one, sampled with `rng` (see determinizations)."""
        return self.determinizations(rng, 1, choose)[0]

    def determinizations(self, rng, count: int, choose=None) -> list:
        """`count` full states, each one the player cannot tell from the real one, sampled with `rng` from all
        the states consistent with what the player has seen (agents/sampling.py).

        The game is replayed from its start (which the rules make known to all): what the player saw is kept
        (its own moves, public moves and outcomes), what it did not is drawn anew (others' secret choices by
        `choose(state, seat, legal, rng)`, uniform among their legal moves by default; hidden chance outcomes by
        their probabilities), and a replay is kept only while the player would have seen the same thing after
        every move (Observer.key). Others' choices still pending at a simultaneous step are not made in a sample.
        A game that hides only dealt pieces (sampling.piles_only), and a position the history does not lead to
        (set by hand, or read from a file written without its history), are sampled by dealing the unseen places
        anew (sampling.deal). The result depends only on the view and `rng`; SamplingError when no consistent
        state is found within MAX_SAMPLE_MOVES replayed moves.
        """
        given = self._state
        compiled = getattr(given, "python", None)  # a state of the compiled backend: sampled as the engine's
        rules = given.rules
        if not rules.has_hidden_information:
            return [self._copy(given, compiled is not None, rng) for _ in range(count)]
        S = compiled() if compiled is not None else given
        found = self._evidence
        if found is None or found[0] != (given.ply, len(given.history)):
            found = self._evidence = ((given.ply, len(given.history)),
                                      sampling.evidence(S, self.player, given.history if compiled else None))
        ev = found[1]
        if ev is None or ev.piles and any(text is None for text, _, _ in ev.entries):
            # (a game hiding only dealt pieces: dealing them anew is much quicker than replaying its moves)
            states = [_dealt(S, self.player, rng) for _ in range(count)]
        else:
            states = sampling.sample(ev, rng, count, choose)
            for T in states:
                T.rng = type(rng)(rng.below(1 << 62))  # the same stream as `rng` (see engine.rng)
        return [given.game.compiled_state(T) for T in states] if compiled is not None else states

    @staticmethod
    def _copy(given, compiled: bool, rng):
        """A copy of a state with nothing hidden, with a sampler of its own drawn from `rng`."""
        S = given.clone()
        if compiled:
            S.reseed(rng.below(1 << 62))
        else:
            S.rng = type(rng)(rng.below(1 << 62))
        return S


def _dealt(given, me: int, rng):
    """A copy of a state, its unseen places dealt anew (sampling.deal), others' pending secret choices forgotten."""
    S = given.clone()
    seen = Observer(S.rules, me, S.revealed, S)
    S.last = seen.last_move(S)  # (None where it is another's secret choice)
    for p in [p for p in S.pending if p != me]:
        del S.pending[p]
    sampling.deal(S, me, rng)
    S.rng = type(rng)(rng.below(1 << 62))  # the same stream as `rng` (see engine.rng), as a replayed sample's
    return S
