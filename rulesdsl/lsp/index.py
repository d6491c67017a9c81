"""The names of a loaded rule file for an editor: what each is, where it is defined, what is in scope at a place."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..errors import Location
from ..lang.declare import Builtin
from ..lang.parser import keywords, tokens
from ..model.builtins import all_builtins
from ..schema import rule_schema
from ..source import Document

EXCERPT = 300  # characters of a definition shown on hover
_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)  # a value as text, for excerpts
# The sections whose keys are names read in expressions or in other rules, and the kind of name each declares.
SECTIONS = {"functions": "function", "procedures": "procedure", "let": "let", "data": "data", "vars": "variable",
            "zones": "zone", "moves": "move"}
STEPS = ("flow", "steps")
_CODE = ("expression", "effect", "effects")  # the schema's definitions whose strings are code


@dataclass(frozen=True)
class Symbol:
    """A name a rule file declares (or a built-in): its kind, where it is defined, how it reads."""

    name: str
    kind: str  # function, procedure, let, data, variable, zone, move, step, option, parameter, local, loop variable,
    # built-in, built-in effect, keyword
    location: Location | None  # where its name is written (None: a built-in)
    signature: str  # e.g. "three_in_a_row(p)"
    definition: str = ""  # the expression, or an excerpt of the YAML that defines it
    description: str = ""

    def hover(self) -> str:
        """Markdown for an editor's hover."""
        where = f" ({Path(self.location.file).name}:{self.location.line})" if self.location and self.location.line \
            else ""
        parts = [_fenced(self.signature, ""), f"*{self.kind}*{where}"]
        if self.description:
            parts.append(self.description)
        if self.definition:
            parts.append(_fenced(self.definition, "yaml"))
        return "\n\n".join(parts)


@dataclass(frozen=True)
class Word:
    """A name written in a string value of the file: the string's path, and the name's offsets in it."""

    path: tuple
    name: str
    start: int
    end: int


def builtin_symbol(b: Builtin) -> Symbol:
    """The symbol of a built-in function, from its declaration."""
    kind = "built-in effect" if b.effect else "built-in"
    return Symbol(b.name, kind, None, b.signature, description=f"{b.doc} ({b.category})")


@lru_cache(maxsize=1)
def builtins() -> dict[str, Symbol]:
    """Every built-in function by name."""
    return {b.name: builtin_symbol(b) for b in all_builtins()}


def _excerpt(value) -> str:
    """A value as YAML-ish text, cut to EXCERPT characters. Only the start of it is ever written out: through YAML
    aliases, a small file may hold a long string thousands of times over."""
    if isinstance(value, str):
        text = value
    else:
        text = ""
        for chunk in _ENCODER.iterencode(value):  # a piece at a time (the encoder in C would write it all)
            text += chunk
            if len(text) > EXCERPT:
                break
    return text if len(text) <= EXCERPT else text[: EXCERPT - 3] + "..."


def _described(spec, key: str = "description") -> str:
    """A rule's description (or an option's help) as markdown that shows the text as written."""
    if not isinstance(spec, dict):
        return ""
    text = spec.get(key, "")
    return _plain(text if isinstance(text, str) else _excerpt(text) if text is not None else "")


def _plain(text: str) -> str:
    """Text from a rule file as markdown that shows it as it is: a shared file cannot add links or
    formatting to an editor's hover."""
    return "".join("\\" + ch if ch in "\\`*_{}[]()<>#+-.!|~" else ch for ch in text)


def _fenced(text: str, language: str) -> str:
    """A markdown code block holding `text`, its fence longer than any run of backticks in it."""
    longest, run = 0, 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


# how the IR's kinds of name read in an editor (see ir/nodes.py Ref.kind)
_IR_KINDS = {"param": "parameter", "arg": "parameter", "input": "parameter", "let": "local", "temp": "local",
             "loop": "loop variable", "local": "local", "var": "variable", "zone": "zone", "data": "data",
             "global": "let", "function": "function", "procedure": "procedure", "region": "region",
             "direction": "direction", "cell": "cell", "option": "option", "engine": "built-in name",
             "builtin": "built-in"}


