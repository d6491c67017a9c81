"""Compiling the drawing hints of `render:`: where each cell is drawn (`at`), the colours of values and the
shapes of pieces."""

from __future__ import annotations

from .. import budget
from ..lang import types as T
from ..lang.compiler import typed_local
from ..limits import VALUE_SECONDS
from .compile_support import _FAIL, _describe
from .values import text_of

_COORDINATE_LIMIT = 1e6  # beyond this a drawing is no use (and a scene's numbers stay small)


class RenderCompiler:
    """Part of ModelCompiler: the picture hints that drawing programs (the web playground) use."""

    def _render_at(self, spec: dict) -> None:
        """`at`: an expression of the cell `c` giving its [x, y] on the picture (y upward, as grid rows)."""
        text = spec.get("at")
        self.rules.render_at = None
        if text is None:
            return
        path = ("render", "at")
        code = self.expr(path, text, self.root.child(c=typed_local("c", T.CELL)))
        if code is _FAIL:
            return
        places = self._points(path, self.lambda_("S, me, L_c", code))
        if places is not None:
            self.rules.render_at = places

    def _points(self, path, fn) -> tuple | None:
        """Each cell's point by `at` (fn), checked; None when one fails (reported). One budget for them all."""
        places = []
        for c in self.rules.board.cells:
            try:
                point = fn(None, None, c)
            except Exception as exc:  # noqa: BLE001 - a rule file mistake, reported at its location
                limited = isinstance(exc, budget.TimeBudgetExceeded)
                self.problem(path, f"cannot compute where cell {c} is drawn: {_describe(exc)}",
                             "'at' is worked out once for every cell: keep it quick" if limited else None,
                             code="limit_exceeded" if limited else "evaluation_failed")
                return None
            if not (isinstance(point, (list, tuple)) and len(point) == 2
                    and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                            and abs(v) <= _COORDINATE_LIMIT for v in point)):
                shown = "[" + ", ".join(map(text_of, point)) + "]" if isinstance(point, (list, tuple)) else text_of(point)
                self.problem(path, f"cell {c} is drawn at {shown[:60]}, which is no point",
                             f"'at' gives each cell c a pair of numbers [x, y] (at most {_COORDINATE_LIMIT:g} "
                             "from 0), e.g. [c.x, c.y]", code="bad_value")
                return None
            places.append((float(point[0]), float(point[1])))
        first_at: dict = {}
        for c, point in zip(self.rules.board.cells, places):
            other = first_at.setdefault(point, c)
            if other is not c:
                self.problem(path, f"cells {other} and {c} are both drawn at [{point[0]:g}, {point[1]:g}]",
                             "give every cell its own point", code="bad_value")
                return None
        return tuple(places)

    def _render_colours(self, spec: dict) -> None:
        """`colours`: the colour drawn for a value (of a piece's or a cell's `colour`, or a player's name); the
        schema has checked that each is a colour word or #rrggbb, nothing a browser could read as markup."""
        self.rules.render_colours = {str(k): str(v) for k, v in (spec.get("colours") or {}).items()}

    def _render_shapes(self, spec: dict) -> None:
        """`shapes`: the shape drawn for each kind of piece (the schema has checked the shape names)."""
        shapes = spec.get("shapes") or {}
        for kind in shapes:
            if kind not in self.rules.kinds:
                self.unknown(("render", "shapes", kind), f"no kind of piece named '{kind}'", kind, self.rules.kinds)
        self.rules.render_shapes = {str(k): str(v) for k, v in shapes.items() if k in self.rules.kinds}


budget.guard(RenderCompiler._points, VALUE_SECONDS, "working out where the cells are drawn")
