"""The OpenClaw Gateway client over ``websockets`` (asyncio client API, run under anyio task groups)."""

from openclaw_mcp.adapters.ws._websockets_import import import_websockets

import_websockets()  # before any module of the package imports it: see _websockets_import

from openclaw_mcp.adapters.ws.gateway import (  # noqa: E402 - after import_websockets()
    BRIDGE_EVENTS,
    WebsocketsGateway,
    WebsocketsGatewayConnection,
)

__all__ = ["BRIDGE_EVENTS", "WebsocketsGateway", "WebsocketsGatewayConnection"]
