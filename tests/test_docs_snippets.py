"""The documentation's snippets run as printed: Python blocks and `>>>` sessions run, console blocks print what they
show (see tests/markdown_snippets.py for the markers and the normalisation), and the tutorial builds its example."""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import subprocess
import sys

import pytest
import yaml

import rulesdsl
from rulesdsl.cli import main
from rulesdsl.engine.perft import perft

from . import markdown_snippets as md
from .helpers import ROOT

DOCS = ["README.md"] + sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))
BLOCKS = [block for doc in DOCS for block in md.blocks(ROOT, doc)]
TIMEOUT = 600  # seconds for one Python snippet; the slowest take under a minute
# Snippets and commands that take more than a few seconds (simulations of the larger games, a profile): slow tests.
SLOW = ("simulate mark ", "simulate marble-chase ", "profile ", 'simulate("games/mark.yaml", 100, ["greedy"')
# The folders of the repository a console command can name from the folder it runs in.
LINKED = ("games", "examples", "schemas", "docs")


def _env() -> dict:
    # this checkout's rulesdsl, wherever the snippet runs
    return {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}


def _slow(text: str) -> bool:
    return any(word in text for word in SLOW)


def _param(block: md.Block, slow: bool):
    marks = [pytest.mark.slow] if slow else []
    if block.skipped():
        marks.append(pytest.mark.skip(reason=f"{block.where}: {block.skipped()}"))
    return pytest.param(block, id=block.where, marks=marks)


PYTHON = [b for b in BLOCKS if b.lang == "python"]
CONSOLE = [b for b in BLOCKS if b.lang == "console" and (b.skipped() or any(map(md.shown, md.commands(b))))]


def test_the_snippets_are_found():
    # the parsing itself can fail: the blocks the documentation is known to have must be found
    wheres = {b.where.split(":")[0] for b in PYTHON + CONSOLE}
    assert {"README.md", "docs/tutorial.md", "docs/errors.md", "docs/language.md"} <= wheres
    assert any(b.text.startswith(">>>") for b in PYTHON)
    assert sum(len(md.commands(b)) for b in CONSOLE) >= 10


def test_every_marker_is_known_and_says_why():
    markers = [(b.where, b.marker) for b in BLOCKS if b.marker]
    unknown = [(where, m) for where, m in markers if not md.known_marker(m)]
    assert not unknown, f"snippet markers not understood: {unknown}"


