"""Claude channel mode: notifications, permission requests, replies and BridgeState (serve-bridge §6.3, §8).

Reply-grammar expectations were checked against the reference's regular expression under node 24.
"""

from __future__ import annotations

from typing import Any

import pytest

from openclaw_mcp.domain.bridge.channel import (
    INVALID_CHANNEL_MODE_MESSAGE,
    BridgeState,
    ClaudeChannelMode,
    InvalidClaudeChannelMode,
    Notification,
    PermissionReply,
    PermissionRequest,
    channel_notification,
    emits_channel_notification,
    experimental_capabilities,
    owner_permission_reply,
    parse_claude_channel_mode,
    parse_permission_reply,
    permission_notification,
)
from openclaw_mcp.domain.bridge.events import (
    EventFilter,
    GatewayPayloadError,
    MessageEvent,
    Waiter,
    project_session_message,
)
from openclaw_mcp.jscompat.undefined import UNDEFINED

ROUTE: dict[str, Any] = {
    "lastChannel": "imessage",
    "lastTo": "+15551234567",
    "lastAccountId": "imessage-default",
    "lastThreadId": "thread-42",
}


def turn(text: object, *, owner: object = UNDEFINED, role: str = "user", **extra: Any) -> dict[str, Any]:
    """A ``session.message`` payload shaped like the recorded ones (top-level route, message, ids)."""
    payload: dict[str, Any] = {"sessionKey": "agent:main:main"}
    if owner is not UNDEFINED:
        payload["senderIsOwner"] = owner
    payload["agentId"] = "main"
    payload["message"] = {"role": role, "content": text, "__openclaw": {"id": "m-1"}}
    payload["messageId"] = "m-1"
    payload["messageSeq"] = 5
    payload.update(ROUTE)
    payload.update(extra)
    return payload


def request(request_id: str) -> PermissionRequest:
    return PermissionRequest(request_id, "Bash", "run npm test", '{"cmd":"npm test"}')


def state_with_pending(*ids: str, mode: ClaudeChannelMode = "on") -> BridgeState:
    state = BridgeState(mode)
    for request_id in ids:
        state.handle_permission_request(request(request_id), now_ms=0)
    return state


# --- mode and capabilities ---


@pytest.mark.parametrize(
    ("value", "mode"),
    [
        (None, "auto"),
        ("", "auto"),
        ("   ", "auto"),
        ("ON", "on"),
        (" on ", "on"),
        ("Off", "off"),
        ("auto", "auto"),
    ],
)
def test_channel_mode_values_are_trimmed_lower_cased_and_default_to_auto(value: object, mode: str) -> None:
    assert parse_claude_channel_mode(value) == mode


@pytest.mark.parametrize("value", ["sometimes", "o n", 1, True])
def test_unknown_channel_modes_fail_with_the_reference_message(value: object) -> None:
    with pytest.raises(InvalidClaudeChannelMode) as raised:
        parse_claude_channel_mode(value)
    assert str(raised.value) == 'Invalid --claude-channel-mode value. Use "auto", "on", or "off".'
    assert str(raised.value) == INVALID_CHANNEL_MODE_MESSAGE


def test_experimental_capabilities_are_offered_unless_mode_is_off() -> None:
    expected: dict[str, Any] = {"claude/channel": {}, "claude/channel/permission": {}}
    assert experimental_capabilities("on") == expected
    assert experimental_capabilities("auto") == expected
    assert experimental_capabilities("off") is None


# --- reply grammar (§8.4) ---


