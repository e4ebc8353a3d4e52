"""The combined session runtime: routing, leases, dispose and cleanup, reuse on reload, and an end-to-end
run over the SDK in-process connector (spec client-runtime §3.7, §4.13–§4.14; acceptance §11.4 #42, #63,
#64, #70)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.collation import UcaCollator
from openclaw_mcp.adapters.memory.mcp_connector import InMemoryMcpConnector
from openclaw_mcp.application.ports.mcp import McpCleanupError, McpRequestError
from openclaw_mcp.application.runtime import (
    CleanupUnconfirmed,
    LocalRequestTimeout,
    RuntimeDisposed,
    RuntimeTuning,
    ServerNotConnected,
    ServerPaused,
    SessionRuntime,
)
from tests.fixtures.mcp_servers.contract_server import build_server
from tests.unit.test_runtime_fakes import (
    FakeClock,
    ScriptedConnector,
    ScriptedServer,
    fake_services,
    runtime,
    session,
    tool,
)

pytestmark = pytest.mark.asyncio

FAKE = {"command": "fake"}
RETIRED = "MCP server runtime retired; retry discovery on the next turn."


async def test_an_unknown_server_is_not_connected() -> None:
    services, _ = fake_services(ScriptedConnector({"a": ScriptedServer()}))
    with anyio.fail_after(5):
        async with runtime(session({"a": FAKE}), services) as rt:
            with pytest.raises(ServerNotConnected) as caught:
                await rt.call_tool("nope", "t", {})
    assert str(caught.value) == 'bundle-mcp server "nope" is not connected'


async def test_after_dispose_the_catalog_reports_every_server_retired() -> None:
    server = ScriptedServer()
    services, _ = fake_services(ScriptedConnector({"a": server, "Two Words": ScriptedServer()}))
    with anyio.fail_after(5):
        async with runtime(session({"a": FAKE, "Two Words": FAKE}), services) as rt:
            await rt.get_catalog()
            part = rt.parts[0]
            await rt.dispose()
            catalog = await rt.get_catalog()
            with pytest.raises(RuntimeDisposed) as disposed:
                await part.get_catalog()
            with pytest.raises(ServerNotConnected):
                await rt.call_tool("a", "t", {})
            await rt.join_cleanup()
    assert catalog.servers == {}
    assert catalog.tools == ()
    assert catalog.diagnostics is not None
    assert [(d.server_name, d.safe_server_name, d.launch_summary, d.message) for d in catalog.diagnostics] == [
        ("a", "a", "a", RETIRED),
        ("Two Words", "Two-Words", "Two Words", RETIRED),
    ]
    assert str(disposed.value) == "bundle-mcp runtime disposed for session s1"
    assert server.live == []


async def test_leaving_the_block_closes_every_connection() -> None:
    servers = {"a": ScriptedServer(), "b": ScriptedServer()}
    services, _ = fake_services(ScriptedConnector(servers))
    with anyio.fail_after(5):
        async with runtime(session({"a": FAKE, "b": FAKE}), services) as rt:
            await rt.get_catalog()
            assert all(s.live for s in servers.values())
    assert all(s.live == [] for s in servers.values())
    with anyio.fail_after(5):
        await rt.join_cleanup()


async def test_dispose_aborts_an_in_flight_listing() -> None:
    server = ScriptedServer()
    started = anyio.Event()

    async def hang(conn: Any, params: Any) -> dict[str, Any]:
        started.set()
        await anyio.sleep_forever()
        raise AssertionError

    server.on("tools/list", hang)
    services, warnings = fake_services(ScriptedConnector({"a": server}))
    with anyio.fail_after(5):
        async with runtime(session({"a": FAKE, "b": {"transport": "stdio"}}), services) as rt:
            async with anyio.create_task_group() as tg:
                tg.start_soon(rt.get_catalog)
                await started.wait()
                await rt.dispose()
            catalog = await rt.get_catalog()
    assert catalog.diagnostics is not None
    assert [d.message for d in catalog.diagnostics] == [RETIRED, RETIRED]
    assert not any(w.startswith("failed to start") for w in warnings)


async def test_a_close_that_never_completes_makes_cleanup_uncertain() -> None:
    stuck = ScriptedServer()
    stuck.close_stuck_s = 0.5
    services, _ = fake_services(ScriptedConnector({"stuck": stuck}), tuning=RuntimeTuning(dispose_timeout_ms=50))
    with anyio.fail_after(5):
        async with runtime(session({"stuck": FAKE}), services) as rt:
            await rt.get_catalog()
            await rt.dispose()
            with pytest.raises(CleanupUnconfirmed) as caught:
                await rt.join_cleanup()
    assert str(caught.value) == "MCP runtime cleanup could not confirm closure"


async def test_a_close_that_completes_when_forced_is_confirmed() -> None:
    slow = ScriptedServer()
    slow.close_hang = True  # gives up only when forced (cancelled), which then completes at once
    services, _ = fake_services(ScriptedConnector({"slow": slow}), tuning=RuntimeTuning(dispose_timeout_ms=50))
    with anyio.fail_after(5):
        async with runtime(session({"slow": FAKE}), services) as rt:
            await rt.get_catalog()
    assert slow.forced_closes == 1
    with anyio.fail_after(5):
        await rt.join_cleanup()


async def test_a_cleanup_error_on_close_is_reported_by_join_cleanup() -> None:
    server = ScriptedServer()
    server.close_error = McpCleanupError("could not confirm the process group is gone")
    services, _ = fake_services(ScriptedConnector({"a": server}))
    with anyio.fail_after(5):
        async with runtime(session({"a": FAKE}), services) as rt:
            await rt.get_catalog()
    with anyio.fail_after(5), pytest.raises(CleanupUnconfirmed):
        await rt.join_cleanup()


async def test_leases_count_on_the_session_and_its_servers_and_release_once() -> None:
    clock = FakeClock()
    services, _ = fake_services(ScriptedConnector({"a": ScriptedServer(), "b": ScriptedServer()}), clock)
    with anyio.fail_after(5):
        async with runtime(session({"a": FAKE, "b": FAKE}), services) as rt:
            release = rt.acquire_lease()
            second = rt.acquire_lease()
            assert [p.active_leases for p in rt.parts] == [2, 2]
            assert rt.active_leases == 4  # max(own count, sum of the servers' counts)
            release()
            release()
            assert rt.active_leases == 2
            second()
            assert rt.active_leases == 0
            before = rt.last_used_at
            clock.advance(10)
            rt.mark_used()
            assert rt.last_used_at == before + 10
            assert [p.last_used_at for p in rt.parts] == [before + 10, before + 10]


async def test_replace_keeps_unchanged_servers_and_their_catalogs() -> None:
    servers = {"A": ScriptedServer(tools=[tool("a")]), "B": ScriptedServer(tools=[tool("b")])}
    services, _ = fake_services(ScriptedConnector(servers))
    first = session({"A": FAKE, "B": {"command": "fake", "args": ["one"]}})
    second = session({"A": FAKE, "B": {"command": "fake", "args": ["two"]}})
    with anyio.fail_after(5):
        async with runtime(first, services) as old:
            await old.get_catalog()
            a_catalog = old.parts[0].peek_catalog()
            a_pid = servers["A"].connections[0].pid
            new = old.replace(second)
            await old.dispose()
            await old.join_cleanup()
            assert new.parts[0] is old.parts[0]
            assert new.parts[0].peek_catalog() is a_catalog
            catalog = await new.get_catalog()
            await new.dispose()
    assert [t.tool_name for t in catalog.tools] == ["a", "b"]
    assert servers["A"].connects == 1 and servers["A"].connections[0].pid == a_pid
    assert servers["B"].connects == 2


async def test_reload_retires_changed_and_removed_servers_only() -> None:
    servers = {name: ScriptedServer() for name in ("keep", "change", "gone", "plugin")}
    services, _ = fake_services(ScriptedConnector(servers))
    config = session(dict.fromkeys(servers, FAKE), configured_server_names=frozenset({"keep", "change", "gone"}))
    with anyio.fail_after(5):
        async with runtime(config, services) as rt:
            await rt.get_catalog()
            await rt.reload(
                session({"keep": FAKE, "change": {"command": "other"}, "plugin": FAKE}), reload_plugins=True
            )
            assert not rt.is_current
            assert [p.server_name for p in rt.parts if p.disposed] == ["change", "gone", "plugin"]
            assert rt.server_runtime("keep") is not None
            assert await rt.call_tool("keep", "t", {}) == {"content": [{"type": "text", "text": "ok"}]}


async def test_a_standalone_runtime_must_be_entered_before_use() -> None:
    services, _ = fake_services(ScriptedConnector({"a": ScriptedServer()}))
    rt = runtime(session({"a": FAKE}), services)
    with anyio.fail_after(5), pytest.raises(RuntimeError, match="not running"):
        await rt.get_catalog()


async def test_end_to_end_over_the_sdk_in_process_connector() -> None:
    connector = InMemoryMcpConnector({"contract": build_server(on_exit=lambda: connector.disconnect("contract"))})
    services, warnings = fake_services(connector, FakeClock())
    config = session({"contract": {"command": "in-memory", "requestTimeoutMs": 200}})
    with anyio.fail_after(5):
        async with SessionRuntime(config, services, collator=UcaCollator()) as rt:
            catalog = await rt.get_catalog()
            assert [t.tool_name for t in catalog.tools] == [
                "cancellations",
                "echo",
                "exit",
                "fail",
                "notify",
                "slow",
            ]
            entry = catalog.servers["contract"]
            assert entry.resources is not None and entry.prompts is not None
            echoed = await rt.call_tool("contract", "echo", {"a": 1})
            assert json.loads(echoed["content"][0]["text"]) == {"a": 1}
            assert await rt.list_resources("contract") == [{"name": "one", "uri": "memo://one"}]
            assert (await rt.read_resource("contract", "memo://one"))["contents"][0]["text"] == "one"
            assert await rt.list_prompts("contract") == [{"name": "greet"}]
            assert (await rt.get_prompt("contract", "greet"))["messages"][0]["content"]["text"] == "hello"

            await rt.call_tool("contract", "notify", {})
            assert rt.peek_catalog() is None
            assert (await rt.get_catalog()) is not catalog
            assert connector.connect_count("contract") == 1

            for _ in range(3):
                with pytest.raises(McpRequestError, match="MCP error -32001: tool request failed"):
                    await rt.call_tool("contract", "fail", {})
            with pytest.raises(ServerPaused):
                await rt.call_tool("contract", "echo", {})

    assert connector.live_count("contract") == 0
    assert warnings == []


async def test_sdk_server_timeouts_recycle_and_reconnect() -> None:
    connector = InMemoryMcpConnector({"contract": build_server(on_exit=lambda: connector.disconnect("contract"))})
    services, warnings = fake_services(connector)
    config = session({"contract": {"command": "in-memory", "requestTimeoutMs": 100}})
    with anyio.fail_after(5):
        async with SessionRuntime(config, services, collator=UcaCollator()) as rt:
            for _ in range(3):
                with pytest.raises(LocalRequestTimeout):
                    await rt.call_tool("contract", "slow", {})
            assert warnings == ['recycling server "contract" after repeated timeouts']
            while True:
                try:
                    result = await rt.call_tool("contract", "cancellations", {})
                    break
                except ServerNotConnected:
                    await anyio.sleep(0.01)
    reasons = [entry["reason"] for entry in json.loads(result["content"][0]["text"])]
    assert reasons == ["McpError: MCP error -32001: Request timed out"] * 3
    assert connector.connect_count("contract") == 2


async def test_an_sdk_server_going_away_reconnects_on_the_next_request() -> None:
    connector = InMemoryMcpConnector({"contract": build_server(on_exit=lambda: connector.disconnect("contract"))})
    services, warnings = fake_services(connector)
    with anyio.fail_after(5):
        async with SessionRuntime(session({"contract": {"command": "x"}}), services, collator=UcaCollator()) as rt:
            await rt.get_catalog()
            with pytest.raises(Exception, match="Connection closed"):
                await rt.call_tool("contract", "exit", {})
            while not warnings:
                await anyio.sleep(0.01)
            assert warnings == ['server "contract" closed; next request reconnects']
            while True:
                try:
                    await rt.call_tool("contract", "echo", {})
                    break
                except ServerNotConnected:
                    await anyio.sleep(0.01)
    assert connector.connect_count("contract") == 2
