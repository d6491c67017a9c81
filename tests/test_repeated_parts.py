"""Moves of repeated parts (repeat:), one move per position reached (one_per_position) and moves printed alike
(validate --play): legal sets in scenario positions and perft counts, each against a plain Python enumeration of
the same rules written here, independently of the engine."""

from __future__ import annotations

import pytest

import rulesdsl
from rulesdsl.engine.perft import perft
from rulesdsl.findings import check_file

from .helpers import ROOT, position, run_cli

PARTS = ROOT / "tests" / "parts_games"
RACE, JUMPS, ALIKE = str(PARTS / "race.yaml"), str(PARTS / "jumps.yaml"), str(PARTS / "alike.yaml")


# -- the two-dice race, enumerated plainly --------------------------------------------------------------------
GOAL = 12


def race_outcomes(mine, theirs, dice, stop: str = "longest", prefer: bool = True, least: int = 1) -> set:
    """The pairs of squares (in order) the mover's runners may be left on: every order of the dice and every
    runner tried, each step landing at most on the goal and on no square an opposing runner holds (but the goal).
    The sequences that are moves: with `stop` any, every one; stuck, those no die can follow; longest, those
    using the most dice; none of fewer than `least` dice. Then with `prefer`, of those, the ones of the most pips."""
    found = []  # (dice used, pips, runners after, whether no die can follow)

    def go(pos, left, used, pips):
        going = False
        for i, die in enumerate(left):
            for r in (0, 1):
                to = pos[r] + die
                if to <= GOAL and (to == GOAL or to not in theirs):
                    moved = list(pos)
                    moved[r] = to
                    going = True
                    go(tuple(sorted(moved)), left[:i] + left[i + 1:], used + 1, pips + die)
        if used:
            found.append((used, pips, pos, not going))

    go(tuple(sorted(mine)), tuple(dice), 0, 0)
    found = [f for f in found if f[0] >= least]
    if stop != "any":
        found = [f for f in found if f[3]]
    if stop == "longest" and found:
        most = max(f[0] for f in found)
        found = [f for f in found if f[0] == most]
    if prefer and found:
        best = max(f[1] for f in found)
        found = [f for f in found if f[1] == best]
    return {f[2] for f in found}


def race_perft(pos, player: int, depth: int) -> int:
    """Perft of the race from a roll, `player` to roll: 36 rolls, then the moves (one per position reached; a
    pass when there is none); a game that ends (both runners home) counts 0 further."""
    if depth == 0:
        return 1
    total = 0
    for a in range(1, 7):
        for b in range(1, 7):
            if depth == 1:
                total += 1
                continue
            reached = race_outcomes(pos[player], pos[1 - player], [a] * 4 if a == b else [a, b]) or {None}
            if depth == 2:
                total += len(reached)
                continue
            for result in reached:
                after = list(pos)
                if result is not None:
                    after[player] = result
                if any(tuple(p) == (GOAL, GOAL) for p in after):
                    continue
                total += race_perft(after, 1 - player, depth - 2)
    return total


@pytest.fixture(scope="module")
def race():
    return rulesdsl.load_game(RACE, backend="python")


def race_at(game, mine, theirs, dice, player: int = 0):
    runners = [list(mine), list(theirs)] if player == 0 else [list(theirs), list(mine)]
    return position(game, {}, "move", player=player, vars={"pos": runners, "dice": list(dice)})


def reached(state, player: int) -> list:
    """The mover's runners after each legal move (None for a pass), in the order listed."""
    found = []
    for move in state.legal_moves():
        if move[0].name == "pass":
            found.append(None)
            continue
        after = state.clone()
        after.apply(move)
        found.append(tuple(after.to_json()["vars"]["pos"][player]))
    return found


@pytest.mark.parametrize("mine, theirs, dice", [
    ((0, 0), (0, 0), (3, 5)),     # both dice, one runner or two
    ((10, 12), (0, 0), (2, 1)),   # only one die can be used, either: the larger
    ((9, 12), (0, 0), (5, 2)),    # only the smaller can be used
    ((0, 12), (3, 7), (3, 5)),    # both, in one order only: the 3 first is blocked
    ((0, 4), (2, 9), (2, 2, 2, 2)),  # a double: as many of the four as can be used
    ((11, 12), (0, 0), (6, 6, 6, 6)),  # no die can be used: the step's pass
    ((1, 5), (3, 8), (2, 3)),
    ((0, 1), (3, 7), (5, 2)),     # the 5 first leaves the 2 no square: only the orders using both are moves
])
def test_race_moves_use_the_most_dice_then_the_larger(race, mine, theirs, dice):
    for player in (0, 1):
        state = race_at(race, mine, theirs, dice, player)
        found = reached(state, player)
        expected = race_outcomes(mine, theirs, dice)
        assert set(found) == (expected or {None})
        assert len(found) == len(set(found))  # one move per position reached


