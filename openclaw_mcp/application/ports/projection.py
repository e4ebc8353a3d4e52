"""What the runtime projections need from the world: private temporary files and OAuth bearer tokens
(spec runtime-projection §1.4, §5.2, §6, D-RP5)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

__all__ = ["BearerTokens", "ProjectionFiles"]


class ProjectionFiles(Protocol):
    """Reads existing MCP config files and writes the generated ones.

    Error contract: :meth:`read_text` never raises (``None`` for a missing or unreadable file);
    :meth:`write_private` raises ``OSError`` when the file cannot be written (nothing is left behind);
    :meth:`remove` never raises."""

    async def read_text(self, path: str) -> str | None:
        """The UTF-8 text of ``path``, ``None`` when it is missing, not a regular file or unreadable."""
        ...

    async def write_private(self, prefix: str, filename: str, text: str) -> str:
        """``text`` in ``<a new directory named prefix…>/<filename>`` (directory 0700, file 0600, written
        atomically); the file's path."""
        ...

    async def remove(self, path: str) -> None:
        """Removes a file made by :meth:`write_private` and its directory (already gone is fine)."""
        ...


class BearerTokens(Protocol):
    """The current OAuth access token of a configured server.

    Error contract: raises ``application.errors.ApplicationError`` whose message is the reason to show
    (``MCP server "<name>" requires OAuth authorization. Run openclaw mcp login <name>.``); network failures
    while refreshing raise ``OSError`` or ``ApplicationError``."""

    async def access_token(self, name: str, server: Mapping[str, Any]) -> str:
        """A usable access token of ``server`` (refreshed when needed)."""
        ...
