"""Claude channel mode and the routing of Gateway events into the queue (spec serve-bridge §6.3, §7.2, §8).

upstream: ``channel-bridge.ts`` (``handleGatewayEvent``, ``handleSessionMessageEvent``,
``handleClaudePermissionRequest``, ``shouldEmitClaudeChannel``), ``channel-tools.ts``
(``getChannelMcpCapabilities``), ``channel-shared.ts`` (``ClaudePermissionRequestSchema``), ``mcp-cli.ts``
(the ``--claude-channel-mode`` value).

:class:`BridgeState` is the bridge's pure core: it owns the queue and the pending registry and turns each
Gateway event or inbound permission request into a :class:`Dispatch` — the queued event, the waiters it
settled, and the one MCP notification to send (if any). Calls are synchronous, so the claim of a pending
permission happens before any await in the caller (decision S2).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final, Literal

from openclaw_mcp.domain.bridge.approvals import (
    ApprovalKind,
    PendingApproval,
    PendingPermission,
    PendingRegistry,
    SweepReport,
)
from openclaw_mcp.domain.bridge.events import (
    APPROVAL_EVENT_TYPES,
    QUEUE_LIMIT,
    SESSION_MESSAGE_EVENT,
    ClaudePermissionRequestEvent,
    Enqueued,
    EventQueue,
    MessageEvent,
    QueuedEvent,
    WaiterSettlement,
    approval_event,
    project_session_message,
)
from openclaw_mcp.domain.bridge.mode import (
    CLAUDE_CHANNEL_MODES,
    INVALID_CHANNEL_MODE_MESSAGE,
    PERMISSION_REQUEST_METHOD,
    ClaudeChannelMode,
    InvalidClaudeChannelMode,
    experimental_capabilities,
    parse_claude_channel_mode,
)
from openclaw_mcp.jscompat.text import JS_WHITESPACE
from openclaw_mcp.jscompat.undefined import UNDEFINED

__all__ = [
    "CHANNEL_NOTIFICATION_METHOD",
    "CLAUDE_CHANNEL_MODES",
    "INVALID_CHANNEL_MODE_MESSAGE",
    "NON_TEXT_CONTENT",
    "PERMISSION_NOTIFICATION_METHOD",
    "PERMISSION_REQUEST_METHOD",
    "BridgeState",
    "ClaudeChannelMode",
    "Dispatch",
    "InvalidClaudeChannelMode",
    "Notification",
    "PermissionBehavior",
    "PermissionReply",
    "PermissionRequest",
    "channel_notification",
    "emits_channel_notification",
    "experimental_capabilities",
    "owner_permission_reply",
    "parse_claude_channel_mode",
    "parse_permission_reply",
    "permission_notification",
]

CHANNEL_NOTIFICATION_METHOD: Final = "notifications/claude/channel"
PERMISSION_NOTIFICATION_METHOD: Final = "notifications/claude/channel/permission"
NON_TEXT_CONTENT: Final = "[non-text message]"

PermissionBehavior = Literal["allow", "deny"]


# --- notifications (§8.2, §8.4) ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Notification:
    """An MCP notification the bridge sends to the client."""

    method: str
    params: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "params": self.params}


def emits_channel_notification(mode: ClaudeChannelMode, event: MessageEvent) -> bool:
    """``notifications/claude/channel`` is sent iff mode ≠ ``off``, ``role == "user"`` and the event has a
    conversation (owner and non-owner turns alike)."""
    return mode != "off" and event.role == "user" and event.conversation is not None


def channel_notification(event: MessageEvent) -> Notification:
    """``notifications/claude/channel`` for a user turn: the text (even ``""``) or ``[non-text message]``,
    and ``meta`` strings, ``""`` when unknown."""
    conversation = event.conversation
    thread = None if conversation is None else conversation.thread_id_text
    meta = {
        "session_key": event.session_key,
        "channel": "" if conversation is None else conversation.channel,
        "to": "" if conversation is None else conversation.to,
        "account_id": (None if conversation is None else conversation.account_id) or "",
        "thread_id": thread if thread is not None else "",
        "message_id": event.message_id or "",
    }
    content = event.text if event.text is not None else NON_TEXT_CONTENT
    return Notification(CHANNEL_NOTIFICATION_METHOD, {"content": content, "meta": meta})


def permission_notification(request_id: str, behavior: PermissionBehavior) -> Notification:
    """``notifications/claude/channel/permission`` with ``{"request_id", "behavior"}``."""
    return Notification(PERMISSION_NOTIFICATION_METHOD, {"request_id": request_id, "behavior": behavior})


# --- permission replies and the owner gate (§8.4, §8.5) ------------------------------------------------

_JS_SPACE_CLASS: Final = "".join(re.escape(ch) for ch in JS_WHITESPACE)
# JavaScript /^(yes|no)\s+([a-km-z]{5})$/i without Python's \s or IGNORECASE (which would let U+212A KELVIN
# SIGN match "k" and \s match U+001C–U+001F / U+0085 but not U+FEFF).
_REPLY_RE: Final = re.compile(f"([yY][eE][sS]|[nN][oO])[{_JS_SPACE_CLASS}]+([a-km-zA-KM-Z]{{5}})")


@dataclass(frozen=True, slots=True)
class PermissionReply:
    """A text in the reply grammar: the first word as written and the five-letter code lower-cased."""

    word: str
    code: str

    @property
    def behavior(self) -> PermissionBehavior:
        return "allow" if self.word.lower().startswith("y") else "deny"


def parse_permission_reply(text: str | None) -> PermissionReply | None:
    """``yes``/``no`` (any case), JS whitespace, five letters ``a``–``k``/``m``–``z`` (any case); nothing
    else, no leading or trailing characters (not even a newline)."""
    if not text:
        return None
    match = _REPLY_RE.fullmatch(text)
    if match is None:
        return None
    return PermissionReply(word=match.group(1), code=match.group(2).lower())


def owner_permission_reply(event: MessageEvent) -> PermissionReply | None:
    """The reply carried by an owner's user turn (§8.4 conditions 1–3), else ``None``.

    Owner means the payload's top-level ``senderIsOwner`` is the boolean ``true``; the copy inside
    ``message.__openclaw`` is not consulted. Whether the code is pending is the caller's check.
    """
    if event.role != "user" or not event.sender_is_owner:
        return None
    return parse_permission_reply(event.text)


# --- inbound permission requests (§8.3) ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PermissionRequest:
    """``notifications/claude/channel/permission_request`` params; values as received."""

    request_id: str
    tool_name: str
    description: str
    input_preview: str

    @classmethod
    def from_params(cls, params: object) -> PermissionRequest | None:
        """The request, or ``None`` (drop silently) unless ``params`` is an object with the four strings."""
        if not isinstance(params, dict):
            return None
        request_id = params.get("request_id")
        tool_name = params.get("tool_name")
        description = params.get("description")
        input_preview = params.get("input_preview")
        if (
            isinstance(request_id, str)
            and isinstance(tool_name, str)
            and isinstance(description, str)
            and isinstance(input_preview, str)
        ):
            return cls(request_id, tool_name, description, input_preview)
        return None

    def to_event(self) -> ClaudePermissionRequestEvent:
        return ClaudePermissionRequestEvent(
            request_id=self.request_id,
            tool_name=self.tool_name,
            description=self.description,
            input_preview=self.input_preview,
        )


# --- the aggregate -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Dispatch:
    """What one inbound event did.

    * ``enqueued`` — the queued event and the waiters it settled (``None``: nothing queued);
    * ``notification`` — the MCP notification to send now, in event order (``None``: none);
    * ``claim`` — set with a permission notification: the claimed pending entry. If sending fails while
      the bridge is open, pass it to :meth:`BridgeState.permission_notification_failed`.
    """

    enqueued: Enqueued | None = None
    notification: Notification | None = None
    claim: PendingPermission | None = None

    @property
    def event(self) -> QueuedEvent | None:
        return None if self.enqueued is None else self.enqueued.event

    @property
    def settled(self) -> tuple[WaiterSettlement, ...]:
        return () if self.enqueued is None else self.enqueued.settled


_NOTHING: Final = Dispatch()


class BridgeState:
    """The bridge's queue, pending approvals and pending Claude permissions, driven one event at a time.

    The application feeds Gateway events in arrival order (decision S4), sends the returned notifications in
    that order, answers settled waiters, and runs the sweeper while ``pending.sweeper_active``.
    """

    __slots__ = ("_closed", "mode", "pending", "queue")

    def __init__(self, mode: ClaudeChannelMode = "auto", *, queue_limit: int = QUEUE_LIMIT) -> None:
        self.mode: ClaudeChannelMode = mode
        self.queue = EventQueue(queue_limit)
        self.pending = PendingRegistry()
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def handle_gateway_event(
        self, event: str, payload: object = UNDEFINED, *, now_ms: int, channel: bool = True
    ) -> Dispatch:
        """Route one Gateway event (§6.2): ``session.message`` and the four approval events; others ignored.
        ``channel``: see :meth:`handle_session_message`.

        Raises :class:`~domain.bridge.events.GatewayPayloadError` for a null/missing ``session.message``
        payload (the reference logs ``gateway event session.message failed``).
        """
        if event == SESSION_MESSAGE_EVENT:
            return self.handle_session_message(payload, channel=channel)
        if event in APPROVAL_EVENT_TYPES:
            return self.handle_approval_event(event, payload, now_ms=now_ms)
        return _NOTHING

    def handle_session_message(self, payload: object = UNDEFINED, *, channel: bool = True) -> Dispatch:
        """§6.3: project; an owner's reply to a pending permission is consumed (claimed, answered, nothing
        queued); otherwise queue a ``message`` event and, for user turns with a conversation in mode
        ``on``/``auto``, a channel notification. Without ``channel`` (a connection that carries no Claude
        channel, protocol-eras D-PE14) the event is only queued: no notification, no permission reply."""
        message = project_session_message(payload)
        if message is None:
            return _NOTHING
        if not channel:
            return Dispatch(enqueued=self.queue.enqueue(message))
        reply = owner_permission_reply(message)
        if reply is not None:
            claim = self.pending.claim_permission(reply.code)
            if claim is not None:  # never after close: close clears the pending permissions
                answer = permission_notification(claim.request_id, reply.behavior)
                return Dispatch(notification=answer, claim=claim)
        enqueued = self.queue.enqueue(message)
        if self._closed or not emits_channel_notification(self.mode, message):
            return Dispatch(enqueued=enqueued)
        return Dispatch(enqueued=enqueued, notification=channel_notification(message))

    def handle_approval_event(self, event: str, payload: object = UNDEFINED, *, now_ms: int) -> Dispatch:
        """§7.2: track (``*.requested``) or forget (``*.resolved``) the approval, then queue the event."""
        body = approval_event(event, payload)
        kind: ApprovalKind = "exec" if event.startswith("exec.") else "plugin"
        if event.endswith(".requested"):
            self.pending.track_approval(kind, body.raw, now_ms)
        else:
            self.pending.resolve_approval(body.raw)
        return Dispatch(enqueued=self.queue.enqueue(body))

    def handle_permission_request(self, request: PermissionRequest, *, now_ms: int) -> Dispatch:
        """§8.3: unless closed, store the pending permission (refreshing a repeat), start the sweeper and
        queue a ``claude_permission_request`` event. No notification."""
        if self._closed:
            return _NOTHING
        self.pending.add_permission(request.request_id, now_ms)
        return Dispatch(enqueued=self.queue.enqueue(request.to_event()))

    def permission_notification_failed(self, claim: PendingPermission) -> bool:
        """The permission notification for ``claim`` failed: make it pending again if possible (§8.6)."""
        return self.pending.restore_permission(claim)

    def list_open_approvals(self, now_ms: int) -> tuple[PendingApproval, ...]:
        return self.pending.list_open(now_ms)

    def sweep(self, now_ms: int) -> SweepReport:
        return self.pending.sweep(now_ms)

    def close(self) -> tuple[WaiterSettlement, ...]:
        """Mark closed, clear pending state, stop the sweeper and settle every waiter with no event."""
        self._closed = True
        self.pending.close()
        return self.queue.release_all()
