"""A results file analysed for a balance report: each variant's games, summary, first player, scores, lengths and
rule coverage, the variants compared, as text; the charts (report_charts) and the HTML page (report_html) draw on it."""

from __future__ import annotations

import json
import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from .. import budget
from ..bundle import RuleBundle
from ..engine.load import argument_problems, load_game
from ..engine.serialize import shown
from ..errors import GameRuntimeError, Location, MoveError, Problem, RulesError, UsageError
from ..limits import LOAD_SECONDS
from ..terminal import safe_text
from .compare import BASE, Games, compare_text
from .coverage import dead_rules, steps_reached
from .quality import quality_text
from .records import RESULTS_HINT, numbered_results, rules_of, same_rules
from .simulate import Summary
from .stats import mean_interval, wilson


def numeric(score) -> float | None:
    """A score as a number (a tuple score by its first part), or None when it is not one."""
    if isinstance(score, (int, float)) and not isinstance(score, bool):
        return float(score)
    if isinstance(score, list) and score and isinstance(score[0], (int, float)) and not isinstance(score[0], bool):
        return float(score[0])
    return None


def by_variant(lines: list[dict]) -> dict:
    """The lines of each variant, in the order the variants first appear (the first is the base of comparisons)."""
    groups = defaultdict(list)
    for line in lines:
        groups[line.get("variant") or BASE].append(line)
    return dict(groups)


@dataclass
class Variant:
    """One variant's games in a results file, with the game they were played with."""

    label: str
    game: object
    lines: list
    summary: Summary
    first: list  # per game, the seat that made the first decision (None: chance or everyone at once decided)

    @property
    def seats(self) -> list[str]:
        return self.game.player_names

    def scores(self, seat: int) -> list[float]:
        """The seat's numeric final scores (games whose score is not a number left out)."""
        values = (numeric(line["scores"][seat]) for line in self.lines)
        return [v for v in values if v is not None]

    def first_player_wins(self) -> tuple[int, int]:
        """(games the first to decide won, games whose first decision is known)."""
        known = [(line, seat) for line, seat in zip(self.lines, self.first) if seat is not None]
        return sum(seat in line["winners"] for line, seat in known), len(known)

    def coverage(self) -> tuple[list, dict, list]:
        """(rows of (rule, times used, note), ends {end rule or 'turn cap': games}, dead [(what, Location)])."""
        rules = self.game.rules
        counts: dict = defaultdict(int)
        ends: dict = defaultdict(int)
        for line in self.lines:
            for name, n in line.get("rule_counts", {}).items():
                counts[name] += n
            ends["turn cap" if line.get("capped") else line.get("ended_by")] += 1
        kinds = [name for name, rule in rules.moves.items() if not rule.inputs]  # parts count as their move
        kinds += [s.name for s in rules.steps.values() if s.kind == "chance"]
        kinds += ["pass"] if any(s.pass_rule is not None for s in rules.steps.values()) else []
        rows = [(kind, counts.get(kind, 0), "") for kind in kinds]
        rows += [(f"end rule {i + 1}", ends.get(i, 0), "games ended by it") for i in range(len(rules.end_rules))]
        made = {name for name, n in counts.items() if n}
        ended = {end for end in ends if isinstance(end, int)}
        return rows, dict(ends), dead_rules(rules, made, steps_reached(rules, made), ended)


@dataclass
class Analysis:
    """A results file's games by variant, each with its game loaded."""

    path: str
    rules_path: str
    variants: list  # [Variant], the base of comparisons first

    @property
    def title(self) -> str:
        return self.variants[0].game.name

    def compared(self) -> str:
        groups = [Games.of_lines(v.label, v.lines, v.game.rules.returns is not None) for v in self.variants]
        return compare_text(groups, self.variants[0].seats)


@dataclass
class Group:
    """The games of one rules source and variant in one results file, as a report reads them."""

    path: str  # the results file
    key: str  # the rules they were played with: their content hash, else the rule file they name
    file: str  # the rule file as the lines name it
    variant: str | None
    lines: list  # (line number, line)
    rules: object = None  # RuleBundle or a path: what the game is loaded from

    @property
    def file_name(self) -> str:
        return Path(self.file).name or self.file


