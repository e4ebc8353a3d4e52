"""The tool pin port (issue 35): which servers are pinned, the fingerprint and full definition of each pinned
tool, who pinned it and when.

Storage: the state database's ``openclaw_mcp_pinned_servers`` (a server is pinned iff it has a row there, so a
server pinned with zero tools is still pinned) and ``openclaw_mcp_tool_pins`` tables, created by the first
write; readers never create anything (a missing database or table reads as "nothing pinned").

Error contract (every method): a store that cannot be read or written — locked past the busy timeout, not a
database, corrupt, a row that does not decode (a definition that is not a JSON object, a fingerprint that does
not match its definition) — raises :class:`ToolPinStoreError` with a one-line reason (no secret: the reason
names the table or the library's message, never a definition) and the library's exception as ``__cause__``.
A failed write changes nothing (one transaction). Nothing else escapes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from openclaw_mcp.application.errors import ApplicationError

__all__ = ["PinnedServer", "PinnedTool", "ServerPins", "ToolPinStore", "ToolPinStoreError"]


class ToolPinStoreError(ApplicationError):
    """The pin store could not be read or written; the message is the one-line reason."""


@dataclass(frozen=True, slots=True)
class PinnedTool:
    """One pin: the tool's listed name, the fingerprint of its model view, the full definition as listed (what
    a review diffs against), when (epoch ms) and by whom it was pinned."""

    tool: str
    fingerprint: str
    definition: Mapping[str, Any]
    pinned_at: int
    pinned_by: str


@dataclass(frozen=True, slots=True)
class PinnedServer:
    """A pinned server's row: when and by whom it was (last) pinned, and how many tools it pins."""

    server: str
    pinned_at: int
    pinned_by: str
    tool_count: int


@dataclass(frozen=True, slots=True)
class ServerPins:
    """A pinned server and its pins (tool name → pin, in tool-name order)."""

    server: PinnedServer
    tools: Mapping[str, PinnedTool] = field(default_factory=dict)

    def fingerprints(self) -> dict[str, str]:
        return {name: pin.fingerprint for name, pin in self.tools.items()}


class ToolPinStore(Protocol):
    """Pins of MCP tools, keyed by ``(server, tool)``; ``server`` is the configured server name, ``tool`` the
    name the server lists (before any prefixing)."""

    async def read_server(self, server: str) -> ServerPins | None:
        """The pins of ``server``, ``None`` when it is not pinned (no row, no table, no database)."""
        ...

    async def pinned_servers(self) -> list[PinnedServer]:
        """Every pinned server, by name (code-point order); empty when nothing is pinned."""
        ...

    async def pin_server(self, server: str, tools: Mapping[str, Mapping[str, Any]], *, by: str) -> ServerPins:
        """Pin ``server`` with exactly ``tools`` (name → definition as listed): earlier pins of the server are
        replaced, the server row (re)written with ``by`` and the store's ``now``. Returns what was stored."""
        ...

    async def update_pins(
        self,
        server: str,
        upserts: Mapping[str, Mapping[str, Any]],
        deletes: frozenset[str] = frozenset(),
        *,
        by: str,
    ) -> ServerPins:
        """Accept a review: pin each tool of ``upserts`` (name → definition as listed) and drop the pins named
        in ``deletes``, in one transaction. ``ToolPinStoreError`` when ``server`` is not pinned (nothing
        changes). Returns the server's pins afterwards."""
        ...

    async def unpin_server(self, server: str) -> bool:
        """Forget ``server``'s pins and row; whether it was pinned."""
        ...
