"""Seeded random games of a rule file for `validate --play`: rules that fail in play, games that reach the turn
cap, and moves, steps, end rules and functions that no game used."""

from __future__ import annotations

import cProfile

from ..agents import make_agent
from ..backends.compiled.build import with_backend
from ..errors import GameRuntimeError, Location, Problem
from ..jail import heartbeat
from ..limits import GAME_SECONDS, LOAD_SECONDS
from ..engine.notation import normalise
from ..model.values import text_of
from .coverage import dead_rules
from .runner import agent_chooser, record_game

_SHOWN = 12  # moves up to a failure shown in its hint
_EVALUATE_EVERY = 8  # plies between two evaluations of the position (a rule file's 'scoring: evaluation')


def check_by_playing(compile_game, games: int, file: str, backend: str = "python") -> tuple[list[Problem], str,
                                                                                           str | None]:
    """(problems, one-line summary, variant) of `games` random games of the game `compile_game()` compiles (with
    inline=False, so that each call of a function is a call), game i played from seed i as
    `rulesdsl play FILE --seats random,... --seed i` plays it: a failure is an error located at the failing
    statement, with the seed and moves that reach it; a game stopped by the turn cap, and a move, step, end
    rule, function or procedure that no game used, a warning at its definition. In a jail (jail.py), the load
    and each game are units of work of their own."""
    heartbeat(f"loading {file} to play it", LOAD_SECONDS)
    game, called = _compiled_watching(compile_game)
    game = with_backend(game, backend)
    compiled = getattr(game, "backend", "python") == "compiled"
    if compiled:
        called = None  # compiled code calls no function of the Python game: which were used is not known
    rules = game.rules
    agents = [make_agent("random")] * game.num_players
    made, reached, ended_by, capped, failures, problems = set(), set(), set(), 0, 0, []
    failed: dict = {}  # (rule, location, message) -> (first seed, its moves, how many games failed so)
    moves: list = []

    def observe(state, move):
        made.add(move[0].name)
        reached.add(state.step)
        moves.append(str(move))
        if rules.evaluation is not None and state.ply % _EVALUATE_EVERY == 0:
            state.evaluations()  # what agents that evaluate positions ask: its failures and the functions it calls

    alike: dict = {}  # (rule, rule) of two moves printed alike -> (seed, turn, seat, text, moves, how many games)
    chooser = agent_chooser(agents)
    names = [getattr(a, "spec", a.name) for a in agents]  # (as play_game names them)

    for seed in range(games):
        heartbeat(f"random game {seed} of {file}", GAME_SECONDS)
        moves.clear()

        def choose(state, player, legal, rng, seed=seed):
            _printed_alike(state, player, legal, seed, alike)
            return chooser(state, player, legal, rng)
        try:
            record = record_game(game.new_initial_state(seed), seed, choose, names, observe)
        except GameRuntimeError as exc:
            failures += 1
            key = (exc.rule, str(exc.location), exc.message)
            first = failed.get(key)
            failed[key] = (seed, list(moves), 1, exc) if first is None else first[:2] + (first[2] + 1, first[3])
            continue
        capped += record.capped
        if record.ended_by is not None:
            ended_by.add(record.ended_by)
    seats = ",".join(["random"] * game.num_players)
    variant = f" --variant {game.variant}" if game.variant else ""
    for seed, made_before, count, exc in failed.values():
        shown = ", ".join(made_before[-_SHOWN:]) if made_before else "none"
        problems.append(Problem(
            f"rule '{exc.rule}' failed on turn {exc.turn} of random game {seed}" +
            (f" (and of {count - 1} more of the {games})" if count > 1 else "") + f": {exc.message}", exc.location,
            (f"{exc.hint}; " if exc.hint else "") +  # what the failure itself says, then how to see it again
            f"play it again: rulesdsl play {file}{variant} --seats {seats} --seed {seed}; the moves up to it"
            f"{f' (the last {_SHOWN})' if len(made_before) > _SHOWN else ''}: {shown}",
            code="fails_in_play", fields={"seed": seed, "rule": exc.rule, "moves": tuple(made_before)}))
    problems += [_alike_problem(rules, found, file, variant, seats, games) for found in alike.values()]
    if capped:
        problems.append(Problem(f"{capped} of {games} random games reached the turn cap", Location(file),
                                "the end may be hard to reach: check the end conditions, or raise flow: max_turns",
                                code="turn_cap_reached", fields={"games": capped}, severity="warning"))
    if failures < games:
        for message, where in dead_rules(rules, made, reached, ended_by, called):
            problems.append(Problem(f"{message} in {games} random games", where,
                                    "a rule no game uses may be unreachable: check the conditions that lead to it",
                                    code="dead_rule", severity="warning"))
    where = " on the compiled backend" if compiled else ""
    summary = f"played {games} random game{'s' if games != 1 else ''}{where}: {failures} failed, {capped} reached " \
              "the turn cap"
    return problems, summary, game.variant


