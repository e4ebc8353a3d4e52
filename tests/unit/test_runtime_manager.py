"""The session runtime manager: reuse and replacement, leases, idle eviction, live cap (spec client-runtime
§4.15; acceptance §11.4 #66–#68, #70)."""

from __future__ import annotations

import anyio
import pytest

from openclaw_mcp.adapters.collation import UcaCollator
from openclaw_mcp.application.runtime import LiveRuntimeLimitReached, SessionRuntimeManager, resolve_idle_ttl_ms
from openclaw_mcp.application.runtime.services import RuntimeServices
from tests.unit.test_runtime_fakes import FakeClock, ScriptedConnector, ScriptedServer, fake_services, session, tool

pytestmark = pytest.mark.asyncio

FAKE = {"command": "fake"}
HOUR_MS = 3_600_000


def manager(services: RuntimeServices, **options: int) -> SessionRuntimeManager:
    return SessionRuntimeManager(services, collator=UcaCollator(), **options)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(None, 0), (1000.9, 1000), (0, 0), (-1, 0), ("1000", 0), (True, 0), (float("inf"), 0), (float("nan"), 0)],
)
async def test_the_idle_ttl_is_a_floored_finite_non_negative_number_else_zero(raw: object, expected: int) -> None:
    assert resolve_idle_ttl_ms(raw) == expected


async def test_acquiring_the_same_config_reuses_the_runtime_and_marks_it_used() -> None:
    clock = FakeClock()
    services, _ = fake_services(ScriptedConnector({"a": ScriptedServer()}), clock)
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            first = await mgr.acquire(session({"a": FAKE}))
            clock.advance(500)
            second = await mgr.acquire(session({"a": FAKE}))
    assert second is first
    assert second.last_used_at == clock.now


async def test_a_changed_server_is_replaced_while_unchanged_ones_keep_connection_and_catalog() -> None:
    servers = {"A": ScriptedServer(tools=[tool("a")]), "B": ScriptedServer(tools=[tool("b")])}
    services, _ = fake_services(ScriptedConnector(servers))
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            old = await mgr.acquire(session({"A": FAKE, "B": {"command": "fake", "args": ["1"]}}))
            await old.get_catalog()
            a_catalog = old.parts[0].peek_catalog()
            new = await mgr.acquire(session({"A": FAKE, "B": {"command": "fake", "args": ["2"]}}))
            assert new is not old and mgr.runtime("s1") is new
            assert new.parts[0].peek_catalog() is a_catalog
            assert not servers["B"].live  # the old B was disposed with the old runtime
            catalog = await new.get_catalog()
    assert [t.tool_name for t in catalog.tools] == ["a", "b"]
    assert servers["A"].connects == 1
    assert servers["B"].connects == 2


async def test_without_an_idle_ttl_a_runtime_is_never_evicted() -> None:
    clock = FakeClock()
    services, _ = fake_services(ScriptedConnector({"a": ScriptedServer()}), clock)
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            runtime = await mgr.acquire(session({"a": FAKE}))
            for _ in range(3):
                clock.advance(HOUR_MS)
                assert await mgr.sweep_idle() == 0
    assert mgr.session_ids() == [] and runtime.is_current is False  # disposed on manager exit only


async def test_an_idle_runtime_is_evicted_only_without_leases_and_release_does_not_refresh_use() -> None:
    clock = FakeClock()
    server = ScriptedServer()
    services, _ = fake_services(ScriptedConnector({"a": server}), clock)
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            runtime = await mgr.acquire(session({"a": FAKE}), idle_ttl_ms=1000.9)
            await runtime.get_catalog()
            release = runtime.acquire_lease()
            clock.advance(10 * 60_000)
            assert await mgr.sweep_idle() == 0
            release()
            assert runtime.last_used_at == clock.now - 10 * 60_000
            assert await mgr.sweep_idle() == 1
            assert mgr.runtime("s1") is None
            assert not runtime.is_current
            assert server.live == []
            catalog = await runtime.get_catalog()
    assert catalog.diagnostics is not None
    assert catalog.diagnostics[0].message == "MCP server runtime retired; retry discovery on the next turn."


async def test_the_sweep_loop_evicts_idle_runtimes_on_its_own() -> None:
    clock = FakeClock()
    services, _ = fake_services(ScriptedConnector({"a": ScriptedServer()}), clock)
    with anyio.fail_after(5):
        async with manager(services, sweep_interval_ms=10) as mgr:
            await mgr.acquire(session({"a": FAKE}), idle_ttl_ms=1000)
            clock.advance(1000)
            while mgr.runtime("s1") is not None:
                await anyio.sleep(0.01)


async def test_a_recently_used_runtime_is_kept() -> None:
    clock = FakeClock()
    services, _ = fake_services(ScriptedConnector({"a": ScriptedServer()}), clock)
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            runtime = await mgr.acquire(session({"a": FAKE}), idle_ttl_ms=1000)
            clock.advance(999)
            assert await mgr.sweep_idle() == 0
            runtime.mark_used()
            clock.advance(999)
            assert await mgr.sweep_idle() == 0
            clock.advance(1)
            assert await mgr.sweep_idle() == 1


async def test_the_live_cap_refuses_a_257th_runtime_with_servers_but_admits_one_without() -> None:
    services, warnings = fake_services(ScriptedConnector({"a": ScriptedServer()}))
    message = "live runtime limit (256) reached; stop or reset unused sessions before connecting another MCP runtime"
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            for index in range(256):
                await mgr.acquire(session({"a": FAKE}, session_id=f"s{index}"))
            assert mgr.live_count == 256
            with pytest.raises(LiveRuntimeLimitReached) as caught:
                await mgr.acquire(session({"a": FAKE}, session_id="s256"))
            empty = await mgr.acquire(session({}, session_id="empty"))
            assert empty.has_servers is False
            await mgr.dispose_session("s0")
            await mgr.acquire(session({"a": FAKE}, session_id="s256"))
    assert str(caught.value) == f"bundle-mcp: {message}"
    assert warnings == [message]


async def test_disposing_a_session_closes_its_servers() -> None:
    server = ScriptedServer()
    services, _ = fake_services(ScriptedConnector({"a": server}))
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            runtime = await mgr.acquire(session({"a": FAKE}))
            await runtime.get_catalog()
            assert server.live
            await mgr.dispose_session("s1")
            assert server.live == []
            assert mgr.runtime("s1") is None
            assert mgr.live_count == 0


async def test_leaving_the_manager_disposes_every_runtime() -> None:
    servers = {"a": ScriptedServer(), "b": ScriptedServer()}
    services, _ = fake_services(ScriptedConnector(servers))
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            for name in servers:
                runtime = await mgr.acquire(session({name: FAKE}, session_id=name))
                await runtime.get_catalog()
    assert all(server.live == [] for server in servers.values())
