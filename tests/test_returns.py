"""Results beyond win and loss (`scoring: returns`): typed and checked as games end, held to the declared utility,
and read by simulate, report and the results file. Both backends' returns are compared in test_compiled.py."""

from __future__ import annotations

import csv
import json

import pytest

from rulesdsl import GameRuntimeError, RulesError, load_game
from rulesdsl.engine.play import play, streams, uniform

from .helpers import ROOT, run_cli as run

CHIPS = ROOT / "tests" / "compiled_games" / "chip-duel.yaml"
RETURNS = 'returns: "chips[me] - 10"'


def _game(write, text: str | None = None, variant: str | None = None, **edits):
    """The chip duel (or its text with each `old=new` of `edits` made) on the Python engine."""
    source = CHIPS.read_text(encoding="utf-8") if text is None else text
    for old, new in edits.values():
        assert old in source
        source = source.replace(old, new)
    return load_game(write(source), variant, backend="python")


def _ended(game, seed: int):
    state = game.new_initial_state(seed)
    chance, seats = streams(seed, game.num_players)
    play(state, uniform, chance, seats)
    return state


def _chips(state) -> list:
    return state.vars[[v.name for v in state.rules.vars].index("chips")]


def test_returns_are_each_seats_chips_won_once_the_game_ends(write):
    game = _game(write)
    assert game.rules.utility == "zero_sum" and game.rules.utility_declared
    state = game.new_initial_state(1)
    assert state.returns() == [0.0, 0.0]  # before the end
    seen = set()
    for seed in range(12):
        state = _ended(game, seed)
        got = state.returns()
        assert got == [float(c - 10) for c in _chips(state)] and sum(got) == 0
        assert all(isinstance(v, float) for v in got)
        seen.add(tuple(got))
    assert len(seen) > 3  # results beyond +1 and -1


def test_the_utility_is_derived_when_the_file_declares_none(write):
    assert _game(write, edit=("  utility: zero_sum\n", "")).rules.utility == "general_sum"  # not guessed
    team = _game(write, variant="team")  # returns that read no seat: every seat the same, a cooperative game
    assert team.rules.utility == "identical" and not team.rules.utility_declared
    assert len(set(_ended(team, 3).returns())) == 1
    # the seat read through a function of the file (whose `me` is the caller's) is still the seat
    through = _game(write, fn=("moves:\n", "functions:\n  mine: {value: \"chips[me]\"}\nmoves:\n"),
                    edit=("  utility: zero_sum\n", ""), ret=(RETURNS, 'returns: "mine() - 10"'))
    assert through.rules.utility == "general_sum"
    win_loss = _game(write, edit=("  utility: zero_sum\n", ""), ret=(RETURNS + "\n", ""))
    assert win_loss.rules.utility == "zero_sum" and win_loss.rules.returns is None  # two seats, +1 and -1
    state = _ended(win_loss, 2)
    assert state.returns() == ([0.0, 0.0] if not state.winners else
                               [1.0 if p in state.winners else -1.0 for p in range(2)])


def test_a_game_that_breaks_its_declared_zero_sum_is_a_located_error_naming_its_returns(write):
    leaky = _game(write, leak=('    do: ["end_turn()"]', '    do: ["chips[me] -= 1 if chips[me] > 1 else 0", '
                                                        '"end_turn()"]'))
    state = _ended(leaky, 0)
    with pytest.raises(GameRuntimeError) as caught:
        state.returns()
    text = str(caught.value)
    line = CHIPS.read_text().splitlines().index("  utility: zero_sum") + 1
    assert f":{line}:" in text and "rule 'utility'" in text and "not 0 (utility: zero_sum)" in text
    assert f"returns [{_chips(state)[0] - 10:g}, {_chips(state)[1] - 10:g}]" in text
    assert "hint:" in text and "Traceback" not in text


