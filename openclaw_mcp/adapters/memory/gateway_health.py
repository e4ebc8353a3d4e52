"""``GatewayHealthProbe`` in memory: answers from a table of origins (spec openclaw-tools.md §7.3)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

__all__ = ["InMemoryGatewayHealthProbe"]


class InMemoryGatewayHealthProbe:
    """``healthy`` answers ``None`` for the origins in ``healthy_urls``, the mapped note for those in
    ``notes``, else ``fetch failed``; every probed ``(http_url, timeout_s)`` is recorded in ``probes``."""

    def __init__(self, healthy_urls: set[str] | None = None, notes: Mapping[str, str] | None = None) -> None:
        self.healthy_urls = set(healthy_urls or ())
        self.notes = dict(notes or {})
        self.probes: list[tuple[str, float]] = []

    async def healthy(self, http_url: str, timeout_s: float) -> str | None:
        self.probes.append((http_url, timeout_s))
        if http_url in self.healthy_urls:
            return None
        return self.notes.get(http_url, "fetch failed")


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.gateway_health import GatewayHealthProbe

    _: GatewayHealthProbe = InMemoryGatewayHealthProbe()
