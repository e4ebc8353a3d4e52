"""The bridge's event queue: queue events, cursors, gaps, poll and waiters (spec serve-bridge §6).

upstream: ``channel-bridge.ts`` (``enqueue``, ``pollEvents``, ``waitForEvent``, ``resolveCursorGap``,
``handleSessionMessageEvent``), ``channel-shared.ts`` (``matchEventFilter``).

Waiting is not modelled with timers or futures here: :meth:`EventQueue.begin_wait` either answers at once or
registers a :class:`Waiter`, and every later settlement (an enqueue, the deadline, a cancellation, close) is
*returned* as :class:`WaiterSettlement` values that the application hands to the waiting calls.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from openclaw_mcp.domain.bridge.conversations import (
    Conversation,
    int_option,
    opt_str,
    to_conversation,
)
from openclaw_mcp.jscompat.jsjson import JsonValue
from openclaw_mcp.jscompat.undefined import UNDEFINED

__all__ = [
    "APPROVAL_EVENT_TYPES",
    "EVENTS_POLL_DEFAULT_LIMIT",
    "EVENTS_POLL_LIMIT",
    "EVENTS_WAIT_DEFAULT_TIMEOUT_MS",
    "EVENTS_WAIT_TIMEOUT_LIMIT_MS",
    "QUEUE_LIMIT",
    "SESSION_MESSAGE_EVENT",
    "ApprovalEvent",
    "ApprovalEventType",
    "ClaudePermissionRequestEvent",
    "CursorGap",
    "Enqueued",
    "EventBody",
    "EventFilter",
    "EventQueue",
    "EventsPollArgs",
    "EventsWaitArgs",
    "GatewayPayloadError",
    "MessageEvent",
    "PollResult",
    "QueuedEvent",
    "WaitOutcome",
    "Waiter",
    "WaiterSettlement",
    "approval_event",
    "first_text",
    "project_session_message",
]

QUEUE_LIMIT: Final = 1000
EVENTS_POLL_DEFAULT_LIMIT: Final = 20
EVENTS_POLL_LIMIT: Final = 200
EVENTS_WAIT_DEFAULT_TIMEOUT_MS: Final = 30_000
EVENTS_WAIT_TIMEOUT_LIMIT_MS: Final = 300_000

SESSION_MESSAGE_EVENT: Final = "session.message"

ApprovalEventType = Literal[
    "exec_approval_requested",
    "exec_approval_resolved",
    "plugin_approval_requested",
    "plugin_approval_resolved",
]

APPROVAL_EVENT_TYPES: Final[Mapping[str, ApprovalEventType]] = {
    "exec.approval.requested": "exec_approval_requested",
    "exec.approval.resolved": "exec_approval_resolved",
    "plugin.approval.requested": "plugin_approval_requested",
    "plugin.approval.resolved": "plugin_approval_resolved",
}
"""Gateway event name → queue event type, for the four approval events (§6.2)."""


class GatewayPayloadError(TypeError):
    """A Gateway event payload the reference's handler would crash on (``null``/missing ``session.message``).

    ``str(error)`` is the JavaScript message; :attr:`js_text` is ``String(error)`` for the verbose log line.
    """

    @property
    def js_text(self) -> str:
        return f"TypeError: {self}"


# --- event bodies --------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MessageEvent:
    """A ``message`` queue event without its cursor (§6.2, §6.3). ``None`` fields are UNDEFINED."""

    session_key: str
    raw: JsonValue
    conversation: Conversation | None = None
    message_id: str | None = None
    message_seq: int | float | None = None
    role: str | None = None
    text: str | None = None

    @property
    def type(self) -> Literal["message"]:
        return "message"

    @property
    def sender_is_owner(self) -> bool:
        """The payload's **top-level** ``senderIsOwner`` is the boolean ``true`` (§8.4 condition 2)."""
        return isinstance(self.raw, dict) and self.raw.get("senderIsOwner") is True

    def fields(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "message", "sessionKey": self.session_key}
        if self.conversation is not None:
            out["conversation"] = self.conversation.to_json()
        if self.message_id is not None:
            out["messageId"] = self.message_id
        if self.message_seq is not None:
            out["messageSeq"] = self.message_seq
        if self.role is not None:
            out["role"] = self.role
        if self.text is not None:
            out["text"] = self.text
        out["raw"] = self.raw
        return out


