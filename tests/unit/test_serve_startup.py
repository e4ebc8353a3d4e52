"""``serve`` start-up: the bridge is built, resolves its Gateway target and builds (imports) the Gateway client
once the MCP client's first message is answered, so ``initialize`` does not wait for them; a missing config
file is decided without the config loader."""

from __future__ import annotations

import io
from pathlib import Path

import anyio
import pytest

from openclaw_mcp.adapters.memory.gateway import InMemoryGateway
from openclaw_mcp.application.bridge.service import ChannelBridge
from openclaw_mcp.application.ports.gateway import GatewaySettings
from openclaw_mcp.entrypoints.containers import create_container
from openclaw_mcp.entrypoints.serve.cli import _FIRST_INPUT_GRACE_S, _after_first_input
from openclaw_mcp.entrypoints.serve.dispatcher import McpDispatcher
from openclaw_mcp.entrypoints.serve.transport import StdioTransport
from openclaw_mcp.entrypoints.stdio_process import Stderr as _Stderr
from openclaw_mcp.entrypoints.stdio_process import load_config_document as _load_config
from tests.unit.serve_fakes import INITIALIZE, Session, serve_env

pytestmark = pytest.mark.asyncio

SETTINGS = GatewaySettings(url="ws://127.0.0.1:18789")


async def test_the_settings_are_resolved_after_the_first_input() -> None:
    resolved: list[float] = []
    first_input = anyio.Event()

    async def resolve() -> GatewaySettings:
        resolved.append(anyio.current_time())
        return SETTINGS

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(_after_first_input(resolve, first_input.wait))
            await anyio.sleep(0.05)
            assert resolved == []
            first_input.set()
    assert len(resolved) == 1


async def test_without_input_the_settings_are_resolved_after_the_grace_period() -> None:
    async def resolve() -> GatewaySettings:
        return SETTINGS

    never = anyio.Event()
    started = anyio.current_time()
    with anyio.fail_after(5):
        assert await _after_first_input(resolve, never.wait)() == SETTINGS
    assert anyio.current_time() - started >= _FIRST_INPUT_GRACE_S


async def test_the_bridge_is_built_by_the_first_message_that_needs_it() -> None:
    session = Session()
    built: list[ChannelBridge] = []

    async def resolve() -> GatewaySettings:
        return SETTINGS

    def bridge() -> ChannelBridge:
        built.append(
            ChannelBridge(
                gateway=InMemoryGateway(),
                resolve_settings=resolve,
                notifier=server,
                clock=create_container({}).clock(),
                write_line=print,
            )
        )
        return built[-1]

    server = McpDispatcher(StdioTransport(session.source, session.sink), mode="auto", bridge=bridge)
    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            await tg.start(server.run)
            await session.roundtrip("initialize", INITIALIZE)
            await session.roundtrip("ping")
            await session.roundtrip("tools/list")
            assert (await session.tool("no_such_tool"))["isError"] is True
            assert (await session.tool("events_poll", {"limit": "x"}))["isError"] is True
            assert built == []
            polled = await session.tool("events_poll", {})
            assert "isError" not in polled, polled
            await session.tool("events_poll", {})
            assert len(built) == 1
            await server.close()
        session.close_streams()


@pytest.mark.parametrize("exists", [False, True])
async def test_the_config_guard_of_a_missing_file_matches_the_loader(tmp_path: Path, exists: bool) -> None:
    env = serve_env(tmp_path)
    container = create_container(env)
    path = container.settings().config_path
    if exists:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text("{}\n", encoding="utf-8")
    stderr = io.StringIO()
    fast = await _load_config(container, env, _Stderr(stderr))
    container.config_store.override(container.config_store())  # overridden: always through the loader
    assert await _load_config(container, env, _Stderr(stderr)) == fast == ({}, path)
    assert stderr.getvalue() == ""
