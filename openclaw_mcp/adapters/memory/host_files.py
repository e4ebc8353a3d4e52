"""``HostFiles`` over an in-memory tree: ``files`` maps absolute paths to their mode bits."""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

__all__ = ["InMemoryHostFiles"]


class InMemoryHostFiles:
    def __init__(self, cwd: str = "/work", files: dict[str, int] | None = None, dirs: set[str] | None = None) -> None:
        self._cwd = cwd
        self.files: dict[str, int] = files if files is not None else {}
        self.dirs: set[str] = dirs if dirs is not None else {"/"}

    def cwd(self) -> str:
        return self._cwd

    async def is_executable_file(self, path: str) -> bool:
        mode = self.files.get(posixpath.normpath(path))
        return mode is not None and bool(mode & 0o111)

    async def is_directory(self, path: str) -> bool:
        return posixpath.normpath(path) in self.dirs

    async def is_regular_file(self, path: str) -> bool:
        return posixpath.normpath(path) in self.files


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.host_files import HostFiles

    _: HostFiles = InMemoryHostFiles()
