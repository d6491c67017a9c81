"""The `report` command: a balance report on results files, as text, charts, games.csv or one HTML page."""

from __future__ import annotations

import sys
from pathlib import Path

from ..sim.report import analyse, text_report
from ..sim.report_files import FORMATS, write_report
from ..sim.report_html import render as render_html
from .common import given_rules

HELP = ("a balance report on a results file: win rates, variants compared, first player, scores, game length, rule "
        "coverage; charts, games.csv, or one HTML page")


def register(p) -> None:
    """report's arguments."""
    p.add_argument("results", nargs="+", help="results .jsonl files written by simulate --out; with several, "
                   "each rule file and variant is compared with the first (game by game when they share seeds)")
    p.add_argument("--out", help="folder for the files: the charts (PNG), report.txt and games.csv; with --format "
                   "html, report.html and games.csv")
    p.add_argument("--format", choices=FORMATS, default="png", help="png (default) or html: one "
                   "self-contained page (printed when there is no --out)")
    p.add_argument("--rules", help="read the games with this rule file instead of the one the results name")


def run(args) -> int:
    """Print the report (the HTML page itself, without --out), and write its files to --out."""
    analysis = analyse(args.results, given_rules(args.rules))
    if args.format == "html" and not args.out:
        sys.stdout.write(render_html(analysis))
        return 0
    print(text_report(analysis))
    if args.out:
        for path in write_report(analysis, Path(args.out), args.format):
            print(f"wrote {path}")
    return 0
