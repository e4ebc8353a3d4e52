"""Crash-safe file writes shared by the filesystem adapters: a new file created exclusively and ``fsync``-ed,
and a replacement written to a temporary sibling then renamed over the target (or, on request, over the file a
symbolic link at the target points to)."""

from __future__ import annotations

import os

__all__ = ["remove_quietly", "replace_file", "temp_name", "write_new_file"]

_BINARY = getattr(os, "O_BINARY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def temp_name(path: str, kind: str) -> str:
    """A unique hidden sibling name of ``path`` carrying this process's id (``.<name>.<kind>.<pid>.<hex>.tmp``)."""
    return f".{os.path.basename(path)}.{kind}.{os.getpid()}.{os.urandom(16).hex()}.tmp"


def write_new_file(path: str, data: bytes, mode: int = 0o600) -> None:
    """Create ``path`` exclusively with ``mode``, write ``data`` and ``fsync`` it; nothing is left on failure."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _CLOEXEC | _BINARY, 0o600)
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
        try:
            os.fchmod(fd, mode)
        except (OSError, AttributeError):
            pass  # modes are applied where supported (config-store decision D15)
    except BaseException:
        os.close(fd)
        remove_quietly(path)
        raise
    os.close(fd)


def replace_file(path: str, data: bytes, mode: int = 0o600, *, through_links: bool = False) -> str:
    """``data`` at ``path`` atomically: a temporary sibling, then ``os.replace`` (removed on failure). Returns
    the path replaced.

    ``os.replace`` swaps a symbolic link at ``path`` for a regular file. With ``through_links`` the file the
    link resolves to is replaced instead (its temporary sibling is created next to it, so the rename stays
    atomic) and the link is kept; a dangling link gets its target created."""
    if through_links:
        path = os.path.realpath(path)
    temp = os.path.join(os.path.dirname(path) or ".", temp_name(path, "write"))
    write_new_file(temp, data, mode)
    try:
        os.replace(temp, path)
    except BaseException:
        remove_quietly(temp)
        raise
    return path
