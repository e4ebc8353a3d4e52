"""One MCP client session over an SDK stream pair: the ``McpConnection`` every SDK-backed connector yields.

The SDK does the protocol work: ``JSONRPCDispatcher`` correlates requests and runs the receive loop,
``ClientSession`` answers server-initiated requests (ping, sampling/roots refusals), types server
notifications and installs the negotiated version (``adopt``). This module adds what the port needs on top
(spec client-runtime §3.5, §4.9, D18):

- ``initialize`` sent with the exact client identity and empty capabilities, its raw result kept as JSON;
- raw results (``send_raw_request``) instead of validated models, so the runtime sees the wire shapes;
- a local request timer whose expiry reads ``MCP error -32001: Request timed out`` and sends
  ``notifications/cancelled`` with the upstream reason text; caller cancellation sends one as well;
- list-changed notifications and the transport close as port events (the close reported once).

Connectors own the transport (streams, process, in-process server) and drive the lifecycle:
``start`` → ``initialize`` → (requests) → ``begin_close`` → ``stop``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final

import anyio
import anyio.abc
import mcp_types as types
from mcp.client.session import ClientSession, IncomingMessage
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from application.mcp_ports import (
    ConnectionClosed,
    ListChanged,
    McpCleanupError,
    McpConnectError,
    McpConnection,
    McpError,
    McpEvent,
    McpRequestError,
    McpTimeout,
)
from domain.redaction import sanitize_for_log

if TYPE_CHECKING:
    from mcp.client._transport import ReadStream, WriteStream
    from mcp.shared.dispatcher import CallOptions

    def _conforms(connection: SdkMcpConnection) -> McpConnection:
        return connection


__all__ = [
    "ACCEPTED_PROTOCOL_VERSIONS",
    "CALLER_CANCEL_REASON",
    "CLIENT_NAME",
    "CLIENT_VERSION",
    "CONNECTION_CLOSED_MESSAGE",
    "PROTOCOL_VERSION",
    "REQUEST_TIMEOUT_MESSAGE",
    "TIMEOUT_CANCEL_REASON",
    "ConnectionContext",
    "EndWatchingReadStream",
    "SdkMcpConnection",
    "connect_timeout_error",
]

CLIENT_NAME: Final = "openclaw-bundle-mcp"
CLIENT_VERSION: Final = "0.0.0"
PROTOCOL_VERSION: Final = "2025-11-25"
# What the upstream client (TS SDK 1.30.0) accepts in the server's answer.
ACCEPTED_PROTOCOL_VERSIONS: Final = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07")
# The SDK's handshake tables stop at 2024-11-05; the 2024-10-07 draft is adopted as its successor.
_SDK_FALLBACK_VERSION: Final = "2024-11-05"

CONNECTION_CLOSED_MESSAGE: Final = "MCP error -32000: Connection closed"
REQUEST_TIMEOUT_MESSAGE: Final = "MCP error -32001: Request timed out"
# ``String(new McpError(RequestTimeout, "Request timed out"))`` in the reference.
TIMEOUT_CANCEL_REASON: Final = "McpError: MCP error -32001: Request timed out"
# ``String(reason)`` of a plain ``AbortController.abort()`` in the reference.
CALLER_CANCEL_REASON: Final = "AbortError: This operation was aborted"
NOT_CONNECTED_MESSAGE: Final = "Not connected"

_CONNECTION_CLOSED_CODE: Final = -32000
_CANCEL_WRITE_TIMEOUT_S: Final = 5.0

_LIST_CHANGED: Final[dict[type[Any], ListChanged]] = {
    types.ToolListChangedNotification: ListChanged("tools"),
    types.ResourceListChangedNotification: ListChanged("resources"),
    types.PromptListChangedNotification: ListChanged("prompts"),
}


def connect_timeout_error(timeout_ms: int) -> McpTimeout:
    """The connect-deadline error (upstream ``McpClientConnectTimeoutError``), its cause the expired deadline."""
    error = McpTimeout(f"MCP server connection timed out after {timeout_ms}ms")
    error.__cause__ = TimeoutError("The operation was aborted due to timeout")
    return error


class EndWatchingReadStream:
    """A read stream that calls ``on_end`` once when the wrapped stream ends (EOF, closed or broken)."""

    def __init__(self, inner: ReadStream[SessionMessage | Exception], on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end: Callable[[], None] | None = on_end

    def _ended(self) -> None:
        on_end, self._on_end = self._on_end, None
        if on_end is not None:
            on_end()

    async def receive(self) -> SessionMessage | Exception:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._ended()
            raise

    def __aiter__(self) -> EndWatchingReadStream:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> EndWatchingReadStream:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class SdkMcpConnection:
    """The port's ``McpConnection`` over one SDK ``ClientSession``."""

    def __init__(
        self,
        server_name: str,
        *,
        on_event: Callable[[McpEvent], None],
        log: Callable[[str], None],
    ) -> None:
        self._server_name = server_name
        self._on_event = on_event
        self._log = log
        self._capabilities: dict[str, Any] = {}
        self._ids = itertools.count()
        self._dispatcher: JSONRPCDispatcher[Any] | None = None
        self._session: ClientSession | None = None
        self._session_entered = False
        self._transport_ended = False
        self._closing = False
        self._closed_reported = False
        self._close_reason: str | None = None

    # --- McpConnection --------------------------------------------------------------------------------

    @property
    def capabilities(self) -> dict[str, Any]:
        return self._capabilities

    @property
    def closed(self) -> bool:
        return self._transport_ended or self._closing

    async def request(self, method: str, params: dict[str, Any] | None, *, timeout_ms: int) -> dict[str, Any]:
        dispatcher = self._dispatcher
        if dispatcher is None or self.closed:
            raise McpError(NOT_CONNECTED_MESSAGE)
        request_id = next(self._ids)
        # The SDK's own abandon-cancel carries its own reason text; this layer sends the upstream one.
        opts: CallOptions = {"request_id": request_id, "cancel_on_abandon": False}
        try:
            with anyio.move_on_after(timeout_ms / 1000):
                return await dispatcher.send_raw_request(method, params, opts)
        except MCPError as exc:
            raise self._translate(exc) from None
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await self._send_cancel(request_id, CALLER_CANCEL_REASON)
            raise
        await self._send_cancel(request_id, TIMEOUT_CANCEL_REASON)
        raise McpTimeout(REQUEST_TIMEOUT_MESSAGE)

    # --- lifecycle (driven by the connector) ----------------------------------------------------------

    async def start(
        self,
        read_stream: ReadStream[SessionMessage | Exception],
        write_stream: WriteStream[SessionMessage],
    ) -> None:
        """Start the SDK session's receive loop over the transport's streams."""
        dispatcher: JSONRPCDispatcher[Any] = JSONRPCDispatcher(
            EndWatchingReadStream(read_stream, self._on_transport_end), write_stream
        )
        session = ClientSession(
            dispatcher=dispatcher,
            message_handler=self._on_message,
            client_info=types.Implementation(name=CLIENT_NAME, version=CLIENT_VERSION),
        )
        await session.__aenter__()
        self._dispatcher = dispatcher
        self._session = session
        self._session_entered = True

    async def initialize(self, deadline: float) -> bool:
        """``initialize`` + ``notifications/initialized`` before ``deadline`` (anyio clock).

        Returns ``False`` when the deadline passed; raises ``McpConnectError`` for every other failure.
        """
        dispatcher, session = self._dispatcher, self._session
        assert dispatcher is not None and session is not None, "start() first"
        params = {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": CLIENT_NAME, "version": CLIENT_VERSION},
        }
        opts: CallOptions = {"request_id": next(self._ids), "cancel_on_abandon": False}
        with anyio.CancelScope(deadline=deadline):
            try:
                raw = await dispatcher.send_raw_request("initialize", params, opts)
            except MCPError as exc:
                # the JSON-RPC error itself is the top-level error: its code is not repeated as a cause
                raise McpConnectError(str(self._translate(exc))) from None
            try:
                result = types.InitializeResult.model_validate(raw, by_name=False)
            except ValidationError as exc:
                raise McpConnectError("MCP initialize returned an invalid result") from exc
            if result.protocol_version not in ACCEPTED_PROTOCOL_VERSIONS:
                raise McpConnectError(f"Server's protocol version is not supported: {result.protocol_version}")
            if result.protocol_version == "2024-10-07":
                result = result.model_copy(update={"protocol_version": _SDK_FALLBACK_VERSION})
            session.adopt(result)
            capabilities = raw.get("capabilities")
            self._capabilities = capabilities if isinstance(capabilities, dict) else {}
            await session.send_notification(types.InitializedNotification())
            return True
        return False

    def set_close_reason(self, reason: str) -> None:
        """The reason the closed event will carry (the first one set wins)."""
        if self._close_reason is None:
            self._close_reason = reason

    def begin_close(self, reason: str = "connection closed") -> None:
        """Stop admitting requests (they fail with ``Not connected``)."""
        self.set_close_reason(reason)
        self._closing = True

    async def stop(self) -> None:
        """Stop the SDK session (pending requests fail with ``Connection closed``) and report the close."""
        self._closing = True
        session, self._session = self._session, None
        try:
            if session is not None and self._session_entered:
                self._session_entered = False
                await session.__aexit__(None, None, None)
        finally:
            self.report_closed()

    def report_closed(self) -> None:
        if self._closed_reported:
            return
        self._closed_reported = True
        self._on_event(ConnectionClosed(self._close_reason))

    # --- internals ------------------------------------------------------------------------------------

    def _on_transport_end(self) -> None:
        self._transport_ended = True
        self.report_closed()

    def _translate(self, exc: MCPError) -> McpError:
        if exc.code == _CONNECTION_CLOSED_CODE and exc.message == "Connection closed" and self.closed:
            return McpError(CONNECTION_CLOSED_MESSAGE)
        return McpRequestError(exc.code, exc.message, exc.data)

    async def _send_cancel(self, request_id: int, reason: str) -> None:
        dispatcher = self._dispatcher
        if dispatcher is None or self._transport_ended:
            return
        with anyio.move_on_after(_CANCEL_WRITE_TIMEOUT_S):
            await dispatcher.notify("notifications/cancelled", {"requestId": request_id, "reason": reason})

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, Exception):
            detail = sanitize_for_log(str(message).split("\n", 1)[0])
            self._log(f'bundle-mcp: server "{sanitize_for_log(self._server_name)}" transport error: {detail}')
            return
        event = _LIST_CHANGED.get(type(message))
        if event is not None:
            self._on_event(event)


