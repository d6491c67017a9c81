"""The equivalence harness of the two backends: every rule file there is (bundled games with each variant and
configuration, examples, overlays, the compiled backend's own test games), discovered, and small random games,
each played in lockstep on the Python engine and the compiled backend: the same legal moves in the same order, the
same states, chance outcomes with the same probabilities, the same returns and the same observations.
Used by tests/test_equivalence.py (small sizes) and benchmarks/lockstep.py (large ones)."""

from __future__ import annotations

import os
from pathlib import Path

import yaml
from hypothesis import strategies as st

from rulesdsl.engine.load import load_game
from rulesdsl.engine.rng import Rng
from rulesdsl.errors import GameRuntimeError, IllegalMove
from rulesdsl.loading import bundled_games, load_document

ROOT = Path(__file__).resolve().parent.parent
# Every run plays each rule file as it is, each variant it defines, and each option setting that compiles to the
# file's own module; with RULESDSL_LOCKSTEP=all, also the settings that compile a module of their own (another number
# of seats, another board: a minute or more of numba each), an overlay with each variant it inherits (played on its
# base already), and tests/test_compiled.py's configurations of that kind
EVERY_SETTING = os.environ.get("RULESDSL_LOCKSTEP") == "all"
FOLDERS = ["examples", "tests/compiled_games"]  # beside the bundled games: every rule file under these


def rule_files() -> list[str]:
    """Every rule file: the bundled games (by name), then each .yaml under FOLDERS (as a path from the root)."""
    found = list(bundled_games())
    for folder in FOLDERS:
        found += [str(p.relative_to(ROOT)) for p in sorted((ROOT / folder).rglob("*.yaml"))]
    return found


def cases() -> list[tuple[str, str | None, tuple]]:
    """(file, variant, options as sorted pairs) of every rule file: as it is, each variant, and each option set to
    each of its other settings (see _settings; one option changed at a time, the rest at their defaults)."""
    found = []
    for file in rule_files():
        data = load_document(_path(file)).data
        found.append((file, None, ()))
        found += [(file, name, ()) for name in data.get("variants") or {}]
        for name, spec in (data.get("options") or {}).items():
            found += [(file, None, ((name, value),)) for value in _settings(spec or {})]
    return found


def inherited(case: tuple) -> bool:
    """Whether a case is an overlay with a variant it does not define itself but takes from the file it extends."""
    file, variant, _ = case
    if variant is None or file in bundled_games():
        return False
    own = yaml.safe_load((ROOT / file).read_text(encoding="utf-8")) or {}
    return "extends" in own and variant not in (own.get("variants") or {})


def _settings(spec: dict) -> list:
    """The values an option is tried with besides its default: each choice, an int's least and most, a bool's
    other value."""
    values = list(spec.get("choices") or ())
    if not values and spec.get("type") == "int":
        values = [spec[end] for end in ("min", "max") if end in spec]
    if not values and spec.get("type") == "bool":
        values = [True, False]
    return [v for v in dict.fromkeys(values) if v != spec.get("default")]


def label(case: tuple) -> str:
    file, variant, options = case
    return "".join([Path(file).stem, f"[{variant}]" if variant else "", *(f",{k}={v}" for k, v in options)])


def _path(file: str) -> str:
    return str(bundled_games().get(file, ROOT / file))


def python_game(case: tuple):
    """The Python engine's game of a case."""
    file, variant, options = case
    return load_game(_path(file), variant, dict(options))


def lockstep(python, compiled, seeds, plies: int | None = None) -> int:
    """Play a random game of each seed on both backends at once (moves picked by a stream of their own, chance
    outcomes sampled by both); assert that everything read agrees at every position, and that a rule failing fails
    with the same located error on both. The positions compared."""
    compared = 0
    for seed in seeds:
        a, b = python.new_initial_state(seed), compiled.new_initial_state(seed)
        chance_a, chance_b, pick = Rng(seed), Rng(seed), Rng(10**6 + seed)
        while True:
            compared += 1
            failed = None if a.terminal or a.is_chance_node() else _failure(a.legal_moves)
            if failed is not None:  # a listing that fails (no legal move and no pass, say) fails alike
                assert _failure(b.legal_moves) == failed
                break
            same_position(python, a, b)
            if a.terminal or (plies is not None and a.ply >= plies):
                break
            move = next_move(a, b, chance_a, chance_b, pick)
            failed = _failure(lambda: a.apply(move))
            assert _failure(lambda: b.apply(move)) == failed  # a rule that fails fails alike, located alike
            if failed is not None:
                break
    return compared


def _failure(run) -> str | None:
    """The error a rule's failure raises in run(), as text; None when it runs."""
    try:
        run()
    except GameRuntimeError as exc:
        return str(exc)
    return None


def same_position(game, a, b) -> None:
    """The Python state `a` and the compiled state `b` agree in all they are asked."""
    seen = b.python()  # the compiled state read back: what its saved form and observations are made from
    assert seen.to_json() == a.to_json()
    assert (b.terminal, b.ply, b.current_player()) == (a.terminal, a.ply, a.current_player())
    if a.terminal:
        assert b.returns() == a.returns()
        return
    assert b.is_chance_node() == a.is_chance_node()
    if a.is_chance_node():
        assert _outcomes(b) == _outcomes(a)
    else:
        assert [str(m) for m in b.legal_moves()] == [str(m) for m in a.legal_moves()]  # (see lockstep)
    assert b.returns() == a.returns()
    for seat in range(game.num_players):
        assert seen.observation(seat) == a.observation(seat)


