"""Starting the playground: the folder to serve, the page to open first, the web server on a local port."""

from __future__ import annotations

import os
import sys
import threading
import webbrowser
from pathlib import Path

from ..errors import UsageError
from ..loading import resolve_path
from ..resources import package_dir
from .app import INSTALL_HINT, available, create_app
from .hosts import allowed_hosts, is_loopback

LOCAL = "127.0.0.1"


def serve(target: str | None, host: str = LOCAL, port: int = 8000, open_page: bool = False,
          allow_hosts: list[str] | None = None, view_as: bool = False, view_as_beyond_loopback: bool = False) -> int:
    """Serve the folder `target` (a rule file: its folder, opening that file first; a bundled game's name:
    the bundled games; none: the current folder) until interrupted. Exit 2 without the web libraries.
    `allow_hosts`: more names requests may be addressed to; `view_as`: clients may view any seat (refused
    beyond loopback unless `view_as_beyond_loopback` says so too)."""
    if not available():
        print(f"error: rulesdsl serve needs the web libraries: {INSTALL_HINT}", file=sys.stderr)
        return 2
    local = is_loopback(host)
    if view_as and not local and not view_as_beyond_loopback:
        raise UsageError(f"--allow-view-as would show every seat's hidden pieces and cards to anyone who can reach "
                         f"{host}:{port}", "serve on 127.0.0.1 to view games as any seat, or add "
                         "--view-as-beyond-loopback if that is what you want")
    folder, first = where(target)
    copies = copies_folder(folder)
    url = f"http://{host}:{port}/"
    print(f"rulesdsl playground of {folder} at {url} (Ctrl-C stops it)", flush=True)
    if copies is not None:
        print(f"{folder} is read-only here: Save writes a copy of the file into {copies}", flush=True)
    hosts = allowed_hosts(host, list(allow_hosts or []))
    if not local:
        print(exposure(folder, host, port, hosts, view_as), file=sys.stderr, flush=True)
    app = create_app(folder, first, host, view_as=view_as, hosts=hosts, copies=copies)
    app.state.workspace.start()  # the jails' children: forks of this process while it runs one thread (see jail.py)
    if open_page:
        threading.Timer(1.0, webbrowser.open, (url,)).start()
    import uvicorn  # the optional extra 'serve'
    uvicorn.run(app, host=host, port=port, log_level="warning")
    return 0


def exposure(folder: Path, host: str, port: int, hosts: list[str], view_as: bool) -> str:
    """What serving beyond this machine exposes, said plainly, with what still guards it and some advice."""
    seats = "; and, with --allow-view-as, see every seat's hidden pieces and cards" if view_as else ""
    return (f"warning: serving on {host}, beyond this machine: anyone who can reach port {port} can read every rule "
            f"file, game log and results file under {folder}, save rule files into it (replacing those there), "
            f"and make this machine play games and simulations with any rule file they write{seats}.\n"
            f"  Requests are answered only when addressed to one of: {', '.join(hosts)} "
            "(add a name with --allow-host NAME).\n"
            "  hint: serve a folder that holds nothing else, on a network you trust; or keep 127.0.0.1 and reach "
            f"it from elsewhere through an SSH tunnel (ssh -L {port}:127.0.0.1:{port} THIS-MACHINE).")


def copies_folder(folder: Path) -> Path | None:
    """Where Save writes copies when `folder` is not to be written (the installed package's games, which every
    later run would use, or a folder this user cannot write): the working folder; None when `folder` is writable."""
    here = Path.cwd().resolve()
    if folder == here:
        return None
    if folder == package_dir("games").resolve() or not os.access(folder, os.W_OK):
        return here
    return None


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
