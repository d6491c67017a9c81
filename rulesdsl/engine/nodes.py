"""Who acts at a node of the game tree: a seat (0, 1, ...), or one of these markers."""

CHANCE = -1  # chance draws the outcome (rule code sees `me` as CHANCE)
SIMULTANEOUS = -2  # several players choose at once, none seeing the others' choices
TERMINAL = -4  # the game is over
