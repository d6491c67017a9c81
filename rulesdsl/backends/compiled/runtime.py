"""The compiled backend's fixed helpers: the random stream, and built-ins whose code is the same for every game.

Generated modules call these; each takes the game's tables as arguments, so nothing here knows a game. Every one
is compiled with bounds checks: a table or index out of range stops with IndexError, never reads past an array.
"""

from __future__ import annotations

import numpy as np
from numba import njit, uint64

_GAMMA = uint64(0x9E3779B97F4A7C15)
_MIX1 = uint64(0xBF58476D1CE4E5B9)
_MIX2 = uint64(0x94D049BB133111EB)
MAX_ITEMS = 1_000_000  # (limits.MAX_ITEMS)
_JIT = dict(boundscheck=True, cache=False, nogil=True)


@njit(**_JIT)
def next64(rng, row):
    """The next output of the splitmix64-v1 stream held in rng[row] = (key, counter) (engine/rng.py)."""
    counter = rng[row, 1] + uint64(1)
    rng[row, 1] = counter
    z = rng[row, 0] + counter * _GAMMA
    z = (z ^ (z >> uint64(30))) * _MIX1
    z = (z ^ (z >> uint64(27))) * _MIX2
    return z ^ (z >> uint64(31))


@njit(**_JIT)
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


@njit(**_JIT)
def concat(a, b):
    """a + b, two lists (at most MAX_ITEMS items, as the language allows)."""
    if a.shape[0] + b.shape[0] > MAX_ITEMS:
        raise ValueError("a list of more than 1,000,000 items")
    out = np.empty(a.shape[0] + b.shape[0], np.int64)
    out[:a.shape[0]] = a
    out[a.shape[0]:] = b
    return out


@njit(**_JIT)
def span(low, high):
    """low..high, both included (at most MAX_ITEMS numbers, as the language allows)."""
    if high - low + 1 > MAX_ITEMS:
        raise ValueError("a range of more than 1,000,000 numbers")
    return np.arange(low, max(high + 1, low), 1, np.int64)


@njit(**_JIT)
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


@njit(**_JIT)
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


@njit(**_JIT)
def contains(xs, x):
    """x in xs."""
    for i in range(xs.shape[0]):
        if xs[i] == x:
            return True
    return False


@njit(**_JIT)
def max_of(xs, default, has_default):
    """max(xs, default=...): -1 for the caller to report when xs is empty and no default is given."""
    if xs.shape[0] == 0:
        return default, has_default
    best = xs[0]
    for i in range(1, xs.shape[0]):
        if xs[i] > best:
            best = xs[i]
    return best, True


@njit(**_JIT)
def sorted_set(xs):
    """sorted(set(xs))."""
    ys = np.sort(xs)
    out = np.empty(ys.shape[0], np.int64)
    n = 0
    for i in range(ys.shape[0]):
        if n == 0 or out[n - 1] != ys[i]:
            out[n] = ys[i]
            n += 1
    return out[:n]


@njit(**_JIT)
def compare(a, b):
    """-1, 0 or 1 as lists of whole numbers compare in Python (item by item, then by length)."""
    n = min(a.shape[0], b.shape[0])
    for i in range(n):
        if a[i] != b[i]:
            return -1 if a[i] < b[i] else 1
    if a.shape[0] == b.shape[0]:
        return 0
    return -1 if a.shape[0] < b.shape[0] else 1


@njit(**_JIT)
def group_sizes(members, adjacency):
    """Sizes of the connected groups among `members` (cells, in order), largest first, as groups() finds them:
    `adjacency[c]` lists c's neighbours, -1 padded."""
    cells = adjacency.shape[0]
    inside = np.zeros(cells, np.bool_)
    for i in range(members.shape[0]):
        inside[members[i]] = True
    seen = np.zeros(cells, np.bool_)
    stack = np.empty(cells, np.int64)
    sizes = np.empty(members.shape[0], np.int64)
    groups = 0
    for i in range(members.shape[0]):
        start = members[i]
        if seen[start]:
            continue
        seen[start] = True
        size, top = 1, 1
        stack[0] = start
        while top > 0:
            top -= 1
            c = stack[top]
            for j in range(adjacency.shape[1]):
                nb = adjacency[c, j]
                if nb >= 0 and inside[nb] and not seen[nb]:
                    seen[nb] = True
                    size += 1
                    stack[top] = nb
                    top += 1
        sizes[groups] = size
        groups += 1
    return -np.sort(-sizes[:groups])


@njit(**_JIT)
def push_targets(cells, base, rays, lengths, direction, frm, within):
    """push_targets(frm, direction, within) (model/builtins/pushing.py) on the board `cells[base:]`: along the ray,
    for each run of cells of `within` (a mask) ending at k, the run's cells before the k-th empty one of ray[0:k].
    `direction` -1 is none (no targets)."""
    out = np.empty(rays.shape[2], np.int64)
    return out[:push_targets_into(out, cells, base, rays, lengths, direction, frm, within)]


