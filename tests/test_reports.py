"""Balance reports and bulk replays: the statistics against SciPy and by hand, shared wins, variants compared game by
game, first player, rule coverage per variant, games.csv, the HTML page (escaped, self-contained), deterministic
charts, replay --workers and progress off a terminal."""

from __future__ import annotations

import csv
import json
import math
import re
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from rulesdsl.sim import progress, stats
from rulesdsl import load_game
from rulesdsl.sim.report import analyse, analysed, games_rows, text_report
from rulesdsl.sim.report_html import html_report, render

from .helpers import game_lines, run_cli as run

class _Imported:
    """A module imported when first read (scipy takes a second and a half): a test reading it is skipped
    where it is not installed, the others run."""

    def __init__(self, name: str):
        self.name = name

    def __getattr__(self, attr: str):
        return getattr(pytest.importorskip(self.name), attr)


scipy_stats = _Imported("scipy.stats")
special = _Imported("scipy.special")

# A coin decides each game (seat p1 always decides first, by calling). Under 'tails' the first seat wins on tails,
# the second on heads; under 'shared' both win on heads, the second alone on tails. 'never' is never legal.
COIN = """\
game: Coin
players:
  count: 2
vars:
  heads: 0
  done: 0
variants:
  tails:
    description: tails wins for the first seat
    changes:
      end:
        - when: "done == 1"
          winners: "[0] if heads == 0 else [1]"
  {shared}:
    description: both seats win on heads
    changes:
      end:
        - when: "done == 1"
          winners: "[0, 1] if heads == 1 else [1]"
moves:
  call:
    notation: call
    do: ["done = 1"]
  never:
    when:
      - test: "false"
        why: never
    notation: never
    do: ["done = 1"]
flow:
  first_player: "1"
  steps:
    coin:
      chance:
        draw: "1"
        from: "1..2"
        replace: true
        notation: "coin {{outcome}}"
        do:
          - if: "1 in outcome"
            then: ["heads = 1"]
      next: turn
    turn:
      moves: [call, never]
      next: end_turn
end:
  - when: "done == 1"
    winners: "[0] if heads == 1 else [1]"
"""
GAMES = 12


@pytest.fixture
def coin(tmp_path, capsys):
    """(rule file, results file of GAMES games of each variant, one run: the same seeds)."""
    rules = tmp_path / "coin.yaml"
    rules.write_text(COIN.format(shared="shared"), encoding="utf-8")
    results = tmp_path / "r.jsonl"
    code, _, _ = run(capsys, "simulate", str(rules), "--games", str(GAMES), "--agents", "random,random",
                     "--variant", "tails", "--variant", "shared", "--quiet", "--out", str(results))
    assert code == 0
    return rules, results


def lines_of(path: Path) -> list[dict]:
    return game_lines(path)


def heads(line: dict) -> bool:
    return line["moves"][0] == "coin 1"


def assert_p(text: str, expected: float) -> None:
    """The p-value a report line shows is `expected`, to the digits it shows."""
    found = re.search(r"p (?:= ([0-9.e-]+)|< 0.0001)", text)
    assert found, text
    if found.group(1) is None:
        assert expected < 0.0001
    else:
        assert float(found.group(1)) == pytest.approx(expected, rel=0.05, abs=0.0005)


def two_sided_binomial(k: int, n: int) -> float:
    """The exact two-sided sign test, from its definition: twice the smaller tail of Binomial(n, 1/2)."""
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(min(k, n - k) + 1)) / 2 ** n)


# -- statistics -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("x, a, b", [(0.3, 2, 3), (0.9, 0.5, 10), (0.01, 50, 0.5), (0.5, 1000, 1001), (0.999, 3, 0.5)])
def test_incomplete_beta_matches_scipy(x, a, b):
    assert stats.incomplete_beta(x, a, b) == pytest.approx(special.betainc(a, b, x), rel=1e-9, abs=1e-300)


@settings(max_examples=200, deadline=None)
@given(st.floats(0, 60), st.floats(1, 5000))
def test_t_p_values_match_scipy(t, df):
    assert stats.t_p_value(t, df) == pytest.approx(2 * scipy_stats.t.sf(t, df), rel=1e-7, abs=1e-300)