@pytest.mark.parametrize(
    ("text", "reply"),
    [
        ("yes abcde", ("yes", "abcde")),
        ("yes  abcde", ("yes", "abcde")),
        ("yes\tabcde", ("yes", "abcde")),
        ("No QWERT", ("No", "qwert")),
        ("YES ZXCVB", ("YES", "zxcvb")),
        ("Yes AbCdE", ("Yes", "abcde")),
        ("nO mnbvc", ("nO", "mnbvc")),
        ("no\r\nabcde", ("no", "abcde")),
        ("no \x0b\x0cmnbvc", ("no", "mnbvc")),
        ("yes\xa0abcde", ("yes", "abcde")),
        ("yes\u2028abcde", ("yes", "abcde")),
        ("yes\ufeffabcde", ("yes", "abcde")),
        ("yes\u3000abcde", ("yes", "abcde")),
        (" yes abcde", None),
        ("yes abcde\n", None),
        ("yes abcdef", None),
        ("yesabcde", None),
        ("yes hello", None),
        ("yes abcdL", None),
        ("yes abcd", None),
        ("y abcde", None),
        ("yes\x85abcde", None),
        ("yes\x1cabcde", None),
        ("yes\u180eabcde", None),
        ("yes\u200babcde", None),
        ("yes \u212aabcd", None),
        ("yes \u017fabcd", None),
        ("yes \u0131bcde", None),
        ("yes \u0130bcde", None),
        ("nö abcde", None),
        ("", None),
        (None, None),
    ],
)
def test_reply_grammar_matches_the_reference_regular_expression(
    text: str | None, reply: tuple[str, str] | None
) -> None:
    parsed = parse_permission_reply(text)
    assert (None if parsed is None else (parsed.word, parsed.code)) == reply


def test_reply_behaviour_is_allow_for_yes_and_deny_for_no() -> None:
    assert PermissionReply("YeS", "abcde").behavior == "allow"
    assert PermissionReply("NO", "abcde").behavior == "deny"


@pytest.mark.parametrize(
    ("payload", "is_reply"),
    [
        (turn("yes abcde", owner=True), True),
        (turn("yes abcde"), False),
        (turn("yes abcde", owner="true"), False),
        (turn("yes abcde", owner=1), False),
        (turn("yes abcde", owner=True, role="assistant"), False),
        (turn([{"type": "text", "text": "yes abcde"}], owner=True), True),
        (
            {
                **turn("yes abcde"),
                "message": {"role": "user", "content": "yes abcde", "__openclaw": {"senderIsOwner": True}},
            },
            False,
        ),
    ],
)
def test_only_top_level_boolean_owner_user_turns_are_replies(payload: dict[str, Any], is_reply: bool) -> None:
    message = project_session_message(payload)
    assert message is not None
    assert (owner_permission_reply(message) is not None) is is_reply


# --- notifications (§8.2) ---


def test_channel_notification_for_the_recorded_owner_turn() -> None:
    payload = turn("wait event 7ed5f64f-3490-4cef-b12f-28c3df8a1a3a", owner=True)
    payload["messageId"] = "23743629-6cf3-4dbc-8d17-45accc04955b"
    message = project_session_message(payload)
    assert message is not None
    assert channel_notification(message).to_json() == {
        "method": "notifications/claude/channel",
        "params": {
            "content": "wait event 7ed5f64f-3490-4cef-b12f-28c3df8a1a3a",
            "meta": {
                "session_key": "agent:main:main",
                "channel": "imessage",
                "to": "+15551234567",
                "account_id": "imessage-default",
                "thread_id": "thread-42",
                "message_id": "23743629-6cf3-4dbc-8d17-45accc04955b",
            },
        },
    }


def test_channel_notification_fills_unknowns_with_empty_strings() -> None:
    payload = {
        "sessionKey": "s",
        "lastChannel": "c",
        "lastTo": "t",
        "lastThreadId": 42,
        "messageId": " ",
        "message": {"role": "user", "content": [{"type": "image"}]},
    }
    message = project_session_message(payload)
    assert message is not None
    assert channel_notification(message).params == {
        "content": "[non-text message]",
        "meta": {
            "session_key": "s",
            "channel": "c",
            "to": "t",
            "account_id": "",
            "thread_id": "42",
            "message_id": "",
        },
    }
    blank = {"role": "user", "content": ""}
    empty = project_session_message({**payload, "message": blank, "lastThreadId": None})
    assert empty is not None
    assert channel_notification(empty).params["content"] == ""
    assert channel_notification(empty).params["meta"]["thread_id"] == ""


