"""Tool results and stderr lines of the bridge (spec serve-bridge §5.0.1, §4.3, §5.1–§5.9, §8.3, §11).

upstream: ``channel-shared.ts`` (``summarizeResult``, ``summarizeStructuredResult``), ``channel-tools.ts``
(the handlers' results), ``channel-bridge.ts`` (stderr writes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from openclaw_mcp.domain.bridge.approvals import PendingApproval
from openclaw_mcp.domain.bridge.conversations import Conversation, extract_attachments
from openclaw_mcp.domain.bridge.events import PollResult, WaitOutcome
from openclaw_mcp.jscompat.jsjson import JsonValue, js_dumps, js_to_string
from openclaw_mcp.jscompat.undefined import UNDEFINED

__all__ = [
    "ToolResult",
    "attachments_fetch_result",
    "conversation_get_result",
    "conversation_not_found_for_send",
    "conversations_list_result",
    "error_result",
    "events_poll_result",
    "events_wait_result",
    "gateway_event_error_line",
    "gateway_event_failed_line",
    "ignored_permission_request_line",
    "messages_read_result",
    "messages_send_result",
    "notification_error_line",
    "notification_failed_line",
    "pending_permission_line",
    "permissions_list_open_result",
    "permissions_respond_result",
    "pretty",
    "structured_summary",
    "summary",
]


def pretty(value: JsonValue) -> str:
    """``JSON.stringify(value, null, 2)``."""
    return js_dumps(value, 2)


def summary(label: str, count: int) -> str:
    """``<label>: <count>``."""
    return f"{label}: {count}"


def structured_summary(label: str, count: int, payload: JsonValue) -> str:
    """``<label>: <count>``, a blank line, then ``pretty(payload)``."""
    return f"{label}: {count}\n\n{pretty(payload)}"


@dataclass(frozen=True, slots=True)
class ToolResult:
    """A ``tools/call`` result: one text block, optional structured content, optional ``isError``."""

    text: str
    structured: dict[str, Any] | None = None
    is_error: bool = False

    def to_json(self) -> dict[str, Any]:
        """``{"content":[{"type":"text","text":…}]}`` + ``structuredContent`` and/or ``"isError": true``.

        The structured content is the same object; it comes out in JavaScript property order (integer-like
        keys first) because every JSON writer of the project writes keys in that order.
        """
        out: dict[str, Any] = {"content": [{"type": "text", "text": self.text}]}
        if self.structured is not None:
            out["structuredContent"] = self.structured
        if self.is_error:
            out["isError"] = True
        return out


def error_result(message: str) -> ToolResult:
    """A handler error (§4.3 step 5) or a handler-built error result: the text only, ``isError``."""
    return ToolResult(text=message, is_error=True)


def conversations_list_result(conversations: Sequence[Conversation]) -> ToolResult:
    payload = {"conversations": [c.to_json() for c in conversations]}
    return ToolResult(structured_summary("conversations", len(conversations), payload), payload)


def conversation_get_result(conversation: Conversation | None, session_key: str) -> ToolResult:
    """``conversation <sessionKey>``, or the error ``conversation not found: <session_key as given>``."""
    if conversation is None:
        return error_result(f"conversation not found: {session_key}")
    shown = js_to_string(conversation.session_key)
    return ToolResult(f"conversation {shown}", {"conversation": conversation.to_json()})


def conversation_not_found_for_send(session_key: str) -> str:
    """The error ``messages_send`` raises for an unknown or unroutable session (key as given)."""
    return f"Conversation not found for session {session_key}"


def messages_read_result(messages: Sequence[JsonValue]) -> ToolResult:
    payload = {"messages": list(messages)}
    return ToolResult(structured_summary("messages", len(messages), payload), payload)


def attachments_fetch_result(message: JsonValue | None, message_id: str) -> ToolResult:
    """``attachments: <n>`` with ``{"attachments", "message"}``, or the error ``message not found: <id>``."""
    if message is None:
        return error_result(f"message not found: {message_id}")
    attachments = extract_attachments(message)
    payload = {"attachments": attachments, "message": message}
    return ToolResult(summary("attachments", len(attachments)), payload)


def events_poll_result(poll: PollResult) -> ToolResult:
    return ToolResult(summary("events", len(poll.events)), poll.to_json())


def events_wait_result(outcome: WaitOutcome) -> ToolResult:
    return ToolResult(outcome.text, outcome.to_json())


def _result_payload(payload: object) -> dict[str, Any]:
    return {} if payload is UNDEFINED else {"result": payload}


def messages_send_result(payload: object = UNDEFINED) -> ToolResult:
    """``sent`` with ``{"result": <send answer verbatim>}``."""
    return ToolResult("sent", _result_payload(payload))


def permissions_list_open_result(approvals: Sequence[PendingApproval]) -> ToolResult:
    return ToolResult(summary("approvals", len(approvals)), {"approvals": [a.to_json() for a in approvals]})


def permissions_respond_result(payload: object = UNDEFINED) -> ToolResult:
    """``approval resolved`` with ``{"result": <resolve answer verbatim>}``."""
    return ToolResult("approval resolved", _result_payload(payload))


# --- stderr lines (without the trailing newline) -------------------------------------------------------


def pending_permission_line(request_id: str) -> str:
    """Verbose only: a Claude permission request was stored (§8.3)."""
    return f"openclaw mcp: pending Claude permission {request_id}"


def ignored_permission_request_line(method: str, era: str) -> str:
    """Verbose only: a Claude permission request on a connection of the 2026-07-28 era was ignored
    (protocol-eras §4.4)."""
    return f"openclaw mcp: ignored {method} on a {era} connection"


def notification_failed_line(method: str) -> str:
    """A notification write failed while open (§11.1); no error detail."""
    return f"openclaw mcp: notification {method} failed"


def notification_error_line(method: str, error_text: str) -> str:
    """Verbose only, after :func:`notification_failed_line`."""
    return f"openclaw mcp: notification {method} error: {error_text}"


def gateway_event_failed_line(event: str) -> str:
    """Handling a Gateway event failed (§11.2)."""
    return f"openclaw mcp: gateway event {event} failed"


def gateway_event_error_line(event: str, error_text: str) -> str:
    """Verbose only, after :func:`gateway_event_failed_line`."""
    return f"openclaw mcp: gateway event {event} error: {error_text}"
