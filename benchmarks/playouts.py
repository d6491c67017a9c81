"""Random playouts per second of every bundled game and configuration: the interpreter beside a plain
hand-written implementation of the same game, measured in one run, and their ratio.

Usage:  python benchmarks/playouts.py [--seconds 4] [--game mark] [--breakdown] [--backend compiled]

Each interpreter playout is a fresh seeded state played to the end by the play loop (rulesdsl.engine.play,
as in random_playout) with uniformly random legal moves and sampled chance outcomes, through the public
State API: the loop an AI library runs. Its random streams run on from one playout to the next, as the
direct implementation's generator does, so that seeding them is not what is timed. Each direct
implementation (tests/reference/*_direct.py, checked move for move against the rule files by the lockstep
tests) plays the same random policy: a legal-move list and a uniform choice.

The two are measured in alternating slices of CPU time (time.process_time, so other processes on a shared
machine do not count), and the ratio is the steadier figure. With `--backend compiled`, the compiled backend's
playouts are measured in the same slices, beside both: one State.playout call per playout (a fresh state, the whole
loop in compiled code), and batches of playouts in one call (Game.playouts: the first position's vector copied per
playout, no Python state at all); with the time its first load took in this process (cold, or read from the
on-disk cache) and a second load in the same process (warm).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import rulesdsl  # noqa: E402
from rulesdsl.backends.compiled.build import compile_game, with_backend  # noqa: E402
from rulesdsl.engine.play import play, streams, uniform  # noqa: E402
from rulesdsl.loading import bundled_games  # noqa: E402
from tests.reference import fast_track_direct, mabula_direct, marble_chase_direct, mark_direct  # noqa: E402

clock = time.perf_counter

# Every configuration measured: (label, bundled game, options).
CONFIGS = [
    ("mabula", "mabula", {}),
    ("mark, 2 players", "mark", {}),
    ("mark, 4 players", "mark", {"players": 4}),
    ("fast-track, square, 2 players", "fast-track", {}),
    ("fast-track, hex, 2 players", "fast-track", {"board": "hex"}),
    ("fast-track, square, 4 in pairs", "fast-track", {"players": 4, "teams": "pairs"}),
    ("fast-track, hex, 6 in pairs", "fast-track", {"board": "hex", "players": 6, "teams": "pairs"}),
    ("marble-chase, 2 players", "marble-chase", {}),
]


def _mabula_loop(seed: int, **_) -> tuple:
    """The hand-written Mabula's move-list loop (its random_playout is the tuned one, that never lists moves)."""
    rng = random.Random(seed)
    g = mabula_direct.Mabula(mabula_direct.random_setup(rng))
    plies = 1  # the setup
    while not g.is_terminal():
        moves = g.legal_moves()
        g.apply(moves[rng.randrange(len(moves))])
        plies += 1
    return None, plies


def _mabula_tuned(seed: int) -> int:
    mabula_direct.random_playout(random.Random(seed))
    return 0  # plies are not counted by the tuned playout


# The direct implementation of each bundled game: fn(seed, **options) -> (winners, plies).
DIRECT = {"mabula": _mabula_loop, "mark": mark_direct.random_playout,
          "fast-track": fast_track_direct.random_playout, "marble-chase": marble_chase_direct.random_playout}


def measure(fns: list, seconds: float, slices: int = 6) -> list[tuple[float, float]]:
    """(playouts, plies) per CPU second of each fn(i) -> plies (or (playouts, plies) for a batch), measured in turn
    in `slices` rounds."""
    done = [[0, 0, 0.0] for _ in fns]  # playouts, plies, CPU seconds
    for i, fn in enumerate(fns):
        fn(10**6 + i)  # warm-up: tables a game fills on first use
    for _ in range(slices):
        for fn, tally in zip(fns, done):
            start = time.process_time()
            while True:
                got = fn(tally[0])  # plies, or (playouts, plies) of a batch
                count, plies = got if isinstance(got, tuple) else (1, got)
                tally[1] += plies
                tally[0] += count
                spent = time.process_time() - start
                if spent >= seconds / slices:
                    break
            tally[2] += spent
    return [(n / cpu, plies / cpu) for n, plies, cpu in done]