@pytest.mark.parametrize("df", [1, 2, 5, 19, 30, 1000])
def test_t_quantiles_match_scipy(df):
    assert stats.t_quantile(0.05, df) == pytest.approx(scipy_stats.t.ppf(0.975, df), rel=1e-9)


def test_a_mean_interval_by_hand():
    # 1, 2, 3: mean 2, sd 1, and t(0.975, 2 df) = 4.302652729749464 (tables): 2 +- 4.3027 / sqrt(3)
    m, low, high = stats.mean_interval([1, 2, 3])
    assert (m, low, high) == pytest.approx((2, 2 - 4.302652729749464 / 3 ** 0.5, 2 + 4.302652729749464 / 3 ** 0.5))
    assert stats.mean_interval([5]) == (5, -math.inf, math.inf)


def test_small_samples_use_t_not_the_normal():
    a, b = [10, 12, 11, 13], [14, 15, 13, 16]
    assert stats.welch_p_value(a, b) == pytest.approx(scipy_stats.ttest_ind(a, b, equal_var=False).pvalue, rel=1e-9)
    before, after = [3, 5, 4, 6, 5], [4, 7, 4, 8, 6]
    assert stats.paired_p_value(before, after) == pytest.approx(scipy_stats.ttest_rel(before, after).pvalue, rel=1e-9)
    normal = math.erfc(abs(scipy_stats.ttest_rel(before, after).statistic) / math.sqrt(2))
    assert stats.paired_p_value(before, after) > normal  # the normal approximation overstates small runs


def test_mcnemar_is_the_exact_sign_test_on_the_games_that_differ():
    # three games won only with `a`, none only with `b`, one won with both: 2 * (1/2)^3 = 0.25
    assert stats.mcnemar_p_value([1, 1, 1, 1], [0, 0, 0, 1]) == pytest.approx(0.25, rel=1e-12)
    assert stats.mcnemar_p_value([1, 0], [1, 0]) == 1.0  # nothing differs
    a = [1] * 30 + [0] * 70 + [1] * 50
    b = [0] * 30 + [1] * 70 + [1] * 50
    assert stats.mcnemar_p_value(a, b) == pytest.approx(scipy_stats.binomtest(30, 100, 0.5).pvalue, rel=1e-9)
    assert stats.mcnemar_p_value(a, b) == pytest.approx(two_sided_binomial(30, 100), rel=1e-9)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=300))
def test_mcnemar_matches_scipys_binomial_test(pairs):
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    only_a = sum(x and not y for x, y in pairs)
    only_b = sum(y and not x for x, y in pairs)
    expected = scipy_stats.binomtest(only_a, only_a + only_b, 0.5).pvalue if only_a + only_b else 1.0
    assert stats.mcnemar_p_value(a, b) == pytest.approx(expected, rel=1e-9)


samples = st.lists(st.integers(0, 1000), min_size=2, max_size=60)


@pytest.mark.filterwarnings("ignore:Precision loss:RuntimeWarning")  # SciPy's, on nearly constant samples
@settings(max_examples=100, deadline=None)
@given(samples, samples)
def test_welch_and_paired_tests_match_scipy(a, b):
    if len(set(a)) > 1 or len(set(b)) > 1:  # SciPy has no answer when both samples are constant
        expected = scipy_stats.ttest_ind(a, b, equal_var=False).pvalue
        assert stats.welch_p_value(a, b) == pytest.approx(expected, rel=1e-7, abs=1e-300)
    n = min(len(a), len(b))
    if len({y - x for x, y in zip(a[:n], b[:n])}) > 1:
        expected = scipy_stats.ttest_rel(a[:n], b[:n]).pvalue
        assert stats.paired_p_value(a[:n], b[:n]) == pytest.approx(expected, rel=1e-7, abs=1e-300)


