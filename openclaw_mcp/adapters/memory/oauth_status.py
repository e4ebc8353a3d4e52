"""In-memory MCP OAuth store: the status view and the full credential store port, process-local.

``stores`` maps store keys to store objects (what ``store_json`` holds), ``pending`` maps OAuth states to
their :class:`PendingAuthorization`. Each operation is atomic (no ``await`` between its checks and its
writes), like one SQLite transaction.

Lease ownership: with ``leases`` (an :class:`~adapters.memory.leases.InMemoryLeaseStore`), writes check that
the lease row in its table is still the caller's and unexpired, and :meth:`InMemoryOAuthStore.clear`
acquires the store's lease itself; without it, writes only check the lease locally (``Lease.check``) and
``clear`` takes no lease.
"""

from __future__ import annotations

import copy
import re
import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio.lowlevel

from openclaw_mcp.adapters.clock import SystemClock
from openclaw_mcp.adapters.memory.leases import InMemoryLeaseStore
from openclaw_mcp.application.errors import OAuthStoreError
from openclaw_mcp.application.ports.clock import Clock
from openclaw_mcp.application.ports.leases import MCP_OAUTH_LEASE, Lease, LeaseLost
from openclaw_mcp.domain.oauth_store import (
    PENDING_TTL_MS,
    StoreRowInvalid,
    clear,
    decode_store,
    encode_for_write,
    encode_store,
)

__all__ = ["InMemoryOAuthStatusReader", "InMemoryOAuthStore", "PendingAuthorization"]

_Change = Callable[[dict[str, Any]], dict[str, Any] | None]
_ASCII_FOLD = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


@dataclass(slots=True)
class PendingAuthorization:
    """One ``mcp_oauth_pending_authorizations`` row (keyed by its OAuth state)."""

    store_key: str
    create_time: int


