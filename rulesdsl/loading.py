"""Find rule files, resolve overlays ('extends:') and apply variants, keeping every node's own file position."""

from __future__ import annotations

import os
from copy import deepcopy
from pathlib import Path

from .errors import Location, Problem, RulesError, close_names, suggestion
from .limits import MAX_EXTENDS
from .resources import package_dir
from .schema import top_level_keys
from .source import Document, load_bytes, load_file


def bundled_games() -> dict[str, Path]:
    """Bundled rule files by name (file stem)."""
    folder = package_dir("games")
    return {p.stem: p for p in sorted(folder.glob("*.yaml"))}


def resolve_path(name: str | Path, relative_to: Path | None = None) -> Path:
    """A rule file path: as given, relative to an overlay, or the name of a bundled game."""
    path = Path(name)
    candidates = [path]
    if relative_to is not None and not path.is_absolute():
        candidates.insert(0, relative_to.parent / path)
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    games = bundled_games()
    stem = path.stem if path.suffix in (".yaml", ".yml") else str(name)
    if stem in games and path.parent == Path("."):
        return games[stem]
    return candidates[0]


def _reroot(doc: Document, prefix: tuple, new_prefix: tuple) -> dict:
    """The node positions under `prefix`, with paths moved to start at `new_prefix`."""
    n = len(prefix)
    return {new_prefix + path[n:]: info for path, info in doc.nodes.items() if path[:n] == prefix}


def merge(base: Document, patch, patch_nodes: dict, at: tuple = ()) -> None:
    """Deep-merge `patch` into `base` at path `at`: mappings merge, other values replace, null deletes.

    What each key of the patch does is noted in `base.overrides` (see Document.overrides), so that an
    override that changes nothing can be reported. Node positions are moved subtree by subtree, so that
    merging is linear in the size of the two files. Under a variant's `changes:` a null is a value, kept: the
    variant deletes that key when it is applied, not the overlay now."""
    target = base.data
    for key in at:
        target = target[key]
    for key, value in patch.items():
        path = at + (key,)
        if value is None and not _in_variant_changes(path):
            if isinstance(target, dict) and key in target:
                _drop(base, path, target.pop(key))
                base.overrides.append((path, "deleted"))
            else:
                base.overrides.append((path, "missing"))
            if path in patch_nodes:  # where the deletion is written, for messages about it
                base.nodes[path] = patch_nodes[path]
        elif isinstance(value, dict) and isinstance(target.get(key), dict):
            if path in patch_nodes:
                base.nodes.setdefault(path, patch_nodes[path])  # a merged mapping keeps its base position
            merge(base, value, patch_nodes, path)
        elif isinstance(value, dict) and key not in target:
            # a new mapping is merged into an empty one, so that each of its entries is noted as added (a
            # section the base lacks holds names to check) and a deletion in it as deleting nothing
            base.overrides.append((path, "added"))
            target[key] = {}
            if path in patch_nodes:
                base.nodes[path] = patch_nodes[path]
            merge(base, value, patch_nodes, path)
            if value and not target[key]:  # it only deleted keys
                del target[key]
        else:
            if key not in target:
                base.overrides.append((path, "added"))
            elif type(target[key]) is type(value) and target[key] == value:
                base.overrides.append((path, "same"))
            else:
                base.overrides.append((path, "changed"))
            if key in target:
                _drop(base, path, target[key])
            target[key] = value
            base.nodes.update((p, patch_nodes[p]) for p in _paths(value, path) if p in patch_nodes)


def _in_variant_changes(path: tuple) -> bool:
    """Whether `path` lies inside a variant's changes (variants: NAME: changes: ...)."""
    return len(path) > 3 and path[0] == "variants" and path[2] == "changes"


def _paths(value, path: tuple):
    """The path of `value` and of every node inside it."""
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, path + (key,))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _paths(item, path + (i,))


def _drop(doc: Document, path: tuple, old) -> None:
    """Forget the positions of the value `old` that stood at `path`."""
    for p in _paths(old, path):
        doc.nodes.pop(p, None)


def load_document(path: str | Path, variant: str | None = None, text: str | None = None) -> Document:
    """Load a rule file, following 'extends:' to its base file and applying a named variant. `text`: the
    file's content when it is not (yet) what is on disk, as in an editor; 'extends:' is resolved from `path`."""
    edited = None if text is None else load_bytes(text.encode("utf-8", "surrogatepass"), str(path))
    return merge_chain([doc for doc, _ in read_chain(path, first=edited)], variant)


