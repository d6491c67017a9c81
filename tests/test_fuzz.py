"""Fuzz tests: hostile rule files, overlays and expressions end in success or a located error -- never a
traceback, a hang or a memory blow-up. The harness (tests/fuzzing.py) runs every case in a forked worker with a
deadline and a memory cap; `python tests/fuzz_campaign.py` runs the same operators for much longer.
"""

from __future__ import annotations

import os
import random
import signal
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from . import fuzzing as F

EXAMPLES = 60  # sized so that the whole file takes about a minute on a two-core machine (the campaign runs more)


@pytest.fixture(scope="module")
def worker():
    """One worker for the module (it forks a fresh child per case)."""
    w = F.Worker()
    yield w
    w.close()


def explain(case: F.Case, outcome: F.Outcome) -> str:
    """A failure message: how the case ended, where its files were saved, and its main file's start."""
    folder = Path(tempfile.mkdtemp(prefix="rulesdsl-fuzz-failure-"))
    main = case.save(folder, outcome)
    head = case.files[case.main][:1000].decode("utf-8", "replace")
    return (f"{outcome.kind}: {outcome.key}\n{case!r}\nsaved: {main}\n"
            f"rerun: python tests/fuzz_campaign.py --replay {folder}\n"
            f"{outcome.detail}\n--- {case.main} (start) ---\n{head}")


def check(worker, case: F.Case) -> F.Outcome:
    """Run a case and fail the test on a finding."""
    outcome = worker.run(case)
    assert not outcome.is_finding, explain(case, outcome)
    return outcome


# -- hypothesis: the mutation operators over the bundled games, the expression fuzzer, overlays, probes ------

@st.composite
def cases(draw):
    """A case of any family; hypothesis picks the family, source and operators, and drives the Random."""
    family = draw(st.sampled_from(["mutate", "mutate", "mutate", "expression", "expression", "overlay",
                                   "extends", "sandbox"]))
    rnd = draw(st.randoms(use_true_random=False))
    ops = draw(st.lists(st.sampled_from(sorted(F.OPS)), min_size=1, max_size=3))
    if family == "mutate":
        return F.mutation_case(draw(st.sampled_from(sorted(F.SOURCES))), ops, rnd)
    if family == "overlay":
        return F.overlay_case(rnd, ops)
    return {"expression": F.expression_case, "extends": F.extends_case, "sandbox": F.sandbox_case}[family](rnd)


# No shrinking: a hang costs the full deadline per attempt; the campaign script minimises instead.
@settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
          phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])
@given(case=cases())
def test_hostile_files_fail_cleanly(worker, case):
    check(worker, case)


# -- the regression corpus ------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", F.corpus_cases(), ids=lambda c: c.label)
def test_corpus(worker, case):
    check(worker, case)


def test_corpus_files_say_what_they_attack():
    for case in F.corpus_cases():
        for name, data in case.files.items():
            if name.endswith(".yaml") and (name == case.main or len(case.files) == 1):
                assert data.startswith(b"# "), f"{case.label}: start with a one-line comment saying what it attacks"


# -- the sources and the probe game are sound (so that findings come from the mutations) ---------------------

@pytest.mark.parametrize("source", sorted(F.SOURCES))
def test_unmutated_sources_pass(worker, source):
    files, main = F.SOURCES[source]
    case = F.Case({main: files[main].encode()}, main, source)
    assert check(worker, case).kind == "ok"


def test_probe_game_loads_and_plays(worker):
    case = F.Case({"game.yaml": F.template({}).encode()}, "game.yaml", "probe template")
    assert check(worker, case).kind == "ok"


# -- the harness catches what it should (each check forks a worker that inherits the planted bug) ------------

GOOD = F.Case({"game.yaml": F.template({}).encode()}, "game.yaml", "probe template")


