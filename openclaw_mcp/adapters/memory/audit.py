"""The audit trail in memory: the ``openclaw_mcp_audit`` rows as a process-local list, same chain and retention
rules as SQLite (tests, embedders that want no state database). Several :class:`InMemoryAuditLog` sharing one
:class:`InMemoryAuditTable` behave like several processes sharing one state database; the table's ``rows`` and
``anchor`` are public so a test can tamper with them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio.lowlevel

from openclaw_mcp.adapters.clock import SystemClock
from openclaw_mcp.application.ports.audit import AuditLogCorrupt, AuditRetention, AuditVerdict
from openclaw_mcp.application.ports.clock import Clock
from openclaw_mcp.domain.audit import (
    AuditAnchor,
    AuditEntry,
    AuditQuery,
    AuditRecord,
    AuditRow,
    chain_hash,
    record_from_json,
    record_json,
    verify_chain,
)

__all__ = ["InMemoryAuditLog", "InMemoryAuditTable"]

_DAY_MS = 86_400_000


class InMemoryAuditTable:
    """The shared rows, the retention anchor and the next ``seq`` (never reused, like ``AUTOINCREMENT``)."""

    def __init__(self) -> None:
        self.rows: list[AuditRow] = []
        self.anchor = AuditAnchor()
        self.next_seq = 1


class InMemoryAuditLog:
    """:class:`~application.ports.audit.AuditLog` kept in this process (``table``: shared with other logs). Each
    append is atomic (no await inside it), so concurrent tasks never fork the chain."""

    def __init__(
        self,
        table: InMemoryAuditTable | None = None,
        *,
        retention: AuditRetention | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.table = table if table is not None else InMemoryAuditTable()
        self._retention = retention if retention is not None else AuditRetention()
        self._clock: Clock = clock if clock is not None else SystemClock()

    @property
    def rows(self) -> list[AuditRow]:
        return self.table.rows

    async def append(self, record: AuditRecord) -> int:
        await anyio.lowlevel.checkpoint()
        text = record_json(record)
        table = self.table
        prev = table.rows[-1].hash if table.rows else table.anchor.hash
        seq = table.next_seq
        table.next_seq = seq + 1
        table.rows.append(AuditRow(seq, text, prev, chain_hash(prev, text)))
        self._prune(seq)
        return seq

    def _prune(self, seq: int) -> None:
        cut = -1
        if self._retention.max_records is not None:
            cut = max(cut, len(self.rows) - self._retention.max_records - 1)
        if self._retention.max_days is not None:
            oldest_kept = self._clock.now_ms() - self._retention.max_days * _DAY_MS
            for index, row in enumerate(self.rows):
                if row.seq == seq or record_from_json(row.record_json).ts >= oldest_kept:
                    break
                cut = max(cut, index)
        if cut >= 0:
            last = self.rows[cut]
            self.table.anchor = AuditAnchor(last.seq, last.hash)
            del self.rows[: cut + 1]

    async def query(self, query: AuditQuery) -> list[AuditEntry]:
        await anyio.lowlevel.checkpoint()
        found: list[AuditEntry] = []
        for row in reversed(self.rows):
            try:
                record = record_from_json(row.record_json)
            except (ValueError, TypeError) as exc:
                raise AuditLogCorrupt(f"audit record {row.seq} is not a record ({exc})") from exc
            if query.matches(record):
                found.append(AuditEntry(row.seq, record))
                if query.limit is not None and len(found) >= query.limit:
                    break
        found.reverse()
        return found

    async def verify(self) -> AuditVerdict:
        await anyio.lowlevel.checkpoint()
        return AuditVerdict(len(self.rows), verify_chain(list(self.rows), self.table.anchor))


if TYPE_CHECKING:
    from openclaw_mcp.application.ports.audit import AuditLog

    _log: AuditLog = InMemoryAuditLog()
