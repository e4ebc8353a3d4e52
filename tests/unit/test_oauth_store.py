"""SQLite specifics of the OAuth credential store (file creation, row format, transactions) and logout."""

from __future__ import annotations

import functools
import json
import sqlite3
from pathlib import Path

import anyio
import pytest

from openclaw_mcp.adapters.memory.leases import InMemoryLeaseRows, InMemoryLeaseStore
from openclaw_mcp.adapters.memory.oauth_status import InMemoryOAuthStore
from openclaw_mcp.adapters.sqlite import SqliteOAuthStatusReader
from openclaw_mcp.adapters.sqlite.leases import SqliteLeaseStore
from openclaw_mcp.adapters.sqlite.oauth_store import SqliteOAuthCredentialStore
from openclaw_mcp.application.errors import OAuthStoreError
from openclaw_mcp.application.ports.leases import LeaseHeld, LeaseLost
from openclaw_mcp.domain.oauth_store import set_tokens

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


class FrozenClock:
    def __init__(self, now_ms: int) -> None:
        self.value = now_ms

    def now_ms(self) -> int:
        return self.value


async def test_reads_never_create_the_database(tmp_path: Path) -> None:
    db = tmp_path / "state" / "openclaw.sqlite"
    store = SqliteOAuthCredentialStore(str(db), SqliteLeaseStore(str(db)))
    with anyio.fail_after(10):
        assert await store.read(KEY) == {}
        assert await store.keys_with_prefix(KEY) == []
        assert await store.read_pending("state-1") is None
        await store.delete_pending_prefix(KEY)
    assert not db.parent.exists()


async def test_a_database_holding_only_leases_reads_as_empty(tmp_path: Path) -> None:
    db = tmp_path / "openclaw.sqlite"
    leases = SqliteLeaseStore(str(db))
    store = SqliteOAuthCredentialStore(str(db), leases)
    with anyio.fail_after(10):
        async with leases.hold("core:mcp-oauth", KEY, duration_ms=60_000, wait_ms=0):
            pass  # creates the file with state_leases only
        assert await store.read(KEY) == {}
        assert await store.keys_with_prefix("") == []
        assert await store.read_pending("state-1") is None
        await store.delete_pending_prefix(KEY)


async def test_the_first_update_creates_a_private_wal_database_with_the_compact_row(tmp_path: Path) -> None:
    db = tmp_path / "state" / "openclaw.sqlite"
    clock = FrozenClock(1795958909814)
    leases = SqliteLeaseStore(str(db), clock=clock)
    store = SqliteOAuthCredentialStore(str(db), leases, clock=clock)
    tokens = {"access_token": "at-1", "token_type": "Bearer", "expires_in": 3600}
    with anyio.fail_after(10):
        async with leases.hold("core:mcp-oauth", KEY, duration_ms=60_000, wait_ms=0) as lease:
            await store.update(lease, KEY, functools.partial(set_tokens, tokens=tokens, now_ms=clock.value))
            await store.write_pending(lease, KEY, "state-1")
    assert oct(db.stat().st_mode & 0o777) == "0o600"
    assert oct(db.parent.stat().st_mode & 0o777) == "0o700"
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert conn.execute("SELECT * FROM mcp_oauth_stores").fetchall() == [
            (
                KEY,
                1,
                '{"tokens":{"access_token":"at-1","token_type":"Bearer","expires_in":3600},"tokenExpiresAt":1795962509814}',
                1795958909814,
            )
        ]
        assert conn.execute("SELECT * FROM mcp_oauth_pending_authorizations").fetchall() == [
            ("state-1", KEY, 1795958909814)
        ]
        assert conn.execute("SELECT count(*) FROM state_leases").fetchone() == (0,)
    conn.close()


async def test_a_lease_row_replaced_by_another_owner_rolls_the_write_back(tmp_path: Path) -> None:
    db = tmp_path / "openclaw.sqlite"
    leases = SqliteLeaseStore(str(db))
    store = SqliteOAuthCredentialStore(str(db), leases)
    with anyio.fail_after(10):
        async with leases.hold("core:mcp-oauth", KEY, duration_ms=60_000, wait_ms=0) as lease:
            await store.update(lease, KEY, lambda s: {"redirectUrl": "http://127.0.0.1:1/cb"})

            def take_over(current: dict[str, object]) -> dict[str, object]:
                # Another process takes the lease over while our transaction runs: checked before commit.
                other = sqlite3.connect(db, timeout=0)
                try:
                    with pytest.raises(sqlite3.OperationalError, match="locked"):
                        other.execute("UPDATE state_leases SET owner = 'someone-else'")
                finally:
                    other.close()
                return {"codeVerifier": "v"}

            await store.update(lease, KEY, take_over)  # the write lock keeps others out until commit
            assert await store.read(KEY) == {"codeVerifier": "v"}
            with sqlite3.connect(db) as conn:
                conn.execute("UPDATE state_leases SET owner = 'someone-else'")
            conn.close()
            with pytest.raises(LeaseLost):
                await store.update(lease, KEY, lambda s: {"codeVerifier": "w"})
        assert await store.read(KEY) == {"codeVerifier": "v"}


async def test_a_corrupt_text_row_reports_invalid_json(tmp_path: Path) -> None:
    db = tmp_path / "openclaw.sqlite"
    store = SqliteOAuthCredentialStore(str(db), SqliteLeaseStore(str(db)))
    with anyio.fail_after(10):
        await store.clear(KEY)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE mcp_oauth_stores SET store_json = '{not json'")
    conn.close()
    with anyio.fail_after(10), pytest.raises(OAuthStoreError, match=rf"^MCP OAuth store {KEY} is invalid: store_json"):
        await store.read(KEY)
