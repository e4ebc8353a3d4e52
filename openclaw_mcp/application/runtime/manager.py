"""The process-wide session runtime manager: reuse, replacement, leases, idle eviction, live cap
(spec client-runtime §4.15).

upstream: ``src/agents/agent-bundle-mcp-manager-*.ts``. Requester-scoped runtimes are out of scope;
runtimes are keyed by session id. Idle TTL, config reloads and the sweep timer follow
tool-policy-and-lifecycle.md §1.

The manager is an async context manager owning the task group every runtime it creates runs on (so a
server runtime can move from a replaced session runtime to its successor) and the idle sweep timer, which
runs (in a cancel scope of that task group) only while some live runtime has an idle TTL > 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

import anyio
import anyio.abc

from openclaw_mcp.application.held_task_group import HeldTaskGroup
from openclaw_mcp.application.ports.collation import Collator
from openclaw_mcp.application.runtime.errors import SERVER_FAILURES, LiveRuntimeLimitReached
from openclaw_mcp.application.runtime.services import RuntimeServices, TaskHost
from openclaw_mcp.application.runtime.session_config import SessionConfig, config_fingerprint
from openclaw_mcp.application.runtime.session_runtime import SessionRuntime

__all__ = [
    "LIVE_RUNTIME_CAP",
    "SWEEP_INTERVAL_MS",
    "ReloadConfigFor",
    "SessionRuntimeManager",
    "resolve_idle_ttl_ms",
]

LIVE_RUNTIME_CAP = 256
SWEEP_INTERVAL_MS = 60_000


def resolve_idle_ttl_ms(raw: object) -> int:
    """``floor(mcp.sessionIdleTtlMs)`` when it is a finite number ≥ 0, else 0 (0 disables eviction)."""
    if isinstance(raw, bool) or not isinstance(raw, int | float):
        return 0
    if not math.isfinite(raw) or raw < 0:
        return 0
    return math.floor(raw)


ReloadConfigFor = Callable[[SessionRuntime], SessionConfig | None]
"""What a config reload serves a live runtime: its new session config, or ``None`` to leave its servers."""


@dataclass(eq=False)
class _Slot:
    idle_ttl_ms: int = 0


@dataclass(frozen=True, eq=False, slots=True)
class _Publication:
    """The latest published config reload (§1.2): the TTL every acquisition takes from then on."""

    config_for: ReloadConfigFor
    idle_ttl_ms: int
    plugin_generation: int


class SessionRuntimeManager:
    """Maps session ids to session runtimes (§4.15).

    :meth:`acquire` reuses the current runtime when its workspace dir, agent dir and config fingerprint
    match (calling ``mark_used``), otherwise replaces it (unchanged servers are taken over, the rest
    disposed). Acquisitions and disposals of one session are serialised. Runtimes with
    ``idle_ttl_ms > 0``, no active lease and ``now − last_used_at ≥ idle_ttl_ms`` are evicted by the sweep
    (every ``sweep_interval_ms`` while some live runtime has a TTL > 0, or :meth:`sweep_idle`). Once
    :meth:`reload` has published a config, every TTL comes from the latest publication. At most 256
    runtimes with servers are live.
    """

    def __init__(
        self,
        services: RuntimeServices,
        *,
        collator: Collator,
        sweep_interval_ms: int = SWEEP_INTERVAL_MS,
        live_cap: int = LIVE_RUNTIME_CAP,
    ) -> None:
        """``sweep_interval_ms``: the sweep timer's period (60 000 ms; tests shorten it, decision D-SR1;
        ≤ 0 disables the timer, :meth:`sweep_idle` still works)."""
        self._services = services
        self._collator = collator
        self._sweep_interval_ms = sweep_interval_ms
        self._live_cap = live_cap
        self._host = TaskHost()
        self._tasks = HeldTaskGroup()
        self._runtimes: dict[str, SessionRuntime] = {}
        self._slots: dict[SessionRuntime, _Slot] = {}
        self._live: set[_Slot] = set()
        self._locks: dict[str, anyio.Lock] = {}
        self._publication: _Publication | None = None
        self._sweep_lock = anyio.Lock()
        self._sweep_timer: anyio.CancelScope | None = None
        self._closing = False

    # ------------------------------------------------------------------ lifecycle

    async def __aenter__(self) -> SessionRuntimeManager:
        tg = await self._tasks.open()
        self._host.attach(tg)
        self._closing = False
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        self._closing = True
        self._stop_sweep_timer()
        try:
            with anyio.CancelScope(shield=True):
                async with self._sweep_lock:  # an eviction in flight finishes disposing first
                    pass
                await self.dispose_all()
        finally:
            try:
                await self._tasks.close()
            finally:
                self._host.attach(None)
        return None

    # ------------------------------------------------------------------ queries

    def runtime(self, session_id: str) -> SessionRuntime | None:
        """The cached runtime of ``session_id`` (``None`` when none)."""
        return self._runtimes.get(session_id)

    def session_ids(self) -> list[str]:
        """The session ids with a cached runtime, in installation order."""
        return list(self._runtimes)

    def list_session_ids(self) -> list[str]:
        """The session ids with a cached runtime, sorted (collation of the manager, as the reference's
        ``listSessionIds``)."""
        return self._collator.sort(list(self._runtimes))

    @property
    def live_count(self) -> int:
        """Runtimes with servers that hold a live slot (including ones being created)."""
        return len(self._live)

    @property
    def sweep_timer_running(self) -> bool:
        """Whether the idle sweep timer is scheduled: while the manager is open, the period is > 0 and some
        cached runtime has an idle TTL > 0 (§1.4)."""
        return self._sweep_timer is not None

    def idle_ttl_ms(self, session_id: str) -> int:
        """The idle TTL in force for the runtime of ``session_id`` (0 when none or disabled)."""
        runtime = self._runtimes.get(session_id)
        slot = self._slots.get(runtime) if runtime is not None else None
        return slot.idle_ttl_ms if slot is not None else 0

    # ------------------------------------------------------------------ acquisition

    def _lock(self, key: str) -> anyio.Lock:
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = anyio.Lock()
        return lock

    def _reserve_slot(self, existing: SessionRuntime | None, has_servers: bool) -> _Slot:
        slot = (self._slots.get(existing) if existing is not None else None) or _Slot()
        if not has_servers or slot in self._live:
            return slot
        if len(self._live) >= self._live_cap:
            text = (
                f"live runtime limit ({self._live_cap}) reached; stop or reset unused sessions before "
                "connecting another MCP runtime"
            )
            self._services.warn(text)
            raise LiveRuntimeLimitReached(f"bundle-mcp: {text}")
        self._live.add(slot)
        return slot

    def _ttl_for(self, idle_ttl_ms: object) -> int:
        """The TTL an acquisition stores: the latest published reload's, else the caller's (§1.2)."""
        publication = self._publication
        return publication.idle_ttl_ms if publication is not None else resolve_idle_ttl_ms(idle_ttl_ms)

    async def acquire(self, config: SessionConfig, *, idle_ttl_ms: object = 0) -> SessionRuntime:
        """The runtime of ``config.session_id`` for ``config`` (reused or replaced); ``idle_ttl_ms`` is the
        caller's raw ``mcp.sessionIdleTtlMs``, used until a :meth:`reload` has been published (from then on
        the latest publication's TTL applies); either is re-read on every acquisition. Raises
        :class:`LiveRuntimeLimitReached` when the live cap is reached."""
        admitted = self._publication
        try:
            async with self._lock(config.session_id):
                return await self._acquire_locked(config, idle_ttl_ms, admitted)
        finally:
            self._reconcile_sweep_timer()

    async def _acquire_locked(
        self, config: SessionConfig, idle_ttl_ms: object, admitted: _Publication | None
    ) -> SessionRuntime:
        key = config.session_id
        existing = self._runtimes.get(key)
        fingerprint = config_fingerprint(config)
        if (
            existing is not None
            and existing.is_current
            and existing.workspace_dir == config.workspace_dir
            and existing.agent_dir == config.agent_dir
            and existing.config_fingerprint == fingerprint
        ):
            slot = self._slots.get(existing)
            if slot is not None:
                slot.idle_ttl_ms = self._ttl_for(idle_ttl_ms)
            existing.mark_used()
            return existing
        has_servers = bool(config.server_names())
        slot = self._reserve_slot(existing, has_servers)
        runtime: SessionRuntime | None = None
        created = False
        try:
            if existing is not None:
                runtime = existing.replace(config)
                self._slots.pop(existing, None)
                del self._runtimes[key]
                await existing.dispose()
                await existing.join_cleanup()
            else:
                runtime = SessionRuntime(config, self._services, collator=self._collator, host=self._host)
            await self._catch_up(runtime, admitted)
            created = True
        finally:
            if not created:  # failed or cancelled: release the slot and dispose what was made
                self._runtimes.pop(key, None)
                self._live.discard(slot)
                with anyio.CancelScope(shield=True):
                    if existing is not None:
                        await existing.dispose()
                    if runtime is not None:
                        await runtime.dispose()
        slot.idle_ttl_ms = self._ttl_for(idle_ttl_ms)
        if runtime.has_servers:
            self._runtimes[key] = runtime
            self._slots[runtime] = slot
        else:
            self._live.discard(slot)
        runtime.mark_used()
        return runtime

    async def _catch_up(self, runtime: SessionRuntime, admitted: _Publication | None) -> None:
        """Apply to a runtime made outside the map every reload published since the acquisition was
        admitted (a reload only reaches the runtimes in the map)."""
        seen = admitted
        while self._publication is not None and self._publication is not seen:
            publication = self._publication
            reload_plugins = publication.plugin_generation != (seen.plugin_generation if seen is not None else 0)
            next_config = publication.config_for(runtime)
            if next_config is not None:
                await runtime.reload(next_config, reload_plugins=reload_plugins)
            seen = publication

    # ------------------------------------------------------------------ config reload

    async def reload(
        self,
        config_for: ReloadConfigFor,
        *,
        idle_ttl_ms: object,
        reload_plugins: bool = False,
    ) -> None:
        """Publish a config reload (``reloadSessionMcpRuntimes``, §1.2, client-runtime §4.14).

        ``idle_ttl_ms`` is the reloaded config's raw ``mcp.sessionIdleTtlMs``: it becomes the TTL of
        **every** cached runtime at once (before any server is reloaded; the sweep timer starts or stops
        accordingly) and of every later acquisition. ``config_for(runtime)`` gives each cached runtime its
        new session config (``None``: leave its servers as they are); each runtime then retires the servers
        that left, changed or — with ``reload_plugins`` — are plugin-owned (it is replaced on its next
        acquisition). A runtime left without servers releases its live slot, and is dropped when no lease
        holds it. Runtimes being created meanwhile get the same reload before they are cached. The TTL is not
        part of any fingerprint: a reload that changes only the TTL replaces nothing. Errors raised by
        ``config_for`` propagate before any runtime is reloaded."""
        previous = self._publication.plugin_generation if self._publication is not None else 0
        publication = _Publication(
            config_for=config_for,
            idle_ttl_ms=resolve_idle_ttl_ms(idle_ttl_ms),
            plugin_generation=previous + (1 if reload_plugins else 0),
        )
        self._publication = publication
        for runtime in self._runtimes.values():
            slot = self._slots.get(runtime)
            if slot is not None:
                slot.idle_ttl_ms = publication.idle_ttl_ms
        self._reconcile_sweep_timer()
        targets = [(key, runtime, config_for(runtime)) for key, runtime in self._runtimes.items()]

        async def reload_one(key: str, runtime: SessionRuntime, config: SessionConfig) -> None:
            await runtime.reload(config, reload_plugins=reload_plugins)
            if not runtime.has_servers:
                self._release_empty(key, runtime)

        try:
            async with anyio.create_task_group() as tg:
                for key, runtime, config in targets:
                    if config is not None:
                        tg.start_soon(reload_one, key, runtime, config)
        finally:
            self._reconcile_sweep_timer()

    def _release_empty(self, key: str, runtime: SessionRuntime) -> None:
        """A cached runtime a reload left without servers: free its live slot; drop it when unleased."""
        if self._runtimes.get(key) is not runtime:
            return
        slot = self._slots.get(runtime)
        if slot is not None:
            self._live.discard(slot)
        if runtime.active_leases == 0:
            del self._runtimes[key]
            self._slots.pop(runtime, None)

    # ------------------------------------------------------------------ disposal and eviction

    async def _dispose_runtime(self, runtime: SessionRuntime) -> None:
        try:
            await runtime.dispose()
            await runtime.join_cleanup()
        finally:
            slot = self._slots.pop(runtime, None)
            if slot is not None:
                self._live.discard(slot)

    async def dispose_session(self, session_id: str) -> None:
        """Remove and dispose the runtime of ``session_id`` (session reset/deletion, explicit stop).
        Raises the runtime's cleanup failure, if any."""
        try:
            async with self._lock(session_id):
                runtime = self._runtimes.pop(session_id, None)
                if runtime is not None:
                    await self._dispose_runtime(runtime)
        finally:
            self._reconcile_sweep_timer()

    async def dispose_all(self) -> None:
        """Dispose every runtime (shutdown) and forget the published reload, as the reference's
        ``disposeAll`` does (later acquisitions take the caller's TTL again). Cleanup failures are reported
        as warnings."""
        self._publication = None
        for session_id in list(self._runtimes):
            try:
                await self.dispose_session(session_id)
            except SERVER_FAILURES as exc:
                self._services.warn(f"failed to dispose MCP runtime for session {session_id}: {exc}")

    async def sweep_idle(self) -> int:
        """Evict idle runtimes once (§1.4, §4.15); returns how many were evicted. Sweeps never overlap: a
        call waits for the sweep in flight. Evictions are shielded from cancellation."""
        async with self._sweep_lock:
            return await self._sweep_once()

    async def _sweep_once(self) -> int:
        now = self._services.clock.now_ms()
        expired: list[SessionRuntime] = []
        for key, runtime in list(self._runtimes.items()):
            slot = self._slots.get(runtime)
            ttl = slot.idle_ttl_ms if slot is not None else 0
            if ttl == 0 or runtime.active_leases > 0:
                continue
            if now - runtime.last_used_at < ttl:
                continue
            if self._lock(key).locked():
                continue
            del self._runtimes[key]
            expired.append(runtime)

        async def evict(runtime: SessionRuntime) -> None:
            try:
                await self._dispose_runtime(runtime)
            except SERVER_FAILURES as exc:
                self._services.warn(f"idle runtime sweep failed: {exc}")

        try:
            with anyio.CancelScope(shield=True):
                async with anyio.create_task_group() as tg:
                    for runtime in expired:
                        tg.start_soon(evict, runtime)
        finally:
            self._reconcile_sweep_timer()
        return len(expired)

    # ------------------------------------------------------------------ sweep timer

    def _reconcile_sweep_timer(self) -> None:
        """Start the sweep timer when some cached runtime has a TTL > 0, stop it when none has (§1.4)."""
        wanted = (
            not self._closing
            and self._sweep_interval_ms > 0
            and any(slot.idle_ttl_ms > 0 for slot in map(self._slots.get, self._runtimes.values()) if slot)
        )
        group = self._tasks.group
        if wanted and self._sweep_timer is None and group is not None:
            scope = anyio.CancelScope()
            self._sweep_timer = scope
            group.start_soon(self._sweep_loop, scope)
        elif not wanted:
            self._stop_sweep_timer()

    def _stop_sweep_timer(self) -> None:
        if self._sweep_timer is not None:
            self._sweep_timer.cancel()
            self._sweep_timer = None

    async def _sweep_loop(self, scope: anyio.CancelScope) -> None:
        """Tick every period from the moment the timer started (``setInterval``); a tick that finds a sweep
        in flight is skipped, as are the ticks a long sweep outlasted."""
        period = self._sweep_interval_ms / 1000
        with scope:
            started = anyio.current_time()
            ticks = 0
            while True:
                ticks += 1
                await anyio.sleep_until(started + ticks * period)
                try:
                    self._sweep_lock.acquire_nowait()
                except anyio.WouldBlock:
                    continue
                try:
                    await self._sweep_once()
                except SERVER_FAILURES as exc:
                    self._services.warn(f"idle runtime sweep failed: {exc}")
                finally:
                    self._sweep_lock.release()
                ticks = max(ticks, math.floor((anyio.current_time() - started) / period))
        if self._sweep_timer is scope:
            self._sweep_timer = None
