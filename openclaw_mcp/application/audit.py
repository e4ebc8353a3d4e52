"""Recording tool calls in the audit trail, failing open (issue 35, docs/audit.md).

:class:`AuditTrail` is what the ``before_tool_call`` boundary holds: it builds the record of one call
(``domain.audit``) and appends it to the :class:`~application.ports.audit.AuditLog`. An append that fails is
one warning line per process (``audit trail unavailable: <reason>; tool calls proceed unrecorded``) and the call
proceeds: the audit trail never blocks or fails a tool call.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from openclaw_mcp.application.ports.audit import AuditLog, AuditLogError
from openclaw_mcp.application.ports.clock import Clock
from openclaw_mcp.domain.audit import AuditDecision, AuditOutcome, AuditRecord, args_digest, args_preview, result_size
from openclaw_mcp.domain.redaction import redact_sensitive_text

__all__ = ["AuditCall", "AuditSubject", "AuditTrail", "audit_warning"]

_WARNED = threading.Event()
"""Set once this process has printed its audit failure line (one per process, whatever the trail)."""


def audit_warning(reason: str) -> str:
    """The one line printed when the audit trail cannot be written."""
    return f"audit trail unavailable: {redact_sensitive_text(reason)}; tool calls proceed unrecorded"


@dataclass(frozen=True, slots=True)
class AuditSubject:
    """Whose calls a trail records (empty values are ``None`` in the record) and, for a server that serves its
    own tools (``openclaw-plugin-tools``, ``openclaw-tools``), the ``server`` name the records carry."""

    agent: str | None = None
    session_key: str | None = None
    run_id: str | None = None
    server: str | None = None


@dataclass(frozen=True, slots=True)
class AuditCall:
    """The call being recorded: its server and tool (``server=None``: the subject's) and where it started."""

    server: str | None
    tool: str
    started_ms: int
    started_monotonic: float


class AuditTrail:
    """Appends one record per call to ``log``; ``warn`` gets the one failure line of the process."""

    def __init__(
        self, log: AuditLog, *, clock: Clock, warn: Callable[[str], None], subject: AuditSubject = AuditSubject()
    ) -> None:
        self._log = log
        self._clock = clock
        self._warn = warn
        self.subject = subject

    def start(self, tool: str, server: str | None = None) -> AuditCall:
        """Mark the start of a call of ``tool`` (of ``server``)."""
        return AuditCall(server, tool, self._clock.now_ms(), time.monotonic())

    def with_subject(self, subject: AuditSubject) -> AuditTrail:
        """The same log, clock and warning sink for another subject."""
        return AuditTrail(self._log, clock=self._clock, warn=self._warn, subject=subject)

    async def record(
        self,
        call: AuditCall,
        *,
        arguments: Any,
        decision: AuditDecision,
        outcome: AuditOutcome,
        result: Any = None,
        approved_by: str | None = None,
        subject: AuditSubject | None = None,
    ) -> None:
        """Append the record of ``call``; never raises (but for cancellation)."""
        who = subject if subject is not None else self.subject
        try:
            record = AuditRecord(
                ts=call.started_ms,
                agent=who.agent or None,
                session_key=who.session_key or None,
                run_id=who.run_id or None,
                server=call.server or who.server or "",
                tool=call.tool,
                args_digest=args_digest(arguments),
                args_preview=args_preview(arguments),
                decision=decision,
                approved_by=approved_by,
                duration_ms=max(0, round((time.monotonic() - call.started_monotonic) * 1000)),
                outcome=outcome,
                result_bytes=result_size(result),
            )
            await self._log.append(record)
        except AuditLogError as exc:
            self._fail(str(exc))
        except (ValueError, TypeError, RecursionError) as exc:  # arguments the record cannot be made of
            self._fail(f"{type(exc).__name__}: {exc}")

    def _fail(self, reason: str) -> None:
        if _WARNED.is_set():
            return
        _WARNED.set()
        try:
            self._warn(audit_warning(reason))
        except Exception:  # a broken warning sink must not fail the call either
            pass
