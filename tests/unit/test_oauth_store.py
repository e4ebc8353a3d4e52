"""The OAuth credential store writes (logout) on SQLite, and the logout use case."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import anyio
import pytest

from adapters.memory.leases import InMemoryLeaseRows, InMemoryLeaseStore
from adapters.memory.oauth_status import InMemoryOAuthStore
from adapters.sqlite import SqliteOAuthStatusReader
from adapters.sqlite.leases import SqliteLeaseStore
from adapters.sqlite.oauth_store import SqliteOAuthCredentialStore
from application.leases import LeaseHeld

pytestmark = pytest.mark.asyncio

KEY = "docs-9cb3522dd977d04a"


async def test_clear_creates_the_database_and_leaves_a_cleared_row(tmp_path: Path) -> None:
    db = tmp_path / "state" / "openclaw.sqlite"
    with anyio.fail_after(10):
        await SqliteOAuthCredentialStore(str(db), SqliteLeaseStore(str(db))).clear(KEY)
        assert await SqliteOAuthStatusReader(str(db)).read_store(KEY) == {"credentialState": "cleared"}
    assert oct(db.stat().st_mode & 0o777) == "0o600"
    assert oct(db.parent.stat().st_mode & 0o777) == "0o700"
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM state_leases").fetchone() == (0,)  # released
    conn.close()


async def test_clear_replaces_tokens_and_deletes_only_this_stores_pending_rows(tmp_path: Path) -> None:
    db = tmp_path / "openclaw.sqlite"
    store = SqliteOAuthCredentialStore(str(db), SqliteLeaseStore(str(db)))
    with anyio.fail_after(10):
        await store.clear(KEY)  # creates the tables
    with sqlite3.connect(db) as conn:
        tokens = json.dumps({"tokens": {"access_token": "a", "token_type": "Bearer"}})
        conn.execute("UPDATE mcp_oauth_stores SET store_json = ? WHERE store_key = ?", (tokens, KEY))
        conn.execute("INSERT INTO mcp_oauth_pending_authorizations VALUES ('s1', ?, 1)", (KEY,))
        conn.execute("INSERT INTO mcp_oauth_pending_authorizations VALUES ('s2', 'other', 1)")
    conn.close()
    with anyio.fail_after(10):
        await store.clear(KEY)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT store_json FROM mcp_oauth_stores").fetchall() == [
            ('{"credentialState":"cleared"}',)
        ]
        assert conn.execute("SELECT state FROM mcp_oauth_pending_authorizations").fetchall() == [("s2",)]
    conn.close()


async def test_clear_waits_for_the_store_lease_of_another_holder() -> None:
    rows = InMemoryLeaseRows()
    other = InMemoryLeaseStore(rows)
    store = InMemoryOAuthStore()
    order: list[str] = []

    class LeasedStore:
        async def clear(self, key: str) -> None:
            async with InMemoryLeaseStore(rows).hold("core:mcp-oauth", key, duration_ms=60_000, wait_ms=30_000):
                await store.clear(key)
                order.append("cleared")

    with anyio.fail_after(10):
        async with anyio.create_task_group() as tg:
            held = anyio.Event()

            async def holder() -> None:
                async with other.hold("core:mcp-oauth", KEY, duration_ms=60_000, wait_ms=30_000):
                    held.set()
                    await anyio.sleep(0.2)
                    order.append("released")

            tg.start_soon(holder)
            await held.wait()
            await LeasedStore().clear(KEY)
    assert order == ["released", "cleared"]


async def test_a_held_lease_past_the_wait_fails_with_the_holder_named() -> None:
    rows = InMemoryLeaseRows()
    with anyio.fail_after(10):
        async with InMemoryLeaseStore(rows).hold("core:mcp-oauth", KEY, duration_ms=60_000, wait_ms=30_000) as lease:
            with pytest.raises(LeaseHeld, match=f"state lease core:mcp-oauth/{KEY} is held by {lease.owner}"):
                async with InMemoryLeaseStore(rows).hold("core:mcp-oauth", KEY, duration_ms=60_000, wait_ms=300):
                    pass