def test_channel_notifications_need_a_user_turn_with_a_conversation_and_mode_not_off() -> None:
    user = MessageEvent(session_key="s", raw={}, role="user")
    routed = project_session_message(turn("hi"))
    assistant = project_session_message(turn("hi", role="assistant"))
    assert routed is not None and assistant is not None
    assert emits_channel_notification("on", routed)
    assert emits_channel_notification("auto", routed)
    assert not emits_channel_notification("off", routed)
    assert not emits_channel_notification("on", assistant)
    assert not emits_channel_notification("on", user)


def test_permission_notification_payload() -> None:
    assert permission_notification("qwert", "deny") == Notification(
        "notifications/claude/channel/permission", {"request_id": "qwert", "behavior": "deny"}
    )


# --- inbound permission requests (§8.3) ---


def test_permission_request_params_need_four_strings_and_ignore_extra_keys() -> None:
    params = {"request_id": "abcde", "tool_name": "Bash", "description": "d", "input_preview": "{}", "x": 1}
    assert PermissionRequest.from_params(params) == PermissionRequest("abcde", "Bash", "d", "{}")
    assert PermissionRequest.from_params({**params, "tool_name": 5}) is None
    assert PermissionRequest.from_params({k: v for k, v in params.items() if k != "description"}) is None
    assert PermissionRequest.from_params(None) is None
    assert PermissionRequest.from_params([params]) is None


def test_permission_request_is_queued_and_hidden_by_session_filters() -> None:
    state = BridgeState("on")
    dispatch = state.handle_permission_request(request("abcde"), now_ms=0)
    assert dispatch.notification is None
    assert dispatch.event is not None
    assert dispatch.event.to_json() == {
        "cursor": 1,
        "type": "claude_permission_request",
        "requestId": "abcde",
        "toolName": "Bash",
        "description": "run npm test",
        "inputPreview": '{"cmd":"npm test"}',
    }
    assert state.queue.poll(EventFilter(0, "agent:main:main")).events == ()
    assert state.pending.sweeper_active


def test_permission_requests_after_close_are_ignored() -> None:
    state = BridgeState("on")
    state.close()
    dispatch = state.handle_permission_request(request("abcde"), now_ms=0)
    assert dispatch.enqueued is None
    assert state.queue.last_cursor == 0
    assert not state.pending.sweeper_active


# --- BridgeState: session messages ---


def test_user_turn_is_queued_then_announced_on_the_channel() -> None:
    state = BridgeState("on")
    waiter = state.queue.begin_wait(EventFilter(0, "agent:main:main"), 0, 15000)
    assert isinstance(waiter, Waiter)
    dispatch = state.handle_gateway_event("session.message", turn("hello", owner=True), now_ms=1)
    assert dispatch.event is not None and dispatch.event.cursor == 1
    assert [s.waiter for s in dispatch.settled] == [waiter]
    assert dispatch.settled[0].outcome.text == "event 1"
    assert dispatch.notification is not None
    assert dispatch.notification.method == "notifications/claude/channel"
    assert dispatch.claim is None


def test_assistant_turns_are_queued_without_notification() -> None:
    reply = turn("mock reply", role="assistant")
    dispatch = BridgeState("on").handle_gateway_event("session.message", reply, now_ms=0)
    assert dispatch.event is not None
    assert dispatch.notification is None


def test_message_without_route_is_queued_without_conversation_or_notification() -> None:
    payload = {"sessionKey": "s", "message": {"role": "user", "content": "hi"}}
    dispatch = BridgeState("on").handle_gateway_event("session.message", payload, now_ms=0)
    assert dispatch.event is not None
    assert "conversation" not in dispatch.event.to_json()
    assert dispatch.notification is None


def test_message_without_session_key_takes_no_cursor() -> None:
    state = BridgeState("on")
    dispatch = state.handle_gateway_event("session.message", {"message": {"role": "user"}}, now_ms=0)
    assert dispatch.enqueued is None and dispatch.notification is None
    assert state.queue.last_cursor == 0


def test_null_session_message_payload_raises_and_queues_nothing() -> None:
    state = BridgeState("on")
    with pytest.raises(GatewayPayloadError):
        state.handle_gateway_event("session.message", None, now_ms=0)
    with pytest.raises(GatewayPayloadError):
        state.handle_gateway_event("session.message", now_ms=0)
    assert state.queue.last_cursor == 0


