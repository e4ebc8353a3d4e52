"""SQLite-specific behaviour of the state lease: the database it creates, its rows, other processes.

Also the shared timing formulas of the lease algorithm (``application.leases``).
"""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import anyio
import pytest

from openclaw_mcp.adapters.sqlite._db import (
    MCP_OAUTH_PENDING_AUTHORIZATIONS_SCHEMA,
    MCP_OAUTH_STORES_SCHEMA,
    ensure_state_db,
)
from openclaw_mcp.adapters.sqlite.leases import SqliteLeaseStore, require_lease_owned
from openclaw_mcp.application.leases import heartbeat_interval_ms, retry_backoff_ms
from openclaw_mcp.application.ports.leases import (
    MCP_LIFECYCLE_LEASE,
    MCP_OAUTH_LEASE,
    LeaseHeld,
    LeaseLost,
    LeaseUnavailable,
)

pytestmark = pytest.mark.asyncio

NOW = 1_767_225_600_000
MAIN = Path(__file__).resolve().parents[2]

# sqlite_master.sql of a 2026.9.6 reference database (created by `openclaw mcp set`).
REFERENCE_SQL = {
    "state_leases": (
        "CREATE TABLE state_leases (\n  scope TEXT NOT NULL,\n  lease_key TEXT NOT NULL,\n  owner TEXT NOT NULL,\n"
        "  expires_at INTEGER,\n  heartbeat_at INTEGER,\n  payload_json TEXT,\n  created_at INTEGER NOT NULL,\n"
        "  updated_at INTEGER NOT NULL,\n  PRIMARY KEY (scope, lease_key)\n) STRICT"
    ),
    "idx_state_leases_expiry": (
        "CREATE INDEX idx_state_leases_expiry\n  ON state_leases(expires_at, scope, lease_key)\n"
        "  WHERE expires_at IS NOT NULL"
    ),
    "idx_state_leases_owner": "CREATE INDEX idx_state_leases_owner\n  ON state_leases(owner, updated_at DESC)",
    "mcp_oauth_stores": (
        "CREATE TABLE mcp_oauth_stores (\n  store_key TEXT NOT NULL PRIMARY KEY,\n"
        "  format_version INTEGER NOT NULL CHECK (format_version = 1),\n  store_json TEXT NOT NULL,\n"
        "  updated_at INTEGER NOT NULL\n) STRICT"
    ),
    "mcp_oauth_pending_authorizations": (
        "CREATE TABLE mcp_oauth_pending_authorizations (\n  state TEXT NOT NULL PRIMARY KEY,\n"
        "  store_key TEXT NOT NULL,\n  create_time INTEGER NOT NULL\n) STRICT"
    ),
}


class FrozenClock:
    def __init__(self, now_ms: int = NOW) -> None:
        self.value = now_ms

    def now_ms(self) -> int:
        return self.value


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def schema_sql(db: Path) -> dict[str, str]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL").fetchall()
    return dict(rows)


