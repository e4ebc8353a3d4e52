"""Collation adapters (ordering of human-readable names)."""

from adapters.collation.uca import UcaCollator

__all__ = ["UcaCollator"]
