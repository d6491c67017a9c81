"""What the parts of the model compiler share: the failure marker and small naming and message helpers."""

from __future__ import annotations

from ..lang.builtins import RuleValueError
from ..lang.compiler import Binding, Scope

_FAIL = object()  # marks an expression that did not compile (its problem is already recorded)
_BROKEN = Binding("", kind="broken")  # a name whose definition failed: uses of it are not reported again


def _flatten(scope: Scope) -> dict:
    chain = []
    while scope is not None:
        chain.append(scope.names)
        scope = scope.parent
    merged = {}
    for names in reversed(chain):
        merged.update(names)
    return merged


def _ident(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in str(name))


def _describe(exc: Exception) -> str:
    if isinstance(exc, RuleValueError):
        return str(exc)
    if isinstance(exc, (KeyError, IndexError)):
        return f"no entry {exc}" if isinstance(exc, KeyError) else "index out of range"
    if isinstance(exc, ZeroDivisionError):
        return "division by zero"
    if isinstance(exc, TypeError):
        return f"wrong kind of value ({exc})"
    if isinstance(exc, MemoryError):  # the address space a jail allows is full (jail.py)
        return "it needed more memory than the process may use"
    return str(exc) or type(exc).__name__
