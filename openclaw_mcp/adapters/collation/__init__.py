"""Collation adapters (ordering of human-readable names)."""

from openclaw_mcp.adapters.collation.uca import UcaCollator

__all__ = ["UcaCollator"]