@pytest.mark.parametrize("block", [_param(b, _slow(b.text)) for b in PYTHON])
def test_python_snippet_runs_as_printed(block, tmp_path):
    script = tmp_path / ("session.txt" if block.text.lstrip().startswith(">>>") else "snippet.py")
    script.write_text(block.text, encoding="utf-8")
    # a >>> session is a doctest of a text file; a block of code a script; both from the repository's root
    argv = ["-m", "doctest", "-o", "ELLIPSIS", str(script)] if script.suffix == ".txt" else [str(script)]
    done = subprocess.run([sys.executable, *argv], cwd=ROOT, env=_env(), capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == 0, f"{block.where} fails as printed:\n{block.text}\n{done.stdout}{done.stderr}"


@pytest.fixture(scope="module")
def workspaces(tmp_path_factory):
    """doc -> (the folder its console blocks run in, the lines of the blocks run there so far)."""
    return {}


def _workspace(workspaces, tmp_path_factory, block: md.Block):
    """The folder a block's commands run in, one per Markdown file: the repository's folders linked in it, and the
    files the text has built so far written (edited as the block's marker says)."""
    if block.doc not in workspaces:
        folder = tmp_path_factory.mktemp("docs")
        for name in LINKED:
            (folder / name).symlink_to(ROOT / name, target_is_directory=True)
        workspaces[block.doc] = (folder, set())
    folder, _ = workspaces[block.doc]
    for name, text in block.files:
        (folder / name).write_text(text, encoding="utf-8")
    edited = md.edit(block.marker)
    if edited:
        name, old, new = edited
        path = folder / name
        assert old in path.read_text(encoding="utf-8"), f"{block.where}: {name} has no {old!r} to edit"
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    return folder


def _run(command: md.Command, cwd, monkeypatch) -> tuple[int, str]:
    """The command's exit code and what it printed, stdout and stderr in the order printed."""
    monkeypatch.chdir(cwd)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(printed):
        try:
            code = main(list(command.argv))
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code
    return code, printed.getvalue()


@pytest.mark.parametrize("block", [_param(b, any(_slow(c.line) for c in md.commands(b))) for b in CONSOLE])
def test_console_snippet_prints_what_it_shows(block, workspaces, tmp_path_factory, monkeypatch):
    cwd = _workspace(workspaces, tmp_path_factory, block)
    ran = workspaces[block.doc][1]
    for earlier in CONSOLE:  # the files that earlier blocks write, e.g. a results file a later block replays
        if earlier.doc == block.doc and earlier.line < block.line and earlier.line not in ran and not earlier.skipped():
            for command in filter(md.shown, md.commands(earlier)):
                if not _slow(command.line):
                    _run(command, cwd, monkeypatch)
    ran.add(block.line)
    folders = [str(cwd), str(cwd.resolve()), str(ROOT)]
    wrong = []
    for command in filter(md.shown, md.commands(block)):
        code, out = _run(command, cwd, monkeypatch)
        assert code != 3 and "Traceback" not in out, f"{block.where}: {command.line}\n{out}"
        printed, actual = md.normalised("\n".join(command.output), []), md.normalised(out, folders)
        if block.marker and block.marker.startswith("only locations compared"):
            assert code == 0, f"{block.where}: {command.line}\n{out}"
            stale = md.locations(printed) - md.locations(actual)
            if stale:
                wrong.append(f"$ {command.line}\nlocations it no longer prints: {sorted(stale)}")
            continue
        if not md.matches(printed, actual):
            diff = "\n".join(difflib.unified_diff(printed, actual, "printed", "now", lineterm=""))
            wrong.append(f"$ {command.line}\n{diff}")
    assert not wrong, f"{block.where}: the output printed is not what the command prints:\n" + "\n\n".join(wrong)


# -- the normalisation compares what it should -------------------------------------------------------------------


def test_any_lines_match_dots_and_nothing_else():
    assert md.matches(["a", "...", "d"], ["a", "b", "c", "d"])
    assert md.matches(["a", "...", "d"], ["a", "d"])
    assert md.matches(["a", "..."], ["a"])
    assert not md.matches(["a", "...", "d"], ["a", "b", "c"])
    assert not md.matches(["a", "b"], ["a", "b", "c"])
    assert not md.matches(["a", "b"], ["a", "c"])


def test_only_timings_paths_and_progress_are_normalised():
    out = ("/tmp/x/games/mabula.yaml:3: slow\nMabula: 500 of 1,000 games (50%), 5.1 s\n  white  544   54.4%\n"
           "  1000 games in 0.51 s (1,972 games/s)   \n\n")
    assert md.normalised(out, ["/tmp/x"]) == ["games/mabula.yaml:3: slow", "  white  544   54.4%",
                                              "  1000 games in T s (N games/s)"]
    # a count, a rate in percent, a seat's wins are compared
    printed = md.normalised("  white  545   54.4%\n  1000 games in 9.99 s (7 games/s)", [])
    assert not md.matches(printed, md.normalised(out, ["/tmp/x"])[1:])


def test_a_block_for_a_key_already_in_the_file_replaces_it_where_it_stands():
    text = "# head\ngame: x\nflow:\n  steps: {}\n\nend:\n  - when: 'true'\n"
    assert md.add_block(text, "flow:\n  first: 1\n  steps: {}\n") == (
        "# head\ngame: x\nflow:\n  first: 1\n  steps: {}\n\nend:\n  - when: 'true'\n")
    assert md.add_block(text, "vars:\n  a: 1\n") == text + "\nvars:\n  a: 1\n"


def test_markers_and_built_files_are_read_from_the_text(tmp_path):
    (tmp_path / "page.md").write_text(
        "# A\n\nCreate `g.yaml`:\n\n```yaml\ngame: x\n```\n\n<!-- snippet: not run, needs a cluster -->\n"
        "```python\nconnect()\n```\n\n```yaml\nflow: {}\n```\n\n"
        '<!-- snippet: g.yaml edited: "x" -> "y" -->\n```console\n$ rulesdsl validate g.yaml  # check\nok\n'
        "$ rulesdsl play g.yaml\n```\n\n# B\n\n```yaml\nend: []\n```\n", encoding="utf-8")
    found = md.blocks(tmp_path, "page.md")
    assert [(b.lang, b.line) for b in found] == [("yaml", 5), ("python", 10), ("yaml", 14), ("console", 19),
                                                 ("yaml", 27)]
    assert found[1].skipped() == "needs a cluster" and found[1].where == "page.md:10"
    assert dict(found[3].files) == {"g.yaml": "game: x\n\nflow: {}\n"}
    assert dict(found[4].files) == dict(found[3].files)  # a new part of the text builds no more
    assert md.edit(found[3].marker) == ("g.yaml", "x", "y")
    assert [(c.argv, c.output, md.shown(c)) for c in md.commands(found[3])] == [
        (("validate", "g.yaml"), ("ok",), True), (("play", "g.yaml"), (), False)]
    assert not md.known_marker("not run") and not md.known_marker("skip this")


# -- the tutorial builds the example it names ----------------------------------------------------------------------


def _tutorial_file() -> tuple[str, str]:
    built = [dict(b.files) for b in md.blocks(ROOT, "docs/tutorial.md") if b.files]
    assert built and "three.yaml" in built[-1], "docs/tutorial.md no longer says 'Create `three.yaml`:'"
    return "three.yaml", built[-1]["three.yaml"]


def test_the_tutorials_file_is_the_example_it_names(tmp_path):
    name, text = _tutorial_file()
    example = ROOT / "examples" / "tutorial" / "three-in-a-row.yaml"
    assert yaml.safe_load(text) == yaml.safe_load(example.read_text(encoding="utf-8"))
    built = tmp_path / name
    built.write_text(text, encoding="utf-8")
    # the same rules: the same move paths, in either variant and from either first player
    for kwargs in [{}, {"variant": "misere"}, {"options": {"first": "nought"}}]:
        counts = [perft(rulesdsl.load_game(str(path), **kwargs).new_initial_state(), 4) for path in (built, example)]
        assert counts[0] == counts[1], kwargs
