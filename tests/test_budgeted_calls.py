"""Every call of a rule file's code runs under a time budget, whoever makes it: listing and applying moves, but
also printing a move, scoring, evaluating for an agent, who sees a place, observation features, `among:` bounds, `render: at`,
reading a typed move or a saved state. A rule that never ends is a located error naming the rule, quickly."""

from __future__ import annotations

import json
import sys
import time

import pytest

import rulesdsl
from rulesdsl import budget
from rulesdsl.agents import make_agent
from rulesdsl.agents.view import PlayerView
from rulesdsl.engine.actions import ActionMap
from rulesdsl.engine.rng import Rng
from rulesdsl.engine.tensor import ObservationTensor
from rulesdsl.errors import GameRuntimeError, MoveError, RulesError
from rulesdsl.lang.compiler import RULE_CODE_FILE
from rulesdsl.loading import bundled_games
from rulesdsl.render import render_state

from .helpers import SEALED, run_cli
from .rl_games import TINY_POKER

# A loop of 10^12 steps: it never ends within any budget. Notation may not call the file's functions (they may
# read the state), so every field below holds the loop itself.
FOREVER = "size([y for y in 0..999999 for z in 0..999999 if y < 0])"
SCALE = "0.05"  # the budgets scaled down: 0.25 s a move, 0.15 s a value

GAME = """\
game: Probe
players: {count: 2}
board: {cells: [a, b, c]}
pieces:
  stone: {attributes: {colour: [red, blue]}}
vars: {points: {per: player, init: 0, visible: VISIBLE}}
moves:
  put:
    params: {c: PARAM}
    notation: NOTATION
    do: ["place(piece('stone', colour='red'), c)", "points[me] += 1"]
flow:
  steps:
    play: {moves: [put], pass: pass, actor: ACTOR}
end:
  - when: "turn >= 2"
    winners: WINNERS
scoring:
  score: SCORE
  evaluation: EVALUATION
features:
  stones: FEATURE
render:
  at: AT
"""
PLAIN = {"PARAM": '"[x for x in cells if empty(x)]"', "NOTATION": '"put {c}"', "WINNERS": '"[]"',
         "SCORE": '"points[me]"', "EVALUATION": '"points[me]"', "FEATURE": '"size(occupied())"',
         "AT": '"[c.index, 0]"', "ACTOR": '"player"', "VISIBLE": '"viewer == owner"'}


def probe(**changed) -> str:
    """The probe game with some of its expressions replaced (by name, as in PLAIN)."""
    text = GAME
    for key, value in {**PLAIN, **changed}.items():
        text = text.replace(key, value)
    return text


@pytest.fixture
def write(write):
    """conftest's write(), naming the file probe.yaml unless told otherwise."""
    return lambda text, name="probe.yaml": write(text, name)


@pytest.fixture
def fast(monkeypatch):
    """Budgets scaled down, so that an overrun is found in a fraction of a second."""
    monkeypatch.setenv(budget.TIME_SCALE_VARIABLE, SCALE)


def forever(expression: str = FOREVER) -> str:
    return '"' + expression + '"'


def located_at(error, line_text: str, path: str) -> None:
    """The error names a line of the file that holds `line_text`."""
    location = error.location if isinstance(error, GameRuntimeError) else error.problems[0].location
    assert location is not None and location.file == path
    assert line_text in open(path, encoding="utf-8").read().splitlines()[location.line - 1]


def cli(capsys, *argv) -> tuple[int, str]:
    """Run the command; its exit code and what it printed on stderr, checked to take well under 10 s."""
    start = time.monotonic()
    code, _, err = run_cli(capsys, *argv)
    assert time.monotonic() - start < 10  # a guard against a hang, not a speed measurement
    return code, err


