"""The benchmark script runs: rates for a game, the breakdown of a playout, and Mabula's direct-implementation ratio."""

from __future__ import annotations

import importlib.util
import re

from .helpers import ROOT


def load_benchmark():
    spec = importlib.util.spec_from_file_location("playouts", ROOT / "benchmarks" / "playouts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rates_breakdown_and_ratio(capsys):
    benchmark = load_benchmark()
    assert benchmark.main(["--seconds", "0.05", "--game", "mabula", "--breakdown", "--memory"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^mabula +[\d,]+ +[\d,]+ +\d+\.\d\d +[\d,]+ +[\d,]+$", out, re.M)
    parts = re.search(r"new state ([\d,]+) µs, chance ([\d,]+) µs, listing moves ([\d,]+) µs, applying moves ([\d,]+) µs",
                      out)
    assert parts and all(int(us.replace(",", "")) > 0 for us in parts.groups())
    size = re.search(r"a state at ply (\d+): ([\d.]+) KiB, copied in ([\d.]+) µs", out)
    assert size and int(size[1]) > 0 and float(size[2]) > 0 and float(size[3]) > 0
    assert re.search(r"^mabula, tuned direct playout +[\d,]+ +[\d,]+ +\d+\.\d\d ", out, re.M)


def test_a_rule_file_can_be_measured(capsys):
    benchmark = load_benchmark()
    path = str(ROOT / "examples" / "tutorial" / "three-in-a-row.yaml")
    assert benchmark.main(["--seconds", "0.05", "--game", path]) == 0
    assert "three-in-a-row.yaml" in capsys.readouterr().out


def test_two_checkouts_are_compared_in_one_run(capsys):
    spec = importlib.util.spec_from_file_location("compare", ROOT / "benchmarks" / "compare_checkouts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main([str(ROOT), str(ROOT), "--rounds", "1", "--game", "mabula", "--games", "3"])
    row = re.search(r"^mabula +([\d,]+) +([\d,]+) +(\d+\.\d{3})$", capsys.readouterr().out, re.M)
    assert row and int(row[1].replace(",", "")) > 0 and int(row[2].replace(",", "")) > 0 and float(row[3]) > 0
