"""Name ordering (ICU root collation in the reference)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

__all__ = ["Collator"]


class Collator(Protocol):
    """Orders human-readable names as the reference's ``localeCompare`` does (ICU root collation)."""

    def sort(self, names: Sequence[str]) -> list[str]:
        """A stable sort of ``names`` by collation key (ties keep their input order)."""
        ...

    def key(self, name: str) -> object:
        """A sort key for ``name`` (comparable with keys of other names)."""
        ...
