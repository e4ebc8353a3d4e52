"""The MCP OAuth credential store in the OpenClaw state database (spec cli-registry §7.1–§7.7, §7.10, D10).

Rows: ``mcp_oauth_stores`` (one compact JSON object per store key) and ``mcp_oauth_pending_authorizations``
(OAuth ``state`` → store key). Every write is one ``BEGIN IMMEDIATE`` transaction on a fresh connection, run
in a worker thread, under the caller's ``core:mcp-oauth`` lease of that store key: the lease row is checked
(:func:`~adapters.sqlite.leases.require_lease_owned`) at the start of the transaction and again just before
``COMMIT``. Reads open the file read-only (``mode=ro``), take no lease and never create anything: a missing
file or table reads as empty. The database is created only by a write (directory 0700, file 0600, WAL, just
the tables used here).
"""

from __future__ import annotations

import copy
import os
import sqlite3
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

from openclaw_mcp.adapters.clock import SystemClock
from openclaw_mcp.adapters.sqlite._db import (
    BUSY_TIMEOUT_MS,
    MCP_OAUTH_PENDING_AUTHORIZATIONS_SCHEMA,
    MCP_OAUTH_STORES_SCHEMA,
    STATE_LEASES_SCHEMA,
    StateDbWriter,
    open_state_db,
)
from openclaw_mcp.adapters.sqlite._files import is_file, read_only_uri
from openclaw_mcp.adapters.sqlite.leases import require_lease_owned
from openclaw_mcp.application.errors import OAuthStoreError
from openclaw_mcp.application.ports.clock import Clock
from openclaw_mcp.application.ports.leases import MCP_OAUTH_LEASE, Lease, LeaseIdentity, LeaseStore
from openclaw_mcp.domain.oauth_store import (
    CLEARED_STORE,
    PENDING_TTL_MS,
    StoreRowInvalid,
    decode_store_row,
    encode_for_write,
    encode_store,
)

__all__ = ["SqliteOAuthCredentialStore"]

_T = TypeVar("_T")
_Change = Callable[[dict[str, Any]], dict[str, Any] | None]

_SCHEMA = STATE_LEASES_SCHEMA + MCP_OAUTH_STORES_SCHEMA + MCP_OAUTH_PENDING_AUTHORIZATIONS_SCHEMA
_UPSERT = (
    "INSERT INTO mcp_oauth_stores (store_key, format_version, store_json, updated_at) VALUES (?, 1, ?, ?)"
    " ON CONFLICT (store_key) DO UPDATE SET format_version = excluded.format_version,"
    " store_json = excluded.store_json, updated_at = excluded.updated_at"
)
_EXACT_LEASE = "MCP OAuth mutation requires its exact store lease"


def _unavailable(exc: BaseException) -> OAuthStoreError:
    return OAuthStoreError(f"MCP OAuth store unavailable: {exc}")


def _require_exact_lease(lease: Lease, store_key: str) -> LeaseIdentity:
    identity = lease.identity
    if identity.scope != MCP_OAUTH_LEASE.scope or identity.key != store_key:
        raise OAuthStoreError(_EXACT_LEASE)
    lease.check()
    return identity


def _select_store(conn: sqlite3.Connection, store_key: str) -> dict[str, Any]:
    row = conn.execute(
        "SELECT format_version, store_json FROM mcp_oauth_stores WHERE store_key = ?", (store_key,)
    ).fetchone()
    return {} if row is None else decode_store_row(store_key, row[0], row[1])


