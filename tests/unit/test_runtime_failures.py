"""Requests, failure counting, cooldown and recycling (spec client-runtime §4.7–§4.11; acceptance §11.4
#54–#61)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from openclaw_mcp.application.ports.mcp import McpRequestError, McpSessionExpired
from openclaw_mcp.application.runtime import (
    LocalRequestTimeout,
    ServerNotConnected,
    ServerPaused,
    ToolResultInvalid,
)
from tests.unit.test_runtime_fakes import (
    FakeClock,
    ScriptedConnection,
    ScriptedConnector,
    ScriptedServer,
    fake_services,
    runtime,
    session,
    tool,
)

pytestmark = pytest.mark.asyncio

FAKE = {"command": "fake"}
ALL_CAPABILITIES = {"tools": {}, "resources": {}, "prompts": {}}


async def hang(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
    await anyio.sleep_forever()
    raise AssertionError


async def failing(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
    raise McpRequestError(-32001, "tool request failed")


async def is_error(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": "bad input"}], "isError": True}


async def test_a_killed_server_warns_keeps_its_tools_with_a_diagnostic_and_reconnects_on_demand() -> None:
    server = ScriptedServer(tools=[tool("t")])
    services, warnings = fake_services(ScriptedConnector({"h": server}))
    with anyio.fail_after(5):
        async with runtime(session({"h": FAKE}), services) as rt:
            await rt.get_catalog()
            first_pid = server.connections[0].pid
            server.kill()
            assert warnings == ['server "h" closed; next request reconnects']
            peeked = rt.peek_catalog()
            assert peeked is not None
            assert [t.tool_name for t in peeked.tools] == ["t"]
            assert peeked.diagnostics is not None
            assert [d.message for d in peeked.diagnostics] == ["mcp transport closed"]
            with pytest.raises(ServerNotConnected) as caught:
                await rt.call_tool("h", "t", {})
            assert str(caught.value) in (
                'bundle-mcp server "h" is disconnected: mcp transport closed',
                'bundle-mcp server "h" is not connected',
            )
            while True:
                try:
                    result = await rt.call_tool("h", "t", {})
                    break
                except ServerNotConnected:
                    await anyio.sleep(0.01)
    assert result == {"content": [{"type": "text", "text": "ok"}]}
    assert server.connects == 2
    assert server.connections[-1].pid != first_pid


async def test_a_tool_returning_is_error_is_never_paused() -> None:
    server = ScriptedServer()
    server.on("tools/call", is_error)
    services, _ = fake_services(ScriptedConnector({"s": server}))
    with anyio.fail_after(5):
        async with runtime(session({"s": FAKE}), services) as rt:
            results = [await rt.call_tool("s", "t", {}) for _ in range(4)]
    assert all(result["isError"] is True for result in results)
    assert server.count("tools/call") == 4


async def test_three_server_errors_pause_the_server_for_60_s_from_the_start_of_the_third() -> None:
    clock = FakeClock()
    server = ScriptedServer(tools=[tool("t"), tool("other")])
    server.on("tools/call", failing)
    services, _ = fake_services(ScriptedConnector({"main": server}), clock)
    with anyio.fail_after(5):
        async with runtime(session({"main": FAKE}), services) as rt:
            for _ in range(3):
                clock.advance(1_000)
                with pytest.raises(McpRequestError) as caught:
                    await rt.call_tool("main", "t", {})
                assert str(caught.value) == "MCP error -32001: tool request failed"
            third_started = clock.now
            with pytest.raises(ServerPaused) as paused:
                await rt.call_tool("main", "other", {})
            catalog = await rt.get_catalog()
    assert str(paused.value) == (
        'bundle-mcp server "main" is paused after repeated tool failures; retry after 2025-11-29T12:01:03.000Z'
    )
    assert third_started + 60_000 == 1_764_417_663_000
    assert server.count("tools/call") == 3
    assert server.connects == 1
    assert catalog.diagnostics is None


async def test_after_the_pause_a_fourth_failure_pauses_again_and_a_success_clears_the_count() -> None:
    clock = FakeClock()
    server = ScriptedServer()
    server.on("tools/call", failing)
    services, _ = fake_services(ScriptedConnector({"main": server}), clock)
    with anyio.fail_after(5):
        async with runtime(session({"main": FAKE}), services) as rt:
            for _ in range(3):
                with pytest.raises(McpRequestError):
                    await rt.call_tool("main", "t", {})
            clock.advance(60_001)
            with pytest.raises(McpRequestError):
                await rt.call_tool("main", "t", {})
            with pytest.raises(ServerPaused):
                await rt.call_tool("main", "t", {})
            assert server.count("tools/call") == 4
            clock.advance(60_001)
            server.handlers.pop("tools/call")
            await rt.call_tool("main", "t", {})
            server.on("tools/call", failing)
            for _ in range(2):
                with pytest.raises(McpRequestError):
                    await rt.call_tool("main", "t", {})
            with pytest.raises(McpRequestError):
                await rt.call_tool("main", "t", {})  # third failure after the reset: still sent
    assert server.count("tools/call") == 8


async def test_three_local_timeouts_recycle_the_connection_without_a_stale_pause() -> None:
    server = ScriptedServer(tools=[tool("slow"), tool("fast")])

    async def slow_or_fast(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
        if params and params["name"] == "slow":
            await anyio.sleep_forever()
        return {"content": []}

    server.on("tools/call", slow_or_fast)
    services, warnings = fake_services(ScriptedConnector({"h": server}))
    with anyio.fail_after(5):
        async with runtime(session({"h": {"command": "fake", "requestTimeoutMs": 100}}), services) as rt:
            await rt.get_catalog()
            for attempt in range(3):
                with pytest.raises(LocalRequestTimeout) as caught:
                    await rt.call_tool("h", "slow", {})
                assert str(caught.value) == "MCP error -32001: Request timed out"
                expected = ['recycling server "h" after repeated timeouts'] if attempt == 2 else []
                assert warnings == expected
            peeked = rt.peek_catalog()
            assert peeked is not None and peeked.diagnostics is not None
            assert peeked.diagnostics[0].message == "repeated request timeouts"
            while True:
                try:
                    await rt.call_tool("h", "fast", {})
                    break
                except ServerNotConnected:
                    await anyio.sleep(0.01)
            await rt.call_tool("h", "fast", {})
    assert server.connects == 2
    assert server.timed_out.count("tools/call") == 3


async def test_cancelled_requests_are_not_counted_as_failures() -> None:
    server = ScriptedServer(capabilities=ALL_CAPABILITIES)
    for method in ("tools/call", "resources/list", "prompts/list"):
        server.on(method, hang)
    services, _ = fake_services(ScriptedConnector({"s": server}))
    with anyio.fail_after(5):
        async with runtime(session({"s": FAKE}), services) as rt:
            await rt.get_catalog()
            for operation in (
                lambda: rt.call_tool("s", "t", {}),
                lambda: rt.list_resources("s"),
                lambda: rt.list_prompts("s"),
                lambda: rt.call_tool("s", "t", {}),
            ):
                with anyio.move_on_after(0.05):
                    await operation()
            server.handlers.pop("tools/call")
            assert await rt.call_tool("s", "t", {}) == {"content": [{"type": "text", "text": "ok"}]}
    assert server.cancelled == ["tools/call", "resources/list", "prompts/list", "tools/call"]


async def test_optional_reads_ignore_the_failure_backoff() -> None:
    server = ScriptedServer(capabilities=ALL_CAPABILITIES)
    server.on("resources/read", failing)
    services, _ = fake_services(ScriptedConnector({"s": server}))
    with anyio.fail_after(5):
        async with runtime(session({"s": FAKE}), services) as rt:
            for _ in range(3):
                with pytest.raises(McpRequestError):
                    await rt.read_resource("s", "memo://x", failure_backoff="ignore")
            await rt.call_tool("s", "t", {})
            server.on("tools/call", failing)
            for _ in range(3):
                with pytest.raises(McpRequestError):
                    await rt.call_tool("s", "t", {})
            with pytest.raises(ServerPaused):
                await rt.read_resource("s", "memo://x")
            with pytest.raises(McpRequestError):
                await rt.read_resource("s", "memo://x", failure_backoff="ignore")  # skips the pause check
    assert server.count("resources/read") == 4


async def test_structured_content_is_validated_against_the_output_schema_outside_the_failure_count() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "number"}}, "required": ["n"]}
    server = ScriptedServer(tools=[tool("typed", outputSchema=schema)])
    answers: list[dict[str, Any]] = []

    async def answer(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
        return answers.pop(0)

    server.on("tools/call", answer)
    services, _ = fake_services(ScriptedConnector({"s": server}))
    with anyio.fail_after(5):
        async with runtime(session({"s": FAKE}), services) as rt:
            answers.extend([{"content": [], "structuredContent": {"n": "x"}}] * 3)
            for _ in range(3):
                with pytest.raises(ToolResultInvalid) as invalid:
                    await rt.call_tool("s", "typed", {})
                assert "Structured content does not match the tool's output schema" in str(invalid.value)
                assert str(invalid.value).startswith("MCP error -32602: ")
            answers.append({"content": [{"type": "text", "text": "no structure"}]})
            with pytest.raises(ToolResultInvalid) as missing:
                await rt.call_tool("s", "typed", {})
            answers.append({"content": [], "isError": True})
            assert (await rt.call_tool("s", "typed", {}))["isError"] is True
            answers.append({"content": [], "structuredContent": {"n": 1}})
            assert (await rt.call_tool("s", "typed", {}))["structuredContent"] == {"n": 1}
    assert (
        str(missing.value) == "MCP error -32600: Tool typed has an output schema but did not return structured content"
    )
    assert server.count("tools/call") == 6


async def test_an_expired_http_session_recycles_without_counting() -> None:
    server = ScriptedServer()

    async def expired(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
        raise McpSessionExpired("Error POSTing to endpoint (HTTP 404): gone")

    server.on("tools/call", expired)
    services, warnings = fake_services(ScriptedConnector({"h": server}))
    with anyio.fail_after(5):
        async with runtime(session({"h": FAKE}), services) as rt:
            await rt.get_catalog()
            with pytest.raises(McpSessionExpired):
                await rt.call_tool("h", "t", {})
            assert warnings == ['recycling server "h" after an expired HTTP session']
            peeked = rt.peek_catalog()
            assert peeked is not None and peeked.diagnostics is not None
            assert peeked.diagnostics[0].message == "expired HTTP session"
            server.handlers.pop("tools/call")
            while True:
                try:
                    await rt.call_tool("h", "t", {})
                    break
                except ServerNotConnected:
                    await anyio.sleep(0.01)
    assert server.connects == 2


async def test_calls_to_a_server_without_parallel_support_are_serialised() -> None:
    async def slowish(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
        await anyio.sleep(0.05)
        return {"content": []}

    async def until_three_overlap(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
        while conn.server.max_active_calls < 3:
            await anyio.sleep(0.005)
        return {"content": []}

    serial = ScriptedServer()
    parallel = ScriptedServer()
    serial.on("tools/call", slowish)
    parallel.on("tools/call", until_three_overlap)
    services, _ = fake_services(ScriptedConnector({"serial": serial, "parallel": parallel}))
    config = session({"serial": FAKE, "parallel": {"command": "fake", "supportsParallelToolCalls": True}})
    with anyio.fail_after(5):
        async with runtime(config, services) as rt:
            await rt.get_catalog()
            async with anyio.create_task_group() as tg:
                for name in ("serial", "serial", "serial", "parallel", "parallel", "parallel"):
                    tg.start_soon(rt.call_tool, name, "t", {})
    assert serial.max_active_calls == 1
    assert parallel.max_active_calls == 3


async def test_utility_requests_carry_the_spec_params() -> None:
    server = ScriptedServer(capabilities=ALL_CAPABILITIES)
    services, _ = fake_services(ScriptedConnector({"k": server}))
    with anyio.fail_after(5):
        async with runtime(session({"k": FAKE}), services) as rt:
            await rt.call_tool("k", "t", "not an object")
            await rt.read_resource("k", "memo://one")
            await rt.get_prompt("k", "p", {"a": "1", "b": "2"})
            await rt.get_prompt("k", "p", None)
            await rt.get_prompt("k", "p", {})
            assert await rt.list_resources("k") == []
            assert await rt.list_prompts("k") == []
            await rt.list_tools("k", {"cursor": "c"})
            await rt.list_resource_templates("k", None)
    assert server.requests[1:] == [
        ("tools/call", {"name": "t", "arguments": {}}),
        ("resources/read", {"uri": "memo://one"}),
        ("prompts/get", {"name": "p", "arguments": {"a": "1", "b": "2"}}),
        ("prompts/get", {"name": "p"}),
        ("prompts/get", {"name": "p"}),
        ("resources/list", None),
        ("prompts/list", None),
        ("tools/list", {"cursor": "c"}),
        ("resources/templates/list", None),
    ]
