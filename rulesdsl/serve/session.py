"""One game in the playground: seats (people or agents), moves by notation or by clicked cells, undo."""

from __future__ import annotations

import copy
from bisect import bisect_right

from .. import budget
from ..agents import make_agent
from ..agents.view import PlayerView
from ..engine.nodes import SIMULTANEOUS
from ..engine.observer import Observer
from ..engine.play import play, streams
from ..engine.rng import derive_seed
from ..errors import GameRuntimeError, MoveError, UsageError
from ..limits import MOVE_SECONDS
from ..model.values import Cell
from ..sim.runner import entry
from .panel import last_move
from .scene import Scene

HUMAN = "human"
MAX_AUTOMATIC_MOVES = 100_000  # agents' and chance moves made in one go (a game's turn cap ends it sooner)


class Session:
    """A game played from a seed: chance and each agent seat draw from the seed's streams, as in `simulate`,
    until the first human move; after each human move they draw from streams of the seed and the number of
    human moves so far. So the same seed, seats and human moves give the same game, undo brings back the same
    dice, and the game is the same plain data wherever it is played back (record()). Human seats wait for a
    move. Seats default to a human at the first and random agents at the others."""

    def __init__(self, game, seed: int, seats: list[str] | None = None, record: dict | None = None):
        seats = seats or [HUMAN] + ["random"] * (game.num_players - 1)
        if len(seats) != game.num_players:
            raise UsageError(f"{game.name} has {game.num_players} players; {len(seats)} seats were given")
        self.game, self.seed, self.seats = game, seed, list(seats)
        try:
            self.agents = [None if s == HUMAN else make_agent(s) for s in seats]
        except ValueError as exc:
            raise UsageError(str(exc)[:300]) from None
        self.scene = Scene(game.rules)
        self.state = game.new_initial_state(seed)
        self.plies: list[str] = []  # every move and outcome so far, written as logs write them
        self.humans: list[int] = []  # the number of plies before each human move (where undo goes back to)
        self.undo_points: list = []  # the state before each human move
        self.since = 0  # the history entries from here on happened since the last human move
        self.chance, self.seat_rngs = streams(seed, game.num_players)
        if record is None:
            self._advance()
        else:
            self._play_back(record)

    def record(self) -> dict:
        """The game so far as plain data, for Session(game, seed, seats, record) to play it back."""
        return {"plies": list(self.plies), "humans": list(self.humans), "since": self.since}

    def human_to_move(self, S=None) -> int | None:
        """The human seat that chooses in state S (default: now), or None (the game is over, or an agent or
        chance is to move there)."""
        S = self.state if S is None else S
        who = S.current_player()
        if who >= 0:
            return who if self.agents[who] is None else None
        if who == SIMULTANEOUS:
            waiting = [p for p in S.acting_players() if self.agents[p] is None]
            return waiting[0] if waiting else None
        return None

    def legal(self, S=None) -> list[str]:
        """The legal moves of the seat to choose in state S (default: now), in the game's notation."""
        S = self.state if S is None else S
        seat = self.human_to_move(S)
        return [] if seat is None else [str(m) for m in S.legal_moves(seat)]

    def position(self, ply: int):
        """The state after the first `ply` plies (0 to len(plies)): the game's own state at its end, else a new one,
        played on from the undo point before it (or from the start)."""
        if ply >= len(self.plies):
            return self.state
        point = bisect_right(self.humans, ply) - 1  # the last human move at or before the ply
        S = self.undo_points[point].clone() if point >= 0 else self.game.new_initial_state(self.seed)
        for text in self.plies[self.humans[point] if point >= 0 else 0:ply]:
            S.apply(_ply_move(S, text))
        return S

    def branch(self, ply: int) -> "Session":
        """This game cut back to position `ply`, where a human seat chose a move (as undo cuts it back to the last
        one): a new Session, so this one stays as it is until the branch is kept. MoveError at any other ply."""
        if ply not in self.humans:
            raise MoveError(MoveError.ILLEGAL, f"position {ply}", "no human seat chooses at this position",
                            "step to a position where one of your seats is to move, or to the last one")
        point = self.humans.index(ply)
        other = copy.copy(self)
        other.state = self.undo_points[point].clone()
        other.plies, other.humans, other.undo_points = self.plies[:ply], self.humans[:point], self.undo_points[:point]
        other.since = len(other.state.history)
        return other

    def play(self, text: str) -> None:
        """Play a move written in notation for the human seat to choose; MoveError says why it cannot."""
        seat = self.human_to_move()
        if seat is None:
            raise MoveError(MoveError.ILLEGAL, text, "nobody is to move: the game is over")
        move = self.state.parse_move(text, seat)
        self.undo_points.append(self.state.clone())
        self.humans.append(len(self.plies))
        self.since = len(self.state.history)
        self._apply(move)
        self.chance, self.seat_rngs = streams(derive_seed(self.seed, "human moves", len(self.humans)),
                                              self.game.num_players)
        self._advance()

    def click(self, names: list[str]) -> dict:
        """What the clicked cells (in order) mean: {"play": move} when they are exactly the cells of one legal
        move (which is played), {"choices": moves} when of several, {"next": cells} when they begin legal
        moves (the cells that may follow), else {"why": the rule's reason} that no move uses them."""
        seat = self.human_to_move()
        if seat is None:
            return {"why": "nobody is to move: the game is over"}
        wanted = [str(n) for n in names]
        exact, following = [], set()
        for move in self.state.legal_moves(seat):
            cells = _cells_of(move)
            if cells == wanted:
                exact.append(str(move))
            elif cells[:len(wanted)] == wanted:
                following.add(cells[len(wanted)])
        if len(exact) == 1 and not following:
            self.play(exact[0])
            return {"play": exact[0]}
        if exact:
            return {"choices": exact}
        if following:
            return {"next": sorted(following)}
        return {"why": self._why_not(seat, wanted)}

    def _why_not(self, seat: int, names: list[str]) -> str:
        """The reason (a rule's `why`) that no move of the step takes these cells as its params. For cells that
        would begin a move (a piece clicked before its target), the reason of the attempt that gets furthest
        through the rule's checks, over every cell as the last param."""
        rules = self.game.rules
        step = rules.steps[self.state.step]
        cells = [rules.board.by_name.get(n) for n in names]
        furthest, rule = (-1, None), step
        try:
            for rule in step.moves:
                missing = len(rule.params) - len(cells)
                if rule.explain is None or missing not in (0, 1):
                    continue
                for last in [()] if missing == 0 else [(c,) for c in rules.board.cells]:
                    try:
                        failed = rule.explain(self.state, seat, *cells, *last)
                    except budget.TimeBudgetExceeded:
                        raise
                    except Exception:  # noqa: BLE001 - cells are no values of this rule's params: try the next rule
                        break
                    if failed > furthest[0]:
                        description, why = rule.checks[failed]
                        furthest = (failed, why or f"the rule '{rule.name}' requires {description}")
                if missing == 0 and furthest[1]:
                    break
        except budget.TimeBudgetExceeded as exc:  # every rule's checks, over every cell: too long
            where = rules.where(rule.path) if rules.where is not None else None
            raise GameRuntimeError(rule.name, self.state.turn, str(exc), where, "explaining a click runs each "
                                   "rule's checks with every cell: make them cheaper, or take fewer cells") from None
        return furthest[1] or ("no move of this step uses " + (f"cell {names[0]}" if len(names) == 1 else
                                                               "these cells") + " (pick a move from the list)")

    def undo(self) -> bool:
        """Back to before the last human move (and what agents and chance did after it); False: nothing to undo.
        What follows the next human move is drawn as it was the first time (see the class)."""
        if not self.undo_points:
            return False
        self.state = self.undo_points.pop()
        del self.plies[self.humans.pop():]
        self.since = len(self.state.history)
        return True

    def view(self, viewer: int | None, ply: int | None = None) -> dict:
        """The scene of position `ply` (None: the last) as `viewer` sees it, with the legal moves (when the
        viewer is to choose there, at the last position or one a human seat chose at), the history as the
        viewer may read it, what happened since the last human move, and what the last ply changed."""
        end = len(self.plies)
        ply = end if ply is None else max(0, min(ply, end))
        S = self.position(ply)
        scene = self.scene.of(S, viewer)
        seat = self.human_to_move(S) if ply == end or ply in self.humans else None
        history = Observer(self.game.rules, viewer, S.revealed, S).history(S)
        before = self.scene.of(self.position(ply - 1), viewer) if ply > 0 else None
        scene["panel"]["last"] = last_move(before, scene, history)
        scene.update(history=history, told=history[self.since:] if ply == end else [], to_move=seat,
                     seats=self.seats, legal=self.legal(S) if seat is not None and viewer in (None, seat) else [],
                     can_undo=bool(self.undo_points), ply=ply, plies=end)
        return scene

    def _apply(self, move) -> None:
        self._record(self.state, move)
        self.state.apply(move)

    def _play_back(self, record: dict) -> None:
        """The plies of a record applied again (no agent is asked, nothing is drawn), with its undo points."""
        humans = set(record["humans"])
        for i, text in enumerate(record["plies"]):
            if i in humans:
                self.undo_points.append(self.state.clone())
            self._apply(_ply_move(self.state, text))
        self.humans, self.since = list(record["humans"]), record["since"]

    def _advance(self) -> None:
        """Chance outcomes and agents' moves until a human seat is to choose or the game ends: simulate's play loop,
        stopped where a person chooses."""
        people = tuple(p for p, agent in enumerate(self.agents) if agent is None)
        play(self.state, self._agent_move, self.chance, self.seat_rngs, observe=self._record,
             limit=MAX_AUTOMATIC_MOVES, stop_for=people)

    def _agent_move(self, S, player, legal, rng):
        return self.agents[player].choose(PlayerView(S, player), legal, rng)

    def _record(self, S, move) -> None:
        self.plies.append(entry(move, S.current_player() == SIMULTANEOUS))


def _ply_move(S, text: str):
    """The move a ply of a record writes, in state S: '@SEAT MOVE' for a simultaneous choice, else the move."""
    seat = None
    if text.startswith("@"):
        seat_text, _, text = text[1:].partition(" ")
        seat = int(seat_text)
    return S.parse_move(text, seat)


def _cells_of(move) -> list[str]:
    """The names of the cells among a move's params, in order."""
    return [a.name for a in move.args[:len(move.rule.params)] if a.__class__ is Cell]


budget.guard(Session._why_not, MOVE_SECONDS, "explaining why no move takes the cells clicked")
