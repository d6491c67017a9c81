"""The compiled backend's fixed helpers: the random stream, and built-ins whose code is the same for every game.

Generated modules call these; each takes the game's tables as arguments, so nothing here knows a game. Every one
is compiled with bounds checks: a table or index out of range stops with IndexError, never reads past an array.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types, uint64

_GAMMA = uint64(0x9E3779B97F4A7C15)
_MIX1 = uint64(0xBF58476D1CE4E5B9)
_MIX2 = uint64(0x94D049BB133111EB)
MAX_ITEMS = 1_000_000  # (limits.MAX_ITEMS)
_JIT = dict(boundscheck=True, cache=False, nogil=True, no_cfunc_wrapper=True)  # (see program.py)
# the small helpers a playout calls at every step are inlined where called (numba's inlining: a call from one
# compiled function to another is otherwise a real call, with its exception status checked after it)
_INLINE = dict(_JIT, inline="always")


def compiled(**options):
    """numba's njit(**options), for a function whose calls from compiled code are typed by their arguments' types
    alone. numba otherwise compiles the function again for each constant passed to it (an error's code, a flag),
    and with it all it calls: for a game's flow, many times over."""
    def decorate(fn):
        dispatcher = njit(**options)(fn)
        typed = dispatcher.get_call_template
        dispatcher.get_call_template = lambda args, kws: typed(
            tuple(types.unliteral(a) for a in args), {k: types.unliteral(v) for k, v in kws.items()})
        return dispatcher
    return decorate


# The random streams are plain calls: inlined by numba (inline="always") they took 1.5 to 3 s of every game's compile
# (numba types an inlined body again at each call), and LLVM inlines them where the caller is optimised all the same.
@compiled(**_JIT)
def next64(rng, row):
    """The next output of the splitmix64-v1 stream held in rng[row] = (key, counter) (engine/rng.py)."""
    counter = rng[row, 1] + uint64(1)
    rng[row, 1] = counter
    z = rng[row, 0] + counter * _GAMMA
    z = (z ^ (z >> uint64(30))) * _MIX1
    z = (z ^ (z >> uint64(27))) * _MIX2
    return z ^ (z >> uint64(31))


@compiled(**_JIT)
def below(rng, row, n):
    """A uniform integer in [0, n), drawn as SplitMix64.below draws it (n = 1 draws nothing)."""
    if n <= 1:
        return 0
    k = 0
    m = n - 1
    while m > 0:
        k += 1
        m >>= 1
    shift = uint64(64 - k)
    bound = uint64(n)
    r = next64(rng, row) >> shift
    while r >= bound:
        r = next64(rng, row) >> shift
    return np.int64(r)


@compiled(**_JIT)
def copy_into(dst, src):
    """dst[:] = src[:len(dst)], as a loop: numba compiles an array assigned to a slice through helpers that take
    seconds to compile in every process, a loop in a fraction of one."""
    for j in range(dst.shape[0]):
        dst[j] = src[j]


@compiled(**_JIT)
def position_key(t, at):
    """The key of the position whose words are t[at[j]], in order (those that hold nothing cleared): the sum of
    SplitMix64's mix of each word plus its place times the gamma, as engine/repetition.py words_key() works it out."""
    h = uint64(0)
    for j in range(at.shape[0]):
        z = uint64(t[at[j]]) + uint64(j + 1) * _GAMMA
        z = (z ^ (z >> uint64(30))) * _MIX1
        z = (z ^ (z >> uint64(27))) * _MIX2
        h += z ^ (z >> uint64(31))
    return np.int64(h)


@compiled(**_JIT)
def occurrences(s, key, count_at, base):
    """How often the key `key` is among the s[count_at] keys from s[base]: the positions a game has left."""
    found = 0
    for i in range(s[count_at]):
        if s[base + i] == key:
            found += 1
    return found


@compiled(**_JIT)
def with_room(s, count_at, base, need):
    """`s`, or a longer copy of it (twice the room) when the keys from s[base] (s[count_at] of them) leave room for
    fewer than `need` more."""
    if base + s[count_at] + need <= s.shape[0]:
        return s
    t = np.zeros(s.shape[0] + max(s.shape[0] - base, 64 + need), np.int64)
    copy_into(t[:s.shape[0]], s)
    return t


@compiled(**_JIT)
def largest(xs):
    """xs.max() (NaN where any item is NaN), as a loop: numba's own takes seconds to compile in every process."""
    best = xs[0]
    for j in range(1, xs.shape[0]):
        x = xs[j]
        if x > best or x != x:
            best = x
            if x != x:
                break
    return best


@compiled(**_JIT)
def sorted_copy(xs):
    """np.sort(xs): a bottom-up merge sort, which compiles in a fraction of the time numba's quicksort takes."""
    n = xs.shape[0]
    a = xs.copy()
    b = np.empty_like(a)
    width = 1
    while width < n:
        for low in range(0, n, 2 * width):
            mid = min(low + width, n)
            high = min(low + 2 * width, n)
            i, j = low, mid
            for k in range(low, high):
                if i < mid and (j >= high or a[i] <= a[j]):
                    b[k] = a[i]
                    i += 1
                else:
                    b[k] = a[j]
                    j += 1
        a, b = b, a
        width *= 2
    return a


@compiled(**_JIT)
def concat(a, b):
    """a + b, two lists (at most MAX_ITEMS items, as the language allows)."""
    if a.shape[0] + b.shape[0] > MAX_ITEMS:
        raise ValueError("a list of more than 1,000,000 items")
    out = np.empty(a.shape[0] + b.shape[0], np.int64)
    out[:a.shape[0]] = a
    out[a.shape[0]:] = b
    return out


@compiled(**_JIT)
def span(low, high):
    """low..high, both included (at most MAX_ITEMS numbers, as the language allows)."""
    if high - low + 1 > MAX_ITEMS:
        raise ValueError("a range of more than 1,000,000 numbers")
    return np.arange(low, max(high + 1, low), 1, np.int64)


@compiled(**_JIT)
def keyed_row(keys, rows, lengths, key, code):
    """The cells of the region whose key (a row of `keys`) is `key`; ValueError(code) when none is."""
    for i in range(keys.shape[0]):
        same = keys.shape[1] == key.shape[0]
        for j in range(key.shape[0]):
            if same and keys[i, j] != key[j]:
                same = False
        if same:
            return rows[i, :lengths[i]]
    raise ValueError(code)


@compiled(**_JIT)
def optionals(s, tags, start, n, enum, texts, absent):
    """A list whose items are none or a value, read from the vector `s`: tag 1 a value (a text by its place in
    `enum` when `texts`), else `absent`."""
    out = np.empty(n, np.int64)
    for i in range(n):
        if s[tags + i] == 1:
            out[i] = enum[s[start + i]] if texts else s[start + i]
        else:
            out[i] = absent
    return out


@compiled(**_JIT)
def contains(xs, x):
    """x in xs."""
    for i in range(xs.shape[0]):
        if xs[i] == x:
            return True
    return False


@compiled(**_JIT)
def max_of(xs, default, has_default):
    """max(xs, default=...): -1 for the caller to report when xs is empty and no default is given."""
    if xs.shape[0] == 0:
        return default, has_default
    best = xs[0]
    for i in range(1, xs.shape[0]):
        if xs[i] > best:
            best = xs[i]
    return best, True


@compiled(**_JIT)
def sorted_set(xs):
    """sorted(set(xs))."""
    ys = sorted_copy(xs)
    out = np.empty(ys.shape[0], np.int64)
    n = 0
    for i in range(ys.shape[0]):
        if n == 0 or out[n - 1] != ys[i]:
            out[n] = ys[i]
            n += 1
    return out[:n]


@compiled(**_JIT)
def compare(a, b):
    """-1, 0 or 1 as lists of whole numbers compare in Python (item by item, then by length)."""
    n = min(a.shape[0], b.shape[0])
    for i in range(n):
        if a[i] != b[i]:
            return -1 if a[i] < b[i] else 1
    if a.shape[0] == b.shape[0]:
        return 0
    return -1 if a.shape[0] < b.shape[0] else 1


@compiled(**_JIT)
def group_sizes(members, adjacency):
    """Sizes of the connected groups among `members` (cells, in order), largest first, as groups() finds them:
    `adjacency[c]` lists c's neighbours, -1 padded."""
    cells = adjacency.shape[0]
    # one array for both marks (1 a member not yet reached, 2 reached) and, from its middle on, the search's stack:
    # one allocation instead of four, as this runs at every end of every playout of a game scored by groups
    work = np.zeros(2 * cells, np.int64)
    for i in range(members.shape[0]):
        if members[i] < 0 or members[i] >= cells:
            raise IndexError("no such cell")
        work[members[i]] = 1
    sizes = np.empty(members.shape[0], np.int64)
    groups = 0
    for i in range(members.shape[0]):
        start = members[i]
        if work[start] == 2:
            continue
        work[start] = 2
        size, top = 1, cells
        work[top] = start
        top += 1
        while top > cells:
            top -= 1
            c = work[top]
            for j in range(adjacency.shape[1]):
                nb = adjacency[c, j]
                if nb >= 0 and work[nb] == 1:
                    work[nb] = 2
                    size += 1
                    work[top] = nb
                    top += 1
        # largest first: an insertion sort, as groups are few
        k = groups
        while k > 0 and sizes[k - 1] < size:
            sizes[k] = sizes[k - 1]
            k -= 1
        sizes[k] = size
        groups += 1
    return sizes[:groups]


@compiled(**_JIT)
def push_targets(cells, base, rays, lengths, direction, frm, within):
    """push_targets(frm, direction, within) (model/builtins/pushing.py) on the board `cells[base:]`: along the ray,
    for each run of cells of `within` (a mask) ending at k, the run's cells before the k-th empty one of ray[0:k].
    `direction` -1 is none (no targets)."""
    out = np.empty(rays.shape[2], np.int64)
    return out[:push_targets_into(out, cells, base, rays, lengths, direction, frm, within)]


@njit(**_INLINE)
def push_targets_into(out, cells, base, rays, lengths, direction, frm, within):
    """push_targets written to `out` (as long as the longest ray): how many there are."""
    if direction < 0:
        return 0
    ray = rays[direction, frm]  # (the ray's row read once: this runs for every piece at every move listing)
    length = lengths[direction, frm]
    n = 0
    start = -1
    free = 0
    for k in range(length):
        c = ray[k]
        if within[c]:
            if start < 0:
                start = k
        elif start >= 0:
            for f in range(start, free):
                out[n] = ray[f]
                n += 1
            start = -1
        if cells[base + c] == 0:
            free += 1
    if start >= 0:  # a run reaching the ray's end
        for f in range(start, free):
            out[n] = ray[f]
            n += 1
    return n


@njit(**_INLINE)
def push(cells, base, rays, lengths, frm, to):
    """push(frm, to): the piece on frm moves to `to` along the last direction whose ray reaches it, the pieces in
    its way pushed ahead. 1 when `to` is on no ray from frm, 2 when pieces would leave the board, else 0.
    (Worked out in place, from the last cell written back to the first: this runs at every move of a game of
    pushes; where pieces would leave the board, push_spilling writes what it wrote so far, as before.)"""
    found, at = -1, -1
    for d in range(rays.shape[0] - 1, -1, -1):
        for k in range(lengths[d, frm]):
            if rays[d, frm, k] == to:
                found, at = d, k
                break
        if found >= 0:
            break
    if found < 0:
        return 1
    ray = rays[found, frm]
    length = lengths[found, frm]
    held = 0  # pieces picked up and not yet put down, going along the ray
    for k in range(at + 1):
        if cells[base + ray[k]] != 0:
            held += 1
    end = at  # the last cell a piece is put down on
    while held > 0:
        if end + 1 >= length:
            return push_spilling(cells, base, rays, lengths, frm, to, found, at)
        end += 1
        if cells[base + ray[end]] != 0:
            held += 1
        held -= 1
    mover = cells[base + frm]
    cells[base + frm] = 0
    # the pieces of ray[0..end] in order go to ray[at + 1..end]: each lands no nearer than it was, so the last
    # first never covers one still to move
    t = end
    for k in range(end, -1, -1):
        c = ray[k]
        p = cells[base + c]
        if p != 0:
            cells[base + c] = 0
            cells[base + ray[t]] = p
            t -= 1
    cells[base + to] = mover
    return 0


@compiled(**_JIT)
def push_spilling(cells, base, rays, lengths, frm, to, found, at):
    """push() where pieces would leave the board: the pieces moved as far as they go, then 2."""
    carried = np.empty(lengths[found, frm] + 1, np.int64)
    head, tail = 0, 0
    mover = cells[base + frm]
    cells[base + frm] = 0
    for k in range(at + 1):
        c = rays[found, frm, k]
        if cells[base + c] != 0:
            carried[tail] = cells[base + c]
            tail += 1
            cells[base + c] = 0
    cells[base + to] = mover
    for k in range(at + 1, lengths[found, frm]):
        if head == tail:
            return 0
        c = rays[found, frm, k]
        if cells[base + c] != 0:
            carried[tail] = cells[base + c]
            tail += 1
        cells[base + c] = carried[head]
        head += 1
    return 0 if head == tail else 2


@njit(**_INLINE)
def has_run(xs, length, cyclic):
    """has_run(xs, length, cyclic=...) (lang/builtins.py): `length` equal neighbours in a row."""
    n = xs.shape[0]
    if length <= 1:
        return n >= length
    if n == 0:
        return False
    run, prev = 0, xs[0]
    for i in range(n):
        if xs[i] == prev:
            run += 1
            if run >= length:
                return True
        else:
            run, prev = 1, xs[i]
    if cyclic and run < n and xs[0] == prev:  # the last run goes on round the wrap into the first
        lead = 1
        while xs[lead] == prev:
            lead += 1
        return run + lead >= length
    return False


@compiled(**_JIT)
def distinct(items):
    """The distinct items in the order they first appear (tally()'s first array): a short list compared item by
    item, with one array made; a longer one by tally()."""
    n = items.shape[0]
    if n > 32:
        return tally(items)[0]
    out = np.empty(n, np.int64)
    m = 0
    for i in range(n):
        seen = False
        for j in range(m):
            if out[j] == items[i]:
                seen = True
                break
        if not seen:
            out[m] = items[i]
            m += 1
    return out[:m]


@compiled(**_JIT)
def choices_count(n, k, ordered, size_code, limit_code):
    """How many choices of k of n items combinations() (ordered: permutations()) gives, counted as the Python
    engine counts them (lang/builtins.py _choices), with its errors: ValueError(size_code, k) for a size below 0,
    ValueError(limit_code, count, k) once the choices would hold more than MAX_ITEMS items together."""
    if k < 0:
        raise ValueError(size_code, k)
    count = 0 if k > n else 1
    for i in range(k if ordered else min(k, n - k)):
        count = count * (n - i) if ordered else count * (n - i) // (i + 1)
        if count * (k + 1) > MAX_ITEMS:
            raise ValueError(limit_code, count, k)
    return count


@compiled(**_JIT)
def combinations(xs, k, size_code, limit_code):
    """combinations(xs, k) as rows, in the order itertools gives them: each choice's items in the order of xs."""
    n = xs.shape[0]
    out = np.empty((choices_count(n, k, False, size_code, limit_code), max(k, 0)), np.int64)
    if out.shape[0] == 0:
        return out
    at = np.arange(k)  # the positions chosen, rising
    for r in range(out.shape[0]):
        for j in range(k):
            out[r, j] = xs[at[j]]
        if not next_choice(at, n, k):
            break
    return out


@compiled(**_JIT)
def next_choice(at, n, k):
    """Move the rising positions at[:k] of a choice of k of n items on to the next choice, in the order itertools
    gives them: False after the last."""
    i = k - 1  # the last position that can still move right
    while i >= 0 and at[i] == i + n - k:
        i -= 1
    if i < 0:
        return False
    at[i] += 1
    for j in range(i + 1, k):
        at[j] = at[j - 1] + 1
    return True


@compiled(**_JIT)
def permutations(xs, k, size_code, limit_code):
    """permutations(xs, k) as rows, in the order itertools gives them (its algorithm: positions, and a countdown
    per place of the choices left)."""
    n = xs.shape[0]
    out = np.empty((choices_count(n, k, True, size_code, limit_code), max(k, 0)), np.int64)
    if out.shape[0] == 0:
        return out
    at = np.arange(n)
    left = np.empty(max(k, 1), np.int64)
    for i in range(k):
        left[i] = n - i
    for r in range(out.shape[0]):
        for j in range(k):
            out[r, j] = xs[at[j]]
        i = k - 1
        while i >= 0:
            left[i] -= 1
            if left[i] == 0:  # every item has had place i: rotate them back, and move on to the place before
                first = at[i]
                for j in range(i, n - 1):
                    at[j] = at[j + 1]
                at[n - 1] = first
                left[i] = n - i
                i -= 1
            else:
                j = n - left[i]
                at[i], at[j] = at[j], at[i]
                break
        if i < 0:
            break
    return out


@compiled(**_JIT)
def subsets(xs, limit_code):
    """subsets(xs) as ragged rows (each its length, then its items), smallest first and each size in the order
    combinations() gives; ValueError(limit_code, n) where the lists would hold more than MAX_ITEMS items together
    (counted as the Python engine counts them: 2 ** n lists of n / 2 items on average)."""
    n = xs.shape[0]
    if n >= 20:  # (2 ** 20 lists of 11 items on average: past the limit, whatever the list)
        raise ValueError(limit_code, n)
    if (1 << n) * (n + 2) // 2 > MAX_ITEMS:
        raise ValueError(limit_code, n)
    out = np.zeros((1 << n, n + 1), np.int64)
    r = 0
    at = np.empty(max(n, 1), np.int64)
    for k in range(n + 1):
        for j in range(k):
            at[j] = j
        while True:
            out[r, 0] = k
            for j in range(k):
                out[r, 1 + j] = xs[at[j]]
            r += 1
            if not next_choice(at, n, k):
                break
    return out


@compiled(**_JIT)
def enumerated(xs):
    """enumerate(xs) as rows (index, item)."""
    out = np.empty((xs.shape[0], 2), np.int64)
    for i in range(xs.shape[0]):
        out[i, 0] = i
        out[i, 1] = xs[i]
    return out


@njit(**_INLINE)
def ones(x):
    """The number of bits set in x (a uint64), counted in parallel within the word."""
    x = x - ((x >> uint64(1)) & uint64(0x5555555555555555))
    x = (x & uint64(0x3333333333333333)) + ((x >> uint64(2)) & uint64(0x3333333333333333))
    x = (x + (x >> uint64(4))) & uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * uint64(0x0101010101010101)) >> uint64(56))


