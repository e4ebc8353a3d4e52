"""Idle TTL of session runtimes: the TTL of the latest published reload, the sweep timer that runs only while
some TTL > 0, activity and eviction (tool-policy-and-lifecycle.md §1, acceptance §5.1 tests 1–8).

Fake clock and scripted connector, except test 8 (a real stdio server process, real clock)."""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.clock import SystemClock
from openclaw_mcp.adapters.collation import UcaCollator
from openclaw_mcp.adapters.stdio import StdioMcpConnector
from openclaw_mcp.application.runtime import RuntimeServices, SessionConfig, SessionRuntime, SessionRuntimeManager
from openclaw_mcp.application.tool_boundary import HookRegistry
from openclaw_mcp.domain.config_load import analyze_config
from openclaw_mcp.domain.validation import validate_config
from tests.unit.test_runtime_fakes import FakeClock, ScriptedConnector, ScriptedServer, fake_services, session

pytestmark = pytest.mark.asyncio

FAKE = {"command": "fake"}
HOUR_MS = 3_600_000
DAY_MS = 24 * HOUR_MS
SERVERS = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_servers"


def manager(services: RuntimeServices, **options: int) -> SessionRuntimeManager:
    return SessionRuntimeManager(services, collator=UcaCollator(), **options)


def unchanged(runtime: SessionRuntime) -> SessionConfig:
    return runtime.config


# --- §5.1 test 1: values that resolve to TTL 0 -----------------------------------------------------------


@pytest.mark.parametrize("raw", [None, 0, "600000", True, math.nan], ids=["absent", "0", "string", "true", "nan"])
async def test_a_ttl_that_resolves_to_zero_never_evicts_and_runs_no_sweep_timer(raw: object) -> None:
    clock = FakeClock()
    services, _ = fake_services(ScriptedConnector({"a": ScriptedServer()}), clock)
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            runtime = await mgr.acquire(session({"a": FAKE}), idle_ttl_ms=raw)
            assert mgr.idle_ttl_ms("s1") == 0
            assert not mgr.sweep_timer_running
            for _ in range(24):
                clock.advance(HOUR_MS)
                assert await mgr.sweep_idle() == 0
            assert mgr.runtime("s1") is runtime and runtime.is_current


@pytest.mark.parametrize("raw", ["600000", True, math.nan, -5])
async def test_a_reload_to_a_ttl_that_resolves_to_zero_disables_eviction(raw: object) -> None:
    clock = FakeClock()
    services, _ = fake_services(ScriptedConnector({"a": ScriptedServer()}), clock)
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            runtime = await mgr.acquire(session({"a": FAKE}), idle_ttl_ms=1000)
            assert mgr.sweep_timer_running
            await mgr.reload(unchanged, idle_ttl_ms=raw)
            assert not mgr.sweep_timer_running
            clock.advance(DAY_MS)
            assert await mgr.sweep_idle() == 0
            assert mgr.runtime("s1") is runtime


# --- §5.1 test 2: a negative TTL makes the config invalid ------------------------------------------------


async def test_a_negative_ttl_makes_the_config_invalid_with_the_reference_issue_line() -> None:
    text = '{"mcp":{"sessionIdleTtlMs":-5,"servers":{}}}'
    issues = validate_config(json.loads(text))
    assert [(issue.dotted, issue.message) for issue in issues] == [
        ("mcp.sessionIdleTtlMs", "Too small: expected number to be >=0 (minimum: 0)")
    ]
    analysis = analyze_config(text, {})
    assert not analysis.valid
    lines = [f"{issue.display}: {issue.message}, got: {issue.got}" for issue in analysis.issues]
    assert lines == ["mcp.sessionIdleTtlMs: Too small: expected number to be >=0 (minimum: 0), got: -5"]


# --- §5.1 tests 3–5: eviction timing, leases, reuse ------------------------------------------------------


async def test_a_released_runtime_is_evicted_at_the_first_sweep_at_or_after_its_floored_ttl() -> None:
    clock = FakeClock()
    server = ScriptedServer()
    services, _ = fake_services(ScriptedConnector({"a": server}), clock)
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            runtime = await mgr.acquire(session({"a": FAKE}), idle_ttl_ms=1000.9)
            await runtime.get_catalog()
            release = runtime.acquire_lease()
            release()  # t0
            clock.advance(999)
            assert await mgr.sweep_idle() == 0
            assert mgr.list_session_ids() == ["s1"]
            clock.advance(1)
            assert await mgr.sweep_idle() == 1
            assert mgr.list_session_ids() == []
            assert not runtime.is_current and server.live == []
            assert mgr.live_count == 0
            assert not mgr.sweep_timer_running


