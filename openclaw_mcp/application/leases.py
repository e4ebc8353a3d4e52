"""The one lease algorithm (acquire/retry, heartbeat, local expiry, release) every lease adapter runs over
its :class:`application.ports.leases.LeaseTable`, so all adapters share the exact reference semantics.
"""

from __future__ import annotations

import math
import random
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

import anyio

from openclaw_mcp.application.ports.clock import Clock
from openclaw_mcp.application.ports.leases import (
    MAX_LEASE_MS,
    RELEASE_RETRY_MS,
    Lease,
    LeaseAborted,
    LeaseGranted,
    LeaseHeld,
    LeaseHolder,
    LeaseIdentity,
    LeaseLost,
    LeaseStorageFailure,
    LeaseTable,
    LeaseUnavailable,
    UnavailableReason,
)

__all__ = ["TableLeaseStore", "heartbeat_interval_ms", "retry_backoff_ms"]


def heartbeat_interval_ms(duration_ms: int) -> int:
    """How often a held lease is renewed: ``max(250, min(30000, floor(duration / 3)))``."""
    return max(250, min(30_000, duration_ms // 3))


def retry_backoff_ms(attempt: int, random_fraction: float) -> int:
    """The pause before retry ``attempt`` (1-based): ``min(250, round(b + b·0.25·r))``, ``b = min(250,
    25·1.5^(attempt-1))``, ``r`` in ``[0, 1)``. Rounds halves up, like JavaScript's ``Math.round``."""
    base = min(250.0, 25.0 * 1.5 ** max(attempt - 1, 0))
    return min(250, math.floor(base + base * 0.25 * random_fraction + 0.5))


# --- The algorithm -------------------------------------------------------------------------------------


def _validate(scope: str, key: str, duration_ms: int, wait_ms: int, label: str) -> None:
    for what, text in (("scope", scope), ("key", key), ("label", label)):
        if not text.strip() or "\0" in text:
            raise ValueError(f"{label} {what} must be a non-empty string without NUL bytes")
    for what, number, minimum in (("duration_ms", duration_ms, 1), ("wait_ms", wait_ms, 0)):
        if isinstance(number, bool) or not isinstance(number, int) or not minimum <= number <= MAX_LEASE_MS:
            raise ValueError(f"{label} {what} must be an integer between {minimum} and {MAX_LEASE_MS}")


class _TableLease:
    def __init__(self, table: LeaseTable, clock: Clock, identity: LeaseIdentity, expires_at: int) -> None:
        self._table = table
        self._clock = clock
        self._identity = identity
        self.expires_at = expires_at
        self._lost = anyio.Event()

    @property
    def identity(self) -> LeaseIdentity:
        return self._identity

    @property
    def owner(self) -> str:
        return self._identity.owner

    @property
    def lost(self) -> bool:
        if not self._lost.is_set() and self._clock.now_ms() >= self.expires_at:
            self.mark_lost()
        return self._lost.is_set()

    def mark_lost(self) -> None:
        self._lost.set()

    def check(self) -> None:
        if self.lost:
            raise LeaseLost(self._identity.name)

    async def verify(self) -> None:
        self.check()
        try:
            expires_at = await self._table.expiry(self._identity)
        except LeaseStorageFailure as exc:
            reason: UnavailableReason = "sqlite-busy" if exc.busy else "storage-error"
            raise LeaseUnavailable(f"failed to verify {self._identity.name}", reason) from exc.__cause__
        if expires_at is None:
            self.mark_lost()
        self.check()

    async def wait_lost(self) -> None:
        await self._lost.wait()


class TableLeaseStore:
    """:class:`LeaseStore` over a :class:`LeaseTable` — the reference algorithm (§7.6).

    ``clock`` gives wall-clock epoch ms (the local expiry timer compares it with the confirmed expiry; the
    table takes its own ``now`` for the rows), ``rng`` the jitter fraction in ``[0, 1)``. Wait budgets,
    back-off pauses and heartbeats run on the event loop's monotonic clock.
    """

    def __init__(
        self,
        table: LeaseTable,
        *,
        clock: Clock,
        rng: Callable[[], float] | None = None,
    ) -> None:
        self._table = table
        self._clock = clock
        self._rng: Callable[[], float] = rng if rng is not None else random.random

    def hold(
        self,
        scope: str,
        key: str,
        *,
        duration_ms: int,
        wait_ms: int,
        label: str = "state lease",
        abort: anyio.Event | None = None,
    ) -> AbstractAsyncContextManager[Lease]:
        _validate(scope, key, duration_ms, wait_ms, label)
        identity = LeaseIdentity(scope=scope, key=key, owner=str(uuid.uuid4()), label=label)
        return self._hold(identity, duration_ms, wait_ms, abort)

    @asynccontextmanager
    async def _hold(
        self, identity: LeaseIdentity, duration_ms: int, wait_ms: int, abort: anyio.Event | None
    ) -> AsyncIterator[Lease]:
        expires_at = await self._acquire(identity, duration_ms, wait_ms, abort)
        lease = _TableLease(self._table, self._clock, identity, expires_at)
        body_error: BaseException | None = None
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._heartbeat, lease, duration_ms)
                try:
                    yield lease
                except BaseException as exc:
                    # Re-raised below, outside the task group, so callers see it unchanged (not grouped).
                    body_error = exc
                finally:
                    tg.cancel_scope.cancel()
            if body_error is not None:
                try:
                    raise body_error
                finally:
                    body_error = None  # no frame <-> traceback reference cycle
        finally:
            lease.mark_lost()
            with anyio.CancelScope(shield=True):
                await self._release(identity)

    async def _attempt(self, identity: LeaseIdentity, duration_ms: int) -> LeaseGranted | LeaseHolder:
        try:
            # Shielded: a grant must reach ``_hold`` (which releases it) even if we are being cancelled.
            with anyio.CancelScope(shield=True):
                outcome = await self._table.try_acquire(identity, duration_ms)
        except LeaseStorageFailure as exc:
            reason: UnavailableReason = "sqlite-busy" if exc.busy else "storage-error"
            message = f"failed to acquire {identity.name}: store unavailable ({reason})"
            raise LeaseUnavailable(message, reason) from exc.__cause__
        return outcome

    async def _acquire(self, identity: LeaseIdentity, duration_ms: int, wait_ms: int, abort: anyio.Event | None) -> int:
        started = anyio.current_time()
        deadline = started + wait_ms / 1000

        def aborted() -> LeaseAborted:
            elapsed = max(0, math.floor((anyio.current_time() - started) * 1000 + 0.5))
            return LeaseAborted(identity.name, elapsed)

        attempt = 0
        while True:
            if abort is not None and abort.is_set():
                raise aborted()
            outcome = await self._attempt(identity, duration_ms)
            if isinstance(outcome, LeaseGranted):
                if abort is not None and abort.is_set():
                    with anyio.CancelScope(shield=True):
                        await self._release(identity)
                    raise aborted()
                return outcome.expires_at
            now = anyio.current_time()
            if now >= deadline:
                raise LeaseHeld(identity.name, outcome.owner, outcome.created_at)
            attempt += 1
            pause = min(deadline - now, retry_backoff_ms(attempt, self._rng()) / 1000)
            if abort is None:
                await anyio.sleep(pause)
            else:
                with anyio.move_on_after(pause):
                    await abort.wait()

    async def _heartbeat(self, lease: _TableLease, duration_ms: int) -> None:
        interval = heartbeat_interval_ms(duration_ms) / 1000
        next_renewal = anyio.current_time() + interval
        while not lease.lost:
            until_expiry = (lease.expires_at - self._clock.now_ms()) / 1000
            await anyio.sleep(max(0.0, min(next_renewal - anyio.current_time(), until_expiry)))
            if lease.lost or anyio.current_time() < next_renewal:
                continue
            next_renewal = anyio.current_time() + interval
            try:
                with anyio.CancelScope(shield=True):
                    renewed = await self._table.renew(lease.identity, duration_ms)
            except LeaseStorageFailure:
                continue  # transient: the local expiry timer decides if renewals keep failing
            if renewed is None:
                lease.mark_lost()
            else:
                lease.expires_at = renewed

    async def _release(self, identity: LeaseIdentity) -> None:
        deadline = anyio.current_time() + RELEASE_RETRY_MS / 1000
        attempt = 0
        while True:
            try:
                await self._table.release(identity)
                return
            except LeaseStorageFailure as exc:
                now = anyio.current_time()
                if not exc.busy or now >= deadline:
                    return  # best effort: the row expires on its own
                attempt += 1
                await anyio.sleep(min(deadline - now, retry_backoff_ms(attempt, self._rng()) / 1000))
