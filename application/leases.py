"""Cross-process leases of the OpenClaw state database (spec cli-registry §7.6, §1.5.1).

A lease is a row of the shared ``state_leases`` table: whoever inserted the row for ``(scope, key)`` owns it
until it releases it or the row expires. This module holds

- the port (:class:`LeaseStore`, :class:`Lease`) and its error family (:class:`LeaseError`);
- the storage seam the adapters implement (:class:`LeaseTable`: one atomic step per call);
- :class:`TableLeaseStore`, the one lease algorithm (acquire/retry, heartbeat, local expiry, release) every
  adapter runs over its table, so all adapters share the exact reference semantics.
"""

from __future__ import annotations

import math
import random
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import Literal, Protocol

import anyio

from application.errors import ApplicationError
from application.ports import Clock

__all__ = [
    "MAX_LEASE_MS",
    "MCP_LIFECYCLE_LEASE",
    "MCP_OAUTH_LEASE",
    "RELEASE_RETRY_MS",
    "Lease",
    "LeaseAborted",
    "LeaseError",
    "LeaseGranted",
    "LeaseHeld",
    "LeaseHolder",
    "LeaseIdentity",
    "LeaseLost",
    "LeasePolicy",
    "LeaseStorageFailure",
    "LeaseStore",
    "LeaseTable",
    "LeaseUnavailable",
    "SystemClock",
    "TableLeaseStore",
    "heartbeat_interval_ms",
    "retry_backoff_ms",
]

MAX_LEASE_MS = 2_147_483_647
"""Upper bound of ``duration_ms`` and ``wait_ms`` (the reference's maximum timer delay)."""

RELEASE_RETRY_MS = 2_000
"""How long a release keeps retrying while the store is busy (best effort)."""

UnavailableReason = Literal["sqlite-busy", "storage-error"]


# --- Errors --------------------------------------------------------------------------------------------


class LeaseError(ApplicationError):
    """Base of every error a :class:`LeaseStore` or :class:`Lease` raises."""


class LeaseHeld(LeaseError):
    """The wait budget ran out while another owner held the lease.

    Message: ``<label> <scope>/<key> is held by <owner> (lease epoch <created_at>)``.
    """

    def __init__(self, name: str, owner: str, epoch: int) -> None:
        super().__init__(f"{name} is held by {owner} (lease epoch {epoch})")
        self.owner = owner
        self.epoch = epoch


class LeaseUnavailable(LeaseError):
    """The store could not be used (locked, unreadable, not a database, …).

    Acquisition message: ``failed to acquire <label> <scope>/<key>: store unavailable (<reason>)`` with
    reason ``sqlite-busy`` (busy/locked) or ``storage-error`` (anything else). ``__cause__`` is the storage
    library's exception.
    """

    def __init__(self, message: str, reason: UnavailableReason) -> None:
        super().__init__(message)
        self.reason: UnavailableReason = reason


class LeaseLost(LeaseError):
    """The lease is no longer ours (expired, taken over, or its block has exited).

    Message: ``<label> <scope>/<key> was lost``.
    """

    def __init__(self, name: str) -> None:
        super().__init__(f"{name} was lost")


class LeaseAborted(LeaseError):
    """The caller's ``abort`` event was set while the acquisition was waiting.

    Message: ``<label> <scope>/<key> acquisition was aborted after <ms> ms by caller signal``.
    """

    def __init__(self, name: str, elapsed_ms: int) -> None:
        super().__init__(f"{name} acquisition was aborted after {elapsed_ms} ms by caller signal")
        self.elapsed_ms = elapsed_ms


# --- Values --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LeasePolicy:
    """The fixed parameters of one kind of lease."""

    scope: str
    duration_ms: int
    wait_ms: int
    label: str = "state lease"


MCP_OAUTH_LEASE = LeasePolicy(scope="core:mcp-oauth", duration_ms=60_000, wait_ms=30_000)
"""The MCP OAuth store lease (§7.6); the key is the store key."""

MCP_LIFECYCLE_LEASE = LeasePolicy(
    scope="core:claw-mcp-lifecycle", duration_ms=300_000, wait_ms=600_000, label="Claw MCP lifecycle lease"
)
"""The per-server config-mutation lease (§1.5.1); the key is the trimmed server name."""


@dataclass(frozen=True, slots=True)
class LeaseIdentity:
    """Who holds which lease: the row key ``(scope, key)``, the acquisition's ``owner`` and its label."""

    scope: str
    key: str
    owner: str
    label: str = "state lease"

    @property
    def name(self) -> str:
        """How messages name the lease: ``<label> <scope>/<key>``."""
        return f"{self.label} {self.scope}/{self.key}"


@dataclass(frozen=True, slots=True)
class LeaseGranted:
    """:meth:`LeaseTable.try_acquire` inserted our row; it expires at ``expires_at`` (epoch ms)."""

    expires_at: int


@dataclass(frozen=True, slots=True)
class LeaseHolder:
    """:meth:`LeaseTable.try_acquire` found a live row of ``owner``, created at ``created_at`` (epoch ms)."""

    owner: str
    created_at: int


