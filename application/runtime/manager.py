"""The process-wide session runtime manager: reuse, replacement, leases, idle eviction, live cap
(spec client-runtime §4.15).

upstream: ``src/agents/agent-bundle-mcp-manager-*.ts``. Requester-scoped runtimes and the config-publish
machinery are out of scope; runtimes are keyed by session id.

The manager is an async context manager owning the task group every runtime it creates runs on (so a
server runtime can move from a replaced session runtime to its successor) and the idle sweep loop.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import TracebackType

import anyio
import anyio.abc

from application.held_task_group import HeldTaskGroup
from application.ports.collation import Collator
from application.runtime.errors import SERVER_FAILURES, LiveRuntimeLimitReached
from application.runtime.services import RuntimeServices, TaskHost
from application.runtime.session_config import SessionConfig, config_fingerprint
from application.runtime.session_runtime import SessionRuntime

__all__ = [
    "LIVE_RUNTIME_CAP",
    "SWEEP_INTERVAL_MS",
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


@dataclass(eq=False)
class _Slot:
    idle_ttl_ms: int = 0


class SessionRuntimeManager:
    """Maps session ids to session runtimes (§4.15).

    :meth:`acquire` reuses the current runtime when its workspace dir, agent dir and config fingerprint
    match (calling ``mark_used``), otherwise replaces it (unchanged servers are taken over, the rest
    disposed). Acquisitions and disposals of one session are serialised. Runtimes with
    ``idle_ttl_ms > 0``, no active lease and ``now − last_used_at ≥ idle_ttl_ms`` are evicted by the sweep
    (every 60 s, or :meth:`sweep_idle`). At most 256 runtimes with servers are live.
    """

    def __init__(
        self,
        services: RuntimeServices,
        *,
        collator: Collator,
        sweep_interval_ms: int = SWEEP_INTERVAL_MS,
        live_cap: int = LIVE_RUNTIME_CAP,
    ) -> None:
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

    # ------------------------------------------------------------------ lifecycle

    async def __aenter__(self) -> SessionRuntimeManager:
        tg = await self._tasks.open()
        self._host.attach(tg)
        if self._sweep_interval_ms > 0:
            tg.start_soon(self._sweep_loop)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> bool | None:
        try:
            with anyio.CancelScope(shield=True):
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
        return list(self._runtimes)

    @property
    def live_count(self) -> int:
        """Runtimes with servers that hold a live slot (including ones being created)."""
        return len(self._live)

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

    async def acquire(self, config: SessionConfig, *, idle_ttl_ms: object = 0) -> SessionRuntime:
        """The runtime of ``config.session_id`` for ``config`` (reused or replaced); ``idle_ttl_ms`` is the
        raw ``mcp.sessionIdleTtlMs`` (re-read on every acquisition). Raises
        :class:`LiveRuntimeLimitReached` when the live cap is reached."""
        key = config.session_id
        ttl = resolve_idle_ttl_ms(idle_ttl_ms)
        async with self._lock(key):
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
                    slot.idle_ttl_ms = ttl
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
            slot.idle_ttl_ms = ttl
            if runtime.has_servers:
                self._runtimes[key] = runtime
                self._slots[runtime] = slot
            else:
                self._live.discard(slot)
            runtime.mark_used()
            return runtime

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
        async with self._lock(session_id):
            runtime = self._runtimes.pop(session_id, None)
            if runtime is not None:
                await self._dispose_runtime(runtime)

    async def dispose_all(self) -> None:
        """Dispose every runtime (shutdown). Cleanup failures are reported as warnings."""
        for session_id in list(self._runtimes):
            try:
                await self.dispose_session(session_id)
            except SERVER_FAILURES as exc:
                self._services.warn(f"failed to dispose MCP runtime for session {session_id}: {exc}")

    async def sweep_idle(self) -> int:
        """Evict idle runtimes once (§4.15); returns how many were evicted."""
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

        async with anyio.create_task_group() as tg:
            for runtime in expired:
                tg.start_soon(evict, runtime)
        return len(expired)

    async def _sweep_loop(self) -> None:
        while True:
            await anyio.sleep(self._sweep_interval_ms / 1000)
            if not any(slot.idle_ttl_ms > 0 for slot in self._slots.values()):
                continue
            try:
                await self.sweep_idle()
            except SERVER_FAILURES as exc:
                self._services.warn(f"idle runtime sweep failed: {exc}")
