"""Replays the recorded reference exchanges (``tests/reference_cases/oracle/serve``) through the bridge functions.

For every recorded tool call that reached the Gateway, the request our arguments produce must equal the one
the reference sent, and the recorded Gateway answer fed through our projections must give the recorded MCP
result byte for byte (as JSON data). Recorded Gateway events must give the documented queue events.
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from typing import Any

import pytest

from openclaw_mcp.domain.bridge.approvals import approval_resolve_request
from openclaw_mcp.domain.bridge.channel import BridgeState, PermissionRequest
from openclaw_mcp.domain.bridge.conversations import (
    AttachmentsFetchArgs,
    ConversationsListArgs,
    MessagesReadArgs,
    conversation_from_describe,
    conversations_from_list,
    describe_params,
    message_from_lookup,
    messages_from_response,
    normalize_session_key,
    send_params,
)
from openclaw_mcp.domain.bridge.events import EventFilter, EventQueue, Waiter
from openclaw_mcp.domain.bridge.texts import (
    ToolResult,
    attachments_fetch_result,
    conversation_get_result,
    conversation_not_found_for_send,
    conversations_list_result,
    error_result,
    events_poll_result,
    events_wait_result,
    messages_read_result,
    permissions_list_open_result,
)
from tests.fixtures.reference_cases import ORACLE_SERVE

ORACLE = ORACLE_SERVE

Exchange = tuple[dict[str, Any], dict[str, Any]]


def _exchanges() -> dict[str, deque[Exchange]]:
    """The bridge's Gateway requests and their responses, by method, in recorded order."""
    requests: dict[str, dict[str, Any]] = {}
    by_method: dict[str, deque[Exchange]] = defaultdict(deque)
    for line in (ORACLE / "wire_bridge.jsonl").read_text(encoding="utf-8").splitlines():
        frame = json.loads(line).get("frame") or {}
        if frame.get("type") == "req":
            requests[frame["id"]] = frame
        elif frame.get("type") == "res" and frame["id"] in requests:
            request = requests.pop(frame["id"])
            by_method[request["method"]].append((request["params"], frame))
    return by_method


def _cases(tool: str) -> list[dict[str, Any]]:
    data = json.loads((ORACLE / f"{tool}.json").read_text(encoding="utf-8"))
    return [c for c in data["cases"] if not c["label"].endswith("_invalid")]


def _json(result: ToolResult) -> Any:
    return json.loads(json.dumps(result.to_json()))


@pytest.fixture(scope="module")
def wire() -> dict[str, deque[Exchange]]:
    return _exchanges()


def test_conversations_list_replays(wire: dict[str, deque[Exchange]]) -> None:
    for case in _cases("conversations_list"):
        args = ConversationsListArgs.from_arguments(case["args"])
        params, response = wire["sessions.list"].popleft()
        assert args.request_params() == params, case["label"]
        result = conversations_list_result(conversations_from_list(response["payload"], args.channel))
        assert _json(result) == case["response"]["result"], case["label"]


def test_conversation_get_replays(wire: dict[str, deque[Exchange]]) -> None:
    for case in _cases("conversation_get"):
        session_key = case["args"]["session_key"]
        key = normalize_session_key(session_key)
        conversation = None
        if key is not None:
            params, response = wire["sessions.describe"].popleft()
            assert describe_params(key) == params, case["label"]
            conversation = conversation_from_describe(response["payload"])
        result = conversation_get_result(conversation, session_key)
        assert _json(result) == case["response"]["result"], case["label"]


def test_messages_read_replays(wire: dict[str, deque[Exchange]]) -> None:
    for case in _cases("messages_read"):
        args = MessagesReadArgs.from_arguments(case["args"])
        params, response = wire["sessions.get"].popleft()
        assert args.request_params() == params, case["label"]
        result = messages_read_result(messages_from_response(response["payload"]))
        assert _json(result) == case["response"]["result"], case["label"]


def test_attachments_fetch_replays(wire: dict[str, deque[Exchange]]) -> None:
    for case in _cases("attachments_fetch"):
        args = AttachmentsFetchArgs.from_arguments(case["args"])
        params, response = wire["chat.message.get"].popleft()
        assert args.exact_params() == params, case["label"]
        result = attachments_fetch_result(message_from_lookup(response["payload"]), args.message_id)
        assert _json(result) == case["response"]["result"], case["label"]


def test_permissions_respond_replays(wire: dict[str, deque[Exchange]]) -> None:
    for case in _cases("permissions_respond"):
        args = case["args"]
        method, params = approval_resolve_request(args["kind"], args["id"], args["decision"])
        sent, response = wire[method].popleft()
        assert params == sent, case["label"]
        assert not response["ok"]
        assert _json(error_result(response["error"]["message"])) == case["response"]["result"], case["label"]


def test_messages_send_replays(wire: dict[str, deque[Exchange]]) -> None:
    describes = {params["key"]: response for params, response in wire["sessions.describe"]}
    for case in _cases("messages_send"):
        key = normalize_session_key(case["args"]["session_key"])
        assert key is not None
        assert conversation_from_describe(describes[key]["payload"]) is None
        text = conversation_not_found_for_send(case["args"]["session_key"])
        assert _json(error_result(text)) == case["response"]["result"], case["label"]
    # The recorded send of "reply from mcp" (spec case 92), with the conversation described just before it.
    ((sent, _),) = wire["send"]
    conversation = conversation_from_describe(describes["agent:main:main"]["payload"])
    assert conversation is not None
    assert send_params(conversation, "reply from mcp", sent["idempotencyKey"]) == sent
    assert list(send_params(conversation, "reply from mcp", "u")) == list(sent)


