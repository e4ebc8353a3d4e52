"""One client + transport of a server runtime (spec client-runtime §3.5, §3.7, §4.8): the async side of the
connection state machine of :mod:`domain.connection_state`.

The connection is held open by one task (:meth:`Connection.hold`), because an anyio cancel scope must be
exited by the task that entered it; every phase change goes through :meth:`Connection.fire`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio

from openclaw_mcp.application.ports.mcp import McpConnection, McpConnector, McpEvent, McpTimeout
from openclaw_mcp.application.ports.telemetry import NO_TELEMETRY, Telemetry
from openclaw_mcp.application.runtime.errors import (
    SERVER_FAILURES,
    ConnectTimedOut,
    InvalidListResult,
    LocalRequestTimeout,
    RuntimeDisposed,
    ServerNotConnected,
    ServerRetiring,
)
from openclaw_mcp.application.runtime.flight import Flight
from openclaw_mcp.application.runtime.output_validation import OutputValidator
from openclaw_mcp.application.runtime.pagination import Page, collect_paginated
from openclaw_mcp.application.runtime.services import LOCAL_TIMER_GRACE_S, DisposeOutcome, RuntimeTuning
from openclaw_mcp.application.runtime.spans import connect_scope, record_result, request_scope, settle_connect
from openclaw_mcp.domain.connection_state import ConnectionEvent, ConnectionState, transition
from openclaw_mcp.domain.mcp_eras import MODERN_VERSION
from openclaw_mcp.domain.transport import HttpConfig, StdioConfig
from openclaw_mcp.jscompat.jsjson import js_number

__all__ = ["Connection"]

_Spawn = Callable[[Callable[[], Coroutine[Any, Any, None]]], None]


@dataclass(eq=False)
class Connection:
    """The connection's state (a :class:`ConnectionState`) plus what the async side needs: the client, the
    events tasks wait on, the errors the holding task saw, its cancel scope and the shared disposal."""

    config: StdioConfig | HttpConfig
    client: McpConnection | None = None
    state: ConnectionState = field(default_factory=ConnectionState)
    connect_done: anyio.Event = field(default_factory=anyio.Event)
    connect_error: BaseException | None = None
    close_requested: anyio.Event = field(default_factory=anyio.Event)
    hold_done: anyio.Event = field(default_factory=anyio.Event)
    close_error: BaseException | None = None
    scope: anyio.CancelScope | None = None
    watchdog_fired: bool = False
    disposal: Flight[DisposeOutcome] | None = None
    validators: Mapping[str, OutputValidator] = field(default_factory=dict)
    fresh_until: int | None = None
    """When the last tool catalog listed on a 2026-07-28 connection goes stale (wall clock, ms; protocol-eras
    §3.4); ``None`` on a legacy connection (cached until invalidated)."""
    telemetry: Telemetry = NO_TELEMETRY
    """Where the connect's and the requests' spans go (docs/telemetry.md)."""

    def fire(self, event: ConnectionEvent) -> None:
        """Apply ``event`` through the transition table; the connect attempt's waiters wake once it is over."""
        self.state = transition(self.state, event)
        if self.state.connect_finished:
            self.connect_done.set()

    @property
    def started(self) -> bool:
        return self.state.started

    @property
    def connecting(self) -> bool:
        return self.state.connecting

    @property
    def connected(self) -> bool:
        return self.state.connected

    @property
    def retiring(self) -> bool:
        return self.state.retiring

    @property
    def disconnect_reason(self) -> str | None:
        return self.state.disconnect_reason

    @property
    def modern(self) -> bool:
        """The connection speaks the 2026-07-28 era (settled at connect, protocol-eras §3.1)."""
        # ``getattr``: test doubles of the port that predate the eras have no ``protocol_version``.
        return getattr(self.client, "protocol_version", None) == MODERN_VERSION

    @property
    def request_timeout_ms(self) -> int:
        return self.config.request_timeout_ms

    @property
    def parallel(self) -> bool:
        return self.config.supports_parallel_tool_calls

    async def ensure_connected(
        self, server_name: str, spawn: _Spawn, hold: Callable[[], Coroutine[Any, Any, None]]
    ) -> None:
        """Start the holding task on first use (``spawn(hold)``) and wait for the connect attempt; raise its
        error (a connect timeout as :class:`ConnectTimedOut`) or :class:`ServerNotConnected`."""
        if self.retiring:
            raise ServerRetiring(server_name)
        if self.connected:
            return
        if not self.started:
            spawn(hold)
            self.fire(ConnectionEvent.START)
        await self.connect_done.wait()
        error = self.connect_error
        if error is not None:
            if isinstance(error, McpTimeout):
                seconds = js_number(self.config.connection_timeout_ms / 1000)
                raise ConnectTimedOut(
                    f'MCP server "{server_name}" timed out: did not complete initialize within {seconds}s'
                ) from error
            raise error
        if not self.connected:
            raise ServerNotConnected(server_name, self.disconnect_reason)

    async def hold(
        self,
        *,
        connector: McpConnector,
        server_name: str,
        session_id: str,
        spawn: _Spawn,
        on_event: Callable[[McpEvent], None],
        log: Callable[[str], None],
    ) -> None:
        """Open the connection, keep it open until a close is requested, then close it (in this task)."""
        try:
            with anyio.CancelScope() as scope:
                self.scope = scope
                if self.close_requested.is_set():
                    return
                spawn(self.watchdog)
                async with contextlib.AsyncExitStack() as stack:
                    with connect_scope(self.telemetry, server_name, self.config) as span:  # the connect only
                        client = await stack.enter_async_context(
                            connector.connect(server_name, self.config, on_event=on_event, log=log)
                        )
                        settle_connect(span, client)
                    self.client = client
                    self.fire(ConnectionEvent.OPENED_CLOSED if client.closed else ConnectionEvent.OPENED)
                    await self.close_requested.wait()
        except SERVER_FAILURES as exc:
            if self.connect_done.is_set():
                self.close_error = exc
            else:
                self.connect_error = exc
        finally:
            if self.connect_done.is_set():
                self.fire(ConnectionEvent.HOLD_ENDED)
            else:
                if self.connect_error is None:
                    timeout_ms = self.config.connection_timeout_ms
                    self.connect_error = (
                        McpTimeout(f"MCP server connection timed out after {timeout_ms}ms")
                        if self.watchdog_fired
                        else RuntimeDisposed(session_id)
                    )
                self.fire(ConnectionEvent.CONNECT_FAILED)
            self.hold_done.set()

    async def watchdog(self) -> None:
        """Backstop only: the connector enforces the connect deadline and tears down itself (§3.5). If it
        has not settled well after that deadline, cancel the connect (a forced teardown)."""
        timeout_ms = self.config.connection_timeout_ms
        with anyio.move_on_after((timeout_ms + min(timeout_ms, 1000) + 1000) / 1000):
            await self.connect_done.wait()
        if not self.connect_done.is_set() and self.scope is not None:
            self.watchdog_fired = True
            self.scope.cancel()

    async def close(self, budget_s: float) -> bool:
        """``dispose_connection`` (§3.7): request the close, abort an unfinished connect, wait ``budget_s``,
        then cancel the holding task and wait again. True when closure could not be confirmed."""
        self.close_requested.set()
        if not self.started:
            return False
        failed = False
        if self.connecting and self.scope is not None:
            self.scope.cancel()  # abort an unfinished connect right away
        with anyio.move_on_after(budget_s):
            await self.hold_done.wait()
        if not self.hold_done.is_set():
            if self.scope is not None:
                self.scope.cancel()  # forced phase: the connector tears down on cancellation
            with anyio.move_on_after(budget_s):
                await self.hold_done.wait()
            failed = not self.hold_done.is_set()
        return failed or self.close_error is not None

    async def request(
        self,
        server_name: str,
        method: str,
        params: dict[str, Any] | None,
        timeout_ms: int | None = None,
        *,
        tool_call_id: str | None = None,
    ) -> dict[str, Any]:
        """One request under the local timer (§4.9): ``MCP error -32001: Request timed out`` when it fires.

        The connection's own timer (``timeout_ms``, which also sends ``notifications/cancelled`` with the
        timeout reason) is authoritative (D18); the runtime's timer is a backstop a little later."""
        client = self.client
        if client is None:
            raise ServerNotConnected(server_name, self.disconnect_reason)
        timeout = timeout_ms if timeout_ms is not None else self.request_timeout_ms
        with request_scope(
            self.telemetry, server_name, self.config, client, method, params, tool_call_id=tool_call_id
        ) as span:
            with anyio.move_on_after(timeout / 1000 + LOCAL_TIMER_GRACE_S):
                try:
                    result = await client.request(method, params, timeout_ms=timeout)
                except LocalRequestTimeout:
                    raise
                except McpTimeout as exc:
                    raise LocalRequestTimeout() from exc
                record_result(span, method, result)
                return result
            raise LocalRequestTimeout()

    async def collect(
        self, server_name: str, kind: Literal["resources", "prompts"], tuning: RuntimeTuning
    ) -> list[Any]:
        """Every resource or prompt via the bounded paginator (labels ``MCP resource listing`` /
        ``MCP prompt listing``)."""
        label = f"MCP {'resource' if kind == 'resources' else 'prompt'} listing"

        async def load_page(cursor: str | None, timeout_ms: int) -> Page:
            params = None if cursor is None else {"cursor": cursor}
            page = await self.request(server_name, f"{kind}/list", params, timeout_ms)
            items = page.get(kind)
            next_cursor = page.get("nextCursor")
            if not isinstance(items, list) or not (next_cursor is None or isinstance(next_cursor, str)):
                problem = f"{kind}: expected array" if not isinstance(items, list) else "nextCursor: expected string"
                raise InvalidListResult(f"{label} returned an invalid result: {problem}")
            return Page(items=items, next_cursor=next_cursor, raw=page)

        return await collect_paginated(
            label=label,
            item_label=kind,
            timeout_ms=self.request_timeout_ms,
            load_page=load_page,
            max_pages=tuning.max_list_pages,
            max_items=tuning.max_list_items,
            max_bytes=tuning.max_list_bytes,
        )
