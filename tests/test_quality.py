"""Game-quality measures on games whose measures are known by construction (a game that always draws, one the
first seat always wins, fixed branching factors, scores whose lead changes once), and rule files compared in one
run and across results files: the same seeds, the paired tests, draws, --resume, different player counts."""

from __future__ import annotations

import json

import pytest

from rulesdsl.sim import quality
from rulesdsl.sim.compare import DRAWS, Games, differences
from rulesdsl.sim.report import analyse, games_rows, text_report
from rulesdsl.sim.report_html import render

from .helpers import game_lines, run_cli as run

# Every turn the seat to move picks one of `choices` options (the branching factor, whatever was played before)
# and scores `gain` (an expression of me); the game ends after `picks` picks with `winners`.
COUNTING = """\
game: Counting
players:
  count: {players}
vars:
  done: 0
  points: {{per: player, init: 0}}
moves:
  pick:
    params:
      k: "{choices}"
    notation: "pick {{k}}"
    do: ["done += 1", "points[me] += {gain}"]
flow:
  steps:
    turn:
      moves: [pick]
      next: end_turn
end:
  - when: "done >= {picks}"
{winners}{scoring}"""
SCORING = "scoring:\n  score: \"points[me]\"\n"
GAMES = 12


def counting(tmp_path, name: str, players: int = 2, choices: str = "[1, 2, 3]", gain: str = "me + 1",
             picks: int = 6, winners: str = "", scoring: bool = True):
    path = tmp_path / name
    path.write_text(COUNTING.format(players=players, choices=choices, gain=gain, picks=picks,
                                    winners=f"    winners: {winners}\n" if winners else "",
                                    scoring=SCORING if scoring else ""), encoding="utf-8")
    return path


def simulate(capsys, *argv, trace: bool = True):
    extra = ["--score-trace"] if trace else []
    code, out, err = run(capsys, "simulate", *argv, "--games", str(GAMES), "--agents", "random,random", "--quiet",
                         *extra)
    assert code == 0, err
    return out


def by_name(lines, firsts=None, seats=2) -> dict:
    return {m.name.strip(): m for m in quality.measures(lines, firsts or [None] * len(lines), seats)}


def test_a_game_that_always_draws_is_never_decisive(tmp_path, capsys):
    simulate(capsys, str(counting(tmp_path, "draw.yaml", winners="draw")), "--out", str(tmp_path / "r.jsonl"))
    lines = game_lines(tmp_path / "r.jsonl")
    found = by_name(lines)
    assert found["decisiveness"].number == 0.0
    assert found["drama"].number is None and "one winner" in found["drama"].value  # no winner to be behind


def test_the_first_seat_always_winning_is_a_full_first_move_advantage(tmp_path, capsys):
    simulate(capsys, str(counting(tmp_path, "first.yaml", winners='"[0]"')), "--out", str(tmp_path / "r.jsonl"))
    analysis = analyse(str(tmp_path / "r.jsonl"))
    variant = analysis.variants[0]
    assert variant.first == [0] * GAMES  # found by replaying each game's opening
    found = by_name(variant.lines, variant.first)
    assert found["decisiveness"].number == 1.0
    assert found["first-move advantage"].number == pytest.approx(1.0 - 0.5)  # won every game, against an even half
    assert "outside the interval" in found["first-move advantage"].detail


@pytest.mark.parametrize("choices, factor", [("[1, 2]", 2), ("[1, 2, 3, 4, 5]", 5)])
def test_a_fixed_branching_factor_is_found_in_every_third_of_the_game(tmp_path, capsys, choices, factor):
    simulate(capsys, str(counting(tmp_path, "b.yaml", choices=choices, picks=9)), "--out", str(tmp_path / "r.jsonl"))
    found = by_name(game_lines(tmp_path / "r.jsonl"))
    assert found["branching factor"].number == factor
    assert [found[phase].number for phase in quality.PHASES] == [factor] * 3
    assert found["branching factor"].detail == f"{9 * GAMES:,} decisions"


def test_a_trailing_seat_that_overtakes_once_is_drama_and_one_lead_change(tmp_path, capsys):
    # the first seat gains 1 a turn, the second 2: the first leads after its first turn, the second from its own
    # on (a tie between), and wins: behind during one turn of the game, one lead change
    simulate(capsys, str(counting(tmp_path, "late.yaml")), "--out", str(tmp_path / "r.jsonl"))
    lines = game_lines(tmp_path / "r.jsonl")
    assert all(line["winners"] == [1] for line in lines)
    assert [quality.lead_changes(line) for line in lines] == [1] * GAMES
    assert [quality.behind_share(line) for line in lines] == [1 / line["turns"] for line in lines]
    found = by_name(lines)
    assert found["drama"].detail.startswith(f"the winner was ever behind in {GAMES} of {GAMES} games")


