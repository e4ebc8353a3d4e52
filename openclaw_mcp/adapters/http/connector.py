"""``HttpMcpConnector``: MCP client connections over streamable HTTP and SSE (client-runtime §1.10, §3.5, §4.9).

The SDK does the protocol work: ``streamable_http_client`` / ``sse_client`` move the messages; the
client session over them is the one every SDK-backed connector shares (``adapters.mcp_sdk.session``:
``initialize`` with the exact client identity within ``connection_timeout_ms`` — here transport opening
included —, raw results, the local request timer with ``notifications/cancelled``, list-changed and closed
events). This module adds what HTTP needs on top:

- the ``MCP-Protocol-Version`` header on every message after ``initialize``;
- the 2026-07-28 era on streamable HTTP (spec protocol-eras §3.1–§3.2, §3.8–§3.9): the fallback to
  ``server/discover`` when ``initialize`` is refused by T1–T3 (the 400 refusals reach the session as
  ``PostRpcError`` with their status; ``transport: "sse"`` never falls back); per-request headers
  (``Mcp-Method``, ``Mcp-Name``, ``Mcp-Param-*`` with the SDK's ``mcp.shared.inbound`` helpers); no session, so
  no GET stream and no DELETE; cancellation aborts the request's POST (the SDK transport swallows the
  ``notifications/cancelled`` of a request sent with the 2026 version header);
- the reference's error texts for HTTP failures. The client's transport (``_client.McpHttpTransport``)
  reports each failed message ``POST`` here; the request waiting for that message raises that error
  (``fetch failed`` caused by ``connect ECONNREFUSED …``, ``Streamable HTTP error: Error POSTing to
  endpoint: <body>``, ``McpSessionExpired`` …) instead of the SDK's generic stand-in;
- closing: ``DELETE`` of the streamable-HTTP session (5 s, 2xx/404/405 accepted, otherwise
  ``McpCleanupError``), the transport closed, the closed event reported once.

Each connection runs in a task of its own (``_HttpConnection.run``, started by the shared
``ConnectionContext``), so the SDK's task groups and cancel scopes are entered and left in one task whatever
the caller does between entering and exiting; the teardown is shielded from the caller's cancellation.
"""

from __future__ import annotations

import errno
import math
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Final

import anyio
import anyio.abc
import httpx2
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import (
    MCP_METHOD_HEADER,
    MCP_NAME_HEADER,
    MCP_PROTOCOL_VERSION_HEADER,
    NAME_BEARING_METHODS,
    encode_header_value,
    find_invalid_x_mcp_header,
    mcp_param_headers,
    x_mcp_header_map,
)
from mcp.shared.jsonrpc_dispatcher import JSONRPCDispatcher
from mcp.shared.message import SessionMessage

from openclaw_mcp.adapters.http._client import (
    SESSION_HEADER,
    HttpClientOptions,
    McpHttpTransport,
    RequestAuth,
    RequestId,
    build_ssl_context,
    create_http_client,
)
from openclaw_mcp.adapters.http._errors import (
    EventTooLarge,
    HttpPolicyError,
    PostRpcError,
    fetch_cause,
    fetch_error,
    sse_connect_message,
)
from openclaw_mcp.adapters.mcp_sdk.context import ConnectionContext, ConnectRequest, SdkMcpConnector
from openclaw_mcp.adapters.mcp_sdk.errors import (
    CONNECTION_CLOSED_CODE,
    CONNECTION_CLOSED_MESSAGE,
    TIMEOUT_ABORT_MESSAGE,
    DiagnosticCause,
    as_connect_error,
    connect_timeout_error,
)
from openclaw_mcp.adapters.mcp_sdk.session import CONNECT_TIMEOUT_DISPOSE_CAP_MS, SdkMcpConnection
from openclaw_mcp.application.ports.mcp import (
    ConnectionWarning,
    ElicitationHandler,
    McpCleanupError,
    McpConnectError,
    McpConnection,
    McpError,
    McpEvent,
    McpRequestError,
)
from openclaw_mcp.domain.mcp_eras import is_modern_refusal
from openclaw_mcp.domain.redaction import redact_diagnostic, redact_sensitive_url, sanitize_for_log
from openclaw_mcp.domain.transport import HttpConfig

if TYPE_CHECKING:
    from mcp.client._transport import ReadStream, WriteStream
    from mcp.shared.dispatcher import CallOptions

__all__ = ["HttpMcpConnector"]

