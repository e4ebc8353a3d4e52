"""The wall clock port."""

from __future__ import annotations

from typing import Protocol

__all__ = ["Clock"]


class Clock(Protocol):
    """Wall-clock time."""

    def now_ms(self) -> int:
        """Milliseconds since the epoch."""
        ...