def read_chain(path: str | Path, read=load_file, first: Document | None = None) -> list[tuple[Document, Path]]:
    """(document, path) of a rule file, its base, the base's base...; `read(path)` loads each of them, but for
    the file itself when it is given as `first` (already read from elsewhere: an editor's buffer)."""
    path = resolve_path(path) if first is None else Path(path)
    doc = read(path) if first is None else first
    if not isinstance(doc.data, dict):
        raise RulesError([doc.problem((), "a rule file is a YAML mapping (keys such as 'game:', 'board:')",
                                      "start the file with 'game: <name>'", code="schema_type",
                                      fields={"path": (), "expected": ("object",)})])
    chain = [(doc, path)]  # a loop, not recursion, however long
    while "extends" in chain[-1][0].data:
        overlay, overlay_path = chain[-1]
        if len(chain) > MAX_EXTENDS:  # each file is read, checked and merged: a chain of thousands is an attack
            raise RulesError([overlay.problem(("extends",), f"more than {MAX_EXTENDS} files extend one another "
                                              "here", "make the overlay extend the game (or a variant) directly",
                                              code="limit_exceeded", fields={"limit": "MAX_EXTENDS"})])
        base_path = resolve_base(overlay, overlay_path)
        if base_path.resolve() in {p.resolve() for _, p in chain}:
            raise RulesError([overlay.problem(("extends",), f"'{overlay.data['extends']}' extends itself "
                                              f"(through {overlay_path})", code="bad_extends")])
        chain.append((_load_base(overlay, base_path, read), base_path))
    return chain


def merge_chain(chain: list[Document], variant: str | None = None) -> Document:
    """The rule file `chain[0]` with its overlays merged onto its bases (chain[-1], the game itself), and the
    named variant applied."""
    doc = chain[-1]
    for overlay in reversed(chain[:-1]):
        patch = {k: v for k, v in overlay.data.items() if k != "extends"}
        merge(doc, patch, {p: i for p, i in overlay.nodes.items() if p and p[0] != "extends"})
        doc.file = overlay.file
    if variant is not None:
        apply_variant(doc, variant)
    return doc


def resolve_base(overlay: Document, path: Path) -> Path:
    """The base file that the overlay at `path` names with 'extends:', checked before anything reads it.

    Overlays are shared, so 'extends:' may name only a bundled game (by name, or by a path to its file) or
    a file in the overlay's own folder or below it, once '..' and symbolic links are followed: a shared
    overlay cannot make rulesdsl read, and echo in its errors, any other file on the user's machine.
    """
    name = _base_name(overlay)
    games = bundled_games()
    if "\0" in name or not name.isprintable() or any("\ud800" <= ch <= "\udfff" for ch in name):
        raise RulesError([overlay.problem(("extends",), "the base rule file's name holds characters no file name "
                                          "has", _ALLOWED.format(games=", ".join(games)), code="bad_extends")])
    given = Path(name)
    candidate = given if given.is_absolute() else path.parent / given
    try:
        target, home = candidate.resolve(), path.parent.resolve()
    except (OSError, RuntimeError):  # a symbolic link loop, a name too long
        raise RulesError([_cannot_find(overlay, name, games)]) from None
    if target in {p.resolve() for p in games.values()}:
        return candidate
    if target.parent == package_dir("games").resolve():
        raise RulesError([_cannot_find(overlay, name, games)])  # a misspelt path to a bundled game
    if given.is_absolute() or not target.is_relative_to(home):
        raise RulesError([_outside(overlay, name, games)])
    if _is_file(target):
        return candidate
    stem = given.stem if given.suffix in (".yaml", ".yml") else name
    if stem in games and given.parent == Path("."):
        return games[stem]
    raise RulesError([_cannot_find(overlay, name, games)])


def _base_name(overlay: Document) -> str:
    """The text of the overlay's 'extends:' value, which must name a file or a game."""
    value = overlay.data["extends"]
    if isinstance(value, (str, int, float)) and not isinstance(value, bool) and str(value).strip():
        return str(value)
    raise RulesError([overlay.problem(("extends",), "'extends' should name the base rule file",
                                      _ALLOWED.format(games=", ".join(bundled_games())), code="bad_extends")])


_ALLOWED = ("'extends:' names a bundled game ({games}) or a rule file in this overlay's folder or a folder "
            "below it")


def _outside(overlay: Document, name: str, games: dict) -> Problem:
    """The problem of an 'extends:' that leads outside the overlay's folder (the target is never read)."""
    if Path(name).is_absolute():
        what = "is an absolute path"
    elif os.path.normpath(name).split(os.sep)[0] == os.pardir:
        what = "is outside this overlay's folder"
    else:
        what = "leads, through a symbolic link, outside this overlay's folder"
    return overlay.problem(("extends",), f"the base rule file '{name}' {what}",
                           _ALLOWED.format(games=", ".join(games)) + "; copy the base file next to the overlay",
                           code="bad_extends", fields={"name": name})


