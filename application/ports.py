"""Ports: what the use cases need from the world, as ``typing.Protocol`` classes.

Adapters implement them structurally (no inheritance); every port has one contract suite in
``tests/contract/`` that each adapter passes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from domain.includes import IncludeLoader

if TYPE_CHECKING:
    from application.leases import Lease

__all__ = [
    "Clock",
    "Collator",
    "ConfigEdit",
    "ConfigFile",
    "ConfigStore",
    "HostFiles",
    "OAuthCredentialStore",
    "OAuthStatusReader",
    "ServerRefs",
]


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """The raw OpenClaw config file: its resolved absolute path and text (``None`` when absent)."""

    path: str
    text: str | None

    @property
    def exists(self) -> bool:
        return self.text is not None


class ConfigEdit(Protocol):
    """One read-modify-write of the config file, performed while the store's write lock is held."""

    @property
    def current(self) -> ConfigFile:
        """The file as read after the lock was taken (what the edit must be based on)."""
        ...

    async def replace(self, text: str) -> None:
        """Atomically replace the file with ``text`` (mode 0600), rotating the ``.bak`` ring first.

        Afterwards a reader sees either the old or the new text, never a mix, even if the process is killed
        at any point. Raises ``ConfigStoreError`` on failure (the old file then stays in place).
        """
        ...

    async def save_rejected(self, text: str, stamp: str) -> str:
        """Save a refused payload next to the config as ``<path>.rejected.<stamp>`` (mode 0600, exclusive
        create) and return that path. Raises ``ConfigStoreError`` when it cannot be saved."""
        ...


class ConfigStore(Protocol):
    """The OpenClaw config file (``openclaw.json``)."""

    @property
    def path(self) -> str:
        """The resolved absolute config path."""
        ...

    async def read(self) -> ConfigFile:
        """Read the current file without locking. A missing file is ``ConfigFile(path, None)``.

        Raises ``ConfigStoreError`` for any other read failure (permissions, a directory in the way, …).
        """
        ...

    def include_loader(self) -> IncludeLoader:
        """Where the config's ``$include`` files come from (confined to the config directory and the
        configured include roots). Its methods raise only ``IncludeError``."""
        ...

    def edit(self) -> AbstractAsyncContextManager[ConfigEdit]:
        """Take the cross-process write lock for a read-modify-write and yield the edit.

        Concurrent ``edit()`` blocks (in this or another process) are serialised, so no update is lost.
        The lock is released when the block exits, also on error or cancellation. Raises
        ``ConfigLockTimeout`` when the lock cannot be taken in time, ``ConfigStoreError`` for I/O failures.
        """
        ...


class Collator(Protocol):
    """Orders human-readable names as the reference's ``localeCompare`` does (ICU root collation)."""

    def sort(self, names: Sequence[str]) -> list[str]:
        """A stable sort of ``names`` by collation key (ties keep their input order)."""
        ...

    def key(self, name: str) -> object:
        """A sort key for ``name`` (comparable with keys of other names)."""
        ...


class OAuthStatusReader(Protocol):
    """Read-only view of the MCP OAuth credential store, for status reporting. Takes no lease, never
    creates the store: a missing database or table reads as empty."""

    async def read_store(self, store_key: str) -> dict[str, object] | None:
        """The store object of ``store_key`` (``None`` when there is no row).

        Raises ``OAuthStoreError("MCP OAuth store <key> is invalid: <detail>")`` for a corrupt row.
        """
        ...

    async def count_principals(self, prefix: str) -> int:
        """How many stores whose key starts with ``prefix`` hold tokens (connected principals)."""
        ...


class Clock(Protocol):
    """Wall-clock time."""

    def now_ms(self) -> int:
        """Milliseconds since the epoch."""
        ...


class ServerRefs(Protocol):
    """Servers the Claw lifecycle manages (state database ``claw_mcp_server_refs``)."""

    async def mark_independent(self, name: str, now_ms: int) -> None:
        """Record that an operator edited server ``name`` directly, so the lifecycle stops owning it.

        Best effort: a missing store, table or row is not an error, and nothing is ever raised.
        """
        ...


