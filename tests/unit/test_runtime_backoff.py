"""The server runtime's failure backoff and lease counting, on their own (spec client-runtime §4.10, §4.14)."""

from __future__ import annotations

import pytest

from openclaw_mcp.application.runtime.backoff import FailureTracker
from openclaw_mcp.application.runtime.connection import Connection
from openclaw_mcp.application.runtime.errors import ServerPaused
from openclaw_mcp.application.runtime.services import (
    FAILURE_COOLDOWN_MS,
    FAILURE_THRESHOLD,
    LeaseCounter,
    iso_timestamp,
)
from openclaw_mcp.domain.transport import resolve_transport

START = 1_795_958_899_000


def connection() -> Connection:
    config = resolve_transport("docs", {"url": "http://127.0.0.1:1/mcp"}).config
    assert config is not None
    return Connection(config=config)


def test_the_third_consecutive_failure_pauses_the_connection_for_the_cooldown() -> None:
    tracker, conn = FailureTracker(), connection()
    counts = [tracker.record_failure(conn, START + i) for i in range(FAILURE_THRESHOLD)]
    assert counts == [1, 2, 3]
    with pytest.raises(ServerPaused) as paused:
        tracker.admit("docs", conn, START + 10, tracking=True)
    retry_at = START + FAILURE_THRESHOLD - 1 + FAILURE_COOLDOWN_MS
    assert str(paused.value) == str(ServerPaused("docs", iso_timestamp(retry_at)))
    assert iso_timestamp(retry_at) == "2026-11-29T13:29:19.002Z"
    tracker.admit("docs", conn, retry_at, tracking=True)  # the cooldown is over


def test_requests_outside_the_failure_accounting_are_not_paused() -> None:
    tracker, conn = FailureTracker(), connection()
    for _ in range(FAILURE_THRESHOLD):
        tracker.record_failure(conn, START)
    tracker.admit("docs", conn, START, tracking=False)


def test_a_success_or_another_connection_forgets_the_count() -> None:
    tracker, conn, other = FailureTracker(), connection(), connection()
    tracker.record_failure(conn, START)
    tracker.record_success(conn)
    assert tracker.record_failure(conn, START) == 1
    tracker.admit("docs", other, START, tracking=True)
    assert tracker.record_failure(conn, START) == 1


def test_a_lease_release_is_idempotent_and_never_goes_below_zero() -> None:
    leases = LeaseCounter()
    first, second = leases.acquire(), leases.acquire()
    assert leases.count == 2
    first()
    first()
    assert leases.count == 1
    second()
    assert leases.count == 0