@pytest.mark.parametrize("stop", ["any", "stuck", "longest"])
@pytest.mark.parametrize("prefer, least", [(False, 1), (True, 1), (False, 2)])
def test_which_sequences_are_moves(write, stop, prefer, least):
    text = open(RACE, encoding="utf-8").read().replace("      stop: longest", f"      stop: {stop}\n      min: {least}")
    if not prefer:
        text = text.replace('prefer: "sum(p.pips for p in parts)"', "")
    game = rulesdsl.load_game(write(text), backend="python")
    for mine, theirs, dice in [((0, 1), (3, 7), (5, 2)), ((0, 0), (0, 0), (3, 5)), ((10, 12), (0, 0), (2, 1)),
                               ((0, 4), (2, 9), (2, 2, 2, 2)), ((9, 12), (0, 0), (5, 2))]:
        found = reached(race_at(game, mine, theirs, dice), 0)
        assert set(found) == (race_outcomes(mine, theirs, dice, stop, prefer, least) or {None})
        assert len(found) == len(set(found))


def test_race_larger_die_is_the_move_when_only_one_can_be_used(race):
    state = race_at(race, (10, 12), (0, 0), (2, 1))
    assert [str(m) for m in state.legal_moves()] == ["10-12"]
    state = race_at(race, (9, 12), (0, 0), (5, 2))
    assert [str(m) for m in state.legal_moves()] == ["9-11"]


def test_race_orders_reaching_one_position_are_one_move_the_first_listed(race):
    state = race_at(race, (0, 12), (0, 0), (3, 5))
    # 3 then 5 and 5 then 3 both leave the runner on 8: the order listed first (the list's first die) stands
    assert [str(m) for m in state.legal_moves()] == ["0-3 3-8"]
    state.apply("0-3 3-8")
    with pytest.raises(rulesdsl.MoveError):
        race_at(race, (0, 12), (0, 0), (3, 5)).apply("0-5 5-8")


@pytest.mark.parametrize("runners, player, depth", [
    (((0, 0), (0, 0)), 0, 3),
    (((5, 9), (3, 8)), 1, 3),
    (((10, 11), (7, 12)), 0, 4),
])
def test_race_perft_matches_a_plain_enumeration(race, runners, player, depth):
    data = race.new_initial_state().to_json()
    data.update(vars=dict(data["vars"], pos=[list(r) for r in runners]), player=player)
    state = race.state_from_json(data)
    assert perft(state, depth) == race_perft([tuple(r) for r in runners], player, depth)


# -- chained captures, enumerated plainly ----------------------------------------------------------------------
DIAGONALS = {"ne": (1, 1), "nw": (-1, 1), "se": (1, -1), "sw": (-1, -1)}
FORWARD = (("ne", "nw"), ("se", "sw"))
COLOURS = ("white", "black")


def name(x: int, y: int) -> str:
    return "abcde"[x - 1] + str(y)


def jump_moves(board: dict, me: int, one_per_position: bool = False) -> dict:
    """notation -> board after, of the legal moves: every chain of hops of one man that cannot go on (captures
    first, in any direction); else a step forward to an empty square."""
    colour, found = COLOURS[me], {}

    def hops(b, at):
        for dx, dy in DIAGONALS.values():
            over, to = (at[0] + dx, at[1] + dy), (at[0] + 2 * dx, at[1] + 2 * dy)
            if 1 <= to[0] <= 5 and 1 <= to[1] <= 5 and to not in b and b.get(over, colour) != colour:
                after = dict(b)
                del after[over]
                after[to] = after.pop(at)
                yield f"{name(*at)}x{name(*to)}", to, after

    def chain(b, at, text):
        going = False
        for step, to, after in hops(b, at):
            going = True
            chain(after, to, f"{text} {step}".strip())
        if not going and text:
            found[text] = b

    for at in [c for c, who in board.items() if who == colour]:
        chain(board, at, "")
    if found:
        if one_per_position:
            positions = {}
            for text, after in found.items():
                positions.setdefault(frozenset(after.items()), (text, after))
            found = dict(positions.values())
        return found
    for at in [c for c, who in board.items() if who == colour]:
        for d in FORWARD[me]:
            to = (at[0] + DIAGONALS[d][0], at[1] + DIAGONALS[d][1])
            if 1 <= to[0] <= 5 and 1 <= to[1] <= 5 and to not in board:
                after = dict(board)
                after[to] = after.pop(at)
                found[f"{name(*at)}-{name(*to)}"] = after
    return found