class FileIndex:
    """The names a loaded rule file declares (an overlay's base file's too), with their definitions; and, when
    the file compiled, every name its rules write as the typed IR resolved it (`names`: ir/occurrences.py
    Occurrences), which hover and go-to-definition read first."""

    def __init__(self, doc: Document, names: list | None = None):
        self.doc = doc
        self.names: dict[tuple, list] = {}
        for found in names or ():
            self.names.setdefault(found.path, []).append(found)
        data = doc.data if isinstance(doc.data, dict) else {}
        self.symbols: dict[str, Symbol] = {}
        for section, kind in SECTIONS.items():
            for name, spec in _mapping(data.get(section)).items():
                self.symbols[str(name)] = self._symbol((section, name), kind, spec)
        for name, spec in _mapping(_mapping(data.get(STEPS[0])).get(STEPS[1])).items():
            self.symbols[str(name)] = self._symbol(STEPS + (name,), "step", spec)
        self.options = {str(name): self._option(name, spec) for name, spec in _mapping(data.get("options")).items()}

    def _option(self, name, spec) -> Symbol:
        """An option, read in expressions as option.NAME."""
        info = self.doc.info(("options", name))
        shown = {k: v for k, v in spec.items() if k != "help"} if isinstance(spec, dict) else spec
        return Symbol(str(name), "option", info.key_loc or info.loc if info else None, f"option.{name}",
                      _excerpt(shown) if shown is not None else "", _described(spec, "help"))

    def _symbol(self, path: tuple, kind: str, spec) -> Symbol:
        name = str(path[-1])
        info = self.doc.info(path)
        location = info.key_loc or info.loc if info is not None else None
        params = spec.get("params") if isinstance(spec, dict) else None
        signature = f"{name}({', '.join(map(str, params))})" if isinstance(params, (list, dict)) and params \
            else f"{name}()" if kind in ("function", "procedure") else name
        body = spec
        if isinstance(spec, dict):
            key = {"function": "value", "procedure": "do"}.get(kind)
            body = spec.get(key) if key else {k: v for k, v in spec.items() if k != "description"}
        return Symbol(name, kind, location, signature, _excerpt(body) if body is not None else "", _described(spec))

    # -- what is at a place -----------------------------------------------------------------------
    def word_at(self, file: str, line: int, col: int) -> Word | None:
        """The name written in a string value at 1-based `line`:`col` (the cursor on it or just after it)."""
        found = self.doc.string_at(file, line, col)
        if found is None:
            return None
        path, offset = found
        value = self.doc.value(path)
        for token in tokens(value):
            if token.type == "NAME" and token.start_pos <= offset <= token.end_pos:
                return Word(path, str(token), token.start_pos, token.end_pos)
        return None

    def key_at(self, file: str, line: int, col: int) -> tuple | None:
        """The path of the mapping key written at 1-based `line`:`col`, or None."""
        for path, info in self.doc.nodes.items():
            loc = info.key_loc
            if loc is not None and loc.file == file and loc.line == line and \
                    loc.col <= col <= loc.col + len(str(path[-1])):
                return path
        return None

    def resolve(self, name: str, path: tuple) -> Symbol | None:
        """What `name` means in the string value at `path`: a local name, the file's, or a built-in."""
        local = {s.name: s for s in self.locals_at(path)}
        return local.get(name) or self.symbols.get(name) or builtins().get(name)

    def resolved(self, word: Word) -> Symbol | None:
        """What the IR resolved the name `word` to, as a symbol (None: the file did not compile, or the IR has
        no name there)."""
        for found in self.names.get(word.path, ()):
            if found.name == word.name and found.start <= word.start < max(found.end, found.start + 1):
                return self._resolved_symbol(found)
        return None

    def _resolved_symbol(self, found) -> Symbol:
        kind = _IR_KINDS.get(found.kind, found.kind)
        if found.kind == "builtin" or (found.kind == "engine" and found.decl is None and found.decl_at is None):
            known = builtins().get(found.name)
            if known is not None:
                return known
            return Symbol(found.name, kind, None, f"{found.name}: {found.type}")
        if found.decl is not None:
            location = self.doc.locate(found.decl, key=True)[0]
            declared = self.symbols.get(found.name)
            if declared is not None and declared.location == location:  # the file's own: its full symbol
                return Symbol(declared.name, declared.kind, declared.location, declared.signature,
                              declared.definition, " ".join(filter(None, [declared.description,
                                                                          _plain(f"({found.type})")])))
            value = self.doc.value(found.decl)
            return Symbol(found.name, kind, location, f"{found.name}: {found.type}",
                          _excerpt(value) if value is not None else "", _plain(f"{kind} of {'.'.join(map(str, found.decl[:2]))}"))
        if found.decl_at is None:  # a name the engine gives the rule (the cell an attribute is worked out for)
            return Symbol(found.name, kind, None, f"{found.name}: {found.type}")
        path, start, _ = found.decl_at
        location = self.doc.locate(path, start)[0]
        return Symbol(found.name, kind, location, f"{found.name}: {found.type}", "",
                      _plain(f"{kind} of {'.'.join(map(str, path[:2]))}"))

    def symbol_at(self, file: str, line: int, col: int) -> Symbol | None:
        """The symbol named at 1-based `line`:`col`: in an expression, or the key that declares it."""
        word = self.word_at(file, line, col)
        if word is not None:
            resolved = self.resolved(word)
            if resolved is not None:
                return resolved
            owner = _owner(self.doc.value(word.path)[:word.start])
            if owner is not None:  # a field (c.owner), not a name; option.NAME names an option
                return self.options.get(word.name) if owner == "option" else None
            return self.resolve(word.name, word.path)
        key = self.key_at(file, line, col)
        declares = key is not None and (len(key) == 2 and key[0] in SECTIONS or len(key) == 3 and key[:2] == STEPS)
        return self.symbols.get(str(key[-1])) if declares else None

    def key_description(self, file: str, line: int, col: int) -> str | None:
        """The schema's description of the YAML key at 1-based `line`:`col`, or None."""
        key = self.key_at(file, line, col)
        return None if key is None else schema_description(key)

    # -- scopes -----------------------------------------------------------------------------------
    def locals_at(self, path: tuple) -> list[Symbol]:
        """The names in scope in the string value at `path` besides the file's: the parameters and lets of
        the function, procedure, move or end rule it is in, the variables of enclosing 'for' blocks, and
        those of the comprehensions in the string itself."""
        found: list[Symbol] = []
        if len(path) >= 2 and path[0] in ("functions", "procedures", "moves", "end"):
            owner = self.doc.value(path[:2])
            if isinstance(owner, dict):
                params = owner.get("params")
                names = params if isinstance(params, list) else list(params) if isinstance(params, dict) else []
                for i, name in enumerate(names):
                    where = path[:2] + ("params", name if isinstance(params, dict) else i)
                    found.append(self._local(str(name), "parameter", where, path[:2]))
                for name, value in _mapping(owner.get("let")).items():
                    found.append(self._local(str(name), "local", path[:2] + ("let", name), path[:2], value))
        for depth in range(1, len(path)):  # effect blocks: {for: "c in cells", do: [...]}
            block = self.doc.value(path[:depth])
            if isinstance(block, dict) and isinstance(block.get("for"), str) and path[depth:depth + 1] == ("do",):
                for token in _loop_targets(block["for"]):
                    found.append(self._local(str(token), "loop variable", path[:depth] + ("for",), path[:depth],
                                             block["for"], token.start_pos))
        value = self.doc.value(path)
        if isinstance(value, str):
            for target in _comprehension_targets(value):
                found.append(self._local(str(target), "loop variable", path, path, value, target.start_pos))
        return found

    def _resolved_locals(self, path: tuple) -> list[Symbol]:
        """The names of the rule `path` is in, as the IR resolved them where the rule reads them (a chance
        step's params, the names the engine gives a rule...): each once, with its type."""
        rule = path[:3] if path[:1] == ("flow",) else path[:2]
        seen: dict[str, Symbol] = {}
        for at, found in self.names.items():
            if at[:len(rule)] != rule:
                continue
            for name in found:
                if name.kind in ("param", "arg", "input", "let", "temp", "local") and name.name not in seen:
                    seen[name.name] = self._resolved_symbol(name)
        return list(seen.values())

    def _local(self, name: str, kind: str, where: tuple, owner: tuple, value=None, offset=None) -> Symbol:
        loc, _ = self.doc.locate(where, offset, key=offset is None)  # a mapping's key, else the value
        of = _plain(f"{kind} of {'.'.join(map(str, owner))}")
        return Symbol(name, kind, loc, name, _excerpt(value) if value is not None else "", of)

    # -- completion -------------------------------------------------------------------------------
    def completions(self, path: tuple | None, before: str = "") -> list[Symbol]:
        """Every name that may be written in the string value at `path` (None: anywhere) after the text
        `before`: its locals, the file's names, the built-ins and the keywords; after 'option.', the
        options; after another '.', nothing (fields depend on the value)."""
        typed = len(before) - len(before.rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"))
        owner = _owner(before[: len(before) - typed])
        if owner is not None:
            return list(self.options.values()) if owner == "option" else []
        seen: dict[str, Symbol] = {}
        for symbol in [*(self._resolved_locals(path) if path else []), *(self.locals_at(path) if path else []),
                       *self.symbols.values(), *builtins().values()]:
            seen.setdefault(symbol.name, symbol)
        return list(seen.values()) + [Symbol(word, "keyword", None, word) for word in keywords()]


def _owner(before: str) -> str | None:
    """When the text `before` a name ends with 'x.', the name is a field of x: x's text (a name, or '' for
    anything else, such as 'at(c).'); else None."""
    text = before.rstrip()
    if not text.endswith(".") or text.endswith(".."):
        return None
    head = text[:-1].rstrip()
    last = [t for t in tokens(head) if t.end_pos == len(head)]
    return str(last[0]) if last and last[0].type == "NAME" else ""


def _mapping(value) -> dict:
    return value if isinstance(value, dict) else {}


def _loop_targets(text: str) -> list:
    """The names before 'in' in a 'for' block's "a, b in pairs"."""
    found = []
    for token in tokens(text):
        if token.type == "IN":
            return found
        if token.type == "NAME":
            found.append(token)
    return []


def _comprehension_targets(text: str) -> list:
    """The names a comprehension binds ('for' NAME, NAME 'in') in an expression."""
    found, binding = [], False
    for token in tokens(text):
        if token.type == "FOR":
            binding = True
        elif token.type == "IN":
            binding = False
        elif binding and token.type == "NAME":
            found.append(token)
    return found


# -- the schema --------------------------------------------------------------------------------------
def _expand(node: dict, ref: str | None) -> list[tuple[dict, str | None]]:
    """A schema node with every $ref, allOf, anyOf and oneOf branch inside it, each with the name of the last
    definition ($defs) reached on the way."""
    defs = rule_schema().get("$defs", {})
    found, todo = [], [(node, ref)]
    while todo:
        node, ref = todo.pop()
        if not isinstance(node, dict) or len(found) > 200:
            continue
        found.append((node, ref))
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            todo.append((defs.get(name, {}), name))
        for key in ("allOf", "anyOf", "oneOf"):
            todo.extend((branch, ref) for branch in node.get(key, ()))
    return found


def _schemas_at(path: tuple) -> list[tuple[dict, str | None]]:
    """The schema nodes that describe the value at `path`, each with the definition it is part of (reset by
    a named key: a key's own schema says whether it is code)."""
    level = _expand({"$ref": "#/$defs/rules"}, None)  # the rule file's part: an overlay's keys mean the same
    for part in path:
        following = []
        for node, ref in level:
            if isinstance(part, int):
                items = node.get("items")
                if isinstance(items, dict):
                    following += _expand(items, ref)
                continue
            child = node.get("properties", {}).get(part)
            if child is None and isinstance(node.get("additionalProperties"), dict):
                child = node["additionalProperties"]
            if child is not None:
                following += _expand(child, None)
        level = following
    return level


def is_code(path: tuple) -> bool:
    """True when the schema reads the string value at `path` as an expression or an effect (or does not say)."""
    level = _schemas_at(path)
    if not level:
        return True
    for node, ref in level:
        types = node.get("type")
        strings = types == "string" or isinstance(types, list) and "string" in types
        if ref == "expression" or ref in _CODE and strings:
            return True
    return False


def schema_description(path: tuple) -> str | None:
    """The schema's description of the value at `path` (e.g. of a key), or None."""
    return next((node["description"] for node, _ in _schemas_at(path) if node.get("description")), None)
