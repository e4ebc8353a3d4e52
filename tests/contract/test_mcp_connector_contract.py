"""The ``McpConnector`` / ``McpConnection`` contract: must pass for every implementation.

Observable behaviour through the port only (application/mcp_ports.py): initialize and capabilities, raw
results, JSON-RPC errors, the local request timer and ``notifications/cancelled``, list-changed and closed
events, connect failures and the connect deadline, and closing on exit.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from openclaw_mcp.application.ports.mcp import (
    ConnectionClosed,
    ListChanged,
    McpConnectError,
    McpConnection,
    McpError,
    McpEvent,
    McpRequestError,
    McpTimeout,
)
from tests.contract.mcp_connector_factories import FACTORIES, McpConnectorFactory, McpConnectorHarness

pytestmark = pytest.mark.asyncio


@pytest.fixture(params=FACTORIES)
def factory(request: pytest.FixtureRequest) -> McpConnectorFactory:
    chosen: McpConnectorFactory = request.param
    return chosen


class Recorder:
    def __init__(self) -> None:
        self.events: list[McpEvent] = []
        self.logs: list[str] = []

    def closed_events(self) -> list[ConnectionClosed]:
        return [event for event in self.events if isinstance(event, ConnectionClosed)]

    async def wait_for(self, wanted: McpEvent | type[ConnectionClosed]) -> None:
        def seen() -> bool:
            if isinstance(wanted, type):
                return any(isinstance(event, wanted) for event in self.events)
            return wanted in self.events

        while not seen():
            await anyio.sleep(0.01)


@asynccontextmanager
async def opened(
    factory: McpConnectorFactory, role: str = "contract", **timeouts: int
) -> AsyncIterator[tuple[McpConnection, Recorder, McpConnectorHarness]]:
    recorder = Recorder()
    async with factory() as harness:
        config = harness.config(role, **timeouts)
        async with harness.connector.connect(
            role, config, on_event=recorder.events.append, log=recorder.logs.append
        ) as connection:
            yield connection, recorder, harness


def _text(result: dict[str, Any]) -> str:
    content = result["content"]
    assert isinstance(content, list)
    text = content[0]["text"]
    assert isinstance(text, str)
    return text


async def test_initialize_exposes_the_server_capabilities_as_json(factory: McpConnectorFactory) -> None:
    with anyio.fail_after(5):
        async with opened(factory) as (connection, _, _):
            capabilities = connection.capabilities
            assert connection.closed is False
    assert isinstance(capabilities, dict)
    assert set(capabilities) >= {"tools", "resources", "prompts"}
    assert isinstance(capabilities["tools"], dict)


async def test_tools_list_returns_the_raw_wire_result(factory: McpConnectorFactory) -> None:
    with anyio.fail_after(5):
        async with opened(factory) as (connection, _, _):
            result = await connection.request("tools/list", None, timeout_ms=4_000)
    assert type(result) is dict
    names = [tool["name"] for tool in result["tools"]]
    assert names == ["echo", "fail", "slow", "notify", "cancellations", "exit"]
    first = result["tools"][0]
    assert type(first) is dict
    # Wire spelling (camelCase), plain JSON values.
    assert first["inputSchema"] == {"type": "object", "properties": {"text": {"type": "string"}}}
    assert first["description"] == "The echo tool"


async def test_tools_call_returns_the_raw_wire_result(factory: McpConnectorFactory) -> None:
    with anyio.fail_after(5):
        async with opened(factory) as (connection, _, _):
            result = await connection.request(
                "tools/call", {"name": "echo", "arguments": {"text": "héllo"}}, timeout_ms=4_000
            )
    assert result["content"] == [{"type": "text", "text": '{"text": "héllo"}'}]


async def test_other_methods_pass_through_with_their_params(factory: McpConnectorFactory) -> None:
    with anyio.fail_after(5):
        async with opened(factory) as (connection, _, _):
            resources = await connection.request("resources/list", {}, timeout_ms=4_000)
            read = await connection.request("resources/read", {"uri": "memo://one"}, timeout_ms=4_000)
            prompt = await connection.request("prompts/get", {"name": "greet"}, timeout_ms=4_000)
    assert [resource["uri"] for resource in resources["resources"]] == ["memo://one"]
    assert read["contents"][0]["text"] == "one"
    assert prompt["messages"][0]["content"] == {"type": "text", "text": "hello"}


async def test_a_json_rpc_error_raises_mcp_request_error_with_its_code(factory: McpConnectorFactory) -> None:
    with anyio.fail_after(5):
        async with opened(factory) as (connection, _, _):
            with pytest.raises(McpRequestError) as caught:
                await connection.request("tools/call", {"name": "fail", "arguments": {}}, timeout_ms=4_000)
            with pytest.raises(McpRequestError) as unknown:
                await connection.request("no/such/method", None, timeout_ms=4_000)
    assert caught.value.code == -32001
    assert caught.value.error_message == "tool request failed"
    assert str(caught.value) == "MCP error -32001: tool request failed"
    assert unknown.value.code == -32601


async def test_a_request_timeout_raises_the_local_timeout_and_cancels_the_request(
    factory: McpConnectorFactory,
) -> None:
    with anyio.fail_after(5):
        async with opened(factory) as (connection, _, _):
            with pytest.raises(McpTimeout) as caught:
                await connection.request("tools/call", {"name": "slow", "arguments": {}}, timeout_ms=200)
            # The connection stays usable, and the server saw the cancellation with the upstream reason.
            result = await connection.request("tools/call", {"name": "cancellations"}, timeout_ms=4_000)
    assert str(caught.value) == "MCP error -32001: Request timed out"
    assert not isinstance(caught.value, McpRequestError)
    cancellations = json.loads(_text(result))
    assert len(cancellations) == 1
    assert cancellations[0]["reason"] == "McpError: MCP error -32001: Request timed out"


async def test_caller_cancellation_sends_notifications_cancelled(factory: McpConnectorFactory) -> None:
    with anyio.fail_after(5):
        async with opened(factory) as (connection, _, _):
            with anyio.move_on_after(0.3) as scope:
                await connection.request("tools/call", {"name": "slow", "arguments": {}}, timeout_ms=4_000)
            assert scope.cancelled_caught
            result = await connection.request("tools/call", {"name": "cancellations"}, timeout_ms=4_000)
    cancellations = json.loads(_text(result))
    assert len(cancellations) == 1
    assert isinstance(cancellations[0]["reason"], str)


async def test_requests_may_run_concurrently(factory: McpConnectorFactory) -> None:
    results: dict[int, str] = {}

    async def call(connection: McpConnection, index: int) -> None:
        result = await connection.request(
            "tools/call", {"name": "echo", "arguments": {"text": str(index)}}, timeout_ms=4_000
        )
        results[index] = _text(result)

    with anyio.fail_after(5):
        async with opened(factory) as (connection, _, _), anyio.create_task_group() as task_group:
            for index in range(8):
                task_group.start_soon(call, connection, index)
    assert results == {index: json.dumps({"text": str(index)}) for index in range(8)}


async def test_list_changed_notifications_become_events(factory: McpConnectorFactory) -> None:
    with anyio.fail_after(5):
        async with opened(factory) as (connection, recorder, _):
            await connection.request("tools/call", {"name": "notify", "arguments": {}}, timeout_ms=4_000)
            for event in (ListChanged("tools"), ListChanged("resources"), ListChanged("prompts")):
                await recorder.wait_for(event)
            assert recorder.closed_events() == []


async def test_the_server_going_away_fails_pending_requests_and_reports_closed_once(
    factory: McpConnectorFactory,
) -> None:
    with anyio.fail_after(8):
        async with opened(factory) as (connection, recorder, _):
            with pytest.raises(McpError) as caught:
                await connection.request("tools/call", {"name": "exit", "arguments": {}}, timeout_ms=4_000)
            await recorder.wait_for(ConnectionClosed)
            assert connection.closed is True
            with pytest.raises(McpError) as after:
                await connection.request("tools/list", None, timeout_ms=4_000)
        assert len(recorder.closed_events()) == 1
    assert str(caught.value) == "MCP error -32000: Connection closed"
    assert not isinstance(after.value, McpTimeout)


async def test_exiting_the_context_closes_the_connection(factory: McpConnectorFactory) -> None:
    with anyio.fail_after(8):
        async with opened(factory) as (connection, recorder, _):
            await connection.request("tools/list", None, timeout_ms=4_000)
        assert connection.closed is True
        assert len(recorder.closed_events()) == 1
        with pytest.raises(McpError) as caught:
            await connection.request("tools/list", None, timeout_ms=4_000)
    assert str(caught.value) == "Not connected"


async def test_a_server_gone_before_initialize_is_a_connection_closed_connect_error(
    factory: McpConnectorFactory,
) -> None:
    recorder = Recorder()
    with anyio.fail_after(8):
        async with factory() as harness:
            with pytest.raises(McpConnectError) as caught:
                async with harness.connector.connect(
                    "crash", harness.config("crash"), on_event=recorder.events.append, log=recorder.logs.append
                ):
                    pass
    assert str(caught.value) == "MCP error -32000: Connection closed"


async def test_a_server_that_never_initializes_hits_the_connect_deadline(factory: McpConnectorFactory) -> None:
    recorder = Recorder()
    with anyio.fail_after(8):
        async with factory() as harness:
            with pytest.raises(McpTimeout) as caught:
                async with harness.connector.connect(
                    "mute",
                    harness.config("mute", connection_timeout_ms=700),
                    on_event=recorder.events.append,
                    log=recorder.logs.append,
                ):
                    pass
    assert str(caught.value) == "MCP server connection timed out after 700ms"
    # rendered by the runtime as "... after 700ms | The operation was aborted due to timeout | 23"
    cause = caught.value.__cause__
    assert str(cause) == "The operation was aborted due to timeout"
    assert getattr(cause, "code", None) == 23


async def test_a_server_elicitation_is_answered_by_the_hosts_handler(factory: McpConnectorFactory) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    async def handler(server_name: str, params: dict[str, Any]) -> dict[str, Any]:
        asked.append((server_name, params))
        return {"action": "accept", "content": {"ok": False}}

    recorder = Recorder()
    with anyio.fail_after(10):
        async with factory() as harness:
            harness.connector.elicitation = handler  # type: ignore[attr-defined]
            async with harness.connector.connect(
                "contract", harness.config(), on_event=recorder.events.append, log=recorder.logs.append
            ) as connection:
                result = await connection.request("tools/call", {"name": "elicit", "arguments": {}}, timeout_ms=4_000)
    assert json.loads(_text(result)) == {"action": "accept", "content": {"ok": False}}
    assert [name for name, _ in asked] == ["contract"]
    assert asked[0][1]["message"] == "Go ahead?"
    assert asked[0][1]["requestedSchema"]["properties"]["ok"]["default"] is True


async def test_without_a_handler_a_server_elicitation_is_refused(factory: McpConnectorFactory) -> None:
    with anyio.fail_after(10):
        async with opened(factory) as (connection, _, _):
            result = await connection.request("tools/call", {"name": "elicit", "arguments": {}}, timeout_ms=4_000)
    assert _text(result).startswith("refused: ")
