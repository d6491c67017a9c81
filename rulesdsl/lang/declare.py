"""Built-ins declared once: a Python function whose signature and docstring give its arity, keywords and usage."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, replace
from types import MethodType
from typing import Callable

from .types import parse_type

# Parameters the engine fills in, never written in a rule: the game a built-in is bound to (once per compiled
# game) and the running state (passed by the compiled code). They come first, in this order.
GAME, STATE = "g", "S"
_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
_NAMED = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
# the order of the sections of the reference; a category not listed here follows, alphabetically
CATEGORIES = ("numbers", "strings", "collections", "board", "pieces", "players", "flow", "effects")


@dataclass
class Builtin:
    """A function callable from expressions or effects."""

    name: str
    fn: Callable
    min_args: int
    max_args: int | None  # None: any number
    signature: str
    doc: str
    category: str = "values"
    state: bool = False  # fn takes the running state as its first argument
    effect: bool = False  # changes the state: allowed only in effects
    aggregate: bool = False  # accepts a comprehension: f(x for x in xs if ...)
    keywords: tuple = ()  # names that may be given as name=value; "*": any name
    fold: bool = False  # pure: with constant arguments it is evaluated once, at compile time
    # ({position: value} of the constant args, keyword names in call order, number of positional args) -> (fn,
    # positions it uses): fn takes the state (if any), the other args, then the keyword values in that order,
    # and does the work that depends on the constants once, at compile time; None: the general call
    specialise: Callable | None = None
    # Python template for a call whose one argument is a generator comprehension ({0}: its text, without
    # brackets), e.g. "len([{0}])" for count: no generator handed to a Python-level built-in
    over_comprehension: str | None = None
    inline: str | None = None  # Python template, e.g. "_cells[{0}]" (a local bound to S.cells)
    # the loop a call over a generator comprehension compiles to, in a function of its own: "any" (true at the
    # first true item), "all" (false at the first false item), "first" (the first item) or "take_while" (the items
    # until a condition first fails, where the loop stops); None: no loop
    loop: str | None = None
    # what it reads of the position besides its arguments, if it takes the state: "cells", "left" (who has
    # left the game), or None for anything (see model/reads.py: a value is kept only while what it reads is
    # unchanged)
    reads: str | None = None
    params: tuple = ()  # the names of the positional parameters, in order
    # what every item of the list it returns is one of, whatever the position: "cells" (of the board) or
    # "players"; None: not declared (integer actions bound a param's domain by it, see model/bounds.py)
    yields: str | None = None
    game: bool = False  # fn (and specialise) still take the game first: see bound()
    # the static types of its positional parameters (None: any value), and of what it returns: a Type, or
    # an int i for a list of the items of argument i ("items(xs)"); None: not declared
    arg_types: tuple = ()
    returns: object = None
    length: str | None = None  # the parameter whose value is the length of the list it returns ("; len(n)")
    # the parameter no longer than each list in the list it returns ("; item_len(xs)": choices of its items)
    item_length: str | None = None
    # whether a compiled backend takes it (ir/subset.py); when not, `why_not` says why (it builds text, or a list
    # no length bounds), for `compile --check` to tell
    compiled: bool = True
    why_not: str = ""


# loops whose comprehension's condition does more than skip an item: their built-in takes only a comprehension
CONDITIONED_LOOPS = frozenset({"take_while"})


def builtin(category: str, *, effect: bool = False, aggregate: str | None = None, fold: bool = False,
            specialise: Callable | None = None, over_comprehension: str | None = None, inline: str | None = None,
            shown: dict | None = None, reads: str | None = None, loop: str | None = None, yields: str | None = None,
            compiled: bool = True, why_not: str = ""):
    """Declare the decorated function a built-in (see declared()). Its name without a trailing '_' is the
    built-in's, and so are its parameters' (from_ is `from`); the first paragraph of its docstring is the
    doc text. `aggregate`: the comprehension shown in its usage (e.g. "f(x) for x in xs"), which it accepts;
    `shown`: the text of a default that is not a value of the language (e.g. {"within": "all cells"});
    `reads`: what a built-in taking the state reads of it besides its arguments ("cells", "left"; None: anything);
    `loop`: how a call over a generator comprehension runs as a plain loop (see Builtin.loop); `yields`: what the
    items of the list it returns always are ("cells", "players"; see Builtin.yields); `compiled=False`: a compiled
    backend will not take it, for the reason `why_not` (which it must then give)."""
    if not compiled and not why_not:
        raise TypeError("a built-in a compiled backend will not take says why (why_not=...)")

    def declare(fn):
        fn.builtin = _declaration(fn, category, aggregate, shown or {}, effect=effect, fold=fold,
                                  specialise=specialise, over_comprehension=over_comprehension, inline=inline,
                                  reads=reads, loop=loop, yields=yields, compiled=compiled, why_not=why_not)
        return fn
    return declare


def _declaration(fn, category: str, aggregate: str | None, shown: dict, **attributes) -> Builtin:
    parameters = list(inspect.signature(fn).parameters.values())
    game = bool(parameters) and parameters[0].name == GAME
    if game:
        parameters = parameters[1:]
    state = bool(parameters) and parameters[0].name == STATE
    if state:
        parameters = parameters[1:]
    positional = [p for p in parameters if p.kind in _POSITIONAL]
    keywords = tuple(p.name for p in parameters if p.kind in _NAMED and p.default is not p.empty)
    if any(k.endswith("_") for k in keywords):  # the compiled call passes it by the name the rule wrote
        raise TypeError(f"{fn.__name__}: a parameter with a default is named as in the language")
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        keywords += ("*",)
    name = fn.__name__.removesuffix("_")
    usage = f"{name}({', '.join(_shown(p, shown) for p in parameters)})"
    if aggregate is not None and attributes.get("loop") in CONDITIONED_LOOPS:
        usage = f"{name}({aggregate})"  # its condition is its meaning: a list alone is no usage of it
    elif aggregate is not None:
        usage += f" | {name}({aggregate})"
    doc = " ".join((inspect.getdoc(fn) or "").split("\n\n", 1)[0].split())  # the first paragraph, on one line
    params = tuple(p.name.removesuffix("_") for p in positional)
    return Builtin(name, fn, sum(p.default is p.empty for p in positional),
                   None if any(p.kind is p.VAR_POSITIONAL for p in parameters) else len(positional),
                   usage, doc, category, state=state, aggregate=aggregate is not None, keywords=keywords,
                   params=params, game=game, arg_types=tuple(_type(p.annotation) for p in positional),
                   returns=_returns(inspect.signature(fn).return_annotation, params, keywords),
                   length=_length(inspect.signature(fn).return_annotation, params, "len"),
                   item_length=_length(inspect.signature(fn).return_annotation, params, "item_len"), **attributes)


def _annotation(annotation) -> str | None:
    """The text of a parameter's or return's annotation (a built-in declares types as text, e.g. "list[cell]";
    under postponed evaluation a quoted one arrives with its quotes), or None when there is none."""
    if annotation is inspect.Parameter.empty:
        return None
    return str(annotation).strip().strip("'\"")


def _type(annotation):
    text = _annotation(annotation)
    return None if text is None else parse_type(text)


def _returns(annotation, params: tuple, keywords: tuple = ()):
    """What a built-in declares it returns: a Type, which may read its arguments' types where it is called
    (see infer.returned): "items(xs)" a list of the items of xs, "item(xs)" one of them (the arguments
    themselves when they are not collections: max(a, b)), "value(t)" a value of table t, "pairs(x)" a table of the (key, value) pairs of x,
    "arg(x)" the type of argument x (none when a keyword argument is not given), "none_with(x)" none when argument x
    is given (nothing otherwise); e.g. "item(xs) | arg(default)"."""
    text = _annotation(annotation)
    if text is None:
        return None
    found = parse_type(text.split(";")[0])
    for name in _argument_names(found):
        if name not in params and name not in keywords:
            raise TypeError(f"the return type {text!r} reads no argument named {name!r}")
    return found


def _length(annotation, params: tuple, clause: str) -> str | None:
    """The parameter a return annotation's `clause` names: "list[arg(x)]; len(n)" (n is the length of the list
    returned), "list[list[item(xs)]]; item_len(xs)" (each list in it is no longer than xs)."""
    text = _annotation(annotation) or ""
    if ";" not in text:
        return None
    said = text.split(";", 1)[1].strip()
    name, _, rest = said.partition("(")
    if name not in ("len", "item_len") or not rest.endswith(")") or rest[:-1] not in params:
        raise TypeError(f"the return type {text!r} should end '; len(PARAM)' or '; item_len(PARAM)' naming a "
                        "parameter")
    return rest[:-1] if name == clause else None


def _argument_names(t) -> list:
    if t.name == "of":
        return [t.names[1]]
    return [n for item in t.items for n in _argument_names(item)]


def _shown(p: inspect.Parameter, shown: dict) -> str:
    """How a parameter reads in a usage line: `xs`, `default=none`, `...` (any number more),
    `attribute=value, ...` (any names)."""
    if p.kind is p.VAR_POSITIONAL:
        return "..."
    if p.kind is p.VAR_KEYWORD:
        return f"{p.name}=value, ..."
    name = p.name.removesuffix("_")
    if p.default is p.empty:
        return name
    return f"{name}={shown[p.name] if p.name in shown else source_text(p.default)}"


def source_text(value) -> str:
    """A constant as a rule writes it: none, true, 'text', 3."""
    if value is None or isinstance(value, bool):
        return {None: "none", True: "true", False: "false"}[value]
    return repr(value)


def declared(namespace: dict) -> list[Builtin]:
    """The built-ins declared among a module's functions (pass its globals()), in the order they are written."""
    return [value.builtin for value in namespace.values()
            if inspect.isfunction(value) and value.__module__ == namespace["__name__"]
            and isinstance(getattr(value, "builtin", None), Builtin)]


def bound(b: Builtin, g) -> Builtin:
    """b with its game parameter filled in by `g`: bound once, as a method, a call costs no more than a
    closure's (no wrapper runs per call)."""
    if not b.game:
        return b
    return replace(b, fn=MethodType(b.fn, g), game=False,
                   specialise=None if b.specialise is None else MethodType(b.specialise, g))


def reference(builtins, markdown: bool) -> str:
    """Every built-in by category, as text or as the markdown tables of docs/language.md."""
    builtins = list(builtins)
    order = list(CATEGORIES) + sorted({b.category for b in builtins} - set(CATEGORIES))
    lines = []
    for category in order:
        entries = [b for b in builtins if b.category == category]
        if markdown:
            lines += [f"### {category.capitalize()}", "", "| function | meaning |", "|---|---|"]
            lines += [f"| `{b.signature.replace('|', chr(92) + '|')}` | {b.doc} |" for b in entries]
        else:
            lines.append(f"{category}:")
            lines += [f"  {b.signature}\n      {b.doc}" for b in entries]
        lines.append("")
    return "\n".join(lines)
