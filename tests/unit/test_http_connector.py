"""HTTP specifics of ``HttpMcpConnector`` (client-runtime §1.10, §3.5, §4.9, §4.12), against loopback servers.

Expected texts are the reference's (Node 24 ``fetch`` and MCP TS SDK 1.30.0 as embedded in OpenClaw
2026.9.6), verified against the reference where noted: refused connections
(``fetch failed | connect ECONNREFUSED 127.0.0.1:<port> | ECONNREFUSED`` and
``SSE error: TypeError: fetch failed: connect ECONNREFUSED 127.0.0.1:<port>``) and the self-signed
certificate rejection (``self-signed certificate; if the root CA is installed locally, try running
Node.js with --use-system-ca`` / ``DEPTH_ZERO_SELF_SIGNED_CERT``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from openclaw_mcp.adapters.http import HttpMcpConnector
from openclaw_mcp.adapters.http._client import HttpClientOptions, create_http_client
from openclaw_mcp.application.ports.mcp import (
    ConnectionClosed,
    McpCleanupError,
    McpConnectError,
    McpConnection,
    McpError,
    McpEvent,
    McpSessionExpired,
    McpTimeout,
)
from openclaw_mcp.domain.redaction import redact_diagnostic
from openclaw_mcp.domain.transport import HttpConfig
from tests.fixtures.http_servers import (
    Canned,
    LoopbackServer,
    RecordedRequest,
    Transport,
    answer_posts,
    closed_port,
    crash_app,
    http_only,
    make_certificates,
    mcp_app,
    redirect_app,
    require_header,
    routes,
)
from tests.fixtures.mcp_servers.contract_server import build_server

pytestmark = pytest.mark.asyncio

TRANSPORTS = [pytest.param("streamable-http", id="streamable"), pytest.param("sse", id="sse")]
MAX = 10_485_760


def http_config(
    url: str,
    transport: Transport = "streamable-http",
    *,
    headers: dict[str, str] | None = None,
    auth: Any = None,
    oauth: dict[str, Any] | None = None,
    ssl_verify: bool | None = None,
    client_cert: str | None = None,
    client_key: str | None = None,
    connection_timeout_ms: int = 4_000,
) -> HttpConfig:
    return HttpConfig(
        transport_type=transport,
        url=url,
        headers=headers,
        auth=auth,
        oauth=oauth,
        ssl_verify=ssl_verify,
        client_cert=client_cert,
        client_key=client_key,
        description=url,
        connection_timeout_ms=connection_timeout_ms,
        request_timeout_ms=4_000,
        supports_parallel_tool_calls=False,
    )


def contract_server(transport: Transport, **options: Any) -> LoopbackServer:
    def build(server: LoopbackServer) -> Any:
        return mcp_app(build_server(on_exit=server.go_away), transport)

    return LoopbackServer(build, **options)


def endpoint(server: LoopbackServer, transport: Transport) -> str:
    return server.url("/mcp" if transport == "streamable-http" else "/sse")


def diagnostic(exc: BaseException) -> str:
    """The runtime's join of a connection error (§4.12): the message, then per cause its message unless
    already contained, and its string/number ``code``."""
    parts = [str(exc)]
    cause = exc.__cause__
    while cause is not None:
        message = str(cause)
        if message and message not in " | ".join(parts):
            parts.append(message)
        code = getattr(cause, "code", None)
        if isinstance(code, str | int) and not isinstance(code, bool):
            parts.append(str(code))
        cause = cause.__cause__
    return " | ".join(parts)


def every_text(exc: BaseException) -> str:
    """Every message reachable from ``exc`` (causes and contexts)."""
    texts: list[str] = []
    seen: set[int] = set()
    pending: list[BaseException | None] = [exc]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        texts.append(f"{current!s} {current!r}")
        pending.extend([current.__cause__, current.__context__])
    return "\n".join(texts)


class Recorder:
    def __init__(self) -> None:
        self.events: list[McpEvent] = []
        self.logs: list[str] = []

    async def closed(self) -> ConnectionClosed:
        while True:
            for event in self.events:
                if isinstance(event, ConnectionClosed):
                    return event
            await anyio.sleep(0.01)


@asynccontextmanager
async def opened(
    config: HttpConfig, connector: HttpMcpConnector | None = None
) -> AsyncIterator[tuple[McpConnection, Recorder]]:
    recorder = Recorder()
    async with (connector or HttpMcpConnector()).connect(
        "srv", config, on_event=recorder.events.append, log=recorder.logs.append
    ) as connection:
        yield connection, recorder


async def connect_error(config: HttpConfig, connector: HttpMcpConnector | None = None) -> McpConnectError:
    with pytest.raises(McpConnectError) as caught:
        async with opened(config, connector):
            pass
    return caught.value


def by_method(requests: list[RecordedRequest], method: str) -> list[RecordedRequest]:
    return [request for request in requests if request.method == method]


# --- headers --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_configured_headers_reach_the_server_on_every_request(transport: Transport) -> None:
    with anyio.fail_after(5):
        async with contract_server(transport) as server:
            config = http_config(endpoint(server, transport), transport, headers={"X-Custom": "yes", "B": "true"})
            async with opened(config) as (connection, _):
                await connection.request("tools/list", None, timeout_ms=4_000)
    assert server.requests
    assert all(request.headers.get("x-custom") == "yes" for request in server.requests)
    assert all(request.headers.get("b") == "true" for request in server.requests)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_server_checking_a_custom_header_accepts_the_configured_one_only(transport: Transport) -> None:
    with anyio.fail_after(5):
        async with contract_server(transport) as server:
            server.override = require_header("X-Api-Key", "k-1", body=b"missing key")
            url = endpoint(server, transport)
            async with opened(http_config(url, transport, headers={"X-Api-Key": "k-1"})) as (connection, _):
                result = await connection.request("tools/call", {"name": "echo", "arguments": {}}, timeout_ms=4_000)
            error = await connect_error(http_config(url, transport))
    assert result["content"][0]["text"] == "{}"
    if transport == "streamable-http":
        assert str(error) == "Streamable HTTP error: Error POSTing to endpoint: missing key"
    else:
        assert str(error) == "SSE error: Non-200 status code (401)"


async def test_the_sse_event_stream_request_merges_headers_with_configured_values_winning() -> None:
    with anyio.fail_after(5):
        async with contract_server("sse") as server:
            config = http_config(server.url("/sse"), "sse", headers={"Cache-Control": "max-age=7", "ACCEPT": "*/*"})
            async with opened(config) as (connection, _):
                await connection.request("tools/list", None, timeout_ms=4_000)
    stream = by_method(server.requests, "GET")[0]
    assert stream.headers["cache-control"] == "max-age=7"
    assert stream.headers["accept"] == "*/*"


async def test_streamable_posts_keep_the_protocol_content_type_and_accept() -> None:
    with anyio.fail_after(5):
        async with contract_server("streamable-http") as server:
            headers = {"Content-Type": "text/plain", "Accept": "text/html", "X-Other": "1"}
            async with opened(http_config(server.url("/mcp"), headers=headers)) as (connection, _):
                await connection.request("tools/list", None, timeout_ms=4_000)
    post = by_method(server.requests, "POST")[0]
    assert post.headers["content-type"] == "application/json"
    assert post.headers["accept"] == "application/json, text/event-stream"
    assert post.headers["x-other"] == "1"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_oauth_drops_the_configured_authorization_and_uses_the_bearer_hook(transport: Transport) -> None:
    async def bearer() -> str | None:
        return "tok-123"

    with anyio.fail_after(5):
        async with contract_server(transport) as server:
            headers = {"authorization": "Bearer configured", "X-Keep": "1"}
            config = http_config(endpoint(server, transport), transport, headers=headers, auth="oauth")
            async with opened(config) as (connection, _):
                await connection.request("tools/list", None, timeout_ms=4_000)
            async with opened(config, HttpMcpConnector(bearer=bearer)) as (connection, _):
                await connection.request("tools/list", None, timeout_ms=4_000)
    first, second = (
        [request for request in server.requests if request.headers.get("authorization") is None],
        [request for request in server.requests if request.headers.get("authorization") == "Bearer tok-123"],
    )
    assert first and second
    assert len(first) + len(second) == len(server.requests)
    assert all(request.headers.get("x-keep") == "1" for request in server.requests)


class _Observer:
    def __init__(self) -> None:
        self.failures: list[tuple[object, McpError]] = []
        self.fatal: list[McpError] = []

    def post_failed(self, message_id: object, error: McpError) -> None:
        self.failures.append((message_id, error))

    def connection_failed(self, error: McpError) -> None:
        self.fatal.append(error)


@asynccontextmanager
async def http_client(
    url: str, *, headers: dict[str, str] | None = None, block: bool = True, bearer: Any = None
) -> AsyncIterator[tuple[httpx2.AsyncClient, _Observer]]:
    observer = _Observer()
    options = HttpClientOptions(
        url=url,
        transport_type="streamable-http",
        headers=headers or {},
        bearer=bearer,
        block_private_redirects=block,
    )
    client, _ = create_http_client(options, observer)
    try:
        yield client, observer
    finally:
        await client.aclose()


def _echo_app() -> Any:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": b"{}", "more_body": False})

    return http_only(app)


async def test_configured_headers_and_the_bearer_stay_on_the_server_origin_across_redirects() -> None:
    async def bearer() -> str | None:
        return "tok"

    with anyio.fail_after(5):
        async with (
            LoopbackServer(lambda _: _echo_app()) as other,
            LoopbackServer(lambda _: redirect_app(other.url("/landing"))) as server,
            http_client(server.url("/mcp"), headers={"X-Secret": "s3"}, block=False, bearer=bearer) as clients,
        ):
            client, observer = clients
            response = await client.post(
                server.url("/mcp"), json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers={"Accept": "x/y"}
            )
    assert response.status_code == 200
    assert observer.failures == []
    [origin_request] = server.requests
    [redirected] = other.requests
    assert origin_request.headers["x-secret"] == "s3"
    assert origin_request.headers["authorization"] == "Bearer tok"
    assert "x-secret" not in redirected.headers
    assert "authorization" not in redirected.headers
    assert redirected.method == "POST"
    assert redirected.headers["accept"] == "x/y"
    assert json.loads(redirected.body)["method"] == "ping"


async def test_a_303_redirect_turns_a_post_into_a_get() -> None:
    with anyio.fail_after(5):
        async with (
            LoopbackServer(lambda _: _echo_app()) as other,
            LoopbackServer(lambda _: redirect_app(other.url("/x"), status=303)) as server,
            http_client(server.url("/mcp"), block=False) as (client, _),
        ):
            await client.post(server.url("/mcp"), json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    [redirected] = other.requests
    assert redirected.method == "GET"
    assert redirected.body == b""


async def test_redirects_to_private_network_targets_are_blocked() -> None:
    with anyio.fail_after(5):
        async with (
            contract_server("streamable-http") as other,
            LoopbackServer(lambda _: redirect_app(other.url("/mcp"))) as server,
        ):
            error = await connect_error(http_config(server.url("/mcp")))
    assert str(error) == "Blocked hostname or private/internal/special-use IP address"
    assert other.requests == []


async def test_redirects_within_the_server_origin_are_followed_with_the_headers() -> None:
    def build(server: LoopbackServer) -> Any:
        contract = mcp_app(build_server(on_exit=server.go_away), "streamable-http")
        return routes({"/old": redirect_app(server.url("/mcp")), "/mcp": contract}, lifespan=contract)

    with anyio.fail_after(5):
        async with LoopbackServer(build) as server:
            config = http_config(server.url("/old"), headers={"X-Custom": "1"})
            async with opened(config) as (connection, _):
                result = await connection.request("tools/list", None, timeout_ms=4_000)
    assert len(result["tools"]) == 6
    moved = [request for request in server.requests if request.path == "/mcp"]
    assert moved and all(request.headers.get("x-custom") == "1" for request in moved)
    assert [request.method for request in moved].count("DELETE") == 1


async def test_more_than_20_redirects_fail() -> None:
    def build(server: LoopbackServer) -> Any:
        async def app(scope: Any, receive: Any, send: Any) -> None:
            hop = int(scope["path"].rsplit("/", 1)[-1] or 0) if scope["path"].startswith("/hop/") else 0
            await redirect_app(server.url(f"/hop/{hop + 1}"))(scope, receive, send)

        return http_only(app)

    with anyio.fail_after(5):
        async with LoopbackServer(build) as server:
            error = await connect_error(http_config(server.url("/hop/0")))
    assert str(error) == "Too many redirects (limit: 20)"
    assert len(server.requests) == 21


async def test_a_redirect_loop_fails() -> None:
    with anyio.fail_after(5):
        async with LoopbackServer(lambda server: redirect_app(server.url("/mcp"))) as server:
            error = await connect_error(http_config(server.url("/mcp")))
    assert str(error) == "Redirect loop detected"


# --- refused connections, HTTP errors -------------------------------------------------------------------


async def test_a_refused_streamable_connection_reads_like_node_fetch() -> None:
    with closed_port() as port, anyio.fail_after(5):
        error = await connect_error(http_config(f"http://127.0.0.1:{port}/mcp"))
    assert str(error) == "fetch failed"
    assert diagnostic(error) == f"fetch failed | connect ECONNREFUSED 127.0.0.1:{port} | ECONNREFUSED"


async def test_a_refused_sse_connection_reads_like_the_event_source() -> None:
    with closed_port() as port, anyio.fail_after(5):
        error = await connect_error(http_config(f"http://127.0.0.1:{port}/sse", "sse"))
    expected = f"SSE error: TypeError: fetch failed: connect ECONNREFUSED 127.0.0.1:{port}"
    assert str(error) == expected
    assert diagnostic(error) == expected


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_http_error_status_on_post_fails_the_connect_with_the_body(transport: Transport) -> None:
    with anyio.fail_after(5):
        async with contract_server(transport) as server:
            server.override = answer_posts(500, b'{"secret":"body"}')
            error = await connect_error(http_config(endpoint(server, transport), transport))
    if transport == "streamable-http":
        assert str(error) == 'Streamable HTTP error: Error POSTing to endpoint: {"secret":"body"}'
        assert redact_diagnostic(diagnostic(error)) == (
            "Streamable HTTP error: Error POSTing to endpoint: [redacted response body]"
        )
    else:
        assert str(error) == 'Error POSTing to endpoint (HTTP 500): {"secret":"body"}'
        assert redact_diagnostic(diagnostic(error)) == "Error POSTing to endpoint (HTTP 500): [redacted response body]"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_http_error_on_one_request_fails_only_that_request(transport: Transport) -> None:
    def fail_calls(request: RecordedRequest) -> Canned | None:
        return Canned(502, b"upstream down") if request.rpc_method == "tools/call" else None

    with anyio.fail_after(5):
        async with (
            contract_server(transport) as server,
            opened(http_config(endpoint(server, transport), transport)) as (connection, recorder),
        ):
            server.override = fail_calls
            with pytest.raises(McpError) as caught:
                await connection.request("tools/call", {"name": "echo", "arguments": {}}, timeout_ms=4_000)
            server.override = None
            result = await connection.request("tools/call", {"name": "echo", "arguments": {}}, timeout_ms=4_000)
            assert connection.closed is False
    assert not isinstance(caught.value, McpSessionExpired)
    if transport == "streamable-http":
        assert str(caught.value) == "Streamable HTTP error: Error POSTing to endpoint: upstream down"
    else:
        assert str(caught.value) == "Error POSTing to endpoint (HTTP 502): upstream down"
    assert result["content"][0]["text"] == "{}"
    assert [event for event in recorder.events if isinstance(event, ConnectionClosed)] == [
        ConnectionClosed("connection closed")
    ]


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_404_to_a_request_of_a_live_session_is_an_expired_session(transport: Transport) -> None:
    def expire(request: RecordedRequest) -> Canned | None:
        if request.method != "POST":
            return None
        if "mcp-session-id" in request.headers or "session_id=" in request.query:
            return Canned(404, b"Session not found")
        return None

    with anyio.fail_after(5):
        async with (
            contract_server(transport) as server,
            opened(http_config(endpoint(server, transport), transport)) as (connection, _),
        ):
            server.override = expire
            with pytest.raises(McpSessionExpired) as caught:
                await connection.request("tools/list", None, timeout_ms=4_000)
            server.override = None
    if transport == "streamable-http":
        assert str(caught.value) == "Streamable HTTP error: Error POSTing to endpoint: Session not found"
    else:
        assert str(caught.value) == "Error POSTing to endpoint (HTTP 404): Session not found"


async def test_a_streamable_404_without_a_session_is_not_an_expired_session() -> None:
    with anyio.fail_after(5):
        async with contract_server("streamable-http") as server:
            server.override = lambda request: Canned(404, b"no such endpoint")
            error = await connect_error(http_config(server.url("/mcp")))
    assert str(error) == "Streamable HTTP error: Error POSTing to endpoint: no such endpoint"


# --- session termination --------------------------------------------------------------------------------


async def test_closing_a_streamable_connection_deletes_its_session() -> None:
    with anyio.fail_after(5):
        async with (
            contract_server("streamable-http") as server,
            opened(http_config(server.url("/mcp"), headers={"X-Custom": "1"})) as (connection, _),
        ):
            await connection.request("tools/list", None, timeout_ms=4_000)
            session_id = by_method(server.requests, "POST")[-1].headers["mcp-session-id"]
    [delete] = by_method(server.requests, "DELETE")
    assert delete.headers["mcp-session-id"] == session_id
    assert delete.headers["mcp-protocol-version"] == "2025-11-25"
    assert delete.headers["x-custom"] == "1"


@pytest.mark.parametrize("status", [404, 405])
async def test_a_404_or_405_to_the_session_delete_is_accepted(status: int) -> None:
    with anyio.fail_after(5):
        async with contract_server("streamable-http") as server:
            server.override = lambda request: Canned(status) if request.method == "DELETE" else None
            async with opened(http_config(server.url("/mcp"))) as (connection, recorder):
                await connection.request("tools/list", None, timeout_ms=4_000)
    assert connection.closed is True
    assert len(by_method(server.requests, "DELETE")) == 1
    assert recorder.events == [ConnectionClosed("connection closed")]


async def test_a_failed_session_delete_is_a_cleanup_error() -> None:
    with anyio.fail_after(5):
        async with contract_server("streamable-http") as server:
            server.override = lambda request: Canned(500) if request.method == "DELETE" else None
            with pytest.raises(McpCleanupError) as caught:
                async with opened(http_config(server.url("/mcp"))) as (connection, recorder):
                    await connection.request("tools/list", None, timeout_ms=4_000)
    assert str(caught.value) == "Streamable HTTP error: Failed to terminate session: Internal Server Error"
    assert connection.closed is True
    assert len(recorder.events) == 1


async def test_sse_connections_send_no_delete() -> None:
    with anyio.fail_after(5):
        async with (
            contract_server("sse") as server,
            opened(http_config(server.url("/sse"), "sse")) as (connection, _),
        ):
            await connection.request("tools/list", None, timeout_ms=4_000)
    assert by_method(server.requests, "DELETE") == []


# --- initialize, timeouts -------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_initialize_sends_the_openclaw_client_identity(transport: Transport) -> None:
    with anyio.fail_after(5):
        async with (
            contract_server(transport) as server,
            opened(http_config(endpoint(server, transport), transport)),
        ):
            pass
    posts = [json.loads(request.body) for request in by_method(server.requests, "POST")]
    initialize = next(message for message in posts if message.get("method") == "initialize")
    assert initialize["params"] == {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "openclaw-bundle-mcp", "version": "0.0.0"},
    }
    assert any(message.get("method") == "notifications/initialized" for message in posts)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_request_timeout_is_local_and_cancels_the_request(transport: Transport) -> None:
    with anyio.fail_after(5):
        async with (
            contract_server(transport) as server,
            opened(http_config(endpoint(server, transport), transport)) as (connection, _),
        ):
            with pytest.raises(McpTimeout) as caught:
                await connection.request("tools/call", {"name": "slow", "arguments": {}}, timeout_ms=200)
            result = await connection.request("tools/call", {"name": "cancellations"}, timeout_ms=4_000)
    assert str(caught.value) == "MCP error -32001: Request timed out"
    [cancelled] = json.loads(result["content"][0]["text"])
    assert cancelled["reason"] == "McpError: MCP error -32001: Request timed out"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_connect_deadline_covers_opening_the_transport(transport: Transport) -> None:
    stalled = anyio.Event()

    def build(server: LoopbackServer) -> Any:
        async def app(scope: Any, receive: Any, send: Any) -> None:
            assert server.stopping is not None
            await server.stopping.wait()

        return http_only(app)

    with anyio.fail_after(5):
        async with LoopbackServer(build) as server:
            with pytest.raises(McpTimeout) as caught:
                async with opened(http_config(endpoint(server, transport), transport, connection_timeout_ms=300)):
                    stalled.set()
    assert not stalled.is_set()
    assert str(caught.value) == "MCP server connection timed out after 300ms"
    assert diagnostic(caught.value) == (
        "MCP server connection timed out after 300ms | The operation was aborted due to timeout | 23"
    )


async def test_a_json_rpc_error_answer_to_initialize_is_the_connect_error_without_a_cause() -> None:
    error_body = {"code": -32602, "message": "Unsupported protocol version"}
    answer = json.dumps({"jsonrpc": "2.0", "id": 0, "error": error_body}).encode()

    def refuse_initialize(request: RecordedRequest) -> Canned | None:
        return Canned(200, answer, "application/json") if request.rpc_method == "initialize" else None

    with anyio.fail_after(5):
        async with contract_server("streamable-http") as server:
            server.override = refuse_initialize
            error = await connect_error(http_config(endpoint(server, "streamable-http")))
    assert str(error) == "MCP error -32602: Unsupported protocol version"
    assert error.__cause__ is None


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_server_gone_before_initialize_fails_the_connect(transport: Transport) -> None:
    with anyio.fail_after(5):
        async with LoopbackServer(lambda _: routes({"/": crash_app(transport)})) as server:
            error = await connect_error(http_config(endpoint(server, transport), transport))
    assert str(error) == "MCP error -32000: Connection closed"


# --- size caps ------------------------------------------------------------------------------------------


async def test_a_response_body_over_10_mib_fails_the_request_only() -> None:
    huge = Canned(200, b'"' + b"x" * MAX + b'"', content_type="application/json")
    with anyio.fail_after(5):
        async with (
            contract_server("streamable-http") as server,
            opened(http_config(server.url("/mcp"))) as (connection, _),
        ):
            server.override = lambda request: huge if request.rpc_method == "tools/list" else None
            with pytest.raises(McpError) as caught:
                await connection.request("tools/list", None, timeout_ms=4_000)
            server.override = None
            result = await connection.request("tools/list", None, timeout_ms=4_000)
    assert str(caught.value) == "MCP HTTP response exceeds 10485760 bytes"
    assert len(result["tools"]) == 6


async def test_a_response_body_of_exactly_10_mib_is_read() -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"pad": ""}}).encode()
    pad = MAX - len(body)
    exact = json.dumps({"jsonrpc": "2.0", "id": 1, "result": {"pad": "x" * pad}}).encode()
    assert len(exact) == MAX
    with anyio.fail_after(5):
        async with LoopbackServer(lambda _: _echo_app()) as server:
            server.override = lambda request: Canned(200, exact, content_type="application/json")
            async with http_client(server.url("/mcp")) as (client, observer):
                response = await client.post(server.url("/mcp"), json={"jsonrpc": "2.0", "id": 1, "method": "x"})
    assert len(response.content) == MAX
    assert observer.failures == []


async def test_a_server_sent_event_over_10_mib_closes_the_connection() -> None:
    event = b"event: message\ndata: " + b"x" * MAX + b"\n\n"
    huge = Canned(200, event, content_type="text/event-stream")
    with anyio.fail_after(5):
        async with (
            contract_server("streamable-http") as server,
            opened(http_config(server.url("/mcp"))) as (connection, recorder),
        ):
            server.override = lambda request: huge if request.rpc_method == "tools/list" else None
            with pytest.raises(McpError) as caught:
                await connection.request("tools/list", None, timeout_ms=4_000)
            closed = await recorder.closed()
            assert connection.closed is True
    assert str(caught.value) == "MCP error -32000: Connection closed"
    assert diagnostic(caught.value) == "MCP error -32000: Connection closed | MCP SSE event exceeds 10485760 bytes"
    assert closed == ConnectionClosed("MCP SSE event exceeds 10485760 bytes")


# --- TLS ------------------------------------------------------------------------------------------------


async def test_the_default_tls_verification_rejects_a_self_signed_certificate(tmp_path: Path) -> None:
    certificates = make_certificates(tmp_path)
    with anyio.fail_after(5):
        async with contract_server("streamable-http", certificates=certificates) as server:
            error = await connect_error(http_config(server.url("/mcp")))
    assert diagnostic(error) == (
        "fetch failed | self-signed certificate; if the root CA is installed locally, try running Node.js with "
        "--use-system-ca | DEPTH_ZERO_SELF_SIGNED_CERT"
    )


async def test_a_self_signed_sse_server_is_rejected_too(tmp_path: Path) -> None:
    certificates = make_certificates(tmp_path)
    with anyio.fail_after(5):
        async with contract_server("sse", certificates=certificates) as server:
            error = await connect_error(http_config(server.url("/sse"), "sse"))
    assert str(error) == (
        "SSE error: TypeError: fetch failed: self-signed certificate; if the root CA is installed locally, "
        "try running Node.js with --use-system-ca"
    )


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_ssl_verify_false_accepts_a_self_signed_certificate(transport: Transport, tmp_path: Path) -> None:
    certificates = make_certificates(tmp_path)
    with anyio.fail_after(5):
        async with contract_server(transport, certificates=certificates) as server:
            config = http_config(endpoint(server, transport), transport, ssl_verify=False)
            async with opened(config) as (connection, _):
                result = await connection.request("tools/list", None, timeout_ms=4_000)
    assert len(result["tools"]) == 6


async def test_tls_overrides_apply_to_the_server_origin_only(tmp_path: Path) -> None:
    certificates = make_certificates(tmp_path)
    with anyio.fail_after(5):
        async with (
            LoopbackServer(lambda _: _echo_app(), certificates=certificates) as other,
            LoopbackServer(lambda _: redirect_app(other.url("/x")), certificates=certificates) as server,
        ):
            error = await connect_error(
                http_config(server.url("/mcp"), ssl_verify=False), HttpMcpConnector(block_private_redirects=False)
            )
    assert str(error) == "fetch failed"
    assert "DEPTH_ZERO_SELF_SIGNED_CERT" in diagnostic(error)
    assert len(server.requests) == 1
    assert other.requests == []


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_mtls_works_with_the_client_certificate(transport: Transport, tmp_path: Path) -> None:
    certificates = make_certificates(tmp_path)
    with anyio.fail_after(5):
        async with contract_server(transport, certificates=certificates, require_client_cert=True) as server:
            config = http_config(
                endpoint(server, transport),
                transport,
                ssl_verify=False,
                client_cert=str(certificates.client_cert),
                client_key=str(certificates.client_key),
            )
            async with opened(config) as (connection, _):
                result = await connection.request("tools/list", None, timeout_ms=4_000)
    assert len(result["tools"]) == 6


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_mtls_fails_without_an_accepted_client_certificate(transport: Transport, tmp_path: Path) -> None:
    certificates = make_certificates(tmp_path)
    with anyio.fail_after(5):
        async with contract_server(transport, certificates=certificates, require_client_cert=True) as server:
            url = endpoint(server, transport)
            without = await connect_error(http_config(url, transport, ssl_verify=False))
            stranger = await connect_error(
                http_config(
                    url,
                    transport,
                    ssl_verify=False,
                    client_cert=str(certificates.other_client_cert),
                    client_key=str(certificates.other_client_key),
                )
            )
    prefix = "fetch failed" if transport == "streamable-http" else "SSE error: TypeError: fetch failed: "
    assert str(without).startswith(prefix)
    assert str(stranger).startswith(prefix)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_unreadable_client_certificate_fails_the_connect(transport: Transport, tmp_path: Path) -> None:
    missing = tmp_path / "missing.pem"
    with anyio.fail_after(5):
        error = await connect_error(
            http_config("https://127.0.0.1:9/mcp", transport, client_cert=str(missing), client_key=str(missing))
        )
    prefix = "SSE error: " if transport == "sse" else ""
    assert str(error) == f"{prefix}ENOENT: no such file or directory, open '{missing}'"


# --- secrets --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_url_with_credentials_is_refused_without_echoing_them(transport: Transport) -> None:
    with anyio.fail_after(5):
        error = await connect_error(http_config("http://user:hunter2@127.0.0.1:9/mcp?token=abc123", transport))
    prefix = "SSE error: " if transport == "sse" else ""
    assert str(error) == (
        f"{prefix}Request cannot be constructed from a URL that includes credentials: "
        "http://***:***@127.0.0.1:9/mcp?token=***"
    )
    assert "hunter2" not in every_text(error)
    assert "abc123" not in every_text(error)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_error_texts_and_logs_carry_no_url_secrets(transport: Transport) -> None:
    seen: list[Callable[[], str]] = []
    with anyio.fail_after(5):
        with closed_port() as port:
            refused = await connect_error(http_config(f"http://127.0.0.1:{port}/sse?token=abc123", transport))
        async with contract_server(transport) as server:
            url = endpoint(server, transport) + "?api_key=abc123"
            server.override = lambda request: Canned(401) if request.method == "GET" else None
            if transport == "sse":
                rejected = await connect_error(http_config(url, transport))
                seen.append(lambda: every_text(rejected))
            server.override = None
            async with opened(http_config(url, transport)) as (connection, recorder):
                server.override = lambda request: Canned(404, b"gone") if request.method == "POST" else None
                with pytest.raises(McpError) as caught:
                    await connection.request("tools/list", None, timeout_ms=4_000)
                server.override = None
    assert "abc123" not in every_text(refused)
    assert "abc123" not in every_text(caught.value)
    assert all("abc123" not in text() for text in seen)
    assert all("abc123" not in line for line in recorder.logs)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_the_bearer_hook_may_fail_the_connect_with_its_own_error(transport: Transport) -> None:
    text = 'MCP server "srv" requires additional OAuth authorization. Run openclaw mcp login srv.'

    async def bearer() -> str | None:
        raise McpError(text)

    with anyio.fail_after(5):
        async with contract_server(transport) as server:
            config = http_config(endpoint(server, transport), transport, auth="oauth")
            error = await connect_error(config, HttpMcpConnector(bearer=bearer))
    assert str(error) == text
    assert server.requests == []