@dataclass(frozen=True, slots=True)
class ClaudePermissionRequestEvent:
    """A ``claude_permission_request`` queue event without its cursor; values as received (§8.3)."""

    request_id: str
    tool_name: str
    description: str
    input_preview: str

    @property
    def type(self) -> Literal["claude_permission_request"]:
        return "claude_permission_request"

    def fields(self) -> dict[str, Any]:
        return {
            "type": "claude_permission_request",
            "requestId": self.request_id,
            "toolName": self.tool_name,
            "description": self.description,
            "inputPreview": self.input_preview,
        }


@dataclass(frozen=True, slots=True)
class ApprovalEvent:
    """An exec/plugin approval queue event without its cursor; ``raw`` is the Gateway payload (§6.2)."""

    type: ApprovalEventType
    raw: JsonValue

    def fields(self) -> dict[str, Any]:
        return {"type": self.type, "raw": self.raw}


EventBody = MessageEvent | ClaudePermissionRequestEvent | ApprovalEvent


@dataclass(frozen=True, slots=True)
class QueuedEvent:
    """An event in the queue: its cursor and its body."""

    cursor: int
    body: EventBody

    @property
    def type(self) -> str:
        return self.body.type

    @property
    def session_key(self) -> str | None:
        """The session key of a ``message`` event; other events have none."""
        return self.body.session_key if isinstance(self.body, MessageEvent) else None

    def to_json(self) -> dict[str, Any]:
        """The event object of ``events_poll``/``events_wait``: ``cursor`` first, then the body's keys."""
        return {"cursor": self.cursor, **self.body.fields()}


# --- projection of Gateway events ----------------------------------------------------------------------


def first_text(message: object) -> str | None:
    """``extractFirstTextBlock``: string content unmodified, else the first block's string ``text``."""
    if not isinstance(message, dict):
        return None
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list) or not content:
        return None
    first = content[0]
    if not isinstance(first, dict):
        return None
    text = first.get("text")
    return text if isinstance(text, str) else None


def project_session_message(payload: object = UNDEFINED) -> MessageEvent | None:
    """The ``message`` event body of a ``session.message`` payload (§6.3 steps 1–3, 5), or ``None`` (dropped).

    Dropped when ``opt_str(payload.sessionKey)`` is UNDEFINED (non-object payloads included). A ``null`` or
    missing payload raises :class:`GatewayPayloadError`, as the reference's handler fails on it.
    ``conversation`` is built from the top-level ``last*`` fields only (never ``deliveryContext``).
    """
    if payload is None or payload is UNDEFINED:
        shown = "null" if payload is None else "undefined"
        raise GatewayPayloadError(f"Cannot read properties of {shown} (reading 'sessionKey')")
    if not isinstance(payload, dict):
        return None
    session_key = opt_str(payload.get("sessionKey"))
    if session_key is None:
        return None
    route: dict[str, Any] = {
        "key": session_key,
        "lastChannel": opt_str(payload.get("lastChannel")),
        "lastTo": opt_str(payload.get("lastTo")),
        "lastAccountId": opt_str(payload.get("lastAccountId")),
    }
    if "lastThreadId" in payload:
        route["lastThreadId"] = payload["lastThreadId"]
    message = payload.get("message")
    role = opt_str(message.get("role")) if isinstance(message, dict) else None
    seq = payload.get("messageSeq")
    return MessageEvent(
        session_key=session_key,
        raw=payload,
        conversation=to_conversation(route),
        message_id=opt_str(payload.get("messageId")),
        message_seq=seq if isinstance(seq, int | float) and not isinstance(seq, bool) else None,
        role=role,
        text=first_text(message),
    )


def approval_event(gateway_event: str, payload: object = UNDEFINED) -> ApprovalEvent:
    """The queue event of one of the four approval events; ``raw`` is ``{}`` for a null/missing payload."""
    raw = {} if payload is None or payload is UNDEFINED else payload
    return ApprovalEvent(type=APPROVAL_EVENT_TYPES[gateway_event], raw=raw)


# --- filter, gap, poll, wait ---------------------------------------------------------------------------


