"""Every bound on what a shared file may ask of the machine, in one place (see docs/security.md)."""

from __future__ import annotations

# Files
MAX_FILE_BYTES = 250_000  # a rule file's size: the largest bundled game has 16 kB; YAML reads some 300 kB a second
MAX_YAML_NODES = 25_000  # values, keys, lists and mappings, aliases expanded: the bundled games have at most 856
MAX_YAML_DEPTH = 100  # lists and mappings nested in each other: the bundled games nest at most 11 deep
MAX_EXTENDS = 16  # overlays in one chain of 'extends:' (each is read, checked and merged)
MAX_JSON_DEPTH = 100  # deepest nesting read from a state, log or results line (a real state nests about 10 deep)
MAX_JSON_DIGITS = 100  # longest whole number read from them (seeds have 20 digits at most)
# Sizes of those files, looked at before they are read (JSON of n bytes takes several times n in memory)
MAX_STATE_BYTES = 32_000_000  # a saved state (--state): a real one has a few kB; as many items as a game may keep
MAX_LOG_BYTES = 32_000_000  # a game log: a game of 10,000 turns is about 1 MB
MAX_RESULTS_LINE_BYTES = 32_000_000  # one line of a results file, a game; the file has a line per game, of any number
MAX_CARRIED_RULES = 64  # rule bundles one results file carries (a run compares a few rule files; each may be 4 MB)

# Expressions and the values they build
MAX_EXPR_CHARS = 20_000  # characters of one expression string
MAX_EXPR_DEPTH = 50  # brackets or operators nested in one expression (Python's own parser allows 200 brackets)
# loops nested in each other in one expression (the `for` clauses of comprehensions, comprehensions inside them)
# or in one list of effects (`for:` blocks): each is a block of the Python printed for it, and Python refuses a
# function nesting more than 20 blocks (the printer adds a few of its own around them)
MAX_LOOP_DEPTH = 16
MAX_PARAMS = 16  # params of one move or chance outcome: each is a loop of the search for its legal moves
MAX_PARTS = 64  # parts of one move of a repeated part (`repeat:`): each is a level of the search for its moves
MAX_TEMPLATE_CHARS = 10_000  # characters of a notation or cell-name template (a real one has a few dozen)
MAX_INT_BITS = 8192  # about 2,466 decimal digits: far beyond any score, far below a slow multiplication
MAX_ITEMS = 1_000_000  # items of one list or tuple, characters of one string, numbers in one range
# lists, tuples, tables and records inside each other, in a value rule code builds: hashing, comparing and printing
# recurse once a level (hashing a tuple in C, unchecked); a value this deep fits in a saved state, whose JSON may
# nest MAX_JSON_DEPTH deep (a table takes three levels of it: {"table": [[key, value]]}, and a state five more)
MAX_VALUE_DEPTH = 30
MAX_PLAYERS = 256  # seats of one game
MAX_OPTION_ITEMS = 1_000  # items of a list option (type: list)
MAX_CELLS = 10_000  # cells of one board
MAX_KEYS = 10_000  # places of one zone or variable declared with keys: (one per cell of the largest board)
MAX_ACTIONS = 1_000_000  # integer actions of one game, or chance outcomes of one node (the length of an action mask)
MAX_OBSERVED_VALUES = 256  # values a list's items are counted by in an observation (more: the list is left uncounted)
# entries of one place's slots in an observation (capacity x values: more, and the place gets no slot entries)
MAX_OBSERVED_SLOTS = 4_096
MAX_OBSERVATION_ENTRIES = 1_000_000  # entries of a whole observation vector (each agent step builds one)
MAX_RAY_CELLS = 1_000_000  # cells of all rays of a board together (a 60 x 60 grid in 8 directions has 860,000)

# Running (budgets are seconds of processor time, multiplied by the environment variable RULESDSL_TIME_SCALE).
# Each call has its budget, and the calls inside a larger unit also share that unit's: the lets of one load, the
# listing and applying of one move, the moves of one game.
MOVE_SECONDS = 5.0  # listing the moves of a position, or applying one move with everything it sets off; and a move
LOAD_SECONDS = 20.0  # compiling a rule file, its load-time expressions included
# numba compiling the module the compiled backend prints for a game: the bundled games take 30 s to a few minutes,
# several times that on a slow or busy machine (a compile stopped there would fail a game that is no attack)
COMPILE_SECONDS = 900.0
CHECK_SECONDS = 2 * LOAD_SECONDS  # an editor's check of a buffer, its loads (its variants') together: a load's own
# budget answers first
VALUE_SECONDS = 3.0  # one load-time expression (a let, a board attribute, a region)
GAME_SECONDS = 60.0  # the rules of one game, all its moves together (agents' look-ahead apart); bundled games: < 1 s
MEMORY_BYTES = 2 << 30  # what the process may grow by during one of the above
MAX_AUTO_STEPS = 10_000  # automatic steps in a row before a decision
MAX_DRAWN = 10_000  # items drawn at once by one chance step with `draw:` (each is a draw of the sampler)
MAX_DRAW_OUTCOMES = 20_000  # outcomes chance_outcomes() lists for one such draw (10 dice of 6 faces have 3,003)
# moves replayed to sample the states a player's view allows (one call of PlayerView.determinize, or of
# determinizations: its samples together), restarts included; an agent's look-ahead, not the game's budget
MAX_SAMPLE_MOVES = 200_000
MAX_CALLS = 10_000  # chance steps called by chance() and waiting to be drawn
MAX_STATE_ITEMS = 2_000_000  # items a position's zones and variables hold after a move: two of the largest lists
DEFAULT_MAX_TURNS = 10_000  # the turn cap of a game when neither the rule file nor the caller sets one
MAX_TURNS_CAP = 100_000  # the most a rule file's flow: max_turns may ask (more is clamped); --max-turns may give more

# The process that runs untrusted work (jail.py): limits the operating system enforces, beyond the budgets above
JAIL_MEMORY_BYTES = 3 << 30  # address space a jailed process may add to what it holds when it starts
JAIL_STACK_BYTES = 8 << 20  # its stack (and each thread's): Python's recursion limit of 1,000 fits in it


class LimitExceeded(ValueError):
    """Rule code tried to build a value larger than the language allows."""
