"""In-memory state leases: the ``state_leases`` rows as a process-local dict, same algorithm as SQLite.

Several :class:`InMemoryLeaseStore` instances sharing one :class:`InMemoryLeaseRows` behave like several
processes sharing one state database (each may have its own clock).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio
import anyio.lowlevel

from openclaw_mcp.adapters.clock import SystemClock
from openclaw_mcp.application.leases import TableLeaseStore
from openclaw_mcp.application.ports.clock import Clock
from openclaw_mcp.application.ports.leases import LeaseGranted, LeaseHolder, LeaseIdentity

__all__ = ["InMemoryLeaseRows", "InMemoryLeaseStore", "InMemoryLeaseTable", "LeaseRow"]


@dataclass(slots=True)
class LeaseRow:
    """One ``state_leases`` row."""

    owner: str
    expires_at: int | None
    heartbeat_at: int | None
    payload_json: str | None
    created_at: int
    updated_at: int


class InMemoryLeaseRows:
    """The shared table: rows keyed by ``(scope, lease_key)``."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], LeaseRow] = {}


class InMemoryLeaseTable:
    """The :class:`~application.ports.leases.LeaseTable` over :class:`InMemoryLeaseRows`; each step is atomic
    (no await inside it) and takes ``now`` from ``clock``."""

    def __init__(self, rows: InMemoryLeaseRows, *, clock: Clock | None = None) -> None:
        self._rows = rows
        self._clock: Clock = clock if clock is not None else SystemClock()

    def _live_row(self, lease: LeaseIdentity, now: int) -> LeaseRow | None:
        row = self._rows.rows.get((lease.scope, lease.key))
        if row is None or row.owner != lease.owner or row.expires_at is None or row.expires_at <= now:
            return None
        return row

    async def try_acquire(self, lease: LeaseIdentity, duration_ms: int) -> LeaseGranted | LeaseHolder:
        await anyio.lowlevel.checkpoint()
        now = self._clock.now_ms()
        slot = (lease.scope, lease.key)
        row = self._rows.rows.get(slot)
        if row is not None and row.expires_at is not None and row.expires_at <= now:
            del self._rows.rows[slot]
            row = None
        if row is not None:
            return LeaseHolder(owner=row.owner, created_at=row.created_at)
        expires_at = now + duration_ms
        self._rows.rows[slot] = LeaseRow(lease.owner, expires_at, now, None, now, now)
        return LeaseGranted(expires_at)

    async def renew(self, lease: LeaseIdentity, duration_ms: int) -> int | None:
        await anyio.lowlevel.checkpoint()
        now = self._clock.now_ms()
        row = self._live_row(lease, now)
        if row is None:
            return None
        row.expires_at = now + duration_ms
        row.heartbeat_at = row.updated_at = now
        return row.expires_at

    async def expiry(self, lease: LeaseIdentity) -> int | None:
        await anyio.lowlevel.checkpoint()
        row = self._live_row(lease, self._clock.now_ms())
        return None if row is None else row.expires_at

    async def release(self, lease: LeaseIdentity) -> None:
        await anyio.lowlevel.checkpoint()
        slot = (lease.scope, lease.key)
        row = self._rows.rows.get(slot)
        if row is not None and row.owner == lease.owner:
            del self._rows.rows[slot]


class InMemoryLeaseStore(TableLeaseStore):
    """:class:`~application.ports.leases.LeaseStore` over process-local rows (a fresh table unless ``rows`` is
    shared). ``clock`` gives wall-clock epoch ms, ``rng`` the back-off jitter fraction in ``[0, 1)``."""

    def __init__(
        self,
        rows: InMemoryLeaseRows | None = None,
        *,
        clock: Clock | None = None,
        rng: Callable[[], float] | None = None,
    ) -> None:
        self.rows = rows if rows is not None else InMemoryLeaseRows()
        clock = clock if clock is not None else SystemClock()
        super().__init__(InMemoryLeaseTable(self.rows, clock=clock), clock=clock, rng=rng)


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.leases import LeaseStore, LeaseTable

    _store: LeaseStore = InMemoryLeaseStore()
    _table: LeaseTable = InMemoryLeaseTable(InMemoryLeaseRows())