def jumps_perft(board: dict, me: int, depth: int, one_per_position: bool = False) -> int:
    """Perft of the capture game: a seat with no move loses (0 further), and so does one left with no man."""
    if depth == 0:
        return 1
    moves = jump_moves(board, me, one_per_position)
    if depth == 1:
        return len(moves)
    total = 0
    for after in moves.values():
        if all(colour in after.values() for colour in COLOURS):
            total += jumps_perft(after, 1 - me, depth - 1, one_per_position)
    return total


def jumps_at(game, board: dict, player: int = 0):
    cells = {name(*c): {"kind": "man", "colour": colour} for c, colour in board.items()}
    return position(game, cells, "play", player=player)


def cells_of(text: str) -> dict:
    """A board written 'w:a1,c1 b:b2': the men of each colour, by square."""
    board = {}
    for group in text.split():
        colour, squares = group.split(":")
        for square in squares.split(","):
            board[("abcde".index(square[0]) + 1, int(square[1]))] = COLOURS["wb".index(colour)]
    return board


@pytest.fixture(scope="module")
def jumps():
    return rulesdsl.load_game(JUMPS, backend="python")


@pytest.fixture(scope="module")
def jumps_one():
    return rulesdsl.load_game(JUMPS, variant="one-per-position", backend="python")


SCENES = [
    "w:a1 b:b2,d4",                 # a double capture that must go on: a1xc3 alone is no move
    "w:c1 b:b2,d2,b4,d4",           # round the loop either way: two sequences that end alike
    "w:a3,e1 b:b4,d4,d2,b2",        # two men may capture, one round the loop
    "w:b2,d2 b:c3,e5",              # two men capture the same man
    "w:a1,c1 b:b4,d4",              # no capture: steps forward
    "w:b4,d2 b:a5,c5",              # one man blocked, the other steps
]


@pytest.mark.parametrize("scene", SCENES)
@pytest.mark.parametrize("one", [False, True])
def test_chained_captures_legal_sets(jumps, jumps_one, scene, one):
    board = cells_of(scene)
    game = jumps_one if one else jumps
    for player, flipped in ((0, board), (1, {(6 - x, 6 - y): COLOURS[1 - COLOURS.index(c)]
                                             for (x, y), c in board.items()})):
        expected = jump_moves(flipped, player, one)
        state = jumps_at(game, flipped, player)
        if state.terminal:  # no move at all: the seat to play has lost
            assert not expected
            continue
        listed = [str(m) for m in state.legal_moves()]
        assert len(listed) == len(set(listed))
        assert set(listed) == set(expected)


def test_a_capture_must_go_on_while_it_can(jumps):
    state = jumps_at(jumps, cells_of("w:a1 b:b2,d4"))
    assert [str(m) for m in state.legal_moves()] == ["a1xc3 c3xe5"]
    with pytest.raises(rulesdsl.MoveError):
        state.apply("a1xc3")


def test_round_the_loop_either_way_is_one_move_with_one_per_position(jumps, jumps_one):
    board = cells_of("w:c1 b:b2,d2,b4,d4")
    both = [str(m) for m in jumps_at(jumps, board).legal_moves()]
    one = [str(m) for m in jumps_at(jumps_one, board).legal_moves()]
    assert sorted(both) == sorted(jump_moves(board, 0)) and len(both) == 2
    assert one == both[:1]  # the first listed stands for the position


@pytest.mark.parametrize("one", [False, True])
def test_chained_captures_perft_matches_a_plain_enumeration(jumps, jumps_one, one):
    game = jumps_one if one else jumps
    state = game.new_initial_state()
    board = {("abcde".index(c[0]) + 1, int(c[1])): p["colour"] for c, p in state.to_json()["cells"].items()}
    assert perft(state, 5) == jumps_perft(board, 0, 5, one)
    loop = cells_of("w:a3,e1,c1 b:b4,d4,d2,b2,a5")
    assert perft(jumps_at(game, loop), 4) == jumps_perft(loop, 0, 4, one)


