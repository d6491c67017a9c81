"""Problems found in rule files or input, located at file:line:col, and the errors that carry them."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from .terminal import safe_text


@dataclass(frozen=True, order=True)
class Location:
    """A 1-based position inside a named source file."""

    file: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        if not self.line:
            return self.file
        if not self.col:  # a whole line (e.g. one line of a results file)
            return f"{self.file}:{self.line}"
        return f"{self.file}:{self.line}:{self.col}"


def _frozen(value):
    """A field value that can be hashed with its problem: lists and sets become tuples, mappings pairs."""
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return tuple(sorted(map(_frozen, value), key=repr))
    if isinstance(value, dict):
        return tuple((k, _frozen(v)) for k, v in value.items())
    return value


# Every code a Problem may carry, by the section of docs/errors.md that explains it (a test keeps the two equal).
CODES = frozenset({
    "invalid",  # the catch-all
    # reading the file
    "file_unreadable", "bad_text", "empty_file", "yaml_syntax", "yaml_unsupported", "duplicate_key", "bad_value",
    "limit_exceeded", "bad_extends", "unknown_variant", "override_unread", "override_missing", "override_unchanged",
    "variant_inherited", "bad_bundle", "turn_cap_clamped",
    # structure (the JSON Schema)
    "schema_type", "schema_required", "schema_unknown_key", "schema_enum", "schema_form", "schema_size",
    "schema_range", "schema_invalid", "no_moves_twice",
    # expressions and names
    "syntax", "unknown_name", "unknown_function", "unknown_attribute", "unknown_keyword", "duplicate_keyword",
    "wrong_arity", "bad_argument", "effect_in_condition", "misused_name", "not_assignable", "bad_name",
    "duplicate_name", "reserved_name", "evaluation_failed", "among_reads_position", "type_error",
    "secret_made_public", "choices_revealed",
    # options
    "unknown_option", "bad_option_value",
    # numbering moves as actions
    "unnumbered_actions", "too_many_actions",
    # found by playing
    "fails_in_play", "turn_cap_reached", "not_compiled", "dead_rule", "moves_print_alike",
    # the compiled subset
    "untyped", "runtime_text", "unbounded_list", "unsupported", "unfit_state",
    # while playing, in an editor
    "internal",
})


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a rule file, a move or an option, with a hint on how to fix it.

    `code` names the kind of problem (see docs/errors.md) and `fields` hold what it is about (the unknown
    name, the close candidates...), for programs; `message` and `hint` are the same for people.
    """

    message: str
    location: Location | None = None
    hint: str | None = None
    source_line: str | None = None  # the offending line, shown with a caret under `location.col`
    width: int = 1  # how many characters the caret covers
    code: str = "invalid"  # the catch-all of problems no more specific code fits
    fields: tuple = ()  # (name, value) pairs; a mapping given here is stored as pairs (hashable)
    severity: str = "error"  # or "warning": worth a look, but the file works (validate --strict fails on it)

    def __post_init__(self):
        object.__setattr__(self, "fields", _frozen(dict(self.fields)))

    def get(self, name: str, default=None):
        """The field `name` (e.g. problem.get("candidates")), or `default`."""
        return next((value for key, value in self.fields if key == name), default)

    def sort_key(self):
        loc = self.location or Location("")
        return (loc.file, loc.line, loc.col, self.message)

    def format(self) -> str:
        """The problem as it is printed; the file's own text in it (a name, the line quoted) shows its control
        characters escaped (see terminal.safe_text), the caret under the same characters."""
        head = f"{self.location}: " if self.location else ""
        lines = [f"{head}{self.severity}: {self.message}"]
        if self.source_line is not None and self.location and self.location.col:
            text = self.source_line.rstrip("\n")
            before = len(safe_text(text[:self.location.col - 1]))
            under = len(safe_text(text[self.location.col - 1:self.location.col - 1 + max(1, self.width)]))
            lines.append(f"    {safe_text(text)}")
            lines.append("    " + " " * before + "^" * max(1, under))
        if self.hint:
            lines.append(f"  hint: {self.hint}")
        return safe_text("\n".join(lines))


class RulesDslError(Exception):
    """Base class of every error rulesdsl reports to a user (never shown as a traceback)."""

    def format(self) -> str:
        """The error as the command line prints it."""
        return safe_text(f"error: {self}")


