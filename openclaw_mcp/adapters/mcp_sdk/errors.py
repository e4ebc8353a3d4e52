"""Error texts every SDK-backed MCP connector reports, worded like the reference (MCP TS SDK 1.30.0 on Node 24).

The runtime renders a connection error as ``str(exc)`` followed by its ``__cause__`` chain (each cause's
message unless already contained, then its string/number ``code``; client-runtime §4.12). Causes that must
read like the reference's are built as :class:`DiagnosticCause` links, never as library exceptions.
"""

from __future__ import annotations

from typing import Final

from openclaw_mcp.application.ports.mcp import McpConnectError, McpError, McpTimeout

__all__ = [
    "CALLER_CANCEL_REASON",
    "CONNECTION_CLOSED_CODE",
    "CONNECTION_CLOSED_MESSAGE",
    "NOT_CONNECTED_MESSAGE",
    "REQUEST_TIMEOUT_MESSAGE",
    "TIMEOUT_ABORT_CODE",
    "TIMEOUT_ABORT_MESSAGE",
    "TIMEOUT_CANCEL_REASON",
    "DiagnosticCause",
    "as_connect_error",
    "connect_timeout_error",
]

CONNECTION_CLOSED_CODE: Final = -32000
CONNECTION_CLOSED_MESSAGE: Final = "MCP error -32000: Connection closed"
REQUEST_TIMEOUT_MESSAGE: Final = "MCP error -32001: Request timed out"
NOT_CONNECTED_MESSAGE: Final = "Not connected"
# ``String(new McpError(RequestTimeout, "Request timed out"))`` in the reference.
TIMEOUT_CANCEL_REASON: Final = "McpError: MCP error -32001: Request timed out"
# ``String(reason)`` of a plain ``AbortController.abort()`` in the reference.
CALLER_CANCEL_REASON: Final = "AbortError: This operation was aborted"
# ``AbortSignal.timeout()`` expiry in the reference (a DOMException ``TimeoutError``, code 23).
TIMEOUT_ABORT_MESSAGE: Final = "The operation was aborted due to timeout"
TIMEOUT_ABORT_CODE: Final = 23


class DiagnosticCause(Exception):
    """One designed link of a diagnostic cause chain: a message and an optional Node-style ``code``."""

    def __init__(self, message: str, code: str | int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


def connect_timeout_error(timeout_ms: int) -> McpTimeout:
    """The connect-deadline error (upstream ``McpClientConnectTimeoutError``), caused by the expired deadline:
    rendered ``MCP server connection timed out after <T>ms | The operation was aborted due to timeout | 23``."""
    error = McpTimeout(f"MCP server connection timed out after {timeout_ms}ms")
    error.__cause__ = DiagnosticCause(TIMEOUT_ABORT_MESSAGE, TIMEOUT_ABORT_CODE)
    return error


def as_connect_error(error: McpError) -> McpConnectError:
    """``error`` as a connect failure: the same message and cause (an ``McpConnectError`` as itself).

    A JSON-RPC error answer (``McpRequestError``) thus becomes ``McpConnectError("MCP error <code>: <msg>")``
    without a cause: its code is not repeated as one.
    """
    if isinstance(error, McpConnectError):
        return error
    connect_error = McpConnectError(str(error))
    connect_error.__cause__ = error.__cause__
    return connect_error