def test_local_tools_on_an_empty_bridge_replay() -> None:
    for case in _cases("events_poll"):
        args = case["args"]
        flt = EventFilter.from_arguments(args.get("after_cursor"), args.get("session_key"))
        result = events_poll_result(EventQueue().poll(flt, args.get("limit", 20)))
        assert _json(result) == case["response"]["result"], case["label"]
    for case in _cases("events_wait"):
        args = case["args"]
        queue = EventQueue()
        flt = EventFilter.from_arguments(args.get("after_cursor"), args.get("session_key"))
        waiter = queue.begin_wait(flt, 0, args.get("timeout_ms", 30000))
        assert isinstance(waiter, Waiter)
        (settled,) = queue.expire(waiter.deadline_ms)
        assert _json(events_wait_result(settled.outcome)) == case["response"]["result"], case["label"]
    for case in _cases("permissions_list_open"):
        result = permissions_list_open_result(BridgeState().list_open_approvals(0))
        assert _json(result) == case["response"]["result"], case["label"]


def test_recorded_owner_stream_gives_the_documented_events_and_notifications() -> None:
    recorded = json.loads((ORACLE / "gateway" / "session_message_events.json").read_text(encoding="utf-8"))
    stream = [e for e in recorded if e["conn"] == "owner"]
    pending = {"yes abcde": "abcde", "No QWERT": "qwert", "yes zxcvb": "zxcvb", "yes hello": "hello"}
    state = BridgeState("on")
    notifications: list[dict[str, Any]] = []
    for entry in stream:
        payload = entry["payload"]
        content = payload["message"]["content"]
        if payload.get("senderIsOwner") is True and isinstance(content, str) and content in pending:
            state.handle_permission_request(PermissionRequest(pending[content], "Bash", "d", "{}"), now_ms=0)
        dispatch = state.handle_gateway_event(entry["event"], payload, now_ms=0)
        if dispatch.notification is not None:
            notifications.append(dispatch.notification.to_json())

    events = [e.to_json() for e in state.queue.poll(EventFilter(0), 200).events]
    first = events[0]
    assert {k: v for k, v in first.items() if k != "raw"} == {
        "cursor": 1,
        "type": "message",
        "sessionKey": "agent:main:main",
        "conversation": {
            "sessionKey": "agent:main:main",
            "channel": "imessage",
            "to": "+15551234567",
            "accountId": "imessage-default",
            "threadId": "thread-42",
            "updatedAt": None,
        },
        "messageId": "6d0f3fcb-bb1a-4f87-9783-fc2eb11c67d5",
        "messageSeq": 4,
        "role": "assistant",
        "text": "assistant live event",
    }
    assert first["raw"] is stream[0]["payload"]
    assert [(e["type"], e.get("role"), e.get("text")) for e in events if e.get("role") == "user"] == [
        ("message", "user", "wait event 7ed5f64f-3490-4cef-b12f-28c3df8a1a3a"),
        ("message", "user", "yes abcde"),  # non-owner: ordinary
        ("message", "user", "yes hello"),  # id outside the grammar
    ]
    assert [n["method"].rsplit("/", 1)[-1] for n in notifications] == [
        "channel",
        "channel",
        "permission",
        "permission",
        "permission",
        "channel",
    ]
    assert notifications[0]["params"] == {
        "content": "wait event 7ed5f64f-3490-4cef-b12f-28c3df8a1a3a",
        "meta": {
            "session_key": "agent:main:main",
            "channel": "imessage",
            "to": "+15551234567",
            "account_id": "imessage-default",
            "thread_id": "thread-42",
            "message_id": "23743629-6cf3-4dbc-8d17-45accc04955b",
        },
    }
    assert [n["params"] for n in notifications[2:5]] == [
        {"request_id": "abcde", "behavior": "allow"},
        {"request_id": "qwert", "behavior": "deny"},
        {"request_id": "zxcvb", "behavior": "allow"},
    ]


def test_recorded_approval_events_are_tracked_listed_and_resolved() -> None:
    recorded = json.loads((ORACLE / "gateway" / "approval_events.json").read_text(encoding="utf-8"))
    state = BridgeState("on")
    for entry in (e for e in recorded if e["conn"] == "observer"):
        state.handle_gateway_event(entry["event"], entry["payload"], now_ms=1795954422400)
        if entry["event"] == "plugin.approval.requested":
            listed = [a.to_json() for a in state.list_open_approvals(1795954422400)]
            assert [(a["kind"], a["createdAtMs"]) for a in listed] == [
                ("exec", 1795954422255),
                ("plugin", 1795954422313),
            ]
            assert all(list(a) == ["kind", "id", "request", "createdAtMs", "expiresAtMs"] for a in listed)
    assert state.list_open_approvals(1795954422400) == ()
    assert [e.type for e in state.queue.events] == [
        "exec_approval_requested",
        "plugin_approval_requested",
        "exec_approval_resolved",
        "plugin_approval_resolved",
    ]
    assert not state.pending.sweeper_active or state.sweep(1795954422400).sweeper_stopped
