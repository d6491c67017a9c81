"""Small rule files written for the reinforcement-learning tests (integer actions, observations, integrations)."""

# One card each from J, Q, K (1, 2, 3), seen by its holder only; the first player checks or bets, the second
# checks, calls or folds; the higher card wins a showdown. A Kuhn-poker-like game with hidden information.
TINY_POKER = """
game: Tiny poker
players: {count: 2}
pieces:
  card:
    attributes:
      rank: [1, 2, 3]
zones:
  deck: {visible: none, init: "[piece('card', rank=r) for r in 1..3]"}
  hand: {per: player, visible: owner}
vars:
  bet: {init: 0}
  done: {init: false}
  folded: {init: false}
features:
  my_card: "sum([c.rank for c in hand[me]])"
moves:
  check:
    when: ["bet == 0"]
    do:
      - if: "me == 1"
        then: ["done = true"]
  bet:
    when: ["bet == 0 and me == 0"]
    do: ["bet = 1"]
  call:
    when: ["bet == 1"]
    do: ["done = true"]
  fold:
    when: ["bet == 1"]
    do: ["folded = true"]
flow:
  start: deal0
  turn_start: act
  steps:
    deal0:
      chance:
        outcomes:
          params: {r: "1..3"}
          weight: "count(c for c in deck if c.rank == r)"
          visible_to: "[0]"
          notation: "deal {r}"
          do: ["move(deck, hand[0], piece('card', rank=r))"]
      next: deal1
    deal1:
      chance:
        outcomes:
          params: {r: "1..3"}
          weight: "count(c for c in deck if c.rank == r)"
          visible_to: "[1]"
          notation: "deal {r}"
          do: ["move(deck, hand[1], piece('card', rank=r))"]
      next: act
    act:
      moves: [check, bet, call, fold]
      next: end_turn
end:
  - when: "folded"
    winners: "[1 - player]"
  - when: "done"
    winners: "[p for p in players if hand[p][0].rank > hand[1 - p][0].rank]"
"""

# Tiny poker played for chips: an ante of one each and a bet of one more, so each seat's result is the chips it
# won or lost (-2 to 2), not +1 or -1: the returns of Kuhn poker.
TINY_POKER_CHIPS = TINY_POKER + """
scoring:
  returns: >-
    (1 if folded else 1 + bet)
    * (1 if (folded and me == 0) or (not folded and hand[me][0].rank > hand[1 - me][0].rank) else -1)
  utility: zero_sum
  returns_range: [-2, 2]
"""

# Both players show one or two fingers at once; an even total scores for the first, odd for the second; three
# points win. Players always choose at once: a parallel environment.
ODDS_AND_EVENS = """
game: Odds and evens
players: {count: 2}
vars:
  points: {per: player, init: 0}
moves:
  show:
    params: {fingers: "1..2"}
    notation: "show {fingers}"
flow:
  steps:
    reveal:
      actors: "players"
      moves: [show]
      resolve:
        - "scorer = 0 if (choices[0].fingers + choices[1].fingers) % 2 == 0 else 1"
        - "points[scorer] += 1"
      next: reveal
end:
  - when: "any(points[p] >= 3 for p in players)"
    winners: "[p for p in players if points[p] >= 3]"
"""

# A die decides the target first; then both players show one or two fingers at once, and whoever matches the
# target's parity scores. A parallel environment with chance at its start.
PARITY_DIE = """
game: Parity die
players: {count: 2}
vars:
  target: {init: 0}
  points: {per: player, init: 0}
moves:
  show:
    params: {fingers: "1..2"}
    notation: "show {fingers}"
flow:
  start: roll
  steps:
    roll:
      chance:
        outcomes:
          params: {n: "1..6"}
          notation: "roll {n}"
          do: ["target = n"]
      next: reveal
    reveal:
      actors: "players"
      moves: [show]
      resolve:
        - "points[0] += 1 if choices[0].fingers % 2 == target % 2 else 0"
        - "points[1] += 1 if choices[1].fingers % 2 == target % 2 else 0"
      next: reveal
end:
  - when: "any(points[p] >= 2 for p in players)"
    winners: "[p for p in players if points[p] >= 2]"
"""