def lease_rows(db: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT * FROM state_leases ORDER BY scope, lease_key").fetchall()


def insert_row(db: Path, owner: str, created_at: int, expires_at: int) -> None:
    ensure_state_db(db, ()).close()
    with sqlite3.connect(db) as conn:
        conn.execute(REFERENCE_SQL["state_leases"].replace("CREATE TABLE", "CREATE TABLE IF NOT EXISTS", 1))
        conn.execute(
            "INSERT INTO state_leases VALUES ('core:mcp-oauth', 'docs-1', ?, ?, ?, NULL, ?, ?)",
            (owner, expires_at, created_at, created_at, created_at),
        )


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "state-dir" / "state" / "openclaw.sqlite"


# --- The database --------------------------------------------------------------------------------------


async def test_the_first_lease_creates_the_database_owner_only_in_wal_mode(db: Path) -> None:
    with anyio.fail_after(5):
        async with SqliteLeaseStore(db).hold("core:mcp-oauth", "docs-1", duration_ms=60_000, wait_ms=0):
            assert mode(db.parent) == 0o700
            assert mode(db.parent.parent) == 0o700
            assert mode(db) == 0o600
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert conn.execute("PRAGMA user_version").fetchone() == (0,)


async def test_the_database_holds_only_state_leases_with_the_reference_definitions(db: Path) -> None:
    with anyio.fail_after(5):
        async with SqliteLeaseStore(db).hold("core:mcp-oauth", "docs-1", duration_ms=60_000, wait_ms=0):
            pass
    assert schema_sql(db) == {
        name: REFERENCE_SQL[name] for name in ("state_leases", "idx_state_leases_expiry", "idx_state_leases_owner")
    }


async def test_the_oauth_table_definitions_match_the_reference(db: Path) -> None:
    ensure_state_db(db, MCP_OAUTH_STORES_SCHEMA + MCP_OAUTH_PENDING_AUTHORIZATIONS_SCHEMA).close()
    assert schema_sql(db) == {
        name: REFERENCE_SQL[name] for name in ("mcp_oauth_stores", "mcp_oauth_pending_authorizations")
    }


async def test_an_existing_reference_database_keeps_its_schema_meta_and_user_version(db: Path) -> None:
    db.parent.mkdir(parents=True)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA user_version = 18")
        conn.execute("CREATE TABLE schema_meta (meta_key TEXT NOT NULL PRIMARY KEY, schema_version INTEGER)")
        conn.execute("INSERT INTO schema_meta VALUES ('primary', 18)")
    with anyio.fail_after(5):
        async with SqliteLeaseStore(db).hold("core:mcp-oauth", "docs-1", duration_ms=60_000, wait_ms=0):
            pass
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA user_version").fetchone() == (18,)
        assert conn.execute("SELECT * FROM schema_meta").fetchall() == [("primary", 18)]


async def test_a_held_lease_is_one_row_with_the_reference_columns_and_release_deletes_it(db: Path) -> None:
    store = SqliteLeaseStore(db, clock=FrozenClock())
    with anyio.fail_after(5):
        async with store.hold("core:mcp-oauth", "docs-1", duration_ms=60_000, wait_ms=0) as lease:
            assert lease_rows(db) == [("core:mcp-oauth", "docs-1", lease.owner, NOW + 60_000, NOW, None, NOW, NOW)]
    assert lease_rows(db) == []


# --- Other holders -------------------------------------------------------------------------------------


async def test_a_foreign_live_row_blocks_us_and_the_error_names_its_owner_and_epoch(db: Path) -> None:
    insert_row(db, "their-owner", created_at=NOW - 5_000, expires_at=NOW + 55_000)
    store = SqliteLeaseStore(db, clock=FrozenClock())
    with anyio.fail_after(5), pytest.raises(LeaseHeld) as caught:
        async with store.hold("core:mcp-oauth", "docs-1", duration_ms=60_000, wait_ms=100):
            pytest.fail("acquired a held lease")
    assert str(caught.value) == f"state lease core:mcp-oauth/docs-1 is held by their-owner (lease epoch {NOW - 5_000})"
    assert lease_rows(db) == [
        ("core:mcp-oauth", "docs-1", "their-owner", NOW + 55_000, NOW - 5_000, None, NOW - 5_000, NOW - 5_000)
    ]


async def test_a_foreign_expired_row_is_replaced_by_ours(db: Path) -> None:
    insert_row(db, "dead-owner", created_at=NOW - 70_000, expires_at=NOW)
    store = SqliteLeaseStore(db, clock=FrozenClock())
    with anyio.fail_after(5):
        async with store.hold("core:mcp-oauth", "docs-1", duration_ms=60_000, wait_ms=0) as lease:
            assert lease_rows(db) == [("core:mcp-oauth", "docs-1", lease.owner, NOW + 60_000, NOW, None, NOW, NOW)]


HOLDER = textwrap.dedent(
    """
    import sys
    import anyio
    from openclaw_mcp.adapters.sqlite.leases import SqliteLeaseStore

    async def main() -> None:
        store = SqliteLeaseStore(sys.argv[1])
        async with store.hold("core:mcp-oauth", "docs-1", duration_ms=60_000, wait_ms=0) as lease:
            print(lease.owner, flush=True)
            await anyio.to_thread.run_sync(sys.stdin.read)

    anyio.run(main)
    """
)


async def test_a_lease_held_by_another_process_blocks_us_until_it_releases(db: Path) -> None:
    with subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db)],
        cwd=MAIN,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        assert holder.stdout is not None and holder.stdin is not None
        try:
            with anyio.fail_after(5):
                their_owner = (await anyio.to_thread.run_sync(holder.stdout.readline)).strip()
            store = SqliteLeaseStore(db)
            with anyio.fail_after(5), pytest.raises(LeaseHeld, match=f"is held by {their_owner} "):
                async with store.hold("core:mcp-oauth", "docs-1", duration_ms=60_000, wait_ms=200):
                    pytest.fail("acquired a lease held by another process")
            holder.stdin.close()  # the holder leaves its block and releases
            with anyio.fail_after(5):
                async with store.hold("core:mcp-oauth", "docs-1", duration_ms=60_000, wait_ms=4_000) as lease:
                    assert lease_rows(db)[0][2] == lease.owner
                assert await anyio.to_thread.run_sync(holder.wait) == 0
        finally:
            if holder.poll() is None:
                holder.kill()