def _printed_alike(state, player, legal, seed: int, alike: dict) -> None:
    """Note in `alike` two different legal moves of `legal` that print alike (as typed: spaces normalised): no one
    can type either, and a log that holds one does not replay. Once per pair of rules, with the first game and
    turn it happened on, and how many games it happened in."""
    printed: dict = {}
    for move in legal:
        other = printed.setdefault(normalise(str(move)), move)
        if other is move or other[:2] == move[:2]:
            continue
        key = (other[0].name, move[0].name)
        found = alike.get(key)
        if found is None:
            alike[key] = [seed, state.turn, player, normalise(str(move)), (other, move), {seed}]
        else:
            found[5].add(seed)


def _alike_problem(rules, found, file: str, variant: str, seats: str, games: int) -> Problem:
    """The error of two different legal moves printed alike (see _printed_alike), at the second's notation."""
    seed, turn, player, text, (first, second), seeds = found
    rule = second[0]
    differ, at = _difference(first, second) if first[0] is rule else (None, rule)
    what = f"two moves of '{rule.name}'" if first[0] is rule else \
        f"a move of '{first[0].name}' and one of '{rule.name}'"
    seat = rules.player_names[player] if isinstance(player, int) and 0 <= player < len(rules.player_names) else player
    more = f" (and in {len(seeds) - 1} more of the {games})" if len(seeds) > 1 else ""
    told = f"; they differ in {differ[0]} ({text_of(differ[1])}, {text_of(differ[2])})" if differ else ""
    fix = f"print {{{differ[0].rpartition('.')[2]}}} in the notation" + \
        (f" of '{at.name}'" if at is not rule else "") if differ else "print what tells them apart in the notation"
    return Problem(
        f"{what} print alike: both are written '{text}' on turn {turn} of random game {seed}{more}, {seat} to "
        f"move{told}", at.notation_at,
        f"{fix}, or declare one_per_position: true on a move of parts whose parts reach the same position; a player "
        f"cannot type either move, and a log that holds one does not replay; see it: rulesdsl play {file}{variant} "
        f"--seats {seats} --seed {seed}",
        code="moves_print_alike", fields={"seed": seed, "turn": turn, "text": text})


def _difference(first, second) -> tuple:
    """((name, value, value), rule) of the first param or let in which two moves of one rule differ, and the rule
    whose notation should print it: inside the first part that differs, for moves of parts (its name
    `parts[k].name`); (None, the rule) when none is found."""
    rule = first[0]
    for name, a, b in zip(rule.arg_names, first[1], second[1]):
        if a == b:
            continue
        if name != "parts" or len(a) != len(b):
            return (name, a, b) if name != "parts" else None, rule
        for k, ((_, args_a), (_, args_b)) in enumerate(zip(a, b)):
            part = rule.part_rule(k)
            for part_name, x, y in zip(part.arg_names, args_a, args_b):
                if x != y:
                    return (f"parts[{k}].{part_name}", x, y), part
    return None, rule


def _compiled_watching(compile_game):
    """(game, called): the game compiled, and the set of its functions and procedures ('function', name) called
    so far. The calls made while compiling (a 'let' computed at load) are counted by the profiler; after that,
    each function in the game's namespace is replaced by a stand-in that notes its first call and puts the
    function back, so that games are played at full speed."""
    profiler = cProfile.Profile()
    profiler.enable()
    try:
        game = compile_game()
    finally:
        profiler.disable()
    ran = {entry.code for entry in profiler.getstats()}
    called, namespace = set(), game.rules.namespace
    for label, fns in game.rules.generated.items():
        word, _, name = label.partition(" ")
        if word not in ("function", "procedure"):
            continue
        if any(fn.__code__ in ran for fn in fns):
            called.add((word, name))
            continue
        names = [key for key, value in namespace.items() if any(value is fn for fn in fns)]
        stand_in = _first_call(namespace, names, (word, name), called)
        namespace.update({key: stand_in(namespace[key]) for key in names})
    return game, called


def _first_call(namespace: dict, names: list, key, called: set):
    """Stand-ins for the functions at `names` in `namespace` (the names generated code calls a function by) that,
    at the first call of any, add `key` to `called` and put every function back."""
    originals = {name: namespace[name] for name in names}

    def wrap(fn):
        def stand_in(*args, **kwargs):
            called.add(key)
            namespace.update(originals)
            return fn(*args, **kwargs)
        return stand_in
    return wrap
