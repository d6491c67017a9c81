"""What each name of a rule file means where it is written: the kind of thing it names and the key declaring it."""

from __future__ import annotations

from dataclasses import dataclass

from ..lang import types as T

# the sections whose keys are names the rules read, and what each names
_SECTIONS = {"data": "data", "let": "global", "vars": "var", "zones": "zone", "functions": "function",
             "procedures": "procedure"}
_BOARD_SECTIONS = {"regions": "region", "directions": "direction"}


@dataclass(frozen=True)
class Name:
    """What a name means where an expression is written: the kind of thing it names and its declaration."""

    kind: str
    decl: tuple | None = None
    decl_at: tuple | None = None
    const: bool = False


def spec_at(data, path: tuple):
    """The rule file's value at `path` (None where there is none)."""
    for key in path:
        if isinstance(data, dict):
            data = data.get(key)
        elif isinstance(data, list) and isinstance(key, int) and 0 <= key < len(data):
            data = data[key]
        else:
            return None
    return data


class Naming:
    """The names of one rule file (`data`) by where they are read: the file's sections, the rule around a path
    (its params, lets, inputs, `for:` loops and the names its effects assign), and the engine's names, which a
    compiler scope says (see meaning())."""

    def __init__(self, data: dict):
        self.data = data
        self.game = self._game_names()
        self.loops: dict = {}  # path of a `for:` effect -> the names its head binds
        self.temps: dict = {}  # path of a rule -> the names its effects assign, in the order first assigned

    def _game_names(self) -> dict:
        names = {}
        for section, kind in _SECTIONS.items():
            for name in (self.data.get(section) or {}) if isinstance(self.data.get(section), dict) else ():
                names[name] = Name(kind, (section, name), const=kind in ("data", "global"))
        board = self.data.get("board") if isinstance(self.data.get("board"), dict) else {}
        for section, kind in _BOARD_SECTIONS.items():
            for name in board.get(section) or {} if isinstance(board.get(section), dict) else ():
                names.setdefault(name, Name(kind, ("board", section, name), const=True))
        return names

    def around(self, path: tuple) -> tuple[dict, dict]:
        """(name -> Name for every name declared where the string at `path` is written, the names the effects of
        its rule have assigned so far: the dict a new one is added to)."""
        local, rule = self._locals(path)
        temps = self.temps.setdefault(rule, {})
        return {**self.game, **temps, **local}, temps

    def given(self, name: str, path: tuple) -> tuple | None:
        """The key that introduces a name the engine gives the rule at `path`: a compound move's `parts`, a part's
        `part`, a step's `move` (after:) or `choices` (resolve:), a chance step's `outcome`, a `key` (of keys:),
        the cell `c` a board attribute, link or picture position is worked out for, a place's `owner`, the `viewer`
        of a `visible:`."""
        for n in range(len(path), 0, -1):
            prefix, spec = path[:n], spec_at(self.data, path[:n])
            if name == "part" and (len(prefix) >= 2 and prefix[-2] == "parts" or prefix[-1] == "repeat"):
                return prefix
            if not isinstance(spec, dict):
                continue
            for key, gives in (("parts", "parts"), ("repeat", "parts"), ("after", "move"), ("resolve", "choices"),
                               ("keys", "key"),
                               ("arrangement", "outcome"), ("draw", "outcome")):
                if name == gives and key in spec:
                    return prefix + (key,)
            if name == "viewer" and prefix[:1] in (("vars",), ("zones",)) and n == 2:
                return prefix + ("visible",)
            if name in ("c", "owner") and (prefix[:2] in (("board", "attributes"), ("board", "links")) and n == 3
                                           or prefix[:1] in (("vars",), ("zones",)) and n == 2):
                return prefix
        if name == "c" and path[:1] == ("render",):
            return path
        return None

    def _locals(self, path: tuple) -> tuple[dict, tuple]:
        """The names a rule declares around `path` (params, lets, inputs, loop variables), and the path of the
        innermost rule (whose effects' new names are shared)."""
        names, rule = {}, path[:2]
        for n in range(1, len(path) + 1):
            prefix = path[:n]
            spec = spec_at(self.data, prefix)
            if prefix in self.loops:
                names.update(self.loops[prefix])
            if not isinstance(spec, dict) or n < 2 or isinstance(path[n - 1], int):
                continue
            params = spec.get("params")
            if isinstance(params, list):
                rule = prefix
                names.update({p: Name("arg", prefix + ("params", i)) for i, p in enumerate(params) if isinstance(p, str)})
            elif isinstance(params, dict):
                rule = prefix
                names.update({p: Name("param", prefix + ("params", p)) for p in params})
            if isinstance(spec.get("inputs"), list):
                names.update({p: Name("input", prefix + ("inputs", i)) for i, p in enumerate(spec["inputs"])
                              if isinstance(p, str)})
            if isinstance(spec.get("let"), dict) and prefix != ("let",):
                names.update({p: Name("let", prefix + ("let", p)) for p in spec["let"]})
            if prefix[-1] == "repeat" and isinstance(spec.get("using"), dict):  # the item each part takes
                names.update({p: Name("input", prefix + ("using", p)) for p in spec["using"] if isinstance(p, str)})
        return names, rule


def meaning(binding, given: tuple | None = None) -> Name:
    """What a name means that neither the file's sections nor its rules declare, by its compiler binding (None: a
    name nothing declares): one of the engine's, or a local the engine gives a rule (declared by the key `given`
    that introduces it, see Naming.given) or its effects assign."""
    if binding is None or binding.kind == "unknown":
        return Name("unknown")
    if binding.kind in ("var", "zone", "option"):
        return Name(binding.kind, const=binding.kind == "option")
    if binding.is_const and binding.type == T.CELL:
        return Name("cell", const=True)
    if binding.kind == "local":
        return Name("temp") if binding.temp else Name("local", given)
    return Name("engine", const=binding.is_const)
