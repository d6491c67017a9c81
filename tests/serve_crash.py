"""A job only tests register: the playground's game step, in processes where a rule's `distinct` of a text that
begins 'segfault' crashes the interpreter (it reads address 0, as the jail's tests do).

No rule file can crash the interpreter now: a tuple nested a million deep and hashed by `distinct` once did, and is
refused at its 31st level (values nest at most 30 deep). This puts a crash back where rule code runs, inside a move,
so that a real playground server can be shown to outlive one. A server that imports this module first (see
helpers.serving) runs its game steps through `game_action` here, and a jail's child started afresh imports this
module to find that job by its name, so the crash is in every child that plays a game.
"""

from __future__ import annotations

import ctypes
import functools

from rulesdsl.lang.builtins import pure_builtins
from rulesdsl.serve import work

_DISTINCT = pure_builtins()["distinct"]
_distinct = _DISTINCT.fn
_game_action = work.game_action


@functools.wraps(_distinct)
def _crashing_distinct(xs):
    if isinstance(xs, str) and xs.startswith("segfault"):
        ctypes.string_at(0)  # SIGSEGV
    return _distinct(xs)


def game_action(*args):
    """work.game_action, named by this module."""
    return _game_action(*args)


_DISTINCT.fn = _crashing_distinct  # the games compiled from now on call it
work.game_action = game_action  # the workspace sends this job