# -- moves printed alike ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_validate_play_reports_two_moves_that_print_alike(capsys, backend):
    code, _, err = run_cli(capsys, "validate", ALIKE, "--play", "3", "--backend", backend)
    assert code == 1
    lines = [line for line in err.splitlines() if "print alike" in line]
    assert len(lines) == 1, err
    # located at the notation of the part move, which should print what tells the two apart
    notation = next(i for i, line in enumerate(open(ALIKE, encoding="utf-8"), 1) if '"{from}-{to}"' in line)
    assert lines[0].startswith(f"{ALIKE}:{notation}:")
    assert "two moves of 'play' print alike" in lines[0] and "on turn 0 of random game 0" in lines[0]
    assert "white to move" in lines[0] and "they differ in parts[0].r (0, 1)" in lines[0]
    assert "print {r} in the notation of 'advance'" in err and "one_per_position" in err
    # what it says is so: in that position two legal moves print alike, and typing it is refused as ambiguous
    game = rulesdsl.load_game(ALIKE, backend="python")
    text = lines[0].split("both are written '")[1].split("'")[0]
    for a in range(1, 7):
        for b in range(1, 7):
            state = game.new_initial_state(0)
            state.apply(f"roll {a} {b}")
            if [str(m) for m in state.legal_moves()].count(text) == 2:
                with pytest.raises(rulesdsl.MoveError, match="several different moves"):
                    state.apply(text)
                return
    pytest.fail(f"no first roll offers two moves written '{text}'")


def test_validate_play_passes_the_games_whose_moves_print_apart(capsys):
    for path in (RACE, JUMPS):
        code, out, err = run_cli(capsys, "validate", path, "--play", "3", "--backend", "python")
        assert code == 0, err
        assert "print alike" not in out + err


def test_compiled_backend_takes_repeated_parts_and_refuses_what_it_cannot_hold_located(capsys, write):
    """Moves of repeated parts are compiled (tests/test_compiled.py plays them in lockstep); a prefer: that is a
    fraction is not yet: a located refusal at it (auto plays the game on the Python engine)."""
    code, out, err = run_cli(capsys, "compile", RACE, "--check", "--backend", "compiled")
    assert code == 0 and "OK: the compiled backend takes it" in out
    text = open(RACE, encoding="utf-8").read()
    prefer = 'prefer: "sum(p.pips for p in parts)"'
    path = write(text.replace(prefer, prefer[:-1] + ' / 2"'))
    code, out, err = run_cli(capsys, "compile", path, "--check", "--backend", "compiled")
    line = next(i for i, t in enumerate(text.splitlines(), 1) if prefer in t)
    column = text.splitlines()[line - 1].index('"') + 1  # (the expression of prefer:)
    assert code == 1 and f"{path}:{line}:{column}: error: the compiled backend does not take this yet" in out + err


# -- the editor's names ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("file, rule", [(RACE, ("moves", "play")), (JUMPS, ("moves", "capture"))])
def test_every_name_in_a_repeat_resolves_to_what_declares_it(file, rule):
    from rulesdsl.engine.load import compile_game
    from rulesdsl.ir.occurrences import occurrences
    from rulesdsl.loading import load_document
    from rulesdsl.lsp.index import FileIndex

    doc = load_document(file)
    names = occurrences(compile_game(doc, file).rules.ir)
    index = FileIndex(doc, names)
    found = [n for n in names if n.path[:len(rule)] == rule]
    assert {n.name for n in found} >= ({"die", "parts", "p"} if file == RACE else {"part", "parts"})
    for name in found:
        where = doc.locate(name.path, name.start)[0]
        symbol = index.symbol_at(file, where.line, where.col)
        assert symbol is not None and symbol.name == name.name, name
        if name.name in ("die", "part", "parts"):  # declared by the repeat: (its using: for the item)
            assert name.decl is not None and name.decl[:3] == rule + ("repeat",), name
        if name.decl is not None:  # declared by a key of the file: go-to-definition goes there
            assert symbol.location == doc.locate(name.decl, key=True)[0], name


# -- moves provably printed alike, found at load ---------------------------------------------------------------
TAKE = """
game: Take
players: {count: 2}
vars:
  pile: {init: 20}
  last_colour: {init: "'red'"}
moves:
  take:
    params:
      n: "1..3"
      colour: COLOURS
    let:
      LET
    when: [WHEN]
    notation: "NOTATION"
    do: ["pile -= n", "last_colour = colour"]
flow:
  steps:
    play: {moves: [take], next: end_turn}
end:
  - when: "pile <= 0"
    winners: "[player]"
"""


