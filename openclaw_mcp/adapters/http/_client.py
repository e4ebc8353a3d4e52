"""The httpx2 client the SDK's HTTP transports run on, with OpenClaw's fetch policy underneath.

The MCP Python SDK (v2) builds its streamable-HTTP and SSE transports on ``httpx2``. Everything the
reference adds around ``fetch`` (client-runtime §1.10, upstream ``mcp-http-fetch.ts``,
``mcp-http-transport.ts``) lives in :class:`McpHttpTransport`, an ``httpx2`` transport the client sends
every request through:

- configured headers (and the OAuth bearer hook) only on the server's origin;
- ``sslVerify: false`` and the client certificate only on the server's origin;
- redirects followed here, at most 20, dropping credentials on cross-origin hops, with SSRF checks;
- response bodies capped at 10 485 760 bytes, server-sent events likewise;
- failures of message ``POST`` s reported to an observer with the reference's error text and answered to
  the SDK as ``202 Accepted``: the SDK would otherwise turn them into generic JSON-RPC errors (streamable
  HTTP) or lose the request and stop writing (SSE). The connection raises the reported error for the
  request instead (see ``connector.py``).

The fetch policy itself (TLS overrides on the server origin, the SSRF checks, redirects) is
:class:`GuardedFetch`, shared with the OAuth wire adapter (``oauth.HttpOAuthProtocol``), whose discovery,
registration and token requests go through it too (every hop, the first one included, is checked).

SSRF choice (decision): the configured server origin is always allowed, whatever it resolves to (so
loopback and private servers work, as in the reference, whose policy allow-lists exactly that origin).
Requests to any *other* origin (reached through redirects, or an OAuth endpoint) are refused when the host is a
blocked name (``localhost``, ``*.localhost``, ``*.local``, ``*.internal``, ``metadata.google.internal``),
a non-global IP literal, or resolves to a non-global address. The resolution is checked before the
request and not pinned, so a DNS-rebinding race remains possible for redirect targets.
"""

from __future__ import annotations

import ipaddress
import json
import socket
import ssl
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Final, Literal, Protocol

import anyio
import httpx2

from openclaw_mcp.adapters.http._body import LimitedStream, discard, response_text
from openclaw_mcp.adapters.http._errors import (
    BodyTooLarge,
    EventTooLarge,
    HttpPolicyError,
    PostRpcError,
    fetch_error,
    post_status_error,
)
from openclaw_mcp.application.ports.mcp import McpError, McpSessionExpired
from openclaw_mcp.domain.mcp_eras import MCP_PROTOCOL_VERSION_HEADER, MODERN_VERSION, is_modern_refusal

__all__ = [
    "BLOCKED_HOST_MESSAGE",
    "BLOCKED_RESOLVED_MESSAGE",
    "MAX_REDIRECTS",
    "GuardedFetch",
    "HttpClientOptions",
    "McpHttpTransport",
    "RequestAuth",
    "TransportObserver",
    "build_ssl_context",
    "create_http_client",
]

MAX_REDIRECTS: Final = 20
# The SDK's standalone GET stream gives up after this many consecutive failures (its
# MAX_RECONNECTION_ATTEMPTS); the reference closes the transport at that point.
GET_STREAM_MAX_FAILURES: Final = 2
# undici's defaults: connect 10 s, headers/body 300 s.
CONNECT_TIMEOUT_S: Final = 10.0
READ_TIMEOUT_S: Final = 300.0

SESSION_HEADER: Final = "mcp-session-id"
_REDIRECT_STATUSES: Final = frozenset({301, 302, 303, 307, 308})
# Headers a cross-origin redirect may carry on (upstream ``CROSS_ORIGIN_REDIRECT_SAFE_HEADERS``).
_CROSS_ORIGIN_SAFE_HEADERS: Final = frozenset(
    {
        "accept",
        "accept-encoding",
        "accept-language",
        "cache-control",
        "content-language",
        "content-type",
        "if-match",
        "if-modified-since",
        "if-none-match",
        "if-unmodified-since",
        "pragma",
        "range",
        "user-agent",
    }
)
_BODY_HEADERS: Final = frozenset({"content-type", "content-encoding", "content-language", "content-location"})
_REBUILT_HEADERS: Final = frozenset({"host", "content-length", "transfer-encoding"})
# Protocol headers the SDK sets that configured headers do not override (except on the SSE event stream,
# whose request merges configured headers over the SDK's).
_SDK_OWNED_HEADERS: Final = frozenset({"accept", "content-type"})
_BLOCKED_HOSTNAMES: Final = frozenset({"localhost", "localhost.localdomain", "metadata.google.internal"})
_BLOCKED_SUFFIXES: Final = (".localhost", ".local", ".internal")
BLOCKED_HOST_MESSAGE: Final = "Blocked hostname or private/internal/special-use IP address"
BLOCKED_RESOLVED_MESSAGE: Final = "Blocked: resolves to private/internal/special-use IP address"