class SqliteOAuthCredentialStore:
    """:class:`~application.ports.oauth.OAuthCredentialStore` over the state database at ``db_path`` (shared with
    other processes, the reference included). ``leases`` acquires the lease :meth:`clear` takes itself;
    ``clock`` gives the wall-clock epoch ms of ``updated_at``, ``create_time`` and the ownership and TTL
    checks (the system clock unless a test injects one)."""

    def __init__(
        self,
        db_path: str | os.PathLike[str],
        leases: LeaseStore,
        *,
        clock: Clock | None = None,
        busy_timeout_ms: int = BUSY_TIMEOUT_MS,
    ) -> None:
        self._db_path = os.fspath(db_path)
        self._leases = leases
        self._clock: Clock = clock if clock is not None else SystemClock()
        self._busy_timeout_ms = busy_timeout_ms
        self._writer = StateDbWriter(db_path, _SCHEMA, busy_timeout_ms=busy_timeout_ms)

    # --- plumbing (worker thread) -----------------------------------------------------------------------

    def _write(self, lease: LeaseIdentity | None, step: Callable[[sqlite3.Connection, int], _T]) -> _T:
        """Run ``step(conn, now)`` in one write transaction, checking the lease at its start and before
        commit. ``LeaseLost`` and errors of ``step`` roll back and propagate; storage errors become
        ``OAuthStoreError``."""
        try:
            conn = self._writer.connect()
        except (OSError, sqlite3.Error) as exc:
            raise _unavailable(exc) from exc
        try:
            conn.execute("BEGIN IMMEDIATE")
            now = self._clock.now_ms()
            if lease is not None:
                require_lease_owned(conn, lease, now)
            result = step(conn, now)
            if lease is not None:
                require_lease_owned(conn, lease, self._clock.now_ms())
            conn.execute("COMMIT")
            return result
        except StoreRowInvalid as exc:
            raise OAuthStoreError(str(exc)) from exc
        except sqlite3.Error as exc:
            raise _unavailable(exc) from exc
        finally:
            try:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # closing the connection rolls back as well
            conn.close()

    def _read_only(self, step: Callable[[sqlite3.Connection, int], _T], missing: _T) -> _T:
        """Run ``step(conn, now)`` on a read-only connection; ``missing`` when the file or a table is absent."""
        if not is_file(self._db_path):
            return missing
        try:
            conn = sqlite3.connect(read_only_uri(self._db_path), uri=True, timeout=self._busy_timeout_ms / 1000)
        except sqlite3.Error as exc:
            raise _unavailable(exc) from exc
        try:
            return step(conn, self._clock.now_ms())
        except StoreRowInvalid as exc:
            raise OAuthStoreError(str(exc)) from exc
        except sqlite3.OperationalError as exc:
            if "no such table" in str(exc):
                return missing
            raise _unavailable(exc) from exc
        except sqlite3.Error as exc:
            raise _unavailable(exc) from exc
        finally:
            conn.close()

    # --- stores -----------------------------------------------------------------------------------------

    async def read(self, store_key: str) -> dict[str, Any]:
        def step(conn: sqlite3.Connection, now: int) -> dict[str, Any]:
            return _select_store(conn, store_key)

        return await anyio.to_thread.run_sync(self._read_only, step, {})

    async def update(self, lease: Lease, store_key: str, change: _Change) -> dict[str, Any]:
        identity = _require_exact_lease(lease, store_key)

        def step(conn: sqlite3.Connection, now: int) -> dict[str, Any]:
            current = _select_store(conn, store_key)
            new = change(copy.deepcopy(current))
            if new is None:
                return current
            text, stored = encode_for_write(store_key, new)
            conn.execute(_UPSERT, (store_key, text, now))
            return stored

        return await anyio.to_thread.run_sync(self._write, identity, step)

    async def clear(self, store_key: str) -> None:
        policy = MCP_OAUTH_LEASE
        async with self._leases.hold(
            policy.scope, store_key, duration_ms=policy.duration_ms, wait_ms=policy.wait_ms, label=policy.label
        ) as lease:
            identity = _require_exact_lease(lease, store_key)

            def step(conn: sqlite3.Connection, now: int) -> None:
                conn.execute(_UPSERT, (store_key, encode_store(CLEARED_STORE), now))
                conn.execute("DELETE FROM mcp_oauth_pending_authorizations WHERE store_key = ?", (store_key,))

            await anyio.to_thread.run_sync(self._write, identity, step)

    async def keys_with_prefix(self, prefix: str) -> list[str]:
        def step(conn: sqlite3.Connection, now: int) -> list[str]:
            rows = conn.execute(
                "SELECT store_key FROM mcp_oauth_stores WHERE instr(store_key, ?) = 1 ORDER BY store_key ASC",
                (prefix,),
            ).fetchall()
            return [row[0] for row in rows]

        return await anyio.to_thread.run_sync(self._read_only, step, [])

    # --- pending authorizations -------------------------------------------------------------------------

    async def write_pending(self, lease: Lease, store_key: str, state: str) -> None:
        identity = _require_exact_lease(lease, store_key)

        def step(conn: sqlite3.Connection, now: int) -> None:
            conn.execute("DELETE FROM mcp_oauth_pending_authorizations WHERE create_time <= ?", (now - PENDING_TTL_MS,))
            conn.execute("DELETE FROM mcp_oauth_pending_authorizations WHERE store_key = ?", (store_key,))
            conn.execute(
                "INSERT INTO mcp_oauth_pending_authorizations (state, store_key, create_time) VALUES (?, ?, ?)",
                (state, store_key, now),
            )

        await anyio.to_thread.run_sync(self._write, identity, step)

    async def consume_pending(self, lease: Lease, store_key: str, state: str) -> bool:
        identity = _require_exact_lease(lease, store_key)

        def step(conn: sqlite3.Connection, now: int) -> bool:
            deleted = conn.execute(
                "DELETE FROM mcp_oauth_pending_authorizations WHERE store_key = ? AND state = ? AND create_time > ?",
                (store_key, state, now - PENDING_TTL_MS),
            ).rowcount
            return bool(deleted == 1)

        return await anyio.to_thread.run_sync(self._write, identity, step)

    async def read_pending(self, state: str) -> str | None:
        def step(conn: sqlite3.Connection, now: int) -> str | None:
            row = conn.execute(
                "SELECT store_key FROM mcp_oauth_pending_authorizations WHERE state = ? AND create_time > ?",
                (state, now - PENDING_TTL_MS),
            ).fetchone()
            return None if row is None else str(row[0])

        return await anyio.to_thread.run_sync(self._read_only, step, None)

    async def delete_pending(self, lease: Lease, store_key: str) -> None:
        identity = _require_exact_lease(lease, store_key)

        def step(conn: sqlite3.Connection, now: int) -> None:
            conn.execute("DELETE FROM mcp_oauth_pending_authorizations WHERE store_key = ?", (store_key,))

        await anyio.to_thread.run_sync(self._write, identity, step)

    async def delete_pending_prefix(self, prefix: str) -> None:
        await anyio.to_thread.run_sync(self._delete_pending_prefix, prefix)

    def _delete_pending_prefix(self, prefix: str) -> None:
        # Nothing to delete without a database or table: create neither.
        if not is_file(self._db_path):
            return
        try:
            conn = open_state_db(self._db_path, busy_timeout_ms=self._busy_timeout_ms)
        except sqlite3.Error as exc:
            raise _unavailable(exc) from exc
        try:
            conn.execute("BEGIN IMMEDIATE")
            table = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'mcp_oauth_pending_authorizations'"
            ).fetchone()
            if table is not None:
                # LIKE as the reference runs it: ASCII case-insensitive, ``%``/``_`` in the prefix are wildcards.
                conn.execute("DELETE FROM mcp_oauth_pending_authorizations WHERE store_key LIKE ?", (f"{prefix}%",))
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise _unavailable(exc) from exc
        finally:
            try:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            conn.close()


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.oauth import OAuthCredentialStore

    def _conforms(store: SqliteOAuthCredentialStore) -> OAuthCredentialStore:
        return store
