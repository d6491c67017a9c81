"""Seeded random games of a rule file for `validate --play`: rules that fail in play, games that reach the turn
cap, and moves, steps and end rules that no game used."""

from __future__ import annotations

from ..agents import make_agent
from ..errors import GameRuntimeError, Location, Problem
from .coverage import dead_rules
from .runner import play_game

_SHOWN = 12  # moves up to a failure shown in its hint


def check_by_playing(game, games: int, file: str) -> tuple[list[Problem], str]:
    """(problems, one-line summary) of `games` random games of `game`, game i played from seed i as
    `rulesdsl play FILE --seats random,... --seed i` plays it: a failure is an error located at the failing
    statement, with the seed and moves that reach it; a game stopped by the turn cap, and a move, step or end
    rule that no game used, a warning at its definition."""
    rules = game.rules
    agents = [make_agent("random")] * game.num_players
    made, reached, ended_by, capped, failures, problems = set(), set(), set(), 0, 0, []
    failed: dict = {}  # (rule, location, message) -> (first seed, its moves, how many games failed so)
    moves: list = []

    def observe(state, move):
        made.add(move[0].name)
        reached.add(state.step)
        moves.append(str(move))

    for seed in range(games):
        moves.clear()
        try:
            record = play_game(game, agents, seed, observe)
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
            f"play it again: rulesdsl play {file}{variant} --seats {seats} --seed {seed}; the moves up to it"
            f"{f' (the last {_SHOWN})' if len(made_before) > _SHOWN else ''}: {shown}",
            code="fails_in_play", fields={"seed": seed, "rule": exc.rule, "moves": tuple(made_before)}))
    if capped:
        problems.append(Problem(f"{capped} of {games} random games reached the turn cap", Location(file),
                                "the end may be hard to reach: check the end conditions, or raise flow: max_turns",
                                code="turn_cap_reached", fields={"games": capped}, severity="warning"))
    if failures < games:
        for message, where in dead_rules(rules, made, reached, ended_by):
            problems.append(Problem(f"{message} in {games} random games", where,
                                    "a rule no game uses may be unreachable: check the conditions that lead to it",
                                    code="dead_rule", severity="warning"))
    summary = f"played {games} random game{'s' if games != 1 else ''}: {failures} failed, {capped} reached the turn cap"
    return problems, summary
