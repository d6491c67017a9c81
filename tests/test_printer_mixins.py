"""The compiled backend's printer is made of mixins, one per kind of construct: no two may define one method."""

from rulesdsl.backends.compiled.printer import Printer


def test_no_method_of_the_printer_is_defined_twice():
    # a second definition would silently shadow the first for every game (the method resolution order picks one)
    defined: dict = {}
    for cls in Printer.__mro__[:-1]:
        for name, value in vars(cls).items():
            if callable(value) and not (name.startswith("__") and name.endswith("__")):
                defined.setdefault(name, []).append(cls.__name__)
    twice = {name: owners for name, owners in defined.items() if len(owners) > 1}
    assert not twice, twice
