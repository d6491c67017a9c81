"""The `lsp` command: the language server for editors, over stdin and stdout."""

from __future__ import annotations

from .. import __version__
from ..lsp.server import serve

HELP = "the language server for editors, over stdin and stdout (pip install 'rulesdsl[lsp]'; see docs/editors.md)"


def register(p) -> None:
    """lsp takes no arguments."""


def run(args) -> int:
    """Serve the editor until it disconnects."""
    return serve(__version__)