def heartbeat_interval_ms(duration_ms: int) -> int:
    """How often a held lease is renewed: ``max(250, min(30000, floor(duration / 3)))``."""
    return max(250, min(30_000, duration_ms // 3))


def retry_backoff_ms(attempt: int, random_fraction: float) -> int:
    """The pause before retry ``attempt`` (1-based): ``min(250, round(b + b·0.25·r))``, ``b = min(250,
    25·1.5^(attempt-1))``, ``r`` in ``[0, 1)``. Rounds halves up, like JavaScript's ``Math.round``."""
    base = min(250.0, 25.0 * 1.5 ** max(attempt - 1, 0))
    return min(250, math.floor(base + base * 0.25 * random_fraction + 0.5))


class SystemClock:
    """The wall clock: integer epoch milliseconds."""

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000


# --- The port ------------------------------------------------------------------------------------------


class Lease(Protocol):
    """A lease held inside a :meth:`LeaseStore.hold` block."""

    @property
    def identity(self) -> LeaseIdentity:
        """The row this lease owns (scope, key, owner, label) — what a writer's ownership check needs."""
        ...

    @property
    def owner(self) -> str:
        """The fresh random UUID of this acquisition (the row's ``owner``)."""
        ...

    @property
    def lost(self) -> bool:
        """True once the lease is known not to be ours any more: a renewal found the row gone or replaced,
        the last confirmed expiry has passed without renewal, or the block has exited. Never resets."""
        ...

    def check(self) -> None:
        """Raise :class:`LeaseLost` if the lease is :attr:`lost` (a local check, no storage access)."""
        ...

    async def verify(self) -> None:
        """Check with the store that the row is still ours and unexpired.

        Raises :class:`LeaseLost` if not (and marks the lease lost), :class:`LeaseUnavailable` when the
        store cannot be read (message ``failed to verify <label> <scope>/<key>``).
        """
        ...

    async def wait_lost(self) -> None:
        """Return once the lease is lost (e.g. to cancel in-flight work that must stop with the lease)."""
        ...


class LeaseStore(Protocol):
    """Exclusive, expiring, cross-holder leases keyed by ``(scope, key)`` (the ``state_leases`` table)."""

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
        """Acquire the lease, keep it alive while the block runs, release it when the block exits.

        Acquisition: one atomic attempt deletes an expired row, inserts ours (expiring ``duration_ms`` after
        the attempt's wall-clock ``now``) unless a row exists, else reads the holder. While the lease is
        held by someone else it retries with :func:`retry_backoff_ms` pauses until ``wait_ms`` (monotonic
        clock) is spent, then raises :class:`LeaseHeld` naming the holder (``wait_ms=0`` tries once).
        A store failure raises :class:`LeaseUnavailable` at once (no retry). Setting ``abort`` while waiting
        raises :class:`LeaseAborted`. Cancelling the caller's scope while waiting propagates the cancellation
        and leaves no row behind.

        While held: the row is renewed every :func:`heartbeat_interval_ms` in a background task; a renewal
        that finds the row gone or replaced, or the last confirmed expiry passing without a renewal, marks
        the lease lost. Losing the lease does not cancel the block: callers :meth:`Lease.check` (or
        :meth:`Lease.verify`) before each write, or watch :meth:`Lease.wait_lost`.

        Release: when the block exits — normally, by an exception (propagated unchanged) or by
        cancellation — the heartbeat stops and our row, and only ours, is deleted. The release is shielded
        from cancellation, retried while the store is busy for up to ``RELEASE_RETRY_MS``, and otherwise
        best effort (a row left behind simply expires).

        ``ValueError`` for an empty scope or key, or a duration/wait outside ``[1 | 0, MAX_LEASE_MS]``.
        """
        ...


# --- The storage seam ----------------------------------------------------------------------------------


class LeaseStorageFailure(Exception):
    """Raised by a :class:`LeaseTable` when the store cannot be used; ``__cause__`` is the library error.

    ``busy`` distinguishes lock contention (worth retrying a release) from other failures. It never
    leaves :class:`TableLeaseStore`, which translates it into :class:`LeaseUnavailable`.
    """

    def __init__(self, busy: bool) -> None:
        super().__init__("sqlite-busy" if busy else "storage-error")
        self.busy = busy


class LeaseTable(Protocol):
    """The ``state_leases`` rows of one store. Each method is one atomic step (one write transaction in
    SQLite), takes its wall-clock ``now`` inside that step, and raises :class:`LeaseStorageFailure` when the
    store cannot be used (then nothing changed)."""

    async def try_acquire(self, lease: LeaseIdentity, duration_ms: int) -> LeaseGranted | LeaseHolder:
        """Delete the row of ``(scope, key)`` if it expired (``expires_at <= now``), then insert ours
        (``expires_at = now + duration_ms``, ``heartbeat_at = created_at = updated_at = now``, no payload)
        unless a row exists; return the grant, or the existing row's holder."""
        ...

    async def renew(self, lease: LeaseIdentity, duration_ms: int) -> int | None:
        """Push our unexpired row's expiry to ``now + duration_ms`` and return it; ``None`` when the row is
        not ours or has expired (nothing changed)."""
        ...

    async def expiry(self, lease: LeaseIdentity) -> int | None:
        """Our row's expiry if the row is ours and unexpired, else ``None``."""
        ...

    async def release(self, lease: LeaseIdentity) -> None:
        """Delete our row (a row of another owner is left alone)."""
        ...


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
        clock: Clock | None = None,
        rng: Callable[[], float] | None = None,
    ) -> None:
        self._table = table
        self._clock: Clock = clock if clock is not None else SystemClock()
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
