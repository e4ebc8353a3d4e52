"""In-memory server refs: ``owners`` maps a server name to whether it is independently owned."""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["InMemoryServerRefs"]


class InMemoryServerRefs:
    def __init__(self, owners: dict[str, bool] | None = None) -> None:
        self.owners: dict[str, bool] = owners if owners is not None else {}
        self.updated_at: dict[str, int] = {}

    async def mark_independent(self, name: str, now_ms: int) -> None:
        if name in self.owners and not self.owners[name]:
            self.owners[name] = True
            self.updated_at[name] = now_ms


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.config import ServerRefs

    _: ServerRefs = InMemoryServerRefs()
