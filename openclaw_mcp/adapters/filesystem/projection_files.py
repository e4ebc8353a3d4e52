"""``ProjectionFiles`` on the local filesystem: ``tempfile.mkdtemp`` directories (0700) holding one 0600 file."""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import TYPE_CHECKING

import anyio

from openclaw_mcp.adapters.filesystem._atomic import write_new_file

__all__ = ["FilesystemProjectionFiles"]


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None


def _write(prefix: str, filename: str, text: str, root: str | None) -> str:
    directory = tempfile.mkdtemp(prefix=prefix, dir=root)
    path = os.path.join(directory, filename)
    try:
        write_new_file(path, text.encode("utf-8"))  # a fresh private directory: no one else writes there
    except BaseException:
        shutil.rmtree(directory, ignore_errors=True)
        raise
    return path


def _remove(path: str) -> None:
    directory = os.path.dirname(path)
    try:
        os.unlink(path)
    except OSError:
        pass
    shutil.rmtree(directory, ignore_errors=True)


class FilesystemProjectionFiles:
    """``root``: where the temporary directories go (the system temporary directory unless given)."""

    def __init__(self, root: str | None = None) -> None:
        self._root = root

    async def read_text(self, path: str) -> str | None:
        return await anyio.to_thread.run_sync(_read, path)

    async def write_private(self, prefix: str, filename: str, text: str) -> str:
        return await anyio.to_thread.run_sync(_write, prefix, filename, text, self._root)

    async def remove(self, path: str) -> None:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(_remove, path)


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.projection import ProjectionFiles

    _: ProjectionFiles = FilesystemProjectionFiles()