@pytest.mark.parametrize("colours, let, when, notation, alike", [
    ("['red', 'blue']", "{}", "n <= pile", "take {n}", True),
    ("['red', 'blue']", "{shade: \"colour\"}", "n <= pile", "take {n}", True),       # a let of it, not printed
    ("['red', 'blue']", "{}", "n <= pile", "take {n} {colour}", False),             # printed
    ("['red', 'blue']", "{shade: \"colour\"}", "n <= pile", "take {n} {shade}", False),  # printed through a let
    ("['red', 'blue']", "{}", "n <= pile and colour == last_colour", "take {n}", False),  # a condition tells
    ("['red', 'red']", "{}", "n <= pile", "take {n}", False),                        # one value only
    ("[last_colour, 'blue']", "{}", "n <= pile", "take {n}", False),                 # not known at load
])
def test_a_param_no_move_prints_is_found_at_load(write, colours, let, when, notation, alike):
    text = TAKE.replace("COLOURS", f'"{colours}"').replace("LET", let).replace("WHEN", f'"{when}"') \
        .replace("NOTATION", notation)
    problems = [p for p in check_file(write(text)).problems if p.code == "moves_print_alike"]
    assert len(problems) == alike
    if alike:
        assert problems[0].location.line == text.splitlines().index("      colour: COLOURS".replace(
            "COLOURS", f'"{colours}"')) + 1
        assert "'colour'" in problems[0].message and "{colour}" in problems[0].hint


# -- one move per position, on a fixed list of parts -----------------------------------------------------------
@pytest.mark.parametrize("one", [False, True])
def test_fixed_parts_reaching_one_position_are_one_move(write, one):
    text = open(RACE, encoding="utf-8").read().replace("""    repeat:
      move: advance
      using: {die: "dice"}
      inputs: {pips: "die"}
      stop: longest
      prefer: "sum(p.pips for p in parts)"
""", """    parts:
      - {move: advance, inputs: {pips: "dice[0]"}}
      - {move: advance, inputs: {pips: "dice[1]"}}
""")
    if not one:
        text = text.replace("    one_per_position: true\n", "")
    game = rulesdsl.load_game(write(text), backend="python")
    state = race_at(game, (0, 0), (0, 0), (3, 5))
    found = reached(state, 0)
    # the first 3 moves either runner from 0: the same position, so each way on is listed twice without it
    assert sorted(found) == sorted([(0, 8), (3, 5)] * (1 if one else 2))
    texts = [str(m) for m in state.legal_moves()]
    assert texts == ["0-3 0-5", "0-3 3-8"] * (1 if one else 2)  # the first listed of each stands for it
    if one:  # compiled code keeps the same first of each, comparing the positions the moves leave
        pytest.importorskip("numba")
        from rulesdsl.backends.compiled.build import with_backend
        from rulesdsl.backends.compiled.state import CompiledState
        compiled = CompiledState.of(with_backend(game, "compiled"), state)
        assert [str(m) for m in compiled.legal_moves()] == texts


def test_a_chain_given_as_an_input_makes_the_same_moves(write):
    """The faster way to chain a part to the one before, as the language reference writes it."""
    text = open(JUMPS, encoding="utf-8").read().replace('''  hop:
    params:
      from: "owned(me)"''', '''  hop:
    inputs: [start]
    params:
      from: "owned(me) if start == none else [start]"''').replace(
        '''      chain: "part.from == parts[-1].to"''', '''      inputs: {start: "parts[-1].to if parts else none"}''')
    assert "inputs: [start]" in text and "chain: \"" not in text
    game = rulesdsl.load_game(write(text), backend="python")
    loop = cells_of("w:a3,e1,c1 b:b4,d4,d2,b2,a5")
    assert perft(jumps_at(game, loop), 4) == jumps_perft(loop, 0, 4)


def test_the_ir_shows_a_repeat(capsys):
    code, out, _ = run_cli(capsys, "compile", RACE, "--ir", "--show", "play")
    assert code == 0
    assert "repeat play[]: advance, stop longest" in out and "using: dice" in out
    assert "prefer: sum(p.pips for p in parts)" in out and "pips: die" in out and "one_per_position" in out
