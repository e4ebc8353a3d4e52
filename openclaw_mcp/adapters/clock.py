"""The wall clock: the one :class:`~application.ports.clock.Clock` adapter of the process."""

from __future__ import annotations

import time

__all__ = ["SystemClock"]


class SystemClock:
    """Integer epoch milliseconds from the system's real-time clock."""

    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000