def _groups(path: str, folder: Path, numbered: list) -> list[Group]:
    """A results file's lines by rules source and variant, in the order they first appear."""
    groups: dict = {}
    for number, line in numbered:
        key = line.get("rules_sha256") or line["file"]
        if not line.get("rules_sha256"):  # older lines: the same rule file written two ways is one source
            key = next((g.key for g in groups.values() if not g.lines[0][1].get("rules_sha256")
                        and same_rules(g.file, line["file"], folder)), key)
        group = groups.setdefault((key, line.get("variant")), Group(path, key, line["file"], line.get("variant"), []))
        group.lines.append((number, line))
    return list(groups.values())


def labels(groups: list[Group]) -> list[str]:
    """How the report names each group: its variant alone when every game was played with one rule file; else
    the rule file's name (and the variant), told apart by content hash and results file when names collide."""
    if len({(g.path, g.key) for g in groups}) == 1:
        return [g.variant or BASE for g in groups]
    names = [g.file_name for g in groups]
    for i, g in enumerate(groups):  # two different rules with one file name: their hashes tell them apart
        if any(names[j] == g.file_name and groups[j].key != g.key for j in range(len(groups))):
            names[i] = f"{g.file_name}@{g.key[:8]}"
    shown = [name + (f" [{g.variant}]" if g.variant else "") for name, g in zip(names, groups)]
    # the same rules in two results files: the results file tells them apart
    return [f"{label} ({Path(g.path).name})" if shown.count(label) > 1 else label for label, g in zip(shown, groups)]


def analyse(paths, rules: str | None = None) -> Analysis:
    """One results file or several (`paths`), read as untrusted data and analysed with the rules they carry or
    the rule files they may name (or `rules`, for the games of one rule file). Games of every rule file and
    variant are reported side by side, the first the base of comparisons."""
    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    for i, path in enumerate(paths):
        if any(Path(path).resolve() == Path(other).resolve() for other in paths[:i]):
            raise UsageError(f"{path} is given twice", "name each results file once")
    groups = []
    for path in map(str, paths):
        carried = {}
        numbered = numbered_results(path, carried)
        if not numbered:
            raise RulesError([Problem("holds no games", Location(path), RESULTS_HINT)])
        for group in _groups(path, Path(path).absolute().parent, numbered):
            number, line = group.lines[0]
            found = rules or rules_of(line, path, Location(path, number), carried)
            group.rules = found if isinstance(found, RuleBundle) else str(found)
            groups.append(group)
    if rules and len({(g.path, g.key) for g in groups}) > 1:
        raise UsageError("--rules reads the games of one rule file, and these were played with several",
                         "leave out --rules: results files carry the rules their games were played with")
    games = _games_of(groups)
    sources = dict.fromkeys(f"{g.rules.files[0][0]} (carried in the results file)" if isinstance(g.rules, RuleBundle)
                            else str(g.rules) for g in groups)
    return _analysis(games, ", ".join(map(str, paths)), ", ".join(sources))


def _games_of(groups: list) -> dict:
    """label -> (the game each group of lines was played with, its lines), every load within one shared budget:
    a results file may carry many rule sets, and a budget each would let it take minutes."""
    games = {}
    for group, label in zip(groups, labels(groups)):
        number, line = group.lines[0]
        named = Path(group.rules.files[0][0] if isinstance(group.rules, RuleBundle) else group.rules).name
        wrong = argument_problems(group.rules, group.variant, line.get("options") or {})
        if wrong:
            raise RulesError([Problem(f"{wrong[0]} (in {named})", Location(group.path, number), wrong[1])])
        game = load_game(group.rules, group.variant, line.get("options") or {}, line.get("max_turns"))
        for n, each in group.lines:  # the seats the report counts are the game's
            if len(each["agents"]) != game.num_players:
                raise RulesError([Problem(f"this line has {len(each['agents'])} agents, but {shown(game.name)} has "
                                          f"{game.num_players} players", Location(group.path, n),
                                          f"{RESULTS_HINT}; this line is damaged, or read with another rule file")])
        games[label] = (game, [line for _, line in group.lines])
    return games