RequestId = int | str


class TransportObserver(Protocol):
    """Receives what the SDK transports cannot express."""

    def post_failed(self, message_id: RequestId | None, error: McpError) -> None:
        """The ``POST`` carrying JSON-RPC message ``message_id`` failed with ``error``."""

    def connection_failed(self, error: McpError) -> None:
        """The connection can no longer work (oversized event, expired session, stream gone)."""


class RequestAuth(Protocol):
    """Sends a request to the server's origin with its credentials (the OAuth bearer of spec cli-registry
    §7.9, ``oauth_auth.OAuthRequestAuth``): ``fetch`` sends one request (redirects followed) and may be
    called again to retry. Raises ``McpError`` to fail the request with that message."""

    async def send(
        self, request: httpx2.Request, fetch: Callable[[httpx2.Request], Awaitable[httpx2.Response]]
    ) -> httpx2.Response: ...

    async def aclose(self) -> None: ...


@dataclass(frozen=True, slots=True)
class HttpClientOptions:
    """Everything the HTTP client needs from a resolved ``HttpConfig`` (plus the adapter's policy).

    ``bearer`` is awaited before every request to the server's origin; a non-empty token is sent as
    ``Authorization: Bearer <token>``. It may raise ``McpError`` to fail the request with that error.
    ``auth`` (OAuth servers) sends every request to the server's origin instead, and is closed with the
    transport.
    """

    url: str
    transport_type: Literal["sse", "streamable-http"]
    headers: Mapping[str, str]
    ssl_context: ssl.SSLContext | None = None
    bearer: Callable[[], Awaitable[str | None]] | None = None
    block_private_redirects: bool = True
    auth: RequestAuth | None = None


def build_ssl_context(
    ssl_verify: bool | None, client_cert: str | None, client_key: str | None
) -> ssl.SSLContext | None:
    """The TLS context for the server origin, or ``None`` when the defaults apply (blocking: reads files).

    Raises ``OSError`` when a certificate file cannot be read and ``ssl.SSLError`` when it is unusable.
    A key without a certificate is ignored (no client certificate can be presented without one).
    """
    if ssl_verify is not False and client_cert is None:
        return None
    context = httpx2.create_ssl_context(verify=ssl_verify is not False)
    if client_cert is not None:
        for path in (client_cert, client_key):
            if path is not None:
                with open(path, "rb"):
                    pass
        context.load_cert_chain(certfile=client_cert, keyfile=client_key)
    return context


def _origin(url: httpx2.URL) -> tuple[str, str, int]:
    port = url.port
    if port is None:
        port = 443 if url.scheme == "https" else 80
    return url.scheme, url.host, port


def _jsonrpc_identity(body: bytes) -> tuple[RequestId | None, str | None]:
    try:
        message = json.loads(body)
    except ValueError:
        return None, None
    if not isinstance(message, dict):
        return None, None
    method = message.get("method")
    message_id = message.get("id")
    if isinstance(message_id, bool) or not isinstance(message_id, int | str):
        message_id = None
    return message_id, method if isinstance(method, str) else None


def _is_global_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


