"""The game-type facts the OpenSpiel adapter keeps on disk: read back equal, refused when not ours."""

import json

import pytest

from rulesdsl.engine.load import load_game
from rulesdsl.integrations import type_facts
from rulesdsl.integrations.type_facts import TypeFacts, facts_of

GAME = "examples/tutorial/three-in-a-row.yaml"


def _worked_out(calls):
    def work_out():
        calls.append(1)
        rules = load_game(GAME).rules
        return TypeFacts(rules.name, rules.num_players, rules.has_simultaneous, rules.has_hidden_information,
                         rules.utility, False, 0)
    return work_out


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_facts_are_worked_out_once_and_read_back_equal(cache):
    calls = []
    first = facts_of(GAME, _worked_out(calls))
    again = facts_of(GAME, _worked_out(calls))
    assert calls == [1] and again == first and first.name == load_game(GAME).rules.name


def test_a_file_of_another_shape_is_not_read(cache):
    calls = []
    facts_of(GAME, _worked_out(calls))
    (kept,) = cache.glob("type_*.json")
    good = json.loads(kept.read_text())
    for bad in ({**good, "num_players": "2"}, {**good, "extra": 1}, [1, 2], {**good, "sampled": 1}):
        kept.write_text(json.dumps(bad))
        assert facts_of(GAME, _worked_out(calls)) == TypeFacts(**good)
    kept.write_text(json.dumps(good) + " " * 5000)  # too large to be ours
    facts_of(GAME, _worked_out(calls))
    assert len(calls) == 6


def test_a_link_in_place_of_the_file_is_not_followed(cache, tmp_path):
    calls = []
    facts_of(GAME, _worked_out(calls))
    (kept,) = cache.glob("type_*.json")
    elsewhere = tmp_path / "planted.json"
    elsewhere.write_text(json.dumps({**json.loads(kept.read_text()), "num_players": 7}))
    kept.unlink()
    kept.symlink_to(elsewhere)
    assert facts_of(GAME, _worked_out(calls)).num_players == 2 and len(calls) == 2


def test_other_engine_code_works_them_out_again(cache, monkeypatch):
    calls = []
    facts_of(GAME, _worked_out(calls))
    monkeypatch.setattr(type_facts, "_engine_code", lambda: "other code")
    facts_of(GAME, _worked_out(calls))
    assert len(calls) == 2 and len(list(cache.glob("type_*.json"))) == 2


def test_without_a_cache_they_are_worked_out_every_time(monkeypatch):
    monkeypatch.setenv("RULESDSL_CACHE", "off")
    calls = []
    facts_of(GAME, _worked_out(calls))
    facts_of(GAME, _worked_out(calls))
    assert calls == [1, 1]


def test_each_bundled_game_is_registered_with_the_type_of_the_game_it_loads():
    pyspiel = pytest.importorskip("pyspiel")
    from rulesdsl.integrations import openspiel
    registered = {t.short_name: t for t in pyspiel.registered_games()}
    for name in ("mark", "fast-track"):
        short = openspiel.bundled_name(name)
        made = pyspiel.load_game(short).get_type()
        kept = registered[short]
        for field in ("long_name", "dynamics", "chance_mode", "information", "utility", "max_num_players"):
            assert getattr(kept, field) == getattr(made, field), (name, field)