class HostFiles(Protocol):
    """Facts about the local file system that ``doctor`` checks (no writes)."""

    def cwd(self) -> str:
        """The process current directory (absolute)."""
        ...

    async def is_executable_file(self, path: str) -> bool:
        """A regular file the process may execute (``access(X_OK)``; existence on Windows)."""
        ...

    async def is_directory(self, path: str) -> bool:
        """An existing directory (symlinks followed)."""
        ...

    async def is_regular_file(self, path: str) -> bool:
        """An existing regular file (symlinks followed)."""
        ...


class OAuthCredentialStore(Protocol):
    """The MCP OAuth credential store (spec cli-registry §7.2–§7.7, §7.10): one JSON object per store key,
    plus pending authorizations keyed by OAuth ``state``.

    Every write runs in one write transaction under the caller's ``core:mcp-oauth`` lease of that store key
    (``MCP_OAUTH_LEASE`` held with :class:`application.leases.LeaseStore`): the lease ownership is checked at
    the start of the transaction and again just before commit; a lost lease rolls back and raises
    ``LeaseLost``. A lease for another scope or key is refused with
    ``OAuthStoreError("MCP OAuth mutation requires its exact store lease")``. Reads take no lease and never
    create the store. Storage failures and corrupt rows raise ``OAuthStoreError``
    (``MCP OAuth store <key> is invalid: <detail>`` for a row that fails §7.4 validation).
    """

    async def read(self, store_key: str) -> dict[str, Any]:
        """The validated store object of ``store_key``; ``{}`` when there is no row (or no database)."""
        ...

    async def update(
        self, lease: Lease, store_key: str, change: Callable[[dict[str, Any]], dict[str, Any] | None]
    ) -> dict[str, Any]:
        """Read-modify-write in one transaction: ``change`` gets a copy of the current store (``{}`` when
        absent) and returns the new store, or ``None`` for "no change" (nothing is written). The new store is
        validated as a read would, then upserted as ``(store_key, 1, compact JSON, now)``. Returns the store
        as it is after the call. ``change`` is pure (see ``domain.oauth_store`` mutations); an exception it
        raises rolls back and propagates unchanged. The lease is checked even when nothing changes (a lost
        lease raises ``LeaseLost``); an invalid new store raises ``OAuthStoreError("MCP OAuth store <key> is
        invalid: <detail>")`` and nothing is written."""
        ...

    async def clear(self, store_key: str) -> None:
        """Log out: the store becomes ``{"credentialState": "cleared"}`` (the row is kept) and its pending
        authorizations are deleted, in one transaction under the ``core:mcp-oauth`` lease of ``store_key``,
        which this method acquires itself.

        Raises ``OAuthStoreError`` when the store cannot be written and the lease errors
        (``LeaseHeld`` after the 30 s wait, ``LeaseUnavailable``, ``LeaseLost``) as they are.
        """
        ...

    async def keys_with_prefix(self, prefix: str) -> list[str]:
        """Store keys starting with ``prefix``, in key order (read-only; ``[]`` without a database)."""
        ...

    async def write_pending(self, lease: Lease, store_key: str, state: str) -> None:
        """Record a pending authorization: delete every store's rows older than the 10-minute TTL and this
        store's rows, then insert ``(state, store_key, now)`` (§7.7). A ``state`` still pending for another
        store raises ``OAuthStoreError``."""
        ...

    async def consume_pending(self, lease: Lease, store_key: str, state: str) -> bool:
        """Delete this store's unexpired row for ``state``; true iff one was deleted (an expired row is left
        for the next :meth:`write_pending` to purge)."""
        ...

    async def read_pending(self, state: str) -> str | None:
        """The store key of the unexpired pending row for ``state`` (read-only, no lease)."""
        ...

    async def delete_pending(self, lease: Lease, store_key: str) -> None:
        """Delete this store's pending rows."""
        ...

    async def delete_pending_prefix(self, prefix: str) -> None:
        """Delete the pending rows of every store whose key matches ``LIKE '<prefix>%'`` as the reference does
        it (ASCII case-insensitive; ``_`` and ``%`` in ``prefix`` are wildcards). No lease; never creates the
        database."""
        ...