# -- shared wins, variants compared, first player -------------------------------------------------------------
def test_shared_wins_have_their_row_and_explain_the_sum(coin, capsys):
    rules, results = coin
    shared = [line for line in lines_of(results) if line["variant"] == "shared"]
    n_heads = sum(heads(line) for line in shared)
    assert 0 < n_heads < GAMES  # the seed gives both faces: the test means something
    code, out, _ = run(capsys, "report", str(results))
    block = out[out.index("Coin [shared]"):]
    assert re.search(rf"  p0 +random +{n_heads} ", block) and re.search(rf"  p1 +random +{GAMES} +100.0%", block)
    assert re.search(rf"  shared +{n_heads} +{n_heads / GAMES:.1%}", block)
    assert "add up to more than 100%" in block
    assert "shared " not in out[:out.index("Coin [shared]")]  # no shared wins under 'tails': no row


def test_variants_are_compared_seat_by_seat_game_by_game(coin, capsys):
    rules, results = coin
    lines = lines_of(results)
    by_seed = {}
    for line in lines:
        by_seed.setdefault(line["seed"], []).append(heads(line))
    assert all(len(faces) == 2 and len(set(faces)) == 1 for faces in by_seed.values())  # same seed, same coin
    n_heads = sum(heads(line) for line in lines if line["variant"] == "tails")
    _, out, _ = run(capsys, "report", str(results))
    block = out[out.index("shared against tails"):].splitlines()
    assert "paired by seed" in block[0] and "paired t test" in block[1] and "p = 1.000" in block[1]
    # p0 won the tails games under 'tails', the heads games under 'shared': every game changes
    assert f"{GAMES} of {GAMES} games change this seat's result" in block[2] and "exact McNemar test" in block[2]
    assert_p(block[2], two_sided_binomial(n_heads, GAMES))
    # p1 won the heads games under 'tails', and every game under 'shared': the tails games change, all one way
    assert f"{GAMES - n_heads} of {GAMES} games change" in block[3]
    assert_p(block[3], 2 * 0.5 ** (GAMES - n_heads))


def test_runs_of_other_seeds_are_compared_unpaired_with_welch(tmp_path, capsys):
    rules = tmp_path / "coin.yaml"
    rules.write_text(COIN.format(shared="shared"), encoding="utf-8")
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    base = ["simulate", str(rules), "--games", "10", "--agents", "random,random", "--quiet"]
    run(capsys, *base, "--seed", "1", "--out", str(first))
    run(capsys, *base, "--seed", "2", "--variant", "tails", "--out", str(second))
    both = tmp_path / "both.jsonl"
    both.write_text(first.read_text() + second.read_text())
    _, out, _ = run(capsys, "report", str(both))
    block = out[out.index("tails against"):]
    assert "not the same seeds, so unpaired" in block and "Welch t test on wins" in block
    lines = lines_of(both)
    won = [[0 in line["winners"] for line in lines if line["variant"] == v] for v in (None, "tails")]
    assert_p(block.splitlines()[2], scipy_stats.ttest_ind(won[0], won[1], equal_var=False).pvalue)


def test_the_first_player_is_the_seat_that_decides_first(coin, capsys):
    _, results = coin
    _, out, _ = run(capsys, "report", str(results))
    n_heads = sum(heads(line) for line in lines_of(results) if line["variant"] == "tails")
    # the coin is chance's; p1 calls first in every game, and wins the heads games under 'tails'
    assert f"first player (decided first: p1 in {GAMES}): won {n_heads / GAMES:.1%}" in out


# -- rule coverage per variant --------------------------------------------------------------------------------
def test_rule_coverage_is_per_variant_and_names_dead_rules_where_validate_does(coin, capsys):
    rules, results = coin
    body = COIN.splitlines().index("  never:") + 2  # the definition of 'never', as validate --play locates it
    _, out, _ = run(capsys, "report", str(results))
    for variant in ("tails", "shared"):
        block = out[out.index(f"rule coverage over {GAMES} games of Coin [{variant}]"):].split("\nCoin [")[0]
        rows = block.splitlines()
        assert [row.split() for row in rows[1:5]] == [["call", str(GAMES)], ["never", "0"], ["coin", str(GAMES)],
                                                        ["end", "rule", "1", str(GAMES), "games", "ended", "by", "it"]]
        assert rows[6] == f"  {rules}:{body}:5: move 'never' was never made"
    _, _, warnings = run(capsys, "validate", "--play", "3", str(rules))
    assert f"{rules}:{body}:5: warning: move 'never' was never made in 3 random games" in warnings