def planted(monkeypatch, failure, timeout: float = F.TIMEOUT) -> F.Outcome:
    """The outcome of a valid case when rulesdsl.api.load_game is replaced by `failure`."""
    import rulesdsl.api

    F.warm_up()  # before the patch: the parent must not run the planted failure itself
    monkeypatch.setattr(rulesdsl.api, "load_game", failure)
    w = F.Worker()
    try:
        return w.run(GOOD, timeout)
    finally:
        w.close()


def test_harness_flags_a_plain_exception(monkeypatch):
    def boom(*args, **kwargs):
        """A plain exception: not a RulesDslError."""
        raise ValueError("planted")

    outcome = planted(monkeypatch, boom)
    assert outcome.is_finding and outcome.key.startswith("ValueError"), outcome


def test_harness_flags_an_unlocated_problem(monkeypatch):
    from rulesdsl.errors import Problem, RulesError

    def unlocated(*args, **kwargs):
        """A RulesError whose problem says nothing of where."""
        raise RulesError([Problem("somewhere")])

    outcome = planted(monkeypatch, unlocated)
    assert outcome.is_finding and outcome.key.startswith("unlocated"), outcome


def test_harness_flags_a_hang(monkeypatch):
    def hang(*args, **kwargs):
        """A loop that never ends."""
        while True:
            pass

    assert planted(monkeypatch, hang, timeout=1.0).kind == "timeout"


def test_harness_flags_a_memory_bomb(monkeypatch):
    def bomb(*args, **kwargs):
        """More memory than the worker may have."""
        return bytearray(F.MEMORY * 4)

    outcome = planted(monkeypatch, bomb)
    assert outcome.is_finding and outcome.key.startswith("MemoryError"), outcome


def test_harness_flags_a_crash(monkeypatch):
    def crash(*args, **kwargs):
        """The process dies as on a segmentation fault."""
        os.kill(os.getpid(), signal.SIGSEGV)

    outcome = planted(monkeypatch, crash)
    assert outcome.is_finding and outcome.key.startswith("crash"), outcome


def test_harness_accepts_a_located_error(worker):
    case = F.Case({"game.yaml": b"game: x\nflow: 3\n"}, "game.yaml", "schema error")
    assert check(worker, case).kind == "located"


# -- the compiled backend: mutated games it takes, played on both backends in lockstep ------------------------

needs_numba = pytest.mark.skipif(not F.compiled_available(), reason="the compiled backend needs numba")


@pytest.fixture(scope="module")
def compiled_worker():
    """A worker forked with numba and the compiled backend already imported."""
    F.warm_up_compiled()
    w = F.Worker()
    yield w
    w.close()


@needs_numba
@pytest.mark.parametrize("source", F.COMPILED_SOURCES)
def test_unmutated_games_play_alike_on_both_backends(compiled_worker, source):
    files, main = F.SOURCES[source]
    case = F.Case({main: files[main].encode()}, main, source, backend="compiled")
    assert check(compiled_worker, case).kind == "ok"  # compiled, and compared move for move


@needs_numba
@pytest.mark.parametrize("index", [4, 5, 6])  # 4 compiles a changed game; 5 and 6 are located errors
def test_mutated_games_fail_cleanly_or_play_alike_on_both_backends(compiled_worker, index):
    check(compiled_worker, F.compiled_case(random.Random(f"test:compiled:{index}")))


@needs_numba
def test_harness_flags_a_compiled_game_that_plays_differently(monkeypatch):
    import rulesdsl
    from rulesdsl.backends.compiled import build

    F.warm_up_compiled()
    other = rulesdsl.load_game(F.ROOT / "examples" / "tutorial" / "three-in-a-row.yaml", "misere")
    monkeypatch.setattr(build, "with_backend", lambda game, backend: other)  # another game: the returns differ
    files, main = F.SOURCES["tutorial/three-in-a-row.yaml"]
    w = F.Worker()
    try:
        outcome = w.run(F.Case({main: files[main].encode()}, main, "planted", backend="compiled"))
    finally:
        w.close()
    assert outcome.is_finding and outcome.key.startswith("compiled: "), outcome
