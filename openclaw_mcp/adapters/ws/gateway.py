"""The OpenClaw Gateway client over ``websockets``: :class:`WebsocketsGateway` opens connections
(:class:`WebsocketsGatewayConnection`, in ``_connection``), each run in its own task group for the lifetime
of an ``async with`` block."""

from __future__ import annotations

import time
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING

import anyio

from openclaw_mcp.adapters.ws._connection import BRIDGE_EVENTS, Sleep, WebsocketsGatewayConnection
from openclaw_mcp.adapters.ws._device_auth import TokenClearingStore
from openclaw_mcp.adapters.ws._handshake import CONNECT_TIMEOUT_MS, DEFAULT_PREAUTH_TIMEOUT_MS, platform_identity
from openclaw_mcp.application.held_task_group import HeldTaskGroup
from openclaw_mcp.application.ports.gateway import DeviceIdentityStore, GatewayEvent, GatewaySettings

__all__ = ["BRIDGE_EVENTS", "TokenClearingStore", "WebsocketsGateway", "WebsocketsGatewayConnection"]


class WebsocketsGateway:
    """Opens Gateway connections over ``websockets``.

    ``env`` supplies ``OPENCLAW_HANDSHAKE_TIMEOUT_MS`` / ``OPENCLAW_CONNECT_CHALLENGE_TIMEOUT_MS`` (default:
    ``os.environ`` read at construction). ``platform`` overrides ``sys.platform`` for ``client.platform`` /
    ``deviceFamily``. ``sleep`` waits between reconnect attempts (tests inject a recorder);
    ``tick_watch_min_interval_ms`` (1…30 000, default 1 000) and ``connect_timeout_ms`` are the reference's
    tuning knobs; ``clock`` is the monotonic clock of the liveness watch.
    """

    def __init__(
        self,
        identity_store: DeviceIdentityStore,
        *,
        open_timeout_ms: int = DEFAULT_PREAUTH_TIMEOUT_MS,
        challenge_timeout_ms: int = DEFAULT_PREAUTH_TIMEOUT_MS,
        platform: str | None = None,
        sleep: Sleep = anyio.sleep,
        tick_watch_min_interval_ms: int = 1_000,
        connect_timeout_ms: int = CONNECT_TIMEOUT_MS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = identity_store
        self._open_timeout_ms = open_timeout_ms
        self._challenge_timeout_ms = max(250, challenge_timeout_ms)
        self._platform = platform_identity(platform)
        self._sleep = sleep
        self._tick_min_ms = max(1, min(30_000, tick_watch_min_interval_ms))
        self._connect_timeout_ms = connect_timeout_ms
        self._clock = clock

    def connect(
        self,
        settings: GatewaySettings,
        *,
        on_event: Callable[[GatewayEvent], None],
        log: Callable[[str], None],
    ) -> _ConnectionContext:
        connection = WebsocketsGatewayConnection(
            settings,
            store=self._store,
            on_event=on_event,
            log=log,
            platform=self._platform,
            sleep=self._sleep,
            challenge_timeout_ms=self._challenge_timeout_ms,
            open_timeout_ms=self._open_timeout_ms,
            connect_timeout_ms=self._connect_timeout_ms,
            tick_min_interval_ms=self._tick_min_ms,
            clock=self._clock,
        )
        return _ConnectionContext(connection)


class _ConnectionContext:
    """Runs the connection's supervisor in a task group for the lifetime of the ``async with`` block."""

    def __init__(self, connection: WebsocketsGatewayConnection) -> None:
        self._connection = connection
        self._tasks = HeldTaskGroup()
        self._entered = False

    async def __aenter__(self) -> WebsocketsGatewayConnection:
        if self._entered:
            raise RuntimeError("gateway connection already started")
        self._entered = True
        task_group = await self._tasks.open()
        task_group.start_soon(self._connection._supervise)
        return self._connection

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        if self._tasks.group is None:
            return
        self._connection._begin_stop()
        # Shielded so a cancelled caller still gets the bounded socket close.
        await self._tasks.close(shield=True)


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.gateway import Gateway, GatewayConnection

    def _conforms(
        gateway: WebsocketsGateway, connection: WebsocketsGatewayConnection
    ) -> tuple[Gateway, GatewayConnection]:
        return gateway, connection
