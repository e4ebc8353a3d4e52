"""The lifecycle of one MCP server connection as a named state machine (spec client-runtime §3.5, §4.8).

A connection is created idle, started once (a task opens it), then either fails to connect or opens; an open
connection may be dropped by its transport; the holding task ends by closing it. Two marks are remembered
besides the phase: ``retiring`` (the server runtime detached it and is disposing of it) and ``closed_notice``
(the transport reported a close at some point, even before the connect finished).

Every phase change is a row of :data:`TRANSITIONS`; :func:`transition` refuses any other pair with
:class:`IllegalConnectionTransition`. The async side (tasks, cancel scopes, waiting) stays in the application.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace
from typing import Final

__all__ = [
    "DISCONNECT_REASON",
    "TRANSITIONS",
    "ConnectionEvent",
    "ConnectionPhase",
    "ConnectionState",
    "IllegalConnectionTransition",
    "transition",
]

DISCONNECT_REASON: Final = "mcp transport closed"


class ConnectionPhase(enum.Enum):
    """Where a connection is in its life."""

    IDLE = "idle"  # created; no task opens it yet
    CONNECTING = "connecting"  # a task is opening it (initialize handshake under way)
    OPEN = "open"  # connected and usable
    DROPPED = "dropped"  # the connect finished but the transport is closed; the task still holds it
    CLOSED = "closed"  # the holding task ended after a finished connect
    FAILED = "failed"  # the connect never finished (error, timeout, or closed before it started)


class ConnectionEvent(enum.Enum):
    """What can happen to a connection."""

    START = "start"  # the holding task is spawned
    OPENED = "opened"  # the connect finished and the transport is open
    OPENED_CLOSED = "opened_closed"  # the connect finished but the transport was already closed
    CONNECT_FAILED = "connect_failed"  # the holding task ended before the connect finished
    TRANSPORT_CLOSED = "transport_closed"  # the transport reported a close
    HOLD_ENDED = "hold_ended"  # the holding task ended after a finished connect
    RETIRE = "retire"  # the server runtime detached the connection to dispose of it


_P = ConnectionPhase
_E = ConnectionEvent

TRANSITIONS: Final[dict[tuple[ConnectionPhase, ConnectionEvent], ConnectionPhase]] = {
    (_P.IDLE, _E.START): _P.CONNECTING,
    (_P.IDLE, _E.RETIRE): _P.IDLE,
    (_P.CONNECTING, _E.OPENED): _P.OPEN,
    (_P.CONNECTING, _E.OPENED_CLOSED): _P.DROPPED,
    (_P.CONNECTING, _E.CONNECT_FAILED): _P.FAILED,
    (_P.CONNECTING, _E.TRANSPORT_CLOSED): _P.CONNECTING,
    (_P.CONNECTING, _E.RETIRE): _P.CONNECTING,
    (_P.OPEN, _E.TRANSPORT_CLOSED): _P.DROPPED,
    (_P.OPEN, _E.HOLD_ENDED): _P.CLOSED,
    (_P.OPEN, _E.RETIRE): _P.OPEN,
    (_P.DROPPED, _E.TRANSPORT_CLOSED): _P.DROPPED,
    (_P.DROPPED, _E.HOLD_ENDED): _P.CLOSED,
    (_P.DROPPED, _E.RETIRE): _P.DROPPED,
    (_P.CLOSED, _E.TRANSPORT_CLOSED): _P.CLOSED,
    (_P.CLOSED, _E.RETIRE): _P.CLOSED,
    (_P.FAILED, _E.TRANSPORT_CLOSED): _P.FAILED,
    (_P.FAILED, _E.RETIRE): _P.FAILED,
}
"""Every legal ``(phase, event) → next phase``; a pair that is absent is a programming error."""


class IllegalConnectionTransition(Exception):
    """An event that the connection's current phase does not accept."""

    def __init__(self, phase: ConnectionPhase, event: ConnectionEvent) -> None:
        super().__init__(f"connection event {event.value!r} is not allowed in phase {phase.value!r}")
        self.phase = phase
        self.event = event


@dataclass(frozen=True, slots=True)
class ConnectionState:
    """A connection's phase and its two marks."""

    phase: ConnectionPhase = ConnectionPhase.IDLE
    retiring: bool = False
    closed_notice: bool = False

    @property
    def started(self) -> bool:
        """A task was spawned to open it."""
        return self.phase is not ConnectionPhase.IDLE

    @property
    def connecting(self) -> bool:
        return self.phase is ConnectionPhase.CONNECTING

    @property
    def connected(self) -> bool:
        return self.phase is ConnectionPhase.OPEN

    @property
    def connect_finished(self) -> bool:
        """The connect attempt is over (opened, dropped, closed or failed)."""
        return self.phase not in (ConnectionPhase.IDLE, ConnectionPhase.CONNECTING)

    @property
    def stale(self) -> bool:
        """Still the runtime's connection but neither connecting nor open: a catalog build replaces it."""
        return not self.retiring and self.phase not in (ConnectionPhase.CONNECTING, ConnectionPhase.OPEN)

    @property
    def disconnect_reason(self) -> str | None:
        """``mcp transport closed`` once the transport reported a close or a finished connect was lost."""
        if self.closed_notice or self.phase in (ConnectionPhase.DROPPED, ConnectionPhase.CLOSED):
            return DISCONNECT_REASON
        return None


def transition(state: ConnectionState, event: ConnectionEvent) -> ConnectionState:
    """The state after ``event``; raises :class:`IllegalConnectionTransition` for a pair not in the table."""
    try:
        phase = TRANSITIONS[(state.phase, event)]
    except KeyError:
        raise IllegalConnectionTransition(state.phase, event) from None
    return replace(
        state,
        phase=phase,
        retiring=state.retiring or event is ConnectionEvent.RETIRE,
        closed_notice=state.closed_notice or event is ConnectionEvent.TRANSPORT_CLOSED,
    )
