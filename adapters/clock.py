"""The wall clock (``Clock`` port)."""

from __future__ import annotations

import time

__all__ = ["SystemClock"]


class SystemClock:
    def now_ms(self) -> int:
        return time.time_ns() // 1_000_000
