"""The per-session MCP runtime: one server runtime per configured server, a merged catalog, call routing,
leases and dispose (spec client-runtime §4.14; operations §4.9, §9.3).

upstream: ``src/agents/agent-bundle-mcp-runtime.ts`` ``createSessionMcpRuntime``,
``agent-bundle-mcp-combined.ts`` ``createCombinedSessionMcpRuntime``.

Usage::

    async with SessionRuntime(config, services, collator=collator) as runtime:
        catalog = await runtime.get_catalog()
        result = await runtime.call_tool("docs", "search", {"q": "x"})
    # leaving the block disposes every server (stdio process trees torn down)

Nothing connects before the first :meth:`SessionRuntime.get_catalog` (or an operation that needs it);
servers are then connected and listed concurrently (at most ``CATALOG_CONCURRENCY`` at a time).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import anyio
import anyio.abc

from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.application.held_task_group import HeldTaskGroup
from openclaw_mcp.application.ports.collation import Collator
from openclaw_mcp.application.runtime.errors import (
    SERVER_FAILURES,
    CleanupUnconfirmed,
    RuntimeDisposed,
    ServerNotConnected,
)
from openclaw_mcp.application.runtime.flight import Flight
from openclaw_mcp.application.runtime.server_runtime import ServerRuntime
from openclaw_mcp.application.runtime.services import FailureBackoff, LeaseCounter, RuntimeServices, TaskHost
from openclaw_mcp.application.runtime.session_config import SessionConfig, config_fingerprint, server_spec
from openclaw_mcp.domain.catalog import Catalog, merge_catalogs

__all__ = ["CATALOG_CONCURRENCY", "SessionRuntime"]

CATALOG_CONCURRENCY = 32
"""Servers connected and listed at once. The reference uses 6; connecting is mostly waiting on child
processes and sockets, so the port lets a typical session's whole server set start together (an 8-server
probe then takes about as long as its slowest server, not two rounds of it)."""


@dataclass(frozen=True, slots=True)
class _PartResult:
    catalog: Catalog
    cached: bool


async def _load_current(part: ServerRuntime) -> Catalog:
    retired = part.retired_catalog
    if retired is not None:
        return retired
    try:
        catalog = await part.get_catalog()
    except RuntimeDisposed:
        retired = part.retired_catalog
        if retired is not None:
            return retired
        raise
    return part.retired_catalog or catalog


async def _load_part(
    part: ServerRuntime,
    index: int,
    results: list[_PartResult | None],
    errors: list[ApplicationError | ValueError],
    limiter: anyio.CapacityLimiter,
) -> None:
    async with limiter:
        try:
            catalog = await _load_current(part)
        except SERVER_FAILURES as exc:
            errors.append(exc)
            return
        results[index] = _PartResult(catalog, part.peek_catalog() is not None)


class SessionRuntime:
    """The MCP runtime of one session (§4.14). An async context manager: entering starts its task group
    (unless a ``host`` is supplied by an owner such as the manager), leaving disposes every server.

    Operations route by server name; an unknown name raises
    ``bundle-mcp server "<name>" is not connected``.
    """

    def __init__(
        self,
        config: SessionConfig,
        services: RuntimeServices,
        *,
        collator: Collator,
        host: TaskHost | None = None,
        reuse: dict[str, ServerRuntime] | None = None,
    ) -> None:
        self._config = config
        self._services = services
        self._collator = collator
        self._owns_host = host is None
        self._host = host if host is not None else TaskHost()
        self._tasks = HeldTaskGroup()
        self._fingerprint = config_fingerprint(config)
        parts: list[ServerRuntime] = []
        for name in config.server_names():
            spec = server_spec(config, name)
            existing = reuse.get(name) if reuse is not None else None
            if (
                existing is not None
                and not existing.disposed
                and existing.spec.fingerprint == spec.fingerprint
                and existing.spec.workspace_dir == spec.workspace_dir
                and existing.spec.agent_dir == spec.agent_dir
            ):
                assert reuse is not None
                del reuse[name]
                parts.append(existing)
            else:
                parts.append(ServerRuntime(spec, session_id=config.session_id, services=services, host=self._host))
        self._parts = parts
        self._owned: dict[str, ServerRuntime] = {part.server_name: part for part in parts}
        self._current = True
        now = services.clock.now_ms()
        self.created_at = min([now, *(part.created_at for part in parts)])
        self._last_used_at = max([now, *(part.last_used_at for part in parts)])
        self._leases = LeaseCounter()
        self._merged: Catalog | None = None
        self._sources: list[Catalog] | None = None
        self._in_flight: Flight[Catalog] | None = None
        self._disposal: Flight[None] | None = None
        self._cleanup_failure: BaseException | None = None
        self._disposed_parts: list[ServerRuntime] = []

    # ------------------------------------------------------------------ lifecycle

    async def __aenter__(self) -> SessionRuntime:
        if self._owns_host:
            self._host.attach(await self._tasks.open())
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        try:
            with anyio.CancelScope(shield=True):
                await self.dispose()
        finally:
            if self._tasks.group is not None:
                try:
                    await self._tasks.close()  # every task handles its own errors; stragglers are cut here
                finally:
                    self._host.attach(None)
        return None

    # ------------------------------------------------------------------ identity and bookkeeping

    @property
    def session_id(self) -> str:
        return self._config.session_id

    @property
    def config(self) -> SessionConfig:
        return self._config

    @property
    def config_fingerprint(self) -> str:
        return self._fingerprint

    @property
    def workspace_dir(self) -> str | None:
        return self._config.workspace_dir

    @property
    def agent_dir(self) -> str | None:
        return self._config.agent_dir

    @property
    def parts(self) -> tuple[ServerRuntime, ...]:
        """The server runtimes, in server-map key order."""
        return tuple(self._parts)

    @property
    def is_current(self) -> bool:
        """False once disposed or once a reload retired one of its servers (the manager then replaces it)."""
        return self._current

    @property
    def has_servers(self) -> bool:
        return bool(self._owned)

    @property
    def last_used_at(self) -> int:
        return self._last_used_at

    @property
    def active_leases(self) -> int:
        return max(self._leases.count, sum(part.active_leases for part in self._parts))

    def acquire_lease(self) -> Callable[[], None]:
        """Count one user on the session and on every server; the release is idempotent."""
        releases = [self._leases.acquire(), *(part.acquire_lease() for part in self._parts)]

        def release() -> None:
            for each in releases:
                each()

        return release

    def mark_used(self) -> None:
        self._last_used_at = self._services.clock.now_ms()
        for part in self._parts:
            part.mark_used()

    def server_runtime(self, server_name: str) -> ServerRuntime | None:
        """The live server runtime of ``server_name`` (``None`` when unknown or disposed)."""
        return self._owned.get(server_name)

    def request_timeout_ms(self, server_name: str) -> int | None:
        owner = self._owned.get(server_name)
        return owner.request_timeout_ms(server_name) if owner is not None else None

    # ------------------------------------------------------------------ catalog

    def _source(self, part: ServerRuntime) -> Catalog | None:
        return part.retired_catalog or part.peek_catalog()

    def _merged_is_current(self) -> bool:
        sources = self._sources
        return (
            self._merged is not None
            and sources is not None
            and all(self._source(part) is sources[i] for i, part in enumerate(self._parts))
        )

    def peek_catalog(self) -> Catalog | None:
        """The merged stored catalogs, or ``None`` when some server has none; never connects."""
        if self._merged is not None and self._merged_is_current():
            return self._merged
        peeked = [self._source(part) for part in self._parts]
        catalogs = [catalog for catalog in peeked if catalog is not None]
        if len(catalogs) != len(peeked):
            return None
        return merge_catalogs(catalogs, self._collator.key)

    async def get_catalog(self) -> Catalog:
        """The merged catalog of every server (§4.14). Failures to start or list a server are diagnostics;
        after :meth:`dispose` it merges the retired catalogs."""
        merged = self._merged
        if (
            merged is not None
            and not merged.diagnostics
            and self._merged_is_current()
            and not any(part.stale for part in self._parts)
        ):
            return merged
        if self._in_flight is not None:
            return await self._in_flight.wait()
        flight: Flight[Catalog] = Flight()
        self._host.start_soon(self._run_merge, flight)
        self._in_flight = flight
        return await flight.wait()

    async def _run_merge(self, flight: Flight[Catalog]) -> None:
        try:
            flight.resolve(await self._load_merged())
        except SERVER_FAILURES as exc:
            flight.fail(exc)
        finally:
            if self._in_flight is flight:
                self._in_flight = None
            if not flight.done.is_set():
                flight.fail(RuntimeDisposed(self.session_id))

    async def _load_merged(self) -> Catalog:
        parts = self._parts
        loaded: list[_PartResult | None] = [None] * len(parts)
        limiter = anyio.CapacityLimiter(CATALOG_CONCURRENCY)
        for _attempt in range(2):
            results = list(loaded)
            errors: list[ApplicationError | ValueError] = []

            async with anyio.create_task_group() as tg:
                for index, part in enumerate(parts):
                    previous = loaded[index]
                    if previous is not None and (
                        not previous.cached or part.retired_catalog is not None or part.peek_catalog() is not None
                    ):
                        continue
                    tg.start_soon(_load_part, part, index, results, errors, limiter)
            if errors:
                raise errors[0]
            loaded = results
        catalogs: list[Catalog] = []
        for index, part in enumerate(parts):
            source = self._source(part)
            result = loaded[index]
            if source is None:
                assert result is not None
                source = result.catalog
            catalogs.append(source)
        if (
            self._merged is not None
            and self._sources is not None
            and len(self._sources) == len(catalogs)
            and all(a is b for a, b in zip(self._sources, catalogs, strict=True))
        ):
            return self._merged
        self._sources = catalogs
        self._merged = merge_catalogs(catalogs, self._collator.key)
        return self._merged

    # ------------------------------------------------------------------ routed operations

    def _owner(self, server_name: str) -> ServerRuntime:
        owner = self._owned.get(server_name)
        if owner is None:
            raise ServerNotConnected(server_name)
        return owner

    async def call_tool(
        self, server_name: str, tool_name: str, arguments: object, *, tool_call_id: str | None = None
    ) -> dict[str, Any]:
        """``tools/call`` on ``server_name`` (arguments: a plain object, anything else sends ``{}``);
        ``tool_call_id``: the agent's id of the call, recorded on its span."""
        return await self._owner(server_name).call_tool(server_name, tool_name, arguments, tool_call_id=tool_call_id)

    async def list_tools(self, server_name: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return await self._owner(server_name).list_tools(server_name, params)

    async def list_resources(self, server_name: str, *, failure_backoff: FailureBackoff = "track") -> list[Any]:
        return await self._owner(server_name).list_resources(server_name, failure_backoff=failure_backoff)

    async def read_resource(
        self, server_name: str, uri: str, *, failure_backoff: FailureBackoff = "track"
    ) -> dict[str, Any]:
        return await self._owner(server_name).read_resource(server_name, uri, failure_backoff=failure_backoff)

    async def list_resource_templates(self, server_name: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        return await self._owner(server_name).list_resource_templates(server_name, params)

    async def list_prompts(self, server_name: str) -> list[Any]:
        return await self._owner(server_name).list_prompts(server_name)

    async def get_prompt(
        self, server_name: str, name: str, arguments: Mapping[str, str] | None = None
    ) -> dict[str, Any]:
        return await self._owner(server_name).get_prompt(server_name, name, arguments)

    # ------------------------------------------------------------------ reload, replace, dispose

    def replace(self, config: SessionConfig) -> SessionRuntime:
        """A runtime for ``config`` on the same task host, taking over every server runtime whose
        fingerprint, workspace dir and agent dir are unchanged (they keep their connection and catalog).
        Dispose this runtime afterwards: only the servers not taken over are closed."""
        return SessionRuntime(config, self._services, collator=self._collator, host=self._host, reuse=self._owned)

    async def reload(self, config: SessionConfig, *, reload_plugins: bool = False) -> None:
        """A config publish (§4.14): retire every server that is plugin-owned while plugins reload, left the
        config, changed safe name or changed fingerprint; the runtime is then no longer current."""
        safe_next = config.safe_names()
        retired: list[ServerRuntime] = []
        serving = set(config.server_names())
        for name, part in list(self._owned.items()):
            left = name not in serving
            if (
                (reload_plugins and part.spec.plugin_owned)
                or left
                or safe_next.get(name) != part.spec.safe_server_name
                or config_fingerprint(config, [name]) != part.spec.fingerprint
            ):
                del self._owned[name]
                retired.append(part)
        if retired:
            self._current = False
            await self._dispose_parts(retired)

    async def _dispose_parts(self, parts: Sequence[ServerRuntime]) -> None:
        self._disposed_parts.extend(parts)

        async def dispose_one(part: ServerRuntime) -> None:
            try:
                await part.dispose()
                await part.join_cleanup()
            except SERVER_FAILURES as exc:
                if self._cleanup_failure is None:
                    self._cleanup_failure = exc

        async with anyio.create_task_group() as tg:
            for part in parts:
                tg.start_soon(dispose_one, part)

    async def dispose(self) -> None:
        """Dispose every server this runtime still owns (idempotent, shared). Never raises; use
        :meth:`join_cleanup` to learn whether every connection confirmed its closure."""
        if self._disposal is None:
            self._current = False
            retired = list(self._owned.values())
            self._owned.clear()
            flight: Flight[None] = Flight()
            self._disposal = flight
            try:
                await self._dispose_parts(retired)
            finally:
                flight.resolve(None)
        await self._disposal.wait()

    async def join_cleanup(self) -> None:
        """Await disposal and raise the first cleanup failure
        (``MCP runtime cleanup could not confirm closure``)."""
        if self._disposal is not None:
            await self._disposal.wait()
        for part in self._disposed_parts:
            try:
                await part.join_cleanup()
            except CleanupUnconfirmed as exc:
                if self._cleanup_failure is None:
                    self._cleanup_failure = exc
        if self._cleanup_failure is not None:
            raise self._cleanup_failure
