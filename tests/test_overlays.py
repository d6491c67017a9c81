"""Variants and overlay files: changes merge into the base rules without copying them."""

from __future__ import annotations

import rulesdsl
from rulesdsl.cli import main

from .helpers import ROOT, game_path

OVERLAYS = ROOT / "examples" / "overlays"


def test_overlay_changes_an_option_default_and_a_table():
    game = rulesdsl.load_game(OVERLAYS / "mark-rich-start.yaml")
    state = game.new_initial_state()
    assert state.to_json()["vars"]["money"] == [40, 40]
    assert game.name == "MARK (rich start, steep market)"
    assert game.rules.namespace  # compiled
    base = rulesdsl.load_game(game_path("mark"))
    assert base.new_initial_state().to_json()["vars"]["money"] == [30, 30]


def test_overlay_keeps_the_base_variants():
    game = rulesdsl.load_game(OVERLAYS / "mark-rich-start.yaml", variant="four-row-ending")
    assert game.variant == "four-row-ending"


def test_overlay_can_remove_a_key():
    game = rulesdsl.load_game(OVERLAYS / "mabula-no-tiebreak.yaml")
    assert game.rules.tiebreak is None and game.rules.score is not None


def test_variant_changes_only_what_differs():
    standard = rulesdsl.load_game(game_path("mark"), variant="standard")
    four = rulesdsl.load_game(game_path("mark"), variant="four-row-ending")
    assert standard.rules.summary().replace("standard", "") == four.rules.summary().replace("standard", "")


def test_validate_and_simulate_accept_overlays(capsys):
    path = str(OVERLAYS / "mark-rich-start.yaml")
    assert main(["validate", path]) == 0
    assert main(["simulate", path, "--games", "3", "--agents", "random,random"]) == 0
    out = capsys.readouterr().out
    assert "MARK (rich start, steep market): 3 games" in out


def test_simulate_compares_variants_with_a_significance_test(capsys):
    assert main(["simulate", "mark", "--games", "20", "--agents", "random,random",
                 "--variant", "standard", "--variant", "four-row-ending"]) == 0
    out = capsys.readouterr().out
    assert "MARK [standard]: 20 games" in out and "MARK [four-row-ending]: 20 games" in out
    assert "game length by variant" in out and "paired by seed" in out and "p " in out
