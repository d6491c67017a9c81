"""States sampled consistently with one player's view: the game replayed from its start, what the player saw kept
and what it did not drawn anew, a sample kept only while it looks to the player as the game did."""

from __future__ import annotations

import threading
from collections import Counter
from itertools import accumulate

from ..engine.nodes import CHANCE, SIMULTANEOUS
from ..engine.observer import Observer
from ..engine.play import uniform
from ..errors import GameRuntimeError, MoveError, SamplingError
from ..limits import MAX_SAMPLE_MOVES

PARTICLES = 16  # states replayed side by side; the samples are drawn from those still consistent at the end
MAX_PARTICLES = 128  # ... at most, their number doubling each time the replay goes back further
SPACING = 8  # entries of the history between two sets of states kept to go back to


class Evidence:
    """What `player` saw of a game: whether what it did not see is only pieces in places it does not see (see
    piles_only), the position the replay starts from (the last before anything was hidden from
    the player: until then the game is what every seat knows it to be), and each later entry of the history as (its
    text, or None where the player did not see it; who made it; what the player saw once it was made, Observer.key,
    or None for the player's own choice still pending at a simultaneous step)."""

    __slots__ = ("player", "start", "entries", "piles")

    def __init__(self, player: int, start, entries: list, piles: bool):
        self.player, self.start, self.entries = player, start, entries
        # whether dealing the unseen pieces anew (deal) gives the same: see piles_only
        self.piles = piles


def evidence(state, player: int, lineage: list | None = None) -> Evidence | None:
    """The Evidence of `state` for `player`, or None when the state's history does not lead to it (a position set
    by hand, or read from a file written without its history). Others' choices still pending are left out.

    A game's replay is carried on from where the last call left it (_Replay): an agent asks at every move, and
    replaying the game from its start each time would make a game's sampling quadratic in its length.
    `lineage`: the history list of the state `state` was read from, where it is a copy made for the asking (a
    state of the compiled backend's: its history list lives on from move to move, the copy's does not)."""
    with _replaying:  # (a replay is carried on in place: one thread at a time)
        return _evidence(state, player, state.history if lineage is None else lineage)


def _evidence(state, player: int, history: list) -> Evidence | None:
    secret, texts = state.secret, state.history_texts()
    if len(history) != len(state.history):
        history = state.history
    made = len(history) - len(state.pending)  # the pending choices are the last entries
    memo = _replays.get((id(history), player))
    if memo is None or not memo.leads_to(history, made):
        memo = _Replay(history, player, state.game.new_initial_state())  # (the rules say how a game starts)
    try:
        memo.extend(state, made, secret, texts)
        S = memo.S.clone() if state.pending else memo.S
        entries = list(memo.entries)
        for p, move in state.pending.items():
            _replay(S, move)
            if p == player:
                entries.append((str(move), p, None))
        if S.to_json() != state.to_json():
            return None
    except (GameRuntimeError, MoveError):
        _replays.pop((id(history), player), None)
        return None
    while len(_replays) >= MAX_REPLAYS:
        del _replays[next(iter(_replays))]
    _replays[id(history), player] = memo
    return Evidence(player, memo.start if memo.start is not None else memo.S.clone(), entries, memo.piles)


# games whose replay evidence() keeps to carry on from (the oldest is forgotten first): a replay holds a copy of the
# state per entry seen (what the seat saw), megabytes for a long game, so only the games going on at once are kept
MAX_REPLAYS = 8
_replays: dict = {}  # (id of a state's history list, player) -> _Replay
_replaying = threading.Lock()


class _Replay:
    """How far evidence() has replayed one game's history for one player: the replayed state S after `made`
    entries, the first entry hidden from the player (`first`) and the state before it (`start`), the entries from
    it on (see Evidence), and whether every move so far only dealt hidden pieces (`piles`). It holds the history
    list it replays (so the list's id names no other list while it is kept) and its last entry replayed."""

    __slots__ = ("history", "player", "S", "made", "last", "first", "start", "entries", "piles")

    def __init__(self, history: list, player: int, S):
        self.history, self.player, self.S, self.made, self.last = history, player, S, 0, None
        self.first, self.start, self.entries, self.piles = None, None, [], piles_only(S.rules)

    def leads_to(self, history: list, made: int) -> bool:
        """Whether this replay is of `history`'s first entries as they still are (a move taken back and another
        made instead is not)."""
        return self.history is history and self.made <= made and (self.made == 0 or history[self.made - 1] is self.last)

    def extend(self, state, made: int, secret: dict, texts: list) -> None:
        """Replay the entries from self.made up to `made`."""
        S, player, history = self.S, self.player, self.history
        for t in range(self.made, made):
            hidden = t in secret and player not in secret[t]
            if self.first is None and hidden:
                self.first, self.start = t, S.clone()
            if self.piles:
                before = _pieces(S, player)
                who = _replay(S, history[t])
                self.piles = _dealt_only(before, _pieces(S, player), t in secret and not hidden)
            else:
                who = _replay(S, history[t])
            if self.first is not None:
                seen = S.clone()  # (a key holds the state's own lists, which later moves change)
                key = Observer(S.rules, player, S.revealed, seen).key(seen)
                self.entries.append((None if hidden else texts[t], who, key))
            self.made, self.last = t + 1, history[t]


