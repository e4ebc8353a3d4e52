"""The lease port (spec cli-registry §7.6, §1.5.1): :class:`LeaseStore` / :class:`Lease`, their error family
(:class:`LeaseError`), the lease values and the storage seam adapters implement (:class:`LeaseTable`).

The one lease algorithm over a table is :class:`application.leases.TableLeaseStore`.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from openclaw_mcp.application.errors import ApplicationError

if TYPE_CHECKING:
    import anyio

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
    "UnavailableReason",
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
