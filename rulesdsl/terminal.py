"""Text bound for a terminal: the control characters a shared file could hide in it are shown, never sent raw."""

from __future__ import annotations

import re

# Every C0 control but the newline and the tab, which lay text out; every C1 control (0x9b begins a command on
# some terminals, as ESC [ does); and the marks that reorder the text shown after them (a name that reads
# backwards, or hides what follows). A terminal obeys these: ESC [ 2 J clears it, ESC ] 0 ; ... retitles it,
# a carriage return writes over the warning on its line.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x80-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _shown(found: re.Match) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(text: str) -> str:
    """`text` with each control character written as its escape (ESC as \\x1b): nothing a file says can move the
    cursor, clear or retitle the terminal, or hide what is printed. JSON printed so stays JSON: it escapes these
    characters itself, so they never reach this raw."""
    return _CONTROL.sub(_shown, text) if _CONTROL.search(text) else text


class SafeStream:
    """A text stream (the command's stdout or stderr) that writes what it is given through safe_text; `unescaped`
    is the stream itself, for the progress bar, whose carriage returns are its own."""

    def __init__(self, stream):
        self.unescaped = stream

    def write(self, text: str) -> int:
        return self.unescaped.write(safe_text(text))

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name):  # flush, isatty, encoding... as the stream itself has them
        return getattr(self.unescaped, name)
