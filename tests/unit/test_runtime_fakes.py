"""A scripted ``McpConnector`` for the runtime tests, plus a fake clock (and a check of the fake itself).

The SDK in-process servers (``InMemoryMcpConnector``) cannot misbehave on demand; this adapter double can:
per server it answers, raises, hangs, fails to connect, never connects, or never finishes closing. It
implements the port structurally and records what the runtime asked of it.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from openclaw_mcp.adapters.collation import UcaCollator
from openclaw_mcp.application.ports.mcp import ConnectionClosed, McpConnector, McpError, McpEvent, McpTimeout
from openclaw_mcp.application.runtime import RuntimeServices, RuntimeTuning, SessionConfig, SessionRuntime
from openclaw_mcp.domain.transport import HttpConfig, StdioConfig

pytestmark = pytest.mark.asyncio

START_MS = 1_764_417_600_000  # 2025-11-29T12:00:00.000Z

Handler = Callable[["ScriptedConnection", dict[str, Any] | None], Awaitable[dict[str, Any]]]


class FakeClock:
    """Wall clock under test control."""

    def __init__(self, start: int = START_MS) -> None:
        self.now = start

    def now_ms(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms


def tool(name: str, **extra: Any) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object", "properties": {}}, **extra}


class ScriptedServer:
    """One programmable server. ``handlers[method]`` answers requests (default: ``tools/list`` lists
    ``tools``, ``tools/call`` answers ``ok``, list methods answer empty lists). ``close_hang``: closing
    waits until forced (cancelled); ``close_stuck_s``: closing ignores even a forced close that long."""

    def __init__(self, *, tools: list[Any] | None = None, capabilities: dict[str, Any] | None = None) -> None:
        self.tools: list[Any] = tools if tools is not None else [tool("t")]
        self.capabilities: dict[str, Any] = capabilities if capabilities is not None else {"tools": {}}
        self.handlers: dict[str, Handler] = {}
        self.requests: list[tuple[str, dict[str, Any] | None]] = []
        self.timeouts: list[tuple[str, int]] = []
        self.cancelled: list[str] = []
        self.timed_out: list[str] = []
        self.connects = 0
        self.connections: list[ScriptedConnection] = []
        self.connect_error: BaseException | None = None
        self.connect_hang = False
        self.connect_gate: anyio.Event | None = None
        self.close_hang = False
        self.close_stuck_s = 0.0
        self.close_error: BaseException | None = None
        self.forced_closes = 0
        self.active_calls = 0
        self.max_active_calls = 0

    def on(self, method: str, handler: Handler) -> None:
        self.handlers[method] = handler

    def count(self, method: str) -> int:
        return sum(1 for m, _ in self.requests if m == method)

    @property
    def live(self) -> list[ScriptedConnection]:
        return [c for c in self.connections if not c.closed]

    def kill(self) -> None:
        """The transport dies (what a SIGKILLed server process looks like)."""
        for connection in self.live:
            connection.close_transport("killed")

    def emit(self, event: McpEvent) -> None:
        for connection in self.live:
            connection.on_event(event)

    async def default(
        self, connection: ScriptedConnection, method: str, params: dict[str, Any] | None
    ) -> dict[str, Any]:
        if method == "tools/list":
            return {"tools": copy.deepcopy(self.tools)}
        if method == "tools/call":
            return {"content": [{"type": "text", "text": "ok"}]}
        if method in ("resources/list", "prompts/list"):
            return {method.split("/")[0]: []}
        return {}


class ScriptedConnection:
    """The ``McpConnection`` a scripted server yields."""

    _pids = itertools.count(1000)

    def __init__(self, server: ScriptedServer, on_event: Callable[[McpEvent], None]) -> None:
        self.server = server
        self.on_event = on_event
        self.pid = next(self._pids)
        self.closed_event = anyio.Event()
        self._closed_reported = False

    @property
    def capabilities(self) -> dict[str, Any]:
        return self.server.capabilities

    @property
    def closed(self) -> bool:
        return self.closed_event.is_set()

    def close_transport(self, reason: str | None = None) -> None:
        self.closed_event.set()
        if not self._closed_reported:
            self._closed_reported = True
            self.on_event(ConnectionClosed(reason))

    async def request(self, method: str, params: dict[str, Any] | None, *, timeout_ms: int) -> dict[str, Any]:
        if self.closed:
            raise McpError("Not connected")
        self.server.requests.append((method, copy.deepcopy(params)))
        self.server.timeouts.append((method, timeout_ms))
        handler = self.server.handlers.get(method)
        if method == "tools/call":
            self.server.active_calls += 1
            self.server.max_active_calls = max(self.server.max_active_calls, self.server.active_calls)
        try:
            with anyio.move_on_after(timeout_ms / 1000):
                async with anyio.create_task_group() as tg:
                    result: dict[str, Any] | None = None
                    error: Exception | None = None

                    async def run() -> None:
                        nonlocal result, error
                        try:
                            if handler is not None:
                                result = await handler(self, params)
                            else:
                                result = await self.server.default(self, method, params)
                        except Exception as exc:
                            error = exc
                        tg.cancel_scope.cancel()

                    async def watch_close() -> None:
                        await self.closed_event.wait()
                        tg.cancel_scope.cancel()

                    tg.start_soon(run)
                    tg.start_soon(watch_close)
                if error is not None:
                    raise error
                if result is not None:
                    return result
                raise McpError("MCP error -32000: Connection closed")
        except anyio.get_cancelled_exc_class():
            self.server.cancelled.append(method)
            raise
        finally:
            if method == "tools/call":
                self.server.active_calls -= 1
        self.server.timed_out.append(method)
        raise McpTimeout("MCP error -32001: Request timed out")


class ScriptedConnector:
    """``McpConnector`` over scripted servers, by server name."""

    def __init__(self, servers: dict[str, ScriptedServer]) -> None:
        self.servers = servers
        self.configs: list[StdioConfig | HttpConfig] = []

    def connect(
        self,
        server_name: str,
        config: StdioConfig | HttpConfig,
        *,
        on_event: Callable[[McpEvent], None],
        log: Callable[[str], None],
    ) -> AbstractAsyncContextManager[ScriptedConnection]:
        return self._connect(server_name, config, on_event)

    @asynccontextmanager
    async def _connect(
        self, server_name: str, config: StdioConfig | HttpConfig, on_event: Callable[[McpEvent], None]
    ) -> AsyncIterator[ScriptedConnection]:
        self.configs.append(config)
        server = self.servers[server_name]
        server.connects += 1
        if server.connect_gate is not None:
            await server.connect_gate.wait()
        if server.connect_error is not None:
            raise server.connect_error
        if server.connect_hang:
            timeout_ms = config.connection_timeout_ms
            with anyio.move_on_after(timeout_ms / 1000):
                await anyio.sleep_forever()
            error = McpTimeout(f"MCP server connection timed out after {timeout_ms}ms")
            raise error from TimeoutError("The operation was aborted due to timeout")
        connection = ScriptedConnection(server, on_event)
        server.connections.append(connection)
        try:
            yield connection
        finally:
            connection.closed_event.set()
            if server.close_stuck_s:
                with anyio.CancelScope(shield=True):  # not even a forced close gets through in time
                    await anyio.sleep(server.close_stuck_s)
            if server.close_hang:
                try:
                    await anyio.sleep_forever()
                except anyio.get_cancelled_exc_class():
                    server.forced_closes += 1
                    raise
            connection.close_transport("closed")
            if server.close_error is not None:
                raise server.close_error


if TYPE_CHECKING:
    _connector: McpConnector = ScriptedConnector({})


def fake_services(
    connector: McpConnector, clock: FakeClock | None = None, tuning: RuntimeTuning | None = None
) -> tuple[RuntimeServices, list[str]]:
    warnings: list[str] = []
    services = RuntimeServices(
        connector=connector,
        clock=clock or FakeClock(),
        warn=warnings.append,
        tuning=tuning or RuntimeTuning(),
    )
    return services, warnings


def session(servers: dict[str, object], **extra: Any) -> SessionConfig:
    return SessionConfig(session_id=extra.pop("session_id", "s1"), servers=servers, **extra)


def runtime(config: SessionConfig, services: RuntimeServices) -> SessionRuntime:
    return SessionRuntime(config, services, collator=UcaCollator())


async def test_scripted_connection_answers_times_out_and_reports_its_close_once() -> None:
    server = ScriptedServer()
    events: list[McpEvent] = []
    connector = ScriptedConnector({"s": server})
    config = StdioConfig("x", None, None, None, "x", 1000, 1000, False)
    with anyio.fail_after(5):
        async with connector.connect("s", config, on_event=events.append, log=print) as connection:
            assert await connection.request("tools/list", None, timeout_ms=1000) == {"tools": [tool("t")]}

            async def hang(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
                await anyio.sleep_forever()
                raise AssertionError

            server.on("tools/call", hang)
            with pytest.raises(McpTimeout, match="MCP error -32001: Request timed out"):
                await connection.request("tools/call", {"name": "x"}, timeout_ms=20)
    assert events == [ConnectionClosed("closed")]
    assert connection.closed


async def test_scripted_connection_fails_pending_requests_when_the_transport_dies() -> None:
    server = ScriptedServer()

    async def hang(conn: ScriptedConnection, params: dict[str, Any] | None) -> dict[str, Any]:
        await anyio.sleep_forever()
        raise AssertionError

    server.on("tools/call", hang)
    connector = ScriptedConnector({"s": server})
    config = StdioConfig("x", None, None, None, "x", 1000, 5000, False)
    with anyio.fail_after(5):
        async with connector.connect("s", config, on_event=lambda e: None, log=print) as connection:

            async def kill_soon() -> None:
                await anyio.sleep(0.05)
                server.kill()

            async with anyio.create_task_group() as tg:
                tg.start_soon(kill_soon)
                with pytest.raises(McpError, match="Connection closed"):
                    await connection.request("tools/call", None, timeout_ms=5000)
