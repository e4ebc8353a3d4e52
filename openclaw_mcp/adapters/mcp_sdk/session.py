"""One MCP client session over an SDK stream pair: the ``McpConnection`` every SDK-backed connector yields.

The SDK does the protocol work: ``JSONRPCDispatcher`` correlates requests and runs the receive loop,
``ClientSession`` answers server-initiated requests (ping, sampling/roots refusals), types server
notifications and installs the negotiated version (``adopt``). This module adds what the port needs on top
(spec client-runtime §3.5, §4.9, D18):

- ``initialize`` sent with the exact client identity and empty capabilities, its raw result kept as JSON;
  every failure is an ``McpConnectError`` (a JSON-RPC error answer reads ``MCP error <code>: <message>``
  and has no cause);
- raw results (``send_raw_request``) instead of validated models, so the runtime sees the wire shapes;
- a local request timer whose expiry reads ``MCP error -32001: Request timed out`` and sends
  ``notifications/cancelled`` with the upstream reason text; caller cancellation sends one as well;
- list-changed notifications and the transport close as port events (the close reported once);
- the 2026-07-28 era (spec protocol-eras §3): an ``initialize`` refused the way a 2026 server refuses it
  (``domain.mcp_eras.is_modern_refusal``, T1–T3) is followed by ``server/discover`` on the same transport within
  the same deadline; a valid result is ``adopt``ed into the SDK session, its capabilities become the
  connection's and every later request is stamped (``_stamp``: the ``_meta`` envelope; HTTP adds its headers)
  and resolved by ``modern.resolve_result`` (``resultType``, ``input_required``).

Connectors own the transport (streams, process, HTTP client, in-process server) and drive the lifecycle:
``start`` → ``initialize`` / ``initialize_before`` → (requests) → ``begin_close`` → ``stop``. A connector
whose transport needs more (HTTP: per-request headers, failures reported by the HTTP layer) subclasses
``SdkMcpConnection`` and overrides the hooks ``_transport_headers``, ``_stamp``, ``_modern_refusal``,
``_exchange``, ``_translate``, ``_transport_error``, ``_on_transport_end`` and ``_on_modern_connect``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Final

import anyio
import anyio.abc
import mcp_types as types
from mcp.client.session import ClientRequestContext, ClientSession, IncomingMessage
from mcp.shared.exceptions import MCPError
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from openclaw_mcp.adapters.mcp_sdk import modern
from openclaw_mcp.adapters.mcp_sdk.errors import (
    CALLER_CANCEL_REASON,
    CONNECTION_CLOSED_CODE,
    CONNECTION_CLOSED_MESSAGE,
    NOT_CONNECTED_MESSAGE,
    REQUEST_TIMEOUT_MESSAGE,
    TIMEOUT_CANCEL_REASON,
    as_connect_error,
)
from openclaw_mcp.application.ports.mcp import (
    ConnectionClosed,
    ElicitationHandler,
    ListChanged,
    McpConnectError,
    McpConnection,
    McpError,
    McpEvent,
    McpRequestError,
    McpTimeout,
)
from openclaw_mcp.domain.mcp_apps import ui_extension_capability
from openclaw_mcp.domain.mcp_eras import (
    LEGACY_LATEST_VERSION,
    LEGACY_VERSIONS,
    MODERN_VERSION,
    MODERN_VERSIONS,
    is_modern_refusal,
    request_envelope,
    stamp_params,
)
from openclaw_mcp.domain.redaction import sanitize_for_log

if TYPE_CHECKING:
    from mcp.client._transport import ReadStream, WriteStream
    from mcp.shared.dispatcher import CallOptions

    def _conforms(connection: SdkMcpConnection) -> McpConnection:
        return connection


__all__ = [
    "ACCEPTED_PROTOCOL_VERSIONS",
    "CLIENT_NAME",
    "CLIENT_VERSION",
    "CONNECT_TIMEOUT_DISPOSE_CAP_MS",
    "PROTOCOL_VERSION",
    "EndWatchingReadStream",
    "SdkMcpConnection",
]

CLIENT_NAME: Final = "openclaw-bundle-mcp"
CLIENT_VERSION: Final = "0.0.0"
PROTOCOL_VERSION: Final = LEGACY_LATEST_VERSION
# What the upstream client (TS SDK 1.30.0) accepts in the server's answer.
ACCEPTED_PROTOCOL_VERSIONS: Final = LEGACY_VERSIONS
# The SDK's handshake tables stop at 2024-11-05; the 2024-10-07 draft is adopted as its successor.
_SDK_FALLBACK_VERSION: Final = "2024-11-05"
# After a connect timeout the transport gets at most ``min(T, 1000)`` ms to be disposed of (§3.5, §3.7).
CONNECT_TIMEOUT_DISPOSE_CAP_MS: Final = 1_000

_CANCEL_WRITE_TIMEOUT_S: Final = 5.0

_LIST_CHANGED: Final[dict[type[Any], ListChanged]] = {
    types.ToolListChangedNotification: ListChanged("tools"),
    types.ResourceListChangedNotification: ListChanged("resources"),
    types.PromptListChangedNotification: ListChanged("prompts"),
}


class EndWatchingReadStream(anyio.abc.ObjectReceiveStream[SessionMessage | Exception]):
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

    async def aclose(self) -> None:
        await self._inner.aclose()


class SdkMcpConnection:
    """The port's ``McpConnection`` over one SDK ``ClientSession``."""

    def __init__(
        self,
        server_name: str,
        *,
        on_event: Callable[[McpEvent], None],
        log: Callable[[str], None],
        elicitation: ElicitationHandler | None = None,
        ui_extension: bool = False,
    ) -> None:
        self._server_name = server_name
        self._ui_extension = ui_extension
        self._on_event = on_event
        self._log = log
        self._elicitation = elicitation
        self._capabilities: dict[str, Any] = {}
        self._protocol_version: str | None = None
        self._envelope: dict[str, Any] | None = None
        self._spawn: Callable[[Callable[[], Coroutine[Any, Any, None]]], object] | None = None
        self._listen_started = False
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
    def protocol_version(self) -> str | None:
        return self._protocol_version

    @property
    def modern(self) -> bool:
        """True on a connection of the 2026-07-28 era (settled by ``server/discover``)."""
        return self._envelope is not None

    @property
    def closed(self) -> bool:
        return self._transport_ended or self._closing

    async def request(self, method: str, params: dict[str, Any] | None, *, timeout_ms: int) -> dict[str, Any]:
        dispatcher = self._dispatcher
        if dispatcher is None or self.closed:
            raise McpError(NOT_CONNECTED_MESSAGE)
        # The id on the wire now: a 2026 ``input_required`` retry sends the request again under a new one.
        current = [next(self._ids)]
        try:
            with anyio.move_on_after(timeout_ms / 1000):
                if self._envelope is None:
                    return await self._exchange(dispatcher, method, params, self._request_options(current[0]))
                return await self._modern_request(dispatcher, method, params, current)
        except anyio.get_cancelled_exc_class():
            with anyio.CancelScope(shield=True):
                await self._send_cancel(current[0], CALLER_CANCEL_REASON)
            raise
        await self._send_cancel(current[0], TIMEOUT_CANCEL_REASON)
        raise McpTimeout(REQUEST_TIMEOUT_MESSAGE)

    async def _modern_request(
        self, dispatcher: JSONRPCDispatcher[Any], method: str, params: dict[str, Any] | None, current: list[int]
    ) -> dict[str, Any]:
        """One 2026 request: stamped (§3.2), its ``resultType`` checked and ``input_required`` resolved (§3.6–3.7)."""
        session = self._session
        assert session is not None

        async def send(extra: dict[str, Any] | None) -> dict[str, Any]:
            if extra is not None:
                current[0] = next(self._ids)
            body = params if extra is None else {**(params or {}), **extra}
            opts = self._request_options(current[0])
            return await self._exchange(dispatcher, method, self._stamp(method, body, opts), opts)

        result = await modern.resolve_result(session, method, await send(None), send, lambda: current[0])
        if method == "tools/list":
            self._start_listen(dispatcher)
        return result

    def set_spawner(self, spawn: Callable[[Callable[[], Coroutine[Any, Any, None]]], object]) -> None:
        """Where the connection runs its background work (the 2026 ``subscriptions/listen`` stream): a task
        group of the connector that lives as long as the transport."""
        self._spawn = spawn

    def _start_listen(self, dispatcher: JSONRPCDispatcher[Any]) -> None:
        """§3.5 (D-PE7): once per 2026 connection, after its first ``tools/list`` answer, when discover advertised
        ``tools.listChanged``, open one ``subscriptions/listen`` for tool-list changes (never reopened)."""
        if self._listen_started or self._spawn is None or self.closed:
            return
        tools = self._capabilities.get("tools")
        if not (isinstance(tools, dict) and tools.get("listChanged") is True):
            return
        self._listen_started = True
        self._spawn(lambda: self._listen(dispatcher))

    async def _listen(self, dispatcher: JSONRPCDispatcher[Any]) -> None:
        """The listen stream: no request timer, no failure accounting. Its acknowledgement and notifications
        arrive as ordinary server notifications (``notifications/tools/list_changed`` → ``ListChanged``); the
        end (a result, an error, the connection closing) is logged once."""
        opts = self._request_options(next(self._ids))
        params = self._stamp("subscriptions/listen", {"notifications": {"toolsListChanged": True}}, opts)
        ending = "connection closed"
        try:
            await self._exchange(dispatcher, "subscriptions/listen", params, opts)
            ending = "result received"
        except Exception as exc:  # the stream's end is only logged
            ending = str(exc) or type(exc).__name__
        finally:
            self._log(f"bundle-mcp:{self._server_name}: subscriptions/listen ended: {sanitize_for_log(ending)}")

    # --- lifecycle (driven by the connector) ----------------------------------------------------------

    def new_session(
        self,
        read_stream: ReadStream[SessionMessage | Exception],
        write_stream: WriteStream[SessionMessage],
    ) -> tuple[JSONRPCDispatcher[Any], ClientSession]:
        """The SDK session (not yet entered) over the transport's streams; ``attach`` it once entered."""
        dispatcher: JSONRPCDispatcher[Any] = JSONRPCDispatcher(
            EndWatchingReadStream(read_stream, self._on_transport_end), write_stream
        )
        session = ClientSession(
            dispatcher=dispatcher,
            message_handler=self._on_message,
            client_info=types.Implementation(name=CLIENT_NAME, version=CLIENT_VERSION),
            elicitation_callback=self._answer_elicitation if self._elicitation is not None else None,
        )
        return dispatcher, session

    async def _answer_elicitation(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        """The host handler's answer to ``elicitation/create`` (its failure: an error answer)."""
        assert self._elicitation is not None
        request = params.model_dump(mode="json", by_alias=True, exclude_none=True)
        try:
            return types.ElicitResult.model_validate(await self._elicitation(self._server_name, request))
        except Exception as exc:
            return types.ErrorData(code=types.INTERNAL_ERROR, message=str(exc) or type(exc).__name__)

    def attach(self, dispatcher: JSONRPCDispatcher[Any], session: ClientSession) -> None:
        """Use an entered SDK session (a connector holding it in ``async with``; ``start`` does both)."""
        self._dispatcher = dispatcher
        self._session = session

    async def start(
        self,
        read_stream: ReadStream[SessionMessage | Exception],
        write_stream: WriteStream[SessionMessage],
    ) -> None:
        """Start the SDK session's receive loop over the transport's streams (``stop`` ends it)."""
        dispatcher, session = self.new_session(read_stream, write_stream)
        await session.__aenter__()
        self.attach(dispatcher, session)
        self._session_entered = True

    async def initialize(self) -> None:
        """``initialize`` + ``notifications/initialized``; raises ``McpConnectError`` for every failure."""
        dispatcher, session = self._dispatcher, self._session
        assert dispatcher is not None and session is not None, "start() first"
        capabilities: dict[str, Any] = {"elicitation": {}} if self._elicitation is not None else {}
        if self._ui_extension:
            capabilities["extensions"] = ui_extension_capability()
        params = {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": capabilities,
            "clientInfo": {"name": CLIENT_NAME, "version": CLIENT_VERSION},
        }
        try:
            raw = await self._exchange(dispatcher, "initialize", params, self._request_options(next(self._ids)))
        except McpError as exc:
            if isinstance(exc, McpRequestError) and self._modern_refusal(exc):
                await self._discover(dispatcher, session, capabilities)
                return
            error = as_connect_error(exc)
            raise error from error.__cause__
        if raw.get("protocolVersion") in MODERN_VERSIONS:
            # an initialize *answered* with the stateless revision identifies a 2026 server as surely as a refusal
            # does (today this connect fails: nothing that connects now changes)
            await self._discover(dispatcher, session, capabilities)
            return
        try:
            result = types.InitializeResult.model_validate(raw, by_name=False)
        except ValidationError:
            raise McpConnectError("MCP initialize returned an invalid result") from None
        version = result.protocol_version
        if version not in ACCEPTED_PROTOCOL_VERSIONS:
            raise McpConnectError(f"Server's protocol version is not supported: {version}")
        if version == "2024-10-07":
            result = result.model_copy(update={"protocol_version": _SDK_FALLBACK_VERSION})
        session.adopt(result)
        advertised = raw.get("capabilities")
        self._capabilities = advertised if isinstance(advertised, dict) else {}
        self._protocol_version = version
        await dispatcher.notify("notifications/initialized", None, self._notify_options())

    async def _discover(
        self, dispatcher: JSONRPCDispatcher[Any], session: ClientSession, capabilities: dict[str, Any]
    ) -> None:
        """The fallback of §3.1 steps 3–5: ``server/discover`` enveloped with the legacy identity and
        capabilities (D-PE5); a valid 2026 answer settles the era, anything else fails the connect."""
        self._envelope = request_envelope({"name": CLIENT_NAME, "version": CLIENT_VERSION}, capabilities)
        self._protocol_version = MODERN_VERSION
        opts = self._request_options(next(self._ids))
        try:
            raw = await self._exchange(dispatcher, "server/discover", self._stamp("server/discover", None, opts), opts)
        except McpError as exc:
            error = as_connect_error(exc)
            raise error from error.__cause__
        session.adopt(modern.discover_result(raw))
        advertised = raw.get("capabilities")
        self._capabilities = advertised if isinstance(advertised, dict) else {}
        self._on_modern_connect()

    async def initialize_before(self, deadline: float) -> bool:
        """``initialize`` before ``deadline`` (anyio clock): ``False`` when the deadline passed."""
        with anyio.CancelScope(deadline=deadline):
            await self.initialize()
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

    # --- hooks (a transport may refine them) ----------------------------------------------------------

    def _transport_headers(self) -> dict[str, str] | None:
        """Headers every outgoing message carries (none: only HTTP transports send headers)."""
        return None

    def _stamp(self, method: str, params: dict[str, Any] | None, opts: CallOptions) -> dict[str, Any] | None:
        """The params of a request as sent: on a 2026 connection with the ``_meta`` envelope (§3.2; an HTTP
        transport adds its per-request headers to ``opts``); unchanged on a legacy one."""
        if self._envelope is None:
            return params
        return stamp_params(params, self._envelope)

    def _modern_refusal(self, error: McpRequestError) -> bool:
        """Does this error answer to ``initialize`` identify a 2026-07-28 server (T1–T3 of §3.1)?"""
        return is_modern_refusal({"code": error.code, "message": error.error_message, "data": error.data})

    def _on_modern_connect(self) -> None:
        """Called once the connect settled the 2026 era (before the connection is handed out)."""

    async def _exchange(
        self,
        dispatcher: JSONRPCDispatcher[Any],
        method: str,
        params: dict[str, Any] | None,
        opts: CallOptions,
    ) -> dict[str, Any]:
        """One request through the SDK, its JSON-RPC error translated."""
        try:
            return await dispatcher.send_raw_request(method, params, opts)
        except MCPError as exc:
            raise self._translate(exc) from None

    def _translate(self, exc: MCPError) -> McpError:
        if exc.code == CONNECTION_CLOSED_CODE and exc.message == "Connection closed" and self.closed:
            return McpError(CONNECTION_CLOSED_MESSAGE)
        return McpRequestError(exc.code, exc.message, exc.data)

    def _transport_error(self, error: Exception) -> None:
        """The transport delivered ``error`` instead of a message (a bad stdout line, …): logged."""
        detail = sanitize_for_log(str(error).split("\n", 1)[0])
        self._log(f'bundle-mcp: server "{sanitize_for_log(self._server_name)}" transport error: {detail}')

    def _on_transport_end(self) -> None:
        self._transport_ended = True
        self.report_closed()

    # --- internals ------------------------------------------------------------------------------------

    def _request_options(self, request_id: int) -> CallOptions:
        # The SDK's own abandon-cancel carries its own reason text; this layer sends the upstream one.
        opts: CallOptions = {"request_id": request_id, "cancel_on_abandon": False}
        headers = self._transport_headers()
        if headers is not None:
            opts["headers"] = headers
        return opts

    def _notify_options(self) -> CallOptions:
        opts: CallOptions = {}
        headers = self._transport_headers()
        if headers is not None:
            opts["headers"] = headers
        return opts

    async def _send_cancel(self, request_id: int, reason: str) -> None:
        dispatcher = self._dispatcher
        if dispatcher is None or self._transport_ended:
            return
        with anyio.move_on_after(_CANCEL_WRITE_TIMEOUT_S):
            params = {"requestId": request_id, "reason": reason}
            await dispatcher.notify("notifications/cancelled", params, self._notify_options())

    async def _on_message(self, message: IncomingMessage) -> None:
        if isinstance(message, Exception):
            self._transport_error(message)
            return
        event = _LIST_CHANGED.get(type(message))
        if event is not None:
            self._on_event(event)
