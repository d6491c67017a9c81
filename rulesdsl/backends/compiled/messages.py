"""Error messages of compiled code that show a value as the Python engine shows it, or that the Python engine's
own wording makes from the values raised."""

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


class MadeMessage(str):
    """An error message `make(*values)` makes from the values raised with its code (the Python engine's wording,
    from the function the Python engine words it with)."""

    def __new__(cls, make):
        made = super().__new__(cls, "")
        made.make = make
        return made

    def format(self, *args):
        return self.make(*args)