def _as_int(value: object, default: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return default
    return int(value) if float(value).is_integer() else default


@dataclass(frozen=True, slots=True)
class EventFilter:
    """``{after_cursor, session_key?}`` of ``events_poll``/``events_wait`` (§6.4)."""

    after_cursor: int = 0
    session_key: str | None = None

    @classmethod
    def from_arguments(cls, after_cursor: object = None, session_key: object = None) -> EventFilter:
        """From validated tool arguments: ``after_cursor`` default 0, ``session_key`` through ``opt_str``."""
        return cls(after_cursor=_as_int(after_cursor, 0), session_key=opt_str(session_key))

    def matches(self, event: QueuedEvent) -> bool:
        """``event.cursor > after_cursor`` and, with a session filter, the event has that session key."""
        if event.cursor <= self.after_cursor:
            return False
        if not self.session_key:
            return True
        return event.session_key == self.session_key


@dataclass(frozen=True, slots=True)
class EventsPollArgs:
    """``events_poll`` arguments (§6.5): the filter and the limit as given (``None`` when absent)."""

    filter: EventFilter
    limit: object = None

    @classmethod
    def from_arguments(cls, args: Mapping[str, object]) -> EventsPollArgs:
        return cls(EventFilter.from_arguments(args.get("after_cursor"), args.get("session_key")), args.get("limit"))


@dataclass(frozen=True, slots=True)
class EventsWaitArgs:
    """``events_wait`` arguments (§6.6): the filter and the timeout as given (``None`` when absent)."""

    filter: EventFilter
    timeout_ms: object = None

    @classmethod
    def from_arguments(cls, args: Mapping[str, object]) -> EventsWaitArgs:
        flt = EventFilter.from_arguments(args.get("after_cursor"), args.get("session_key"))
        return cls(flt, args.get("timeout_ms"))


@dataclass(frozen=True, slots=True)
class CursorGap:
    """Events after the caller's cursor were evicted (§6.4)."""

    requested_after_cursor: int
    oldest_available_cursor: int

    def to_json(self) -> dict[str, Any]:
        return {
            "requested_after_cursor": self.requested_after_cursor,
            "oldest_available_cursor": self.oldest_available_cursor,
        }


@dataclass(frozen=True, slots=True)
class PollResult:
    """The answer of a poll (§6.5)."""

    events: tuple[QueuedEvent, ...]
    next_cursor: int
    gap: CursorGap | None = None

    def to_json(self) -> dict[str, Any]:
        """``events_poll`` structured content: ``events``, ``next_cursor``, ``gap`` when present."""
        out: dict[str, Any] = {"events": [e.to_json() for e in self.events], "next_cursor": self.next_cursor}
        if self.gap is not None:
            out["gap"] = self.gap.to_json()
        return out


@dataclass(frozen=True, slots=True)
class WaitOutcome:
    """The answer of a wait (§6.6): an event, or none (timeout, gap, cancellation, close)."""

    event: QueuedEvent | None = None
    gap: CursorGap | None = None

    @property
    def text(self) -> str:
        """``event <cursor>``, else ``event gap before <oldest>``, else ``timeout`` (§5.0.1)."""
        if self.event is not None:
            return f"event {self.event.cursor}"
        if self.gap is not None:
            return f"event gap before {self.gap.oldest_available_cursor}"
        return "timeout"

    def to_json(self) -> dict[str, Any]:
        """``events_wait`` structured content: ``event`` (object or null), ``gap`` when present."""
        out: dict[str, Any] = {"event": None if self.event is None else self.event.to_json()}
        if self.gap is not None:
            out["gap"] = self.gap.to_json()
        return out


@dataclass(frozen=True, slots=True)
class Waiter:
    """A pending wait: settle it by ``deadline_ms`` at the latest (§6.6 step 3)."""

    id: int
    filter: EventFilter
    deadline_ms: int


@dataclass(frozen=True, slots=True)
class WaiterSettlement:
    """A waiter left the waiter set with this outcome; the application answers it (drops it if cancelled)."""

    waiter: Waiter
    outcome: WaitOutcome


@dataclass(frozen=True, slots=True)
class Enqueued:
    """The event that was queued and the waiters it settled (in waiter registration order)."""

    event: QueuedEvent
    settled: tuple[WaiterSettlement, ...] = ()


class EventQueue:
    """The in-memory queue (at most ``limit`` events), its cursor counter and the pending waiters.

    Cursors start at 1, are shared by all event types, are never reused and are unaffected by eviction.
    Nothing here blocks: the application waits on its own primitives and calls :meth:`release` (timeout or
    cancellation) or :meth:`expire` (clock driven) and :meth:`release_all` (close).
    """

    __slots__ = ("_cursor", "_events", "_waiter_ids", "_waiters", "limit")

    def __init__(self, limit: int = QUEUE_LIMIT) -> None:
        self.limit = limit
        self._events: list[QueuedEvent] = []
        self._cursor = 0
        self._waiters: dict[int, Waiter] = {}
        self._waiter_ids = 0

    @property
    def events(self) -> tuple[QueuedEvent, ...]:
        """The queued events, oldest first."""
        return tuple(self._events)

    @property
    def last_cursor(self) -> int:
        """The cursor of the last enqueued event (0 before the first)."""
        return self._cursor

    @property
    def waiters(self) -> tuple[Waiter, ...]:
        """The pending waiters in registration order."""
        return tuple(self._waiters.values())

    def enqueue(self, body: EventBody) -> Enqueued:
        """Append with the next cursor, evict beyond the limit, then settle every waiter that now matches
        the event or has a gap (§6.4, §6.6 step 3–4)."""
        self._cursor += 1
        event = QueuedEvent(cursor=self._cursor, body=body)
        self._events.append(event)
        overflow = len(self._events) - self.limit
        if overflow > 0:
            del self._events[:overflow]
        settled: list[WaiterSettlement] = []
        for waiter in list(self._waiters.values()):
            if waiter.filter.matches(event):
                settled.append(self._settle(waiter, event))
            elif self.gap(waiter.filter.after_cursor) is not None:
                settled.append(self._settle(waiter, None))
        return Enqueued(event=event, settled=tuple(settled))

    def gap(self, after_cursor: int) -> CursorGap | None:
        """A gap iff the queue is non-empty and ``after_cursor < oldest - 1`` (§6.4)."""
        if not self._events:
            return None
        oldest = self._events[0].cursor
        if after_cursor < oldest - 1:
            return CursorGap(requested_after_cursor=after_cursor, oldest_available_cursor=oldest)
        return None

    def poll(self, flt: EventFilter, limit: object = EVENTS_POLL_DEFAULT_LIMIT) -> PollResult:
        """The first ``int_option(limit, 20, 1, 200)`` matching events; non-destructive (§6.5)."""
        count = int_option(limit, EVENTS_POLL_DEFAULT_LIMIT, 1, EVENTS_POLL_LIMIT)
        events: list[QueuedEvent] = []
        for event in self._events:
            if len(events) >= count:
                break
            if flt.matches(event):
                events.append(event)
        gap = self.gap(flt.after_cursor)
        if events:
            next_cursor = events[-1].cursor
        elif gap is not None:
            next_cursor = gap.oldest_available_cursor - 1
        else:
            next_cursor = flt.after_cursor
        return PollResult(events=tuple(events), next_cursor=next_cursor, gap=gap)

    def begin_wait(
        self, flt: EventFilter, now_ms: int, timeout_ms: object = EVENTS_WAIT_DEFAULT_TIMEOUT_MS
    ) -> WaitOutcome | Waiter:
        """Answer at once with the oldest matching event and/or a gap, else register a :class:`Waiter`
        whose deadline is ``now_ms + int_option(timeout_ms, 30000, 1, 300000)`` (§6.6 steps 2–3)."""
        existing = next((event for event in self._events if flt.matches(event)), None)
        gap = self.gap(flt.after_cursor)
        if existing is not None or gap is not None:
            return WaitOutcome(event=existing, gap=gap)
        timeout = int_option(timeout_ms, EVENTS_WAIT_DEFAULT_TIMEOUT_MS, 1, EVENTS_WAIT_TIMEOUT_LIMIT_MS)
        self._waiter_ids += 1
        waiter = Waiter(id=self._waiter_ids, filter=flt, deadline_ms=now_ms + timeout)
        self._waiters[waiter.id] = waiter
        return waiter

    def is_pending(self, waiter_id: int) -> bool:
        return waiter_id in self._waiters

    def release(self, waiter_id: int) -> WaitOutcome | None:
        """Settle one waiter with no event (its timer fired, or it was cancelled); ``None`` if it was
        already settled. The gap is recomputed now."""
        waiter = self._waiters.get(waiter_id)
        if waiter is None:
            return None
        return self._settle(waiter, None).outcome

    def expire(self, now_ms: int) -> tuple[WaiterSettlement, ...]:
        """Settle, with no event, every waiter whose deadline is ``<= now_ms``."""
        due = [waiter for waiter in self._waiters.values() if waiter.deadline_ms <= now_ms]
        return tuple(self._settle(waiter, None) for waiter in due)

    def next_deadline_ms(self) -> int | None:
        """The earliest pending deadline, ``None`` without waiters."""
        return min((waiter.deadline_ms for waiter in self._waiters.values()), default=None)

    def release_all(self) -> tuple[WaiterSettlement, ...]:
        """Settle every waiter with no event (bridge close)."""
        return tuple(self._settle(waiter, None) for waiter in list(self._waiters.values()))

    def _settle(self, waiter: Waiter, event: QueuedEvent | None) -> WaiterSettlement:
        del self._waiters[waiter.id]
        outcome = WaitOutcome(event=event, gap=self.gap(waiter.filter.after_cursor))
        return WaiterSettlement(waiter=waiter, outcome=outcome)
