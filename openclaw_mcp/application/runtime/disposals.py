"""The connection disposals of a server runtime (spec client-runtime §3.7): one shared disposal per
connection, run in the task host; whether any of them could not confirm closure is remembered."""

from __future__ import annotations

from openclaw_mcp.application.runtime.connection import Connection
from openclaw_mcp.application.runtime.flight import Flight
from openclaw_mcp.application.runtime.services import DisposeOutcome, TaskHost

__all__ = ["ConnectionDisposals"]


class ConnectionDisposals:
    """Pending and finished disposals; ``budget_s`` is the length of each dispose phase."""

    def __init__(self, host: TaskHost, budget_s: float) -> None:
        self._host = host
        self._budget_s = budget_s
        self._pending: set[Flight[DisposeOutcome]] = set()
        self.failed = False

    async def dispose(self, conn: Connection) -> DisposeOutcome:
        """``dispose_connection``: close ``conn`` in a task of the host; a second call awaits the first."""
        if conn.disposal is None:
            flight: Flight[DisposeOutcome] = Flight()
            self._host.start_soon(self._run, conn, flight)
            conn.disposal = flight
            self._pending.add(flight)
        return await conn.disposal.wait()

    async def _run(self, conn: Connection, flight: Flight[DisposeOutcome]) -> None:
        failed = False
        try:
            failed = await conn.close(self._budget_s)
        finally:
            if failed:
                self.failed = True
            self._pending.discard(flight)
            flight.resolve("uncertain" if failed else "closed")

    async def join(self) -> None:
        """Wait until no disposal is pending (including ones started meanwhile)."""
        while self._pending:
            await next(iter(self._pending)).done.wait()
