"""In-memory MCP OAuth store: stores are plain dicts keyed by store key; ``pending`` maps OAuth states
to their store key. Implements the read-only status view and the credential writes."""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["InMemoryOAuthStatusReader", "InMemoryOAuthStore"]


class InMemoryOAuthStore:
    def __init__(self, stores: dict[str, dict[str, object]] | None = None) -> None:
        self.stores: dict[str, dict[str, object]] = stores if stores is not None else {}
        self.pending: dict[str, str] = {}

    async def read_store(self, store_key: str) -> dict[str, object] | None:
        store = self.stores.get(store_key)
        return dict(store) if store is not None else None

    async def count_principals(self, prefix: str) -> int:
        return sum(1 for key, store in self.stores.items() if key.startswith(prefix) and "tokens" in store)

    async def clear(self, store_key: str) -> None:
        self.stores[store_key] = {"credentialState": "cleared"}
        self.pending = {state: key for state, key in self.pending.items() if key != store_key}


InMemoryOAuthStatusReader = InMemoryOAuthStore


if TYPE_CHECKING:
    from application.ports import OAuthCredentialStore, OAuthStatusReader

    _: OAuthStatusReader = InMemoryOAuthStore()
    __: OAuthCredentialStore = InMemoryOAuthStore()
