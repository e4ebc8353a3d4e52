"""Port for loading plugin-bundle MCP servers (spec client-runtime §10.2–10.7)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from domain.bundle_mcp import BundleMcpResult, BundlePlugin

__all__ = ["BundleMcpLoader"]


class BundleMcpLoader(Protocol):
    """Reads the MCP config of activated plugins (pure file reading: nothing is spawned or contacted)."""

    async def load(self, plugins: Sequence[BundlePlugin]) -> BundleMcpResult:
        """The merged bundle map of ``plugins`` (registry order), their data dirs and diagnostics."""
        ...
