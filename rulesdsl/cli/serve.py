"""The `serve` command: the local web playground, a rule file in an editor beside its game."""

from __future__ import annotations

from ..serve.app import INSTALL_HINT
from ..serve.command import LOCAL, serve
from .common import at_least

HELP = f"a local web playground: the rule file in an editor beside the game (needs {INSTALL_HINT})"


def register(p) -> None:
    """serve's arguments."""
    p.add_argument("target", nargs="?", metavar="FILE_OR_FOLDER", help="the folder to serve, or a rule file "
                   "(its folder, the file opened first) or a bundled game's name; default: the current folder")
    p.add_argument("--host", default=LOCAL, help=f"the address to listen on (default {LOCAL}: this machine only)")
    p.add_argument("--port", type=at_least(1), default=8000, help="the port (default 8000)")
    p.add_argument("--open", action="store_true", help="open the page in a web browser")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME", help="also answer requests "
                   "addressed to this name (e.g. the machine's name on the network, with --host 0.0.0.0); repeatable")
    p.add_argument("--allow-view-as", action="store_true", help="let the page view a game as any seat, hidden "
                   "pieces and cards included (else only the seats the browser plays)")
    p.add_argument("--view-as-beyond-loopback", action="store_true", help="allow --allow-view-as when serving "
                   "beyond this machine (--host other than 127.0.0.1)")


def run(args) -> int:
    """Serve until stopped."""
    return serve(args.target, args.host, args.port, args.open, args.allow_host, args.allow_view_as,
                 args.view_as_beyond_loopback)
