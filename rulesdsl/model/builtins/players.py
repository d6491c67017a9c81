"""Built-ins of players: seats by name and names by seat, and the seats round the table."""

from __future__ import annotations

from ...lang.builtins import RuleValueError, refused
from ...lang.declare import builtin


@builtin("players", fold=True)
def name_of(g, player):
    """The player's name."""
    try:
        return g.game.player_names[player]
    except (TypeError, IndexError):
        raise RuleValueError(f"name_of(): {player!r} is not a seat (seats are 0 to "
                             f"{g.game.num_players - 1})") from None


@builtin("players", fold=True)
def seat(g, name):
    """The player with this name."""
    try:
        return g.game.player_names.index(name)
    except ValueError:
        raise RuleValueError(f"no player named '{name}'") from None


@builtin("players", fold=True)
def next_seat(g, player, k=1):
    """The player k seats clockwise."""
    try:
        return (player + k) % g.game.num_players
    except TypeError as exc:  # a player or k that is not a number
        raise refused("next_seat", exc) from None