def test_constant_sum_is_checked_against_the_first_game_that_ended(write):
    game = _game(write, ret=(RETURNS, 'returns: "chips[me]"'), kind=("utility: zero_sum", "utility: constant_sum"))
    for seed in range(5):
        assert sum(_ended(game, seed).returns()) == 20
    assert game.rules.returns_sum == [20.0]
    drifting = _game(write, ret=(RETURNS, 'returns: "chips[me] + turn"'),
                     kind=("utility: zero_sum", "utility: constant_sum"))
    first = _ended(drifting, 0)
    first.returns()
    other = next(s for s in (_ended(drifting, seed) for seed in range(1, 40)) if s.turn != first.turn)
    with pytest.raises(GameRuntimeError, match="as the first game that ended did \\(utility: constant_sum\\)"):
        other.returns()


def test_identical_and_returns_range_are_held_to_what_the_file_declares(write):
    mixed = _game(write, kind=("utility: zero_sum", "utility: identical"))
    with pytest.raises(GameRuntimeError, match="differ between seats \\(utility: identical\\)"):
        next(s for s in (_ended(mixed, seed) for seed in range(20)) if len(set(_chips(s))) > 1).returns()
    narrow = _game(write, kind=("utility: zero_sum", "utility: zero_sum\n  returns_range: [-1, 1]"))
    state = next(s for s in (_ended(narrow, seed) for seed in range(20)) if abs(_chips(s)[0] - 10) > 1)
    with pytest.raises(GameRuntimeError, match="fall outside returns_range \\[-1, 1\\]") as caught:
        state.returns()
    assert "rule 'returns_range'" in str(caught.value)


@pytest.mark.parametrize("returns, shown", [
    ("\"'ten'\"", "not the text 'ten'"), ('"[chips[me]]"', "not a list of numbers"),
    ('"chips[me] > 3"', "not true or false"),
])
def test_returns_that_give_no_number_are_a_located_type_error(write, returns, shown):
    with pytest.raises(RulesError) as caught:
        _game(write, ret=(RETURNS, f"returns: {returns}"))
    problem = caught.value.problems[0]
    line = CHIPS.read_text().splitlines().index(f"  {RETURNS}") + 1
    assert problem.code == "type_error" and problem.location.line == line
    assert f"returns should give a number, {shown}" in problem.message and problem.hint


@pytest.mark.parametrize("value, shown", [
    ("none", "not none"), ("'ten' if true else 0", "not ten"), ("1.0 * 10 ** 300 * 10 ** 300", "not inf"),
    ("10 ** 400", "not a whole number of 401 digits"),
])
def test_returns_that_are_no_finite_number_at_the_end_are_a_located_runtime_error(write, value, shown):
    # (a value the type pass cannot rule out: it is checked when the game ends)
    game = _game(write, ret=(RETURNS, f'returns: "({value}) if chips[me] > 99 - turn * 99 else 0"'))
    state = _ended(game, 1)
    with pytest.raises(GameRuntimeError) as caught:
        state.returns()
    text = str(caught.value)
    line = CHIPS.read_text().splitlines().index(f"  {RETURNS}") + 1
    assert f":{line}:" in text and "rule 'returns'" in text and shown in text and "hint: returns gives" in text


def test_returns_range_must_be_two_finite_numbers_lowest_first(write):
    for bad in ("[2, -2]", "[-.inf, 3]"):
        with pytest.raises(RulesError, match="returns_range should be two finite numbers"):
            _game(write, kind=("utility: zero_sum", f"utility: zero_sum\n  returns_range: {bad}"))
    with pytest.raises(RulesError, match="utility"):  # not one of the four
        _game(write, kind=("utility: zero_sum", "utility: zero"))


# -- simulate, report and the results file ------------------------------------------------------------------
def _simulated(folder, variant: str | None = None):
    """A results file of 20 games of the chip duel (or its variant) of seed 3, on the Python engine."""
    from rulesdsl.cli import main
    out = folder / f"{variant or 'base'}.jsonl"
    assert main(["simulate", str(CHIPS), "--games", "20", "--seed", "3", "--agents", "random,random", "--quiet",
                 "--backend", "python", "--out", str(out)] + (["--variant", variant] if variant else [])) == 0
    return out


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    return _simulated(tmp_path_factory.mktemp("returns"))


