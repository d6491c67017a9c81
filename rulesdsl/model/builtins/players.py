"""Built-ins of players: seats by name and names by seat, the seats round the table, and players leaving."""

from __future__ import annotations

from ...lang.builtins import RuleValueError, refused
from ...lang.declare import builtin
from ..values import text_of


@builtin("players", fold=True)
def name_of(g, player: "seat") -> "text":
    """The player's name."""
    try:
        return g.game.player_names[player]
    except (TypeError, IndexError):
        raise RuleValueError(f"name_of(): {player!r} is not a seat (seats are 0 to "
                             f"{g.game.num_players - 1})") from None


@builtin("players", fold=True)
def seat(g, name: "text") -> "seat":
    """The player with this name."""
    try:
        return g.game.player_names.index(name)
    except ValueError:
        raise RuleValueError(f"no player named '{name}'") from None


@builtin("players", reads="left")
def next_seat(g, S, player: "seat", k: "int" = 1) -> "seat":
    """The player k seats clockwise (k < 0: anticlockwise), passing over players who left the game."""
    count = g.game.num_players
    try:
        if S is None or not S.left:  # (S is None while the file loads: nobody has left yet)
            return (player + k) % count
        seat, step = player % count, 1 if k > 0 else -1
    except TypeError as exc:  # a player or k that is not a number
        raise refused("next_seat", exc) from None
    if len(S.left) >= count:
        raise RuleValueError("next_seat(): every player has left the game")
    for _ in range(abs(k)):
        seat = (seat + step) % count
        while seat in S.left:
            seat = (seat + step) % count
    return seat


@builtin("players", reads="left", yields="players")
def active_players(g, S) -> "list[seat]":
    """The seats still in the game, in seat order: every seat but those that left (see leave)."""
    seats = list(range(g.game.num_players))
    return seats if S is None or not S.left else [p for p in seats if p not in S.left]


@builtin("effects", effect=True)
def leave(g, S, player) -> "none":
    """Take a player out of the game for good: turns, simultaneous steps and winners by score pass them by."""
    if not isinstance(player, int) or isinstance(player, bool) or not 0 <= player < g.game.num_players:
        raise RuleValueError(f"leave(): {text_of(player)[:40]} is not a seat (seats are 0 to "
                             f"{g.game.num_players - 1})")
    if player not in S.left:  # leaving twice is leaving once
        S.left = S.left + (player,)
