"""Starting the playground: the folder to serve, the page to open first, the web server on a local port."""

from __future__ import annotations

import sys
import threading
import webbrowser
from pathlib import Path

from ..errors import UsageError
from ..loading import resolve_path
from .app import INSTALL_HINT, available, create_app

LOCAL = "127.0.0.1"


def serve(target: str | None, host: str = LOCAL, port: int = 8000, open_page: bool = False) -> int:
    """Serve the folder `target` (a rule file: its folder, opening that file first; a bundled game's name:
    the bundled games; none: the current folder) until interrupted. Exit 2 without the web libraries."""
    if not available():
        print(f"error: rulesdsl serve needs the web libraries: {INSTALL_HINT}", file=sys.stderr)
        return 2
    folder, first = where(target)
    url = f"http://{host}:{port}/"
    print(f"rulesdsl playground of {folder} at {url} (Ctrl-C stops it)", flush=True)
    if host != LOCAL:
        print(f"warning: serving on {host}: anyone who can reach it may read and save the rule files in "
              f"{folder}", file=sys.stderr)
    if open_page:
        threading.Timer(1.0, webbrowser.open, (url,)).start()
    import uvicorn  # the optional extra 'serve'
    uvicorn.run(create_app(folder, first, host), host=host, port=port, log_level="warning")
    return 0


def where(target: str | None) -> tuple[Path, str | None]:
    """(the folder to serve, the rule file to open first, relative to it) for `rulesdsl serve [target]`."""
    if target is None:
        return Path.cwd(), None
    path = Path(target)
    if path.is_dir():
        return path.resolve(), None
    found = resolve_path(target)
    if not found.is_file():
        raise UsageError(f"no such rule file or folder: {target}", "name a rule file, a folder, or a bundled game "
                         "(rulesdsl games lists them)")
    return found.resolve().parent, found.name