# -- files: CSV, charts, HTML --------------------------------------------------------------------------------
def test_games_csv_has_one_documented_row_per_game(coin, capsys, tmp_path):
    pytest.importorskip("matplotlib")
    _, results = coin
    folder = tmp_path / "report"
    code, out, _ = run(capsys, "report", str(results), "--out", str(folder))
    assert code == 0
    assert {p.name for p in folder.iterdir()} == {"win-rate.png", "game-length.png", "scores.png", "variants.png",
                                                   "report.txt", "games.csv"}
    with open(folder / "games.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows[0] == ["index", "variant", "seed", "plies", "turns", "capped", "ended_by", "winners", "shared", "draw",
                       "first_player", "p0_agent", "p0_won", "p0_score", "p1_agent", "p1_won", "p1_score"]
    assert len(rows) == 1 + 2 * GAMES
    for row, line in zip(rows[1:], lines_of(results)):
        winners = " ".join(f"p{p}" for p in line["winners"])
        assert row == [str(line["index"]), line["variant"] or "", str(line["seed"]), "2", "0", "0", "1", winners,
                       str(int(len(line["winners"]) > 1)), "0", "p1", "random", str(int(0 in line["winners"])), "",
                       "random", str(int(1 in line["winners"])), ""]


def test_a_formula_in_a_results_file_is_not_a_formula_in_the_csv(coin):
    _, results = coin
    lines = lines_of(results)
    lines[0]["agents"][0] = "=HYPERLINK(\"http://example.com\")"
    results.write_text("".join(json.dumps(line) + "\n" for line in lines))
    rows = games_rows(analyse(str(results)))
    assert rows[1][11] == "'=HYPERLINK(\"http://example.com\")"


def test_charts_are_the_same_bytes_every_time(coin, capsys, tmp_path):
    pytest.importorskip("matplotlib")
    _, results = coin
    run(capsys, "report", str(results), "--out", str(tmp_path / "one"))
    run(capsys, "report", str(results), "--out", str(tmp_path / "two"))
    for path in (tmp_path / "one").iterdir():
        assert path.read_bytes() == (tmp_path / "two" / path.name).read_bytes(), path.name
    assert (tmp_path / "one" / "win-rate.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_html_page_escapes_what_results_and_rules_say(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    rules = tmp_path / "coin.yaml"
    rules.write_text(COIN.format(shared='"<script>alert(1)</script>"'), encoding="utf-8")
    results = tmp_path / "r.jsonl"
    run(capsys, "simulate", str(rules), "--games", "4", "--agents", "random,random", "--variant", "tails",
        "--variant", "<script>alert(1)</script>", "--quiet", "--out", str(results))
    lines = lines_of(results)
    for line in lines:
        line["agents"] = ["<img src=x onerror=alert(2)>", "random"]
    results.write_text("".join(json.dumps(line) + "\n" for line in lines))
    page = html_report(str(results))
    assert "<script" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;img src=x onerror=alert(2)&gt;" in page
    # self-contained: nothing is fetched, every image is inline
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page, re.I) and "@import" not in page
    assert page.count('src="data:image/png;base64,') == 4
    code, out, _ = run(capsys, "report", str(results), "--format", "html")
    assert code == 0 and out == page


def test_the_html_page_holds_every_section(coin, capsys, tmp_path):
    _, results = coin
    code, out, _ = run(capsys, "report", str(results), "--format", "html", "--out", str(tmp_path / "html"))
    assert code == 0 and {p.name for p in (tmp_path / "html").iterdir()} == {"report.html", "games.csv"}
    page = (tmp_path / "html" / "report.html").read_text(encoding="utf-8")
    for heading in ("Results per seat", "Variants compared", "Game length and scores", "Charts", "Rule coverage"):
        assert f"<h2>{heading}</h2>" in page
    assert "exact McNemar test" in page and "First-player advantage" in page and "move &#x27;never&#x27;" in page


