"""Failure backoff of a server runtime (spec client-runtime §4.10): consecutive request failures on the
current connection are counted; from the third on, requests pause for 60 s."""

from __future__ import annotations

from dataclasses import dataclass

from openclaw_mcp.application.runtime.connection import Connection
from openclaw_mcp.application.runtime.errors import ServerPaused
from openclaw_mcp.application.runtime.services import FAILURE_COOLDOWN_MS, FAILURE_THRESHOLD, iso_timestamp

__all__ = ["FailureTracker"]


@dataclass(frozen=True, slots=True)
class _Entry:
    connection: Connection
    failures: int
    retry_after: int | None = None


class FailureTracker:
    """The failure count of one connection at a time (another connection's count is forgotten)."""

    def __init__(self) -> None:
        self._entry: _Entry | None = None

    def clear(self) -> None:
        self._entry = None

    def admit(self, server_name: str, conn: Connection, now: int, *, tracking: bool) -> None:
        """Raise :class:`ServerPaused` while ``conn`` is paused (``tracking`` requests only); forget the count
        of any other connection."""
        entry = self._entry
        paused_until = entry.retry_after if entry is not None and entry.connection is conn else None
        if tracking and paused_until is not None and now < paused_until:
            raise ServerPaused(server_name, iso_timestamp(paused_until))
        if entry is not None and entry.connection is not conn:
            self._entry = None

    def record_failure(self, conn: Connection, started: int) -> int:
        """Count one failure of a request started at ``started``; the new count (a pause starts at 3)."""
        previous = self._entry
        failures = (previous.failures if previous is not None and previous.connection is conn else 0) + 1
        retry_after = started + FAILURE_COOLDOWN_MS if failures >= FAILURE_THRESHOLD else None
        self._entry = _Entry(conn, failures, retry_after)
        return failures

    def record_success(self, conn: Connection) -> None:
        if self._entry is not None and self._entry.connection is conn:
            self._entry = None
