"""Catalog building, caching and invalidation of the session runtime (spec client-runtime §4.4–§4.7,
§4.12, §4.14; acceptance §11.4 #44–#53, #62, #65)."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from openclaw_mcp.application.ports.mcp import ListChanged, McpConnectError, McpRequestError
from openclaw_mcp.application.runtime import RuntimeTuning
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


async def hang(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
    await anyio.sleep_forever()
    raise AssertionError


async def test_first_catalog_connects_and_lists_every_server_then_caches_the_same_object() -> None:
    servers = {"a": ScriptedServer(tools=[tool("x"), tool("y")]), "b": ScriptedServer(tools=[tool("z")])}
    services, warnings = fake_services(ScriptedConnector(servers))
    with anyio.fail_after(5):
        async with runtime(session({"b": FAKE, "a": FAKE}), services) as rt:
            assert rt.peek_catalog() is None
            first = await rt.get_catalog()
            second = await rt.get_catalog()
    assert second is first
    assert list(first.servers) == ["b", "a"]  # part (config) order; tools are sorted
    assert [(t.server_name, t.tool_name) for t in first.tools] == [("a", "x"), ("a", "y"), ("b", "z")]
    entry = first.servers["a"]
    assert (entry.tool_count, entry.launch_summary, entry.request_timeout_ms) == (2, "fake", 60_000)
    assert first.tools[0].fallback_description == 'Provided by bundle MCP server "a" (fake).'
    assert first.diagnostics is None
    assert servers["a"].count("tools/list") == 1 and servers["a"].connects == 1
    assert warnings == []


async def test_nothing_connects_before_the_first_catalog() -> None:
    server = ScriptedServer()
    services, _ = fake_services(ScriptedConnector({"a": server}))
    with anyio.fail_after(5):
        async with runtime(session({"a": FAKE}), services):
            await anyio.sleep(0)
    assert server.connects == 0


async def test_a_failed_listing_is_a_diagnostic_retried_in_the_background_after_5000_ms() -> None:
    clock = FakeClock()
    healthy = ScriptedServer(tools=[tool("h")])
    retry = ScriptedServer(tools=[{"name": 7, "inputSchema": {"type": "object"}}])
    services, warnings = fake_services(ScriptedConnector({"healthy": healthy, "retryServer": retry}), clock)
    with anyio.fail_after(5):
        async with runtime(session({"healthy": FAKE, "retryServer": FAKE}), services) as rt:
            first = await rt.get_catalog()
            assert [t.tool_name for t in first.tools] == ["h"]
            assert first.diagnostics is not None and len(first.diagnostics) == 1
            diagnostic = first.diagnostics[0]
            assert diagnostic.server_name == "retryServer"
            assert diagnostic.launch_summary == "fake"
            assert diagnostic.message == (
                "MCP tool listing returned an invalid result: tools.0.name: expected string, received number"
            )
            assert warnings == [f'failed to start server "retryServer" (fake): {diagnostic.message}']
            clock.advance(4_999)
            assert await rt.get_catalog() is first
            retry.tools = [tool("r")]
            clock.advance(2)
            assert await rt.get_catalog() is first  # stale, reload started in the background
            while (catalog := await rt.get_catalog()).diagnostics:
                await anyio.sleep(0.01)
    assert [t.tool_name for t in catalog.tools] == ["h", "r"]
    assert healthy.count("tools/list") == 1
    assert retry.count("tools/list") == 2
    assert retry.connects == 2  # the failed fresh connection was retired


async def test_a_tool_with_an_invalid_input_schema_is_dropped_alone_and_named_in_a_diagnostic() -> None:
    server = ScriptedServer(
        tools=[tool("good"), {"name": " bad ", "inputSchema": {"type": "array"}}, {"name": "worse"}]
    )
    services, warnings = fake_services(ScriptedConnector({"retryServer": server}))
    with anyio.fail_after(5):
        async with runtime(session({"retryServer": FAKE}), services) as rt:
            catalog = await rt.get_catalog()
            assert await rt.call_tool("retryServer", "good", {}) == {"content": [{"type": "text", "text": "ok"}]}
    assert [t.tool_name for t in catalog.tools] == ["good"]
    assert catalog.servers["retryServer"].tools is not None
    assert catalog.servers["retryServer"].tools.filtered_count == 2
    assert catalog.diagnostics is not None
    assert [d.message for d in catalog.diagnostics] == [
        'MCP tool listing dropped tool "bad": tools.1.inputSchema.type: expected "object"',
        'MCP tool listing dropped tool "worse": tools.2.inputSchema: expected object, received undefined',
    ]
    assert warnings == []
    assert server.connects == 1


async def test_a_listing_slower_than_1500_ms_times_out_without_affecting_siblings() -> None:
    slow = ScriptedServer()

    async def sleepy(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
        await anyio.sleep(3)
        return {"tools": []}

    slow.on("tools/list", sleepy)
    services, warnings = fake_services(ScriptedConnector({"sl": slow, "ok": ScriptedServer()}))
    with anyio.fail_after(5):
        async with runtime(session({"sl": {"command": "node", "args": ["slow.js"]}, "ok": FAKE}), services) as rt:
            catalog = await rt.get_catalog()
    assert list(catalog.servers) == ["ok"]
    assert catalog.diagnostics is not None
    assert [d.message for d in catalog.diagnostics] == ["MCP tool listing timed out after 1500ms"]
    assert warnings == ['failed to start server "sl" (node slow.js): MCP tool listing timed out after 1500ms']


@pytest.mark.parametrize(
    ("definition", "expected"),
    [
        ({"command": "fake"}, 1_500),
        ({"command": "fake", "requestTimeoutMs": 5_000}, 5_000),
        ({"command": "fake", "timeout": 7_000}, 60_000),
        ({"command": "fake", "requestTimeoutMs": "5000"}, 1_500),
        ({"command": "fake", "requestTimeoutMs": True}, 1_500),
    ],
)
async def test_the_tools_list_deadline_is_1500_ms_unless_a_request_timeout_is_configured(
    definition: dict[str, Any], expected: int
) -> None:
    server = ScriptedServer()
    services, _ = fake_services(ScriptedConnector({"s": server}))
    with anyio.fail_after(5):
        async with runtime(session({"s": definition}), services) as rt:
            await rt.get_catalog()
    assert server.timeouts == [("tools/list", expected)]


async def test_tool_pages_follow_an_empty_string_cursor() -> None:
    server = ScriptedServer()

    async def pages(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
        if params is None:
            return {"tools": [tool("p1")], "nextCursor": ""}
        return {"tools": [tool("p2")]}

    server.on("tools/list", pages)
    services, _ = fake_services(ScriptedConnector({"s": server}))
    with anyio.fail_after(5):
        async with runtime(session({"s": FAKE}), services) as rt:
            catalog = await rt.get_catalog()
    assert [t.tool_name for t in catalog.tools] == ["p1", "p2"]
    assert server.requests == [("tools/list", None), ("tools/list", {"cursor": ""})]


async def test_a_repeated_cursor_becomes_a_diagnostic() -> None:
    server = ScriptedServer()

    async def same(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
        return {"tools": [], "nextCursor": "same"}

    server.on("tools/list", same)
    services, _ = fake_services(ScriptedConnector({"s": server}))
    with anyio.fail_after(5):
        async with runtime(session({"s": FAKE}), services) as rt:
            catalog = await rt.get_catalog()
    assert catalog.diagnostics is not None
    assert catalog.diagnostics[0].message == "MCP tool listing returned a repeated pagination cursor"


async def test_method_not_found_on_a_resources_and_prompts_server_is_an_empty_listing() -> None:
    server = ScriptedServer(capabilities={"resources": {}, "prompts": {"listChanged": True}})

    async def unknown(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
        raise McpRequestError(-32000, "Unknown method: tools/list")

    server.on("tools/list", unknown)
    services, warnings = fake_services(ScriptedConnector({"k": server}))
    with anyio.fail_after(5):
        async with runtime(session({"k": FAKE}), services) as rt:
            catalog = await rt.get_catalog()
    assert catalog.diagnostics is None
    entry = catalog.servers["k"]
    assert entry.tool_count == 0
    assert entry.tools is None
    assert entry.prompts is not None and entry.prompts.list_changed is True
    assert entry.resources is not None and entry.resources.list_changed is False
    assert warnings == []


async def test_method_not_found_is_a_diagnostic_when_the_server_advertised_tools() -> None:
    server = ScriptedServer(capabilities={"tools": {}, "resources": {}})

    async def unknown(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
        raise McpRequestError(-32601, "Method not found")

    server.on("tools/list", unknown)
    services, _ = fake_services(ScriptedConnector({"k": server}))
    with anyio.fail_after(5):
        async with runtime(session({"k": FAKE}), services) as rt:
            catalog = await rt.get_catalog()
    assert catalog.diagnostics is not None
    assert catalog.diagnostics[0].message == "MCP error -32601: Method not found"


async def test_names_are_trimmed_and_duplicates_empties_and_task_only_tools_are_excluded() -> None:
    listed = [
        tool("a.b"),
        tool(" beta "),
        tool("beta"),
        tool(""),
        tool("x"),
        tool("task", execution={"taskSupport": "required"}),
    ]
    services, _ = fake_services(ScriptedConnector({"s": ScriptedServer(tools=listed)}))
    with anyio.fail_after(5):
        async with runtime(session({"s": FAKE}), services) as rt:
            catalog = await rt.get_catalog()
    assert [t.tool_name for t in catalog.tools] == ["a.b", "x"]
    assert catalog.policy_tools is not None
    policy = [(t.tool_name, t.excluded_from_openclaw_catalog) for t in catalog.policy_tools]
    assert sorted(policy) == [("a.b", False), ("beta", True), ("beta", True), ("task", True), ("x", False)]
    entry = catalog.servers["s"]
    assert entry.tool_count == 2
    assert entry.tools is not None and entry.tools.filtered_count == 4


async def test_filters_and_session_denial_classify_tools() -> None:
    definition = {"command": "fake", "toolFilter": {"include": ["*_docs", "admin_*"], "exclude": ["admin_*"]}}
    listed = [tool("search_docs"), tool("read_docs"), tool("admin_delete"), tool("Read_Docs")]
    services, _ = fake_services(ScriptedConnector({"docs": ScriptedServer(tools=listed)}))
    config = session({"docs": definition}, mcp_tools_deny={"docs": ["read_docs", "resources_read"]})
    with anyio.fail_after(5):
        async with runtime(config, services) as rt:
            catalog = await rt.get_catalog()
    assert [t.tool_name for t in catalog.tools] == ["search_docs"]
    assert catalog.session_denied_tools is not None
    assert [(t.tool_name, t.denied_by_session) for t in catalog.session_denied_tools] == [("read_docs", True)]
    entry = catalog.servers["docs"]
    assert entry.denied_tool_names == ("read_docs", "resources_read")
    assert entry.tools is not None and entry.tools.filtered_count == 3


async def test_a_tools_list_changed_during_a_call_invalidates_and_relists_over_the_same_connection() -> None:
    server = ScriptedServer(tools=[tool("notify")])

    async def notify(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
        conn.on_event(ListChanged("tools"))
        return {"content": []}

    server.on("tools/call", notify)
    services, _ = fake_services(ScriptedConnector({"s": server}))
    with anyio.fail_after(5):
        async with runtime(session({"s": FAKE}), services) as rt:
            first = await rt.get_catalog()
            await rt.call_tool("s", "notify", {})
            assert rt.peek_catalog() is None
            second = await rt.get_catalog()
    assert second is not first
    assert server.connects == 1
    assert server.count("tools/list") == 2


async def test_resource_and_prompt_list_changes_do_not_invalidate() -> None:
    server = ScriptedServer()
    services, _ = fake_services(ScriptedConnector({"s": server}))
    with anyio.fail_after(5):
        async with runtime(session({"s": FAKE}), services) as rt:
            first = await rt.get_catalog()
            server.emit(ListChanged("resources"))
            server.emit(ListChanged("prompts"))
            assert await rt.get_catalog() is first


async def test_a_list_changed_before_every_listing_response_costs_exactly_two_listings() -> None:
    server = ScriptedServer(tools=[tool("t")])

    async def churn(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
        conn.on_event(ListChanged("tools"))
        return {"tools": [tool("t")]}

    server.on("tools/list", churn)
    services, _ = fake_services(ScriptedConnector({"s": server}))
    with anyio.fail_after(5):
        async with runtime(session({"s": FAKE}), services) as rt:
            catalog = await rt.get_catalog()
    assert [t.tool_name for t in catalog.tools] == ["t"]
    assert server.count("tools/list") == 2


async def test_a_refresh_failure_on_a_reused_connection_keeps_the_connection() -> None:
    server = ScriptedServer()
    services, warnings = fake_services(ScriptedConnector({"s": server}))
    with anyio.fail_after(5):
        async with runtime(session({"s": FAKE}), services) as rt:
            await rt.get_catalog()

            async def broken(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
                raise McpRequestError(-32603, "listing broke")

            server.on("tools/list", broken)
            server.emit(ListChanged("tools"))
            catalog = await rt.get_catalog()
            assert server.live and server.connects == 1
    assert catalog.diagnostics is not None
    assert warnings == ['failed to refresh server "s" (fake): MCP error -32603: listing broke']


async def test_diagnostics_redact_secrets_from_listing_errors() -> None:
    server = ScriptedServer()

    async def leak(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
        raise McpRequestError(-32603, "Authorization: Bearer test-diagnostic-token")

    server.on("tools/list", leak)
    services, warnings = fake_services(ScriptedConnector({"s": server}))
    with anyio.fail_after(5):
        async with runtime(session({"s": FAKE}), services) as rt:
            catalog = await rt.get_catalog()
    assert catalog.diagnostics is not None
    assert catalog.diagnostics[0].message == "MCP error -32603: Authorization: Bearer ***"
    assert "test-diagnostic-token" not in warnings[0]


async def test_a_server_whose_transport_does_not_resolve_is_absent_without_a_diagnostic() -> None:
    services, warnings = fake_services(ScriptedConnector({"ok": ScriptedServer()}))
    with anyio.fail_after(5):
        async with runtime(session({"bad": {"transport": "stdio"}, "ok": FAKE}), services) as rt:
            catalog = await rt.get_catalog()
    assert list(catalog.servers) == ["ok"]
    assert catalog.diagnostics is None
    assert warnings == ['skipped server "bad" because transport "stdio" is not supported.']


async def test_a_connect_timeout_is_rewrapped_with_the_server_name_and_seconds() -> None:
    mute = ScriptedServer()
    mute.connect_hang = True
    services, warnings = fake_services(ScriptedConnector({"mute": mute}))
    with anyio.fail_after(5):
        async with runtime(session({"mute": {"command": "fake", "connectionTimeoutMs": 700}}), services) as rt:
            catalog = await rt.get_catalog()
    assert catalog.diagnostics is not None
    assert catalog.diagnostics[0].message == (
        'MCP server "mute" timed out: did not complete initialize within 0.7s'
        " | MCP server connection timed out after 700ms | The operation was aborted due to timeout"
    )
    assert warnings[0].startswith('failed to start server "mute" (fake): MCP server "mute" timed out')


async def test_a_connect_error_becomes_a_diagnostic_with_its_cause() -> None:
    crash = ScriptedServer()
    error = McpConnectError("MCP error -32000: Connection closed")
    error.__cause__ = FileNotFoundError(2, "No such file or directory")
    crash.connect_error = error
    services, _ = fake_services(ScriptedConnector({"crash": crash}))
    with anyio.fail_after(5):
        async with runtime(session({"crash": FAKE}), services) as rt:
            catalog = await rt.get_catalog()
    assert catalog.diagnostics is not None
    assert catalog.diagnostics[0].message == (
        "MCP error -32000: Connection closed | [Errno 2] No such file or directory"
    )


async def test_an_unusable_output_schema_fails_its_listing() -> None:
    schema = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "minProperties": -1}
    server = ScriptedServer(tools=[tool("typed", outputSchema=schema)])
    services, _ = fake_services(ScriptedConnector({"s": server}))
    with anyio.fail_after(5):
        async with runtime(session({"s": FAKE}), services) as rt:
            catalog = await rt.get_catalog()
    assert catalog.diagnostics is not None
    assert catalog.diagnostics[0].message.startswith("Invalid MCP draft-2020-12 JSON Schema:")


async def test_servers_connect_concurrently() -> None:
    servers = {name: ScriptedServer() for name in ("a", "b", "c")}
    gate = anyio.Event()
    for server in servers.values():
        server.connect_gate = gate

    async def open_when_all_connecting() -> None:
        while not all(s.connects for s in servers.values()):
            await anyio.sleep(0.005)
        gate.set()

    services, _ = fake_services(ScriptedConnector(servers))
    with anyio.fail_after(5):
        async with runtime(session(dict.fromkeys(servers, FAKE)), services) as rt, anyio.create_task_group() as tg:
            tg.start_soon(open_when_all_connecting)
            catalog = await rt.get_catalog()
    assert list(catalog.servers) == ["a", "b", "c"]


async def test_servers_load_together_up_to_the_concurrency_cap() -> None:
    from openclaw_mcp.application.runtime.session_runtime import CATALOG_CONCURRENCY

    servers = {f"s{i}": ScriptedServer() for i in range(CATALOG_CONCURRENCY + 2)}
    gate = anyio.Event()
    for server in servers.values():
        server.connect_gate = gate
    services, _ = fake_services(ScriptedConnector(servers))
    with anyio.fail_after(5):
        async with runtime(session(dict.fromkeys(servers, FAKE)), services) as rt:
            async with anyio.create_task_group() as tg:
                tg.start_soon(rt.get_catalog)
                while sum(s.connects for s in servers.values()) < CATALOG_CONCURRENCY:
                    await anyio.sleep(0.005)
                await anyio.sleep(0.05)
                assert sum(s.connects for s in servers.values()) == CATALOG_CONCURRENCY
                gate.set()
            catalog = await rt.get_catalog()
    assert len(catalog.servers) == CATALOG_CONCURRENCY + 2


async def test_the_listing_deadline_override_applies() -> None:
    server = ScriptedServer()
    server.on("tools/list", hang)
    services, _ = fake_services(ScriptedConnector({"s": server}), tuning=RuntimeTuning(catalog_list_timeout_ms=50))
    with anyio.fail_after(5):
        async with runtime(session({"s": FAKE}), services) as rt:
            catalog = await rt.get_catalog()
    assert catalog.diagnostics is not None
    assert catalog.diagnostics[0].message == "MCP tool listing timed out after 50ms"


@pytest.mark.parametrize(
    ("deny", "spawned"),
    [
        (("docs__*",), ["other"]),
        (("bundle-mcp",), []),
        (("group:plugins",), []),
        (("docs__search",), ["docs", "other"]),
    ],
)
async def test_the_tool_policy_excludes_whole_servers_before_connecting(
    deny: tuple[str, ...], spawned: list[str]
) -> None:
    servers = {"docs": ScriptedServer(), "other": ScriptedServer()}
    services, _ = fake_services(ScriptedConnector(servers))
    with anyio.fail_after(5):
        async with runtime(session({"docs": FAKE, "other": FAKE}, tool_denylist=deny), services) as rt:
            catalog = await rt.get_catalog()
    assert [name for name, server in servers.items() if server.connects] == spawned
    assert list(catalog.servers) == spawned
    assert catalog.diagnostics is None
