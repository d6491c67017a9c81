"""The examples in the package's docstrings run, and the public entry points each have one."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import rulesdsl

from .helpers import ROOT

MODULES = sorted(m.name for m in pkgutil.walk_packages(rulesdsl.__path__, "rulesdsl.") if m.name != "rulesdsl.__main__")

# The entry points a newcomer starts from: each shows how it is used, in an example that runs.
ENTRY_POINTS = ["rulesdsl.engine.load.load_game", "rulesdsl.api.simulate", "rulesdsl.engine.game.Game.new_initial_state",
                "rulesdsl.engine.game.Game.state_from_json", "rulesdsl.engine.state.State.legal_moves",
                "rulesdsl.engine.state.State.apply"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name, monkeypatch):
    monkeypatch.chdir(ROOT / "examples" / "tutorial")  # the examples load the tutorial's game, docs/tutorial.md
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


@pytest.mark.parametrize("dotted", ENTRY_POINTS)
def test_entry_point_has_an_example(dotted):
    module_name, _, attribute = dotted.rpartition(".")
    try:
        target = importlib.import_module(module_name)
    except ModuleNotFoundError:  # a method: Class.method
        module_name, _, owner = module_name.rpartition(".")
        target = getattr(importlib.import_module(module_name), owner)
    examples = doctest.DocTestParser().get_examples(getattr(target, attribute).__doc__ or "")
    assert examples, f"{dotted} has no example in its docstring"
