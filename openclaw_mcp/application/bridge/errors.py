"""Errors of the bridge use cases; ``str(error)`` is the reference's message."""

from __future__ import annotations

from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.application.ports.gateway import GatewayError

__all__ = ["GatewayClientNotReady", "NotificationError", "ToolError"]


class GatewayClientNotReady(GatewayError):
    """``Gateway client is not ready``: no Gateway client exists (not created yet, or the bridge closed)."""

    def __init__(self) -> None:
        super().__init__("Gateway client is not ready")


class ToolError(ApplicationError):
    """A tool handler failed with a message of its own (e.g. ``Conversation not found for session x``)."""


class NotificationError(ApplicationError):
    """The MCP notifier could not write a notification (serve-bridge §11.1)."""
