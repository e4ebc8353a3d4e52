"""``HostFiles`` over the real file system (``os.access``/``os.stat``; nothing is written)."""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

__all__ = ["OsHostFiles"]


class OsHostFiles:
    def cwd(self) -> str:
        return os.getcwd()

    async def is_executable_file(self, path: str) -> bool:
        if os.name == "nt":
            return os.path.isfile(path)
        return os.access(path, os.X_OK) and os.path.isfile(path)

    async def is_directory(self, path: str) -> bool:
        return os.path.isdir(path)

    async def is_regular_file(self, path: str) -> bool:
        try:
            return stat.S_ISREG(os.stat(path).st_mode)
        except (OSError, ValueError):
            return False


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.host_files import HostFiles

    _: HostFiles = OsHostFiles()
