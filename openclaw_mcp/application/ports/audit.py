"""The audit-trail port (issue 35, docs/audit.md): an append-only, hash-chained log of tool calls.

Error contract: every method raises :class:`AuditLogError` (and nothing else) when the store cannot be used —
:class:`AuditLogUnavailable` when it is locked, unreadable, not a database or cannot be written (``busy`` tells
lock contention apart), :class:`AuditLogCorrupt` when a stored row cannot be read as a record. ``__cause__`` is
the storage library's exception. A failed :meth:`AuditLog.append` changed nothing. Cancellation of the calling
task propagates as the async library's cancellation (an append already handed to the store may still land).

Callers on the tool-call path fail open (:class:`application.audit.AuditTrail`): an error is one warning line
per process and the call proceeds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from openclaw_mcp.application.errors import ApplicationError
from openclaw_mcp.domain.audit import AuditEntry, AuditQuery, AuditRecord

__all__ = [
    "AuditLog",
    "AuditLogCorrupt",
    "AuditLogError",
    "AuditLogUnavailable",
    "AuditRetention",
    "AuditVerdict",
]


class AuditLogError(ApplicationError):
    """Base of every error an :class:`AuditLog` raises; the message is one printable line."""


class AuditLogUnavailable(AuditLogError):
    """The store could not be used (locked, unreadable, not a database, not writable …)."""

    def __init__(self, message: str, *, busy: bool = False) -> None:
        super().__init__(message)
        self.busy = busy


class AuditLogCorrupt(AuditLogError):
    """A stored row is not a record (listing only; :meth:`AuditLog.verify` reports such a row as broken)."""


@dataclass(frozen=True, slots=True)
class AuditRetention:
    """How much an append keeps: the newest ``max_records`` records (``None``: no count bound) and those younger
    than ``max_days`` days (``None``: no age bound)."""

    max_records: int | None = 100_000
    max_days: int | None = None


@dataclass(frozen=True, slots=True)
class AuditVerdict:
    """The result of :meth:`AuditLog.verify`: how many records were checked and the ``seq`` of the first broken
    one (``None``: the chain is intact)."""

    checked: int
    first_broken: int | None


class AuditLog(Protocol):
    """The records of one store (for SQLite: the ``openclaw_mcp_audit`` table of the state database, shared
    with other processes)."""

    async def append(self, record: AuditRecord) -> int:
        """Append ``record`` chained to the newest stored record (or to the retention anchor, or the genesis
        hash), atomically with respect to every other writer (processes included); prune past the retention
        bounds, recording the anchor the oldest kept record chains from. Returns the record's ``seq``."""
        ...

    async def query(self, query: AuditQuery) -> list[AuditEntry]:
        """The records matching ``query`` (the newest ``query.limit``), oldest first. A store that does not exist
        yet is empty (reading never creates it). Raises :class:`AuditLogCorrupt` for a row that is not a
        record."""
        ...

    async def verify(self) -> AuditVerdict:
        """Check the whole kept chain from the anchor (``domain.audit.verify_chain``). A store that does not
        exist yet is an intact, empty chain."""
        ...
