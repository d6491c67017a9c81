"""A state as one viewer sees it, as a JSON scene the browser draws: cells, links, pieces, zones, variables."""

from __future__ import annotations

import re

from ..engine.observer import Hidden, Observer
from ..model.values import Cell, Piece, text_of
from ..render import status, value_text
from .layout import GRID, ROWS, cell_places
from .panel import Panel

MAX_LINKS_PER_CELL = 4  # links drawn, at most, per cell (a dense board's links would hide it)
MAX_ZONE_ITEMS = 60  # pieces listed per zone place; the rest are counted
# Colour keywords a browser knows that rule files commonly use as attribute values (others need render: colours)
_KNOWN_COLOURS = frozenset("white black red blue green yellow gold orange purple pink brown grey gray silver "
                           "cyan magenta navy teal maroon olive lime violet indigo beige ivory".split())
_PALETTE = ("#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf")
_CSS_COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}|[a-zA-Z]{3,20}")


class Scene:
    """The drawing of one game's states: the cells' places, worked out once, and each state's scene."""

    def __init__(self, rules):
        self.rules = rules
        self.places, self.layout = cell_places(rules)
        self.links = _links(rules) if self.layout != GRID else []
        self.panel = Panel(rules, _colour)

    def of(self, S, viewer: int | None) -> dict:
        """The scene of state S as `viewer` (a seat; None: the table) sees it."""
        rules = self.rules
        colours = rules.render_colours
        seen = [(h, v) for h, v in Observer(rules, viewer, S.revealed, S).holders(S) if h.name not in rules.render_hide]
        on_cells = [(h, v) for h, v in seen if h.zone and h.keys and all(k.__class__ is Cell for k in h.keys)]
        cells = [{"name": c.name, "x": x, "y": y, "fill": _colour(getattr(c, "colour", None), colours)}
                 for c, (x, y) in zip(rules.board.cells, self.places)]
        pieces = []
        for c in rules.board.cells:
            stack = []
            for holder, value in on_cells:  # a stack kept per cell (a zone keyed by cells), bottom first
                place = value.get(c, [])
                stack += ([None] * place.count if isinstance(place, Hidden) else list(place))
            if S.cells[c] is not None:
                stack.append(S.cells[c])
            for level, piece in enumerate(stack):
                pieces.append(dict(_piece(piece, rules), cell=c.index, level=level))
        zones, variables = [], []
        for holder, value in seen:
            if any(holder is h for h, _ in on_cells):
                continue
            places = [{"owner": _owner(holder, owner, rules), **_place(place, holder.zone, rules)}
                      for owner, place in holder.places(value)]
            (zones if holder.zone else variables).append({"name": holder.name, "places": places})
        return {"game": rules.name, "layout": self.layout,
                "shape": "square" if self.layout in (GRID, ROWS) else "circle",
                "cells": cells, "links": self.links, "pieces": pieces, "zones": zones, "variables": variables,
                "players": [{"name": n, "colour": _colour(n, colours) or _PALETTE[p % len(_PALETTE)]}
                            for p, n in enumerate(rules.player_names)],
                "status": status(S), "viewer": viewer, "panel": self.panel.of(S, viewer, seen)}


def _links(rules) -> list[list[int]]:
    """Pairs of cells a link joins (either way), each once, in cell order; at most a few per cell."""
    pairs, per_cell = set(), {}
    for tables in rules.board.links.values():
        for table in tables.values():
            for cell, target in enumerate(table):
                if target is None or int(target) == cell:
                    continue
                pair = (min(cell, int(target)), max(cell, int(target)))
                if pair not in pairs and per_cell.get(pair[0], 0) < MAX_LINKS_PER_CELL:
                    pairs.add(pair)
                    per_cell[pair[0]] = per_cell.get(pair[0], 0) + 1
    return [list(p) for p in sorted(pairs)]


def _colour(value, colours: dict) -> str | None:
    """The colour drawn for a value: the file's `render: colours`, else the value when it names a colour."""
    if value is None or isinstance(value, bool):
        return None
    text = str(value)
    if text in colours:
        return colours[text]
    return text if text.lower() in _KNOWN_COLOURS and _CSS_COLOUR.fullmatch(text) else None


def _piece(piece, rules) -> dict:
    """A piece as drawn: its kind, the text on it (its symbol), its colour and its attributes; None: face down."""
    if piece is None:
        return {"kind": None, "text": "?", "fill": "#777", "shape": "square", "hidden": True, "attributes": {}}
    if not isinstance(piece, Piece):
        return {"kind": None, "text": text_of(piece)[:12], "fill": "#ddd", "shape": "circle", "attributes": {}}
    attributes = dict(piece.base)
    fill = _colour(attributes.get("colour"), rules.render_colours)
    owner = piece.__dict__.get("owner")
    if fill is None and isinstance(owner, int) and 0 <= owner < len(rules.player_names):
        fill = _colour(rules.player_names[owner], rules.render_colours) or _PALETTE[owner % len(_PALETTE)]
    if fill is None:
        kinds = list(rules.kinds)
        fill = _PALETTE[(kinds.index(piece.kind) if piece.kind in kinds else 0) % len(_PALETTE)]
    symbol = piece.__dict__.get("symbol")
    text = str(symbol) if symbol is not None else piece.kind[:1].upper()
    return {"kind": piece.kind, "text": text[:4], "fill": fill, "shape": rules.render_shapes.get(piece.kind, "circle"),
            "attributes": {k: text_of(v)[:40] for k, v in attributes.items()}}


def _owner(holder, owner, rules) -> str | None:
    if owner is None:
        return None
    if holder.per == "player" and isinstance(owner, int):
        return rules.player_names[owner]
    return text_of(owner)[:40]


def _place(place, zone: bool, rules) -> dict:
    """A zone's or variable's place as drawn: a zone's pieces (face down where unseen), a variable's text."""
    if isinstance(place, Hidden):
        if place.count is None:
            return {"text": "(hidden)", "hidden": True}
        return {"items": [_piece(None, rules)] * min(place.count, MAX_ZONE_ITEMS), "count": place.count,
                "hidden": True}
    if zone:
        items = list(place or [])
        return {"items": [_piece(p, rules) for p in items[:MAX_ZONE_ITEMS]], "count": len(items)}
    return {"text": value_text(place)[:200]}
