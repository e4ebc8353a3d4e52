"""The OpenClaw Gateway client over ``websockets`` (asyncio client API, run under anyio task groups)."""

from openclaw_mcp.adapters.ws.gateway import BRIDGE_EVENTS, WebsocketsGateway, WebsocketsGatewayConnection

__all__ = ["BRIDGE_EVENTS", "WebsocketsGateway", "WebsocketsGatewayConnection"]