@njit(**_INLINE)
def fill(order, x, n, first, second):
    """Item i of `order`: `first` where bit i of x is set, else `second`."""
    for i in range(n):
        order[i] = first if (x >> uint64(i)) & uint64(1) else second


@compiled(**_JIT)
def shuffle(rng, row, items):
    """SplitMix64.shuffle: Fisher-Yates from the end, item i swapped with item below(i + 1)."""
    for i in range(items.shape[0] - 1, 0, -1):
        j = below(rng, row, i + 1)
        items[i], items[j] = items[j], items[i]


@compiled(**_JIT)
def tally(items):
    """The distinct items in the order they first appear, and how often each appears (engine/draws.py DrawPool):
    the places sorted by item (a merge sort, n log n), then each run's first place marked and read in order.
    (Loops rather than numpy's sorts and slices, which take numba seconds to compile.)"""
    n = items.shape[0]
    order = np.empty(n, np.int64)
    spare = np.empty(n, np.int64)
    for i in range(n):
        order[i] = i
    width = 1
    while width < n:  # bottom-up and stable: equal items keep their places' order
        for low in range(0, n, 2 * width):
            mid = min(low + width, n)
            high = min(low + 2 * width, n)
            a, b, k = low, mid, low
            while k < high:
                if b >= high or (a < mid and items[order[a]] <= items[order[b]]):
                    spare[k] = order[a]
                    a += 1
                else:
                    spare[k] = order[b]
                    b += 1
                k += 1
        order, spare = spare, order
        width *= 2
    run = np.zeros(n, np.int64)  # at an item's first place: 1 + its run's number
    sizes = np.zeros(n, np.int64)
    m = 0
    for i in range(n):
        if i == 0 or items[order[i]] != items[order[i - 1]]:
            run[order[i]] = m + 1
            m += 1
        sizes[m - 1] += 1
    kinds = np.empty(m, np.int64)
    counts = np.empty(m, np.int64)
    j = 0
    for p in range(n):
        if run[p] > 0:
            kinds[j] = items[p]
            counts[j] = sizes[run[p] - 1]
            j += 1
    return kinds, counts


