"""`rulesdsl serve`: what it serves, and the one line it prints without the web libraries."""

from __future__ import annotations

import json
from pathlib import Path

from rulesdsl.cli import build_parser, main
from rulesdsl.loading import bundled_games
from rulesdsl.serve import command


def test_without_the_extra_serve_names_the_install_command(monkeypatch, capsys):
    monkeypatch.setattr(command, "available", lambda: False)
    assert main(["serve"]) == 2
    assert capsys.readouterr().err == "error: rulesdsl serve needs the web libraries: pip install 'rulesdsl[serve]'\n"


def test_the_folder_served_and_the_file_opened_first(tmp_path, monkeypatch):
    rule_file = tmp_path / "mine.yaml"
    rule_file.write_text("game: x\n", encoding="utf-8")
    assert command.where(str(tmp_path)) == (tmp_path.resolve(), None)
    assert command.where(str(rule_file)) == (tmp_path.resolve(), "mine.yaml")
    assert command.where("mabula") == (bundled_games()["mabula"].resolve().parent, "mabula.yaml")
    monkeypatch.chdir(tmp_path)
    assert command.where(None) == (Path.cwd(), None)


def test_a_missing_target_is_a_usage_error(tmp_path, capsys):
    assert main(["serve", str(tmp_path / "nothing.yaml")]) == 2
    assert "no such rule file or folder" in capsys.readouterr().err


def test_the_server_listens_on_this_machine_only_by_default():
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.target) == ("127.0.0.1", 8000, None)


def test_the_editor_bundle_is_shipped_built_from_the_locked_versions():
    root = Path(__file__).resolve().parent.parent
    bundle = root / "rulesdsl" / "serve" / "static" / "editor.js"
    assert bundle.stat().st_size > 100_000 and b"RulesEditor" in bundle.read_bytes()[:200]
    wanted = json.loads((root / "playground" / "package.json").read_text(encoding="utf-8"))["devDependencies"]
    locked = json.loads((root / "playground" / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    assert {name: locked[f"node_modules/{name}"]["version"] for name in wanted} == wanted
