"""Compound moves: a move made of parts, each a legal move of another kind made after the ones before it; a fixed
list of parts, or one part move repeated while it can be (see `repeated`)."""

from __future__ import annotations

from dataclasses import dataclass

from ..lang.builtins import RuleValueError, value_key
from .values import Record


class PartRecord(Record):
    """One part of a compound move: its inputs, params and lets by name; prints as the part's notation (worked out
    when printed: most parts tried while listing moves are only ever read by name)."""

    def __str__(self) -> str:
        rule, inputs, args, me = self.__dict__["_part"]
        return rule.format((*inputs, *args), me)


def _record(rule, inputs, args, me) -> PartRecord:
    record = PartRecord(**dict(zip(rule.inputs, inputs)), **dict(zip(rule.arg_names, args)))
    record.__dict__["_part"] = rule, inputs, args, me
    return record


def _wrap(rule, expand) -> None:
    """Make `rule` list its moves by `expand(S, me, given, base)` (the args of each part after its own params
    and lets), apply its parts before its own effects, and print its parts in its notation. Its args become
    (own params and lets..., parts) where parts is a tuple of (inputs, args) per part, the rule of every part
    being `rule.part_rule(k)`."""
    base_generate, base_apply, base_note = rule.generate, rule.apply, rule.note
    one_per_position = rule.one_per_position

    def generate(S, me, *given):
        for base in base_generate(S, me, *given):
            if not one_per_position:
                for done in expand(S, me, given, base):
                    yield base + (done,)
                continue
            seen = set()  # the positions the moves listed so far reach: the first to reach one stands for it
            for done in expand(S, me, given, base):
                after = S.clone()
                apply(after, me, *base, done)
                key = after.snapshot()
                if key not in seen:
                    seen.add(key)
                    yield base + (done,)

    def apply(S, me, *args):
        *base, done = args
        for k, (inputs, part_args) in enumerate(done):
            rule.part_rule(k).apply(S, me, *inputs, *part_args)
        base_apply(S, me, *base)

    def note(me, *args):
        *base, done = args
        records = [_record(rule.part_rule(k), inputs, part_args, me) for k, (inputs, part_args) in enumerate(done)]
        return base_note(me, *base, records)

    rule.generate, rule.apply, rule.note = generate, apply, note


def compound(rule, parts) -> None:
    """Wrap `rule` so that its generator, effects and notation include its fixed list of parts.

    Each part's legal moves are generated on a copy of the state with the earlier parts applied, so a
    part is legal exactly when it is made (a capture by the first part counts for the second).
    """
    rule.parts = parts
    rule.part_rule = lambda k: parts[k][0]

    def expand(S, me, given, base, index=0, done=(), records=()):
        if index == len(parts):
            yield tuple(done)
            return
        part, inputs_fn, when_fn = parts[index]
        inputs = inputs_fn(S, me, *given, *base, list(records))
        last = index + 1 == len(parts)
        for args in part.generate(S, me, *inputs):
            record = _record(part, inputs, args, me)
            if when_fn is not None and not when_fn(S, me, *given, *base, list(records), record):
                continue
            after = S
            if not last:
                after = S.clone()
                part.apply(after, me, *inputs, *args)
            yield from expand(after, me, given, base, index + 1, done + ((inputs, args),), records + (record,))

    _wrap(rule, expand)


def _number(value):
    """A value of `prefer:`, which must be a number (so that any two compare)."""
    if isinstance(value, (int, float)):
        return value
    raise RuleValueError(f"prefer: gives a number, the higher preferred, not {value!r}")


@dataclass
class Repeat:
    """A move of one part move made again and again (see `repeated`), compiled. Each function takes
    (S, me, *inputs and args of the move, parts) — `using`'s item after `parts` where it is given."""

    part: object  # the MoveRule of every part
    inputs: object  # (..., parts, item) -> the part's inputs
    when: object = None  # (..., parts, item, part) -> whether the part may be made
    chain: object = None  # (..., parts, item, part) -> whether it may follow parts[-1] (asked from the second on)
    using: object = None  # (...) -> the list each part takes one item of, each item once
    prefer: object = None  # (..., parts) -> a value: only the sequences with the highest are moves
    most: int | None = None  # the declared bound on parts (`max:`)
    least: int = 1  # the fewest parts of a move (`min:`)
    stop: str = "stuck"  # any | stuck | longest


def repeated(rule, repeat: Repeat, limit: int) -> None:
    """Wrap `rule` so that its moves are sequences of parts, each a legal move of `repeat.part` made on the state
    the parts before it leave, while one can be made, to at most `repeat.most` parts (with `using`, at most one
    per item of its list; never more than `limit`).

    `stop` says which sequences are moves: `any` (every one of at least `least` parts), `stuck` (those no part can
    follow), `longest` (of those, the ones with the most parts in the position: the maximal-use rule). `prefer`
    then keeps the sequences of the highest value. They are listed depth first, in the order the part move
    lists its moves (and `using`'s items in order, an item equal to one tried before at the same place skipped:
    two equal dice make the same moves).
    """
    part = repeat.part
    rule.parts = [(part, repeat.inputs, repeat.when)]
    rule.part_rule = lambda k: part
    rule.repeat = repeat

    def expand(S, me, given, base):
        pool = list(repeat.using(S, me, *given, *base)) if repeat.using is not None else None
        most = min(limit, repeat.most if repeat.most is not None else limit, len(pool) if pool is not None else limit)
        found = []  # (done, records) of each sequence that is a move, in the order listed

        def grow(S, done, records, left):
            depth, extended = len(done), False
            if repeat.stop == "any" and depth >= repeat.least:
                found.append((done, records))
            if depth < most:
                tried = []
                for i in (range(len(left)) if left is not None else (None,)):
                    item = left[i] if i is not None else None
                    if i is not None:
                        key = value_key(item)
                        if key in tried:
                            continue
                        tried.append(key)
                    inputs = repeat.inputs(S, me, *given, *base, list(records), item)
                    for args in part.generate(S, me, *inputs):
                        record = _record(part, inputs, args, me)
                        if repeat.when is not None and not repeat.when(S, me, *given, *base, list(records), item,
                                                                         record):
                            continue
                        if depth and repeat.chain is not None and \
                                not repeat.chain(S, me, *given, *base, list(records), item, record):
                            continue
                        extended = True
                        after = S.clone()
                        part.apply(after, me, *inputs, *args)
                        grow(after, done + ((inputs, args),), records + (record,),
                             left[:i] + left[i + 1:] if i is not None else None)
            if repeat.stop != "any" and not extended and depth >= repeat.least:
                found.append((done, records))

        grow(S, (), (), pool)
        if repeat.stop == "longest" and found:
            longest = max(len(done) for done, _ in found)
            found = [f for f in found if len(f[0]) == longest]
        if repeat.prefer is not None and found:
            values = [_number(repeat.prefer(S, me, *given, *base, list(records))) for _, records in found]
            best = max(values)
            found = [f for f, value in zip(found, values) if value == best]
        for done, _ in found:
            yield done

    _wrap(rule, expand)