def _cannot_find(overlay: Document, name: str, games: dict) -> Problem:
    """The problem of an 'extends:' that names no file."""
    close = close_names(Path(name).stem, games)
    return overlay.problem(("extends",), f"cannot find the base rule file '{name}'",
                           suggestion(close) or _ALLOWED.format(games=", ".join(games)), code="bad_extends",
                           fields={"name": name, "candidates": close})


def _is_file(path: Path) -> bool:
    """True for a regular file (not a folder, device or pipe), False also when it cannot be checked."""
    try:
        return path.is_file()
    except OSError:
        return False


def _load_base(overlay: Document, path: Path, read) -> Document:
    """The base file named by the overlay's 'extends:', if it is a rule file (else ONE problem, at that
    'extends:', that says nothing of the file's content)."""
    name = overlay.data["extends"]
    try:
        base = read(path)
    except RulesError as exc:
        first = min(exc.problems, key=Problem.sort_key)
        if first.location is None or not first.location.line:  # it cannot be read at all
            raise RulesError([overlay.problem(("extends",), f"cannot read the base rule file '{name}'",
                                              first.message, code="bad_extends", fields={"name": name})]) from None
        why = "it is empty" if first.code == "empty_file" else \
            f"loading it fails at line {first.location.line}, column {first.location.col}"
        raise RulesError([_not_a_rule_file(overlay, name, path, why)]) from None
    why = _shape_problem(base.data)
    if why is not None:
        raise RulesError([_not_a_rule_file(overlay, name, path, why)])
    return base


def _not_a_rule_file(overlay: Document, name, path: Path, why: str) -> Problem:
    """The one problem reported for a base file that is not a rule file."""
    return overlay.problem(("extends",), f"'{name}' is not a rule file",
                           f"{why}; a rule file is a YAML mapping with 'game:' (or 'extends:') and only the "
                           f"top-level keys of the rule language ('rulesdsl validate {path}' checks it on its own)",
                           code="bad_extends", fields={"name": name})


def _shape_problem(data) -> str | None:
    """Why a base file's top level is not that of a rule file, or None when it looks like one."""
    if data is None:
        return "it is empty"
    if not isinstance(data, dict):
        return f"its top level is {'a list' if isinstance(data, list) else 'a single value'}, not a mapping"
    if "game" not in data and "extends" not in data:
        return "it has neither 'game:' nor 'extends:'"
    unknown = [key for key in data if key not in top_level_keys()]
    if unknown:
        return f"it has {len(unknown)} top-level key{'s' if len(unknown) > 1 else ''} that rule files do not have"
    return None


def with_variant(doc: Document, variant: str | None) -> Document:
    """A copy of a loaded rule file with the named variant applied (None: as it is), so that a file is read
    once however many of its variants are compiled."""
    copy = Document(deepcopy(doc.data), doc.file, dict(doc.nodes), list(doc.overrides))
    if variant is not None:
        apply_variant(copy, variant)
    return copy


def apply_variant(doc: Document, variant: str) -> None:
    """Merge the named variant's 'changes' into the document."""
    variants = doc.data.get("variants") if isinstance(doc.data, dict) else None
    if not isinstance(variants, dict):
        variants = {}
        if isinstance(doc.data, dict) and doc.data.get("variants") is not None:
            raise RulesError([doc.problem(("variants",), "'variants' should map each variant's name to its "
                                          "description and changes", "e.g. variants: {short: {changes: {...}}}",
                                          code="schema_type", fields={"path": ("variants",), "expected": ("object",)})])
    if variant not in variants:
        close = close_names(variant, variants)
        hint = suggestion(close) or (
            f"variants of this game: {', '.join(variants)}" if variants else "this game declares no variants")
        raise RulesError([Problem(f"unknown variant '{variant}'", Location(doc.file), hint, code="unknown_variant",
                                  fields={"name": variant, "candidates": close})])
    spec = variants[variant] or {}
    changes = spec.get("changes") if isinstance(spec, dict) else None
    if changes is not None and not isinstance(changes, dict):
        raise RulesError([doc.problem(("variants", variant, "changes"), "a variant's 'changes' should be a "
                                      "mapping of the sections it changes", "e.g. changes: {scoring: {score: ...}}",
                                      code="schema_type",
                                      fields={"path": ("variants", variant, "changes"), "expected": ("object",)})])
    if not isinstance(spec, dict):
        raise RulesError([doc.problem(("variants", variant), f"variant '{variant}' should be a mapping with "
                                      "'description' and 'changes'", "e.g. {description: ..., changes: {...}}",
                                      code="schema_type",
                                      fields={"path": ("variants", variant), "expected": ("object",)})])
    changes = changes or {}
    prefix = ("variants", variant, "changes")
    merge(doc, changes, _reroot(doc, prefix, ()))
    doc.data.setdefault("variants", variants)
