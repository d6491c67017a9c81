"""`rulesdsl serve`: what it serves, and the one line it prints without the web libraries."""

from __future__ import annotations

import json
from pathlib import Path

from rulesdsl.cli import build_parser, main
from rulesdsl.loading import bundled_games
from rulesdsl.serve import command
from rulesdsl.serve.hosts import allowed_hosts, is_loopback, machine_names


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


def test_viewing_as_any_seat_beyond_this_machine_needs_a_second_flag(monkeypatch, capsys):
    monkeypatch.setattr(command, "available", lambda: True)
    assert main(["serve", "--host", "0.0.0.0", "--allow-view-as"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --allow-view-as would show every seat's hidden pieces and cards to anyone who can "
                          "reach 0.0.0.0:8000")
    assert "--view-as-beyond-loopback" in err
    args = build_parser().parse_args(["serve", "--allow-view-as", "--allow-host", "a.lan", "--allow-host", "b.lan"])
    assert (args.allow_view_as, args.view_as_beyond_loopback, args.allow_host) == (True, False, ["a.lan", "b.lan"])


def test_serving_beyond_this_machine_says_what_it_exposes(tmp_path):
    said = command.exposure(tmp_path, "0.0.0.0", 8000, ["127.0.0.1", "localhost", "box"], view_as=False)
    assert said.startswith(f"warning: serving on 0.0.0.0, beyond this machine: anyone who can reach port 8000 can "
                           f"read every rule file, game log and results file under {tmp_path}, save rule files into "
                           "it (replacing those there), and make this machine play games and simulations")
    assert "addressed to one of: 127.0.0.1, localhost, box (add a name with --allow-host NAME)" in said
    assert "ssh -L 8000:127.0.0.1:8000" in said and "hidden pieces" not in said
    assert "see every seat's hidden pieces and cards" in command.exposure(tmp_path, "0.0.0.0", 8000, [], view_as=True)


def test_the_host_check_holds_on_every_address():
    assert allowed_hosts("127.0.0.1", []) == ["127.0.0.1", "localhost", "::1"]
    everywhere = allowed_hosts("0.0.0.0", ["Play.Example"])
    assert "*" not in everywhere and "0.0.0.0" not in everywhere and "play.example" in everywhere
    assert {name.lower() for name in machine_names()} <= set(everywhere)
    assert is_loopback("127.0.0.2") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5") and not is_loopback("box.lan")
