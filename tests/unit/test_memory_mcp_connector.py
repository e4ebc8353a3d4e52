"""``InMemoryMcpConnector`` specifics beyond the contract suite: unknown names, ``MCPServer`` objects,
``disconnect`` and the connection counters."""

from __future__ import annotations

import anyio
import pytest
from mcp.server.mcpserver import MCPServer

from openclaw_mcp.adapters.memory.mcp_connector import InMemoryMcpConnector
from openclaw_mcp.application.ports.mcp import ConnectionClosed, McpConnectError, McpEvent
from openclaw_mcp.domain.transport import StdioConfig

pytestmark = pytest.mark.asyncio

CONFIG = StdioConfig("in-memory", None, None, None, "in-memory", 2_000, 2_000, False)


def adder() -> MCPServer:
    app = MCPServer("adder")

    @app.tool()
    def add(a: int, b: int) -> int:
        return a + b

    return app


async def test_an_unknown_server_name_is_a_connection_closed_connect_error() -> None:
    connector = InMemoryMcpConnector({})
    with anyio.fail_after(5), pytest.raises(McpConnectError) as caught:
        async with connector.connect("nobody", CONFIG, on_event=lambda _: None, log=lambda _: None):
            pass
    assert str(caught.value) == "MCP error -32000: Connection closed"
    assert isinstance(caught.value.__cause__, LookupError)


async def test_an_mcpserver_object_is_served_and_counted() -> None:
    connector = InMemoryMcpConnector({"adder": adder()})
    with anyio.fail_after(5):
        async with connector.connect("adder", CONFIG, on_event=lambda _: None, log=lambda _: None) as connection:
            result = await connection.request(
                "tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}}, timeout_ms=2_000
            )
            assert connector.live_count("adder") == 1
        assert connector.live_count("adder") == 0
        async with connector.connect("adder", CONFIG, on_event=lambda _: None, log=lambda _: None):
            pass
    assert result["content"] == [{"type": "text", "text": "3"}]
    assert connector.connect_count("adder") == 2


async def test_disconnect_closes_every_live_connection_of_that_server() -> None:
    connector = InMemoryMcpConnector({"adder": adder()})
    first: list[McpEvent] = []
    second: list[McpEvent] = []
    with anyio.fail_after(5):
        async with (
            connector.connect("adder", CONFIG, on_event=first.append, log=lambda _: None) as one,
            connector.connect("adder", CONFIG, on_event=second.append, log=lambda _: None) as two,
        ):
            assert connector.disconnect("adder") == 2
            while not (one.closed and two.closed):
                await anyio.sleep(0.01)
        assert connector.disconnect("adder") == 0
    assert first == [ConnectionClosed("in-memory server stopped")]
    assert second == [ConnectionClosed("in-memory server stopped")]
