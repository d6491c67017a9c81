"""Find rule files, resolve overlays ('extends:') and apply variants, keeping every node's own file position."""

from __future__ import annotations

from pathlib import Path

from .errors import Location, Problem, RulesError, did_you_mean
from .source import Document, load_file


def package_dir(name: str) -> Path:
    """The bundled `games` or `schemas` folder: inside the installed package, or beside it in a checkout."""
    here = Path(__file__).resolve().parent
    installed = here / name
    return installed if installed.is_dir() else here.parent / name


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
    """Deep-merge `patch` into `base` at path `at`: mappings merge, other values replace, null deletes."""
    target = base.data
    for key in at:
        target = target[key]
    for key, value in patch.items():
        path = at + (key,)
        if value is None:
            if isinstance(target, dict):
                target.pop(key, None)
            _drop(base, path)
        elif isinstance(value, dict) and isinstance(target.get(key), dict):
            if path in patch_nodes:
                base.nodes.setdefault(path, patch_nodes[path])  # a merged mapping keeps its base position
            merge(base, value, patch_nodes, path)
        else:
            _drop(base, path)
            target[key] = value
            base.nodes.update({p: i for p, i in patch_nodes.items() if p[: len(path)] == path})


def _drop(doc: Document, path: tuple) -> None:
    for p in [p for p in doc.nodes if p[: len(path)] == path]:
        del doc.nodes[p]


def load_document(path: str | Path, variant: str | None = None, _seen: tuple = ()) -> Document:
    """Load a rule file, following 'extends:' to its base file and applying a named variant."""
    path = resolve_path(path)
    doc = load_file(path)
    if not isinstance(doc.data, dict):
        raise RulesError([doc.problem((), "a rule file is a YAML mapping (keys such as 'game:', 'board:')",
                                      "start the file with 'game: <name>'")])
    if "extends" in doc.data:
        base_name = doc.data["extends"]
        base_path = resolve_path(str(base_name), path)
        if base_path.resolve() in _seen:
            raise RulesError([doc.problem(("extends",), f"'{base_name}' extends itself (through {path})")])
        if not base_path.is_file():
            raise RulesError([doc.problem(("extends",), f"cannot find the base rule file '{base_name}'",
                                          did_you_mean(Path(str(base_name)).stem, bundled_games())
                                          or "give a path relative to this file, or the name of a bundled game "
                                          "(listed by 'rulesdsl games')")])
        base = load_document(base_path, None, _seen + (path.resolve(),))
        patch = {k: v for k, v in doc.data.items() if k != "extends"}
        patch_nodes = {p: i for p, i in doc.nodes.items() if p and p[0] != "extends"}
        merge(base, patch, patch_nodes)
        base.file = doc.file
        doc = base
    if variant is not None:
        apply_variant(doc, variant)
    return doc


def apply_variant(doc: Document, variant: str) -> None:
    """Merge the named variant's 'changes' into the document."""
    variants = doc.data.get("variants") if isinstance(doc.data, dict) else None
    if not isinstance(variants, dict):
        variants = {}
        if isinstance(doc.data, dict) and doc.data.get("variants") is not None:
            raise RulesError([doc.problem(("variants",), "'variants' should map each variant's name to its "
                                          "description and changes", "e.g. variants: {short: {changes: {...}}}")])
    if variant not in variants:
        hint = did_you_mean(variant, variants) or (
            f"variants of this game: {', '.join(variants)}" if variants else "this game declares no variants")
        raise RulesError([Problem(f"unknown variant '{variant}'", Location(doc.file), hint)])
    spec = variants[variant] or {}
    changes = spec.get("changes") if isinstance(spec, dict) else None
    if changes is not None and not isinstance(changes, dict):
        raise RulesError([doc.problem(("variants", variant, "changes"), "a variant's 'changes' should be a "
                                      "mapping of the sections it changes", "e.g. changes: {scoring: {score: ...}}")])
    if not isinstance(spec, dict):
        raise RulesError([doc.problem(("variants", variant), f"variant '{variant}' should be a mapping with "
                                      "'description' and 'changes'", "e.g. {description: ..., changes: {...}}")])
    changes = changes or {}
    prefix = ("variants", variant, "changes")
    merge(doc, changes, _reroot(doc, prefix, ()))
    doc.data.setdefault("variants", variants)