def _outcomes(state):
    """(outcome, probability) of each chance outcome, or the reason they cannot be listed (an arrangement)."""
    try:
        return [(str(m), p) for m, p in state.chance_outcomes()]
    except IllegalMove as exc:
        return exc.reason


# -- small random games, from the constructs the compiled backend takes ---------------------------------------
OWNED = "at({c}) != none and at({c}).owner == {p}"
MINE = "count(c for c in cells if " + OWNED.format(c="c", p="{p}") + ")"


@st.composite
def small_games(draw) -> str:
    """The text of a small random game: a grid of 2 to 4 columns and rows, 2 or 3 players, marking empty cells,
    maybe waiting (twice a game at most, in a position not met before: its positions' keys are kept), maybe a die weighted by whole numbers or fractions rolled before each
    turn, and end rules drawn from lines completed, pieces counted and the board filled (the last, always there,
    ends every game), won by the rule's winners or by score."""
    columns, rows = draw(st.integers(2, 4)), draw(st.integers(2, 4))
    players = draw(st.integers(2, 3))
    waiting, rolling = draw(st.booleans()), draw(st.booleans())
    faces = draw(st.integers(2, 4))
    lines = ["game: Small", f"players: {{count: {players}}}", "board:",
             f"  grid: {{columns: {'abcd'[:columns]}, rows: {rows}}}",
             "  directions: {east: [1, 0], north: [0, 1], northeast: [1, 1], southeast: [1, -1]}",
             "pieces:", f"  stone: {{attributes: {{owner: {list(range(players))}}}}}"]
    lines.append("vars: {waits: {per: player, init: 0}" + (", rolled: {init: 0}}" if rolling else "}"))
    odds = [0.1, 0.35, 0.25, 0.7][:faces]  # fractional weights, read from data by a key known while playing
    if rolling:
        lines.append(f"data: {{faces: {list(range(1, faces + 1))}, odds: {odds}}}")
    lines += ["moves:", "  mark:", "    params: {c: {in: cells}}", "    when:", "      - test: \"empty(c)\""]
    lines += ["    notation: \"{c}\"", "    do: [\"place(piece('stone', owner=me), c)\"]"]
    if waiting:
        # (never the second time: a wait changes the position, so its game keeps every position's key)
        lines += ["  wait:", "    notation: wait", "    when:", "      - test: \"waits[me] < 2 and not repeated(2)\"",
                  *(["      - test: \"rolled > 1\""] if rolling else []),
                  "    do: [\"waits[me] += 1\"]"]
    steps = ["flow:", f"  max_turns: {draw(st.integers(4, 40))}", "  steps:"]
    if rolling:
        weight = draw(st.sampled_from(["1", "face", f"{faces + 1} - face", "odds[face - 1] + face * 0.1",
                                       f"odds[(face + rolled) % {faces}]"]))
        steps += ["    roll:", "      chance:", "        outcomes:", "          params: {face: faces}",
                  f"          weight: \"{weight}\"", "          notation: \"roll {face}\"",
                  "          do: [\"rolled = face\"]", "      next: play"]
    steps += ["    play:", f"      moves: [{'mark, wait' if waiting else 'mark'}]", "      next: end_turn"]
    lines += steps
    by_score = draw(st.booleans())
    if by_score:
        form = draw(st.sampled_from(["{0}", "({0}) / 2", "product([{0}, 3, 1])"]))  # whole, fractions, product()
        lines += ["scoring:", f"  score: \"{form.format(MINE.format(p='me') + ' - waits[me]')}\""]
    ends = []
    for kind in draw(st.lists(st.sampled_from(["line", "count", "filled"]), max_size=2, unique=True)):
        if kind == "line":
            length = draw(st.integers(2, min(3, max(columns, rows))))
            has = (f"any(all({OWNED.format(c='c', p='p')} for c in line) for line in lines({length}))")
            ends.append((f"any({has} for p in players)", f"[p for p in players if {has}]"))
        elif kind == "count":
            k = draw(st.integers(1, columns * rows // players))
            ends.append((f"any({MINE.format(p='p')} >= {k} for p in players)",
                         f"[p for p in players if {MINE.format(p='p')} >= {k}]"))
        else:
            ends.append((f"size(occupied()) >= {draw(st.integers(1, columns * rows))}", None))
    ends.append(("size(occupied()) == size(cells)", None))
    lines.append("end:")
    for when, winners in ends:
        lines.append(f"  - when: \"{when}\"")
        if winners is not None and not (by_score and draw(st.booleans())):
            lines.append(f"    winners: \"{winners}\"")
        elif not by_score:
            lines.append("    winners: \"[]\"")
    return "\n".join(lines) + "\n"


def next_move(a, b, chance_a, chance_b, pick):
    """The next move of a game played in lockstep on two backends (`a` the Python one): an outcome each state
    samples from its own chance stream, checked equal, or a random legal move of `a`."""
    if a.is_chance_node():
        move = a.sample_chance(chance_a)
        assert b.sample_chance(chance_b) == move
        return move
    legal = a.legal_moves()
    return legal[pick.below(len(legal))]
