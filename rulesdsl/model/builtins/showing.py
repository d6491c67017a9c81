"""Built-ins that turn a zone's place face up for everyone (a showdown) and face down again."""

from __future__ import annotations

from ...lang.declare import builtin
from .places import place_of


@builtin("effects", effect=True)
def reveal(g, S, place) -> "none":
    """Show a zone's place (a hand, a cup of dice) to every player, whatever the zone's `visible:`, until
    hide() or remove_all() of it."""
    S.revealed = S.revealed | {place_of(g.game, S, place, "reveal")}


@builtin("effects", effect=True)
def hide(g, S, place) -> "none":
    """Show a zone's place only as the zone's `visible:` says again (undoes reveal())."""
    S.revealed = S.revealed - {place_of(g.game, S, place, "hide")}
