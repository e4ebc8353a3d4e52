"""One server's runtime: connection, catalog cache, failure backoff, dispose (spec client-runtime §4.4–§4.13).

upstream: ``src/agents/agent-bundle-mcp-runtime.ts`` ``createServerMcpRuntime``.

Structured concurrency: a connection is held open by a task (:meth:`Connection.hold`) spawned into the task
group the session runtime owns, because an anyio cancel scope must be exited by the task that entered it. The
same task group runs catalog builds (single flight, independent of the caller that triggered them, like the
reference's shared promise), background reloads, recycles and connection disposals. Every spawned task
handles the runtime's failures (:data:`SERVER_FAILURES`); nothing else is expected to escape into the group.
A connection's phase changes only through the table of :mod:`domain.connection_state`.

Times: request, listing and dispose deadlines run on anyio's monotonic clock; the injected :class:`Clock`
(wall time) drives ``generated_at``, the 5 s catalog retry, the 60 s failure cooldown and ``last_used_at``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from collections.abc import Awaitable, Callable, Iterator, Mapping
from typing import Any, TypeVar

import anyio

from openclaw_mcp.application.ports.mcp import (
    ConnectionClosed,
    ConnectionWarning,
    ListChanged,
    McpError,
    McpEvent,
    McpSessionExpired,
)
from openclaw_mcp.application.runtime.backoff import FailureTracker
from openclaw_mcp.application.runtime.catalog_build import list_catalog
from openclaw_mcp.application.runtime.connection import Connection
from openclaw_mcp.application.runtime.disposals import ConnectionDisposals
from openclaw_mcp.application.runtime.errors import (
    SERVER_FAILURES,
    CleanupUnconfirmed,
    LocalRequestTimeout,
    RuntimeDisposed,
    ServerNotConnected,
)
from openclaw_mcp.application.runtime.flight import Flight
from openclaw_mcp.application.runtime.output_validation import validate_call_result
from openclaw_mcp.application.runtime.pin_gate import hold_unreviewed
from openclaw_mcp.application.runtime.services import (
    CATALOG_FAILURE_RETRY_MS,
    FAILURE_THRESHOLD,
    FailureBackoff,
    LeaseCounter,
    RuntimeServices,
    ServerSpec,
    TaskHost,
)
from openclaw_mcp.domain.catalog import (
    Catalog,
    Diagnostic,
    diagnostic_catalog,
    empty_catalog,
    retired_catalog,
    with_retry_diagnostic,
)
from openclaw_mcp.domain.catalog_text import diagnostic_message
from openclaw_mcp.domain.connection_state import ConnectionEvent
from openclaw_mcp.domain.failure import FailureDetail
from openclaw_mcp.domain.tool_pins import PinReport
from openclaw_mcp.domain.transport import StdioConfig, resolve_transport

__all__ = ["ServerRuntime"]


def _failure_detail(exc: BaseException) -> FailureDetail | None:
    """The ``detail`` of the first connection error in ``exc``'s chain (issue 36), if any."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        if isinstance(current, McpError) and current.detail is not None:
            return current.detail
        current = current.__cause__ or current.__context__
    return None


_T = TypeVar("_T")


