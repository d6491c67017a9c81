"""What rule code keeps in a position: the items its values hold, counted as they are written (see Position.held)."""

from __future__ import annotations

from ..limits import MAX_STATE_ITEMS
from .reach import RuleValue

_PLAIN = {int, float, bool, type(None)}  # classes whose values hold no other value; cells and pieces join when met
_HOLDING = {str, list, tuple, range, dict}  # classes whose values hold some; records and the like join when met


def _plain(kind: type) -> bool:
    """Whether values of `kind` hold no other value (numbers, cells, pieces: a piece's attributes are its own)."""
    if kind in _PLAIN:
        return True
    if kind in _HOLDING:
        return False
    plain = issubclass(kind, RuleValue) and not kind.holds_values  # read from the class: see RuleValue
    (_PLAIN if plain else _HOLDING).add(kind)
    return plain


def items(value, limit: int = MAX_STATE_ITEMS) -> int:
    """How many items `value` holds: one per item of a list, tuple or range, per character of a text and per field
    of a record, two per entry of a table, with those of the values inside it, each as often as it is held (as the
    value is saved, copied and compared). Counting stops once past `limit`, so that it never costs more than that."""
    count, todo = 0, [value]
    while todo:
        value = todo.pop()
        kind = value.__class__
        if kind in _PLAIN or kind not in _HOLDING and _plain(kind):
            continue
        if kind is str:
            count += len(value)
            continue
        if isinstance(value, (list, tuple, range)):
            inner = value
        elif isinstance(value, dict):
            inner = [*value, *value.values()]
        elif isinstance(value, RuleValue):  # (a record: see _plain)
            inner = list(vars(value).values())
        else:
            continue
        count += len(inner)
        if count > limit:
            return count
        if len(inner) > 16 and set(map(type, inner)) <= _PLAIN:  # (the kinds found in one pass of C)
            continue
        for item in inner:
            if item.__class__ not in _PLAIN:
                todo.append(item)
    return count


def hold(S, value, entry: int = 0):
    """`value`, which rule code is about to write into the position S: the items it holds, and `entry` more for a
    write that may add an entry to a table, are added to S.held, which so never falls short of what S holds."""
    kind = value.__class__  # (a count cut short at the limit is past the bound all the same: the engine then counts)
    if kind in _PLAIN:
        S.held += entry
    elif kind is str:
        S.held += entry + len(value)
    else:
        S.held += entry + items(value)
    return value
