"""``serve`` start-up: the bridge resolves its Gateway target and builds (imports) the Gateway client once the
MCP client's first message is answered, so ``initialize`` does not wait for them."""

from __future__ import annotations

import anyio
import pytest

from application.ports.gateway import GatewaySettings
from entrypoints.serve.cli import _FIRST_INPUT_GRACE_S, _after_first_input

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
