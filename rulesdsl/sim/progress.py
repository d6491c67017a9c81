"""Progress of a long run on stderr: a bar on a terminal, a plain line every few seconds otherwise (a log, CI)."""

from __future__ import annotations

import sys
import time

from tqdm import tqdm

from ..terminal import safe_text

PLAIN_EVERY = 5.0  # seconds between plain progress lines


class PlainProgress:
    """tqdm's update/close for a stream that is not a terminal: 'LABEL: 120 of 600 games (20%), 3.1 s'."""

    def __init__(self, total: int, initial: int, label: str, unit: str, stream):
        self.total, self.done, self.label, self.unit, self.stream = total, initial, label, unit, stream
        self.start = self.last = time.monotonic()

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if now - self.last >= PLAIN_EVERY:
            self.last = now
            self._line(now)

    def close(self) -> None:
        if self.last != self.start:  # a run long enough to have shown progress says where it ended
            self._line(time.monotonic())

    def _line(self, now: float) -> None:
        share = f" ({self.done / self.total:.0%})" if self.total else ""
        print(f"{self.label}: {self.done:,} of {self.total:,} {self.unit}s{share}, {now - self.start:.1f} s",
              file=self.stream, flush=True)


def show_progress(total: int, label: str, unit: str = "game", initial: int = 0, stream=None):
    """A progress display with update(n) and close(): tqdm's bar when `stream` (stderr) is a terminal. The bar
    writes its own carriage returns, so it is given the stream itself (see terminal.SafeStream) and a label whose
    control characters are escaped (a game's name may hold some)."""
    stream = stream or sys.stderr
    if getattr(stream, "isatty", lambda: False)():
        return tqdm(total=total, initial=initial, unit=unit, desc=safe_text(label), leave=False,
                    file=getattr(stream, "unescaped", stream))
    return PlainProgress(total, initial, label, unit, stream)


def note(display, text: str) -> None:
    """Print a line of its own above a progress display (a bar stays below it)."""
    if isinstance(display, tqdm):
        display.write(safe_text(text), file=display.fp)
    else:
        print(text, file=display.stream, flush=True)