# --- Storage failures ----------------------------------------------------------------------------------


async def test_a_locked_database_fails_at_once_as_store_unavailable_sqlite_busy(db: Path) -> None:
    ensure_state_db(db, ()).close()
    blocker = sqlite3.connect(db, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")
    try:
        store = SqliteLeaseStore(db, busy_timeout_ms=50)
        with anyio.fail_after(5), pytest.raises(LeaseUnavailable) as caught:
            async with store.hold("core:mcp-oauth", "docs-1", duration_ms=60_000, wait_ms=10_000):
                pytest.fail("acquired a lease in a locked database")
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    assert str(caught.value) == "failed to acquire state lease core:mcp-oauth/docs-1: store unavailable (sqlite-busy)"
    assert caught.value.reason == "sqlite-busy"
    assert isinstance(caught.value.__cause__, sqlite3.OperationalError)


async def test_a_file_that_is_not_a_database_fails_as_store_unavailable_storage_error(db: Path) -> None:
    db.parent.mkdir(parents=True)
    db.write_bytes(b"this is not an SQLite database, not even close" * 100)
    with anyio.fail_after(5), pytest.raises(LeaseUnavailable) as caught:
        async with SqliteLeaseStore(db).hold(
            "core:claw-mcp-lifecycle", "docs", duration_ms=300_000, wait_ms=0, label="Claw MCP lifecycle lease"
        ):
            pytest.fail("acquired a lease in a broken database")
    assert str(caught.value) == (
        "failed to acquire Claw MCP lifecycle lease core:claw-mcp-lifecycle/docs: store unavailable (storage-error)"
    )
    assert isinstance(caught.value.__cause__, sqlite3.DatabaseError)


async def test_an_unusable_state_directory_fails_as_store_unavailable_storage_error(tmp_path: Path) -> None:
    (tmp_path / "state").write_text("a file where the directory should be")
    with anyio.fail_after(5), pytest.raises(LeaseUnavailable, match=r"\(storage-error\)$") as caught:
        async with SqliteLeaseStore(tmp_path / "state" / "openclaw.sqlite").hold(
            "core:mcp-oauth", "docs-1", duration_ms=60_000, wait_ms=0
        ):
            pytest.fail("acquired a lease without a database")
    assert isinstance(caught.value.__cause__, OSError)


async def test_renewals_failing_on_a_locked_database_lose_the_lease_at_its_last_confirmed_expiry(db: Path) -> None:
    store = SqliteLeaseStore(db, busy_timeout_ms=20)
    with anyio.fail_after(5):
        async with store.hold("core:mcp-oauth", "docs-1", duration_ms=600, wait_ms=0) as lease:
            blocker = sqlite3.connect(db, isolation_level=None)
            try:
                blocker.execute("BEGIN IMMEDIATE")
                await lease.wait_lost()  # no renewal can get through: the local expiry timer fires
                blocker.execute("ROLLBACK")
            finally:
                blocker.close()
            with pytest.raises(LeaseLost):
                lease.check()
    assert lease_rows(db) == []  # the release still removed our (expired) row


async def test_release_is_retried_while_the_database_is_briefly_locked(db: Path) -> None:
    ensure_state_db(db, ()).close()
    store = SqliteLeaseStore(db, busy_timeout_ms=20)
    blocker = sqlite3.connect(db, isolation_level=None)
    try:
        with anyio.fail_after(5):
            async with (
                anyio.create_task_group() as tg,
                store.hold("core:mcp-oauth", "docs-1", duration_ms=60_000, wait_ms=0),
            ):
                blocker.execute("BEGIN IMMEDIATE")  # the release below first finds the database locked
                tg.start_soon(_rollback_later, blocker, 0.3)
        assert lease_rows(db) == []
    finally:
        blocker.close()


async def _rollback_later(conn: sqlite3.Connection, delay: float) -> None:
    await anyio.sleep(delay)
    conn.execute("ROLLBACK")


# --- The writers' ownership check ----------------------------------------------------------------------


async def test_the_ownership_check_passes_for_our_live_row_and_raises_lease_lost_otherwise(db: Path) -> None:
    store = SqliteLeaseStore(db, clock=FrozenClock())
    with anyio.fail_after(5):
        async with store.hold("core:mcp-oauth", "docs-1", duration_ms=60_000, wait_ms=0) as lease:
            with sqlite3.connect(db) as conn:
                assert require_lease_owned(conn, lease.identity, NOW) == NOW + 60_000
                with pytest.raises(LeaseLost, match=r"^state lease core:mcp-oauth/docs-1 was lost$"):
                    require_lease_owned(conn, lease.identity, NOW + 60_000)
                conn.execute("UPDATE state_leases SET owner = 'thief'")
                with pytest.raises(LeaseLost):
                    require_lease_owned(conn, lease.identity, NOW)
            with pytest.raises(LeaseLost):
                await lease.verify()
            assert lease.lost
    assert lease_rows(db)[0][2] == "thief"  # our release left the thief's row alone


# --- The shared timing formulas ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("duration_ms", "interval_ms"),
    [(60_000, 20_000), (300_000, 30_000), (600, 250), (1_000, 333), (90_001, 30_000), (750, 250), (3_000, 1_000)],
)
async def test_the_heartbeat_interval_is_a_third_of_the_duration_between_250_ms_and_30_s(
    duration_ms: int, interval_ms: int
) -> None:
    assert heartbeat_interval_ms(duration_ms) == interval_ms


