"""rulesdsl profile: time per rule, function and built-in, named in the rule file's own words."""

from __future__ import annotations

import re

import pytest

import rulesdsl
from rulesdsl.agents import make_agent
from rulesdsl.lang.builtins import pure_builtins
from rulesdsl.loading import load_document
from rulesdsl.model.builtins import game_builtins
from rulesdsl.sim.profile import AGENTS, ENGINE, profile_games

from .helpers import game_path, run_cli as run

TURNS = 6  # every game ends after this many turns, one decision each
SLOW = f"""\
game: Slow
description: every move calls 'heavy' once; it is quadratic on purpose
players:
  count: 2
vars:
  total: 0
functions:
  heavy:
    params: [n]
    value: "count(a for a in 1..n for b in 1..n if a < b)"
  light:
    params: [k]
    value: "k + 1"
moves:
  take:
    params:
      k:
        in: "[1, 2, 3]"
    notation: "take {{k}}"
    do:
      - "total = total + light(k) + heavy(150 + k)"
flow:
  steps:
    play:
      moves: [take]
      next: end_turn
end:
  - when: "turn >= {TURNS - 1}"
    winners: "[]"
"""


@pytest.fixture
def slow(tmp_path):
    path = tmp_path / "slow.yaml"
    path.write_text(SLOW, encoding="utf-8")
    return path


def _profile(path, games: int):
    game = rulesdsl.load_game(str(path), inline=False)
    return profile_games(game, [make_agent("random")] * game.num_players, games, 1)


def _line_of(text: str, key: str) -> int:
    """The line where the definition under `key` starts (where the rules locate it, as runtime errors do)."""
    return text.splitlines().index(key) + 2


def test_the_expensive_function_comes_first_with_its_exact_call_count(slow):
    profile = _profile(slow, 3)
    rows = {r.name: r for r in profile.rows}
    heavy = profile.rows[0]
    assert heavy.name == "function heavy" and heavy.where == f"{slow}:{_line_of(SLOW, '  heavy:')}"
    assert profile.decisions == 3 * TURNS and profile.chance == 0
    # the move's effects call each function once: a call per decision, the comprehension inside not counted
    assert heavy.calls == rows["function light"].calls == profile.decisions
    assert rows["move 'take' (effects)"].calls == profile.decisions
    # the effects' total includes the functions they call; their own time does not
    effects = rows["move 'take' (effects)"]
    assert effects.total >= heavy.self_time > effects.self_time
    assert rows[ENGINE].total >= sum(r.self_time for r in profile.rows) * 0.99


def _names_of_the_file(game) -> dict:
    """The forms of the names the report may use for a game's rule file and built-ins (pattern -> the names the
    file or the language gives its first group)."""
    rules = game.rules
    word = r"([A-Za-z][A-Za-z0-9_]*)"
    builtins = set(pure_builtins()) | set(game_builtins(rules))
    data = load_document(game.path).data
    patterns = {
        rf"function {word}": set(data.get("functions") or {}), rf"procedure {word}": set(data.get("procedures") or {}),
        rf"built-in {word}": builtins, rf"move '{word}' \((listing|effects|notation|visible to)\)": set(rules.moves),
        rf"chance '{word}' \((outcomes|effects|notation|visible to)\)": set(rules.steps),
        rf"step '{word}' \((effects|after|next|actor|actors|arrangement)\)": set(rules.steps),
        rf"(?:zone|variable) '{word}' \(init\)": {h.name for h in rules.zones + rules.vars},
        rf"piece '{word}' \({word}\)": set(rules.kinds),
        r"end rule (\d+)(?: \(winners\))?": {str(i + 1) for i in range(len(rules.end_rules))},
        r"scoring \((score|tiebreak|evaluation|breakdown)\)": {"score", "tiebreak", "evaluation", "breakdown"},
        r"flow \((first_player|next_player)\)": {"first_player", "next_player"},
    }
    return patterns


@pytest.mark.parametrize("name", ["slow", "fast-track", "mabula"])
def test_every_name_is_the_rule_files_or_a_built_in(slow, name):
    path = slow if name == "slow" else game_path(name)
    profile = _profile(path, 1)
    game = rulesdsl.load_game(str(path))
    patterns = _names_of_the_file(game)
    for row in profile.rows:
        assert "<" not in row.name and ".py" not in row.name, row.name  # never <listcomp>, never a Python file
        if row.name in (ENGINE, AGENTS):
            continue
        match = next((m for m in (re.fullmatch(p, row.name) for p in patterns) if m), None)
        assert match is not None, f"not a name from the rule file: {row.name}"
        assert match.group(1) in patterns[match.re.pattern], row.name
        assert row.where == "" or re.fullmatch(r".+\.yaml:\d+", row.where), row.where
    assert len({r.name for r in profile.rows}) == len(profile.rows)


def test_the_command_prints_a_summary_and_the_top_rows(capsys, slow):
    code, out, err = run(capsys, "profile", str(slow), "--games", "2", "--seed", "3", "--top", "3")
    lines = out.splitlines()
    assert code == 0 and not err
    assert re.fullmatch(rf"Slow: 2 games, {2 * TURNS} decisions, 0 chance outcomes, [\d.]+ s, [\d,]+ decisions/s "
                        r"\(under the profiler.*relative to each other\)", lines[0])
    assert lines[1].split() == ["self", "%", "self/dec", "total", "total/dec", "calls", "calls/dec", "what", "where"]
    rows = lines[2:-1]
    assert len(rows) == 3 and lines[-1].startswith("... and ") and "--top" in lines[-1]
    first = rows[0].split()
    assert first[-3:] == ["function", "heavy", f"{slow}:{_line_of(SLOW, '  heavy:')}"]
    assert first[-5:-3] == [f"{2 * TURNS}", "1.0"]  # calls, calls per decision


def test_agents_are_given_as_for_simulate(capsys):
    code, out, _ = run(capsys, "profile", "mabula", "--games", "1", "--agents", "first,random", "--top", "1")
    assert code == 0 and out.startswith("Mabula: 1 games,")


@pytest.mark.parametrize("argv, message", [
    (["--option", "colour=red"], "unknown option 'colour'"),
    (["--variant", "prodcut"], "did you mean 'product'?"),
    (["--agents", "random"], "--agents names 1 agents"),
    (["--agents", "random,randon"], "unknown agent 'randon'"),
])
def test_usage_errors(capsys, argv, message):
    code, _, err = run(capsys, "profile", "mabula", "--games", "1", *argv)
    assert code == 2 and message in err


def test_a_missing_file_is_a_usage_error(capsys):
    code, _, err = run(capsys, "profile", "no/such/file.yaml")
    assert code == 2 and "no such file: no/such/file.yaml" in err


def test_a_rule_that_fails_in_play_is_located(capsys, slow):
    slow.write_text(SLOW.replace('"k + 1"', '"k // (k - k)"'), encoding="utf-8")
    code, out, err = run(capsys, "profile", str(slow), "--games", "2")
    assert code == 1 and not out
    statement = SLOW.splitlines().index('      - "total = total + light(k) + heavy(150 + k)"') + 1
    # located at the statement of 'take' whose call of 'light' failed
    assert err.startswith(f"{slow}:{statement}:") and "rule 'take' failed" in err
    assert "game 0 of the run with seed 0 reaches it" in err