@compiled(**_JIT)
def kind_at(counts, position):
    """The distinct item at `position` when each appears counts[k] times in a row."""
    for k in range(counts.shape[0]):
        if position < counts[k]:
            return k
        position -= counts[k]
    raise IndexError("position beyond the items")


@compiled(**_JIT)
def draw_items(rng, row, kinds, counts, count, replace, into):
    """`count` items drawn as DrawPool.sample draws them (uniform picks among all the items, each put back or not),
    written to `into` as its outcome: each distinct item as often as it was drawn, in the order of `kinds`."""
    total = 0
    for k in range(counts.shape[0]):
        total += counts[k]
    drawn = np.zeros(counts.shape[0], np.int64)
    if replace:
        for _ in range(count):
            drawn[kind_at(counts, below(rng, row, total))] += 1
    else:
        left = counts.copy()
        for taken in range(count):
            k = kind_at(left, below(rng, row, total - taken))
            left[k] -= 1
            drawn[k] += 1
    j = 0
    for k in range(counts.shape[0]):
        for _ in range(drawn[k]):
            into[j] = kinds[k]
            j += 1


@compiled(**_JIT)
def unsettled(out, start, end, columns):
    """Rows start..end of `out` left in place (in order) but those whose value in its kind's column (`columns`) a
    row before `start` has; the new end. A tier of moves falling back per value (engine/state.py `_tiered`)."""
    n = start
    for i in range(start, end):
        v = out[i, columns[out[i, 0]]]
        settled = False
        for j in range(start):
            if out[j, columns[out[j, 0]]] == v:
                settled = True
                break
        if not settled:
            if n != i:
                for c in range(out.shape[1]):
                    out[n, c] = out[i, c]
            n += 1
    return n


