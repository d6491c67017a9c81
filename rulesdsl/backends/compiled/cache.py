"""The on-disk cache of compiled games: each printed module kept as a file in a folder only its user can write, numba
keeping its machine code beside it (`cache=True`), so that a later process loads a game without compiling it again.

A module's file is named by the hash of its source, of the generator (the code that prints it and the helpers it
calls) and of numba's and Python's versions; the source is a function of the rule bundle, its variant and options,
so those key it too. A file is never trusted because of its name: the source printed now is compared with it, and a
file that differs is written again (numba then sees a changed file and compiles afresh). A folder that another user
owns, or that others may write, is not used: the game is compiled in memory, as with `RULESDSL_CACHE=off`.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import stat
import sys
import tempfile
import time
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from ...limits import COMPILE_SECONDS

try:
    import fcntl
except ImportError:  # (not on Windows: processes there may compile a module side by side)
    fcntl = None

WAIT_SECONDS = COMPILE_SECONDS  # the longest a process waits for another compiling the same module (see compiling)
_GENERATOR = ("printer.py", "program.py", "runtime.py", "tables.py", "cache.py")  # what makes or runs a module


def folder() -> Path | None:
    """The cache folder ($RULESDSL_CACHE, else rulesdsl/compiled under the user's cache folder), made if need be;
    None when caching is off or the folder is not safe to read code from."""
    given = os.environ.get("RULESDSL_CACHE")
    if given is not None and given.strip().lower() in ("", "off", "0", "no"):
        return None
    if given:
        path = Path(given).expanduser()
    else:
        base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
        path = Path(base) / "rulesdsl" / "compiled"
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError:
        return None
    return path if _private(path) else None


def _private(path: Path) -> bool:
    """Whether `path` is a folder of this user that no one else may write (where it exists)."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return False
    return not hasattr(os, "getuid") or info.st_uid == os.getuid()


@lru_cache(maxsize=None)
def generator() -> str:
    """A hash of the code that prints modules and that they call, and of numba's and Python's versions."""
    import numba
    digest = hashlib.sha256(f"{numba.__version__}\0{sys.version}".encode())
    here = Path(__file__).parent
    for name in _GENERATOR:
        digest.update((here / name).read_bytes())
    return digest.hexdigest()


def ready(source: str) -> bool:
    """Whether the module `source` is in the cache with numba's machine code beside it (loading it compiles
    nothing, or little: numba may still compile a function it had not cached)."""
    base = folder()
    if base is None:
        return False
    path = _path(base, source)
    try:
        if not path.is_file() or path.is_symlink() or path.read_text("utf-8") != source:
            return False
        return any((base / "__pycache__").glob(f"{path.stem}.*.nbi"))
    except (OSError, UnicodeDecodeError):
        return False


def _path(base: Path, source: str) -> Path:
    """The file that holds the module `source` in the cache folder `base`."""
    return base / f"m_{hashlib.sha256(f'{generator()}{chr(0)}{source}'.encode()).hexdigest()[:40]}.py"


def load(source: str) -> dict | None:
    """The namespace of the module `source`, imported from its cached file (written first when it is missing or
    differs); None when there is no cache folder to use (see folder())."""
    base = folder()
    if base is None:
        return None
    path = _path(base, source)
    key = path.stem[2:]
    try:
        kept = path.read_text("utf-8") if path.is_file() and not path.is_symlink() else None
    except (OSError, UnicodeDecodeError):
        kept = None
    try:
        if kept != source:
            _write(base, path, source)
    except OSError:
        return None
    if not _private(base / "__pycache__"):  # numba's index files are read back as pickles
        return None
    name = f"rulesdsl_compiled_{key}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # numba finds a cached function's module by its name
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return vars(module)


@contextmanager
def compiling(source: str, wait: float = WAIT_SECONDS):
    """Held while a process compiles the module `source` (or reads it from the cache): a process asking for a
    module that another is compiling waits for it, then reads the machine code it left, rather than compiling it
    again beside it (the workers of a run starting together on a game not compiled yet). A lock file beside the
    module's, in the private cache folder; nothing to hold where there is no cache folder or no fcntl. A holder
    that never lets go (a process stopped mid-compile) is waited for `wait` seconds at most: the module is then
    compiled beside it."""
    base = folder()
    if base is None or fcntl is None:
        yield
        return
    try:
        handle = os.open(base / f"{_path(base, source).stem}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    except OSError:
        yield
        return
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)  # (released by the system should the holder die)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    break
                time.sleep(0.1)
        yield
    finally:
        os.close(handle)


def _write(base: Path, path: Path, source: str) -> None:
    """Write `source` to `path` whole (a reader sees the old file or the new one), and drop numba's machine code of
    the old one."""
    handle, temporary = tempfile.mkstemp(dir=base, prefix=".m_", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(source)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    for stale in (base / "__pycache__").glob(f"{path.stem}.*"):
        stale.unlink(missing_ok=True)