SESSION_TERMINATION_TIMEOUT_S: Final = 5.0
# Errors the SDK's streamable transport synthesizes (code -32000) when a response stream is lost.
_STREAM_LOST_MESSAGES: Final = frozenset(
    {"SSE stream ended without a response", "SSE stream ended and reconnection attempts were exhausted"}
)

Bearer = Callable[[], Awaitable[str | None]]


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _primary(exc: BaseException) -> BaseException:
    """The exception that explains a (possibly grouped) failure: an ``McpError`` first, then anything
    that is not a cancellation."""
    leaves = _leaves(exc)
    for leaf in leaves:
        if isinstance(leaf, McpError):
            return leaf
    cancelled = anyio.get_cancelled_exc_class()
    for leaf in leaves:
        if not isinstance(leaf, cancelled):
            return leaf
    return leaves[0]


def _file_error_text(exc: OSError) -> str:
    """Node's ``fs.readFileSync`` error text (``ENOENT: no such file or directory, open '<path>'``)."""
    name = errno.errorcode.get(exc.errno or 0)
    if name is None or exc.strerror is None:
        return str(exc)
    text = f"{name}: {exc.strerror[:1].lower()}{exc.strerror[1:]}"
    return f"{text}, open '{exc.filename}'" if exc.filename is not None else text


def _strip_authorization(headers: dict[str, str] | None) -> dict[str, str]:
    return {name: value for name, value in (headers or {}).items() if name.lower() != "authorization"}


class _Waiter:
    """One request in flight: the cancel scope of its SDK call and the HTTP failure reported for it."""

    __slots__ = ("error", "scope")

    def __init__(self) -> None:
        self.scope = anyio.CancelScope()
        self.error: McpError | None = None

    def fail(self, error: McpError) -> None:
        if self.error is None:
            self.error = error
            self.scope.cancel()


