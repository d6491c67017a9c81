"""Rule bundles: a rule file and its overlay chain read once, hashed, and compiled from memory; runs that
record the hash and refuse to resume on rules that changed."""

from __future__ import annotations

import json
import shutil
from io import StringIO

import pytest

from rulesdsl.bundle import bundle_document, read_bundle
from rulesdsl.engine.load import compile_game
from rulesdsl.errors import RulesError
from rulesdsl.sim.simulate import RunSpec, simulate

from .helpers import game_lines, notations, run_cli as run

BASE = """\
game: Fill the row
players: {count: 2, names: [north, south]}
board: {grid: {columns: abc, rows: 1}}
pieces: {mark: {attributes: {owner: [0, 1]}}}
moves:
  mark:
    params: {c: {in: cells}}
    when: "empty(c)"
    notation: "{c}"
    do: ["place(piece('mark', owner=me), c)"]
flow:
  steps:
    play: {moves: [mark], next: end_turn}
end:
  - when: "size(occupied()) == size(cells)"
    winners: "[]"
"""
MIDDLE = "extends: base.yaml\nboard: {grid: {columns: abcd, rows: 1}}\n"  # base.yaml: beside this file
TOP = "extends: sub/middle.yaml\ngame: Fill the longer row\n"


@pytest.fixture
def chain(tmp_path):
    """An overlay (top.yaml) extending sub/middle.yaml, which extends base.yaml in its own folder."""
    folder = tmp_path / "rules"
    (folder / "sub").mkdir(parents=True)
    (folder / "sub" / "base.yaml").write_text(BASE)
    (folder / "sub" / "middle.yaml").write_text(MIDDLE)
    (folder / "top.yaml").write_text(TOP)
    return folder


def test_a_bundle_holds_every_file_of_the_chain_and_compiles_without_them(chain):
    bundle = read_bundle(chain / "top.yaml")
    assert [name for name, _ in bundle.files] == [str(chain / "top.yaml"), str(chain / "sub" / "middle.yaml"),
                                                  str(chain / "sub" / "base.yaml")]
    assert [data for _, data in bundle.files] == [TOP.encode(), MIDDLE.encode(), BASE.encode()]
    shutil.rmtree(chain)  # nothing is read from disk any more
    game = compile_game(bundle_document(bundle), "top.yaml")
    assert game.name == "Fill the longer row"  # the top overlay's change
    assert notations(game.new_initial_state().legal_moves()) == ["a1", "b1", "c1", "d1"]  # the middle's board


def test_the_content_hash_changes_with_any_file_of_the_chain_and_only_then(chain):
    first = read_bundle(chain / "top.yaml").digest
    assert len(first) == 64 and read_bundle(chain / "top.yaml").digest == first
    (chain / "sub" / "base.yaml").write_text(BASE.replace("Fill the row", "Fill a row"))
    changed = read_bundle(chain / "top.yaml").digest
    assert changed != first
    (chain / "sub" / "base.yaml").write_text(BASE)
    assert read_bundle(chain / "top.yaml").digest == first


def test_a_bundle_of_a_bundled_game_holds_its_text(tmp_path):
    overlay = tmp_path / "short.yaml"
    overlay.write_text("extends: mabula\ngame: Mabula (mine)\n")
    bundle = read_bundle(overlay)
    assert len(bundle.files) == 2 and bundle.files[1][0].endswith("mabula.yaml")
    assert b"game: Mabula" in bundle.files[1][1]
    assert bundle_document(bundle).data["game"] == "Mabula (mine)"


def test_a_bundle_reports_the_problems_of_its_files_where_they_are(chain):
    (chain / "sub" / "middle.yaml").write_text("extends: missing.yaml\n")
    with pytest.raises(RulesError) as info:
        read_bundle(chain / "top.yaml")
    problem = info.value.problems[0]
    assert problem.location.file == str(chain / "sub" / "middle.yaml") and problem.location.line == 1
    assert "cannot find the base rule file 'missing.yaml'" in problem.message


def test_games_are_played_from_the_bundle_not_from_the_file_edited_since(chain):
    spec = RunSpec(str(chain / "top.yaml"), None, (), None, ("random", "random"), 3)
    before = StringIO()
    simulate(spec, 4, before)
    bundled = RunSpec(spec.file, None, (), None, spec.agents, 3, read_bundle(spec.file))
    (chain / "sub" / "middle.yaml").write_text(MIDDLE.replace("abcd", "abcdef"))  # edited after the run began
    during = StringIO()
    simulate(bundled, 4, during, workers=2)
    assert during.getvalue() == before.getvalue()
    assert all(json.loads(line)["plies"] == 4 for line in before.getvalue().splitlines())  # four cells to fill


def test_results_record_the_hash_and_resume_refuses_rules_changed_since(capsys, chain, tmp_path):
    out = tmp_path / "r.jsonl"
    base = ["simulate", str(chain / "top.yaml"), "--seed", "1", "--agents", "random,random", "--quiet",
            "--out", str(out)]
    assert run(capsys, *base, "--games", "3")[0] == 0
    digest = read_bundle(chain / "top.yaml").digest
    assert [line["rules_sha256"] for line in game_lines(out)] == [digest] * 3
    (chain / "sub" / "base.yaml").write_text(BASE + "\n# a comment is a change too\n")
    code, _, err = run(capsys, *base, "--games", "5", "--resume")
    assert code == 2
    assert f"{out}:2 holds another run: rules with content hash {digest[:12]}..." in err
    assert "changed since the run began" in err
    (chain / "sub" / "base.yaml").write_text(BASE)  # the same rules again: the run completes
    code, text, _ = run(capsys, *base, "--games", "5", "--resume")
    assert code == 0 and "5 games" in text


def test_results_files_that_record_no_hash_still_resume(capsys, tmp_path):
    out, full = tmp_path / "old.jsonl", tmp_path / "full.jsonl"
    base = ["simulate", "mabula", "--seed", "4", "--agents", "random,random", "--quiet"]
    run(capsys, *base, "--games", "4", "--out", str(full))
    lines = game_lines(full)
    out.write_text("".join(json.dumps({k: v for k, v in line.items() if k != "rules_sha256"}) + "\n"
                           for line in lines[:2]))
    code, text, _ = run(capsys, *base, "--games", "4", "--out", str(out), "--resume")
    assert code == 0 and "Mabula: 4 games" in text
    assert [line["seed"] for line in game_lines(out)] == [line["seed"] for line in lines]
