"""An internal error of the playground, as the command line reports one: the traceback saved to a file, one line
said instead. The file is made private (owner only, a name nobody can guess), in the temporary folder."""

from __future__ import annotations

import os
import sys
import tempfile
import traceback


def crash_note(exc: BaseException, doing: str) -> str:
    """Save the traceback of `exc` (met while `doing` something); the line that tells the user where it is."""
    what = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
    said = f"internal error ({what}) while {doing[:200]}: this is a bug in rulesdsl, not in your files"
    try:
        fd, path = tempfile.mkstemp(prefix="rulesdsl-crash-", suffix=".txt")
        with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as out:
            out.write(f"rulesdsl serve, Python {sys.version.split()[0]}, {sys.platform}\nwhile {doing}\n\n")
            out.write("".join(traceback.format_exception(exc)))
    except OSError:
        return said
    return f"{said}; the details are in {path} (please include them in a bug report)"
