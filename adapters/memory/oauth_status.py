"""In-memory OAuth status reader: stores are plain dicts keyed by store key."""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["InMemoryOAuthStatusReader"]


class InMemoryOAuthStatusReader:
    def __init__(self, stores: dict[str, dict[str, object]] | None = None) -> None:
        self.stores: dict[str, dict[str, object]] = stores if stores is not None else {}

    async def read_store(self, store_key: str) -> dict[str, object] | None:
        store = self.stores.get(store_key)
        return dict(store) if store is not None else None

    async def count_principals(self, prefix: str) -> int:
        return sum(1 for key, store in self.stores.items() if key.startswith(prefix) and "tokens" in store)


if TYPE_CHECKING:
    from application.ports import OAuthStatusReader

    _: OAuthStatusReader = InMemoryOAuthStatusReader()