def piles_only(rules) -> bool:
    """Whether a game hides only pieces: every variable is seen by all and no seat's move is secret (visible_to).
    Where, besides, every move of the game only dealt hidden pieces (a piece became unseen only from where the
    player saw it, left the unseen places only to where it sees it, and no secret move the player saw put a piece
    where it does not see but from where it saw it: the pieces it does not see are those it knows to be somewhere
    unseen), dealing them anew in the unseen places samples what it does not see, nearly: it forgets where it saw a
    piece go unseen (a card put back into a pile) and what the others' public moves tell of their hands."""
    return all(h.visible == "all" for h in rules.vars) and not any(
        rule.visible_to is not None for step in rules.steps.values() if step.kind != "chance" for rule in step.moves)


def _pieces(S, player: int) -> tuple:
    """(the pieces of each place of a zone `player` does not see, by (zone, seat or key); the pieces of all of those
    places; of all the places it sees), counted."""
    seen = Observer(S.rules, player, S.revealed, S)
    places, shown = {}, Counter()
    for holder, value in zip(S.rules.zones, S.zones):
        for owner, place in holder.places(value):
            if seen.sees(holder, owner):
                shown.update(place)
            else:
                places[holder.name, owner] = Counter(place)
    return places, sum(places.values(), Counter()), shown


def _dealt_only(before: tuple, after: tuple, saw_secret: bool) -> bool:
    """Whether a move only dealt hidden pieces (see piles_only): no piece became unseen but from where the player
    saw it (none is made unseen), none left the unseen places but for where the player sees it, and, where the
    player saw the secret move, no unseen place gained a piece but from where it saw it (it would know which)."""
    (places, unseen, shown), (places_after, unseen_after, shown_after) = before, after
    if (unseen_after - unseen) - (shown - shown_after) or (unseen - unseen_after) - (shown_after - shown):
        return False
    if not saw_secret:
        return True
    gained = sum((count - places.get(place, Counter()) for place, count in places_after.items()), Counter())
    return not gained - (shown - shown_after)


def _replay(S, entry) -> int:
    """Apply a history entry (a move, or its text in a state read from a file) to S; who made it."""
    if isinstance(entry, str):
        seats = S.acting_players() if S.current_player() == SIMULTANEOUS else [None]
        for p in seats:  # (the text of a simultaneous choice does not say whose it is)
            try:
                entry = S.parse_move(entry, p)
                break
            except MoveError:
                if p == seats[-1]:
                    raise
    S.apply(entry)
    return entry[2]


def deal(S, player: int, rng) -> None:
    """Deal anew, in place, what `player` does not see of S, keeping every place's size: the pieces of all unseen
    places of a zone are pooled, put in a canonical order and dealt back at random; so, one variable at a time, are
    the values of its unseen places."""
    seen = Observer(S.rules, player, S.revealed, S)
    places = [pieces for holder, value in zip(S.rules.zones, S.zones)
              for _, pieces in seen.unseen(holder, value) if pieces]
    if places:
        pool = sorted(piece for pieces in places for piece in pieces)
        rng.shuffle(pool)
        start = 0
        for pieces in places:
            pieces[:] = pool[start:start + len(pieces)]
            start += len(pieces)
    for i, holder in enumerate(S.rules.vars):
        unseen = seen.unseen(holder, S.vars[i])
        if len(unseen) > 1:  # a single unseen value has nowhere else to go
            pool = rng.shuffle(sorted((value for _, value in unseen), key=repr))
            for (owner, _), value in zip(unseen, pool):
                S.vars[i][owner] = value
    S.changed()


