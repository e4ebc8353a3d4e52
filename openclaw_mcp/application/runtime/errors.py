"""Errors the MCP session runtime raises itself (spec client-runtime §4.5, §4.9–§4.13, §4.15).

Errors a connection reports (``McpRequestError``, ``McpTimeout``, …) come from :mod:`application.ports.mcp`
and pass through the runtime unchanged, except the two rewraps the spec asks for: a connect timeout becomes
:class:`ConnectTimedOut` and a request that outlives its local timer becomes :class:`LocalRequestTimeout`.
Every ``str(exc)`` is the exact reference text.
"""

from __future__ import annotations

from typing import Final

from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.application.ports.mcp import McpTimeout

__all__ = [
    "SERVER_FAILURES",
    "CleanupUnconfirmed",
    "ConnectTimedOut",
    "InvalidListResult",
    "LiveRuntimeLimitReached",
    "LocalRequestTimeout",
    "McpRuntimeError",
    "PaginationError",
    "RuntimeDisposed",
    "ServerNotConnected",
    "ServerPaused",
    "ServerRetiring",
    "ToolResultInvalid",
]

SERVER_FAILURES: Final = (ApplicationError, ValueError)
"""What the runtime turns into a diagnostic, a warning or a failed request: the errors of the ports
(``McpError``'s family, OAuth's errors through an HTTP connection), its own errors, and the domain's
validation errors (``ValueError`` subclasses: invalid tool listings, output schemas, JSON). Anything else is
a defect and propagates."""


class McpRuntimeError(ApplicationError):
    """Base of every error the session runtime raises on its own account."""


class ServerNotConnected(McpRuntimeError):
    """``bundle-mcp server "<name>" is not connected`` / ``… is disconnected: <reason>`` (§4.9, §4.14)."""

    def __init__(self, server_name: str, reason: str | None = None) -> None:
        if reason:
            super().__init__(f'bundle-mcp server "{server_name}" is disconnected: {reason}')
        else:
            super().__init__(f'bundle-mcp server "{server_name}" is not connected')
        self.server_name = server_name
        self.reason = reason


class ServerRetiring(McpRuntimeError):
    """``bundle-mcp server "<name>" is retiring`` (§4.8)."""

    def __init__(self, server_name: str) -> None:
        super().__init__(f'bundle-mcp server "{server_name}" is retiring')
        self.server_name = server_name


class ServerPaused(McpRuntimeError):
    """The failure cooldown of §4.10 is active; no request was sent."""

    def __init__(self, server_name: str, retry_after_iso: str) -> None:
        super().__init__(
            f'bundle-mcp server "{server_name}" is paused after repeated tool failures; retry after {retry_after_iso}'
        )
        self.server_name = server_name
        self.retry_after_iso = retry_after_iso


class RuntimeDisposed(McpRuntimeError):
    """``bundle-mcp runtime disposed for session <session id>`` (§4.13)."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"bundle-mcp runtime disposed for session {session_id}")
        self.session_id = session_id


class CleanupUnconfirmed(McpRuntimeError):
    """``MCP runtime cleanup could not confirm closure`` (§3.7, §4.13)."""

    def __init__(self) -> None:
        super().__init__("MCP runtime cleanup could not confirm closure")


class ConnectTimedOut(McpRuntimeError):
    """``MCP server "<name>" timed out: did not complete initialize within <T/1000>s`` (§3.5); the
    connector's timeout error is its ``__cause__``."""


class LocalRequestTimeout(McpTimeout):
    """The runtime's own request timer fired: ``MCP error -32001: Request timed out`` (§4.9)."""

    code = -32001

    def __init__(self) -> None:
        super().__init__("MCP error -32001: Request timed out")


class PaginationError(McpRuntimeError):
    """A bounded listing failed: timeout, byte/item/page cap, repeated cursor (§4.5)."""


class InvalidListResult(McpRuntimeError):
    """A listing page does not have the MCP result shape (decision D10 wording)."""


class ToolResultInvalid(McpRuntimeError):
    """A ``tools/call`` result does not match the tool's output schema (§4.11). ``code`` is the MCP error
    code (−32600 / −32602); the message carries the ``MCP error <code>: `` prefix."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(f"MCP error {code}: {message}")
        self.code = code
        self.error_message = message


class LiveRuntimeLimitReached(McpRuntimeError):
    """The manager's live runtime cap (§4.15) is reached."""