@compiled(**_JIT)
def first_or(xs, default):
    """The first item of xs, or `default` when it is empty."""
    return xs[0] if xs.shape[0] else default


@compiled(**_JIT)
def key_row(table, low, k, code):
    """The place of key `k` of a variable with one value per key (table[k - low], see places.py); ValueError(code,
    k) when k is not one of its keys."""
    i = k - low
    if i < 0 or i >= table.shape[0] or table[i] < 0:
        raise ValueError(code, k)
    return table[i]


@compiled(**_JIT)
def key_row_or(table, low, k):
    """The place of key `k` of a variable with one value per key, or -1 when k is not one of its keys."""
    i = k - low
    if i < 0 or i >= table.shape[0]:
        return -1
    return table[i]


@compiled(**_JIT)
def walk(nexts, switches, keys, key, c, steps, missing, many):
    """walk() (model/builtins/links.py) along links that never run out: the cells passed following them `steps`
    times from c, starting with the links of `key` (a row of `keys`) and switching keys where `switches` says."""
    row = -1
    for i in range(keys.shape[0]):
        if keys[i] == key:
            row = i
    if row < 0:
        raise ValueError(missing, key)
    if steps > MAX_ITEMS:
        raise ValueError(many, steps)
    out = np.empty(max(steps, 0), np.int64)
    for i in range(max(steps, 0)):
        nxt = nexts[row, c]
        if switches[row, c] >= 0:
            row = switches[row, c]
        c = nxt
        out[i] = c
    return out


