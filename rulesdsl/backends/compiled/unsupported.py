"""What the compiled backend does not take yet, located at the rule-file part the IR node comes from."""

from __future__ import annotations

from ...errors import Location, Problem, RulesError


class Unsupported(Exception):
    """A construct the compiled backend does not take yet: `where` (a Location, or None), `why`."""

    def __init__(self, where: Location | None, why: str):
        super().__init__(why)
        self.where, self.why = where, why

    def __str__(self) -> str:
        place = f"{self.where}: " if self.where is not None else ""
        return f"{place}{self.why}"

    def error(self) -> RulesError:
        """As a located problem, for a game loaded with backend='compiled'."""
        return RulesError([Problem(f"the compiled backend does not take this yet: {self.why}",
                                   self.where or Location("rules"),
                                   "load the game with backend='python' (or 'auto', which falls back to it)")])