def test_a_leader_from_the_start_is_no_drama(tmp_path, capsys):
    simulate(capsys, str(counting(tmp_path, "lead.yaml", gain="2 - me")), "--out", str(tmp_path / "r.jsonl"))
    lines = game_lines(tmp_path / "r.jsonl")
    assert all(line["winners"] == [0] for line in lines)
    found = by_name(lines)
    assert found["drama"].number == 0.0 and found["lead changes"].number == 0.0


def test_measures_without_scores_or_from_older_results_say_they_cannot_be_computed(tmp_path, capsys):
    simulate(capsys, str(counting(tmp_path, "plain.yaml", scoring=False)), "--out", str(tmp_path / "r.jsonl"))
    lines = game_lines(tmp_path / "r.jsonl")
    assert all("score_trace" not in line for line in lines)
    found = by_name(lines)
    assert found["drama"].number is None and "not computable" in found["drama"].value
    assert found["lead changes"].number is None
    older = [{k: v for k, v in line.items() if k != "branching"} for line in lines]  # written before the counts
    assert "not computable" in by_name(older)["branching factor"].value


def test_scores_are_traced_only_when_asked_for(tmp_path, capsys):
    rules = counting(tmp_path, "late.yaml")
    simulate(capsys, str(rules), "--out", str(tmp_path / "plain.jsonl"), trace=False)
    simulate(capsys, str(rules), "--out", str(tmp_path / "traced.jsonl"))
    plain, traced = game_lines(tmp_path / "plain.jsonl"), game_lines(tmp_path / "traced.jsonl")
    assert all("score_trace" not in line for line in plain) and all(line["score_trace"] for line in traced)
    assert [{k: v for k, v in line.items() if k != "score_trace"} for line in traced] == plain  # the same games
    assert "simulate --score-trace" in by_name(plain)["drama"].value


def test_length_spread_is_the_sd_and_interquartile_range():
    lines = [{"plies": n} for n in (1, 2, 3, 4, 5, 6, 7, 8, 9)]
    spread = quality.length_spread(lines)
    assert spread.value == "sd 2.7, IQR 4" and spread.detail == "quartiles 3 and 7"


def test_the_draw_rate_is_compared_game_by_game_when_the_seeds_are_shared():
    base = Games("a", [1, 2, 3, 4], [5] * 4, [[], [], [0], []])
    other = Games("b", [4, 3, 2, 1], [5] * 4, [[0], [1], [0], [1]])  # the same seeds in another order
    paired, found = differences(base, other, ["x", "y"])
    draws = next(d for d in found if d.measure == DRAWS)
    assert paired and draws.base == 0.75 and draws.other == 0.0
    assert draws.test == "exact McNemar test" and draws.p == pytest.approx(0.25)  # 3 discordant pairs, one way
    unpaired = differences(base, Games("c", [9, 8, 7, 6], [5] * 4, other.winners), ["x", "y"])[1]
    assert next(d for d in unpaired if d.measure == DRAWS).test == "Welch t test on draws"


def test_two_rule_files_compared_in_one_run_end_to_end(tmp_path, capsys):
    draw, first = counting(tmp_path, "draw.yaml", winners="draw"), counting(tmp_path, "first.yaml", winners='"[0]"')
    out = simulate(capsys, str(draw), "--compare", str(first), "--out", str(tmp_path / "r.jsonl"))
    assert "first.yaml against draw.yaml (paired by seed" in out
    assert f"draws                100.0% -> 0.0% (-100.0 points), p = {2 * 0.5 ** GAMES:.2g} (significant" in out
    rows = [json.loads(row) for row in (tmp_path / "r.jsonl").read_text().splitlines()]
    rules = {row["sha256"] for row in rows if "rulesdsl_rules" in row}
    games = [row for row in rows if "rulesdsl_rules" not in row]
    assert len(rules) == 2 and {g["rules_sha256"] for g in games} == rules  # each line names its rules
    by_file = {}
    for g in games:
        by_file.setdefault(g["file"], []).append(g["seed"])
    assert len(by_file) == 2 and len(set(map(tuple, by_file.values()))) == 1  # the same seeds for both files
    code, report, _ = run(capsys, "report", str(tmp_path / "r.jsonl"))
    assert code == 0 and "Counting [draw.yaml]: 12 games" in report and "Counting [first.yaml]: 12 games" in report
    assert "first.yaml against draw.yaml (paired by seed" in report and "draws                100.0% -> 0.0%" in report
    analysis = analyse(str(tmp_path / "r.jsonl"))
    assert [row[1] for row in games_rows(analysis)[1:]] == ["draw.yaml"] * GAMES + ["first.yaml"] * GAMES
    page = render(analysis)
    assert "<h2>Game quality</h2>" in page and "<tr class=\"sig\"><td>draws</td><td>100.0%</td><td>0.0%</td>" in page