@compiled(**_JIT)
def same_items(a, b):
    """a == b of two lists of single values: as long, and equal item by item."""
    if a.shape[0] != b.shape[0]:
        return False
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return False
    return True


@compiled(**_JIT)
def list_index(i, n, code):
    """Item i of a list of n items, as Python indexes it (from the end when negative); ValueError(code) when out of
    range."""
    if i < -n or i >= n:
        raise ValueError(code)
    return i + n if i < 0 else i


@compiled(**_JIT)
def table_column(codes, key, code):
    """The column of a table's possible key `key` (codes: the possible keys' codes); ValueError(code, key) when it
    is none of them."""
    for j in range(codes.shape[0]):
        if codes[j] == key:
            return j
    raise ValueError(code, key)


@compiled(**_JIT)
def table_get(s, order, value, width, row, codes, key, code):
    """The value of key `key` in table `row` of a list of tables (see items.py); ValueError(code, key) when it is
    not in the table."""
    for j in range(codes.shape[0]):
        if codes[j] == key:
            if s[order + row * width + j] >= 0:
                return s[value + row * width + j]
            break
    raise ValueError(code, key)


@compiled(**_JIT)
def table_put(s, order, width, j):
    """Key column j put in the table whose order starts at `order`: at the end of the order unless it is there."""
    if s[order + j] >= 0:
        return
    n = 0
    for i in range(width):
        if s[order + i] >= 0:
            n += 1
    s[order + j] = n


