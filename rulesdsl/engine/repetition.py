"""Position repetition (repeated(n)): a bounded key of each position a game leaves, and how often each was left.

Only a game whose rules call repeated() keeps them (Rules.counts_positions): one key a move applied, so what it
keeps is bounded by the game's length (State keeps them, and asks its Game for each key: Game.position_key). A position here is what the rules see of it: the board, the zones, the
variables (not the seat to move, the step or the turn count). A saved state writes the keys
(`positions`, serialize.py) and its arrays hold them (arrays.py), so a state read back counts as the original.

Keys are of one of two kinds, fixed by the game's layout (ir/layout.py). Where the layout holds the position in
whole numbers (every game the compiled backend runs), a key is worked out from those words (`words` keys), so that
every backend computes the same key; else from the position's JSON form (`text` keys).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

from .arrays import position_words
from .rng import GAMMA, MIX1, MIX2
from .serialize import position_text

__all__ = ["position_key", "words_key"]


def position_key(S) -> int:
    """The 64-bit key of the position of `S`, its board, zones and variables, the same in every process, on every
    machine and in every backend, so that a saved state's keys mean the same when read back: words_key() of its
    words where the layout holds it in words (Layout.position_keys), else BLAKE2b of its JSON form. The seat to
    move and the step are left out: the end rules, which ask repeated() most, are asked as a turn ends, before the
    turn passes (a game that needs whose turn it is counted keeps it in a variable)."""
    layout = S.game.layout
    if layout.position_in_words():
        return words_key(position_words(S, layout))
    text = position_text(S)
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")


def words_key(words) -> int:
    """The key of a position's words (int64): the sum, modulo 2**64, of SplitMix64's mix of each word plus its
    place times the golden gamma (engine/rng.py), word i as output i of a stream keyed by that word. A compiled
    backend prints the same sum (backends/compiled/positions.py)."""
    import numpy as np
    z = words.view(np.uint64) + _places(len(words))
    z = (z ^ (z >> np.uint64(30))) * np.uint64(MIX1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(MIX2)
    z ^= z >> np.uint64(31)
    return int(z.sum(dtype=np.uint64))


@lru_cache(maxsize=64)
def _places(n: int):
    """(i + 1) * GAMMA for i < n, modulo 2**64 (see words_key)."""
    import numpy as np
    return np.arange(1, n + 1, dtype=np.uint64) * np.uint64(GAMMA)
