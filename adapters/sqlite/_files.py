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


def read_only_uri(path: str) -> str:
    """The ``file:`` URI that opens the database at ``path`` read-only (``sqlite3.connect(…, uri=True)``)."""
    from pathlib import Path  # deferred: only an existing database is opened

    return Path(path).absolute().as_uri() + "?mode=ro"
