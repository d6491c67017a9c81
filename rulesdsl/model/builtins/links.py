"""Built-ins that follow the board's declared links: one step, a walk of several, or the route with its keys."""

from __future__ import annotations

from ...lang.builtins import RuleValueError, refused
from ...lang.checked import check_count
from ...lang.declare import builtin

_LONGEST_KEPT = 256  # routes of more steps are worked out each time: kept, a few long ones would fill memory


def _no_link(name, key) -> RuleValueError:
    return RuleValueError(f"no link '{name}'" + (f" for {key!r}" if key is not None else ""))


@builtin("board", fold=True)
def link(g, name, c, key=None) -> "cell | none":
    """Where a declared link leads from c (per key, e.g. per colour), or none."""
    try:
        table = g.board.links[name][key]
    except KeyError:
        raise _no_link(name, key) from None
    except TypeError as exc:  # a name or key a table cannot hold (a list)
        raise refused("link", exc) from None
    try:
        return None if c is None else table[c]
    except (TypeError, IndexError) as exc:  # c is no cell
        raise refused("link", exc) from None


@builtin("board", fold=True)
def walk(g, name: "text", c, steps: "int", key=None) -> "list[cell] | none":
    """The cells passed by following a link `steps` times, or none if it runs out."""
    path = _route(g, name, c, steps, key, "walk")
    return None if path is None else [cell for cell, _ in path]


@builtin("board", fold=True)
def route(g, name, c, steps, key=None) -> "list[tuple[cell, arg(key)]] | none":
    """Like walk, but each step as a pair (cell, key): the key a link switched to (e.g. a fast lane)."""
    try:  # looked up here first, not in _route: rules ask for routes in their innermost loops
        found = g.routes[name, c, steps, key]
        return None if found is None else list(found)
    except (KeyError, TypeError):  # not worked out yet, or an unhashable argument (reported by _route)
        return _route(g, name, c, steps, key, "route")


def _route(g, name, c, steps, key, fn: str):
    """The route of walk() and route() (built-in `fn`), worked out once per game for each set of arguments."""
    routes = g.routes  # the route depends on the board alone: worked out once per game
    try:
        found = routes[name, c, steps, key]
        return None if found is None else list(found)
    except (KeyError, TypeError):  # not worked out yet, or an unhashable argument (reported below)
        pass
    check_count(steps, f"the cells of {fn}()")
    try:
        path = _follow(g.board, name, c, steps, key)
    except (TypeError, IndexError) as exc:  # c is no cell, steps no whole number, or a name or key a list
        raise refused(fn, exc) from None
    if len(routes) < 1 << 16 and steps <= _LONGEST_KEPT:
        try:
            routes[name, c, steps, key] = None if path is None else tuple(path)
        except TypeError:
            pass
    return path


def _follow(board, name, c, steps, key):
    try:
        tables, switches = board.links[name], board.link_switches[name]
        table, switch = tables[key], switches[key]
    except KeyError:
        raise _no_link(name, key) from None
    path = []
    for _ in range(steps):
        nxt = table[c]
        if nxt is None:
            return None
        if switch[c] is not None:
            key = switch[c]
            table, switch = tables[key], switches[key]
        c = nxt
        path.append((c, key))
    return path
