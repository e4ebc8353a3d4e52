"""``McpConnector`` contract factories for the HTTP adapter (streamable HTTP and SSE).

Each factory starts one loopback server (``tests/fixtures/http_servers.py``) hosting the suite's three
roles under path prefixes — ``/contract`` (the contract server over the transport; its ``exit`` tool makes
the whole server go away: listeners closed, connections aborted), ``/mute`` (never answers) and ``/crash``
(ends its stream before answering ``initialize``) — and yields an ``McpConnectorHarness`` whose configs
reach them through ``HttpMcpConnector``. Included by ``mcp_connector_factories.FACTORIES``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any

import pytest

from openclaw_mcp.adapters.http import HttpMcpConnector
from openclaw_mcp.domain.transport import HttpConfig
from tests.fixtures.http_servers import LoopbackServer, Transport, crash_app, mcp_app, mute_app, routes
from tests.fixtures.mcp_servers.contract_server import build_server

if TYPE_CHECKING:
    from tests.contract.mcp_connector_factories import McpConnectorHarness

__all__ = ["FACTORIES", "sse_factory", "streamable_http_factory"]


def _config(url: str, transport: Transport) -> Callable[..., HttpConfig]:
    def build(*, connection_timeout_ms: int, request_timeout_ms: int) -> HttpConfig:
        return HttpConfig(
            transport_type=transport,
            url=url,
            headers=None,
            auth=None,
            oauth=None,
            ssl_verify=None,
            client_cert=None,
            client_key=None,
            description=url,
            connection_timeout_ms=connection_timeout_ms,
            request_timeout_ms=request_timeout_ms,
            supports_parallel_tool_calls=False,
        )

    return build


def _roles(transport: Transport) -> Callable[[LoopbackServer], Any]:
    def build(server: LoopbackServer) -> Any:
        assert server.stopping is not None
        contract = mcp_app(build_server(on_exit=server.go_away), transport, prefix="/contract")
        table = {"/contract": contract, "/mute": mute_app(server.stopping), "/crash": crash_app(transport)}
        return routes(table, lifespan=contract)

    return build


@asynccontextmanager
async def _http_factory(transport: Transport) -> AsyncIterator[McpConnectorHarness]:
    # Imported here: mcp_connector_factories includes this module's FACTORIES.
    from tests.contract.mcp_connector_factories import McpConnectorHarness

    path = "/mcp" if transport == "streamable-http" else "/sse"
    async with LoopbackServer(_roles(transport)) as server:
        yield McpConnectorHarness(
            HttpMcpConnector(),
            {role: _config(server.url(f"/{role}{path}"), transport) for role in ("contract", "mute", "crash")},
        )


def streamable_http_factory() -> AbstractAsyncContextManager[McpConnectorHarness]:
    return _http_factory("streamable-http")


def sse_factory() -> AbstractAsyncContextManager[McpConnectorHarness]:
    return _http_factory("sse")


FACTORIES = [
    pytest.param(streamable_http_factory, id="http-streamable"),
    pytest.param(sse_factory, id="http-sse"),
]
