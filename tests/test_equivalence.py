"""The two backends over every rule file there is and over small random games: each file (bundled game, variant,
configuration, example, overlay, test game) the compiled backend takes is played in lockstep with the Python engine;
one it does not take is skipped with its located reason. A file added is covered without a list to keep."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("numba")

from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402

from rulesdsl.backends.compiled.build import program_of, takes, with_backend  # noqa: E402
from rulesdsl.backends.compiled.state import CompiledGame  # noqa: E402
from rulesdsl.engine.load import load_game  # noqa: E402
from rulesdsl.errors import RulesError  # noqa: E402

from .equivalence import EVERY_SETTING, cases, inherited, label, lockstep, python_game, small_games  # noqa: E402

SEEDS = 3  # games per file here; benchmarks/lockstep.py plays many more
SMALL_GAMES = 4  # random small games here (derandomized: the same ones each run, read back from the cache)


@pytest.mark.parametrize("case", cases(), ids=label)
def test_every_rule_file_the_compiled_backend_takes_plays_in_lockstep(case):
    try:
        python = python_game(case)
    except RulesError as exc:  # a configuration the file refuses (too many seats for a board, say)
        pytest.skip(f"{label(case)} does not load: {exc.problems[0].format().splitlines()[0]}")
    refused = takes(python)
    if refused is not None:
        print(f"{label(case)}: the compiled backend does not take it: {refused}")
        pytest.skip(f"the compiled backend does not take it: {refused}")
    own = case[2] and program_of(python).source != program_of(python_game(case[:2] + ((),))).source
    if own and not EVERY_SETTING:
        pytest.skip(f"{label(case)} compiles a module of its own: played with RULESDSL_LOCKSTEP=all")
    if inherited(case) and not EVERY_SETTING:
        pytest.skip(f"{label(case)}: the overlay with a variant of its base (played there): played with "
                    "RULESDSL_LOCKSTEP=all")
    compiled = with_backend(python, "compiled")
    assert isinstance(compiled, CompiledGame)
    assert lockstep(python, compiled, range(SEEDS)) > SEEDS


def test_the_discovered_files_include_every_bundled_game_example_and_overlay():
    files = {case[0] for case in cases()}
    assert {"mabula", "mark", "fast-track", "marble-chase"} <= files
    assert {"examples/tutorial/three-in-a-row.yaml", "examples/overlays/mabula-no-tiebreak.yaml"} <= files
    assert ("examples/tutorial/three-in-a-row.yaml", "misere", ()) in cases()
    assert ("examples/tutorial/three-in-a-row.yaml", None, (("first", "nought"),)) in cases()


def _written(text: str) -> Path:
    """The small game's text as a file whose path depends on the text only (its module is then found in the cache
    on the next run)."""
    folder = Path(tempfile.gettempdir()) / "rulesdsl-small-games"
    folder.mkdir(exist_ok=True)
    path = folder / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.yaml"
    path.write_text(text)
    return path


@settings(max_examples=SMALL_GAMES, derandomize=True, deadline=None, database=None,
          phases=[Phase.explicit, Phase.generate],  # no shrinking: each game tried compiles a module
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(small_games())
def test_small_random_games_play_alike_on_both_backends(text):
    python = load_game(_written(text))
    assert takes(python) is None, text  # made only of what the compiled backend takes
    assert lockstep(python, with_backend(python, "compiled"), range(SEEDS)) > SEEDS