def test_lines_in_memory_with_their_compiled_games_are_reported_as_their_file(coin):
    rules, results = coin
    games = {variant: load_game(str(rules), variant) for variant in ("tails", "shared")}  # compiled apart
    in_memory = analysed(lines_of(results), games, str(results), str(rules))
    from_file = analyse(str(results))
    assert [v.label for v in in_memory.variants] == ["tails", "shared"]
    assert text_report(in_memory) == text_report(from_file)
    assert render(in_memory) == render(from_file).replace(str(from_file.rules_path), str(rules))


# -- replay: workers and progress -----------------------------------------------------------------------------
def test_replay_on_two_workers_says_what_one_says(coin, capsys):
    _, results = coin
    lines = lines_of(results)
    lines[5]["winners"] = [1 - lines[5]["winners"][0]]  # a tampered result
    results.write_text("".join(json.dumps(line) + "\n" for line in lines))
    one = run(capsys, "replay", str(results), "--verbose", "--quiet")
    two = run(capsys, "replay", str(results), "--verbose", "--quiet", "--workers", "2")
    assert one == two and one[0] == 1
    assert "game 5: replay differs: winners differ" in one[1]
    assert one[1].splitlines()[-1] == f"{2 * GAMES - 1} of {2 * GAMES} games replayed and verified"


def test_a_bad_line_stops_replay_on_workers_with_its_location(coin, capsys):
    _, results = coin
    lines = lines_of(results)
    lines[7]["moves"][1] = "fly"
    results.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, _, err = run(capsys, "replay", str(results), "--quiet", "--workers", "2")
    assert code == 1 and err.startswith(f"{results}:8: error: move 2 \"fly\" does not replay")


def test_progress_off_a_terminal_is_a_plain_line(coin, capsys, monkeypatch):
    _, results = coin
    monkeypatch.setattr(progress, "PLAIN_EVERY", 0.0)
    code, _, err = run(capsys, "replay", str(results))
    rows = err.splitlines()
    assert code == 0 and len(rows) == 2 * GAMES + 1  # a line per game, then where it ended
    assert rows[0].startswith(f"replaying r.jsonl: 1 of {2 * GAMES} games (4%), ")
    assert rows[-1].startswith(f"replaying r.jsonl: {2 * GAMES} of {2 * GAMES} games (100%), ")
    assert run(capsys, "replay", str(results), "--quiet")[2] == ""


def test_simulate_shows_progress_off_a_terminal_too(tmp_path, capsys, monkeypatch):
    rules = tmp_path / "coin.yaml"
    rules.write_text(COIN.format(shared="shared"), encoding="utf-8")
    monkeypatch.setattr(progress, "PLAIN_EVERY", 0.0)
    _, _, err = run(capsys, "simulate", str(rules), "--games", "3", "--agents", "random,random")
    assert err.splitlines()[-1].startswith("Coin: 3 of 3 games (100%), ")


@pytest.mark.parametrize("workers", ["0", "1025", "two"])
def test_replay_workers_are_bounded(coin, capsys, workers):
    _, results = coin
    with pytest.raises(SystemExit) as exit_:
        run(capsys, "replay", str(results), "--workers", workers)
    assert exit_.value.code == 2 and "--workers" in capsys.readouterr().err


def test_a_results_line_with_other_seats_than_the_game_is_located(coin, capsys):
    _, results = coin
    lines = lines_of(results)
    for line in lines:
        line.update(agents=["random"] * 3, scores=[None] * 3, returns=[0.0] * 3)
    results.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, out, err = run(capsys, "report", str(results))
    assert code == 1 and out == ""
    assert err.startswith(f"{results}:1: error: this line has 3 agents, but \"Coin\" has 2 players")


def test_without_matplotlib_the_text_csv_and_html_are_still_written(coin, capsys, tmp_path, monkeypatch):
    _, results = coin
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # importing it now fails
    code, out, err = run(capsys, "report", str(results), "--out", str(tmp_path / "png"))
    assert code == 1 and "charts need matplotlib: pip install 'rulesdsl[report]'" in err
    assert {p.name for p in (tmp_path / "png").iterdir()} == {"games.csv", "report.txt"}
    code, page, _ = run(capsys, "report", str(results), "--format", "html")
    assert code == 0 and "charts need matplotlib" in page and "data:image/png" not in page