async def test_a_held_lease_prevents_eviction_and_its_release_does_not_refresh_use() -> None:
    clock = FakeClock()
    services, _ = fake_services(ScriptedConnector({"a": ScriptedServer()}), clock)
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            runtime = await mgr.acquire(session({"a": FAKE}), idle_ttl_ms=10)
            used_at = runtime.last_used_at
            release = runtime.acquire_lease()
            for _ in range(24):
                clock.advance(HOUR_MS)
                assert await mgr.sweep_idle() == 0
            release()
            assert runtime.last_used_at == used_at
            assert await mgr.sweep_idle() == 1
            assert mgr.runtime("s1") is None


async def test_reacquiring_returns_the_same_runtime_and_postpones_eviction() -> None:
    clock = FakeClock()
    services, _ = fake_services(ScriptedConnector({"a": ScriptedServer()}), clock)
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            first = await mgr.acquire(session({"a": FAKE}), idle_ttl_ms=500)  # t0
            clock.advance(300)
            second = await mgr.acquire(session({"a": FAKE}), idle_ttl_ms=500)
            assert second is first
            clock.advance(499)  # t0 + 799
            assert await mgr.sweep_idle() == 0
            clock.advance(1)  # t0 + 800
            assert await mgr.sweep_idle() == 1


# --- §5.1 test 6: the TTL of the latest published reload -------------------------------------------------


async def test_a_reload_sets_the_ttl_of_every_live_runtime_and_starts_the_sweep_timer() -> None:
    clock = FakeClock()
    servers = {"a": ScriptedServer()}
    services, _ = fake_services(ScriptedConnector(servers), clock)
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            created = [
                await mgr.acquire(session({"a": FAKE}, session_id=sid), idle_ttl_ms=raw)
                for sid, raw in (("ttl0", 0), ("ttlunset", None), ("ttlneg", -5))
            ]
            assert not mgr.sweep_timer_running
            await mgr.reload(unchanged, idle_ttl_ms=100)
            assert mgr.sweep_timer_running
            assert [mgr.idle_ttl_ms(sid) for sid in ("ttl0", "ttlunset", "ttlneg")] == [100, 100, 100]
            assert [mgr.runtime(sid) for sid in ("ttl0", "ttlunset", "ttlneg")] == created
            assert all(runtime.is_current for runtime in created)  # a TTL-only reload replaces nothing
            clock.advance(99)
            assert await mgr.sweep_idle() == 0
            clock.advance(1)
            assert await mgr.sweep_idle() == 3
            assert mgr.list_session_ids() == []
            assert not mgr.sweep_timer_running


async def test_after_a_reload_every_acquisition_takes_the_published_ttl_not_the_callers() -> None:
    clock = FakeClock()
    servers = {"a": ScriptedServer()}
    services, _ = fake_services(ScriptedConnector(servers), clock)
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            reused = await mgr.acquire(session({"a": FAKE}, session_id="old"), idle_ttl_ms=5000)
            await reused.get_catalog()
            await mgr.reload(unchanged, idle_ttl_ms=100)
            assert await mgr.acquire(session({"a": FAKE}, session_id="old"), idle_ttl_ms=5000) is reused
            assert mgr.idle_ttl_ms("old") == 100
            await mgr.acquire(session({"a": FAKE}, session_id="new"), idle_ttl_ms=0)
            assert mgr.idle_ttl_ms("new") == 100
            await mgr.reload(unchanged, idle_ttl_ms=0)
            assert not mgr.sweep_timer_running
            await mgr.acquire(session({"a": FAKE}, session_id="later"), idle_ttl_ms=5000)
            assert mgr.idle_ttl_ms("later") == 0
            assert not mgr.sweep_timer_running
    assert servers["a"].connects == 1  # changing only the TTL never reconnected the server


async def test_disposing_all_runtimes_forgets_the_published_reload() -> None:
    services, _ = fake_services(ScriptedConnector({"a": ScriptedServer()}))
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            await mgr.reload(unchanged, idle_ttl_ms=100)
            await mgr.acquire(session({"a": FAKE}), idle_ttl_ms=0)
            assert mgr.idle_ttl_ms("s1") == 100
            await mgr.dispose_all()
            await mgr.acquire(session({"a": FAKE}), idle_ttl_ms=0)
            assert mgr.idle_ttl_ms("s1") == 0 and not mgr.sweep_timer_running


async def test_a_reload_retires_changed_servers_and_the_next_acquisition_replaces_the_runtime() -> None:
    servers = {"A": ScriptedServer(), "B": ScriptedServer()}
    services, _ = fake_services(ScriptedConnector(servers))
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            old = await mgr.acquire(session({"A": FAKE, "B": FAKE}))
            await old.get_catalog()
            await mgr.reload(lambda runtime: session({"A": FAKE}), idle_ttl_ms=0)
            assert not old.is_current and servers["B"].live == [] and servers["A"].live
            new = await mgr.acquire(session({"A": FAKE}))
            assert new is not old
            await new.get_catalog()
    assert servers["A"].connects == 1


