"""Contract of the ``OAuthCredentialStore`` port (spec cli-registry §7.2–§7.7, §7.10): must pass for every
implementation.

Each factory yields a :class:`Harness`: the store, the lease store its writers hold leases from, one frozen
wall clock both run on, and two back doors a real deployment has through other processes — ``steal`` (the
lease row disappears, as when another process took over an expired lease) and ``plant`` (a row written by
someone else, possibly corrupt).
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.memory.leases import InMemoryLeaseStore
from openclaw_mcp.adapters.memory.oauth_status import InMemoryOAuthStore
from openclaw_mcp.adapters.sqlite.leases import SqliteLeaseStore
from openclaw_mcp.adapters.sqlite.oauth_store import SqliteOAuthCredentialStore
from openclaw_mcp.application.errors import OAuthStoreError
from openclaw_mcp.application.ports.leases import MCP_LIFECYCLE_LEASE, MCP_OAUTH_LEASE, Lease, LeaseLost, LeaseStore
from openclaw_mcp.application.ports.oauth import OAuthCredentialStore
from openclaw_mcp.domain.oauth_store import authorization_challenge, complete_authorization, set_tokens
from openclaw_mcp.jscompat.jsjson import js_dumps

pytestmark = pytest.mark.asyncio

EPOCH = 1_795_958_909_814
KEY = "docs-9cb3522dd977d04a"
OTHER = "wiki-0123456789abcdef"
TOKENS = {"access_token": "at-1", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "rt-1"}
TTL = 600_000


class FrozenClock:
    def __init__(self, now_ms: int = EPOCH) -> None:
        self.value = now_ms

    def now_ms(self) -> int:
        return self.value


@dataclass
class Harness:
    store: OAuthCredentialStore
    leases: LeaseStore
    clock: FrozenClock
    steal: Callable[[Lease], None]
    plant: Callable[[str, Any], None]


HarnessFactory = Callable[[Path], AbstractAsyncContextManager[Harness]]


@asynccontextmanager
async def memory_harness(tmp_path: Path) -> AsyncIterator[Harness]:
    clock = FrozenClock()
    leases = InMemoryLeaseStore(clock=clock)
    store = InMemoryOAuthStore(leases=leases, clock=clock)

    def steal(lease: Lease) -> None:
        del leases.rows.rows[(lease.identity.scope, lease.identity.key)]

    def plant(key: str, value: Any) -> None:
        store.stores[key] = value

    yield Harness(store, leases, clock, steal, plant)


@asynccontextmanager
async def sqlite_harness(tmp_path: Path) -> AsyncIterator[Harness]:
    db = tmp_path / "state" / "openclaw.sqlite"  # the directory does not exist yet
    clock = FrozenClock()
    leases = SqliteLeaseStore(db, clock=clock)
    store = SqliteOAuthCredentialStore(db, leases, clock=clock)

    def other_process(sql: str, params: tuple[Any, ...]) -> None:
        conn = sqlite3.connect(db)
        try:
            with conn:
                conn.execute(sql, params)
        finally:
            conn.close()

    def steal(lease: Lease) -> None:
        other_process(
            "DELETE FROM state_leases WHERE scope = ? AND lease_key = ?", (lease.identity.scope, lease.identity.key)
        )

    def plant(key: str, value: Any) -> None:
        db.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(db)
        try:
            with conn:
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS mcp_oauth_stores (store_key TEXT NOT NULL PRIMARY KEY,"
                    " format_version INTEGER NOT NULL CHECK (format_version = 1), store_json TEXT NOT NULL,"
                    " updated_at INTEGER NOT NULL) STRICT"
                )
                text = value if isinstance(value, str) else js_dumps(value, indent=None)
                conn.execute(
                    "INSERT INTO mcp_oauth_stores VALUES (?, 1, ?, 0) ON CONFLICT (store_key) DO UPDATE SET"
                    " store_json = excluded.store_json",
                    (key, text),
                )
        finally:
            conn.close()

    yield Harness(store, leases, clock, steal, plant)


@pytest.fixture(params=[pytest.param(memory_harness, id="memory"), pytest.param(sqlite_harness, id="sqlite")])
def harness_factory(request: pytest.FixtureRequest) -> HarnessFactory:
    factory: HarnessFactory = request.param
    return factory


def hold(leases: LeaseStore, key: str, scope: str = MCP_OAUTH_LEASE.scope) -> AbstractAsyncContextManager[Lease]:
    return leases.hold(scope, key, duration_ms=MCP_OAUTH_LEASE.duration_ms, wait_ms=0)


def logged_in(store: dict[str, Any]) -> dict[str, Any]:
    return set_tokens(store, TOKENS, EPOCH)


# --- stores --------------------------------------------------------------------------------------------


async def test_a_missing_store_reads_as_an_empty_object(harness_factory: HarnessFactory, tmp_path: Path) -> None:
    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h:
            assert await h.store.read(KEY) == {}
            assert await h.store.keys_with_prefix("") == []
            assert await h.store.read_pending("state-1") is None


async def test_an_update_is_read_back_with_its_key_order(harness_factory: HarnessFactory, tmp_path: Path) -> None:
    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h:
            async with hold(h.leases, KEY) as lease:
                first = await h.store.update(lease, KEY, lambda s: {**s, "redirectUrl": "http://127.0.0.1:1/cb"})
                second = await h.store.update(lease, KEY, logged_in)
            assert first == {"redirectUrl": "http://127.0.0.1:1/cb"}
            expected = {"redirectUrl": "http://127.0.0.1:1/cb", "tokens": TOKENS, "tokenExpiresAt": EPOCH + 3_600_000}
            assert second == expected
            stored = await h.store.read(KEY)
            assert stored == expected
            assert list(stored) == ["redirectUrl", "tokens", "tokenExpiresAt"]
            assert await h.store.read(OTHER) == {}


async def test_the_change_gets_a_copy_of_the_current_store(harness_factory: HarnessFactory, tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []

    def spy(store: dict[str, Any]) -> None:
        seen.append(store)
        store["tokens"] = "scribbled"  # mutating the argument must not leak into the store

    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h:
            async with hold(h.leases, KEY) as lease:
                await h.store.update(lease, KEY, logged_in)
                assert await h.store.update(lease, KEY, spy) == logged_in({})
            assert seen[0]["tokens"] == "scribbled"
            assert await h.store.read(KEY) == logged_in({})


async def test_no_change_writes_nothing_and_returns_the_current_store(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    rejected = functools.partial(authorization_challenge, requires_authorization=True, rejected_access_token="old")
    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h:
            async with hold(h.leases, KEY) as lease:
                assert await h.store.update(lease, KEY, lambda _: None) == {}
                await h.store.update(lease, KEY, logged_in)
                assert await h.store.update(lease, KEY, rejected) == logged_in({})
            assert await h.store.read(KEY) == logged_in({})
            assert await h.store.keys_with_prefix("") == [KEY]


async def test_an_invalid_new_store_is_refused_and_nothing_is_written(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h:
            async with hold(h.leases, KEY) as lease:
                await h.store.update(lease, KEY, complete_authorization)
                message = f"^MCP OAuth store {KEY} is invalid: credentialState cannot coexist with tokens$"
                with pytest.raises(OAuthStoreError, match=message):
                    await h.store.update(lease, KEY, lambda s: {"credentialState": "cleared", "tokens": TOKENS})
                with pytest.raises(OAuthStoreError, match=f"^MCP OAuth store {KEY} is invalid: tokens are invalid$"):
                    await h.store.update(lease, KEY, lambda s: {"tokens": {"access_token": "at"}})
            assert await h.store.read(KEY) == {}


async def test_a_lease_for_another_store_or_scope_is_refused(harness_factory: HarnessFactory, tmp_path: Path) -> None:
    message = "^MCP OAuth mutation requires its exact store lease$"
    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h:
            async with hold(h.leases, OTHER) as other, hold(h.leases, KEY, MCP_LIFECYCLE_LEASE.scope) as lifecycle:
                for lease in (other, lifecycle):
                    with pytest.raises(OAuthStoreError, match=message):
                        await h.store.update(lease, KEY, logged_in)
                    with pytest.raises(OAuthStoreError, match=message):
                        await h.store.write_pending(lease, KEY, "state-1")
                    with pytest.raises(OAuthStoreError, match=message):
                        await h.store.consume_pending(lease, KEY, "state-1")
                    with pytest.raises(OAuthStoreError, match=message):
                        await h.store.delete_pending(lease, KEY)
            assert await h.store.read(KEY) == {}
            assert await h.store.read_pending("state-1") is None


async def test_a_lease_taken_away_fails_the_write_with_lease_lost(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h:
            async with hold(h.leases, KEY) as lease:
                await h.store.write_pending(lease, KEY, "state-1")
                h.steal(lease)
                name = f"^state lease core:mcp-oauth/{KEY} was lost$"
                with pytest.raises(LeaseLost, match=name):
                    await h.store.update(lease, KEY, logged_in)
                with pytest.raises(LeaseLost, match=name):
                    await h.store.write_pending(lease, KEY, "state-2")
                with pytest.raises(LeaseLost, match=name):
                    await h.store.consume_pending(lease, KEY, "state-1")
                with pytest.raises(LeaseLost, match=name):
                    await h.store.delete_pending(lease, KEY)
            assert await h.store.read(KEY) == {}
            assert await h.store.read_pending("state-1") == KEY
            assert await h.store.read_pending("state-2") is None


async def test_an_expired_lease_fails_the_write_with_lease_lost(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h:
            async with hold(h.leases, KEY) as lease:
                h.clock.value += MCP_OAUTH_LEASE.duration_ms
                with pytest.raises(LeaseLost):
                    await h.store.update(lease, KEY, logged_in)
            assert await h.store.read(KEY) == {}


async def test_a_write_after_the_lease_block_fails_with_lease_lost(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h:
            async with hold(h.leases, KEY) as lease:
                pass
            with pytest.raises(LeaseLost):
                await h.store.update(lease, KEY, logged_in)
            assert await h.store.read(KEY) == {}


async def test_clear_keeps_a_cleared_row_and_drops_only_this_stores_pending_rows(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h:
            async with hold(h.leases, KEY) as lease:
                await h.store.update(lease, KEY, logged_in)
                await h.store.write_pending(lease, KEY, "mine")
            async with hold(h.leases, OTHER) as lease:
                await h.store.write_pending(lease, OTHER, "theirs")
            await h.store.clear(KEY)
            assert await h.store.read(KEY) == {"credentialState": "cleared"}
            assert await h.store.read_pending("mine") is None
            assert await h.store.read_pending("theirs") == OTHER
            await h.store.clear(OTHER + "-r-1")  # a store that never existed gets a cleared row too
            assert await h.store.read(OTHER + "-r-1") == {"credentialState": "cleared"}


async def test_clear_waits_for_the_lease_of_another_holder(harness_factory: HarnessFactory, tmp_path: Path) -> None:
    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h:
            order: list[str] = []
            async with anyio.create_task_group() as tg:
                held = anyio.Event()

                async def holder() -> None:
                    async with hold(h.leases, KEY) as lease:
                        held.set()
                        await anyio.sleep(0.1)
                        await h.store.update(lease, KEY, logged_in)
                        order.append("updated")

                tg.start_soon(holder)
                await held.wait()
                await h.store.clear(KEY)
                order.append("cleared")
            assert order == ["updated", "cleared"]
            assert await h.store.read(KEY) == {"credentialState": "cleared"}


async def test_keys_with_a_prefix_are_listed_in_key_order(harness_factory: HarnessFactory, tmp_path: Path) -> None:
    keys = [f"{KEY}-r-b", f"{KEY}-r-a", KEY, f"{KEY}-R-c", OTHER, f"{KEY}-r-B"]
    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h:
            for key in keys:
                await h.store.clear(key)
            assert await h.store.keys_with_prefix(f"{KEY}-r-") == [f"{KEY}-r-B", f"{KEY}-r-a", f"{KEY}-r-b"]
            assert await h.store.keys_with_prefix(KEY) == sorted(k for k in keys if k != OTHER)
            assert await h.store.keys_with_prefix("nothing") == []


# --- corrupt rows --------------------------------------------------------------------------------------


async def test_a_corrupt_row_fails_reads_and_updates_with_its_detail(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    message = f"^MCP OAuth store {KEY} is invalid: credentialState is invalid$"
    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h:
            h.plant(KEY, {"credentialState": "logged-out"})
            with pytest.raises(OAuthStoreError, match=message):
                await h.store.read(KEY)
            async with hold(h.leases, KEY) as lease:
                with pytest.raises(OAuthStoreError, match=message):
                    await h.store.update(lease, KEY, logged_in)
            await h.store.clear(KEY)  # logout repairs it
            assert await h.store.read(KEY) == {"credentialState": "cleared"}


async def test_unknown_fields_survive_reads_and_writes(harness_factory: HarnessFactory, tmp_path: Path) -> None:
    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h:
            h.plant(KEY, {"future": {"x": [1, 2.5, None]}, "clientInformation": {"client_id": "c", "extra": True}})
            async with hold(h.leases, KEY) as lease:
                after = await h.store.update(lease, KEY, logged_in)
            assert after == await h.store.read(KEY)
            assert list(after) == ["future", "clientInformation", "tokens", "tokenExpiresAt"]
            assert after["future"] == {"x": [1, 2.5, None]}
            assert after["clientInformation"] == {"client_id": "c", "extra": True}


# --- pending authorizations ----------------------------------------------------------------------------


async def test_pending_authorizations_are_written_read_and_consumed_once(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h, hold(h.leases, KEY) as lease:
            await h.store.write_pending(lease, KEY, "state-1")
            assert await h.store.read_pending("state-1") == KEY
            await h.store.write_pending(lease, KEY, "state-2")  # replaces this store's earlier state
            assert await h.store.read_pending("state-1") is None
            assert await h.store.consume_pending(lease, KEY, "state-1") is False
            assert await h.store.consume_pending(lease, KEY, "state-2") is True
            assert await h.store.consume_pending(lease, KEY, "state-2") is False
            assert await h.store.read_pending("state-2") is None


async def test_a_pending_state_is_consumed_only_by_its_own_store(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h:
            async with hold(h.leases, KEY) as lease:
                await h.store.write_pending(lease, KEY, "state-1")
            async with hold(h.leases, OTHER) as lease:
                assert await h.store.consume_pending(lease, OTHER, "state-1") is False
                await h.store.delete_pending(lease, OTHER)
            assert await h.store.read_pending("state-1") == KEY
            async with hold(h.leases, KEY) as lease:
                await h.store.delete_pending(lease, KEY)
            assert await h.store.read_pending("state-1") is None


async def test_pending_states_expire_after_ten_minutes(harness_factory: HarnessFactory, tmp_path: Path) -> None:
    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h:
            async with hold(h.leases, KEY) as lease:
                await h.store.write_pending(lease, KEY, "state-1")
            h.clock.value = EPOCH + TTL - 1
            assert await h.store.read_pending("state-1") == KEY
            h.clock.value = EPOCH + TTL
            assert await h.store.read_pending("state-1") is None
            async with hold(h.leases, KEY) as lease:
                assert await h.store.consume_pending(lease, KEY, "state-1") is False
            h.clock.value = EPOCH  # the expired row was not deleted by the failed claim …
            assert await h.store.read_pending("state-1") == KEY


async def test_writing_a_pending_state_purges_every_stores_expired_rows(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h:
            async with hold(h.leases, OTHER) as lease:
                await h.store.write_pending(lease, OTHER, "old")
            h.clock.value = EPOCH + 1
            async with hold(h.leases, f"{OTHER}-r-1") as lease:
                await h.store.write_pending(lease, f"{OTHER}-r-1", "recent")
            h.clock.value = EPOCH + TTL
            async with hold(h.leases, KEY) as lease:
                await h.store.write_pending(lease, KEY, "new")
            h.clock.value = EPOCH + 1  # look back: only the row expired at the write is gone
            assert await h.store.read_pending("old") is None
            assert await h.store.read_pending("recent") == f"{OTHER}-r-1"
            h.clock.value = EPOCH + TTL
            assert await h.store.read_pending("new") == KEY


async def test_pending_rows_are_deleted_by_prefix_with_like_semantics(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    keys = [f"{KEY}-r-1", f"{KEY}-R-2", f"{KEY}xr-3", KEY, OTHER]
    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h:
            await h.store.delete_pending_prefix(f"{KEY}-r-")  # nothing there yet: no error
            for index, key in enumerate(keys):
                async with hold(h.leases, key) as lease:
                    await h.store.write_pending(lease, key, f"state-{index}")
            await h.store.delete_pending_prefix(f"{KEY}-r-")
            remaining = [await h.store.read_pending(f"state-{i}") for i in range(len(keys))]
            assert remaining == [None, None, f"{KEY}xr-3", KEY, OTHER]  # LIKE ignores ASCII case
            await h.store.delete_pending_prefix(f"{KEY}_r")  # "_" matches any one character
            assert await h.store.read_pending("state-2") is None
            assert await h.store.read_pending("state-3") == KEY


async def test_a_state_still_pending_for_another_store_is_refused_and_nothing_changes(
    harness_factory: HarnessFactory, tmp_path: Path
) -> None:
    with anyio.fail_after(5):
        async with harness_factory(tmp_path) as h:
            async with hold(h.leases, OTHER) as lease:
                await h.store.write_pending(lease, OTHER, "shared")
            async with hold(h.leases, KEY) as lease:
                await h.store.write_pending(lease, KEY, "mine")
                with pytest.raises(OAuthStoreError, match=r"^MCP OAuth store unavailable: UNIQUE constraint failed"):
                    await h.store.write_pending(lease, KEY, "shared")
            assert await h.store.read_pending("mine") == KEY  # rolled back: this store's row survives
            assert await h.store.read_pending("shared") == OTHER
