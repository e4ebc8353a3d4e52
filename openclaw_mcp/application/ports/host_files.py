"""Facts about the host's files that ``doctor`` checks."""

from __future__ import annotations

from typing import Protocol

__all__ = ["HostFiles"]


class HostFiles(Protocol):
    """Facts about the local file system that ``doctor`` checks (no writes)."""

    def cwd(self) -> str:
        """The process current directory (absolute)."""
        ...

    async def is_executable_file(self, path: str) -> bool:
        """A regular file the process may execute (``access(X_OK)``; existence on Windows)."""
        ...

    async def is_directory(self, path: str) -> bool:
        """An existing directory (symlinks followed)."""
        ...

    async def is_regular_file(self, path: str) -> bool:
        """An existing regular file (symlinks followed)."""
        ...