class _HttpConnection(SdkMcpConnection):
    """The port's ``McpConnection`` over one SDK HTTP transport; also the transport's observer."""

    def __init__(
        self,
        server_name: str,
        config: HttpConfig,
        *,
        on_event: Callable[[McpEvent], None],
        log: Callable[[str], None],
        elicitation: ElicitationHandler | None = None,
    ) -> None:
        super().__init__(
            server_name, on_event=on_event, log=log, elicitation=elicitation, ui_extension=config.ui_extension
        )
        self._config = config
        self._waiters: dict[RequestId, _Waiter] = {}
        self._fatal: McpError | None = None
        self._stop = anyio.Event()
        self._param_headers: dict[str, dict[tuple[str, ...], str]] = {}
        self.cleanup_error: McpCleanupError | None = None

    # --- McpConnection --------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return super().closed or self._fatal is not None

    # --- TransportObserver ----------------------------------------------------------------------------

    def post_failed(self, message_id: RequestId | None, error: McpError) -> None:
        waiter = self._waiters.get(message_id) if message_id is not None else None
        if waiter is not None:
            waiter.fail(error)
        elif message_id is None:
            self._debug(f"notification not delivered: {error}")

    def connection_failed(self, error: McpError) -> None:
        if self._fatal is not None or self._closing:
            return
        self._fatal = error
        self.set_close_reason(str(error))
        self._debug(f"closing: {error}")
        self._stop.set()

    # --- lifecycle (driven by the context) ------------------------------------------------------------

    def begin_close(self, reason: str = "connection closed") -> None:
        """Stop admitting requests (they fail with ``Not connected``) and let ``run`` tear down."""
        super().begin_close(reason)
        self._stop.set()

    async def run(
        self,
        client: httpx2.AsyncClient,
        http: McpHttpTransport,
        *,
        task_status: anyio.abc.TaskStatus[McpConnection],
    ) -> None:
        """Open the transport, initialize, serve until asked to stop, tear down (the connection's task)."""
        timeout_ms = self._config.connection_timeout_ms
        started = False
        failure: Exception | None = None
        try:
            with anyio.CancelScope(deadline=anyio.current_time() + timeout_ms / 1000) as connect_scope:
                try:
                    async with self._open_transport(client) as (read_stream, write_stream):
                        dispatcher, session = self.new_session(read_stream, write_stream)
                        async with session:
                            self.attach(dispatcher, session)
                            await self.initialize()
                            async with anyio.create_task_group() as background:  # the 2026 listen stream
                                self.set_spawner(background.start_soon)
                                connect_scope.deadline = math.inf
                                started = True
                                task_status.started(self)
                                await self._stop.wait()
                                background.cancel_scope.cancel()
                            await self._terminate_session(client, http)
                except Exception as exc:
                    failure = exc
            if not started:
                if connect_scope.cancelled_caught:
                    await self._dispose_after_timeout(client, http)
                    raise connect_timeout_error(timeout_ms)
                assert failure is not None
                raise self._connect_failure(failure)
            if failure is not None:
                cause = _primary(failure)
                self.set_close_reason(redact_diagnostic(str(cause) or type(cause).__name__))
                self._debug(f"transport failed: {type(cause).__name__}: {cause}")
        finally:
            self._dispatcher = None
            self._transport_ended = True
            await client.aclose()
            if started:
                self.report_closed()

    # --- SdkMcpConnection hooks -----------------------------------------------------------------------

    def _transport_headers(self) -> dict[str, str] | None:
        if self._protocol_version is None:
            return None
        return {MCP_PROTOCOL_VERSION_HEADER: self._protocol_version}

    def _modern_refusal(self, error: McpRequestError) -> bool:
        if self._config.transport_type != "streamable-http":
            return False
        # A JSON-RPC error the SDK parsed came with a 2xx status (the transport reports every status >= 400).
        status = error.http_status if isinstance(error, PostRpcError) else 200
        return is_modern_refusal(
            {"code": error.code, "message": error.error_message, "data": error.data}, http_status=status
        )

    def _stamp(self, method: str, params: dict[str, Any] | None, opts: CallOptions) -> dict[str, Any] | None:
        """The 2026 body (§3.2) plus its headers: ``Mcp-Method``, ``Mcp-Name`` and, for ``tools/call``, the
        ``Mcp-Param-*`` headers the listed tool's ``x-mcp-header`` annotations ask for (§3.9)."""
        stamped = super()._stamp(method, params, opts)
        if not self.modern or stamped is None:
            return stamped
        headers = opts.setdefault("headers", {})
        headers[MCP_METHOD_HEADER] = method
        name_key = NAME_BEARING_METHODS.get(method)
        name = stamped.get(name_key) if name_key is not None else None
        if isinstance(name, str):
            headers[MCP_NAME_HEADER] = encode_header_value(name)
            arguments = stamped.get("arguments")
            header_map = self._param_headers.get(name) if method == "tools/call" else None
            if header_map and isinstance(arguments, dict):
                headers.update(mcp_param_headers(header_map, arguments))
        return stamped

    def _listed_tools(self, result: dict[str, Any]) -> dict[str, Any]:
        """A 2026 ``tools/list`` page without the tools whose ``x-mcp-header`` annotations are invalid (each
        warned); the valid annotations are kept for the tool's calls (§3.9, D-PE9)."""
        tools = result.get("tools")
        if not isinstance(tools, list):
            return result
        kept: list[Any] = []
        for tool in tools:
            name = tool.get("name") if isinstance(tool, dict) else None
            schema = tool.get("inputSchema") if isinstance(tool, dict) else None
            if not isinstance(name, str):
                kept.append(tool)
                continue
            reason = find_invalid_x_mcp_header(schema)
            if reason is not None:
                self._param_headers.pop(name, None)
                text = (
                    f'server "{sanitize_for_log(self._server_name)}" tool "{sanitize_for_log(name)}" '
                    f"dropped: invalid x-mcp-header ({sanitize_for_log(reason)})"
                )
                self._on_event(ConnectionWarning(text))
                continue
            header_map = x_mcp_header_map(schema)
            if header_map:
                self._param_headers[name] = header_map
            else:
                self._param_headers.pop(name, None)
            kept.append(tool)
        return result if len(kept) == len(tools) else {**result, "tools": kept}

    async def _exchange(
        self,
        dispatcher: JSONRPCDispatcher[Any],
        method: str,
        params: dict[str, Any] | None,
        opts: CallOptions,
    ) -> dict[str, Any]:
        """One request through the SDK; a failure the HTTP layer reported for it wins over the SDK's."""
        request_id = opts["request_id"]
        waiter = _Waiter()
        self._waiters[request_id] = waiter
        outcome: dict[str, Any] | MCPError | None = None
        try:
            with waiter.scope:
                try:
                    outcome = await dispatcher.send_raw_request(method, params, opts)
                except MCPError as exc:
                    outcome = exc
        finally:
            self._waiters.pop(request_id, None)
        if waiter.error is not None:
            raise waiter.error
        if isinstance(outcome, MCPError):
            raise self._translate(outcome)
        if outcome is None:
            raise McpError(CONNECTION_CLOSED_MESSAGE)
        if method == "tools/list" and self.modern and self._config.transport_type == "streamable-http":
            return self._listed_tools(outcome)
        return outcome

    def _translate(self, exc: MCPError) -> McpError:
        lost = exc.message in _STREAM_LOST_MESSAGES or exc.message.startswith("SSE stream failed: ")
        if exc.code == CONNECTION_CLOSED_CODE and (exc.message == "Connection closed" or lost):
            error = McpError(CONNECTION_CLOSED_MESSAGE)
            if self._fatal is not None:
                error.__cause__ = self._fatal
            elif lost:
                error.__cause__ = DiagnosticCause(exc.message)
            return error
        return super()._translate(exc)

    def _transport_error(self, error: Exception) -> None:
        self._debug(f"transport error: {type(error).__name__}: {error}")

    def _on_transport_end(self) -> None:
        self.set_close_reason("transport closed")
        super()._on_transport_end()
        self._stop.set()

    # --- internals ------------------------------------------------------------------------------------

    @asynccontextmanager
    async def _open_transport(
        self, client: httpx2.AsyncClient
    ) -> AsyncIterator[tuple[ReadStream[SessionMessage | Exception], WriteStream[SessionMessage]]]:
        url = self._config.url
        if self._config.transport_type == "streamable-http":
            async with streamable_http_client(
                url, http_client=client, terminate_on_close=False, max_sse_event_size=None
            ) as streams:
                yield streams
            return

        def client_factory(
            headers: dict[str, str] | None = None,
            timeout: httpx2.Timeout | None = None,
            auth: httpx2.Auth | None = None,
        ) -> httpx2.AsyncClient:
            return client

        async with sse_client(url, httpx_client_factory=client_factory) as streams:
            yield streams

    def _connect_failure(self, failure: BaseException) -> McpConnectError:
        exc = _primary(failure)
        if isinstance(exc, McpError):
            return as_connect_error(exc)
        url = httpx2.URL(self._config.url)
        if isinstance(exc, httpx2.HTTPError | httpx2.StreamError | HttpPolicyError | OSError | EventTooLarge):
            if self._config.transport_type == "sse":
                error = McpConnectError(sse_connect_message(exc, url))
                if isinstance(exc, httpx2.TransportError | OSError) and not isinstance(exc, httpx2.SSEError):
                    error.__cause__ = DiagnosticCause(fetch_cause(exc, url).message)
                return error
            return as_connect_error(fetch_error(exc, url))
        text = redact_diagnostic(str(exc)) or type(exc).__name__
        return McpConnectError(text)

    async def _delete_session(self, client: httpx2.AsyncClient, session_id: str) -> httpx2.Response:
        headers = {SESSION_HEADER: session_id}
        if self._protocol_version is not None:
            headers[MCP_PROTOCOL_VERSION_HEADER] = self._protocol_version
        return await client.request("DELETE", self._config.url, headers=headers)

    async def _terminate_session(self, client: httpx2.AsyncClient, http: McpHttpTransport) -> None:
        """``DELETE`` the streamable-HTTP session; a failure becomes the cleanup error (reference
        ``terminateSession`` inside ``disposeMcpClient``). Skipped once the transport failed."""
        session_id = http.session_id
        if session_id is None or self._fatal is not None or self._transport_ended:
            return
        error: McpCleanupError | None = None
        try:
            with anyio.fail_after(SESSION_TERMINATION_TIMEOUT_S):
                response = await self._delete_session(client, session_id)
        except TimeoutError:
            error = McpCleanupError(TIMEOUT_ABORT_MESSAGE)
        except (httpx2.HTTPError, httpx2.StreamError, HttpPolicyError, OSError, ValueError) as exc:
            mapped = fetch_error(exc, httpx2.URL(self._config.url))
            error = McpCleanupError(str(mapped))
            error.__cause__ = mapped.__cause__
        else:
            status = response.status_code
            if not (200 <= status < 300 or status in (404, 405)):
                error = McpCleanupError(f"Streamable HTTP error: Failed to terminate session: {response.reason_phrase}")
        if error is not None:
            self.cleanup_error = error
            self._debug(f"session termination failed: {error}")

    async def _dispose_after_timeout(self, client: httpx2.AsyncClient, http: McpHttpTransport) -> None:
        """After a connect timeout: best-effort ``DELETE`` within ``min(T, 1000)`` ms (§3.5, §3.7)."""
        session_id = http.session_id
        if session_id is None:
            return
        budget_ms = min(self._config.connection_timeout_ms, CONNECT_TIMEOUT_DISPOSE_CAP_MS)
        with anyio.move_on_after(budget_ms / 1000, shield=True):
            try:
                await self._delete_session(client, session_id)
            except (httpx2.HTTPError, httpx2.StreamError, HttpPolicyError, OSError, ValueError) as exc:
                self._debug(f"session termination failed: {fetch_error(exc, None)}")

    def _debug(self, text: str) -> None:
        self._log(f"bundle-mcp:{self._server_name}: {sanitize_for_log(redact_diagnostic(text))}")


