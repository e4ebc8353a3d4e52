"""Contract of the ``LeaseStore`` port: must pass for every implementation.

Each factory yields a ``make_store(clock)`` building stores that share one backing table, the way several
processes share one state database; each store may run on its own wall clock.
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

import anyio
import anyio.abc
import pytest

from openclaw_mcp.adapters.memory.leases import InMemoryLeaseRows, InMemoryLeaseStore
from openclaw_mcp.adapters.sqlite.leases import SqliteLeaseStore
from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.application.ports.clock import Clock
from openclaw_mcp.application.ports.leases import Lease, LeaseAborted, LeaseError, LeaseHeld, LeaseLost, LeaseStore

pytestmark = pytest.mark.asyncio

MakeStore = Callable[[Clock | None], LeaseStore]
LeaseStoreFactory = Callable[[Path], AbstractAsyncContextManager[MakeStore]]

EPOCH = 1_767_225_600_000  # 2026-01-01T00:00:00Z
UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"


class FrozenClock:
    """A wall clock that never moves: rows get exact, predictable timestamps and never expire by time."""

    def __init__(self, now_ms: int = EPOCH) -> None:
        self.value = now_ms

    def now_ms(self) -> int:
        return self.value


class SkewedClock:
    """The real wall clock shifted by ``offset_ms`` (a holder whose rows are stale for everyone else)."""

    def __init__(self, offset_ms: int) -> None:
        self.offset_ms = offset_ms

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000 + self.offset_ms


@asynccontextmanager
async def memory_leases(tmp_path: Path) -> AsyncIterator[MakeStore]:
    rows = InMemoryLeaseRows()
    yield lambda clock: InMemoryLeaseStore(rows, clock=clock)


@asynccontextmanager
async def sqlite_leases(tmp_path: Path) -> AsyncIterator[MakeStore]:
    db_path = tmp_path / "state" / "state" / "openclaw.sqlite"  # directories do not exist yet
    yield lambda clock: SqliteLeaseStore(db_path, clock=clock)


@pytest.fixture(params=[pytest.param(memory_leases, id="memory"), pytest.param(sqlite_leases, id="sqlite")])
def lease_store_factory(request: pytest.FixtureRequest) -> LeaseStoreFactory:
    factory: LeaseStoreFactory = request.param
    return factory


async def assert_held_by(store: LeaseStore, owner: str, *, scope: str = "test:scope", key: str = "k") -> None:
    with pytest.raises(LeaseHeld) as caught:
        async with store.hold(scope, key, duration_ms=60_000, wait_ms=0):
            pytest.fail("acquired a lease that another owner holds")
    assert caught.value.owner == owner


async def assert_free(store: LeaseStore, *, scope: str = "test:scope", key: str = "k") -> None:
    async with store.hold(scope, key, duration_ms=60_000, wait_ms=0) as lease:
        assert not lease.lost


async def test_a_held_lease_excludes_every_other_holder(lease_store_factory: LeaseStoreFactory, tmp_path: Path) -> None:
    clock = FrozenClock()
    async with lease_store_factory(tmp_path) as make_store:
        first, second = make_store(clock), make_store(clock)
        with anyio.fail_after(5):
            async with first.hold("test:scope", "k", duration_ms=60_000, wait_ms=0) as lease:
                assert re.fullmatch(UUID, lease.owner)
                assert (lease.identity.scope, lease.identity.key, lease.identity.owner) == (
                    "test:scope",
                    "k",
                    lease.owner,
                )
                await assert_held_by(second, lease.owner)
                await assert_held_by(first, lease.owner)  # not re-entrant either
                lease.check()
                await lease.verify()
            await assert_free(second)


async def test_the_wait_budget_running_out_raises_lease_held_naming_the_holder_and_its_epoch(
    lease_store_factory: LeaseStoreFactory, tmp_path: Path
) -> None:
    clock = FrozenClock()
    async with lease_store_factory(tmp_path) as make_store:
        holder, waiter = make_store(clock), make_store(clock)
        with anyio.fail_after(5):
            async with holder.hold(
                "core:claw-mcp-lifecycle", "docs", duration_ms=300_000, wait_ms=0, label="Claw MCP lifecycle lease"
            ) as lease:
                with pytest.raises(LeaseHeld) as caught:
                    async with waiter.hold(
                        "core:claw-mcp-lifecycle",
                        "docs",
                        duration_ms=300_000,
                        wait_ms=300,
                        label="Claw MCP lifecycle lease",
                    ):
                        pytest.fail("acquired a held lease")
                async with holder.hold("core:mcp-oauth", "docs", duration_ms=60_000, wait_ms=0) as oauth_lease:
                    with pytest.raises(LeaseHeld) as default_label:
                        async with waiter.hold("core:mcp-oauth", "docs", duration_ms=60_000, wait_ms=0):
                            pass
    assert str(caught.value) == (
        f"Claw MCP lifecycle lease core:claw-mcp-lifecycle/docs is held by {lease.owner} (lease epoch {EPOCH})"
    )
    assert (caught.value.owner, caught.value.epoch) == (lease.owner, EPOCH)
    assert isinstance(caught.value, LeaseError)
    assert isinstance(caught.value, ApplicationError)
    assert str(default_label.value) == (
        f"state lease core:mcp-oauth/docs is held by {oauth_lease.owner} (lease epoch {EPOCH})"
    )


async def test_a_waiting_holder_acquires_once_the_lease_is_released(
    lease_store_factory: LeaseStoreFactory, tmp_path: Path
) -> None:
    events: list[str] = []
    async with lease_store_factory(tmp_path) as make_store:
        first, second = make_store(None), make_store(None)

        async def wait_for_it(task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
            task_status.started()
            async with second.hold("test:scope", "k", duration_ms=60_000, wait_ms=4_000):
                events.append("second acquired")

        with anyio.fail_after(5):
            async with (
                anyio.create_task_group() as tg,
                first.hold("test:scope", "k", duration_ms=60_000, wait_ms=0),
            ):
                events.append("first acquired")
                await tg.start(wait_for_it)
                await anyio.sleep(0.3)  # let the waiter retry a few times against the held lease
                events.append("first releasing")
    assert events == ["first acquired", "first releasing", "second acquired"]


async def test_distinct_keys_and_scopes_are_independent_leases(
    lease_store_factory: LeaseStoreFactory, tmp_path: Path
) -> None:
    async with lease_store_factory(tmp_path) as make_store:
        first, second = make_store(None), make_store(None)
        with anyio.fail_after(5):
            async with first.hold("test:scope", "k", duration_ms=60_000, wait_ms=0) as lease:
                await assert_free(second, key="other")
                await assert_free(second, scope="test:other")
                await assert_held_by(second, lease.owner)


async def test_every_acquisition_gets_a_fresh_owner(lease_store_factory: LeaseStoreFactory, tmp_path: Path) -> None:
    async with lease_store_factory(tmp_path) as make_store:
        store = make_store(None)
        with anyio.fail_after(5):
            async with store.hold("test:scope", "k", duration_ms=60_000, wait_ms=0) as one:
                pass
            async with store.hold("test:scope", "k", duration_ms=60_000, wait_ms=0) as two:
                pass
    assert one.owner != two.owner


async def test_an_expired_lease_is_taken_over_at_once(lease_store_factory: LeaseStoreFactory, tmp_path: Path) -> None:
    async with lease_store_factory(tmp_path) as make_store:
        # The stale holder's rows expired ten minutes ago as far as everyone else is concerned.
        stale, fresh = make_store(SkewedClock(-600_000)), make_store(None)
        with anyio.fail_after(5):
            async with (
                stale.hold("test:scope", "k", duration_ms=60_000, wait_ms=0),
                fresh.hold("test:scope", "k", duration_ms=60_000, wait_ms=0) as lease,
            ):
                assert not lease.lost


async def test_a_holder_whose_row_was_taken_over_loses_the_lease_and_check_raises(
    lease_store_factory: LeaseStoreFactory, tmp_path: Path
) -> None:
    async with lease_store_factory(tmp_path) as make_store:
        stale, fresh = make_store(SkewedClock(-600_000)), make_store(None)
        with anyio.fail_after(5):
            async with (
                stale.hold("test:scope", "k", duration_ms=1_000, wait_ms=0) as old,
                fresh.hold("test:scope", "k", duration_ms=60_000, wait_ms=0),
            ):
                await old.wait_lost()  # its next renewal finds the row replaced
                assert old.lost
                with pytest.raises(LeaseLost) as caught:
                    old.check()
                with pytest.raises(LeaseLost):
                    await old.verify()
    assert str(caught.value) == "state lease test:scope/k was lost"
    assert isinstance(caught.value, LeaseError)


async def test_release_deletes_only_our_own_row(lease_store_factory: LeaseStoreFactory, tmp_path: Path) -> None:
    async with lease_store_factory(tmp_path) as make_store:
        stale, fresh, third = make_store(SkewedClock(-600_000)), make_store(None), make_store(None)
        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                old, let_old_go = await tg.start(hold_until_told, stale)
                successor, let_successor_go = await tg.start(hold_until_told, fresh)
                let_old_go.set()
                await old.wait_lost()
                await anyio.sleep(0.1)  # the old holder's block exits and releases
                await assert_held_by(third, successor.owner)
                await successor.verify()
                let_successor_go.set()
            await assert_free(third)


async def hold_until_told(
    store: LeaseStore, *, task_status: anyio.abc.TaskStatus[tuple[Lease, anyio.Event]] = anyio.TASK_STATUS_IGNORED
) -> None:
    done = anyio.Event()
    async with store.hold("test:scope", "k", duration_ms=60_000, wait_ms=0) as lease:
        task_status.started((lease, done))
        await done.wait()


async def test_an_exception_in_the_block_propagates_unchanged_and_releases(
    lease_store_factory: LeaseStoreFactory, tmp_path: Path
) -> None:
    async with lease_store_factory(tmp_path) as make_store:
        first, second = make_store(None), make_store(None)
        with anyio.fail_after(5):
            with pytest.raises(KeyError, match="boom"):
                async with first.hold("test:scope", "k", duration_ms=60_000, wait_ms=0):
                    raise KeyError("boom")
            await assert_free(second)


async def test_cancellation_inside_the_block_releases_the_lease(
    lease_store_factory: LeaseStoreFactory, tmp_path: Path
) -> None:
    async with lease_store_factory(tmp_path) as make_store:
        first, second = make_store(None), make_store(None)
        acquired = anyio.Event()

        async def hold_forever() -> None:
            async with first.hold("test:scope", "k", duration_ms=60_000, wait_ms=0):
                acquired.set()
                await anyio.sleep_forever()

        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                tg.start_soon(hold_forever)
                await acquired.wait()
                tg.cancel_scope.cancel()
            await assert_free(second)


async def test_cancelling_a_waiting_acquisition_leaves_the_holder_alone_and_no_row_behind(
    lease_store_factory: LeaseStoreFactory, tmp_path: Path
) -> None:
    async with lease_store_factory(tmp_path) as make_store:
        first, second, third = make_store(None), make_store(None), make_store(None)
        with anyio.fail_after(5):
            async with first.hold("test:scope", "k", duration_ms=60_000, wait_ms=0) as lease:
                with anyio.move_on_after(0.3) as waiting:
                    async with second.hold("test:scope", "k", duration_ms=60_000, wait_ms=4_000):
                        pytest.fail("acquired a held lease")
                assert waiting.cancelled_caught
                await assert_held_by(third, lease.owner)
                await lease.verify()
            await assert_free(third)


async def test_setting_the_abort_event_stops_a_waiting_acquisition(
    lease_store_factory: LeaseStoreFactory, tmp_path: Path
) -> None:
    async with lease_store_factory(tmp_path) as make_store:
        first, second = make_store(None), make_store(None)
        abort = anyio.Event()
        with anyio.fail_after(5):
            async with first.hold("test:scope", "k", duration_ms=60_000, wait_ms=0) as lease:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(_set_later, abort, 0.2)
                    with pytest.raises(LeaseAborted) as caught:
                        async with second.hold("test:scope", "k", duration_ms=60_000, wait_ms=4_000, abort=abort):
                            pytest.fail("acquired a held lease")
                lease.check()
    assert re.fullmatch(
        r"state lease test:scope/k acquisition was aborted after \d+ ms by caller signal", str(caught.value)
    )


async def _set_later(event: anyio.Event, delay: float) -> None:
    await anyio.sleep(delay)
    event.set()


async def test_the_heartbeat_keeps_a_hold_longer_than_its_duration_alive(
    lease_store_factory: LeaseStoreFactory, tmp_path: Path
) -> None:
    async with lease_store_factory(tmp_path) as make_store:
        holder, other = make_store(None), make_store(None)
        with anyio.fail_after(5):
            async with holder.hold("test:scope", "k", duration_ms=600, wait_ms=0) as lease:
                for _ in range(6):  # ~1.5 s, 2.5 times the duration
                    await anyio.sleep(0.25)
                    await assert_held_by(other, lease.owner)
                assert not lease.lost
                lease.check()
                await lease.verify()
            await assert_free(other)


async def test_a_lease_whose_confirmed_expiry_passes_without_renewal_is_lost(
    lease_store_factory: LeaseStoreFactory, tmp_path: Path
) -> None:
    clock = FrozenClock()
    async with lease_store_factory(tmp_path) as make_store:
        holder, other = make_store(clock), make_store(clock)
        with anyio.fail_after(5):
            async with holder.hold("test:scope", "k", duration_ms=60_000, wait_ms=0) as lease:
                clock.value += 60_000  # the wall clock jumps past the expiry before any renewal ran
                assert lease.lost
                with pytest.raises(LeaseLost):
                    lease.check()
                await lease.wait_lost()
                await assert_free(other)


async def test_a_lease_is_lost_once_its_block_has_exited(
    lease_store_factory: LeaseStoreFactory, tmp_path: Path
) -> None:
    async with lease_store_factory(tmp_path) as make_store:
        store = make_store(None)
        with anyio.fail_after(5):
            async with store.hold("test:scope", "k", duration_ms=60_000, wait_ms=0) as lease:
                assert not lease.lost
            assert lease.lost
            with pytest.raises(LeaseLost):
                lease.check()
            await lease.wait_lost()


@pytest.mark.parametrize(
    ("scope", "key", "duration_ms", "wait_ms"),
    [("", "k", 1_000, 0), ("s", " ", 1_000, 0), ("s", "a\0b", 1_000, 0), ("s", "k", 0, 0), ("s", "k", 1_000, -1)],
)
async def test_invalid_lease_parameters_are_refused_before_touching_the_store(
    lease_store_factory: LeaseStoreFactory, tmp_path: Path, scope: str, key: str, duration_ms: int, wait_ms: int
) -> None:
    async with lease_store_factory(tmp_path) as make_store:
        with pytest.raises(ValueError, match="must be"):
            make_store(None).hold(scope, key, duration_ms=duration_ms, wait_ms=wait_ms)