@njit(**_JIT)
def push_targets_into(out, cells, base, rays, lengths, direction, frm, within):
    """push_targets written to `out` (as long as the longest ray): how many there are."""
    n = 0
    if direction < 0:
        return 0
    length = lengths[direction, frm]
    start = -1
    free = 0
    for k in range(length + 1):
        inside = k < length and within[rays[direction, frm, k]]
        if inside and start < 0:
            start = k
        elif not inside and start >= 0:
            for f in range(start, free):
                out[n] = rays[direction, frm, f]
                n += 1
            start = -1
        if k < length and cells[base + rays[direction, frm, k]] == 0:
            free += 1
    return n


@njit(**_JIT)
def push(cells, base, rays, lengths, frm, to):
    """push(frm, to): the piece on frm moves to `to` along the last direction whose ray reaches it, the pieces in
    its way pushed ahead. 1 when `to` is on no ray from frm, 2 when pieces would leave the board, else 0."""
    found, at = -1, -1
    for d in range(rays.shape[0]):
        for k in range(lengths[d, frm]):
            if rays[d, frm, k] == to:
                found, at = d, k
    if found < 0:
        return 1
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


@njit(**_JIT)
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


@njit(**_JIT)
def enumerated(xs):
    """enumerate(xs) as rows (index, item)."""
    out = np.empty((xs.shape[0], 2), np.int64)
    for i in range(xs.shape[0]):
        out[i, 0] = i
        out[i, 1] = xs[i]
    return out


@njit(**_JIT)
def ones(x):
    """The number of bits set in x (a uint64), counted in parallel within the word."""
    x = x - ((x >> uint64(1)) & uint64(0x5555555555555555))
    x = (x & uint64(0x3333333333333333)) + ((x >> uint64(2)) & uint64(0x3333333333333333))
    x = (x + (x >> uint64(4))) & uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * uint64(0x0101010101010101)) >> uint64(56))


@njit(**_JIT)
def fill(order, x, n, first, second):
    """Item i of `order`: `first` where bit i of x is set, else `second`."""
    for i in range(n):
        order[i] = first if (x >> uint64(i)) & uint64(1) else second


@njit(**_JIT)
def shuffle(rng, row, items):
    """SplitMix64.shuffle: Fisher-Yates from the end, item i swapped with item below(i + 1)."""
    for i in range(items.shape[0] - 1, 0, -1):
        j = below(rng, row, i + 1)
        items[i], items[j] = items[j], items[i]


@njit(**_JIT)
def first_of(xs, default):
    """first(xs, default): the first item, or the default when xs is empty."""
    return xs[0] if xs.shape[0] > 0 else default


@njit(**_JIT)
def distinct(xs):
    """distinct(xs): the items without repeats, in first-seen order (a quadratic scan: lists in rules are short)."""
    out = np.empty(xs.shape[0], np.int64)
    n = 0
    for i in range(xs.shape[0]):
        seen = False
        for j in range(n):
            if out[j] == xs[i]:
                seen = True
                break
        if not seen:
            out[n] = xs[i]
            n += 1
    return out[:n]


@njit(**_JIT)
def zone_items(s, base, at_length, capacity):
    """The pieces of a zone's place (a copy), held at s[base:] with their number at s[at_length]."""
    n = s[at_length]
    if n < 0 or n > capacity:
        raise IndexError("a zone's length beyond its place")
    return s[base:base + n].copy()


@njit(**_JIT)
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


@njit(**_JIT)
def zone_put(s, base, at_length, capacity, piece):
    """Put `piece` last into a zone's place: False (nothing written) when the place is full."""
    n = s[at_length]
    if n < 0 or n >= capacity:
        return False
    s[base + n] = piece
    s[at_length] = n + 1
    return True


@njit(**_JIT)
def key_index(keys, key):
    """Where `key` is among the keys a table's type allows (the numbers they are printed as), or -1."""
    for i in range(keys.shape[0]):
        if keys[i] == key:
            return i
    return -1


@njit(**_JIT)
def keyed_values(s, order, value, n):
    """The values of a table held as (order, value) runs of n places each, in the table's order (its keys' order of
    insertion)."""
    count = 0
    for i in range(n):
        if s[order + i] >= 0:
            count += 1
    out = np.empty(count, np.int64)
    for i in range(n):
        k = s[order + i]
        if k >= 0:
            if k >= count:
                raise IndexError("a table's order beyond its keys")
            out[k] = s[value + i]
    return out


@njit(**_JIT)
def keyed_count(s, order, n):
    """How many keys a table held as an order run of n places holds."""
    count = 0
    for i in range(n):
        if s[order + i] >= 0:
            count += 1
    return count
