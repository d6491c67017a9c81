"""States sampled for agents follow what the seat saw, and only that: a secret choice, a secret draw weighed by the
public evidence after it, and cards a seat holds without seeing them are drawn from everything consistent."""

from __future__ import annotations

import pytest

import rulesdsl
from rulesdsl import Rng
from rulesdsl.agents import PlayerView, make_agent
from rulesdsl.agents import sampling
from rulesdsl.errors import SamplingError

CELLS = 4
# One seat hides a token in one of four cells (only it sees where); the other then guesses.
HIDE = """
game: Hide and seek
players: {count: 2}
vars:
  spot: {per: player, visible: owner, init: 0}
  guess: {init: 0}
moves:
  hide:
    params: {c: {in: "1..4"}}
    notation: "hide {c}"
    visible_to: "me"
    do: ["spot[me] = c"]
  seek:
    params: {c: {in: "1..4"}}
    notation: "seek {c}"
    do: ["guess = c"]
flow:
  steps:
    hiding: {moves: [hide], next: seeking}
    seeking: {actor: "1", moves: [seek], next: end_turn}
end:
  - when: "guess > 0"
    winners: "[1] if guess == spot[0] else [0]"
"""

# A loaded die rolled in secret (face v comes up in proportion to v), then its parity announced to all; then a coin
# tossed in public, heads with probability v / 6.
PARITY = """
game: Parity
players: {count: 1}
vars:
  die: {visible: none, init: 0}
  even: {init: none}
  coin: {init: none}
  guess: {init: 0}
moves:
  guess:
    params: {c: {in: "1..6"}}
    notation: "guess {c}"
    do: ["guess = c"]
flow:
  start: roll
  steps:
    roll:
      chance:
        outcomes:
          params: {v: {in: "1..6"}}
          weight: "v"
          notation: "roll {v}"
          visible_to: "[]"
          do: ["die = v", "even = v % 2 == 0"]
      next: toss
    toss:
      chance:
        outcomes:
          params: {h: {in: "[true, false]"}}
          weight: "die if h else 6 - die"
          notation: "{'heads' if h else 'tails'}"
          do: ["coin = h"]
      next: pick
    pick: {moves: [guess], next: end_turn}
end:
  - when: "guess > 0"
"""

# Six cards, one dealt to each seat face down: the other seat sees it dealt, its holder does not.
OWN = """
game: Foreheads
players: {count: 2}
pieces:
  card: {attributes: {rank: [1, 2, 3, 4, 5, 6]}}
zones:
  deck: {visible: none, init: "[piece('card', rank=r) for r in 1..6]"}
  hand: {per: player, visible: none}
vars:
  to: {init: 0}
  called: {init: 0}
moves:
  call:
    params: {r: {in: "1..6"}}
    notation: "call {r}"
    do: ["called = r"]
flow:
  start: deal
  steps:
    deal:
      chance:
        outcomes:
          params: {r: {in: "[c.rank for c in deck]"}}
          notation: "deal {r}"
          visible_to: "[1 - to]"
          do: ["move(deck, hand[to], piece('card', rank=r))", "to += 1"]
      next:
        - if: "to < 2"
          to: deal
        - to: calling
    calling: {moves: [call], next: end_turn}
end:
  - when: "called > 0"
"""


def chi_square(counts: dict, expected: dict) -> float:
    return sum((counts.get(k, 0) - e) ** 2 / e for k, e in expected.items())


CRITICAL = {2: 13.8, 3: 16.3, 4: 18.5}  # chi-square at p = 0.001 by degrees of freedom


def test_a_secret_choice_is_sampled_uniformly_among_the_legal_ones(write):
    game = rulesdsl.load_game(write(HIDE))
    state = game.new_initial_state()
    state.apply("hide 3")
    view, n = PlayerView(state, 1), 800
    counts: dict = {}
    for s in range(n):
        sampled = view.determinize(Rng(s))
        assert sampled.observation(1) == view.observation()
        counts[sampled.vars[0][0]] = counts.get(sampled.vars[0][0], 0) + 1
    # a sampler keeping the true spot scores 3 * n = 2400 here
    assert chi_square(counts, {c: n / CELLS for c in range(1, CELLS + 1)}) < CRITICAL[3]
    # the hider itself keeps its own choice
    assert {PlayerView(state, 0).determinize(Rng(s)).vars[0][0] for s in range(5)} == {3}


def test_a_search_agent_finds_a_hidden_token_no_more_often_than_by_chance(write):
    game = rulesdsl.load_game(write(HIDE))
    seeker, games, found = make_agent("mcts:iterations=24"), 160, 0
    for seed in range(games):
        state = game.new_initial_state()
        rng = Rng(seed)
        state.apply(state.legal_moves()[rng.below(CELLS)])
        state.apply(seeker.choose(PlayerView(state, 1), state.legal_moves(1), Rng(1000 + seed)))
        found += state.winners == [1]
    # 1/4 of 160 is 40 (sd 5.5); a seeker that peeks finds all 160
    assert 40 - 20 <= found <= 40 + 20, found