def test_other_gateway_events_are_ignored() -> None:
    state = BridgeState("on")
    for name in ("chat", "agent", "sessions.changed", "tick", "exec.approval.request"):
        assert state.handle_gateway_event(name, {"sessionKey": "s"}, now_ms=0).enqueued is None
    assert state.queue.last_cursor == 0


def test_owner_reply_to_a_pending_request_is_consumed_and_answered() -> None:
    state = state_with_pending("abcde")
    dispatch = state.handle_gateway_event("session.message", turn("yes abcde", owner=True), now_ms=1)
    assert dispatch.enqueued is None
    assert dispatch.notification == Notification(
        "notifications/claude/channel/permission", {"request_id": "abcde", "behavior": "allow"}
    )
    assert dispatch.claim is not None and dispatch.claim.request_id == "abcde"
    assert state.queue.last_cursor == 1  # only the permission request took a cursor
    again = state.handle_gateway_event("session.message", turn("yes abcde", owner=True), now_ms=2)
    assert again.event is not None and again.event.cursor == 2
    assert again.notification is not None and again.notification.method == "notifications/claude/channel"


def test_owner_no_with_upper_case_code_denies() -> None:
    state = state_with_pending("qwert")
    dispatch = state.handle_gateway_event("session.message", turn("No QWERT", owner=True), now_ms=1)
    assert dispatch.notification is not None
    assert dispatch.notification.params == {"request_id": "qwert", "behavior": "deny"}


def test_non_owner_reply_is_an_ordinary_message_with_a_channel_notification() -> None:
    state = state_with_pending("abcde")
    dispatch = state.handle_gateway_event("session.message", turn("yes abcde"), now_ms=1)
    assert dispatch.event is not None
    assert "senderIsOwner" not in dispatch.event.to_json()["raw"]
    assert dispatch.notification is not None
    assert dispatch.notification.params["content"] == "yes abcde"
    assert "abcde" in state.pending.permissions


def test_owner_reply_for_an_unknown_code_is_an_ordinary_message() -> None:
    state = state_with_pending("abcde")
    dispatch = state.handle_gateway_event("session.message", turn("yes qwert", owner=True), now_ms=1)
    assert dispatch.event is not None and dispatch.claim is None


def test_upper_case_request_id_is_answered_with_the_id_as_received() -> None:
    state = state_with_pending("ZXCVB")
    dispatch = state.handle_gateway_event("session.message", turn("yes zxcvb", owner=True), now_ms=1)
    assert dispatch.enqueued is None
    assert dispatch.notification is not None
    assert dispatch.notification.params == {"request_id": "ZXCVB", "behavior": "allow"}


def test_ids_outside_the_grammar_cannot_be_answered_from_chat() -> None:
    state = state_with_pending("hello")
    dispatch = state.handle_gateway_event("session.message", turn("yes hello", owner=True), now_ms=1)
    assert dispatch.event is not None
    assert dispatch.notification is not None and dispatch.notification.params["content"] == "yes hello"


def test_assistant_message_that_looks_like_a_reply_is_ordinary() -> None:
    state = state_with_pending("abcde")
    lookalike = turn("yes abcde", owner=True, role="assistant")
    dispatch = state.handle_gateway_event("session.message", lookalike, now_ms=1)
    assert dispatch.event is not None and dispatch.notification is None


def test_second_concurrent_reply_finds_the_claim_taken() -> None:
    state = state_with_pending("abcde")
    first = state.handle_gateway_event("session.message", turn("yes abcde", owner=True), now_ms=1)
    second = state.handle_gateway_event("session.message", turn("no abcde", owner=True), now_ms=1)
    assert first.notification is not None and first.notification.params["behavior"] == "allow"
    assert second.claim is None and second.event is not None
    assert second.notification is not None and second.notification.method == "notifications/claude/channel"


def test_failed_permission_notification_makes_the_request_pending_again() -> None:
    state = state_with_pending("abcde")
    first = state.handle_gateway_event("session.message", turn("yes abcde", owner=True), now_ms=1)
    assert first.claim is not None
    assert state.permission_notification_failed(first.claim)
    second = state.handle_gateway_event("session.message", turn("no abcde", owner=True), now_ms=2)
    assert second.notification is not None
    assert second.notification.params == {"request_id": "abcde", "behavior": "deny"}
    assert second.enqueued is None


