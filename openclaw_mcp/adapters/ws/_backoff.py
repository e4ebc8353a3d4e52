"""The reconnect delay policy (spec gateway-protocol §7.1): 1 000 ms doubling to 30 000 ms, no jitter."""

from __future__ import annotations

__all__ = ["Backoff"]


class Backoff:
    """Exponential reconnect delays with the reference's reset and one-shot override semantics.

    ``next_delay_ms`` counts an attempt and returns ``initial × 2^(attempts-1)`` capped at ``max_ms``; an
    override set with ``override_next`` is returned once instead, without counting an attempt. ``reset``
    (after each ``hello-ok``) restarts the series, optionally from another initial delay (250 ms for the
    device-token retry).
    """

    def __init__(self, initial_ms: int = 1_000, max_ms: int = 30_000, factor: int = 2) -> None:
        self._default_initial_ms = initial_ms
        self._initial_ms = initial_ms
        self._max_ms = max_ms
        self._factor = factor
        self._attempts = 0
        self._override_ms: int | None = None

    def reset(self, initial_ms: int | None = None) -> None:
        self._attempts = 0
        self._initial_ms = self._default_initial_ms if initial_ms is None else initial_ms
        self._override_ms = None

    def override_next(self, delay_ms: int) -> None:
        self._override_ms = delay_ms

    def next_delay_ms(self, minimum_ms: int = 0) -> int:
        override, self._override_ms = self._override_ms, None
        if override is not None:
            return override
        self._attempts += 1
        delay = min(self._max_ms, int(self._initial_ms * self._factor ** max(self._attempts - 1, 0)))
        return max(delay, minimum_ms)