class _Clocked:
    """A state whose listing, drawing and applying are timed into `spent`: how breakdown() sees the parts of
    the play loop."""

    __slots__ = ("state", "spent")

    def __init__(self, state, spent: dict):
        self.state, self.spent = state, spent

    @property
    def terminal(self) -> bool:
        return self.state.terminal

    def current_player(self) -> int:
        return self.state.current_player()

    def acting_players(self) -> list:
        return self.state.acting_players()

    def legal_moves(self, player):
        t = clock()
        moves = self.state.legal_moves(player)
        self.spent["listing moves"] += clock() - t
        return moves

    def sample_chance(self, rng):
        t = clock()
        move = self.state.sample_chance(rng)
        self.spent["chance"] += clock() - t
        return move

    def apply(self, move) -> None:
        t = clock()
        self.state.apply(move)
        self.spent["applying moves"] += clock() - t


def playouts(game):
    """fn(i) -> plies for measure(): random playout i of `game`."""
    chance, seats = streams(0, game.num_players)

    def one(i: int) -> int:
        state = game.new_initial_state(i)
        play(state, uniform, chance, seats)
        return state.ply
    return one


def compiled_playouts(game):
    """fn(i) -> plies for measure(): random playout i of `game` on the compiled backend, played in compiled code."""
    chance, seats = streams(0, game.num_players)

    def one(i: int) -> int:
        return game.new_initial_state(i).playout(chance, seats)
    return one


def compiled_batches(game, size: int = 100):
    """fn(i) -> (playouts, plies) for measure(): random playouts i to i + size of `game` on the compiled backend, in
    one call."""
    chance, seats = streams(0, game.num_players)

    def some(i: int) -> tuple:
        plies, _ = game.playouts(range(i, i + size), chance, seats)
        return size, int(plies.sum())
    return some


def compiled(game):
    """(the game on the compiled backend or None, cold load seconds, warm load seconds, why not)."""
    start = time.perf_counter()
    found = with_backend(game, "auto")
    cold = time.perf_counter() - start
    if found is game:
        return None, cold, None, game.backend_note
    start = time.perf_counter()
    compile_game(game)
    return found, cold, time.perf_counter() - start, ""


def breakdown(game, seconds: float) -> dict:
    """Microseconds per playout spent making the state, drawing chance outcomes, listing moves and applying
    them (effects, turn flow and end checks): the playouts' loop, with a clock around each part."""
    spent = dict.fromkeys(["new state", "chance", "listing moves", "applying moves"], 0.0)
    chance, seats = streams(0, game.num_players)
    games, plies, start = 0, 0, clock()
    while clock() - start < seconds:
        t = clock()
        state = game.new_initial_state(games)
        spent["new state"] += clock() - t
        play(_Clocked(state, spent), uniform, chance, seats)
        plies += state.ply
        games += 1
    result = {part: 1e6 * total / games for part, total in spent.items()}
    result["plies"] = plies / games
    return result