@pytest.mark.parametrize(
    ("attempt", "fraction", "pause_ms"),
    [
        (1, 0.0, 25),
        (1, 0.999, 31),
        (1, 0.5, 28),  # 25 + 3.125 → 28
        (2, 0.0, 38),  # 37.5 rounds half up
        (3, 0.0, 56),  # 56.25
        (4, 0.0, 84),  # 84.375
        (5, 0.0, 127),  # 126.5625
        (6, 0.0, 190),  # 189.84375
        (6, 0.999, 237),
        (7, 0.0, 250),
        (7, 0.999, 250),
        (40, 0.5, 250),
    ],
)
async def test_the_retry_back_off_grows_by_half_with_up_to_a_quarter_of_jitter_capped_at_250_ms(
    attempt: int, fraction: float, pause_ms: int
) -> None:
    assert retry_backoff_ms(attempt, fraction) == pause_ms


async def test_the_two_mcp_leases_use_the_reference_parameters() -> None:
    assert (MCP_OAUTH_LEASE.scope, MCP_OAUTH_LEASE.duration_ms, MCP_OAUTH_LEASE.wait_ms, MCP_OAUTH_LEASE.label) == (
        "core:mcp-oauth",
        60_000,
        30_000,
        "state lease",
    )
    assert (
        MCP_LIFECYCLE_LEASE.scope,
        MCP_LIFECYCLE_LEASE.duration_ms,
        MCP_LIFECYCLE_LEASE.wait_ms,
        MCP_LIFECYCLE_LEASE.label,
    ) == ("core:claw-mcp-lifecycle", 300_000, 600_000, "Claw MCP lifecycle lease")


async def test_ensure_state_db_leaves_an_existing_directory_and_file_owner_only(tmp_path: Path) -> None:
    db = tmp_path / "state" / "openclaw.sqlite"
    db.parent.mkdir(mode=0o755)
    os.chmod(db.parent, 0o755)
    db.touch()
    os.chmod(db, 0o644)
    ensure_state_db(db, ()).close()
    assert (mode(db.parent), mode(db)) == (0o700, 0o600)
