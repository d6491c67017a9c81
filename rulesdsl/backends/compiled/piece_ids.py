"""Pieces and their ids in the layout's table of piece values (ir/layout.py: each kind's ids from `first`, in the
order of its attributes' values, the last attribute changing fastest), for moves and outcomes read out of compiled
code and written into it."""

from __future__ import annotations


def piece_of(program, number: int):
    """The piece (as the Python engine holds it) of id `number`."""
    for kind in program.layout.kinds:
        if kind.first <= number < kind.first + kind.size:
            rest, given = number - kind.first, {}
            for attribute, values in reversed(kind.attributes):
                given[attribute] = values[rest % len(values)]
                rest //= len(values)
            return program.rules.kinds[kind.name].make(dict(reversed(given.items())))
    raise ValueError(f"{number} is no piece (ids 1 to {program.layout.pieces - 1})")


def piece_id(program, piece) -> int:
    """The id of `piece` (a ValueError for a piece the table does not hold)."""
    for kind in program.layout.kinds:
        if kind.name == piece.kind:
            number, declared = 0, dict(piece.base)
            for attribute, values in kind.attributes:
                value = declared.get(attribute)
                places = [i for i, v in enumerate(values) if v.__class__ is value.__class__ and v == value]
                if not places:
                    raise ValueError(f"{piece} is not in the table of pieces")
                number = number * len(values) + places[0]
            return kind.first + number
    raise ValueError(f"{piece} is not in the table of pieces")