def memory(game, seed: int = 7) -> tuple[float, float, int]:
    """(bytes a copy of a mid-game state takes, µs per copy, the ply it was taken at): what search agents
    holding thousands of states pay. The state is that of a seeded random game halfway through."""
    chance, seats = streams(seed, game.num_players)
    whole = game.new_initial_state(seed)
    play(whole, uniform, chance, seats)
    state = game.new_initial_state(seed)
    chance, seats = streams(seed, game.num_players)
    play(state, uniform, chance, seats, limit=whole.ply // 2)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    copies = [state.clone() for _ in range(20)]
    size = (tracemalloc.get_traced_memory()[0] - before) / len(copies)
    tracemalloc.stop()
    count, start = 0, time.process_time()
    while time.process_time() - start < 0.2:
        state.clone()
        count += 1
    return size, 1e6 * (time.process_time() - start) / count, state.ply


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="CPU seconds per implementation and figure")
    parser.add_argument("--game", action="append",
                        help="only these games, by name or rule file (default: every bundled game and configuration)")
    parser.add_argument("--breakdown", action="store_true",
                        help="also show where a playout's time goes (µs per playout, with a clock around each part)")
    parser.add_argument("--memory", action="store_true",
                        help="also show the size of a mid-game state and the time to copy it")
    parser.add_argument("--variant", help="load the games with this variant (the direct implementations play their "
                                          "base rules, which a variant of scoring only leaves as they are)")
    parser.add_argument("--backend", choices=["python", "compiled"], default="python",
                        help="compiled: also measure the compiled backend's playouts, in the same slices")
    args = parser.parse_args(argv)
    games = bundled_games()
    configs = [c for c in CONFIGS if not args.game or c[1] in args.game]
    configs += [(name, name, {}) for name in args.game or [] if name not in games]  # a rule file of one's own
    extra = f" {'compiled':>9} {'c/direct':>8} {'c/interp':>8} {'batched':>9} {'b/direct':>8} {'cold s':>6} " \
        f"{'warm s':>6}" \
        if args.backend == "compiled" else ""
    print(f"{'configuration':<32} {'interpreter':>11} {'direct':>8} {'ratio':>6} {'plies':>7} {'plies/s':>9}{extra}")
    for label, name, options in configs:
        try:
            game = rulesdsl.load_game(games.get(name, name), args.variant, options=options, backend="python")
        except rulesdsl.RulesDslError as exc:  # a rule file that does not load: said as validate says it
            print(exc, file=sys.stderr)
            return 1
        direct = DIRECT.get(name)
        fast, cold, warm, why = compiled(game) if args.backend == "compiled" else (None, 0, 0, "")
        fns = [playouts(game)] + ([lambda i, d=direct: d(i, **options)[1]] if direct else []) + \
            ([compiled_playouts(fast), compiled_batches(fast)] if fast is not None else [])
        rates = measure(fns, args.seconds)
        (engine, plies_per_s), shown = rates[0], ["-", "-"]
        if direct:
            shown = [f"{rates[1][0]:,.0f}", f"{engine / rates[1][0]:.2f}"]
        line = f"{label:<32} {engine:>11,.0f} {shown[0]:>8} {shown[1]:>6} {plies_per_s / engine:>7,.0f} " \
            f"{plies_per_s:>9,.0f}"
        if fast is not None:
            rate, batched = rates[-2][0], rates[-1][0]
            versus = [f"{r / rates[1][0]:.1f}" if direct else "-" for r in (rate, batched)]
            line += f" {rate:>9,.0f} {versus[0]:>8} {rate / engine:>8.1f} {batched:>9,.0f} {versus[1]:>8} " \
                f"{cold:>6.1f} {warm:>6.2f}"
        elif args.backend == "compiled":
            line += f"  (Python only: {why[:100]})"
        print(line, flush=True)
        if args.breakdown:
            parts = breakdown(game, args.seconds)
            plies = parts.pop("plies")
            print("    " + ", ".join(f"{part} {us:,.0f} µs" for part, us in parts.items())
                  + f" ({plies:,.1f} moves and outcomes)", flush=True)
        if args.memory:
            size, micros, ply = memory(game)
            print(f"    a state at ply {ply:,}: {size / 1024:,.1f} KiB, copied in {micros:,.1f} µs", flush=True)
    if any(name == "mabula" for _, name, _ in configs):
        mabula = rulesdsl.load_game(games["mabula"], args.variant, backend="python")
        (engine, _), (tuned, _) = measure([playouts(mabula), _mabula_tuned], args.seconds)
        print(f"{'mabula, tuned direct playout':<32} {engine:>11,.0f} {tuned:>8,.0f} {engine / tuned:>6.2f}  "
              "(a hand-written playout that never lists moves)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