@compiled(**_JIT)
def table_values(s, order, value, width):
    """The values of a table in its order."""
    out = np.empty(width, np.int64)
    n = 0
    for k in range(width):
        for j in range(width):
            if s[order + j] == k:
                out[n] = s[value + j]
                n += 1
    return out[:n]


@compiled(**_JIT)
def some(tag, value, code):
    """The value of a variable holding a number or none, where a number is needed: ValueError(code) when none."""
    if tag != 1:
        raise ValueError(code)
    return value


@compiled(**_JIT)
def zone_items(s, base, at_length, capacity):
    """The pieces of a zone's place (a copy), held at s[base:] with their number at s[at_length]."""
    n = s[at_length]
    if n < 0 or n > capacity:
        raise IndexError("a zone's length beyond its place")
    return s[base:base + n].copy()


@compiled(**_JIT)
def zone_take(s, base, at_length, capacity, piece):
    """Take `piece` (-1: the last piece, the top of a stack) out of a zone's place, the pieces after it moving down
    (Python's list.remove and pop): the piece, or -1 when the place is empty, -2 when it holds no such piece."""
    n = s[at_length]
    if n < 0 or n > capacity:
        raise IndexError("a zone's length beyond its place")
    if piece < 0:
        if n == 0:
            return -1
        taken = s[base + n - 1]
        s[base + n - 1] = 0
        s[at_length] = n - 1
        return taken
    for i in range(n):
        if s[base + i] == piece:
            for j in range(i, n - 1):
                s[base + j] = s[base + j + 1]
            s[base + n - 1] = 0
            s[at_length] = n - 1
            return piece
    return -2


