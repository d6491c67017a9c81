"""What the playground keeps for its clients (games, replays, simulations): under unguessable tokens, each seen
only by the client that made it, bounded per client and in all."""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict


class NotFound(Exception):
    """No such item for this client: never made, let go, or another client's (the same answer for all three)."""


class Full(Exception):
    """Every place is taken by items in use: a new one is refused rather than anyone else's dropped."""


class Kept:
    """Items of one kind under tokens (`secrets.token_urlsafe`), each bound to the client that made it. A client
    holds at most `per_client` (a new one lets its own least recently used go); all clients together hold at
    most `total`, and beyond that a new item is refused (Full) unless one unused for `idle` seconds can go.
    Items for which `busy(item)` holds (a running simulation) are never let go."""

    def __init__(self, per_client: int, total: int, idle: float, busy=lambda item: False):
        self.per_client, self.total, self.idle, self.busy = per_client, total, idle, busy
        self._items: OrderedDict = OrderedDict()  # token -> [client, item, last used]; least recently used first
        self._lock = threading.Lock()

    def add(self, client: str, item) -> str:
        """Keep `item` for `client`; its token."""
        with self._lock:
            mine = [t for t, (c, kept, _) in self._items.items() if c == client and not self.busy(kept)]
            if len(mine) + self._busy_of(client) >= self.per_client:
                if not mine:
                    raise Full(f"{self.per_client} of yours are still running")
                del self._items[mine[0]]
            if len(self._items) >= self.total:
                now = time.monotonic()
                idle = next((t for t, (_, kept, used) in self._items.items()
                             if now - used > self.idle and not self.busy(kept)), None)
                if idle is None:
                    raise Full(f"the playground keeps {self.total} at most, and all are in use")
                del self._items[idle]
            token = secrets.token_urlsafe(24)
            self._items[token] = [client, item, time.monotonic()]
            return token

    def get(self, client: str, token) -> object:
        """The item under `token` if `client` made it (and it is kept still); NotFound otherwise."""
        with self._lock:
            found = self._items.get(token) if isinstance(token, str) else None
            if found is None or not secrets.compare_digest(found[0], client):
                raise NotFound()
            found[2] = time.monotonic()
            self._items.move_to_end(token)
            return found[1]

    def discard(self, client: str, token: str) -> None:
        """Let the item under `token` go (one whose making failed)."""
        with self._lock:
            found = self._items.get(token)
            if found is not None and found[0] == client:
                del self._items[token]

    def _busy_of(self, client: str) -> int:
        return sum(c == client and self.busy(kept) for c, kept, _ in self._items.values())
