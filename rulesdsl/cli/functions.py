"""The `functions` command: list the built-in functions of the rules language."""

from __future__ import annotations

from ..model.builtins import builtin_reference

HELP = "list the built-in functions of the rules language"


def register(p) -> None:
    """functions' arguments."""
    p.add_argument("--markdown", action="store_true", help="as markdown tables (as in docs/language.md)")


def run(args) -> int:
    """Print the reference."""
    print(builtin_reference(args.markdown))
    return 0