def _lines(path) -> list:
    return [json.loads(row) for row in path.read_text().splitlines()[1:]]


def test_results_lines_carry_each_seats_returns_and_simulate_shows_their_means(capsys, tmp_path):
    out = tmp_path / "r.jsonl"
    code, text, _ = run(capsys, "simulate", str(CHIPS), "--games", "20", "--seed", "3", "--agents", "random,random",
                        "--quiet", "--backend", "python", "--out", str(out))
    assert code == 0
    lines = _lines(out)
    assert len(lines) == 20 and all(len(line["returns"]) == 2 and sum(line["returns"]) == 0 for line in lines)
    assert any(abs(line["returns"][0]) > 1 for line in lines)
    shown = text.splitlines()
    head = shown.index(next(row for row in shown if row.strip().startswith("returns")))
    assert "(n = 20)" in shown[head]
    mean = sum(line["returns"][0] for line in lines) / 20
    assert shown[head + 1].split()[:3] == ["p0", "random", f"{mean:+.3f}"]
    assert shown[head + 1].split()[3].startswith("[")  # its 95% interval


def test_report_reads_the_returns_and_compares_them_between_variants(capsys, results):
    team = _simulated(results.parent, "team")  # the same seeds: paired
    capsys.readouterr()  # (what simulate printed)
    code, text, _ = run(capsys, "report", str(results), str(team))
    assert code == 0
    assert text.count("returns    agent") == 2  # each variant's summary
    assert "p0 return" in text and "p1 return" in text and "(significant, paired t test)" in text
    code, _, _ = run(capsys, "report", str(results), "--out", str(results.parent / "report"))
    with open(results.parent / "report" / "games.csv", encoding="utf-8", newline="") as f:
        table = list(csv.reader(f))
    assert table[0][-2:] == ["p0_return", "p1_return"]
    assert [[float(v) for v in row[-2:]] for row in table[1:]] == [line["returns"] for line in _lines(results)]
    code, page, _ = run(capsys, "report", str(results), str(team), "--format", "html")
    assert code == 0 and page.count("<h2>Returns</h2>") == 1 and page.count("return</td>") == 2  # a row per seat


def test_a_results_file_of_a_game_without_returns_shows_none(capsys, tmp_path):
    out = tmp_path / "r.jsonl"
    code, text, _ = run(capsys, "simulate", "mabula", "--games", "3", "--seed", "1", "--agents", "random,random",
                        "--quiet", "--backend", "python", "--out", str(out))
    assert code == 0 and "returns" not in text and all(len(line["returns"]) == 2 for line in _lines(out))
    code, text, _ = run(capsys, "report", str(out))
    assert code == 0 and "returns    agent" not in text and " return " not in text


@pytest.mark.parametrize("returns, message", [
    (["1", 0.0], "should be a number"), ([10 ** 400, 0], "a whole number of 401 digits"),
    (["RAW", 0], "should be a finite number"),  # 1e400 as the file writes it: a float beyond any
    ([float("nan"), 0.0], "not NaN"), ([float("inf"), 0.0], "should be a finite number"),
    ([0.0] * 10 ** 6, "of at most 64 items"), ([1.0, 2.0, 3.0], "3 returns for 2 agents"),
])
def test_hostile_returns_in_a_results_file_are_refused_located(capsys, tmp_path, results, returns, message):
    rows = results.read_text().splitlines()
    line = json.loads(rows[2])
    line["returns"] = returns
    rows[2] = json.dumps(line).replace('"RAW"', "1e400")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(rows) + "\n")
    code, _, err = run(capsys, "report", str(bad))
    assert code == 1 and message in err and err.startswith(f"{bad}:3:"), err
    assert "Traceback" not in err and len(err) < 2000