# -- one mechanism covers every call ------------------------------------------------------------------------
def _exercise(game, seed: int, plies: int = 12) -> None:
    """Do with a game what programs do: list, print, read and apply moves, score, evaluate, observe (JSON and
    tensors), number actions, draw and save states, and ask the greedy agent; for `plies` random moves."""
    rng, greedy = Rng(seed), make_agent("greedy")
    tensor = ObservationTensor(game)
    actions = ActionMap(game)
    if actions.moves.blocker is not None:  # moves that cannot be numbered: nothing more of it to exercise
        actions = None
    state = game.new_initial_state(seed)
    for _ in range(plies):
        if state.is_terminal():
            break
        state.scores(), state.evaluations(), state.breakdowns(), render_state(state)
        game.state_from_json(state.to_json())
        for seat in range(game.num_players):
            state.observation(seat)
            tensor.values(state, seat)
        with pytest.raises(MoveError):
            state.parse_move("no such move here")
        if state.is_chance_node():
            state.apply(state.sample_chance(rng))
            continue
        seat = state.acting_players()[0]
        legal = state.legal_moves(seat)
        texts = [str(m) for m in legal]
        if actions is not None:
            for action in actions.legal(state, seat):
                actions.moves.describe(action)
        move = greedy.choose(PlayerView(state, seat), legal, rng) if seat == 0 else legal[rng.below(len(legal))]
        text = texts[legal.index(move)]
        state.apply(text if texts.count(text) == 1 else move, seat)  # typed, where the text names it alone
    state.returns()


def _unbudgeted(work) -> set:
    """(generated function, its caller) for each call of generated rule code that `work()` makes outside every
    registered budget (with no registered function on the stack)."""
    found = set()

    def watch(frame, event, arg):
        if event != "call" or not frame.f_code.co_filename.startswith(RULE_CODE_FILE):
            return
        outer = frame
        while outer is not None and outer.f_code not in budget._sections:
            outer = outer.f_back
        if outer is None:
            caller = frame.f_back
            while caller is not None and caller.f_code.co_filename.startswith(RULE_CODE_FILE):
                caller = caller.f_back
            found.add((frame.f_code.co_name, caller and f"{caller.f_code.co_filename}:{caller.f_code.co_name}"))

    # the watch slows every Python call several times over: the budgets are scaled alike, as under any profiler
    # (a budget overrun here would be the watch's doing; what is checked is where the budgets are, not their size)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(budget.TIME_SCALE_VARIABLE, str(10 * budget.time_scale()))
        sys.setprofile(watch)
        try:
            work()
        finally:
            sys.setprofile(None)
    return found


@pytest.mark.parametrize("name", sorted(bundled_games()) + [SEALED, "poker"])
def test_every_call_of_rule_code_is_budgeted(name, write):
    path = write(TINY_POKER) if name == "poker" else bundled_games().get(name, name)
    game = rulesdsl.load_game(path)
    assert _unbudgeted(lambda: _exercise(game, seed=3)) == set()


def test_every_call_of_the_probe_games_code_is_budgeted(write):  # it has features and render: at too
    path = write(probe())
    assert _unbudgeted(lambda: _exercise(rulesdsl.load_game(path), seed=1)) == set()


# -- each call that never ends is a located error ---------------------------------------------------------
def first_state(path: str):
    return rulesdsl.load_game(path).new_initial_state()


def finished(path: str):
    """The probe game played to its end (two turns)."""
    state = first_state(path)
    while not state.is_terminal():
        state.apply(state.legal_moves()[0])
    return state


