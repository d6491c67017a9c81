"""One observer: what a seat, its team or the table sees of every zone and variable shape, in JSON, in the
terminal picture and in the states agents sample."""

from __future__ import annotations

import json

import pytest

import rulesdsl
from rulesdsl import Rng
from rulesdsl.agents import PlayerView
from rulesdsl.engine.observer import AUDIENCE, Observer
from rulesdsl.errors import RulesError
from rulesdsl.render import render_state

from .helpers import ROOT

# Four seats; p0 and p2 are partners against p1 and p3. One zone or variable of each shape and visibility.
PARTNERS = """
game: Partners
players:
  count: 4
  TEAMS
pieces:
  card:
    attributes:
      rank: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]
    derived:
      symbol: "'c' + str(rank)"
zones:
  hand:                       # per seat, seen by the seat's team
    per: player
    visible: team
    init: "[piece('card', rank=3 * owner + k) for k in 1..3]"
  pen:                        # keyed by seat, seen by its seat
    keys: "players"
    visible: owner
    init: "[piece('card', rank=13 + key)]"
  bin:                        # keyed by colour, seen by nobody
    keys: "['red', 'blue']"
    visible: none
    init: "[piece('card', rank=17)] if key == 'red' else []"
  deck:                       # one place, seen by nobody
    visible: none
    init: "[piece('card', rank=18), piece('card', rank=19)]"
  table:
    init: "[piece('card', rank=20)]"
vars:
  money: {per: player, visible: team, init: "10 * owner"}
  notes: {per: player, visible: owner, init: "[owner]"}
  secret: {visible: none, init: 7}
  round: 0
moves:
  stop: {notation: stop}
flow:
  steps:
    play: {moves: [stop]}
end:
  - when: "turn >= 1"
    winners: "[]"
"""


def load(tmp_path, teams='teams: "[p % 2 for p in players]"'):
    path = tmp_path / "partners.yaml"
    path.write_text(PARTNERS.replace("TEAMS", teams), encoding="utf-8")
    return rulesdsl.load_game(str(path))


@pytest.fixture
def state(tmp_path):
    return load(tmp_path).new_initial_state(seed=1)


def cards(*ranks):
    return [{"piece": {"kind": "card", "rank": r}} for r in ranks]


def test_each_shape_shows_one_hidden_form_in_json(state):
    view = state.observation(0)
    zones, vars = view["zones"], view["vars"]
    assert zones["hand"] == [cards(1, 2, 3), {"hidden": 3}, cards(7, 8, 9), {"hidden": 3}]  # p2 is a partner
    assert zones["pen"] == {"table": [[0, cards(13)], [1, {"hidden": 1}], [2, {"hidden": 1}], [3, {"hidden": 1}]]}
    assert zones["bin"] == {"table": [["red", {"hidden": 1}], ["blue", {"hidden": 0}]]}
    assert zones["deck"] == {"hidden": 2} and zones["table"] == cards(20)
    assert vars["money"] == [0, {"hidden": True}, 20, {"hidden": True}]
    assert vars["notes"] == [[0], {"hidden": 1}, {"hidden": 1}, {"hidden": 1}]  # a list shows its length
    assert vars["secret"] == {"hidden": True} and vars["round"] == 0
    assert '"c4"' not in json.dumps(view) and "rank\": 4" not in json.dumps(view)


def test_each_shape_shows_one_hidden_form_in_the_picture(state):
    lines = render_state(state, 1).splitlines()
    assert "hand: p0 (3 hidden), p1 [c4, c5, c6], p2 (3 hidden), p3 [c10, c11, c12]" in lines
    assert "pen: 0 (1 hidden), 1 [c14], 2 (1 hidden), 3 (1 hidden)" in lines
    assert "bin: red (1 hidden), blue (0 hidden)" in lines
    assert "deck: (2 hidden)" in lines and "table: [c20]" in lines
    assert "money: p0 (hidden), p1 10, p2 (hidden), p3 30" in lines
    assert "notes: p0 (1 hidden), p1 [1], p2 (1 hidden), p3 (1 hidden)" in lines
    assert "secret: (hidden)" in lines


def test_the_table_sees_all_but_what_nobody_sees(state):
    lines = render_state(state).splitlines()
    assert "hand: p0 [c1, c2, c3], p1 [c4, c5, c6], p2 [c7, c8, c9], p3 [c10, c11, c12]" in lines
    assert "money: p0 0, p1 10, p2 20, p3 30" in lines
    assert "deck: (2 hidden)" in lines and "secret: (hidden)" in lines
    table = state.observation(None)
    assert table["zones"]["pen"]["table"][3] == [3, cards(16)] and table["vars"]["secret"] == {"hidden": True}


def test_without_teams_a_team_is_its_seat(tmp_path):
    state = load(tmp_path, teams="").new_initial_state()
    assert state.observation(0)["zones"]["hand"] == [cards(1, 2, 3), {"hidden": 3}, {"hidden": 3}, {"hidden": 3}]
    assert state.rules.teams == (0, 1, 2, 3)