async def test_a_runtime_a_reload_leaves_without_servers_is_dropped_unless_leased() -> None:
    services, _ = fake_services(ScriptedConnector({"a": ScriptedServer()}))
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            await mgr.acquire(session({"a": FAKE}, session_id="free"))
            leased = await mgr.acquire(session({"a": FAKE}, session_id="leased"))
            release = leased.acquire_lease()
            assert mgr.live_count == 2
            await mgr.reload(lambda runtime: session({}, session_id=runtime.session_id), idle_ttl_ms=0)
            assert mgr.session_ids() == ["leased"]
            assert mgr.live_count == 0
            release()


async def test_a_reload_published_while_a_runtime_is_being_replaced_reaches_the_new_runtime() -> None:
    servers = {"A": ScriptedServer(), "B": ScriptedServer()}
    services, _ = fake_services(ScriptedConnector(servers))
    b1, b2 = {"command": "fake", "args": ["1"]}, {"command": "fake", "args": ["2"]}
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            old = await mgr.acquire(session({"A": FAKE, "B": b1}))
            await old.get_catalog()
            servers["B"].close_stuck_s = 0.2  # the replacement waits for the old B to close
            replaced: list[SessionRuntime] = []

            async def replace() -> None:
                replaced.append(await mgr.acquire(session({"A": FAKE, "B": b2})))

            async with anyio.create_task_group() as tg:
                tg.start_soon(replace)
                while mgr.runtime("s1") is not None:
                    await anyio.sleep(0.005)
                await mgr.reload(lambda runtime: session({"B": b2}), idle_ttl_ms=250)
            new = replaced[0]
            assert new.server_runtime("A") is None and servers["A"].live == []
            assert not new.is_current
            assert mgr.idle_ttl_ms("s1") == 250


# --- the sweep timer (§1.4) -------------------------------------------------------------------------------


async def test_the_sweep_timer_runs_only_while_some_live_runtime_has_a_ttl() -> None:
    clock = FakeClock()
    services, _ = fake_services(ScriptedConnector({"a": ScriptedServer()}), clock)
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            await mgr.acquire(session({"a": FAKE}, session_id="zero"))
            assert not mgr.sweep_timer_running
            await mgr.acquire(session({"a": FAKE}, session_id="ttl"), idle_ttl_ms=1000)
            assert mgr.sweep_timer_running
            await mgr.dispose_session("ttl")
            assert not mgr.sweep_timer_running
            await mgr.acquire(session({"a": FAKE}, session_id="ttl"), idle_ttl_ms=1000)
            assert mgr.sweep_timer_running
            await mgr.acquire(session({"a": FAKE}, session_id="ttl"), idle_ttl_ms=0)  # reuse with TTL 0
            assert not mgr.sweep_timer_running
            await mgr.acquire(session({"a": FAKE}, session_id="ttl"), idle_ttl_ms=1000)
            clock.advance(1000)
            assert await mgr.sweep_idle() == 1
            assert not mgr.sweep_timer_running
            await mgr.acquire(session({"a": FAKE}, session_id="ttl"), idle_ttl_ms=1000)
            assert mgr.sweep_timer_running
        assert not mgr.sweep_timer_running


async def test_the_sweep_timer_evicts_on_its_own_and_then_stops() -> None:
    clock = FakeClock()
    services, _ = fake_services(ScriptedConnector({"a": ScriptedServer()}), clock)
    with anyio.fail_after(5):
        async with manager(services, sweep_interval_ms=20) as mgr:
            await mgr.acquire(session({"a": FAKE}), idle_ttl_ms=1000)
            clock.advance(1000)
            while mgr.runtime("s1") is not None or mgr.sweep_timer_running:
                await anyio.sleep(0.01)


async def test_a_zero_sweep_period_never_starts_the_timer() -> None:
    services, _ = fake_services(ScriptedConnector({"a": ScriptedServer()}))
    with anyio.fail_after(5):
        async with manager(services, sweep_interval_ms=0) as mgr:
            await mgr.acquire(session({"a": FAKE}), idle_ttl_ms=1000)
            assert not mgr.sweep_timer_running