class _HttpConnectionContext(ConnectionContext):
    """The async context manager ``HttpMcpConnector.connect`` returns (one use)."""

    _already_started_message = "HTTP MCP connection already opened; call connect() again"
    # The teardown completes even when the caller is being cancelled; it is bounded by the DELETE timeout.
    _shield_teardown = True
    _cleanup_error_replaces_body_error = False

    def __init__(self, connector: HttpMcpConnector, request: ConnectRequest) -> None:
        super().__init__(request)
        self._connector = connector
        self._connection: _HttpConnection | None = None

    async def _client_options(self, config: HttpConfig) -> HttpClientOptions:
        prefix = "SSE error: " if config.transport_type == "sse" else ""
        try:
            url = httpx2.URL(config.url)
        except httpx2.InvalidURL:
            raise McpConnectError(f"{prefix}Invalid URL: {redact_sensitive_url(config.url)}") from None
        if url.userinfo:
            # What undici's fetch does with such a URL; httpx2 would send the userinfo as Basic auth.
            raise McpConnectError(
                f"{prefix}Request cannot be constructed from a URL that includes credentials: "
                f"{redact_sensitive_url(config.url)}"
            )
        try:
            ssl_context = await anyio.to_thread.run_sync(
                build_ssl_context, config.ssl_verify, config.client_cert, config.client_key
            )
        except ssl.SSLError as exc:
            raise McpConnectError(f"{prefix}{exc.reason or exc}") from None
        except OSError as exc:
            raise McpConnectError(f"{prefix}{_file_error_text(exc)}") from None
        oauth_profile = (config.oauth or {}).get("authProfileId")
        oauth = config.auth == "oauth" or (isinstance(oauth_profile, str) and bool(oauth_profile.strip()))
        headers = _strip_authorization(config.headers) if oauth else dict(config.headers or {})
        return HttpClientOptions(
            url=config.url,
            transport_type=config.transport_type,
            headers=headers,
            ssl_context=ssl_context,
            bearer=self._connector.bearer,
            block_private_redirects=self._connector.block_private_redirects,
            auth=self._connector.oauth(self._server_name, config)
            if config.auth == "oauth" and self._connector.oauth is not None
            else None,
        )

    async def _run(self, *, task_status: anyio.abc.TaskStatus[McpConnection]) -> None:
        config = self._config
        if not isinstance(config, HttpConfig):
            raise McpConnectError("HttpMcpConnector opens HTTP servers only (got a stdio config)")
        options = await self._client_options(config)
        connection = _HttpConnection(
            self._server_name, config, on_event=self._on_event, log=self._log, elicitation=self._elicitation
        )
        client, http = create_http_client(options, connection)
        self._connection = connection
        try:
            await connection.run(client, http, task_status=task_status)
        finally:
            self._cleanup_error = connection.cleanup_error

    def _request_stop(self) -> None:
        super()._request_stop()
        if self._connection is not None:
            self._connection.begin_close()