budget.guard(_games_of, LOAD_SECONDS, "loading the rules of the results")


def analysed(lines: list[dict], games: dict, path: str, rules_path: str) -> Analysis:
    """Results lines analysed with the games they were played with ({variant label: compiled game}, one per
    variant of the lines, each with as many players as the lines have agents); `path` and `rules_path` name
    where the lines and rules came from."""
    return _analysis({label: (games[label], group) for label, group in by_variant(lines).items()}, path, rules_path)


def _analysis(groups: dict, path: str, rules_path: str) -> Analysis:
    """{label: (game, lines)} analysed, the first the base of comparisons."""
    variants = []
    for label, (game, group) in groups.items():
        summary = Summary(game.name, group[0].get("variant"), group[0]["agents"], game.player_names,
                          cap=game.max_turns, cap_source=game.cap_source, own_returns=game.rules.returns is not None)
        if label != (group[0].get("variant") or BASE):  # games of several rule files: the title names the file
            summary.label = label
        for line in group:
            summary.add(line)
        variants.append(Variant(label, game, group, summary, [first_mover(game, line) for line in group]))
    return Analysis(path, rules_path, variants)


def first_mover(game, line: dict) -> int | None:
    """The seat that made the game's first decision, found by replaying its opening chance outcomes; None when
    the first decision is everyone's at once, or the line's moves do not replay."""
    try:
        state = game.new_initial_state(line["seed"])
        for text in line["moves"]:
            player = state.current_player()
            if player >= 0:
                return player
            if state.is_simultaneous_node():
                return None
            state.apply(state.parse_move(text, None))
    except (MoveError, GameRuntimeError):  # replay reports those; the report leaves the game out here
        return None
    return None


# -- text --------------------------------------------------------------------------------------------------
def interval(low: float, high: float, digits: int = 1) -> str:
    """A 95% interval as text ('[12.0, 15.5]'; unbounded for a single game)."""
    if math.isinf(low):
        return "[n too small]"
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def first_player(variant: Variant) -> tuple | None:
    """(wins, games, 95% Wilson low, high, an even share) of the seat that decided first; None if no game
    opens with one seat's decision."""
    wins, known = variant.first_player_wins()
    if not known:
        return None
    return (wins, known) + wilson(wins, known) + (1 / len(variant.seats),)


def first_player_text(variant: Variant) -> str:
    """How often the seat that decided first won, against an even share of the wins."""
    found = first_player(variant)
    if found is None:
        return "first player: no game opens with one seat's decision"
    wins, known, low, high, even = found
    seats = defaultdict(int)
    for seat in variant.first:
        if seat is not None:
            seats[variant.seats[seat]] += 1
    who = ", ".join(f"{name} in {n}" for name, n in seats.items())
    verdict = "outside" if not low <= even <= high else "inside"
    return (f"first player (decided first: {who}): won {wins / known:.1%} [{low:.1%}, {high:.1%}] of {known} games; "
            f"an even share, {even:.1%}, lies {verdict} the 95% interval")


