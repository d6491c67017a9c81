"""Position repetition (repeated(n)): a bounded key of each position a game leaves, and how often each was left.

Only a game whose rules call repeated() keeps them (Rules.counts_positions): one key a move applied, so what it
keeps is bounded by the game's length. A position here is what the rules see of it: the board, the zones, the
variables, the seat to move and the step (not the turn count, which never repeats). A saved state writes the keys
(`positions`, serialize.py) and its arrays hold them (arrays.py), so a state read back counts as the original.
"""

from __future__ import annotations

import hashlib
import json

from .serialize import encode, tally

__all__ = ["position_key", "tally"]


def position_key(S) -> int:
    """The 64-bit key of the position of `S`: BLAKE2b of its JSON form (serialize.encode), the same in every
    process and on every machine, so that a saved state's keys mean the same when read back."""
    text = json.dumps([S.step, S.player, encode(S.cells), encode(S.zones), encode(S.vars)], separators=(",", ":"))
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")
