"""``serve`` start-up: the Gateway client is built (imported) once the MCP client's first message is answered,
so ``initialize`` does not wait for it."""

from __future__ import annotations

import anyio
import pytest

from adapters.memory.gateway import InMemoryGateway
from application.ports.gateway import Gateway, GatewaySettings
from entrypoints.serve.cli import _FIRST_INPUT_GRACE_S, _DeferredGateway

pytestmark = pytest.mark.asyncio

SETTINGS = GatewaySettings(url="ws://127.0.0.1:18789")


async def _connect_once(gateway: _DeferredGateway, connected: anyio.Event) -> None:
    async with gateway.connect(SETTINGS, on_event=lambda _event: None, log=lambda _line: None):
        connected.set()


async def test_the_gateway_client_is_built_after_the_first_input() -> None:
    built: list[Gateway] = []
    first_input, connected = anyio.Event(), anyio.Event()

    def provide() -> Gateway:
        built.append(InMemoryGateway())
        return built[-1]

    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(_connect_once, _DeferredGateway(provide, first_input.wait), connected)
            await anyio.sleep(0.05)
            assert built == []
            first_input.set()
            await connected.wait()
    assert len(built) == 1


async def test_without_input_the_gateway_client_is_built_after_the_grace_period() -> None:
    first_input, connected = anyio.Event(), anyio.Event()
    started = anyio.current_time()
    with anyio.fail_after(5):
        async with anyio.create_task_group() as tg:
            tg.start_soon(_connect_once, _DeferredGateway(InMemoryGateway, first_input.wait), connected)
            await connected.wait()
    assert anyio.current_time() - started >= _FIRST_INPUT_GRACE_S


async def test_an_overridden_gateway_client_is_built_at_once() -> None:
    connected = anyio.Event()
    with anyio.fail_after(0.2):
        await _connect_once(_DeferredGateway(InMemoryGateway, None), connected)
    assert connected.is_set()
