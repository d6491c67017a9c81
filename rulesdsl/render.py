"""Plain-text pictures of a state: grid boards drawn as grids, other boards listed, then zones and variables."""

from __future__ import annotations

from .engine.observer import Hidden, Observer
from .engine.serialize import encode
from .engine.nodes import CHANCE, SIMULTANEOUS, TERMINAL
from .model.values import Cell
from .terminal import safe_text


def _stack_text(pieces: list) -> str:
    """A stack of pieces as a cell shows it: bottom to top when short (`RB`), else its top and height (`R*7`)."""
    if len(pieces) <= 3:
        return "".join(map(str, pieces))
    return f"{pieces[-1]}*{len(pieces)}"


def _cell_texts(S, on_cells: list) -> list[str]:
    """What each cell shows: its piece, then the place each zone and variable kept per cell has there (a stack, a
    number), joined by '/'; '.' when it shows nothing. An unseen stack shows as '?' pieces, an unseen value as '?'."""
    texts = []
    for c in S.rules.board.cells:
        piece = S.cells[c]
        parts = [] if piece is None else [str(piece)]
        for holder, value in on_cells:
            place = value.get(c, None)
            if isinstance(place, Hidden) and place.count is None:
                parts.append("?")
            elif holder.zone:
                if isinstance(place, Hidden):  # a stack of unseen pieces: its height only
                    place = ["?"] * place.count
                if place:
                    parts.append(_stack_text(place))
            elif place is not None:
                parts.append(value_text(place))
        texts.append("/".join(parts) or ".")
    return texts


def _grid(S, texts: list) -> list[str] | None:
    cells = S.rules.board.cells
    coords = {(c.x, c.y): c for c in cells if hasattr(c, "x") and hasattr(c, "y")}
    if not coords or len(coords) != len(cells):
        return None
    xs = sorted({x for x, _ in coords})
    ys = sorted({y for _, y in coords}, reverse=True)
    col_label = {c.x: getattr(c, "col", str(c.x)) for c in cells}
    row_label = {c.y: getattr(c, "row", str(c.y)) for c in cells}
    width = max(1, max(len(texts[c]) for c in cells))
    label_w = max(len(str(v)) for v in row_label.values())
    lines = []
    for y in ys:
        row = [(texts[coords[(x, y)]] if (x, y) in coords else " ").rjust(width) for x in xs]
        lines.append(f"{str(row_label[y]).rjust(label_w)}  " + " ".join(row))
    lines.append(" " * (label_w + 2) + " ".join(str(col_label[x]).rjust(width) for x in xs))
    return lines


def value_text(value) -> str:
    if isinstance(value, list):
        if len(value) > 8 and len(set(map(str, value))) < len(value):  # a heap of like pieces: count them
            counts = {}
            for v in value:
                counts[value_text(v)] = counts.get(value_text(v), 0) + 1
            return "[" + ", ".join(f"{n} {text}" for text, n in counts.items()) + "]"
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {value_text(v)}" for k, v in value.items()) + "}"
    return "none" if value is None else str(value)


def render_state(S, viewer: int | None = None) -> str:
    """The state as `viewer` sees it (see Observer; None: the table): an unseen zone or variable place shows as
    `(n hidden)` for a list, `(hidden)` otherwise. Control characters of the file's text are escaped (see
    terminal.safe_text): the picture is for a terminal."""
    rules = S.rules
    names = rules.player_names
    seen = [(holder, value) for holder, value in Observer(rules, viewer, S.revealed, S).holders(S)
            if holder.name not in rules.render_hide]
    # zones and variables kept per cell (keys: cells, or a region) are drawn in their cells
    on_cells = [(holder, value) for holder, value in seen
                if holder.keys and all(key.__class__ is Cell for key in holder.keys)]
    texts = _cell_texts(S, on_cells)
    drawn = set(rules.board.cells)
    lines = _grid(S, texts) if rules.board.cells and not rules.render_rows else []
    if rules.render_rows:
        drawn = {c for _, cells in rules.render_rows for c in cells}
        width = max(len(label) for label, _ in rules.render_rows)
        cell_width = max(len(texts[c]) for _, cells in rules.render_rows for c in cells)
        for label, cells in rules.render_rows:
            shown = " ".join(texts[c].ljust(cell_width) for c in cells)
            lines.append(f"{label:<{width}}  {shown}".rstrip())
    elif lines is None:
        occupied = [f"{c.name}:{texts[c]}" for c in rules.board.cells if texts[c] != "."]
        lines = ["cells: " + (" ".join(occupied) if occupied else "(empty)")]
    for holder, value in seen:
        if any(holder is drawn_holder for drawn_holder, _ in on_cells) and drawn.issuperset(holder.keys):
            continue  # drawn in its cells above
        if holder.whole:
            lines.append(f"{holder.name}: {value_text(value)}")
        else:  # places named by seat or by key
            parts = ", ".join(f"{names[owner] if holder.per else owner} {value_text(place)}"
                              for owner, place in holder.places(value))
            lines.append(f"{holder.name}: {parts}")
    lines.append(status(S))
    return safe_text("\n".join(lines))


def status(S) -> str:
    """Whose turn it is, or how the game ended: the last line of the terminal's picture and the playground's
    status line."""
    names = S.rules.player_names
    who = S.current_player()
    if who == TERMINAL:
        if S.capped:
            return f"game stopped at the turn cap ({S.turn} turns): a draw"
        text = "winner: " + ", ".join(names[p] for p in S.winners) if S.winners else "the game is a draw"
        scores = S.scores()
        if any(s is not None for s in scores):
            text += "  (scores: " + ", ".join(f"{names[p]} {encode(s)}" for p, s in enumerate(scores)) + ")"
        return text
    if who == CHANCE:
        return f"chance: {S.step}"
    if who == SIMULTANEOUS:
        return f"{S.step}: waiting for " + ", ".join(names[p] for p in S.acting_players())
    return f"turn {S.turn + 1}: {names[who]} to play ({S.step})"