class ConnectionContext:
    """Base of the connectors' async context managers.

    The connection lives in a task of its own (``_run``), started in a task group that the context enters
    and exits, so every cancel scope and task group of the transport and the SDK session is entered and
    left inside that one task, whatever the caller does between entering and exiting. ``_run`` opens the
    transport, calls ``task_status.started(connection)``, waits for ``_stop_requested`` and tears down;
    a cancellation of the caller during enter or exit reaches ``_run``, which then tears down forcibly.
    """

    _already_started_message = "transport already started or closed"

    def __init__(self) -> None:
        self._task_group: anyio.abc.TaskGroup | None = None
        self._entered = False
        self._stop_requested = anyio.Event()
        self._cleanup_error: McpCleanupError | None = None

    async def __aenter__(self) -> McpConnection:
        if self._entered:
            raise RuntimeError(self._already_started_message)
        self._entered = True
        task_group = anyio.create_task_group()
        await task_group.__aenter__()
        try:
            connection: McpConnection = await task_group.start(self._run)
        except BaseException:
            self._stop_requested.set()
            await task_group.__aexit__(None, None, None)
            raise
        self._task_group = task_group
        return connection

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        task_group, self._task_group = self._task_group, None
        self._stop_requested.set()
        if task_group is not None:
            # Not handed the caller's exception: that would cancel ``_run`` and force the teardown.
            await task_group.__aexit__(None, None, None)
        if self._cleanup_error is not None:
            raise self._cleanup_error

    async def _run(self, *, task_status: anyio.abc.TaskStatus[McpConnection]) -> None:
        raise NotImplementedError