class HttpMcpConnector(SdkMcpConnector):
    """Opens MCP connections over streamable HTTP or SSE (``HttpConfig``), one task per connection.

    ``bearer``: the hook for OAuth (``auth: "oauth"``, out of scope for now): when given, it is awaited
    before every request to the server's origin and a non-empty result is sent as
    ``Authorization: Bearer <token>``; raising ``McpError`` fails that request (or the connect) with it.
    With ``auth: "oauth"`` (or an ``oauth.authProfileId``) any configured ``Authorization`` header is
    dropped. ``oauth``: for servers with ``auth: "oauth"``, builds the request authenticator of one
    connection (server name, config) — the §7.9 token use; a failure to resolve a token fails the connect
    with its message. ``block_private_redirects``: the SSRF check on redirect targets outside the server's origin
    (see ``_client``); only tests turn it off.
    """

    def __init__(
        self,
        *,
        bearer: Bearer | None = None,
        block_private_redirects: bool = True,
        oauth: Callable[[str, HttpConfig], RequestAuth] | None = None,
        elicitation: ElicitationHandler | None = None,
    ) -> None:
        self.elicitation = elicitation
        self.bearer = bearer
        self.block_private_redirects = block_private_redirects
        self.oauth = oauth

    def _context(self, request: ConnectRequest) -> _HttpConnectionContext:
        return _HttpConnectionContext(self, request)


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.mcp import McpConnector

    _connector: McpConnector = HttpMcpConnector()