class ServerRuntime:
    """Runtime of one configured server of a session (§4.1). Created by the session runtime; not started
    until the first :meth:`get_catalog`.

    Public operations take the server name and serve only their own (§4.9); errors before a request is
    sent are :mod:`application.runtime.errors`; request errors are the port's errors.
    """

    def __init__(
        self,
        spec: ServerSpec,
        *,
        session_id: str,
        services: RuntimeServices,
        host: TaskHost,
    ) -> None:
        self._spec = spec
        self._session_id = session_id
        self._services = services
        self._host = host
        self._name = spec.server_name
        now = services.clock.now_ms()
        self.created_at = now
        self._last_used_at = now
        self._leases = LeaseCounter()
        self._catalog: Catalog | None = None
        self._retry_after: int | None = None
        self._in_flight: Flight[Catalog] | None = None
        self._generation = 0
        self._retired: Catalog | None = None
        self._disposal: Flight[None] | None = None
        self._current: Connection | None = None
        self._failures = FailureTracker()
        self._disposals = ConnectionDisposals(host, services.tuning.dispose_timeout_ms / 1000)
        self._scopes: set[anyio.CancelScope] = set()
        self._serial = anyio.Lock()

    # ------------------------------------------------------------------ identity, leases, bookkeeping

    @property
    def spec(self) -> ServerSpec:
        return self._spec

    @property
    def server_name(self) -> str:
        return self._name

    @property
    def session_id(self) -> str:
        return self._session_id

    @property
    def last_used_at(self) -> int:
        return self._last_used_at

    @property
    def active_leases(self) -> int:
        return self._leases.count

    @property
    def disposed(self) -> bool:
        return self._retired is not None

    @property
    def retired_catalog(self) -> Catalog | None:
        """The catalog reported after :meth:`dispose` (``None`` while live)."""
        return self._retired

    def acquire_lease(self) -> Callable[[], None]:
        """Count one user; the returned release is idempotent and never drops the count below 0."""
        return self._leases.acquire()

    def mark_used(self) -> None:
        self._last_used_at = self._services.clock.now_ms()

    def request_timeout_ms(self, server_name: str) -> int | None:
        """The current connection's request timeout (``None`` for another server or no connection)."""
        if server_name != self._name or self._current is None:
            return None
        return self._current.request_timeout_ms

    # ------------------------------------------------------------------ catalog (§4.6)

    def peek_catalog(self) -> Catalog | None:
        """The stored catalog, or ``None``; never connects or lists."""
        return self._catalog

    @property
    def stale(self) -> bool:
        """The stored catalog of a 2026-07-28 connection is past its freshness (protocol-eras §3.4): the next
        :meth:`get_catalog` returns it and re-validates it in the background."""
        conn = self._current
        return (
            self._catalog is not None
            and not self._catalog.diagnostics
            and self._retry_after is not None
            and conn is not None
            and conn.modern
            and self._now() >= self._retry_after
        )

    def _fail_if_disposed(self) -> None:
        if self._retired is not None:
            raise RuntimeDisposed(self._session_id)

    def _now(self) -> int:
        return self._services.clock.now_ms()

    def invalidate(self) -> None:
        """Forget the catalog; the next :meth:`get_catalog` re-lists over the same connection (§4.7)."""
        self._generation += 1
        self._catalog = None
        self._retry_after = None

    def _schedule_retry(self, message: str) -> None:
        updated = with_retry_diagnostic(self._catalog, self._name, message)
        if updated is None:
            self.invalidate()
            return
        self._generation += 1
        self._catalog = updated
        self._retry_after = self._now()

    async def get_catalog(self) -> Catalog:
        """The cached catalog; connects and lists on first use; a catalog with diagnostics is re-validated
        in the background once its 5 s retry is due, a 2026-07-28 catalog once it is no longer fresh (the stale
        one is returned meanwhile). Raises only :class:`RuntimeDisposed`."""
        self._fail_if_disposed()
        stored = self._catalog
        if stored is not None and (self._retry_after is None or self._now() < self._retry_after):
            return stored
        if stored is None:
            await self.load()
            if self._catalog is not None:
                return self._catalog
            second = await self.load()
            return self._catalog if self._catalog is not None else second
        self._host.start_soon(self._background_load, stored)
        self._retry_after = None
        return stored

    async def _background_load(self, stale: Catalog) -> None:
        try:
            await self.load()
        except SERVER_FAILURES:
            if self._retired is None and self._catalog is stale and self._retry_after is None:
                self._retry_after = self._now() + CATALOG_FAILURE_RETRY_MS

    async def load(self) -> Catalog:
        """Build the catalog now (single flight); store it unless an invalidation arrived meanwhile."""
        self._fail_if_disposed()
        if self._in_flight is not None:
            return await self._in_flight.wait()
        flight: Flight[Catalog] = Flight()
        self._host.start_soon(self._run_build, flight, self._generation)
        self._in_flight = flight
        return await flight.wait()

    async def _run_build(self, flight: Flight[Catalog], generation: int) -> None:
        try:
            with self._lifecycle_scope():
                catalog = await self._build(generation)
            self._fail_if_disposed()
            if self._generation == generation:
                self._catalog = catalog
                self._retry_after = (
                    self._now() + CATALOG_FAILURE_RETRY_MS if catalog.diagnostics else self._fresh_until()
                )
            flight.resolve(catalog)
        except SERVER_FAILURES as exc:
            flight.fail(exc)
        finally:
            if self._in_flight is flight:
                self._in_flight = None
            if not flight.done.is_set():  # cancelled from outside (task group shutdown)
                flight.fail(RuntimeDisposed(self._session_id))

    def _fresh_until(self) -> int | None:
        """A 2026-07-28 catalog goes stale at its connection's ``fresh_until`` and is then re-validated like a
        catalog whose retry is due (protocol-eras §3.4); a legacy catalog stays until invalidated."""
        conn = self._current
        return conn.fresh_until if conn is not None and conn.modern else None

    @contextlib.contextmanager
    def _lifecycle_scope(self) -> Iterator[None]:
        """A cancel scope that :meth:`dispose` cancels; a cancelled body raises :class:`RuntimeDisposed`."""
        self._fail_if_disposed()
        scope = anyio.CancelScope()
        self._scopes.add(scope)
        try:
            with scope:
                yield
        finally:
            self._scopes.discard(scope)
        if scope.cancelled_caught:
            raise RuntimeDisposed(self._session_id)

    # ------------------------------------------------------------------ build (§4.4)

    async def _build(self, generation: int) -> Catalog:
        self._fail_if_disposed()
        resolution = resolve_transport(self._name, self._spec.definition)
        self._services.warn_transport(resolution.warnings)
        config = resolution.config
        if config is None:
            return empty_catalog(self._now())
        if isinstance(config, StdioConfig) and self._spec.plugin_data_dir is not None:
            config = dataclasses.replace(config, plugin_data_dir=self._spec.plugin_data_dir)
        if self._spec.mcp_apps_enabled:
            config = dataclasses.replace(config, ui_extension=True)
        launch = config.description
        conn = self._current
        while conn is not None and conn.state.stale:
            await self._retire_if_current(conn)
            conn = self._current
        if conn is not None and conn.retiring:
            conn = None
        reused = conn is not None
        if conn is None:
            conn = Connection(config=config, telemetry=self._services.telemetry)
            self._current = conn
        try:
            self._fail_if_disposed()
            await self._ensure_connected(conn)
            self._fail_if_disposed()
            return await list_catalog(
                conn,
                spec=self._spec,
                config=config,
                tuning=self._services.tuning,
                now=self._now,
                check_live=self._fail_if_disposed,
                hold=None if self._services.pins is None else self._hold_unreviewed,
            )
        except SERVER_FAILURES as exc:
            message = diagnostic_message(exc)
            if self._retired is None:
                verb = "refresh" if reused else "start"
                self._services.warn(f'failed to {verb} server "{self._name}" ({launch}): {message}')
            if not conn.connected or isinstance(exc, McpSessionExpired):
                await self._retire_if_current(conn)
            elif not reused and self._generation == generation:
                await self._retire_if_current(conn)
            self._fail_if_disposed()
            diagnostic = Diagnostic(self._name, self._spec.safe_server_name, launch, message, _failure_detail(exc))
            return diagnostic_catalog(self._now(), diagnostic)

    async def _hold_unreviewed(self, listed: list[Any]) -> tuple[list[Any], PinReport | None]:
        """Issue 35: a pinned server's changed and new tools are held out of the catalog."""
        services = self._services
        return await hold_unreviewed(services.pins, self._name, listed, services.warn, services.env_warnings)

    # ------------------------------------------------------------------ connections (§3.5, §4.8)

    async def _ensure_connected(self, conn: Connection) -> None:
        hold = functools.partial(
            conn.hold,
            connector=self._services.connector,
            server_name=self._name,
            session_id=self._session_id,
            spawn=self._host.start_soon,
            on_event=lambda event: self._on_event(conn, event),
            log=self._services.debug,
        )
        await conn.ensure_connected(self._name, self._host.start_soon, hold)

    def _on_event(self, conn: Connection, event: McpEvent) -> None:
        if isinstance(event, ListChanged):
            if event.kind == "tools" and self._retired is None:
                self.invalidate()
        elif isinstance(event, ConnectionClosed):
            self._on_closed(conn)
        elif isinstance(event, ConnectionWarning) and self._retired is None:
            self._services.warn(event.text)

    def _on_closed(self, conn: Connection) -> None:
        was_connected = conn.connected
        conn.fire(ConnectionEvent.TRANSPORT_CLOSED)
        if was_connected and self._retired is None and not conn.retiring and self._current is conn:
            self._schedule_retry("mcp transport closed")
            self._services.warn(f'server "{self._name}" closed; next request reconnects')

    def _sync_closed(self, conn: Connection) -> None:
        """Treat a connection whose transport reports ``closed`` as closed even without the event."""
        if conn.connected and conn.client is not None and conn.client.closed:
            self._on_closed(conn)

    def _detach_if_current(self, conn: Connection) -> bool:
        """The synchronous half of ``retire``: mark the connection retiring and clear it as current."""
        if self._current is not conn:
            return False
        conn.fire(ConnectionEvent.RETIRE)
        self._current = None
        return True

    async def _retire_if_current(self, conn: Connection) -> bool:
        if not self._detach_if_current(conn):
            return False
        await self._disposals.dispose(conn)
        return True

    # ------------------------------------------------------------------ requests (§4.9, §4.10)

    async def _active_connection(self, server_name: str) -> Connection:
        if server_name != self._name:
            raise ServerNotConnected(server_name)
        await self.get_catalog()
        conn = self._current
        if conn is not None:
            self._sync_closed(conn)
        if conn is None or not conn.connected:
            raise ServerNotConnected(self._name, conn.disconnect_reason if conn is not None else None)
        return conn

    async def _guarded(
        self, conn: Connection, run: Callable[[], Awaitable[_T]], failure_backoff: FailureBackoff = "track"
    ) -> _T:
        if conn.parallel:
            return await self._guarded_now(conn, run, failure_backoff)
        async with self._serial:
            return await self._guarded_now(conn, run, failure_backoff)

    async def _guarded_now(
        self, conn: Connection, run: Callable[[], Awaitable[_T]], failure_backoff: FailureBackoff
    ) -> _T:
        tracking = failure_backoff != "ignore"
        started = self._now()
        self._failures.admit(self._name, conn, started, tracking=tracking)
        try:
            result = await run()
        except SERVER_FAILURES as exc:
            reason: str | None = None
            if isinstance(exc, McpSessionExpired):
                reason = "expired HTTP session"
            elif tracking and self._current is conn and not conn.retiring:
                failures = self._failures.record_failure(conn, started)
                if isinstance(exc, LocalRequestTimeout) and failures >= FAILURE_THRESHOLD:
                    reason = "repeated request timeouts"
            if reason is not None:
                self._recycle(conn, reason)
            raise
        if tracking:
            self._failures.record_success(conn)
        return result

    def _recycle(self, conn: Connection, reason: str) -> None:
        self._failures.clear()
        self._schedule_retry(reason)
        timed_out = reason == "repeated request timeouts"
        self._services.warn(
            f'recycling server "{self._name}" after {"repeated timeouts" if timed_out else "an expired HTTP session"}'
        )
        if self._detach_if_current(conn):
            self._host.start_soon(self._retire_in_background, conn, timed_out)

    async def _retire_in_background(self, conn: Connection, timed_out: bool) -> None:
        try:
            await self._disposals.dispose(conn)
        except SERVER_FAILURES as exc:
            kind = "timed-out" if timed_out else "expired-session"
            self._services.warn(f'failed to retire {kind} server "{self._name}": {diagnostic_message(exc)}')

    # ------------------------------------------------------------------ public operations

    async def _send(
        self,
        conn: Connection,
        method: str,
        params: dict[str, Any] | None,
        failure_backoff: FailureBackoff = "track",
        tool_call_id: str | None = None,
    ) -> dict[str, Any]:
        """One request under dispose's scope and the failure accounting."""

        def send() -> Awaitable[dict[str, Any]]:
            return conn.request(self._name, method, params, tool_call_id=tool_call_id)

        with self._lifecycle_scope():
            return await self._guarded(conn, send, failure_backoff)

    async def call_tool(
        self, server_name: str, tool_name: str, arguments: object, *, tool_call_id: str | None = None
    ) -> dict[str, Any]:
        """``tools/call``; then the tool's output-schema check (§4.11, outside the failure accounting).
        ``tool_call_id``: the agent's id of the call (the span's ``gen_ai.tool.call.id``)."""
        conn = await self._active_connection(server_name)
        validator = conn.validators.get(tool_name)
        params = {"name": tool_name, "arguments": arguments if isinstance(arguments, dict) else {}}
        result = await self._send(conn, "tools/call", params, tool_call_id=tool_call_id)
        if validator is not None:
            validate_call_result(tool_name, result, validator)
        return result

    async def list_tools(self, server_name: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """One raw ``tools/list`` request with the caller's params."""
        return await self._send(await self._active_connection(server_name), "tools/list", params)

    async def list_resource_templates(self, server_name: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return await self._send(await self._active_connection(server_name), "resources/templates/list", params)

    async def read_resource(
        self, server_name: str, uri: str, *, failure_backoff: FailureBackoff = "track"
    ) -> dict[str, Any]:
        conn = await self._active_connection(server_name)
        return await self._send(conn, "resources/read", {"uri": uri}, failure_backoff)

    async def get_prompt(
        self, server_name: str, name: str, arguments: Mapping[str, str] | None = None
    ) -> dict[str, Any]:
        conn = await self._active_connection(server_name)
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = dict(arguments)
        return await self._send(conn, "prompts/get", params)

    async def list_resources(self, server_name: str, *, failure_backoff: FailureBackoff = "track") -> list[Any]:
        """Every resource, via the bounded paginator (label ``MCP resource listing``)."""
        conn = await self._active_connection(server_name)
        with self._lifecycle_scope():
            return await self._guarded(
                conn, lambda: conn.collect(self._name, "resources", self._services.tuning), failure_backoff
            )

    async def list_prompts(self, server_name: str) -> list[Any]:
        """Every prompt, via the bounded paginator (label ``MCP prompt listing``)."""
        conn = await self._active_connection(server_name)
        with self._lifecycle_scope():
            return await self._guarded(conn, lambda: conn.collect(self._name, "prompts", self._services.tuning))

    # ------------------------------------------------------------------ dispose (§4.13)

    async def dispose(self) -> None:
        """Retire this runtime: abort in-flight work, close the connection (budgeted, §3.7). Idempotent;
        concurrent calls share one disposal. Never raises (cleanup failures surface in :meth:`join_cleanup`)."""
        if self._disposal is None:
            self._retired = retired_catalog(self._now(), self._name, self._spec.safe_server_name)
            for scope in list(self._scopes):
                scope.cancel()
            self._catalog = None
            self._retry_after = None
            pending = self._in_flight
            self._in_flight = None
            conn = self._current
            self._current = None
            flight: Flight[None] = Flight()
            self._disposal = flight
            await self._run_disposal(flight, conn, pending)
        await self._disposal.wait()

    async def _run_disposal(
        self, flight: Flight[None], conn: Connection | None, pending: Flight[Catalog] | None
    ) -> None:
        try:
            if conn is not None:
                await self._disposals.dispose(conn)
            if pending is not None:
                await pending.done.wait()
            await self._disposals.join()
        finally:
            flight.resolve(None)

    async def join_cleanup(self) -> None:
        """Await dispose and every pending connection disposal; raise :class:`CleanupUnconfirmed` if any of
        them could not confirm closure."""
        if self._disposal is not None:
            await self._disposal.wait()
        await self._disposals.join()
        if self._disposals.failed:
            raise CleanupUnconfirmed()
