"""In-memory tool pins: the two pin tables as process-local dicts, same contract as the SQLite store.

Definitions are kept as their canonical JSON text, like the database rows, so a stored pin never aliases the
caller's dict. ``fail_with`` makes every operation raise :class:`ToolPinStoreError` (a corrupt or locked
store, for tests of the fail-closed rule).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio.lowlevel

from openclaw_mcp.adapters.clock import SystemClock
from openclaw_mcp.application.ports.clock import Clock
from openclaw_mcp.application.ports.tool_pins import PinnedServer, PinnedTool, ServerPins, ToolPinStoreError
from openclaw_mcp.domain.tool_pins import canonical_json, tool_fingerprint

__all__ = ["InMemoryToolPinRows", "InMemoryToolPinStore"]


@dataclass(slots=True)
class InMemoryToolPinRows:
    """``servers``: server → (pinned_at, pinned_by); ``tools``: (server, tool) → (fingerprint, definition
    JSON, pinned_at, pinned_by)."""

    servers: dict[str, tuple[int, str]] = field(default_factory=dict)
    tools: dict[tuple[str, str], tuple[str, str, int, str]] = field(default_factory=dict)


class InMemoryToolPinStore:
    """:class:`~application.ports.tool_pins.ToolPinStore` over :class:`InMemoryToolPinRows` (fresh unless
    shared)."""

    def __init__(self, rows: InMemoryToolPinRows | None = None, *, clock: Clock | None = None) -> None:
        self.rows = rows if rows is not None else InMemoryToolPinRows()
        self._clock: Clock = clock if clock is not None else SystemClock()
        self.fail_with: str | None = None

    def _check(self) -> None:
        if self.fail_with is not None:
            raise ToolPinStoreError(self.fail_with)

    def _pins(self, server: str) -> ServerPins | None:
        row = self.rows.servers.get(server)
        if row is None:
            return None
        tools: dict[str, PinnedTool] = {}
        for (owner, name), (fingerprint, text, pinned_at, pinned_by) in sorted(self.rows.tools.items()):
            if owner == server:
                tools[name] = PinnedTool(name, fingerprint, json.loads(text), pinned_at, pinned_by)
        return ServerPins(PinnedServer(server, row[0], row[1], len(tools)), tools)

    async def read_server(self, server: str) -> ServerPins | None:
        await anyio.lowlevel.checkpoint()
        self._check()
        return self._pins(server)

    async def pinned_servers(self) -> list[PinnedServer]:
        await anyio.lowlevel.checkpoint()
        self._check()
        return [pins.server for name in sorted(self.rows.servers) if (pins := self._pins(name)) is not None]

    def _upsert(self, server: str, tools: Mapping[str, Mapping[str, Any]], now: int, by: str) -> None:
        for name, definition in tools.items():
            self.rows.tools[(server, name)] = (tool_fingerprint(definition), canonical_json(dict(definition)), now, by)

    async def pin_server(self, server: str, tools: Mapping[str, Mapping[str, Any]], *, by: str) -> ServerPins:
        await anyio.lowlevel.checkpoint()
        self._check()
        now = self._clock.now_ms()
        for key in [key for key in self.rows.tools if key[0] == server]:
            del self.rows.tools[key]
        self.rows.servers[server] = (now, by)
        self._upsert(server, tools, now, by)
        pins = self._pins(server)
        assert pins is not None
        return pins

    async def update_pins(
        self,
        server: str,
        upserts: Mapping[str, Mapping[str, Any]],
        deletes: frozenset[str] = frozenset(),
        *,
        by: str,
    ) -> ServerPins:
        await anyio.lowlevel.checkpoint()
        self._check()
        if server not in self.rows.servers:
            raise ToolPinStoreError(f'MCP server "{server}" is not pinned')
        for name in deletes:
            self.rows.tools.pop((server, name), None)
        self._upsert(server, upserts, self._clock.now_ms(), by)
        pins = self._pins(server)
        assert pins is not None
        return pins

    async def unpin_server(self, server: str) -> bool:
        await anyio.lowlevel.checkpoint()
        self._check()
        for key in [key for key in self.rows.tools if key[0] == server]:
            del self.rows.tools[key]
        return self.rows.servers.pop(server, None) is not None


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.tool_pins import ToolPinStore

    _: ToolPinStore = InMemoryToolPinStore()