def test_a_run_of_two_rule_files_resumes_to_the_same_lines(tmp_path, capsys):
    a, b = counting(tmp_path, "a.yaml"), counting(tmp_path, "b.yaml", gain="2 - me")
    simulate(capsys, str(a), str(b), "--out", str(tmp_path / "whole.jsonl"))
    whole = (tmp_path / "whole.jsonl").read_text().splitlines()
    cut = whole[:2 + GAMES + 3]  # both rules lines, the first file's games, three of the second's
    (tmp_path / "part.jsonl").write_text("\n".join(cut) + "\n")
    simulate(capsys, str(a), str(b), "--out", str(tmp_path / "part.jsonl"), "--resume")
    assert sorted((tmp_path / "part.jsonl").read_text().splitlines()) == sorted(whole)
    code, _, err = run(capsys, "simulate", str(a), "--games", str(GAMES), "--agents", "random,random", "--quiet",
                       "--out", str(tmp_path / "part.jsonl"), "--resume")
    assert code == 2 and "holds another run: rule file" in err and "b.yaml" in err


def test_results_files_of_different_player_counts_are_reported_but_not_paired(tmp_path, capsys):
    simulate(capsys, str(counting(tmp_path, "two.yaml")), "--out", str(tmp_path / "two.jsonl"))
    three = counting(tmp_path, "three.yaml", players=3)
    code, _, err = run(capsys, "simulate", str(three), "--games", str(GAMES), "--agents", "random,random,random",
                       "--quiet", "--out", str(tmp_path / "three.jsonl"))
    assert code == 0, err
    code, out, _ = run(capsys, "report", str(tmp_path / "two.jsonl"), str(tmp_path / "three.jsonl"))
    assert code == 0
    assert ("three.yaml against two.yaml: not compared: three.yaml has 3 players and two.yaml 2; games of "
            "different player counts cannot be paired") in out
    analysis = analyse([str(tmp_path / "two.jsonl"), str(tmp_path / "three.jsonl")])
    assert "cannot be paired" in render(analysis)
    assert len(games_rows(analysis)[0]) == 11 + 3 * 3  # a column group per seat of the widest game


def test_two_results_files_of_the_same_seeds_are_paired(tmp_path, capsys):
    simulate(capsys, str(counting(tmp_path, "draw.yaml", winners="draw")), "--out", str(tmp_path / "d.jsonl"))
    simulate(capsys, str(counting(tmp_path, "first.yaml", winners='"[0]"')), "--out", str(tmp_path / "f.jsonl"))
    text = text_report(analyse([str(tmp_path / "d.jsonl"), str(tmp_path / "f.jsonl")]))
    assert "first.yaml against draw.yaml (paired by seed" in text
    assert "p0 wins              0.0% -> 100.0%" in text
    code, _, err = run(capsys, "report", str(tmp_path / "d.jsonl"), str(tmp_path / "d.jsonl"))
    assert code == 2 and "given twice" in err


@pytest.mark.parametrize("field, value, said", [
    ("branching", [[1, 1], [2, 1]], "'branching' should be three [moves, decisions], not a list of 2"),
    ("branching", [[1, 1], [2], [3, 1]], "'branching' item 2 should be [legal moves, decisions], not a list of 1"),
    ("score_trace", [[0, 1]], "a score trace entry is not [turn, one score for each of 2 agents]"),
    ("score_trace", [[0, "a", 1]], "'score_trace' item 1 item 2 should be a number"),
])
def test_damaged_quality_fields_are_located_errors(tmp_path, capsys, field, value, said):
    simulate(capsys, str(counting(tmp_path, "a.yaml")), "--out", str(tmp_path / "r.jsonl"))
    rows = (tmp_path / "r.jsonl").read_text().splitlines()
    line = json.loads(rows[3])
    line[field] = value
    rows[3] = json.dumps(line)
    (tmp_path / "r.jsonl").write_text("\n".join(rows) + "\n")
    code, _, err = run(capsys, "report", str(tmp_path / "r.jsonl"))
    assert code == 1 and f"r.jsonl:4: error: {said}" in err


def test_overlaid_histograms_share_their_bins():
    charts = pytest.importorskip("rulesdsl.sim.report_charts")
    assert charts._bins([3, 5, 4, 9], 30) == [2.5 + i for i in range(8)]  # whole numbers: one bin each
    assert charts._bins(list(range(100)), 10) == [-0.5 + 10 * i for i in range(11)]
    assert charts._bins([0.5, 1.5], 4) == [0.5, 0.75, 1.0, 1.25, 1.5]


def test_a_rule_file_named_twice_and_rules_for_several_files_are_usage_errors(tmp_path, capsys):
    a, b = counting(tmp_path, "a.yaml"), counting(tmp_path, "b.yaml", gain="2 - me")
    code, _, err = run(capsys, "simulate", str(a), "--compare", str(a), "--agents", "random,random")
    assert code == 2 and "a.yaml is given twice" in err
    simulate(capsys, str(a), str(b), "--out", str(tmp_path / "r.jsonl"))
    code, _, err = run(capsys, "report", str(tmp_path / "r.jsonl"), "--rules", str(a))
    assert code == 2 and "--rules reads the games of one rule file" in err