# what never ends, the text on the line it is located at, and how the public API meets it
API = {
    "notation": ("NOTATION", forever("put {" + FOREVER + "} {c}"), "notation:",
                 lambda path: str(first_state(path).legal_moves()[0])),
    "score": ("SCORE", forever(), "score:", lambda path: finished(path).scores()),
    "evaluation": ("EVALUATION", forever(), "evaluation:", lambda path: first_state(path).evaluations()),
    "feature": ("FEATURE", forever(), "stones:",
                lambda path: ObservationTensor(rulesdsl.load_game(path)).values(first_state(path), 0)),
    "returns": ("WINNERS", forever(f"[p for p in players if {FOREVER} > 0]"), "- when:",
                lambda path: finished(path).returns()),
    "actor": ("ACTOR", forever(f"{FOREVER} % 2"), "play:", lambda path: first_state(path).current_player()),
    "among": ("PARAM", '{in: "[x for x in cells if empty(x)]", among: ' + forever(f"[x for x in cells if {FOREVER} < 0]")
              + "}", "among:", lambda path: ActionMap(rulesdsl.load_game(path))),
    "render key": ("AT", forever(f"[c.index, {FOREVER}]"), "at:", lambda path: rulesdsl.load_game(path)),
    "visible": ("VISIBLE", forever(f"{FOREVER} > viewer"), "vars:", lambda path: first_state(path).observation(0)),
}


@pytest.mark.parametrize("case", sorted(API))
def test_rule_code_that_never_ends_is_a_located_error(case, write, fast):
    placeholder, expression, line, run = API[case]
    path = write(probe(**{placeholder: expression}))
    start = time.monotonic()
    with pytest.raises((GameRuntimeError, RulesError)) as info:
        run(path)
    assert time.monotonic() - start < 10  # a guard against a hang, not a speed measurement
    assert "took longer than" in str(info.value)
    located_at(info.value, line, path)


# what never ends, the commands that meet it (each must end in a located error, exit 1); no command reads the
# features or numbers the moves (the learning integrations do, through the API above)
COMMANDS = {
    "notation": [["moves"], ["simulate", "--agents", "random,random", "--games", "2"]],
    "score": [["simulate", "--agents", "random,random", "--games", "2"], ["show", "--state", "END"]],
    "evaluation": [["simulate", "--agents", "greedy,random", "--games", "2"]],
    "returns": [["simulate", "--agents", "random,random", "--games", "2"]],
    "actor": [["moves"], ["show"], ["simulate", "--agents", "random,random", "--games", "2"]],
    "render key": [["moves"], ["show"], ["simulate", "--agents", "greedy,random", "--games", "2"]],
    "visible": [["show"]],
}


@pytest.mark.parametrize("case, command", [(case, command) for case in sorted(COMMANDS) for command in COMMANDS[case]],
                         ids=lambda value: value if isinstance(value, str) else value[0])
def test_commands_meeting_rule_code_that_never_ends_exit_1(case, command, write, fast, capsys, tmp_path):
    placeholder, expression, line, _ = API[case]
    path = write(probe(**{placeholder: expression}))
    if "END" in command:  # a finished game of the same rules, saved by the sound probe
        (tmp_path / "end.json").write_text(json.dumps(finished(write(probe(), "plain.yaml")).to_json()))
        command = [str(tmp_path / "end.json") if word == "END" else word for word in command]
    code, err = cli(capsys, command[0], path, *command[1:])
    assert code == 1, err
    assert "took longer than" in err
    assert err.startswith(path + ":")
    located_at_line = int(err.split(":")[1])
    assert line in open(path, encoding="utf-8").read().splitlines()[located_at_line - 1]



def test_an_overrun_landing_in_the_engines_code_after_a_moves_rules_is_located_at_the_move(write, monkeypatch):
    """The watchdog's exception arrives wherever the code is: past the move's own rules (in the flow that follows
    it, or the checks of what it built), it still names the move and where it is written."""
    path = write(probe())
    state = first_state(path)

    def overrun(*args, **kwargs):
        raise budget.TimeBudgetExceeded()

    for flow in ("_advance", "_go"):  # (whichever the move takes)
        monkeypatch.setattr(type(state), flow, overrun)
    with pytest.raises(GameRuntimeError) as info:
        state.apply(state.legal_moves()[0])
    assert "rule 'put' failed on turn 0" in str(info.value) and "took longer than" in str(info.value)
    assert info.value.location.line == rulesdsl.load_game(path).rules.where(("moves", "put")).line
