"""Tool result texts and envelopes, and the bridge's stderr lines (serve-bridge §5.0.1, §4.3, §11)."""

from __future__ import annotations

from openclaw_mcp.domain.bridge.approvals import PendingApproval
from openclaw_mcp.domain.bridge.conversations import Conversation
from openclaw_mcp.domain.bridge.events import EventFilter, EventQueue, MessageEvent, WaitOutcome
from openclaw_mcp.domain.bridge.texts import (
    ToolResult,
    attachments_fetch_result,
    conversation_get_result,
    conversation_not_found_for_send,
    conversations_list_result,
    error_result,
    events_poll_result,
    events_wait_result,
    gateway_event_error_line,
    gateway_event_failed_line,
    messages_read_result,
    messages_send_result,
    notification_error_line,
    notification_failed_line,
    pending_permission_line,
    permissions_list_open_result,
    permissions_respond_result,
    pretty,
    structured_summary,
    summary,
)
from openclaw_mcp.jscompat.jsjson import js_dumps
from openclaw_mcp.jscompat.undefined import UNDEFINED


def test_empty_lists_render_like_the_reference() -> None:
    assert conversations_list_result([]).to_json() == {
        "content": [{"type": "text", "text": 'conversations: 0\n\n{\n  "conversations": []\n}'}],
        "structuredContent": {"conversations": []},
    }
    assert messages_read_result([]).text == 'messages: 0\n\n{\n  "messages": []\n}'


def test_conversations_list_text_is_the_count_and_pretty_json() -> None:
    conversation = Conversation(session_key="k", channel="c", to="t", thread_id=42, updated_at=1.0)
    result = conversations_list_result([conversation])
    assert result.text == (
        "conversations: 1\n\n{\n"
        '  "conversations": [\n'
        "    {\n"
        '      "sessionKey": "k",\n'
        '      "channel": "c",\n'
        '      "to": "t",\n'
        '      "threadId": 42,\n'
        '      "updatedAt": 1\n'
        "    }\n"
        "  ]\n"
        "}"
    )


def test_pretty_is_javascript_json_stringify_with_two_spaces() -> None:
    assert pretty({"b": "é", "2": 1.0, "a": [None, 1e21]}) == (
        '{\n  "2": 1,\n  "b": "é",\n  "a": [\n    null,\n    1e+21\n  ]\n}'
    )
    assert summary("events", 0) == "events: 0"
    assert structured_summary("x", 1, {}) == "x: 1\n\n{}"


def test_structured_content_is_emitted_in_javascript_key_order() -> None:
    result = messages_read_result([{"b": 1, "10": 2, "1": 3}])
    assert js_dumps(result.to_json()["structuredContent"], None) == '{"messages":[{"1":3,"10":2,"b":1}]}'


def test_conversation_get_found_and_not_found() -> None:
    conversation = Conversation(session_key="agent:main:main", channel="c", to="t")
    found = conversation_get_result(conversation, "  agent:main:main  ").to_json()
    assert found["content"] == [{"type": "text", "text": "conversation agent:main:main"}]
    assert found["structuredContent"] == {"conversation": conversation.to_json()}
    assert "isError" not in found
    assert conversation_get_result(None, "   ").to_json() == {
        "content": [{"type": "text", "text": "conversation not found:    "}],
        "isError": True,
    }
    odd = Conversation(session_key=UNDEFINED, channel="c", to="t")
    assert conversation_get_result(odd, "k").text == "conversation undefined"


def test_attachments_results() -> None:
    message = {"role": "assistant", "content": [{"type": "text", "text": "x"}, {"type": "image"}]}
    result = attachments_fetch_result(message, "m")
    assert result.text == "attachments: 1"
    assert result.structured == {"attachments": [{"type": "image"}], "message": message}
    assert attachments_fetch_result(None, "msg-nope").to_json() == {
        "content": [{"type": "text", "text": "message not found: msg-nope"}],
        "isError": True,
    }


def test_events_results() -> None:
    queue = EventQueue()
    assert events_poll_result(queue.poll(EventFilter(5))).to_json() == {
        "content": [{"type": "text", "text": "events: 0"}],
        "structuredContent": {"events": [], "next_cursor": 5},
    }
    queue.enqueue(MessageEvent(session_key="s", raw={}))
    assert events_poll_result(queue.poll(EventFilter())).text == "events: 1"
    assert events_wait_result(WaitOutcome()).to_json() == {
        "content": [{"type": "text", "text": "timeout"}],
        "structuredContent": {"event": None},
    }


def test_send_and_respond_results_wrap_the_gateway_answer() -> None:
    assert messages_send_result({"ok": True}).to_json() == {
        "content": [{"type": "text", "text": "sent"}],
        "structuredContent": {"result": {"ok": True}},
    }
    assert permissions_respond_result({"ok": True}).to_json() == {
        "content": [{"type": "text", "text": "approval resolved"}],
        "structuredContent": {"result": {"ok": True}},
    }
    assert permissions_respond_result().structured == {}
    assert messages_send_result(None).structured == {"result": None}


def test_permissions_list_open_result() -> None:
    approval = PendingApproval(kind="exec", id="e", created_at_ms=1)
    assert permissions_list_open_result([approval]).to_json() == {
        "content": [{"type": "text", "text": "approvals: 1"}],
        "structuredContent": {"approvals": [{"kind": "exec", "id": "e", "createdAtMs": 1}]},
    }


def test_error_results_carry_only_text_and_is_error() -> None:
    assert error_result("gateway not connected") == ToolResult("gateway not connected", None, True)
    assert error_result("x").to_json() == {"content": [{"type": "text", "text": "x"}], "isError": True}
    not_found = conversation_not_found_for_send("agent:main:nope")
    assert not_found == "Conversation not found for session agent:main:nope"


def test_stderr_lines() -> None:
    assert pending_permission_line("abcde") == "openclaw mcp: pending Claude permission abcde"
    method = "notifications/claude/channel"
    failed = notification_failed_line(method)
    assert failed == "openclaw mcp: notification notifications/claude/channel failed"
    assert notification_error_line(method, "Error: boom") == (
        "openclaw mcp: notification notifications/claude/channel error: Error: boom"
    )
    event_failed = gateway_event_failed_line("session.message")
    assert event_failed == "openclaw mcp: gateway event session.message failed"
    assert gateway_event_error_line("session.message", "TypeError: x") == (
        "openclaw mcp: gateway event session.message error: TypeError: x"
    )
