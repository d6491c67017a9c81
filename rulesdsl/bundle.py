"""A rule file with every file of its overlay chain, as bytes under one content hash: rules that travel."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from .errors import Location, Problem, RulesError
from .limits import MAX_EXTENDS, MAX_FILE_BYTES
from .loading import merge_chain, read_chain
from .source import Document, load_bytes, read_bytes


@dataclass(frozen=True)
class RuleBundle:
    """The files a rule file is made of: itself, then each base its 'extends:' names, in that order, each as
    (name, bytes). Workers compile it in memory: they need neither the files nor the same paths.

    The names are where problems are located (the paths the files were read from); the content hash
    covers names and bytes, so the same hash means the same rules."""

    files: tuple[tuple[str, bytes], ...]
    digest: str  # SHA-256, hex

    @classmethod
    def of(cls, files) -> RuleBundle:
        files = tuple((str(name), bytes(data)) for name, data in files)
        return cls(files, content_hash(files))


def content_hash(files) -> str:
    """SHA-256 over the names and bytes of a bundle's files (each prefixed by its length: no two bundles share
    a hash by moving bytes from one file to the next)."""
    digest = hashlib.sha256()
    for name, data in files:
        for part in (name.encode("utf-8", "surrogatepass"), data):
            digest.update(len(part).to_bytes(8, "big"))
            digest.update(part)
    return digest.hexdigest()


def read_bundle(path: str | Path, text: str | None = None) -> RuleBundle:
    """The bundle of a rule file (a path, or a bundled game's name), read from disk once; problems in the
    files are reported as load_document reports them. `text`: the rule file's content when it is not what is
    on disk (an editor's buffer); the files it extends are read from disk."""
    files = []

    def read(file: Path) -> Document:
        data = read_bytes(file)
        files.append((str(file), data))  # kept before parsing: a file that fails to parse fails the bundle too
        return load_bytes(data, str(file))

    first = None
    if text is not None:
        data = text.encode("utf-8", "surrogatepass")
        files.append((str(path), data))
        first = load_bytes(data, str(path))
    read_chain(path, read, first)
    return RuleBundle.of(files)


def bundle_document(bundle: RuleBundle, variant: str | None = None) -> Document:
    """The rule file of a bundle, loaded from memory with its overlays merged, as load_document would load it
    from the files. A bundle is checked like a file: its size, its hash, and that each file but the last
    extends the next."""
    files = bundle.files
    where = Location(files[0][0] if files else "(rule bundle)")
    if not 1 <= len(files) <= MAX_EXTENDS + 1:
        raise RulesError([Problem(f"a rule bundle holds 1 to {MAX_EXTENDS + 1} files, not {len(files)}", where,
                                  code="limit_exceeded", fields={"limit": "MAX_EXTENDS"})])
    if any(not isinstance(data, bytes) or len(data) > MAX_FILE_BYTES for _, data in files):
        raise RulesError([Problem(f"a file of the rule bundle is larger than {MAX_FILE_BYTES:,} bytes", where,
                                  code="limit_exceeded", fields={"limit": "MAX_FILE_BYTES"})])
    if content_hash(files) != bundle.digest:
        raise RulesError([Problem("the rule bundle does not match its content hash", where,
                                  "the bundle was damaged on its way: run again", code="bad_bundle")])
    chain = [load_bytes(data, name) for name, data in files]
    for i, doc in enumerate(chain):
        extends = isinstance(doc.data, dict) and "extends" in doc.data
        if extends != (i < len(chain) - 1):
            raise RulesError([doc.problem((), "the files of the rule bundle do not extend one another in order",
                                          code="bad_bundle")])
    return merge_chain(chain, variant)


def bundle_json(bundle: RuleBundle) -> dict:
    """The bundle as logs and results files carry it: each file's name and text, and the content hash."""
    return {"sha256": bundle.digest,
            "files": [{"name": name, "text": data.decode("utf-8", "surrogateescape")} for name, data in bundle.files]}


def bundle_from_json(data) -> RuleBundle | str:
    """A bundle read back from a log or results file (untrusted): the RuleBundle, or what is wrong with it."""
    if not isinstance(data, dict) or not isinstance(data.get("files"), list) or not isinstance(data.get("sha256"), str):
        return "should be an object with 'files' (a list of {name, text}) and 'sha256'"
    files = data["files"]
    if not 1 <= len(files) <= MAX_EXTENDS + 1:
        return f"should hold 1 to {MAX_EXTENDS + 1} files, not {len(files)}"
    read = []
    for entry in files:
        name, text = (entry.get("name"), entry.get("text")) if isinstance(entry, dict) else (None, None)
        if not isinstance(name, str) or len(name) > 4096 or not isinstance(text, str) or len(text) > MAX_FILE_BYTES:
            return f"each file should be {{name, text}}: a name of at most 4,096 characters, a text of at most " \
                   f"{MAX_FILE_BYTES:,} characters"
        try:
            read.append((name, text.encode("utf-8", "surrogateescape")))
        except UnicodeEncodeError:
            return "a file's text is not text a rule file can hold"
    bundle = RuleBundle.of(read)
    if bundle.digest != data["sha256"]:
        return "its files do not match its content hash (sha256): the file was damaged or edited"
    return bundle
