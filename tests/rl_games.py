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
