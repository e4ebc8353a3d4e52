"""Facts about the state database file, cheap to import (the registry CLI's start-up path)."""

from __future__ import annotations

import errno
import os
import stat

__all__ = ["is_file", "read_only_uri"]

_IGNORED = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})


def is_file(path: str) -> bool:
    """Whether ``path`` is a regular file (symlinks followed); other ``OSError``s propagate, as with
    ``Path(path).is_file()``."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError as exc:
        if exc.errno not in _IGNORED:
            raise
        return False
    except ValueError:
        return False


def _needs_immutable_read(path: str) -> bool:
    """Whether the file's header says WAL journaling while the ``-wal``/``-shm`` pair a read-only connection
    needs is incomplete, with no WAL content pending (no ``-wal`` log, or an empty one and no ``-shm``)."""
    try:
        with open(path, "rb") as handle:
            header = handle.read(20)
    except OSError:
        return False
    if len(header) < 20 or not header.startswith(b"SQLite format 3\x00") or header[18:20] != b"\x02\x02":
        return False
    try:
        log_size = os.stat(f"{path}-wal").st_size
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return log_size == 0 and not os.path.exists(f"{path}-shm")


def read_only_uri(path: str) -> str:
    """The ``file:`` URI that opens the database at ``path`` read-only (``sqlite3.connect(…, uri=True)``).

    A read-only connection to a WAL database needs its ``-wal`` and ``-shm`` files and creates them when they
    are missing, which fails in a directory this process cannot write. There, and only when no WAL content
    is pending (no ``-wal`` log, or an empty one without ``-shm``: every commit is in the main file), the
    database is opened ``immutable``, which reads the main file alone.
    """
    from pathlib import Path  # deferred: only an existing database is opened

    uri = Path(path).absolute().as_uri() + "?mode=ro"
    directory = os.path.dirname(os.path.abspath(path))
    if not os.access(directory, os.W_OK) and _needs_immutable_read(path):
        uri += "&immutable=1"
    return uri
