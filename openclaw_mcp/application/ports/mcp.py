"""The MCP client port: what the session runtime needs from a connection to one MCP server
(spec client-runtime §1.10, §3, §4.8–§4.9, §4.12).

Results and capabilities cross the port as plain JSON data (``dict``), never as SDK/pydantic models, so
the runtime keeps the exact wire shapes it needs (pagination byte caps, schema checks, content downgrade).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.domain.failure import FailureDetail
from openclaw_mcp.domain.transport import HttpConfig, StdioConfig

__all__ = [
    "ConnectionClosed",
    "ConnectionWarning",
    "ElicitationHandler",
    "ListChanged",
    "McpCleanupError",
    "McpConnectError",
    "McpConnection",
    "McpConnector",
    "McpError",
    "McpEvent",
    "McpRequestError",
    "McpSessionExpired",
    "McpTimeout",
]


ElicitationHandler = Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
"""The host's answer to a server's ``elicitation/create`` request: called with the server name and the request
params (JSON), returns the result (``{"action": "accept" | "decline" | "cancel", "content"?: {...}}``). A
connector given one declares the ``elicitation`` client capability; without one the request is refused."""


class McpError(ApplicationError):
    """Every failure a connection reports. ``str(exc)`` is the rendered message; ``__cause__`` chains
    the underlying error (the runtime joins the chain with `` | `` for diagnostics, §4.12). ``detail``: why,
    beyond the reference's text (a stdio connect failure's kind, exit and stderr tail; never part of ``str``)."""

    detail: FailureDetail | None = None


class McpRequestError(McpError):
    """The server answered a request with a JSON-RPC error. ``str(exc)`` is ``MCP error <code>: <message>``."""

    def __init__(self, code: int, message: str, data: object = None) -> None:
        super().__init__(f"MCP error {code}: {message}")
        self.code = code
        self.error_message = message
        self.data = data


class McpTimeout(McpError):
    """A request (or the connect) did not complete within its timeout."""


class McpConnectError(McpError):
    """The connection could not be established (spawn failure, early exit, refused, initialize failed).
    Stdio spawn failures and exits before ``initialize`` completes read ``MCP error -32000: Connection closed``
    (decision D8) with the OS error as ``__cause__``."""


class McpSessionExpired(McpError):
    """The HTTP session of the connection expired (404 to a request carrying a session id)."""


class McpCleanupError(McpError):
    """Closing could not confirm that the transport (for stdio: the whole process group) is gone."""


@dataclass(frozen=True, slots=True)
class ListChanged:
    """``notifications/<kind>/list_changed`` arrived."""

    kind: Literal["tools", "resources", "prompts"]


@dataclass(frozen=True, slots=True)
class ConnectionClosed:
    """The transport closed (process exit, stream end, HTTP failure). Reported once."""

    reason: str | None = None


@dataclass(frozen=True, slots=True)
class ConnectionWarning:
    """Something the operator should see about the server (a runtime warning, not a debug line), e.g. a tool
    left out of a 2026-07-28 listing (protocol-eras §3.9). ``text`` has no ``bundle-mcp:`` prefix."""

    text: str


McpEvent = ListChanged | ConnectionClosed | ConnectionWarning


class McpConnection(Protocol):
    """One connected MCP client session over one transport (one child process for stdio), in the era the
    connect settled (spec protocol-eras §1, §3.1): the legacy ``initialize`` handshake, or — when a server
    refuses ``initialize`` the way a 2026-07-28 server does — ``server/discover`` and the stateless 2026
    wire (every request enveloped by the connection; callers send the same methods and params either way)."""

    @property
    def capabilities(self) -> dict[str, Any]:
        """The server capabilities as JSON (``{}`` when none were advertised): from the ``initialize``
        result (legacy), or from the ``server/discover`` result (2026-07-28)."""
        ...

    @property
    def protocol_version(self) -> str | None:
        """The protocol revision the connect settled: the version ``initialize`` negotiated, or
        ``"2026-07-28"`` after ``server/discover`` (``None`` before the connect completed)."""
        ...

    @property
    def closed(self) -> bool:
        """True once the transport closed (the connection can no longer be used)."""
        ...

    async def request(self, method: str, params: dict[str, Any] | None, *, timeout_ms: int) -> dict[str, Any]:
        """Send one request and return its raw JSON ``result``. On a 2026-07-28 connection the connection
        stamps the per-request envelope (and HTTP headers), resolves ``input_required`` results within the
        same timer and rejects an unknown ``resultType``; the result is returned as received.

        Raises ``McpRequestError`` for a JSON-RPC error answer, ``McpTimeout`` after ``timeout_ms`` (the
        request is cancelled with ``notifications/cancelled``), ``McpSessionExpired`` when an HTTP session
        expired, ``McpError`` when the connection is closed or breaks. Cancellation of the caller cancels
        the request. Safe to call from several tasks at once.
        """
        ...


class McpConnector(Protocol):
    """Opens connections to MCP servers."""

    def connect(
        self,
        server_name: str,
        config: StdioConfig | HttpConfig,
        *,
        on_event: Callable[[McpEvent], None],
        log: Callable[[str], None],
    ) -> AbstractAsyncContextManager[McpConnection]:
        """Open the transport and complete ``initialize`` + ``notifications/initialized`` within
        ``config.connection_timeout_ms`` — or, when the server refuses ``initialize`` as a 2026-07-28 server
        does, ``server/discover`` on the same transport within the same deadline (the server capabilities
        then come from discover); yield the connection; on exit close it.

        Entering raises ``McpConnectError`` / ``McpTimeout`` (everything opened so far is torn down first).
        ``on_event`` receives list-changed notifications, warnings and the closed event (called from the
        connection's own task; it must not block). ``log`` receives debug lines (stdio stderr lines as
        ``bundle-mcp:<server name>: <line>``). Exiting closes the transport: stdio closes stdin, then
        SIGTERM and SIGKILL to the process group (§3.6) until the group is extinct; HTTP terminates its
        session. Exit raises ``McpCleanupError`` when closure cannot be confirmed. Cancellation during
        enter or exit still tears everything down.
        """
        ...
