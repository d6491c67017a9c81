"""A report written to a folder: PNG charts, report.txt and games.csv; or report.html and games.csv."""

from __future__ import annotations

import csv
from pathlib import Path

from .report import Analysis, games_rows, text_report
from .report_charts import chart_images
from .report_html import render

FORMATS = ("png", "html")


def write_report(analysis: Analysis, folder: Path, format: str = "png") -> list[Path]:
    """Write the report of `analysis` into `folder` (created if needed) as `format`; returns the files written.
    The text and games.csv come first, so that they are there even when matplotlib (for the charts) is not."""
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "games.csv", "w", encoding="utf-8", newline="") as out:
        csv.writer(out).writerows(games_rows(analysis))
    written = [folder / "games.csv"]
    if format == "html":
        written.append(_write(folder / "report.html", render(analysis)))
        return written
    written.append(_write(folder / "report.txt", text_report(analysis) + "\n"))
    for name, png in chart_images(analysis).items():
        (folder / name).write_bytes(png)
        written.append(folder / name)
    return written


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path