def distributions(variant: Variant) -> list[tuple]:
    """(measure, n, mean, 95% t interval low, high, median, min, max) of game length and each seat's numeric
    score."""
    rows = []
    measures = [("game length", variant.summary.lengths)]
    measures += [(f"score, {name}", variant.scores(p)) for p, name in enumerate(variant.seats)]
    for label, values in measures:
        if values:
            m, low, high = mean_interval(values)
            ordered = sorted(values)
            median = (ordered[(len(ordered) - 1) // 2] + ordered[len(ordered) // 2]) / 2
            rows.append((label, len(values), m, low, high, median, ordered[0], ordered[-1]))
    return rows


def distributions_text(variant: Variant) -> list[str]:
    """Game length, and each seat's numeric score: mean with its 95% t interval, median, range."""
    return [f"  {label:<20} mean {m:9.2f}  95% CI {interval(low, high, 2):<22} median {median:g}, "
            f"min {least:g}, max {most:g}, n = {n}"
            for label, n, m, low, high, median, least, most in distributions(variant)]


def coverage_text(variant: Variant) -> str:
    """How often each move kind, chance step and end rule was used, and the rules no game used, at their lines."""
    rows, ends, dead = variant.coverage()
    out = [f"rule coverage over {len(variant.lines)} games of {variant.game.name} [{variant.label}]:"]
    width = max((len(name) for name, _, _ in rows), default=10)
    out += [f"  {name:<{width}}  {n:>10,}" + (f"  {note}" if note else "") for name, n, note in rows]
    if ends.get("turn cap"):
        out.append(f"  games stopped at the turn cap: {ends['turn cap']}")
    if not dead:
        out.append("never used: (none)")
    else:
        out.append("never used (a rule no game uses may be unreachable: check the conditions that lead to it):")
        out += [f"  {where or variant.game.rules.source}: {what}" for what, where in dead]
    return "\n".join(out)


def text_report(analysis: Analysis) -> str:
    """The whole report as text: per variant its summary, first player, distributions, game quality and rule
    coverage; then the variants compared. Control characters of the files' text are escaped (see terminal.safe_text)."""
    parts = []
    for variant in analysis.variants:
        parts.append(variant.summary.format())
        parts.append("  " + first_player_text(variant))
        parts.append("\n".join(["distributions (95% CI of the mean: Student's t):"] + distributions_text(variant)))
        parts.append("\n".join(quality_text(variant.lines, variant.first, len(variant.seats))))
        parts.append(coverage_text(variant))
    if len(analysis.variants) > 1:
        parts.append(analysis.compared())
    return safe_text("\n".join(parts))


# -- per-game CSV --------------------------------------------------------------------------------------------
def csv_text(value: str) -> str:
    """A string for a CSV cell: one a spreadsheet would read as a formula (starting =, +, -, @, or a tab or
    carriage return before one) is quoted with '; control characters are escaped (see terminal.safe_text)."""
    return safe_text("'" + value if value[:1] in ("=", "+", "-", "@", "\t", "\r") else value)


def score_cell(score):
    """A final score for CSV: a number as it is, nothing for none, any other value as its JSON."""
    if score is None or (isinstance(score, (int, float)) and not isinstance(score, bool)):
        return "" if score is None else score
    return json.dumps(score)


def games_rows(analysis: Analysis) -> list[list]:
    """games.csv: a header, then one row per game (columns in docs: `rulesdsl report`)."""
    seats = max((v.seats for v in analysis.variants), key=len)  # games of several player counts: the widest
    several = any(v.summary.label for v in analysis.variants)  # several rule files: 'variant' names the file too
    header = ["index", "variant", "seed", "plies", "turns", "capped", "ended_by", "winners", "shared", "draw",
              "first_player"]
    for name in seats:
        header += [f"{name}_{column}" for column in ("agent", "won", "score")]
    # rules that give each seat's result (`scoring: returns`): a column per seat after the others (and none else)
    own = any(v.game.rules.returns is not None for v in analysis.variants)
    header += [f"{name}_return" for name in seats] if own else []
    rows = [header]
    for variant in analysis.variants:
        for line, first in zip(variant.lines, variant.first):
            winners = line["winners"]
            row = [line["index"], variant.label if several else line.get("variant") or "", line["seed"],
                   line["plies"], line["turns"],
                   int(line["capped"]), "" if line.get("ended_by") is None else line["ended_by"] + 1,
                   " ".join(variant.seats[p] for p in winners), int(len(winners) > 1), int(not winners),
                   "" if first is None else variant.seats[first]]
            for p in range(len(seats)):
                row += [line["agents"][p], int(p in winners), score_cell(line["scores"][p])] \
                    if p < len(line["agents"]) else ["", "", ""]
            if own:
                returns = line.get("returns") if variant.game.rules.returns is not None else None
                row += [returns[p] if returns and p < len(returns) else "" for p in range(len(seats))]
            rows.append(row)
    # every text cell, whichever file it comes from (seat names are the rule file's, variants and agents the
    # results file's), goes through csv_text: none is written as a spreadsheet would run it
    return [[csv_text(cell) if isinstance(cell, str) else cell for cell in row] for row in rows]