def sample(ev: Evidence, rng, count: int, choose=None) -> list:
    """`count` states drawn with `rng` from those consistent with the evidence, each a fresh copy.

    PARTICLES states (or `count`, if more) are replayed side by side from the evidence's start. At each entry of
    the history, what the player did not see is drawn anew (a chance outcome by its probabilities, another seat's
    choice by `choose(state, seat, legal, rng)`, uniform by default) and what it saw is kept: the moves written as
    the entry was (a chance outcome weighs the sample by its probability there; a move not legal there rules the
    sample out). A sample that then looks different to the player is ruled out, and one weighed less than the
    likeliest is kept only with the ratio of their weights as its chance; when fewer than a quarter of the states
    are left, they are drawn again to as many as before. When none is left, the replay goes
    back to the states kept a few entries before (every SPACING entries), and further back each time it fails
    again before getting further (to the start at most), with twice as many states (to MAX_PARTICLES).
    SamplingError once MAX_SAMPLE_MOVES moves were replayed without a consistent sample."""
    choose = choose or uniform
    me, entries = ev.player, ev.entries
    if all(key is None for _, _, key in entries):
        # nothing was hidden from the player: the position itself, but for others' pending choices
        states = [ev.start.clone() for _ in range(count)]
        for S in states:
            for text, who, _ in entries:
                _step(S, text, who, None, me, rng, choose)
        return states
    n, replayed = max(count, PARTICLES), 0
    kept = [(0, [ev.start], [1.0])]  # (entry, states consistent up to it, their weights), never played on: copies are
    k, states, weights, furthest, failures = 0, [ev.start.clone() for _ in range(n)], [1.0] * n, 0, 0
    while k < len(entries):
        text, who, key = entries[k]
        for i, S in enumerate(states):
            if weights[i]:
                weights[i] *= _step(S, text, who, key, me, rng, choose)
                replayed += 1
        if replayed > MAX_SAMPLE_MOVES:
            raise _not_found(ev)
        top = max(weights)
        if not top:  # none stayed consistent: back to states kept before, the further the more it fails here
            failures = failures + 1 if k <= furthest else 1
            furthest = max(furthest, k)
            back = max(0, len(kept) - 2 ** (failures - 1))
            del kept[back + 1:]
            n = min(2 * n, MAX_PARTICLES) if failures > 1 else n  # more states, to keep more possibilities open
            k, kept_states, kept_weights = kept[back]
            states = [S.clone() for S in _drawn(kept_states, kept_weights, n, rng)]
            weights = [1.0] * n
            continue
        k += 1
        if top != min(weights):  # kept as likely as its weight says, against the likeliest (exact while N is large)
            weights = [1.0 if w == top or w and rng.uniform() * top < w else 0.0 for w in weights]
        else:
            weights = [1.0] * n
        alive = weights.count(1.0)
        if not alive:
            continue
        if alive < n / 4:  # the states left are drawn again, to as many as before
            states, weights = _drawn(states, weights, n, rng), [1.0] * n
        if k % SPACING == 0 and k < len(entries):
            kept.append((k, [S.clone() for S in states], weights[:]))
    return _drawn(states, weights, count, rng)


def _not_found(ev: Evidence) -> SamplingError:
    """The error of a sampling that ran out of its budget."""
    name = ev.start.rules.player_names[ev.player]
    return SamplingError(f"no state consistent with what {name} has seen was found in {MAX_SAMPLE_MOVES:,} replayed "
                         "moves (the others' hidden choices and the hidden chance outcomes drawn anew from the start "
                         "of the game)", "what the player saw is unlikely under the others choosing at random: pass "
                         "a chooser closer to how they play (determinize(rng, choose)), or keep fewer choices hidden")


def _drawn(states: list, weights: list, count: int, rng) -> list:
    """`count` of `states` drawn with `rng` in proportion to their weights (a state drawn twice is copied)."""
    cumulative = list(accumulate(weights))
    total, used, out = cumulative[-1], set(), []
    for _ in range(count):
        i = rng.pick(cumulative, total)
        out.append(states[i].clone() if i in used else states[i])
        used.add(i)
    return out


def _step(S, text, who: int, key, me: int, rng, choose) -> float:
    """Make in S the move of a history entry (see Evidence): the weight it gives the sample, 0 if it rules it
    out."""
    node = S.current_player()
    if node == CHANCE:
        if who != CHANCE:
            return 0.0
        move, weight = (S.sample_chance(rng), 1.0) if text is None else _outcome(S, text, rng)
        if move is None:
            return 0.0
    else:
        if who < 0 or who not in (S.acting_players() if node == SIMULTANEOUS else (node,)):
            return 0.0
        legal = S.legal_moves(who)
        if text is None:
            move = choose(S, who, legal, rng)
        else:
            found = [m for m in legal if str(m) == text]
            if not found:
                return 0.0
            move = found[0] if len(found) == 1 else found[rng.below(len(found))]
        weight = 1.0
    S.apply(move)
    if key is None:
        return weight
    t = len(S.history) - 1
    if (t in S.secret and me not in S.secret[t]) != (text is None):
        return 0.0  # the player would have seen it (or not seen it) made
    return weight if Observer(S.rules, me, S.revealed, S).key(S) == key else 0.0


def _outcome(S, text: str, rng) -> tuple:
    """The chance outcome written `text` at S, drawn among those so written by their probabilities, and the
    probability of drawing one of them there; (None, 0.0) if none is."""
    try:
        listed = S.chance_outcomes()
    except (GameRuntimeError, MoveError):  # too many to list (an arrangement, a large draw): drawn, kept if written so
        move = S.sample_chance(rng)
        return (move, 1.0) if str(move) == text else (None, 0.0)
    found = [(m, p) for m, p in listed if str(m) == text]
    if not found:
        return None, 0.0
    if len(found) == 1:
        return found[0]
    cumulative = list(accumulate(p for _, p in found))
    return found[rng.pick(cumulative, cumulative[-1])][0], cumulative[-1]
