"""Compound moves: a move made of parts, each a legal move of another kind made after the ones before it."""

from __future__ import annotations

from .values import Record


class PartRecord(Record):
    """One part of a compound move: its params and lets by name; prints as the part's notation (worked out
    when printed: most parts tried while listing moves are only ever read by name)."""

    def __str__(self) -> str:
        rule, inputs, args, me = self.__dict__["_part"]
        return rule.format((*inputs, *args), me)


def _record(rule, inputs, args, me) -> PartRecord:
    record = PartRecord(**dict(zip(rule.arg_names, args)))
    record.__dict__["_part"] = rule, inputs, args, me
    return record


def compound(rule, parts) -> None:
    """Wrap `rule` so that its generator, effects and notation include its parts.

    Its args become (own params and lets..., parts) where parts is a tuple of (inputs, args) per part.
    Each part's legal moves are generated on a copy of the state with the earlier parts applied, so a
    part is legal exactly when it is made (a capture by the first part counts for the second).
    """
    rule.parts = parts
    base_generate, base_apply, base_note = rule.generate, rule.apply, rule.note

    def expand(S, me, given, base, index, done, records):
        if index == len(parts):
            yield base + (tuple(done),)
            return
        part, inputs_fn, when_fn = parts[index]
        inputs = inputs_fn(S, me, *given, *base, records)
        last = index + 1 == len(parts)
        for args in part.generate(S, me, *inputs):
            record = _record(part, inputs, args, me)
            if when_fn is not None and not when_fn(S, me, *given, *base, records, record):
                continue
            after = S
            if not last:
                after = S.clone()
                part.apply(after, me, *inputs, *args)
            yield from expand(after, me, given, base, index + 1, done + [(inputs, args)], records + [record])

    def generate(S, me, *given):
        for base in base_generate(S, me, *given):
            yield from expand(S, me, given, base, 0, [], [])

    def apply(S, me, *args):
        *base, done = args
        for (part, _, _), (inputs, part_args) in zip(parts, done):
            part.apply(S, me, *inputs, *part_args)
        base_apply(S, me, *base)

    def note(me, *args):
        *base, done = args
        records = [_record(part, inputs, part_args, me) for (part, _, _), (inputs, part_args) in zip(parts, done)]
        return base_note(me, *base, records)

    rule.generate, rule.apply, rule.note = generate, apply, note
