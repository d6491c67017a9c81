"""The `play` command: play a game in the terminal, people and agents at the seats, with a log to replay."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..agents import AGENTS, PlayerView
from ..bundle import bundle_document, read_bundle
from ..engine.nodes import CHANCE
from ..engine.observer import AUDIENCE, Observer
from ..errors import MoveError
from ..limits import DEFAULT_MAX_TURNS
from ..sim.log import make_log
from ..sim.runner import record_game
from .common import (agent_named, at_least, backend_arg, game_args, load_named, on_backend, per_seat, picture_of,
                     start_args, start_state, warn)

HELP = "play in the terminal"


def register(p) -> None:
    """play's arguments."""
    game_args(p)
    start_args(p)
    p.add_argument("--seats", help=f"one per player: human or an agent ({', '.join(AGENTS)})")
    p.add_argument("--log", help="write the game's log to this file")
    p.add_argument("--max-turns", type=at_least(1), help="stop after this many turns (a draw); default: the "
                   f"rule file's flow: max_turns, else {DEFAULT_MAX_TURNS:,}")
    backend_arg(p)


def run(args) -> int:
    """Play the game to its end (130 when a person stops it), then write its log if asked."""
    bundle = read_bundle(args.file)  # the rules the game is played with, which its log carries
    game = on_backend(load_named(args, base=bundle_document(bundle)), args)  # played as a person answers: budgets hold
    warn(game.rules.warnings)
    seats = per_seat(args.seats, game, "--seats", "seats", "human")
    agents = [None if s == "human" else agent_named(s) for s in seats]
    state = start_state(game, args)
    names = game.player_names
    print(f"{game.name} - seats: " + ", ".join(f"{n}={s}" for n, s in zip(names, seats)))
    print("type a move in the game's notation, '?' for the legal moves, 'quit' to stop\n")
    humans = [p for p, agent in enumerate(agents) if agent is None]
    # With one human, everything is shown as that player sees it; with several (hot seat), as the
    # player about to choose sees it. Nobody is shown what their seat may not see.
    watcher = humans[0] if len(humans) == 1 else None
    shown_to = AUDIENCE if watcher is None else watcher  # several players at one screen: what all may see
    told, drawn = len(state.history), None  # entries told so far; the ply last drawn for the watcher

    def tell_outcomes():
        # a chance outcome is told once applied: only then is it known who saw it
        nonlocal told
        for i in range(told, len(state.history)):
            move = state.history[i]
            if move.player == CHANCE:
                print(f"[{move.rule.name}] {Observer(game.rules, shown_to, state.revealed, state).entry(state, i)}")
        told = len(state.history)

    def choose(now, p, legal, rng):
        nonlocal drawn
        tell_outcomes()
        if watcher is not None and drawn != now.ply:  # once a position, before its first choice
            drawn = now.ply
            print(picture_of(now, viewer=watcher))
        if agents[p] is None:
            if watcher is None:
                print(picture_of(now, viewer=p))
            return _human_move(now, p, legal, names, sys.stdin)
        move = agents[p].choose(PlayerView(now, p), legal, rng)
        print(f"{names[p]} plays {'(secret)' if now.is_simultaneous_node() else move}")
        return move

    def on_move(now, move):
        if move.player >= 0 and now.acting_players() == [move.player]:  # the last choice at this position
            print()

    try:  # the same game as 'simulate' plays with this seed when every seat is an agent
        record = record_game(state, args.seed, choose, seats, on_move)
    except KeyboardInterrupt:
        print("\ngame stopped")
        return 130
    tell_outcomes()
    print(picture_of(state))
    if args.log:
        # counted as a results line counts them
        log = dict(make_log(game, record, state, bundle), rule_counts=record.rule_counts)
        Path(args.log).write_text(json.dumps(log, indent=1) + "\n", encoding="utf-8")
        print(f"log written to {args.log}")
    return 0


def _human_move(state, player, legal, names, stream_in):
    """The move a person types at the seat's prompt ('?' lists the legal ones; 'quit' or end of input stops)."""
    prompt = f"{names[player]}> "
    while True:
        print(prompt, end="", flush=True)
        line = stream_in.readline()
        if not line:
            raise KeyboardInterrupt
        text = line.strip()
        if text in ("?", "help", "moves"):
            print("legal: " + ", ".join(str(m) for m in legal))
            continue
        if text in ("quit", "exit"):
            raise KeyboardInterrupt
        if not text:
            continue
        try:
            return state.parse_move(text, player)
        except MoveError as exc:
            print(f"  {exc.kind} move: {exc.reason}")
            if exc.hint:
                print(f"  {exc.hint}")
