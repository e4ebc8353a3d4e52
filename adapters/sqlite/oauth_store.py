"""Writes to the MCP OAuth store in the state database (spec cli-registry §7.2, §7.5 clear, §7.10, D10),
each in one ``BEGIN IMMEDIATE`` transaction under the store's ``core:mcp-oauth`` lease, with the lease
ownership re-checked at the start and just before commit."""

from __future__ import annotations

import sqlite3
import time
from typing import TYPE_CHECKING

import anyio

from adapters.sqlite._db import (
    MCP_OAUTH_PENDING_AUTHORIZATIONS_SCHEMA,
    MCP_OAUTH_STORES_SCHEMA,
    STATE_LEASES_SCHEMA,
    ensure_state_db,
)
from adapters.sqlite.leases import require_lease_owned
from application.errors import OAuthStoreError
from application.leases import MCP_OAUTH_LEASE, LeaseIdentity, LeaseStore

__all__ = ["SqliteOAuthCredentialStore"]

_SCHEMA = STATE_LEASES_SCHEMA + MCP_OAUTH_STORES_SCHEMA + MCP_OAUTH_PENDING_AUTHORIZATIONS_SCHEMA
_CLEARED = '{"credentialState":"cleared"}'


class SqliteOAuthCredentialStore:
    def __init__(self, db_path: str, leases: LeaseStore) -> None:
        self._db_path = db_path
        self._leases = leases

    async def clear(self, store_key: str) -> None:
        policy = MCP_OAUTH_LEASE
        async with self._leases.hold(
            policy.scope, store_key, duration_ms=policy.duration_ms, wait_ms=policy.wait_ms, label=policy.label
        ) as lease:
            await anyio.to_thread.run_sync(self._clear, store_key, lease.identity)

    def _clear(self, store_key: str, lease: LeaseIdentity) -> None:
        try:
            conn = ensure_state_db(self._db_path, _SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise OAuthStoreError(f"MCP OAuth store unavailable: {exc}") from exc
        try:
            conn.execute("BEGIN IMMEDIATE")
            now = time.time_ns() // 1_000_000
            require_lease_owned(conn, lease, now)
            conn.execute(
                "INSERT INTO mcp_oauth_stores (store_key, format_version, store_json, updated_at) "
                "VALUES (?, 1, ?, ?) ON CONFLICT (store_key) DO UPDATE SET "
                "format_version = excluded.format_version, store_json = excluded.store_json, "
                "updated_at = excluded.updated_at",
                (store_key, _CLEARED, now),
            )
            conn.execute("DELETE FROM mcp_oauth_pending_authorizations WHERE store_key = ?", (store_key,))
            require_lease_owned(conn, lease, now)
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise OAuthStoreError(f"MCP OAuth store unavailable: {exc}") from exc
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        finally:
            conn.close()


if TYPE_CHECKING:
    from application.ports import OAuthCredentialStore

    def _conforms(store: SqliteOAuthCredentialStore) -> OAuthCredentialStore:
        return store
