"""The state lease over the ``state_leases`` table of the OpenClaw state database (spec cli-registry §7.6).

Every step is its own short ``BEGIN IMMEDIATE`` … ``COMMIT`` transaction on a fresh connection (busy timeout
5 000 ms), run in a worker thread so a locked database never stalls the event loop. The database is created
on demand (decision D10): directory 0700, file 0600, WAL, ``state_leases`` and its two indices only.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

import anyio

from openclaw_mcp.adapters.clock import SystemClock
from openclaw_mcp.adapters.sqlite._db import BUSY_TIMEOUT_MS, STATE_LEASES_SCHEMA, StateDbWriter, is_busy_error
from openclaw_mcp.application.leases import TableLeaseStore
from openclaw_mcp.application.ports.clock import Clock
from openclaw_mcp.application.ports.leases import (
    LeaseGranted,
    LeaseHolder,
    LeaseIdentity,
    LeaseLost,
    LeaseStorageFailure,
)

__all__ = ["SqliteLeaseStore", "SqliteLeaseTable", "require_lease_owned"]

_T = TypeVar("_T")


def require_lease_owned(conn: sqlite3.Connection, lease: LeaseIdentity, now_ms: int) -> int:
    """The ownership check a writer runs inside its own write transaction, at its start and just before
    commit: return our row's expiry, or raise :class:`LeaseLost` when the row is not ours or has expired
    (the caller then rolls back). ``sqlite3.Error`` propagates."""
    row = conn.execute(
        "SELECT expires_at FROM state_leases WHERE scope = ? AND lease_key = ? AND owner = ? AND expires_at > ?",
        (lease.scope, lease.key, lease.owner, now_ms),
    ).fetchone()
    if row is None:
        raise LeaseLost(lease.name)
    expires_at: int = row[0]
    return expires_at


class SqliteLeaseTable:
    """The :class:`~application.ports.leases.LeaseTable` of the state database at ``db_path``."""

    def __init__(
        self, db_path: str | os.PathLike[str], *, clock: Clock | None = None, busy_timeout_ms: int = BUSY_TIMEOUT_MS
    ) -> None:
        self._clock: Clock = clock if clock is not None else SystemClock()
        self._writer = StateDbWriter(db_path, STATE_LEASES_SCHEMA, busy_timeout_ms=busy_timeout_ms)

    def _connect(self) -> sqlite3.Connection:
        return self._writer.connect()

    def _transaction(self, step: Callable[[sqlite3.Connection, int], _T]) -> _T:
        try:
            conn = self._connect()
        except (OSError, sqlite3.Error) as exc:
            raise LeaseStorageFailure(busy=isinstance(exc, sqlite3.Error) and is_busy_error(exc)) from exc
        try:
            conn.execute("BEGIN IMMEDIATE")
            result = step(conn, self._clock.now_ms())
            conn.execute("COMMIT")
            return result
        except sqlite3.Error as exc:
            raise LeaseStorageFailure(busy=is_busy_error(exc)) from exc
        finally:
            try:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # closing the connection rolls back as well
            conn.close()

    async def _run(self, step: Callable[[sqlite3.Connection, int], _T]) -> _T:
        return await anyio.to_thread.run_sync(self._transaction, step)

    async def try_acquire(self, lease: LeaseIdentity, duration_ms: int) -> LeaseGranted | LeaseHolder:
        def step(conn: sqlite3.Connection, now: int) -> LeaseGranted | LeaseHolder:
            conn.execute(
                "DELETE FROM state_leases WHERE scope = ? AND lease_key = ? AND expires_at <= ?",
                (lease.scope, lease.key, now),
            )
            expires_at = now + duration_ms
            inserted = conn.execute(
                "INSERT INTO state_leases (scope, lease_key, owner, expires_at, heartbeat_at, payload_json,"
                " created_at, updated_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?)"
                " ON CONFLICT (scope, lease_key) DO NOTHING",
                (lease.scope, lease.key, lease.owner, expires_at, now, now, now),
            ).rowcount
            if inserted == 1:
                return LeaseGranted(expires_at)
            row = conn.execute(
                "SELECT owner, created_at FROM state_leases WHERE scope = ? AND lease_key = ?",
                (lease.scope, lease.key),
            ).fetchone()
            if row is None:  # pragma: no cover - impossible inside one write transaction
                raise sqlite3.IntegrityError("conflicting state lease disappeared inside its transaction")
            return LeaseHolder(owner=row[0], created_at=row[1])

        return await self._run(step)

    async def renew(self, lease: LeaseIdentity, duration_ms: int) -> int | None:
        def step(conn: sqlite3.Connection, now: int) -> int | None:
            expires_at = now + duration_ms
            updated = conn.execute(
                "UPDATE state_leases SET expires_at = ?, heartbeat_at = ?, updated_at = ?"
                " WHERE scope = ? AND lease_key = ? AND owner = ? AND expires_at > ?",
                (expires_at, now, now, lease.scope, lease.key, lease.owner, now),
            ).rowcount
            return expires_at if updated == 1 else None

        return await self._run(step)

    async def expiry(self, lease: LeaseIdentity) -> int | None:
        def step(conn: sqlite3.Connection, now: int) -> int | None:
            try:
                return require_lease_owned(conn, lease, now)
            except LeaseLost:
                return None

        return await self._run(step)

    async def release(self, lease: LeaseIdentity) -> None:
        def step(conn: sqlite3.Connection, now: int) -> None:
            conn.execute(
                "DELETE FROM state_leases WHERE scope = ? AND lease_key = ? AND owner = ?",
                (lease.scope, lease.key, lease.owner),
            )

        await self._run(step)


class SqliteLeaseStore(TableLeaseStore):
    """:class:`~application.ports.leases.LeaseStore` over the state database at ``db_path`` (shared with other
    processes, the reference included). ``clock`` gives wall-clock epoch ms for the rows, ``rng`` the
    back-off jitter fraction in ``[0, 1)``; ``busy_timeout_ms`` stays 5 000 outside tests."""

    def __init__(
        self,
        db_path: str | os.PathLike[str],
        *,
        clock: Clock | None = None,
        rng: Callable[[], float] | None = None,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    ) -> None:
        clock = clock if clock is not None else SystemClock()
        table = SqliteLeaseTable(db_path, clock=clock, busy_timeout_ms=busy_timeout_ms)
        super().__init__(table, clock=clock, rng=rng)


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.leases import LeaseStore, LeaseTable

    _store: LeaseStore = SqliteLeaseStore("")
    _table: LeaseTable = SqliteLeaseTable("")
