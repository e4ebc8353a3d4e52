"""``ProjectionFiles`` and ``BearerTokens`` in memory."""

from __future__ import annotations

import itertools
import posixpath
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from openclaw_mcp.application.errors import ApplicationError

__all__ = ["InMemoryBearerTokens", "InMemoryProjectionFiles"]


class InMemoryProjectionFiles:
    """``files`` maps paths to text; written files are recorded with mode 0600 in ``modes``."""

    def __init__(self, files: dict[str, str] | None = None, *, root: str = "/tmp") -> None:
        self.files: dict[str, str] = files if files is not None else {}
        self.modes: dict[str, int] = {}
        self._root = root
        self._counter = itertools.count(1)

    async def read_text(self, path: str) -> str | None:
        return self.files.get(posixpath.normpath(path))

    async def write_private(self, prefix: str, filename: str, text: str) -> str:
        path = posixpath.join(self._root, f"{prefix}{next(self._counter):06d}", filename)
        self.files[path] = text
        self.modes[path] = 0o600
        return path

    async def remove(self, path: str) -> None:
        self.files.pop(path, None)
        self.modes.pop(path, None)


class InMemoryBearerTokens:
    """``tokens`` maps server names to access tokens; other servers need a login."""

    def __init__(self, tokens: dict[str, str] | None = None) -> None:
        self.tokens: dict[str, str] = tokens if tokens is not None else {}

    async def access_token(self, name: str, server: Mapping[str, Any]) -> str:
        token = self.tokens.get(name)
        if token is None:
            raise ApplicationError(f'MCP server "{name}" requires OAuth authorization. Run openclaw mcp login {name}.')
        return token


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.projection import BearerTokens, ProjectionFiles

    _files: ProjectionFiles = InMemoryProjectionFiles()
    _tokens: BearerTokens = InMemoryBearerTokens()
