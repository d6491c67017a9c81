"""The `schema` command: where the JSON Schema of rule files is, or a copy of it written into a folder."""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from ..schema import schema_path
from .common import shortened

HELP = "print the path of the JSON Schema of rule files (for editors and check-jsonschema)"


def register(p) -> None:
    """schema's arguments."""
    p.add_argument("--write", metavar="DIR", help="copy the schema into this folder (created if needed)")
    p.add_argument("--force", action="store_true", help="with --write: replace a schema file there that differs")


def run(args) -> int:
    """Print the schema's path, or write the schema with --write and print where."""
    source = schema_path()
    if args.write is None:
        if args.force:
            raise UsageError("--force replaces a schema written by --write", "add --write DIR")
        print(source)
        return 0
    folder = Path(args.write)
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--write {shortened(args.write)} is a file, not a folder",
                         "name a folder, e.g. --write schemas")
    target, content = folder / source.name, source.read_bytes()
    if target.is_dir():
        raise UsageError(f"--write: {target} is a folder", "write the schema to another folder")
    if target.exists() and not args.force and not _same_content(target, content):
        raise UsageError(f"--write: {target} already exists with other content",
                         "add --force to replace it (e.g. with the schema of this version of rulesdsl)")
    folder.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content)
    print(target.resolve())
    return 0


def _same_content(path: Path, content: bytes) -> bool:
    """True when the file at `path` holds exactly `content` (a file of another size is not read)."""
    return path.stat().st_size == len(content) and path.read_bytes() == content