async def test_sweeps_never_overlap() -> None:
    clock = FakeClock()
    server = ScriptedServer()
    services, _ = fake_services(ScriptedConnector({"a": server}), clock)
    finished: list[str] = []
    with anyio.fail_after(5):
        async with manager(services) as mgr:
            runtime = await mgr.acquire(session({"a": FAKE}), idle_ttl_ms=10)
            await runtime.get_catalog()
            server.close_stuck_s = 0.2
            clock.advance(10)

            async def sweep(label: str) -> None:
                await mgr.sweep_idle()
                finished.append(label)

            async with anyio.create_task_group() as tg:
                tg.start_soon(sweep, "first")
                while mgr.runtime("s1") is not None:
                    await anyio.sleep(0.005)
                tg.start_soon(sweep, "second")
    assert finished == ["first", "second"]


async def test_a_cancelled_manager_stops_its_timer_and_disposes_its_runtimes() -> None:
    server = ScriptedServer()
    services, _ = fake_services(ScriptedConnector({"a": server}))
    with anyio.fail_after(5):
        with anyio.CancelScope() as scope:
            async with manager(services, sweep_interval_ms=10) as mgr:
                runtime = await mgr.acquire(session({"a": FAKE}), idle_ttl_ms=HOUR_MS)
                await runtime.get_catalog()
                assert mgr.sweep_timer_running
                scope.cancel()
                await anyio.sleep_forever()
    assert scope.cancelled_caught
    assert not mgr.sweep_timer_running and mgr.session_ids() == [] and server.live == []


# --- §5.1 test 7: a vetoed call is not use (runtime API path, fake clock) --------------------------------


async def test_a_vetoed_call_does_not_refresh_last_use_but_materialising_and_executing_do() -> None:
    from mcp.server.mcpserver import MCPServer

    from openclaw_mcp.adapters.memory.mcp_connector import InMemoryMcpConnector
    from openclaw_mcp.entrypoints.runtime_api import RuntimeBoundary, RuntimeHost, SessionMcpRuntime, runtime_container

    app = MCPServer("adder")

    @app.tool()
    def add(a: int, b: int) -> int:
        return a + b

    clock = FakeClock()
    container = runtime_container({"PATH": os.environ.get("PATH", "")})
    container.stdio_connector.override(InMemoryMcpConnector({"adder": app}))
    container.clock.override(clock)
    hooks = HookRegistry()
    hooks.on("before_tool_call", lambda e, c: {"block": True} if e["params"].get("a") == 0 else None, plugin_id="g")
    with anyio.fail_after(30):
        async with SessionMcpRuntime(
            {"adder": {"command": "in-memory"}},
            host=RuntimeHost(container=container),
            boundary=RuntimeBoundary(hooks=hooks),
        ) as rt:
            clock.advance(1000)
            tools = {tool.name: tool for tool in await rt.tools()}
            assert rt.session.last_used_at == clock.now
            materialised = clock.now
            clock.advance(1000)
            blocked = await tools["adder__add"].execute({"a": 0, "b": 1})
            assert blocked.details["status"] == "blocked"
            assert rt.session.last_used_at == materialised
            clock.advance(1000)
            result = await tools["adder__add"].execute({"a": 2, "b": 3})
            assert '"result": 5' in result.content[0]["text"]
            assert rt.session.last_used_at == clock.now


# --- §5.1 test 8: a real stdio server process is gone after eviction --------------------------------------


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie waiting for its reaper counts as gone
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


async def _server_pid(runtime: SessionRuntime) -> int:
    result: dict[str, Any] = await runtime.call_tool("env", "ids", {})
    pid = json.loads(result["content"][0]["text"])["pid"]
    assert isinstance(pid, int)
    return pid


async def test_an_evicted_stdio_server_process_is_gone_and_the_next_acquisition_spawns_a_new_one() -> None:
    services = RuntimeServices(
        connector=StdioMcpConnector(inherited={"PATH": os.environ.get("PATH", "")}),
        clock=SystemClock(),
        warn=lambda _text: None,
    )
    config = session({"env": {"command": sys.executable, "args": [str(SERVERS / "env_server.py")]}})
    with anyio.fail_after(30):
        async with manager(services, sweep_interval_ms=200) as mgr:
            first = await mgr.acquire(config, idle_ttl_ms=1000)
            release = first.acquire_lease()  # a turn: spawning the server may take longer than the TTL
            pid = await _server_pid(first)
            first.mark_used()
            release()
            assert _alive(pid) and mgr.sweep_timer_running
            while mgr.runtime("s1") is not None or mgr.sweep_timer_running:  # the timer stops after disposal
                await anyio.sleep(0.05)
            assert services.clock.now_ms() - first.last_used_at >= 1000
            assert not first.is_current and not _alive(pid)
            second = await mgr.acquire(config, idle_ttl_ms=1000)
            assert second is not first
            release = second.acquire_lease()
            new_pid = await _server_pid(second)
            release()
            assert new_pid != pid and _alive(new_pid)
    assert not _alive(new_pid)
