"""Position repetition (repeated(n)): a bounded key of each position a game leaves, and how often each was left.

Only a game whose rules call repeated() keeps them (Rules.counts_positions): one key a move applied, so what it
keeps is bounded by the game's length. A position here is what the rules see of it: the board, the zones, the
variables (not the seat to move, the step or the turn count). A saved state writes the keys
(`positions`, serialize.py) and its arrays hold them (arrays.py), so a state read back counts as the original.
"""

from __future__ import annotations

import hashlib
import json

from .serialize import encode, tally

__all__ = ["position_key", "tally"]


def position_key(S) -> int:
    """The 64-bit key of the position of `S`, its board, zones and variables: BLAKE2b of their JSON form
    (serialize.encode), the same in every process and on every machine, so that a saved state's keys mean the same
    when read back. The seat to move and the step are left out: the end rules, which ask repeated() most, are asked
    as a turn ends, before the turn passes (a game that needs whose turn it is counted keeps it in a variable)."""
    text = position_text(S)
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")


def position_text(S) -> str:
    """The board, zones and variables of `S` in their JSON form (serialize.encode), one line."""
    return json.dumps([encode(S.cells), encode(S.zones), encode(S.vars)], separators=(",", ":"))