class InMemoryOAuthStore:
    """:class:`~application.ports.oauth.OAuthStatusReader` and :class:`~application.ports.oauth.OAuthCredentialStore`
    over process-local dicts. ``clock`` gives the wall-clock epoch ms of ``updated_at``, ``create_time`` and
    the ownership and TTL checks; share it with ``leases`` in tests."""

    def __init__(
        self,
        stores: dict[str, dict[str, object]] | None = None,
        *,
        leases: InMemoryLeaseStore | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.stores: dict[str, dict[str, object]] = stores if stores is not None else {}
        self.pending: dict[str, PendingAuthorization] = {}
        self.updated_at: dict[str, int] = {}
        self._leases = leases
        self._clock: Clock = clock if clock is not None else SystemClock()

    # --- OAuthStatusReader (objects as stored, unvalidated) ---------------------------------------------

    async def read_store(self, store_key: str) -> dict[str, object] | None:
        store = self.stores.get(store_key)
        return dict(store) if store is not None else None

    async def count_principals(self, prefix: str) -> int:
        return sum(1 for key, store in self.stores.items() if key.startswith(prefix) and "tokens" in store)

    # --- OAuthCredentialStore ---------------------------------------------------------------------------

    def _require_owned(self, lease: Lease, store_key: str) -> None:
        identity = lease.identity
        if identity.scope != MCP_OAUTH_LEASE.scope or identity.key != store_key:
            raise OAuthStoreError("MCP OAuth mutation requires its exact store lease")
        lease.check()
        if self._leases is not None:
            row = self._leases.rows.rows.get((identity.scope, identity.key))
            now = self._clock.now_ms()
            if row is None or row.owner != identity.owner or row.expires_at is None or row.expires_at <= now:
                raise LeaseLost(identity.name)

    def _current(self, store_key: str) -> dict[str, Any]:
        store = self.stores.get(store_key)
        if store is None:
            return {}
        try:
            return decode_store(store_key, encode_store(store))
        except StoreRowInvalid as exc:
            raise OAuthStoreError(str(exc)) from exc

    def _put(self, store_key: str, store: dict[str, Any]) -> None:
        self.stores[store_key] = store
        self.updated_at[store_key] = self._clock.now_ms()

    async def read(self, store_key: str) -> dict[str, Any]:
        await anyio.lowlevel.checkpoint()
        return self._current(store_key)

    async def update(self, lease: Lease, store_key: str, change: _Change) -> dict[str, Any]:
        await anyio.lowlevel.checkpoint()
        self._require_owned(lease, store_key)
        current = self._current(store_key)
        new = change(copy.deepcopy(current))
        if new is None:
            return current
        try:
            _, stored = encode_for_write(store_key, new)
        except StoreRowInvalid as exc:
            raise OAuthStoreError(str(exc)) from exc
        self._require_owned(lease, store_key)
        self._put(store_key, stored)
        return copy.deepcopy(stored)

    async def clear(self, store_key: str) -> None:
        if self._leases is None:
            await anyio.lowlevel.checkpoint()
            self._clear(store_key)
            return
        policy = MCP_OAUTH_LEASE
        async with self._leases.hold(
            policy.scope, store_key, duration_ms=policy.duration_ms, wait_ms=policy.wait_ms, label=policy.label
        ) as lease:
            self._require_owned(lease, store_key)
            self._clear(store_key)

    def _clear(self, store_key: str) -> None:
        self._put(store_key, clear())
        self._drop_pending(lambda row: row.store_key == store_key)

    async def keys_with_prefix(self, prefix: str) -> list[str]:
        await anyio.lowlevel.checkpoint()
        # SQLite's default BINARY collation orders by UTF-8 bytes.
        return sorted(
            (key for key in self.stores if key.startswith(prefix)), key=lambda k: k.encode("utf-8", "surrogatepass")
        )

    # --- pending authorizations -------------------------------------------------------------------------

    def _drop_pending(self, doomed: Callable[[PendingAuthorization], bool]) -> None:
        self.pending = {state: row for state, row in self.pending.items() if not doomed(row)}

    def _live(self, row: PendingAuthorization) -> bool:
        return row.create_time > self._clock.now_ms() - PENDING_TTL_MS

    async def write_pending(self, lease: Lease, store_key: str, state: str) -> None:
        await anyio.lowlevel.checkpoint()
        self._require_owned(lease, store_key)
        now = self._clock.now_ms()
        if state in self.pending and self._live(self.pending[state]) and self.pending[state].store_key != store_key:
            raise OAuthStoreError(
                "MCP OAuth store unavailable: UNIQUE constraint failed: mcp_oauth_pending_authorizations.state"
            )
        self._drop_pending(lambda row: row.create_time <= now - PENDING_TTL_MS or row.store_key == store_key)
        self.pending[state] = PendingAuthorization(store_key, now)

    async def consume_pending(self, lease: Lease, store_key: str, state: str) -> bool:
        await anyio.lowlevel.checkpoint()
        self._require_owned(lease, store_key)
        row = self.pending.get(state)
        if row is None or row.store_key != store_key or not self._live(row):
            return False
        del self.pending[state]
        return True

    async def read_pending(self, state: str) -> str | None:
        await anyio.lowlevel.checkpoint()
        row = self.pending.get(state)
        return row.store_key if row is not None and self._live(row) else None

    async def delete_pending(self, lease: Lease, store_key: str) -> None:
        await anyio.lowlevel.checkpoint()
        self._require_owned(lease, store_key)
        self._drop_pending(lambda row: row.store_key == store_key)

    async def delete_pending_prefix(self, prefix: str) -> None:
        await anyio.lowlevel.checkpoint()
        self._drop_pending(lambda row: _like_prefix(row.store_key, prefix))


def _like_prefix(text: str, prefix: str) -> bool:
    """SQLite ``text LIKE prefix || '%'``: ASCII letters match case-insensitively, ``_`` matches any one
    character and ``%`` any run of characters."""
    parts = ("." if ch == "_" else ".*" if ch == "%" else re.escape(ch) for ch in prefix.translate(_ASCII_FOLD))
    return re.match("".join(parts), text.translate(_ASCII_FOLD), re.DOTALL) is not None


InMemoryOAuthStatusReader = InMemoryOAuthStore


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.oauth import OAuthCredentialStore, OAuthStatusReader

    _: OAuthStatusReader = InMemoryOAuthStore()
    __: OAuthCredentialStore = InMemoryOAuthStore()
