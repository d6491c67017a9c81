"""Error messages of compiled code that show a value as the Python engine shows it."""

from __future__ import annotations


class ValueMessage(str):
    """An error message whose {0} shows a value as the Python engine does (a cell by its name, a text by its
    characters, none as None): `shown` gives the text of a value's code."""

    def __new__(cls, text: str, shown):
        made = super().__new__(cls, text)
        made.shown = shown
        return made

    def format(self, *args):
        return str.format(self, *(self.shown(a) for a in args))
