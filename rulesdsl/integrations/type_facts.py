"""What a bundled game's OpenSpiel game type says of it, kept on disk so that importing the adapter loads no game."""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, fields
from functools import lru_cache
from pathlib import Path

from ..backends.compiled.cache import folder
from ..bundle import read_bundle

_PACKAGE = Path(__file__).resolve().parent.parent
_MAX_BYTES = 4096  # a facts file is a few hundred bytes: anything larger is not one of ours


@dataclass(frozen=True)
class TypeFacts:
    """The facts of a game type: what pyspiel.GameType is built from, for a game's default parameters."""

    name: str
    num_players: int
    simultaneous: bool
    hidden_information: bool
    utility: str
    sampled: bool  # chance outcomes that cannot be listed
    outcomes: int  # the most chance outcomes listed at one node (0: no chance)


def facts_of(path, work_out) -> TypeFacts:
    """The facts of the rule file `path`, read from the cache where a file of the same rule bundle and the same
    engine code left them; else `work_out()` (which loads the game) and kept for the next process."""
    base = folder()
    if base is None:
        return work_out()
    kept = base / f"type_{_key(path)}.json"
    found = _read(kept)
    if found is not None:
        return found
    facts = work_out()
    _write(kept, facts)
    return facts


def _key(path) -> str:
    return hashlib.sha256(f"{read_bundle(path).digest}\0{_engine_code()}".encode()).hexdigest()[:40]


@lru_cache(maxsize=None)
def _engine_code() -> str:
    """A hash of every module of the package: facts worked out by other code are worked out again."""
    digest = hashlib.sha256()
    for module in sorted(_PACKAGE.rglob("*.py")):
        digest.update(str(module.relative_to(_PACKAGE)).encode())
        digest.update(module.read_bytes())
    return digest.hexdigest()


def _read(path: Path) -> TypeFacts | None:
    """The facts kept in `path`, or None where there are none, or they are not facts of the expected shape."""
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > _MAX_BYTES:
            return None
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return None
    expected = {f.name: f.type for f in fields(TypeFacts)}
    if not isinstance(data, dict) or set(data) != set(expected):
        return None
    kinds = {"str": str, "int": int, "bool": bool}
    if any(type(data[name]) is not kinds[kind] for name, kind in expected.items()):
        return None
    return TypeFacts(**data)


def _write(path: Path, facts: TypeFacts) -> None:
    """Keep `facts` in `path` (written whole under another name first: a reader never sees half a file)."""
    part = path.with_name(f"{path.name}.{os.getpid()}.part")
    try:
        part.write_text(json.dumps(asdict(facts)), "utf-8")
        os.replace(part, path)
    except OSError:  # a cache that cannot be written costs only time
        part.unlink(missing_ok=True)