@compiled(**_JIT)
def zone_put(s, base, at_length, capacity, piece):
    """Put `piece` last into a zone's place: False (nothing written) when the place is full."""
    n = s[at_length]
    if n < 0 or n >= capacity:
        return False
    s[base + n] = piece
    s[at_length] = n + 1
    return True


@compiled(**_JIT)
def table_has(s, order, codes, key):
    """Whether key `key` is in the table whose order starts at `order` (codes: the possible keys' codes)."""
    for j in range(codes.shape[0]):
        if codes[j] == key:
            return s[order + j] >= 0
    return False


# -- forms that make no list: a list only iterated or asked whether it holds an item is read where it lies ----------
@njit(**_INLINE)
def keyed_row1(keys, rows, lengths, k0, code):
    """keyed_row of a key of one part, given as a number (no array made for the key)."""
    for i in range(keys.shape[0]):
        if keys.shape[1] == 1 and keys[i, 0] == k0:
            return rows[i, :lengths[i]]
    raise ValueError(code)


@njit(**_INLINE)
def keyed_row2(keys, rows, lengths, k0, k1, code):
    """keyed_row of a key of two parts, given as numbers."""
    for i in range(keys.shape[0]):
        if keys.shape[1] == 2 and keys[i, 0] == k0 and keys[i, 1] == k1:
            return rows[i, :lengths[i]]
    raise ValueError(code)