@pytest.mark.parametrize("heads", [True, False])
@pytest.mark.parametrize("face", [2, 5])
def test_a_secret_draw_is_sampled_from_its_posterior_given_the_public_evidence(write, face, heads):
    game = rulesdsl.load_game(write(PARITY))
    state = game.new_initial_state()
    state.apply(f"roll {face}")
    state.apply("heads" if heads else "tails")
    assert state.observation(0)["history"][0] == "(hidden)"
    view, n = PlayerView(state, 0), 1200
    faces = [f for f in range(1, 7) if f % 2 == face % 2]
    # P(face) is proportional to face, P(heads | face) to face / 6, P(tails | face) to (6 - face) / 6
    likely = {f: f * (f if heads else 6 - f) for f in faces}
    likely = {f: w for f, w in likely.items() if w}
    total = sum(likely.values())
    counts: dict = {}
    for s in range(n):
        sampled = view.determinize(Rng(s))
        assert sampled.vars[1] == (face % 2 == 0) and sampled.vars[2] == heads
        counts[sampled.vars[0]] = counts.get(sampled.vars[0], 0) + 1
    assert set(counts) <= set(likely)
    assert chi_square(counts, {f: n * w / total for f, w in likely.items()}) < CRITICAL.get(len(likely) - 1, 10.8)


def test_cards_a_seat_holds_unseen_are_drawn_from_those_it_did_not_see_dealt(write):
    game = rulesdsl.load_game(write(OWN))
    state = game.new_initial_state()
    state.apply("deal 4")  # to seat 0, seen by seat 1
    state.apply("deal 2")  # to seat 1, seen by seat 0
    view, n = PlayerView(state, 0), 600
    counts: dict = {}
    for s in range(n):
        sampled = view.determinize(Rng(s))
        assert [c.rank for c in sampled.zones[1][1]] == [2]  # what the seat saw dealt stays
        (mine,) = sampled.zones[1][0]
        counts[mine.rank] = counts.get(mine.rank, 0) + 1
        assert sorted(c.rank for c in sampled.zones[0]) == sorted({1, 3, 4, 5, 6} - {mine.rank})
    assert chi_square(counts, {r: n / 5 for r in (1, 3, 4, 5, 6)}) < CRITICAL[4]
    # seat 1 sees its own card dealt to seat 0, not its own
    assert {PlayerView(state, 1).determinize(Rng(s)).zones[1][0][0].rank for s in range(10)} == {4}


def test_samples_depend_only_on_the_view_and_the_rng(write):
    game = rulesdsl.load_game(write(HIDE))
    states = []
    for spot in ("hide 1", "hide 4"):
        state = game.new_initial_state()
        state.apply(spot)
        states.append(state)
    assert states[0].observation(1) == states[1].observation(1)
    a, b = (PlayerView(s, 1).determinizations(Rng(7), 5) for s in states)
    assert [s.to_json() for s in a] == [s.to_json() for s in b]


def test_evidence_no_sample_can_meet_is_reported_not_answered_with_the_true_state(write, monkeypatch):
    game = rulesdsl.load_game(write(HIDE))
    state = game.new_initial_state()
    state.apply("hide 2")
    ev = sampling.evidence(state, 1)
    text, who, key = ev.entries[0]
    ev.entries[0] = (text, who, [*key[:2], -1, *key[3:]])  # a turn no state is at
    monkeypatch.setattr(sampling, "MAX_SAMPLE_MOVES", 500)
    with pytest.raises(SamplingError, match="no state consistent with what p1 has seen was found in 500 replayed"):
        sampling.sample(ev, Rng(1), 1)


def test_a_position_its_history_does_not_lead_to_is_dealt_anew(write):
    game = rulesdsl.load_game(write(OWN))
    state = game.new_initial_state()
    state.apply("deal 4")
    state.apply("deal 2")
    edited = game.state_from_json({**state.to_json(), "history": []})
    assert sampling.evidence(edited, 0) is None
    ranks = {PlayerView(edited, 0).determinize(Rng(s)).zones[1][1][0].rank for s in range(30)}
    assert len(ranks) > 1  # everything unseen is pooled and dealt back


@pytest.mark.parametrize("name", ["fast-track", "examples/games/sealed-bids.yaml",
                                  "tests/compiled_games/secret-draw.yaml", "tests/compiled_games/foreheads.yaml"])
def test_games_with_hidden_information_play_with_the_search_agent(name):
    from rulesdsl.loading import bundled_games

    path = bundled_games().get(name, name)
    seats = rulesdsl.load_game(path).num_players
    summary = rulesdsl.simulate(path, 1, ["mcts:iterations=8:depth=8"] * seats, seed=4, max_turns=30)
    assert summary.games == 1


def test_a_state_read_back_from_its_json_is_replayed_from_the_history_it_holds(write):
    game = rulesdsl.load_game(write(OWN))
    state = game.new_initial_state()
    state.apply("deal 4")
    state.apply("deal 2")
    again = game.state_from_json(state.to_json())  # (its history holds text)
    assert sampling.evidence(again, 0) is not None
    samples = [PlayerView(s, 0).determinizations(Rng(3), 4) for s in (state, again)]
    assert [s.to_json() for s in samples[0]] == [s.to_json() for s in samples[1]]