def test_teams_name_every_seat(tmp_path):
    with pytest.raises(RulesError, match="3 teams for 4 players"):
        load(tmp_path, teams="teams: [a, b, a]")
    assert load(tmp_path, teams="teams: [a, b, a, b]").rules.teams == ("a", "b", "a", "b")


def test_keys_that_are_not_seats_have_no_owner(state):
    holder = next(h for h in state.rules.zones if h.name == "bin")
    seat = Observer(state.rules, 0)
    assert not any(seat.sees(holder, key) for key in ("red", "blue"))


def test_determinize_resamples_only_what_the_seat_cannot_see(state):
    # (a position set by hand: its history does not lead to it, so what is unseen is dealt anew; the game's own
    # starting position is what every seat knows, see test_determinize.py)
    state.zones[0][1], state.zones[0][3] = state.zones[0][3], state.zones[0][1]
    state.vars[0][1], state.vars[0][3] = 30, 10
    me, view = 0, PlayerView(state, 0)
    seen = view.observation()
    hands, moneys = set(), set()
    for seed in range(30):
        sampled = view.determinize(Rng(seed))
        assert sampled.observation(me) == seen  # consistent with the view
        assert sampled.zones[0][0] == state.zones[0][0] and sampled.zones[0][2] == state.zones[0][2]  # team
        assert sampled.zones[4] == state.zones[4] and sampled.vars[0][0::2] == [0, 20]
        assert sampled.vars[2] == 7  # one unseen place: nowhere else for its value to go
        hands.add(tuple(map(str, sampled.zones[0][1])))
        moneys.add(tuple(sampled.vars[0][1::2]))
        assert sorted(sampled.vars[1][1:]) == [[1], [2], [3]]
    unseen = sorted(map(str, [c for z in (state.zones[0][1], state.zones[0][3], *list(state.zones[1].values())[1:],
                                          *state.zones[2].values(), state.zones[3]) for c in z]))
    assert len(hands) > 5 and all(set(h) <= set(unseen) for h in hands)  # opponents' cards come from the pool
    assert moneys == {(10, 30), (30, 10)}


def test_determinize_depends_only_on_the_view_and_the_rng(state, tmp_path):
    other = load(tmp_path).new_initial_state(seed=1)
    other.zones[0][1], other.zones[0][3] = other.zones[0][3], other.zones[0][1]  # opponents' hands swapped
    other.vars[0][1], other.vars[0][3] = 30, 10
    state.zones[3].reverse()  # (positions set by hand, which their history does not lead to, both)
    assert other.observation(0) == state.observation(0)
    a, b = (PlayerView(s, 0).determinize(Rng(5)) for s in (state, other))
    assert a.to_json() == b.to_json() == PlayerView(state, 0).determinize(Rng(5)).to_json()


def test_a_bid_revealed_in_an_earlier_round_stays_shown_when_the_same_bid_is_pending():
    # moves are interned: the same bid made again is the same object, yet only the pending one is secret
    game = rulesdsl.load_game(str(ROOT / "examples" / "games" / "sealed-bids.yaml"))
    state = game.new_initial_state()
    state.apply("prize 4")
    for seat, bid in enumerate(["bid 3", "bid 5", "bid 4"]):
        state.apply(bid, seat)
    state.apply("prize 2")
    state.apply("bid 3", 0)
    assert state.pending[0] is state.history[1]  # the very same move as round one's
    seen = Observer(game.rules, 1, state.revealed)
    assert seen.history(state) == ["prize 4", "bid 3", "bid 5", "bid 4", "prize 2", "(secret choice)"]
    assert seen.last_move(state) is None and Observer(game.rules, 0).last_move(state) is state.pending[0]


def test_an_entry_reads_as_in_the_history_and_the_audience_sees_no_secret():
    game = rulesdsl.load_game(str(ROOT / "games" / "fast-track.yaml"))
    state = game.new_initial_state(3)
    rng = Rng(3)
    while len(state.secret) < 3:  # cards drawn, each seen by its drawer only
        state.apply(state.sample_chance(rng) if state.is_chance_node()
                    else state.legal_moves()[rng.below(len(state.legal_moves()))])
    for viewer in (*range(game.num_players), None, AUDIENCE):
        seen = Observer(game.rules, viewer, state.revealed)
        assert [seen.entry(state, i) for i in range(len(state.history))] == seen.history(state)
    audience = Observer(game.rules, AUDIENCE, state.revealed)
    assert all(audience.entry(state, i) == "(hidden)" for i in state.secret)
    assert all(audience.entry(state, i) == str(m) for i, m in enumerate(state.history) if i not in state.secret)
    hand = next(h for h in game.rules.zones if h.visible == "owner")
    assert all(not audience.sees(hand, p) for p in range(game.num_players))