@njit(**_INLINE)
def keyed_row3(keys, rows, lengths, k0, k1, k2, code):
    """keyed_row of a key of three parts, given as numbers."""
    for i in range(keys.shape[0]):
        if keys.shape[1] == 3 and keys[i, 0] == k0 and keys[i, 1] == k1 and keys[i, 2] == k2:
            return rows[i, :lengths[i]]
    raise ValueError(code)


@njit(**_INLINE)
def span_stop(low, high):
    """The end (excluded) of a loop over low..high, checked as span() checks the range it would make."""
    if high - low + 1 > MAX_ITEMS:
        raise ValueError("a range of more than 1,000,000 numbers")
    return max(high + 1, low)


@njit(**_INLINE)
def joined_size(a, b):
    """The number of items of a + b, checked as concat() checks the list it would make."""
    if a.shape[0] + b.shape[0] > MAX_ITEMS:
        raise ValueError("a list of more than 1,000,000 items")
    return a.shape[0] + b.shape[0]


@njit(**_INLINE)
def optionals_has(s, tags, start, n, enum, texts, absent, x):
    """x in optionals(s, tags, start, n, enum, texts, absent), read in the vector."""
    for i in range(n):
        if s[tags + i] == 1:
            if (enum[s[start + i]] if texts else s[start + i]) == x:
                return True
        elif absent == x:
            return True
    return False


@njit(**_INLINE)
def zone_has(s, base, at_length, capacity, x):
    """x in zone_items(s, base, at_length, capacity), read in the vector."""
    n = s[at_length]
    if n < 0 or n > capacity:
        raise IndexError("a zone's length beyond its place")
    for i in range(n):
        if s[base + i] == x:
            return True
    return False


@njit(**_INLINE)
def table_values_has(s, order, value, width, x):
    """x in table_values(s, order, value, width): a value of a key the table holds."""
    for j in range(width):
        if s[order + j] >= 0 and s[order + j] < width and s[value + j] == x:
            return True
    return False


@compiled(**_JIT)
def data_at(marks, i, code):
    """Position i of a lookup into data fixed at load (constdata.py), or ValueError(code, the message's number)
    where the keys reach no value."""
    if marks[i] >= 0:
        raise ValueError(code, marks[i])
    return i
