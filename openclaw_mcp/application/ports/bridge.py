"""What the bridge needs from the MCP side (spec serve-bridge §8.2, §8.4, §11.1).

The Gateway side is :mod:`application.ports.gateway`; the wall clock is :class:`application.ports.clock.Clock`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from openclaw_mcp.application.ports.gateway import GatewaySettings

__all__ = ["LineWriter", "McpNotifier", "SettingsResolver"]


class McpNotifier(Protocol):
    """Writes MCP notifications to the connected client."""

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        """Write one notification ``{"method", "params"}``; return once it was handed to the transport.

        Raises :class:`~application.bridge.errors.NotificationError` (and nothing else) when it could not be
        written (transport closed, broken pipe). Calls are not reordered: notifications reach the client in
        the order the calls were made. Cancellation may leave the notification unsent.
        """
        ...


SettingsResolver = Callable[[], Awaitable[GatewaySettings]]
"""Resolves the Gateway target and credentials when the bridge starts (§2.1 step 1). Raises an
``ApplicationError`` (the start error) when the target cannot be used."""

LineWriter = Callable[[str], None]
"""Writes one diagnostic line (without its newline) to stderr; never raises."""
