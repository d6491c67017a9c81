"""The served folder: the only files the playground lists, reads or writes, and only regular files; whatever the
file system says (a link loop, a name too long, a missing folder, a pipe) is a refusal naming the path."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from ..limits import MAX_FILE_BYTES

RULE_SUFFIXES = (".yaml", ".yml")
LOG_SUFFIXES = (".json", ".jsonl")
MAX_LISTED = 500  # files listed from the folder, of each kind
MAX_WALKED = 20_000  # entries of the folder looked at to list them
MAX_SKIPPED = 20  # files that could not be listed, named in the list (the others are counted)
MAX_NAME_BYTES = 255  # one file or folder name (most file systems allow no more)
# Never wait on a file (a named pipe opened for reading waits for a writer), never follow a link the path
# check has not seen
_OPEN = os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)


class Refused(Exception):
    """A request the playground refuses (a path outside the folder, a file that is not there): told to the
    browser as it is."""


class Folder:
    """The files under one folder: paths named relative to it, links and '..' resolved and kept inside it."""

    def __init__(self, root: str | Path, max_chars: int = 1_024):
        self.root = Path(root).resolve()
        self.max_chars = max_chars

    def path(self, relative: str) -> Path:
        """The file `relative` names under the folder; Refused for an absolute path, one leading out of the
        folder (through '..' or a symbolic link), one too long, or one the file system cannot follow."""
        if not relative or Path(relative).is_absolute() or "\\" in relative or "\0" in relative:
            raise Refused(f"not a file of the served folder: {_shown(relative)}")
        if len(relative) > self.max_chars or \
                any(len(part.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES for part in relative.split("/")):
            raise Refused(f"the path {_shown(relative)} is too long: at most {self.max_chars:,} characters, "
                          f"{MAX_NAME_BYTES} bytes a name")
        try:
            path = (self.root / relative).resolve()
        except RuntimeError:  # Python's word for a symbolic link loop
            raise Refused(f"cannot use {_shown(relative)}: its symbolic links make a loop") from None
        except (OSError, ValueError) as exc:
            raise Refused(f"cannot use {_shown(relative)}: {_why(exc)}") from None
        if not path.is_relative_to(self.root):
            raise Refused(f"not a file of the served folder: {_shown(relative)}")
        return path

    def files(self) -> dict:
        """The rule files and the logs or results files under the folder (relative paths, in folder order),
        hidden folders and node_modules left out, and what could not be listed (`skipped`, each with why); a
        walk of at most MAX_WALKED entries (a home folder is big)."""
        rules, logs, skipped, walked = [], [], [], 0

        def skip(name: str, why: str) -> None:
            skipped.append(f"{name}: {why}")

        def unreadable(exc: OSError) -> None:
            skip(self._relative(Path(exc.filename or self.root)) + "/", _why(exc))

        for folder, subfolders, names in os.walk(self.root, onerror=unreadable):  # links to folders not followed
            subfolders[:] = sorted(d for d in subfolders if not d.startswith(".") and d != "node_modules")
            walked += len(names) + len(subfolders)
            for name in sorted(names):
                path = Path(folder) / name
                found = rules if path.suffix in RULE_SUFFIXES else logs if path.suffix in LOG_SUFFIXES else None
                if found is None or name.startswith(".") or len(found) >= MAX_LISTED:
                    continue
                relative = self._relative(path)
                try:
                    target = path.resolve()
                    if not target.is_relative_to(self.root):  # a link out of the folder: not ours to show
                        continue
                    if not stat.S_ISREG(target.stat().st_mode):
                        skip(relative, "not a regular file")
                        continue
                except RuntimeError:
                    skip(relative, "its symbolic links make a loop")
                    continue
                except (OSError, ValueError) as exc:
                    skip(relative, _why(exc))
                    continue
                found.append(relative)
            if walked > MAX_WALKED:
                break
        shown = skipped[:MAX_SKIPPED] + ([f"and {len(skipped) - MAX_SKIPPED} more"] if len(skipped) > MAX_SKIPPED
                                         else [])
        return {"rules": rules, "logs": logs, "skipped": shown}

    def read(self, relative: str) -> str:
        """A rule file's text (at most one byte more than a rule file may have: loading it says it is too big)."""
        path = self.path(relative)
        if path.suffix not in RULE_SUFFIXES:
            raise Refused(f"no rule file {_shown(relative)} in the served folder")
        try:
            fd = os.open(path, os.O_RDONLY | _OPEN)
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.EISDIR):
                raise Refused(f"no rule file {_shown(relative)} in the served folder") from None
            raise Refused(f"cannot read {_shown(relative)}: {_why(exc)}") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise Refused(f"{_shown(relative)} is not a regular file: only rule files are read")
            chunks, size = [], 0
            while size <= MAX_FILE_BYTES:
                chunk = os.read(fd, MAX_FILE_BYTES + 1 - size)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
        except OSError as exc:
            raise Refused(f"cannot read {_shown(relative)}: {_why(exc)}") from None
        finally:
            os.close(fd)
        return b"".join(chunks).decode("utf-8", "replace")

    def save(self, relative: str, text: str) -> None:
        """Write a rule file under the folder (the editor's Save): into a folder that exists, over nothing or a
        regular file, never waiting (a named pipe is refused, not opened for good)."""
        path = self.path(relative)
        if path.suffix not in RULE_SUFFIXES:
            raise Refused("only rule files (.yaml) are saved")
        data = text.encode("utf-8")
        if len(data) > MAX_FILE_BYTES:
            raise Refused(f"the text is larger than {MAX_FILE_BYTES:,} bytes")
        if not path.parent.is_dir():
            raise Refused(f"no folder {_shown(self._relative(path.parent))} in the served folder: Save writes into "
                          "folders that exist")
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode):
                raise Refused(f"{_shown(relative)} is not a regular file: it is not replaced")
        except FileNotFoundError:
            pass  # a new file
        except OSError as exc:
            raise Refused(f"cannot save {_shown(relative)}: {_why(exc)}") from None
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | _OPEN, 0o644)
        except OSError as exc:
            raise Refused(f"cannot save {_shown(relative)}: {_why(exc)}") from None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # it changed since it was looked at
                raise Refused(f"{_shown(relative)} is not a regular file: it is not replaced")
            os.ftruncate(fd, 0)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        except OSError as exc:
            raise Refused(f"cannot save {_shown(relative)}: {_why(exc)}") from None
        finally:
            os.close(fd)

    def data_file(self, relative: str, suffixes: tuple, what: str) -> Path:
        """A log or results file under the folder (suffix one of `suffixes`), a regular file; Refused saying
        there is no such `what` otherwise."""
        path = self.path(relative)
        try:
            regular = path.suffix in suffixes and stat.S_ISREG(path.stat().st_mode)
        except (OSError, ValueError):
            regular = False
        if not regular:
            raise Refused(f"no {what} {_shown(relative)} in the served folder")
        return path

    def _relative(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.name


def _shown(relative: str) -> str:
    """A path as messages quote it: at most 80 characters of it."""
    return repr(relative if len(relative) <= 80 else relative[:77] + "...")


def _why(exc: Exception) -> str:
    """What the file system said, in its words (without the path, which the message names already)."""
    return (getattr(exc, "strerror", None) or str(exc) or type(exc).__name__).lower()