@dataclass
class RulesError(RulesDslError):
    """A rule file (or an overlay, option or setup) has one or more problems."""

    problems: list[Problem] = field(default_factory=list)

    def __post_init__(self):
        super().__init__(self.format())

    def format(self) -> str:  # every problem says where it is and that it is an error
        ordered = sorted(self.problems, key=Problem.sort_key)
        return "\n".join(p.format() for p in ordered)

    def __str__(self) -> str:
        return self.format()

    def __reduce__(self):  # travels between worker processes intact
        return RulesError, (self.problems,)


class _HintedError(RulesDslError):
    """An error of a message and maybe a hint, printed as `error: ...` and `hint: ...`."""

    def __init__(self, message: str, hint: str | None = None):
        self.message, self.hint = message, hint
        super().__init__(message)

    def format(self) -> str:
        return safe_text(f"error: {self.message}" + (f"\n  hint: {self.hint}" if self.hint else ""))

    def __reduce__(self):  # travels between worker processes intact
        return type(self), (self.message, self.hint)


class UsageError(_HintedError):
    """A command-line argument that cannot be used: a wrong value, or a file named there that does not exist."""


class RunStopped(RulesDslError):
    """A run stopped by something outside rulesdsl (a worker process killed); the results so far are kept."""


class MoveError(RulesDslError):
    """A move or chance outcome that cannot be applied; `kind` (and the subclass raised) says why."""

    MALFORMED = "malformed"
    ILLEGAL = "illegal"
    AMBIGUOUS = "ambiguous"

    def __init__(self, kind: str, text: str, reason: str, hint: str | None = None):
        self.kind, self.text, self.reason, self.hint = kind, text, reason, hint
        message = f"{kind} move '{text}': {reason}"
        super().__init__(message + (f" (hint: {hint})" if hint else ""))

    def __reduce__(self):  # travels between worker processes intact
        return MoveError, (self.kind, self.text, self.reason, self.hint)


class _KindOfMoveError(MoveError):
    """A MoveError whose kind is its class."""

    KIND = ""

    def __init__(self, text: str, reason: str, hint: str | None = None):
        super().__init__(self.KIND, text, reason, hint)

    def __reduce__(self):  # the subclass itself travels, so `except IllegalMove` works in the parent too
        return type(self), (self.text, self.reason, self.hint)


class MalformedMove(_KindOfMoveError):
    """Text that is not written like any move of the game here."""

    KIND = MoveError.MALFORMED


class IllegalMove(_KindOfMoveError):
    """A move written correctly that the rules do not allow now."""

    KIND = MoveError.ILLEGAL


class AmbiguousMove(_KindOfMoveError):
    """Text that several different legal moves are written as."""

    KIND = MoveError.AMBIGUOUS


class SamplingError(_HintedError):
    """No state consistent with what a player has seen was found within the sampling budget (agents' samples of
    hidden information); the true state is never given instead."""


class GameRuntimeError(RulesDslError):
    """A rule failed while the game was running (e.g. an index out of range in an effect), located at the
    rule's definition in the rule file when known."""

    def __init__(self, rule: str, turn: int, message: str, location: Location | None = None,
                 hint: str | None = None):
        self.rule, self.turn, self.message, self.location, self.hint = rule, turn, message, location, hint
        super().__init__(self.format())

    def format(self) -> str:
        return Problem(f"rule '{self.rule}' failed on turn {self.turn}: {self.message}", self.location,
                       self.hint).format()

    def with_hint(self, more: str) -> "GameRuntimeError":
        """The same error with more said in its hint (e.g. which game of a run it happened in)."""
        hint = f"{self.hint}; {more}" if self.hint else more
        return GameRuntimeError(self.rule, self.turn, self.message, self.location, hint)

    def __str__(self) -> str:
        return self.format()

    def __reduce__(self):  # travels between worker processes intact
        return GameRuntimeError, (self.rule, self.turn, self.message, self.location, self.hint)


def close_names(name: str, candidates) -> list[str]:
    """The candidates (at most three, closest first) that a misspelt `name` may have meant; [] when none is close."""
    return difflib.get_close_matches(name, sorted(set(map(str, candidates))), n=3, cutoff=0.6)


def suggestion(close) -> str | None:
    """The 'did you mean' hint naming `close` (from close_names), or None when it is empty."""
    if not close:
        return None
    return "did you mean " + " or ".join(f"'{c}'" for c in close) + "?"


def did_you_mean(name: str, candidates) -> str | None:
    """A 'did you mean' hint for a misspelt name, or None when nothing is close."""
    return suggestion(close_names(name, candidates))