def test_mode_off_sends_no_channel_notifications_but_still_answers_owners() -> None:
    state = state_with_pending("mnbvc", mode="off")
    reply = state.handle_gateway_event("session.message", turn("yes mnbvc", owner=True), now_ms=1)
    assert reply.notification is not None
    assert reply.notification.params == {"request_id": "mnbvc", "behavior": "allow"}
    ordinary = state.handle_gateway_event("session.message", turn("hello", owner=True), now_ms=2)
    assert ordinary.event is not None and ordinary.notification is None
    assistant = state.handle_gateway_event("session.message", turn("mock reply", role="assistant"), now_ms=3)
    assert [e.type for e in state.queue.poll(EventFilter(0), 50).events] == [
        "claude_permission_request",
        "message",
        "message",
    ]
    assert assistant.event is not None and assistant.event.cursor == 3


def test_without_the_channel_events_are_only_queued_and_owner_replies_stay_messages() -> None:
    """A connection without the Claude channel (protocol-eras D-PE14): no notification, no permission claim."""
    state = state_with_pending("abcde")
    reply = state.handle_gateway_event("session.message", turn("yes abcde", owner=True), now_ms=1, channel=False)
    assert reply.notification is None and reply.claim is None
    assert reply.event is not None and reply.event.to_json()["text"] == "yes abcde"
    assert "abcde" in state.pending.permissions
    user = state.handle_session_message(turn("hello", owner=True), channel=False)
    assert user.event is not None and user.notification is None


# --- BridgeState: approvals, sweeping, close ---


def test_approval_events_are_tracked_queued_and_resolved() -> None:
    state = BridgeState("on")
    requested = {
        "approvalKind": "exec",
        "id": "e1",
        "request": {"command": "echo"},
        "createdAtMs": 1,
        "expiresAtMs": 9,
    }
    dispatch = state.handle_gateway_event("exec.approval.requested", requested, now_ms=0)
    assert dispatch.event is not None
    assert dispatch.event.to_json() == {"cursor": 1, "type": "exec_approval_requested", "raw": requested}
    assert [a.id for a in state.list_open_approvals(5)] == ["e1"]
    resolved = {"id": "e1", "decision": "deny", "resolvedBy": "OpenClaw MCP", "ts": 3}
    state.handle_gateway_event("plugin.approval.resolved", resolved, now_ms=6)
    assert state.list_open_approvals(6) == ()
    state.handle_gateway_event("plugin.approval.requested", None, now_ms=7)
    assert [e.to_json() for e in state.queue.events][-1] == {
        "cursor": 3,
        "type": "plugin_approval_requested",
        "raw": {},
    }


def test_close_settles_waiters_clears_pending_state_and_stops_the_sweeper() -> None:
    state = state_with_pending("abcde")
    state.handle_gateway_event("exec.approval.requested", {"id": "e"}, now_ms=0)
    waiter = state.queue.begin_wait(EventFilter(5), 0)
    assert isinstance(waiter, Waiter)
    settled = state.close()
    assert [s.waiter for s in settled] == [waiter]
    assert settled[0].outcome.to_json() == {"event": None}
    assert state.closed
    assert state.pending.permissions == {} and state.pending.approvals == {}
    assert not state.pending.sweeper_active
    state.handle_gateway_event("exec.approval.requested", {"id": "e2"}, now_ms=1)
    assert state.pending.approvals == {}
    assert not state.pending.sweeper_active


def test_no_notifications_are_produced_after_close() -> None:
    state = BridgeState("on")
    state.close()
    dispatch = state.handle_gateway_event("session.message", turn("hello", owner=True), now_ms=0)
    assert dispatch.notification is None


def test_sweep_expires_permissions_through_the_state() -> None:
    state = state_with_pending("abcde")
    assert state.sweep(5 * 60_000).expired_permissions == ()
    report = state.sweep(60 * 60_000)
    assert report.expired_permissions == ("abcde",)
    assert report.sweeper_stopped
