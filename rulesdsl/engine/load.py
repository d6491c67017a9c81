"""Loading a rule file (with variant and options) into a playable Game, reporting every problem found."""

from __future__ import annotations

import copyreg
from pathlib import Path

from ..bundle import RuleBundle, bundle_document, read_bundle
from ..errors import RulesError, did_you_mean
from ..loading import load_document, with_variant
from ..model.compile import ModelCompiler, coerce_option
from ..overrides import override_problems
from ..schema import top_level_keys, validate_structure
from ..source import Document
from .game import Game


def load_game(path: str | Path | RuleBundle, variant: str | None = None, options: dict | None = None,
              max_turns: int | None = None, inline: bool = True) -> Game:
    """Load, validate and compile a rule file (or a RuleBundle: the files a results file or log carries);
    raises RulesError listing every problem found.

    `inline=False` compiles every call of the file's own functions as a call, even of a short one (which is
    otherwise compiled into its caller): for a profile that counts each function's calls and time.

    >>> game = load_game("three-in-a-row.yaml")  # a rule file (here the tutorial's), or a bundled game's name
    >>> game.num_players, game.player_names
    (2, ['cross', 'nought'])
    """
    if isinstance(path, RuleBundle):
        game = compile_game(bundle_document(path), path.files[0][0], variant, options, max_turns, inline)
        game.bundle = path
        return game
    return compile_game(load_document(path), path, variant, options, max_turns, inline)


def game_from_bundle(bundle: RuleBundle, variant: str | None, options: dict, max_turns: int | None) -> Game:
    """A pickled Game again (_pickled_game): its rule files compiled with its variant, options and turn cap."""
    return load_game(bundle, variant, options, max_turns)


def bundle_of(game: Game) -> RuleBundle:
    """The rule files of a game as bytes: those it was loaded from, else read from disk now, once."""
    if game.bundle is None:
        game.bundle = read_bundle(game.path)
    return game.bundle


def _pickled_game(game: Game):
    """A Game pickles as its rule files' bytes (read from disk when first pickled if it was loaded from a path)
    with its variant, options and turn cap: the compiled rules hold functions, which pickle cannot carry;
    unpickling compiles them again, in any process. Registered here, where every Game is made."""
    cap = game.max_turns if game.cap_source == "given" else None
    return game_from_bundle, (bundle_of(game), game.variant, game.options, cap)


copyreg.pickle(Game, _pickled_game)


def compile_game(base: Document, path: str | Path, variant: str | None = None, options: dict | None = None,
                 max_turns: int | None = None, inline: bool = True) -> Game:
    """The game of a rule file already loaded (`base`, as load_document gives it) with a variant and options."""
    doc = with_variant(base, variant)
    problems = validate_structure(doc) + [p for p in override_problems(doc) if p.severity == "error"]
    if problems:
        raise RulesError(problems + _also_compile_problems(doc, options, variant, problems))
    rules = ModelCompiler(doc, options or {}, variant, inline).compile()
    return Game(rules, str(path), variant, options or {}, max_turns)


def argument_problems(source: str | Path | Document | RuleBundle, variant: str | None,
                      options: dict | None) -> tuple[str, str] | None:
    """(what is wrong, hint) when a variant or option names or values do not fit the rule file, else None.

    The caller decides whose mistake it is: the command line's (a usage error) or a log's. A file that
    cannot be read gives None: load_game reports it, located in the file. `source` is the file's path, or
    the file as load_document gave it, or a RuleBundle."""
    try:
        doc = source if isinstance(source, Document) else \
            bundle_document(source) if isinstance(source, RuleBundle) else load_document(source)
    except RulesError:
        return None
    data = doc.data if isinstance(doc.data, dict) else {}
    variants = data.get("variants") if isinstance(data.get("variants"), dict) else {}
    if variant is not None and variant not in variants:
        return (f"unknown variant '{variant}'", did_you_mean(variant, variants)
                or (f"variants of this game: {', '.join(variants)}" if variants else "this game declares no variants"))
    if variant is not None:
        try:
            data = with_variant(doc, variant).data
        except RulesError:
            return None
    declared = data.get("options") if isinstance(data.get("options"), dict) else {}
    for name, value in (options or {}).items():
        if name not in declared:
            return (f"unknown option '{name}'", did_you_mean(name, declared)
                    or f"options of this game: {', '.join(declared) or 'none'}")
        spec = declared[name] if isinstance(declared[name], dict) else {}
        try:
            coerce_option(name, spec, value)
        except (TypeError, ValueError) as exc:
            return str(exc)[:300], spec.get("help") or "see 'rulesdsl validate FILE' for the options"
    return None


def _also_compile_problems(doc, options, variant, found) -> list:
    """Problems the compiler finds in a file that already breaks the schema, so that one run reports
    all of them. A structure the compiler cannot read yields nothing more (the schema said why)."""
    if not isinstance(doc.data, dict) or set(doc.data) - set(top_level_keys()):
        return []  # a misspelt or missing section: what the compiler would add is only its echo
    lines = {(p.location.file, p.location.line) for p in found if p.location}
    try:
        ModelCompiler(doc, options or {}, variant).compile()
    except RulesError as exc:
        return [p for p in exc.problems if not p.location or (p.location.file, p.location.line) not in lines]
    except Exception:  # noqa: BLE001 - malformed structure: the schema problems already explain it
        return []
    return []
