"""One server's runtime: connection, catalog cache, failure backoff, dispose (spec client-runtime §4.4–§4.13).

upstream: ``src/agents/agent-bundle-mcp-runtime.ts`` ``createServerMcpRuntime``.

Structured concurrency: a connection is held open by a task (``_hold``) spawned into the task group the
session runtime owns, because an anyio cancel scope must be exited by the task that entered it. The same
task group runs catalog builds (single flight, independent of the caller that triggered them, like the
reference's shared promise), background reloads, recycles and connection disposals. Every spawned task
handles its own errors; nothing escapes into the task group.

Times: request, listing and dispose deadlines run on anyio's monotonic clock; the injected :class:`Clock`
(wall time) drives ``generated_at``, the 5 s catalog retry, the 60 s failure cooldown and ``last_used_at``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Generic, Literal, TypeVar

import anyio
import anyio.abc

from application.ports.clock import Clock
from application.ports.mcp import (
    ConnectionClosed,
    ListChanged,
    McpConnection,
    McpConnector,
    McpEvent,
    McpSessionExpired,
    McpTimeout,
)
from application.runtime.errors import (
    CleanupUnconfirmed,
    ConnectTimedOut,
    InvalidListResult,
    LocalRequestTimeout,
    RuntimeDisposed,
    ServerNotConnected,
    ServerPaused,
    ServerRetiring,
)
from application.runtime.output_validation import OutputValidator, build_output_validator, validate_call_result
from application.runtime.pagination import (
    MAX_LIST_BYTES,
    MAX_LIST_ITEMS,
    MAX_LIST_PAGES,
    Page,
    collect_paginated,
)
from domain.catalog import (
    Catalog,
    Diagnostic,
    build_server_catalog,
    diagnostic_catalog,
    empty_catalog,
    normalize_listed_tools,
    retired_catalog,
    summarize_capabilities,
    with_retry_diagnostic,
)
from domain.catalog_text import diagnostic_message
from domain.codex import codex_approval_mode
from domain.filters import normalize_filter
from domain.redaction import sanitize_for_log
from domain.tool_listing import InvalidToolListing, validate_list_tools_result
from domain.transport import HttpConfig, StdioConfig, TransportWarning, resolve_transport
from jscompat.jsjson import js_number
from jscompat.text import js_trim

__all__ = [
    "CATALOG_FAILURE_RETRY_MS",
    "CATALOG_LIST_TIMEOUT_MS",
    "DISPOSE_TIMEOUT_MS",
    "FAILURE_COOLDOWN_MS",
    "FAILURE_THRESHOLD",
    "DisposeOutcome",
    "FailureBackoff",
    "RuntimeServices",
    "RuntimeTuning",
    "ServerRuntime",
    "ServerSpec",
    "TaskHost",
    "WarningDedupe",
    "iso_timestamp",
]

FAILURE_THRESHOLD = 3
FAILURE_COOLDOWN_MS = 60_000
CATALOG_FAILURE_RETRY_MS = 5_000
CATALOG_LIST_TIMEOUT_MS = 1_500
DISPOSE_TIMEOUT_MS = 5_000
ENV_WARNING_DEDUPE_SIZE = 4_096
LOCAL_TIMER_GRACE_S = 1.0

FailureBackoff = Literal["track", "ignore"]
DisposeOutcome = Literal["closed", "uncertain"]

_T = TypeVar("_T")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def iso_timestamp(ms: int) -> str:
    """Epoch milliseconds as ``2026-11-29T12:07:38.088Z`` (JavaScript ``toISOString``)."""
    moment = _EPOCH + timedelta(milliseconds=ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class WarningDedupe:
    """The process-wide "warn once" memory for blocked env keys (§2.7): 4 096 pairs, LRU, no TTL."""

    def __init__(self, capacity: int = ENV_WARNING_DEDUPE_SIZE) -> None:
        self._capacity = capacity
        self._seen: OrderedDict[tuple[str, str], None] = OrderedDict()

    def first_time(self, key: tuple[str, str]) -> bool:
        """True the first time ``key`` is seen (recently); marks it as seen."""
        if key in self._seen:
            self._seen.move_to_end(key)
            return False
        self._seen[key] = None
        if len(self._seen) > self._capacity:
            self._seen.popitem(last=False)
        return True


@dataclass(frozen=True, slots=True)
class RuntimeTuning:
    """Overrides of reference timings, for tests and embedding (the reference has the same test hooks).

    ``catalog_list_timeout_ms`` replaces the ``tools/list`` deadline of §4.4 step 6 when set;
    ``dispose_timeout_ms`` is the length of each dispose phase (§3.7)."""

    dispose_timeout_ms: int = DISPOSE_TIMEOUT_MS
    catalog_list_timeout_ms: int | None = None
    max_list_pages: int = MAX_LIST_PAGES
    max_list_items: int = MAX_LIST_ITEMS
    max_list_bytes: int = MAX_LIST_BYTES


def _ignore_debug(_line: str) -> None:
    return None


@dataclass(frozen=True, slots=True)
class RuntimeServices:
    """What every server runtime of a process shares.

    ``warn`` receives warning text **without** the ``bundle-mcp: `` prefix (the CLI prints
    ``[bundle-mcp] <text>``); ``debug`` receives the connectors' debug lines (stdio stderr as
    ``bundle-mcp:<server>: <line>``)."""

    connector: McpConnector
    clock: Clock
    warn: Callable[[str], None]
    debug: Callable[[str], None] = _ignore_debug
    tuning: RuntimeTuning = field(default_factory=RuntimeTuning)
    env_warnings: WarningDedupe = field(default_factory=WarningDedupe)


@dataclass(frozen=True, slots=True)
class ServerSpec:
    """One server of a session: its raw definition (from the merged map, §10.8) and session-derived facts.

    ``safe_server_name`` is assigned session-wide (§5.2); ``denied_tool_names`` is the session deny set of
    this server (§6.6); ``fingerprint`` decides reuse on reload (§4.14, D12)."""

    server_name: str
    definition: object
    safe_server_name: str
    denied_tool_names: frozenset[str] = frozenset()
    plugin_owned: bool = False
    fingerprint: str = ""
    workspace_dir: str | None = None
    agent_dir: str | None = None
    plugin_data_dir: str | None = None


class TaskHost:
    """Where runtime tasks run: a task group entered by the runtime's owner (a standalone
    :class:`~application.runtime.session_runtime.SessionRuntime` or the manager). Spawned functions take no
    arguments and must handle their own errors."""

    def __init__(self) -> None:
        self._tg: anyio.abc.TaskGroup | None = None

    @property
    def running(self) -> bool:
        return self._tg is not None

    def attach(self, task_group: anyio.abc.TaskGroup | None) -> None:
        self._tg = task_group

    def start_soon(self, func: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> None:
        if self._tg is None:
            raise RuntimeError("the MCP runtime is not running (enter it with `async with` first)")
        self._tg.start_soon(func, *args)


class _Flight(Generic[_T]):
    """A shared single-flight result: many waiters, one producer task."""

    def __init__(self) -> None:
        self.done = anyio.Event()
        self.value: _T | None = None
        self.error: BaseException | None = None

    def resolve(self, value: _T) -> None:
        self.value = value
        self.done.set()

    def fail(self, error: BaseException) -> None:
        self.error = error
        self.done.set()

    async def wait(self) -> _T:
        await self.done.wait()
        if self.error is not None:
            raise self.error
        return self.value  # type: ignore[return-value]


@dataclass(eq=False)
class _Connection:
    """One client + transport (§4.8). Held open by ``ServerRuntime._hold``."""

    config: StdioConfig | HttpConfig
    client: McpConnection | None = None
    connected: bool = False
    disconnect_reason: str | None = None
    retiring: bool = False
    started: bool = False
    connect_done: anyio.Event = field(default_factory=anyio.Event)
    connect_error: BaseException | None = None
    close_requested: anyio.Event = field(default_factory=anyio.Event)
    hold_done: anyio.Event = field(default_factory=anyio.Event)
    close_error: BaseException | None = None
    scope: anyio.CancelScope | None = None
    watchdog_fired: bool = False
    disposal: _Flight[DisposeOutcome] | None = None
    validators: Mapping[str, OutputValidator] = field(default_factory=dict)

    @property
    def connecting(self) -> bool:
        return self.started and not self.connect_done.is_set()

    @property
    def request_timeout_ms(self) -> int:
        return self.config.request_timeout_ms

    @property
    def parallel(self) -> bool:
        return self.config.supports_parallel_tool_calls


@dataclass
class _Backoff:
    connection: _Connection
    failures: int
    retry_after: int | None = None


def _has_configured_request_timeout(raw: object) -> bool:
    if not isinstance(raw, dict):
        return False
    for key in ("requestTimeoutMs", "timeout"):
        value = raw.get(key)
        if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value > 0:
            return True
    return False


def _is_method_not_found(error: BaseException) -> bool:
    if getattr(error, "code", None) == -32601:
        return True
    text = str(error)
    return "-32601" in text or re.search(r"\b(?:method not found|unknown method)\b", text, re.IGNORECASE) is not None


def _single_tool_problem(message: str) -> str:
    """``MCP tool listing returned an invalid result: tools.0<rest>`` (a one-tool page) → ``<rest>``."""
    _, _, detail = message.partition(": ")
    return detail[len("tools.0") :]


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
        self._active_leases = 0
        self._catalog: Catalog | None = None
        self._retry_after: int | None = None
        self._in_flight: _Flight[Catalog] | None = None
        self._generation = 0
        self._retired: Catalog | None = None
        self._disposal: _Flight[None] | None = None
        self._current: _Connection | None = None
        self._backoff: _Backoff | None = None
        self._pending_disposals: set[_Flight[DisposeOutcome]] = set()
        self._cleanup_failed = False
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
        return self._active_leases

    @property
    def disposed(self) -> bool:
        return self._retired is not None

    @property
    def retired_catalog(self) -> Catalog | None:
        """The catalog reported after :meth:`dispose` (``None`` while live)."""
        return self._retired

    def acquire_lease(self) -> Callable[[], None]:
        """Count one user; the returned release is idempotent and never drops the count below 0."""
        self._active_leases += 1
        released = False

        def release() -> None:
            nonlocal released
            if released:
                return
            released = True
            self._active_leases = max(0, self._active_leases - 1)

        return release

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
        in the background once its 5 s retry is due (the stale one is returned meanwhile). Raises only
        :class:`RuntimeDisposed`."""
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
        except Exception:
            if self._retired is None and self._catalog is stale and self._retry_after is None:
                self._retry_after = self._now() + CATALOG_FAILURE_RETRY_MS

    async def load(self) -> Catalog:
        """Build the catalog now (single flight); store it unless an invalidation arrived meanwhile."""
        self._fail_if_disposed()
        if self._in_flight is not None:
            return await self._in_flight.wait()
        flight: _Flight[Catalog] = _Flight()
        self._host.start_soon(self._run_build, flight, self._generation)
        self._in_flight = flight
        return await flight.wait()

    async def _run_build(self, flight: _Flight[Catalog], generation: int) -> None:
        try:
            with self._lifecycle_scope():
                catalog = await self._build(generation)
            self._fail_if_disposed()
            if self._generation == generation:
                self._catalog = catalog
                self._retry_after = self._now() + CATALOG_FAILURE_RETRY_MS if catalog.diagnostics else None
            flight.resolve(catalog)
        except Exception as exc:
            flight.fail(exc)
        finally:
            if self._in_flight is flight:
                self._in_flight = None
            if not flight.done.is_set():  # cancelled from outside (task group shutdown)
                flight.fail(RuntimeDisposed(self._session_id))

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

    def _emit_transport_warnings(self, warnings: tuple[TransportWarning, ...]) -> None:
        for warning in warnings:
            if warning.once is None or self._services.env_warnings.first_time(warning.once):
                self._services.warn(warning.text)

    def _list_timeout_ms(self, config: StdioConfig | HttpConfig) -> int:
        override = self._services.tuning.catalog_list_timeout_ms
        if override is not None:
            return override
        if _has_configured_request_timeout(self._spec.definition):
            return config.request_timeout_ms
        return CATALOG_LIST_TIMEOUT_MS

    async def _build(self, generation: int) -> Catalog:
        self._fail_if_disposed()
        resolution = resolve_transport(self._name, self._spec.definition)
        self._emit_transport_warnings(resolution.warnings)
        config = resolution.config
        if config is None:
            return empty_catalog(self._now())
        if isinstance(config, StdioConfig) and self._spec.plugin_data_dir is not None:
            config = dataclasses.replace(config, plugin_data_dir=self._spec.plugin_data_dir)
        safe = self._spec.safe_server_name
        launch = config.description
        conn = self._current
        while conn is not None and not conn.retiring and not conn.connected and not conn.connecting:
            await self._retire_if_current(conn)
            conn = self._current
        if conn is not None and conn.retiring:
            conn = None
        reused = conn is not None
        if conn is None:
            conn = _Connection(config=config)
            self._current = conn
        try:
            self._fail_if_disposed()
            await self._ensure_connected(conn)
            self._fail_if_disposed()
            client = conn.client
            if client is None:  # pragma: no cover - connected implies a client
                raise ServerNotConnected(self._name)
            capabilities = summarize_capabilities(client.capabilities)
            dropped: list[Diagnostic] = []
            try:
                listed = await self._list_all_tools(conn, self._list_timeout_ms(config), safe, launch, dropped)
            except Exception as exc:
                if (
                    capabilities.tools is None
                    and (capabilities.resources is not None or capabilities.prompts is not None)
                    and _is_method_not_found(exc)
                ):
                    listed, dropped = [], []
                else:
                    raise
            self._fail_if_disposed()
            tool_filter = normalize_filter(
                self._spec.definition.get("toolFilter") if isinstance(self._spec.definition, dict) else None
            )
            denied = self._spec.denied_tool_names
            normalized = normalize_listed_tools(listed, tool_filter, denied)
            if dropped:
                normalized = replace(normalized, listed_count=normalized.listed_count + len(dropped))
            validators = {
                name: build_output_validator(schema)
                for name, schema in normalized.output_schemas().items()
                if isinstance(schema, dict)
            }
            conn.validators = validators
            catalog = build_server_catalog(
                server_name=self._name,
                safe_server_name=safe,
                launch_summary=launch,
                request_timeout_ms=config.request_timeout_ms,
                supports_parallel_tool_calls=config.supports_parallel_tool_calls,
                capabilities=capabilities,
                normalized=normalized,
                tool_filter=tool_filter,
                denied_tool_names=denied,
                generated_at=self._now(),
                codex_approval_mode=codex_approval_mode(self._name, self._spec.definition),
            )
            if dropped:
                catalog = replace(catalog, diagnostics=tuple(dropped))
            return catalog
        except Exception as exc:
            message = diagnostic_message(exc)
            if self._retired is None:
                verb = "refresh" if reused else "start"
                self._services.warn(f'failed to {verb} server "{self._name}" ({launch}): {message}')
            if not conn.connected or isinstance(exc, McpSessionExpired):
                await self._retire_if_current(conn)
            elif not reused and self._generation == generation:
                await self._retire_if_current(conn)
            self._fail_if_disposed()
            return diagnostic_catalog(self._now(), Diagnostic(self._name, safe, launch, message))

    async def _list_all_tools(
        self, conn: _Connection, timeout_ms: int, safe: str, launch: str, dropped: list[Diagnostic]
    ) -> list[Any]:
        offset = 0

        async def load_page(cursor: str | None, request_timeout_ms: int) -> Page:
            nonlocal offset
            client = conn.client
            if client is None or not conn.connected:
                raise ServerNotConnected(self._name, conn.disconnect_reason)
            params = None if cursor is None else {"cursor": cursor}
            page = await client.request("tools/list", params, timeout_ms=request_timeout_ms)
            tools = self._validated_tools(page, offset, safe, launch, dropped)
            offset += len(page["tools"])
            next_cursor = page.get("nextCursor")
            return Page(items=tools, next_cursor=next_cursor, raw=page)

        tuning = self._services.tuning
        return await collect_paginated(
            label="MCP tool listing",
            item_label="tools",
            timeout_ms=timeout_ms,
            load_page=load_page,
            max_pages=tuning.max_list_pages,
            max_items=tuning.max_list_items,
            max_bytes=tuning.max_list_bytes,
        )

    def _validated_tools(
        self, page: object, offset: int, safe: str, launch: str, dropped: list[Diagnostic]
    ) -> list[Any]:
        """The page's tools after the MCP shape check (D10). A tool whose ``inputSchema`` is unusable is
        dropped alone and reported as ``MCP tool listing dropped tool "<name>": tools.<i>.inputSchema…``
        (beyond the reference, which fails the whole listing); any other problem fails the listing."""
        if not isinstance(page, dict) or not isinstance(page.get("tools"), list):
            validate_list_tools_result(page)
        assert isinstance(page, dict)
        validate_list_tools_result({**page, "tools": []})
        kept: list[Any] = []
        for index, tool in enumerate(page["tools"]):
            try:
                validate_list_tools_result({"tools": [tool]})
            except InvalidToolListing as exc:
                rest = _single_tool_problem(str(exc))
                path = f"tools.{offset + index}{rest}"
                if rest.startswith(".inputSchema"):
                    name = sanitize_for_log(js_trim(str(tool.get("name", ""))))
                    message = f'MCP tool listing dropped tool "{name}": {path}'
                    dropped.append(Diagnostic(self._name, safe, launch, message))
                    continue
                raise InvalidToolListing(f"MCP tool listing returned an invalid result: {path}") from None
            kept.append(tool)
        return kept

    # ------------------------------------------------------------------ connections (§3.5, §4.8)

    async def _ensure_connected(self, conn: _Connection) -> None:
        if conn.retiring:
            raise ServerRetiring(self._name)
        if conn.connected:
            return
        if not conn.started:
            self._host.start_soon(self._hold, conn)
            conn.started = True
        await conn.connect_done.wait()
        error = conn.connect_error
        if error is not None:
            if isinstance(error, McpTimeout):
                seconds = js_number(conn.config.connection_timeout_ms / 1000)
                raise ConnectTimedOut(
                    f'MCP server "{self._name}" timed out: did not complete initialize within {seconds}s'
                ) from error
            raise error
        if not conn.connected:
            raise ServerNotConnected(self._name, conn.disconnect_reason)

    async def _hold(self, conn: _Connection) -> None:
        """Open the connection, keep it open until a close is requested, then close it (in this task)."""
        try:
            with anyio.CancelScope() as scope:
                conn.scope = scope
                if conn.close_requested.is_set():
                    return
                self._host.start_soon(self._connect_watchdog, conn)
                async with self._services.connector.connect(
                    self._name,
                    conn.config,
                    on_event=lambda event: self._on_event(conn, event),
                    log=self._services.debug,
                ) as client:
                    conn.client = client
                    if client.closed:
                        conn.disconnect_reason = "mcp transport closed"
                    else:
                        conn.connected = True
                    conn.connect_done.set()
                    await conn.close_requested.wait()
        except Exception as exc:
            if conn.connect_done.is_set():
                conn.close_error = exc
            else:
                conn.connect_error = exc
        finally:
            conn.connected = False
            if conn.disconnect_reason is None and conn.connect_done.is_set():
                conn.disconnect_reason = "mcp transport closed"
            if not conn.connect_done.is_set():
                if conn.connect_error is None:
                    timeout_ms = conn.config.connection_timeout_ms
                    conn.connect_error = (
                        McpTimeout(f"MCP server connection timed out after {timeout_ms}ms")
                        if conn.watchdog_fired
                        else RuntimeDisposed(self._session_id)
                    )
                conn.connect_done.set()
            conn.hold_done.set()

    async def _connect_watchdog(self, conn: _Connection) -> None:
        """Backstop only: the connector enforces the connect deadline and tears down itself (§3.5). If it
        has not settled well after that deadline, cancel the connect (a forced teardown)."""
        timeout_ms = conn.config.connection_timeout_ms
        with anyio.move_on_after((timeout_ms + min(timeout_ms, 1000) + 1000) / 1000):
            await conn.connect_done.wait()
        if not conn.connect_done.is_set() and conn.scope is not None:
            conn.watchdog_fired = True
            conn.scope.cancel()

    def _on_event(self, conn: _Connection, event: McpEvent) -> None:
        if isinstance(event, ListChanged):
            if event.kind == "tools" and self._retired is None:
                self.invalidate()
        elif isinstance(event, ConnectionClosed):
            self._on_closed(conn)

    def _on_closed(self, conn: _Connection) -> None:
        was_connected = conn.connected
        conn.connected = False
        conn.disconnect_reason = "mcp transport closed"
        if was_connected and self._retired is None and not conn.retiring and self._current is conn:
            self._schedule_retry("mcp transport closed")
            self._services.warn(f'server "{self._name}" closed; next request reconnects')

    def _sync_closed(self, conn: _Connection) -> None:
        """Treat a connection whose transport reports ``closed`` as closed even without the event."""
        if conn.connected and conn.client is not None and conn.client.closed:
            self._on_closed(conn)

    def _detach_if_current(self, conn: _Connection) -> bool:
        """The synchronous half of ``retire``: mark the connection retiring and clear it as current."""
        if self._current is not conn:
            return False
        conn.retiring = True
        self._current = None
        return True

    async def _retire_if_current(self, conn: _Connection) -> bool:
        if not self._detach_if_current(conn):
            return False
        await self._dispose_connection(conn)
        return True

    async def _dispose_connection(self, conn: _Connection) -> DisposeOutcome:
        """``dispose_connection`` (§3.7), shared: a second call awaits the first."""
        if conn.disposal is None:
            flight: _Flight[DisposeOutcome] = _Flight()
            self._host.start_soon(self._run_dispose, conn, flight)
            conn.disposal = flight
            self._pending_disposals.add(flight)
        return await conn.disposal.wait()

    async def _run_dispose(self, conn: _Connection, flight: _Flight[DisposeOutcome]) -> None:
        budget = self._services.tuning.dispose_timeout_ms / 1000
        failed = False
        try:
            conn.close_requested.set()
            if conn.started:
                if conn.connecting and conn.scope is not None:
                    conn.scope.cancel()  # abort an unfinished connect right away
                with anyio.move_on_after(budget):
                    await conn.hold_done.wait()
                if not conn.hold_done.is_set():
                    if conn.scope is not None:
                        conn.scope.cancel()  # forced phase: the connector tears down on cancellation
                    with anyio.move_on_after(budget):
                        await conn.hold_done.wait()
                    failed = not conn.hold_done.is_set()
                failed = failed or conn.close_error is not None
        finally:
            if failed:
                self._cleanup_failed = True
            self._pending_disposals.discard(flight)
            flight.resolve("uncertain" if failed else "closed")

    # ------------------------------------------------------------------ requests (§4.9, §4.10)

    async def _active_connection(self, server_name: str) -> _Connection:
        if server_name != self._name:
            raise ServerNotConnected(server_name)
        await self.get_catalog()
        conn = self._current
        if conn is not None:
            self._sync_closed(conn)
        if conn is None or not conn.connected:
            raise ServerNotConnected(self._name, conn.disconnect_reason if conn is not None else None)
        return conn

    async def _request(
        self, conn: _Connection, method: str, params: dict[str, Any] | None, timeout_ms: int | None = None
    ) -> dict[str, Any]:
        """One request under the local timer (§4.9): ``MCP error -32001: Request timed out`` when it fires.

        The connection's own timer (``timeout_ms``, which also sends ``notifications/cancelled`` with the
        timeout reason) is authoritative (D18); the runtime's timer is a backstop a little later."""
        client = conn.client
        if client is None:
            raise ServerNotConnected(self._name, conn.disconnect_reason)
        timeout = timeout_ms if timeout_ms is not None else conn.request_timeout_ms
        with anyio.move_on_after(timeout / 1000 + LOCAL_TIMER_GRACE_S):
            try:
                return await client.request(method, params, timeout_ms=timeout)
            except LocalRequestTimeout:
                raise
            except McpTimeout as exc:
                raise LocalRequestTimeout() from exc
        raise LocalRequestTimeout()

    async def _guarded(
        self, conn: _Connection, run: Callable[[], Awaitable[_T]], failure_backoff: FailureBackoff = "track"
    ) -> _T:
        if conn.parallel:
            return await self._guarded_now(conn, run, failure_backoff)
        async with self._serial:
            return await self._guarded_now(conn, run, failure_backoff)

    async def _guarded_now(
        self, conn: _Connection, run: Callable[[], Awaitable[_T]], failure_backoff: FailureBackoff
    ) -> _T:
        tracking = failure_backoff != "ignore"
        started = self._now()
        backoff = self._backoff
        if (
            tracking
            and backoff is not None
            and backoff.connection is conn
            and backoff.retry_after is not None
            and started < backoff.retry_after
        ):
            raise ServerPaused(self._name, iso_timestamp(backoff.retry_after))
        if backoff is not None and backoff.connection is not conn:
            self._backoff = None
        try:
            result = await run()
        except Exception as exc:
            reason: str | None = None
            if isinstance(exc, McpSessionExpired):
                reason = "expired HTTP session"
            elif tracking:
                failures = self._record_failure(conn, started)
                if isinstance(exc, LocalRequestTimeout) and failures is not None and failures >= FAILURE_THRESHOLD:
                    reason = "repeated request timeouts"
            if reason is not None:
                self._recycle(conn, reason)
            raise
        if tracking and self._backoff is not None and self._backoff.connection is conn:
            self._backoff = None
        return result

    def _record_failure(self, conn: _Connection, started: int) -> int | None:
        if self._current is not conn or conn.retiring:
            return None
        previous = self._backoff
        failures = (previous.failures if previous is not None and previous.connection is conn else 0) + 1
        retry_after = started + FAILURE_COOLDOWN_MS if failures >= FAILURE_THRESHOLD else None
        self._backoff = _Backoff(conn, failures, retry_after)
        return failures

    def _recycle(self, conn: _Connection, reason: str) -> None:
        self._backoff = None
        self._schedule_retry(reason)
        timed_out = reason == "repeated request timeouts"
        self._services.warn(
            f'recycling server "{self._name}" after {"repeated timeouts" if timed_out else "an expired HTTP session"}'
        )
        if self._detach_if_current(conn):
            self._host.start_soon(self._retire_in_background, conn, timed_out)

    async def _retire_in_background(self, conn: _Connection, timed_out: bool) -> None:
        try:
            await self._dispose_connection(conn)
        except Exception as exc:
            kind = "timed-out" if timed_out else "expired-session"
            self._services.warn(f'failed to retire {kind} server "{self._name}": {diagnostic_message(exc)}')

    # ------------------------------------------------------------------ public operations

    async def call_tool(self, server_name: str, tool_name: str, arguments: object) -> dict[str, Any]:
        """``tools/call``; then the tool's output-schema check (§4.11, outside the failure accounting)."""
        conn = await self._active_connection(server_name)
        validator = conn.validators.get(tool_name)
        params = {"name": tool_name, "arguments": arguments if isinstance(arguments, dict) else {}}
        with self._lifecycle_scope():
            result = await self._guarded(conn, lambda: self._request(conn, "tools/call", params))
        if validator is not None:
            validate_call_result(tool_name, result, validator)
        return result

    async def list_tools(self, server_name: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """One raw ``tools/list`` request with the caller's params."""
        conn = await self._active_connection(server_name)
        with self._lifecycle_scope():
            return await self._guarded(conn, lambda: self._request(conn, "tools/list", params))

    async def list_resource_templates(self, server_name: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        conn = await self._active_connection(server_name)
        with self._lifecycle_scope():
            return await self._guarded(conn, lambda: self._request(conn, "resources/templates/list", params))

    async def read_resource(
        self, server_name: str, uri: str, *, failure_backoff: FailureBackoff = "track"
    ) -> dict[str, Any]:
        conn = await self._active_connection(server_name)
        with self._lifecycle_scope():
            return await self._guarded(
                conn, lambda: self._request(conn, "resources/read", {"uri": uri}), failure_backoff
            )

    async def get_prompt(
        self, server_name: str, name: str, arguments: Mapping[str, str] | None = None
    ) -> dict[str, Any]:
        conn = await self._active_connection(server_name)
        params: dict[str, Any] = {"name": name}
        if arguments:
            params["arguments"] = dict(arguments)
        with self._lifecycle_scope():
            return await self._guarded(conn, lambda: self._request(conn, "prompts/get", params))

    async def list_resources(self, server_name: str, *, failure_backoff: FailureBackoff = "track") -> list[Any]:
        """Every resource, via the bounded paginator (label ``MCP resource listing``)."""
        conn = await self._active_connection(server_name)
        with self._lifecycle_scope():
            return await self._guarded(conn, lambda: self._collect(conn, "resources"), failure_backoff)

    async def list_prompts(self, server_name: str) -> list[Any]:
        """Every prompt, via the bounded paginator (label ``MCP prompt listing``)."""
        conn = await self._active_connection(server_name)
        with self._lifecycle_scope():
            return await self._guarded(conn, lambda: self._collect(conn, "prompts"))

    async def _collect(self, conn: _Connection, kind: Literal["resources", "prompts"]) -> list[Any]:
        label = f"MCP {'resource' if kind == 'resources' else 'prompt'} listing"

        async def load_page(cursor: str | None, timeout_ms: int) -> Page:
            params = None if cursor is None else {"cursor": cursor}
            page = await self._request(conn, f"{kind}/list", params, timeout_ms)
            items = page.get(kind)
            next_cursor = page.get("nextCursor")
            if not isinstance(items, list) or not (next_cursor is None or isinstance(next_cursor, str)):
                problem = f"{kind}: expected array" if not isinstance(items, list) else "nextCursor: expected string"
                raise InvalidListResult(f"{label} returned an invalid result: {problem}")
            return Page(items=items, next_cursor=next_cursor, raw=page)

        tuning = self._services.tuning
        return await collect_paginated(
            label=label,
            item_label=kind,
            timeout_ms=conn.request_timeout_ms,
            load_page=load_page,
            max_pages=tuning.max_list_pages,
            max_items=tuning.max_list_items,
            max_bytes=tuning.max_list_bytes,
        )

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
            flight: _Flight[None] = _Flight()
            self._disposal = flight
            await self._run_disposal(flight, conn, pending)
        await self._disposal.wait()

    async def _run_disposal(
        self, flight: _Flight[None], conn: _Connection | None, pending: _Flight[Catalog] | None
    ) -> None:
        try:
            if conn is not None:
                await self._dispose_connection(conn)
            if pending is not None:
                await pending.done.wait()
            while self._pending_disposals:
                await next(iter(self._pending_disposals)).done.wait()
        finally:
            flight.resolve(None)

    async def join_cleanup(self) -> None:
        """Await dispose and every pending connection disposal; raise :class:`CleanupUnconfirmed` if any of
        them could not confirm closure."""
        if self._disposal is not None:
            await self._disposal.wait()
        while self._pending_disposals:
            await next(iter(self._pending_disposals)).done.wait()
        if self._cleanup_failed:
            raise CleanupUnconfirmed()