def _ip_literal(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return None


def _essence(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def _rpc_error(body: str) -> dict[str, object] | None:
    """The ``error`` member of a JSON-RPC error answer in ``body`` (``None``: not one)."""
    try:
        message = json.loads(body)
    except ValueError:
        return None
    error = message.get("error") if isinstance(message, dict) else None
    if not isinstance(error, dict) or isinstance(error.get("code"), bool):
        return None
    if not isinstance(error.get("code"), int) or not isinstance(error.get("message"), str):
        return None
    return error


def _status_rpc_error(
    request: httpx2.Request, rpc_method: str | None, status: int, content_type: str | None, body: str
) -> PostRpcError | None:
    """The JSON-RPC error of a ``POST`` answered ``status`` >= 400 when its era lets it through (protocol-eras
    §3.1 step 2): any ``application/json`` error body answering a 2026-07-28 request, or one answering
    ``initialize`` that identifies a 2026 server (T1–T3). ``None``: today's ``post_status_error``."""
    if _essence(content_type) != "application/json":
        return None
    modern = request.headers.get(MCP_PROTOCOL_VERSION_HEADER) == MODERN_VERSION
    if not modern and rpc_method != "initialize":
        return None
    error = _rpc_error(body)
    if error is None or not (modern or is_modern_refusal(error, http_status=status)):
        return None
    code, message = error["code"], error["message"]
    assert isinstance(code, int) and isinstance(message, str)
    return PostRpcError(code, message, error.get("data"), status)


def _accepted(request: httpx2.Request) -> httpx2.Response:
    return httpx2.Response(202, headers={"content-length": "0"}, content=b"", request=request)


class GuardedFetch:
    """The reference's guarded fetch for one server (upstream ``fetchWithSsrFGuard`` as ``mcp-http-fetch.ts``
    sets it up): ``ssl_context`` only on the server's origin; every hop (the first one included) to another
    origin refused by the SSRF rules of the module docstring unless ``block_private_origins`` is off;
    redirects followed here, at most 20, cross-origin hops keeping only the safe headers."""

    def __init__(
        self, server_url: str, ssl_context: ssl.SSLContext | None = None, *, block_private_origins: bool = True
    ) -> None:
        self._server_origin = _origin(httpx2.URL(server_url))
        self._block_private_origins = block_private_origins
        self._default = httpx2.AsyncHTTPTransport()
        self._server = httpx2.AsyncHTTPTransport(verify=ssl_context) if ssl_context is not None else self._default

    def same_origin(self, url: httpx2.URL) -> bool:
        return _origin(url) == self._server_origin

    async def check_target(self, url: httpx2.URL) -> None:
        if url.scheme not in ("http", "https"):
            raise HttpPolicyError("Invalid URL: must be http or https")
        if not self._block_private_origins or self.same_origin(url):
            return
        host = url.host.lower().rstrip(".")
        literal = _ip_literal(host)
        if (
            host in _BLOCKED_HOSTNAMES
            or host.endswith(_BLOCKED_SUFFIXES)
            or (literal is not None and not _is_global_address(literal))
        ):
            raise HttpPolicyError(BLOCKED_HOST_MESSAGE)
        if literal is not None:
            return
        try:
            infos = await anyio.getaddrinfo(host, _origin(url)[2], type=socket.SOCK_STREAM)
        except OSError:
            return  # the request itself reports the lookup failure
        for info in infos:
            address = _ip_literal(str(info[4][0]))
            if address is not None and not _is_global_address(address):
                raise HttpPolicyError(BLOCKED_RESOLVED_MESSAGE)

    async def fetch(self, request: httpx2.Request) -> httpx2.Response:
        """Send ``request``, following redirects the way the reference's guarded fetch does. Raises
        :class:`HttpPolicyError` (with the reference's text) for a refused hop, httpx2's errors otherwise."""
        current = request
        visited = {(current.method, str(current.url))}
        redirects = 0
        while True:
            await self.check_target(current.url)
            transport = self._server if self.same_origin(current.url) else self._default
            response = await transport.handle_async_request(current)
            status = response.status_code
            if status not in _REDIRECT_STATUSES:
                return response
            location = response.headers.get("location")
            await discard(response)
            redirects += 1
            if redirects > MAX_REDIRECTS:
                raise HttpPolicyError(f"Too many redirects (limit: {MAX_REDIRECTS})")
            if not location:
                raise HttpPolicyError(f"Redirect missing location header ({status})")
            try:
                target = current.url.join(location)
            except httpx2.InvalidURL as exc:
                raise HttpPolicyError("Invalid URL: must be http or https") from exc
            current = self._redirected(current, status, target)
            key = (current.method, str(current.url))
            if key in visited:
                raise HttpPolicyError("Redirect loop detected")
            visited.add(key)

    def _redirected(self, request: httpx2.Request, status: int, target: httpx2.URL) -> httpx2.Request:
        method = request.method
        content: bytes | None = request.content if method not in ("GET", "HEAD") else None
        drop = set(_REBUILT_HEADERS)
        if (status == 303 and method not in ("GET", "HEAD")) or (status in (301, 302) and method == "POST"):
            method = "GET"
            content = None
            drop |= _BODY_HEADERS
        cross_origin = _origin(target) != _origin(request.url)
        headers = [
            (name, value)
            for name, value in request.headers.multi_items()
            if name.lower() not in drop and (not cross_origin or name.lower() in _CROSS_ORIGIN_SAFE_HEADERS)
        ]
        return httpx2.Request(method, target, headers=headers, content=content, extensions=request.extensions)

    async def aclose(self) -> None:
        """Close the connection pools (shielded: an interrupted close would leave pooled sockets behind)."""
        with anyio.CancelScope(shield=True):
            await self._server.aclose()
            if self._default is not self._server:
                await self._default.aclose()


class McpHttpTransport(httpx2.AsyncBaseTransport):
    """Sends the SDK's requests with the reference's fetch policy (see the module docstring)."""

    def __init__(self, options: HttpClientOptions, observer: TransportObserver) -> None:
        self._options = options
        self._observer = observer
        self._guard = GuardedFetch(
            options.url, options.ssl_context, block_private_origins=options.block_private_redirects
        )
        self._headers = {name.lower(): value for name, value in options.headers.items()}
        self._get_stream_failures = 0
        self.session_id: str | None = None

    @property
    def streamable(self) -> bool:
        return self._options.transport_type == "streamable-http"

    def _same_origin(self, url: httpx2.URL) -> bool:
        return self._guard.same_origin(url)

    async def _fetch(self, request: httpx2.Request) -> httpx2.Response:
        return await self._guard.fetch(request)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        is_post = request.method == "POST"
        message_id: RequestId | None = None
        rpc_method: str | None = None
        if is_post:
            message_id, rpc_method = _jsonrpc_identity(await request.aread())
        had_session = SESSION_HEADER in request.headers
        stream_get = self.streamable and request.method == "GET" and had_session
        try:
            await self._add_origin_headers(request)
            if self._options.auth is not None and self._same_origin(request.url):
                response = await self._options.auth.send(request, self._fetch)
            else:
                response = await self._fetch(request)
        except (httpx2.HTTPError, httpx2.StreamError, HttpPolicyError, McpError, OSError, ValueError) as exc:
            if is_post:
                self._observer.post_failed(message_id, fetch_error(exc, request.url))
                return _accepted(request)
            if stream_get and isinstance(exc, httpx2.TransportError):
                self._get_stream_failed()
            raise
        status = response.status_code
        if is_post and status >= 400:
            body = await response_text(response)
            error: McpError | None = None
            if self.streamable:
                error = _status_rpc_error(request, rpc_method, status, response.headers.get("content-type"), body)
            if error is None:
                error = post_status_error(self._options.transport_type, status, body, had_session=had_session)
            self._observer.post_failed(message_id, error)
            return _accepted(request)
        if is_post and rpc_method == "initialize" and 200 <= status < 300:
            session_id = response.headers.get(SESSION_HEADER)
            if session_id:
                self.session_id = session_id
        content_type = response.headers.get("content-type")
        event_stream = _essence(content_type) == "text/event-stream"
        if (
            is_post
            and self.streamable
            and message_id is not None
            and rpc_method is not None
            and status != 202
            and _essence(content_type) not in ("application/json", "text/event-stream")
        ):
            self._observer.post_failed(
                message_id, McpError(f"Streamable HTTP error: Unexpected content type: {content_type or 'null'}")
            )
        if stream_get:
            if status == 404:
                self._observer.connection_failed(
                    McpSessionExpired(f"Streamable HTTP error: Failed to open SSE stream: {response.reason_phrase}")
                )
            elif 200 <= status < 300:
                self._get_stream_failures = 0

        def on_error(exc: Exception) -> None:
            if isinstance(exc, EventTooLarge):
                self._observer.connection_failed(McpError(str(exc)))
            elif is_post and isinstance(exc, BodyTooLarge):
                self._observer.post_failed(message_id, McpError(str(exc)))
            elif stream_get and isinstance(exc, httpx2.TransportError):
                self._get_stream_failed()

        stream = response.stream
        assert isinstance(stream, httpx2.AsyncByteStream)
        return httpx2.Response(
            status,
            headers=response.headers,
            stream=LimitedStream(stream, event_stream=event_stream, on_error=on_error),
            extensions=response.extensions,
            request=request,
        )

    def _get_stream_failed(self) -> None:
        self._get_stream_failures += 1
        if self._get_stream_failures >= GET_STREAM_MAX_FAILURES:
            self._observer.connection_failed(
                McpError(f"Maximum reconnection attempts ({GET_STREAM_MAX_FAILURES}) exceeded.")
            )

    async def _add_origin_headers(self, request: httpx2.Request) -> None:
        if not self._same_origin(request.url):
            return
        merge_all = self._options.transport_type == "sse" and request.method == "GET"
        for name, value in self._headers.items():
            if not merge_all and name in _SDK_OWNED_HEADERS and name in request.headers:
                continue
            request.headers[name] = value
        if self._options.bearer is not None:
            token = await self._options.bearer()
            if token:
                request.headers["authorization"] = f"Bearer {token}"

    async def aclose(self) -> None:
        # Shielded: an interrupted close would leave pooled sockets to the garbage collector.
        with anyio.CancelScope(shield=True):
            await self._guard.aclose()
            if self._options.auth is not None:
                await self._options.auth.aclose()


def create_http_client(
    options: HttpClientOptions, observer: TransportObserver
) -> tuple[httpx2.AsyncClient, McpHttpTransport]:
    """A client for one connection; its transport is returned too (it tracks the session id)."""
    transport = McpHttpTransport(options, observer)
    timeout = httpx2.Timeout(READ_TIMEOUT_S, connect=CONNECT_TIMEOUT_S, pool=None)
    client = httpx2.AsyncClient(transport=transport, timeout=timeout, follow_redirects=False, trust_env=False)
    return client, transport
