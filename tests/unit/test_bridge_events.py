"""The event queue: projection, cursors, filters, gaps, poll and waiters (serve-bridge §6, §12.5)."""

from __future__ import annotations

from typing import Any

import pytest

from openclaw_mcp.domain.bridge.events import (
    QUEUE_LIMIT,
    ApprovalEvent,
    ClaudePermissionRequestEvent,
    CursorGap,
    EventFilter,
    EventQueue,
    GatewayPayloadError,
    MessageEvent,
    PollResult,
    QueuedEvent,
    Waiter,
    WaitOutcome,
    approval_event,
    first_text,
    project_session_message,
)
from openclaw_mcp.jscompat.undefined import UNDEFINED

# The recorded chat.inject payload (gateway/session_message_events.json), trimmed to the keys that matter.
INJECTED: dict[str, Any] = {
    "sessionKey": "agent:main:main",
    "agentId": "main",
    "message": {
        "role": "assistant",
        "content": [{"type": "text", "text": "assistant live event"}],
        "__openclaw": {"id": "6d0f3fcb-bb1a-4f87-9783-fc2eb11c67d5", "seq": 4},
    },
    "messageId": "6d0f3fcb-bb1a-4f87-9783-fc2eb11c67d5",
    "messageSeq": 4,
    "updatedAt": 1795954394272,
    "channel": "imessage",
    "deliveryContext": {"channel": "imessage", "to": "+15551234567", "accountId": "imessage-default"},
    "lastChannel": "imessage",
    "lastTo": "+15551234567",
    "lastAccountId": "imessage-default",
    "lastThreadId": "thread-42",
}


def message(session_key: str = "X", text: str = "t") -> MessageEvent:
    return MessageEvent(session_key=session_key, raw={"sessionKey": session_key}, role="assistant", text=text)


def filled(count: int, session_key: str = "X") -> EventQueue:
    queue = EventQueue()
    for _ in range(count):
        queue.enqueue(message(session_key))
    return queue


def cursors(result: PollResult) -> list[int]:
    return [event.cursor for event in result.events]


# --- §6.3 projection ---


def test_injected_message_becomes_the_observed_message_event() -> None:
    body = project_session_message(INJECTED)
    assert body is not None
    event = EventQueue().enqueue(body).event
    assert event.to_json() == {
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
        "raw": INJECTED,
    }
    assert event.to_json()["raw"] is INJECTED


def test_event_conversation_uses_only_top_level_last_fields() -> None:
    payload = {
        "sessionKey": " s ",
        "deliveryContext": {"channel": "c", "to": "t"},
        "channel": "c",
        "lastTo": "t",
    }
    body = project_session_message(payload)
    assert body is not None
    assert body.session_key == "s"
    assert body.conversation is None
    assert "conversation" not in body.fields()


def test_event_conversation_omits_thread_when_last_thread_is_null_and_keeps_numbers() -> None:
    base = {"sessionKey": "s", "lastChannel": " TG ", "lastTo": " 1 "}
    for extra, expected in (({}, UNDEFINED), ({"lastThreadId": None}, UNDEFINED), ({"lastThreadId": 42}, 42)):
        body = project_session_message({**base, **extra})
        assert body is not None and body.conversation is not None
        assert body.conversation.thread_id == expected
        assert body.conversation.channel == "tg"
        assert body.conversation.to == "1"


@pytest.mark.parametrize("payload", [{}, {"sessionKey": "  "}, {"sessionKey": 5}, "str", 7, [1], True])
def test_session_messages_without_a_session_key_are_dropped(payload: object) -> None:
    assert project_session_message(payload) is None


def test_null_or_missing_session_message_payload_fails_like_the_reference() -> None:
    with pytest.raises(GatewayPayloadError) as null:
        project_session_message(None)
    assert str(null.value) == "Cannot read properties of null (reading 'sessionKey')"
    assert null.value.js_text == "TypeError: Cannot read properties of null (reading 'sessionKey')"
    undefined = r"^Cannot read properties of undefined \(reading 'sessionKey'\)$"
    with pytest.raises(GatewayPayloadError, match=undefined):
        project_session_message(UNDEFINED)


def test_message_event_key_order_and_absent_keys() -> None:
    body = project_session_message(
        {
            "sessionKey": "s",
            "messageSeq": "5",
            "messageId": " ",
            "message": {"role": " user ", "content": [5]},
        }
    )
    assert body is not None
    assert body.fields() == {"type": "message", "sessionKey": "s", "role": "user", "raw": body.raw}
    full = MessageEvent(session_key="s", raw={}, message_id="m", message_seq=1.5, role="r", text="")
    assert list(full.fields()) == ["type", "sessionKey", "messageId", "messageSeq", "role", "text", "raw"]


@pytest.mark.parametrize(
    ("msg", "text"),
    [
        ({"content": " padded \n"}, " padded \n"),
        ({"content": ""}, ""),
        ({"content": [{"type": "text", "text": "a"}, {"text": "b"}]}, "a"),
        ({"content": [{"type": "image"}, {"type": "text", "text": "b"}]}, None),
        ({"content": [{"text": 5}]}, None),
        ({"content": [None, {"text": "b"}]}, None),
        ({"content": [[{"text": "x"}]]}, None),
        ({"content": []}, None),
        ({"content": 5}, None),
        ({}, None),
        ("content", None),
        (None, None),
    ],
)
def test_first_text_reads_string_content_or_only_the_first_block(msg: object, text: str | None) -> None:
    assert first_text(msg) == text


def test_approval_events_keep_the_raw_payload_and_default_to_an_empty_object() -> None:
    payload = {"approvalKind": "exec", "id": "x"}
    assert approval_event("exec.approval.requested", payload).fields() == {
        "type": "exec_approval_requested",
        "raw": payload,
    }
    assert approval_event("plugin.approval.resolved", None).raw == {}
    assert approval_event("plugin.approval.requested").raw == {}
    assert approval_event("exec.approval.resolved", "s").raw == "s"


def test_claude_permission_request_event_key_order() -> None:
    body = ClaudePermissionRequestEvent("abcde", "Bash", "run npm test", '{"cmd":"npm test"}')
    assert QueuedEvent(7, body).to_json() == {
        "cursor": 7,
        "type": "claude_permission_request",
        "requestId": "abcde",
        "toolName": "Bash",
        "description": "run npm test",
        "inputPreview": '{"cmd":"npm test"}',
    }


# --- §6.4 cursors, filter, gap ---


def test_cursors_start_at_one_and_are_shared_by_all_event_types() -> None:
    queue = EventQueue()
    assert queue.last_cursor == 0
    a = queue.enqueue(message()).event
    b = queue.enqueue(ApprovalEvent("exec_approval_requested", {})).event
    c = queue.enqueue(ClaudePermissionRequestEvent("a", "b", "c", "d")).event
    assert [a.cursor, b.cursor, c.cursor] == [1, 2, 3]
    assert queue.last_cursor == 3


def test_session_filter_hides_events_without_a_session_key() -> None:
    queue = EventQueue()
    queue.enqueue(message("S"))
    queue.enqueue(ApprovalEvent("plugin_approval_requested", {"sessionKey": "S"}))
    queue.enqueue(ClaudePermissionRequestEvent("a", "b", "c", "d"))
    assert cursors(queue.poll(EventFilter(0, "S"))) == [1]
    assert cursors(queue.poll(EventFilter(0))) == [1, 2, 3]


def test_filter_from_arguments_trims_the_session_key_and_defaults_the_cursor() -> None:
    assert EventFilter.from_arguments() == EventFilter(0, None)
    assert EventFilter.from_arguments(2.0, "  ") == EventFilter(2, None)
    assert EventFilter.from_arguments(5, " agent:main:main ") == EventFilter(5, "agent:main:main")
    assert type(EventFilter.from_arguments(2.0).after_cursor) is int


def test_eviction_keeps_the_newest_thousand_and_reports_a_gap() -> None:
    queue = filled(1005)
    assert len(queue.events) == QUEUE_LIMIT
    assert (queue.events[0].cursor, queue.events[-1].cursor) == (6, 1005)
    assert queue.gap(4) == CursorGap(4, 6)
    assert queue.gap(5) is None
    assert EventQueue().gap(0) is None


# --- §6.5 poll ---


def test_empty_queue_poll_echoes_the_cursor() -> None:
    assert EventQueue().poll(EventFilter()).to_json() == {"events": [], "next_cursor": 0}
    assert EventQueue().poll(EventFilter(5)).to_json() == {"events": [], "next_cursor": 5}


def test_poll_after_eviction_reports_the_gap_and_continues_from_the_oldest() -> None:
    queue = filled(1005)
    result = queue.poll(EventFilter(0), 200)
    assert cursors(result) == list(range(6, 206))
    assert result.next_cursor == 205
    assert result.to_json()["gap"] == {"requested_after_cursor": 0, "oldest_available_cursor": 6}
    assert list(result.to_json()) == ["events", "next_cursor", "gap"]
    assert queue.poll(EventFilter(5), 200).gap is None
    unmatched = queue.poll(EventFilter(0, "none"))
    assert (cursors(unmatched), unmatched.next_cursor, unmatched.gap) == ([], 5, CursorGap(0, 6))


def test_poll_limit_defaults_to_20_and_is_clamped_to_200() -> None:
    queue = filled(250)
    assert len(queue.poll(EventFilter()).events) == 20
    big = queue.poll(EventFilter(), 10000)
    assert (len(big.events), big.next_cursor) == (200, 200)
    assert cursors(queue.poll(EventFilter(), 0)) == [1]


def test_poll_is_non_destructive_and_pages_with_next_cursor() -> None:
    queue = filled(3)
    assert cursors(queue.poll(EventFilter(2))) == [3]
    first = queue.poll(EventFilter(0), 1)
    assert (cursors(first), first.next_cursor) == ([1], 1)
    assert cursors(queue.poll(EventFilter(first.next_cursor), 10)) == [2, 3]
    assert queue.poll(EventFilter(0, "other")).next_cursor == 0


# --- §6.6 wait ---


def test_wait_on_an_empty_queue_registers_a_waiter_with_a_clamped_deadline() -> None:
    queue = EventQueue()
    waiter = queue.begin_wait(EventFilter(), 1000, 50)
    assert waiter == Waiter(id=1, filter=EventFilter(), deadline_ms=1050)
    assert isinstance(queue.begin_wait(EventFilter(), 0), Waiter)
    assert queue.waiters[1].deadline_ms == 30000
    huge = queue.begin_wait(EventFilter(), 0, 3_000_000_000)
    assert isinstance(huge, Waiter) and huge.deadline_ms == 300_000


def test_waiter_times_out_exactly_at_its_deadline() -> None:
    queue = EventQueue()
    waiter = queue.begin_wait(EventFilter(), 0, 3_000_000_000)
    assert isinstance(waiter, Waiter)
    assert queue.next_deadline_ms() == 300_000
    assert queue.expire(299_999) == ()
    (settled,) = queue.expire(300_000)
    assert settled.waiter == waiter
    assert settled.outcome.to_json() == {"event": None}
    assert settled.outcome.text == "timeout"
    assert queue.waiters == ()
    assert queue.next_deadline_ms() is None


def test_wait_answers_at_once_with_the_oldest_matching_event() -> None:
    queue = filled(3)
    outcome = queue.begin_wait(EventFilter(0), 0, 1000)
    assert isinstance(outcome, WaitOutcome)
    assert outcome.event is not None and outcome.event.cursor == 1
    assert outcome.text == "event 1"
    assert queue.waiters == ()


def test_wait_after_eviction_answers_at_once_with_a_gap() -> None:
    queue = filled(1005)
    outcome = queue.begin_wait(EventFilter(0), 0)
    assert isinstance(outcome, WaitOutcome)
    assert outcome.text == "event 6"
    assert list(outcome.to_json()) == ["event", "gap"]
    gap_only = queue.begin_wait(EventFilter(0, "none"), 0)
    assert isinstance(gap_only, WaitOutcome)
    assert gap_only.text == "event gap before 6"
    assert gap_only.to_json() == {
        "event": None,
        "gap": {"requested_after_cursor": 0, "oldest_available_cursor": 6},
    }


def test_matching_enqueue_settles_every_matching_waiter_with_the_same_event() -> None:
    queue = EventQueue()
    first = queue.begin_wait(EventFilter(0, "S"), 0)
    second = queue.begin_wait(EventFilter(0, "S"), 0)
    other = queue.begin_wait(EventFilter(0, "T"), 0)
    assert isinstance(first, Waiter) and isinstance(second, Waiter) and isinstance(other, Waiter)
    enqueued = queue.enqueue(message("S"))
    assert [s.waiter.id for s in enqueued.settled] == [first.id, second.id]
    assert all(s.outcome.event is enqueued.event for s in enqueued.settled)
    assert queue.waiters == (other,)


def test_waiter_ahead_of_the_newest_cursor_only_matches_later_events() -> None:
    queue = filled(2)
    waiter = queue.begin_wait(EventFilter(3), 0)
    assert isinstance(waiter, Waiter)
    assert queue.enqueue(message()).settled == ()
    (settled,) = queue.enqueue(message()).settled
    assert settled.outcome.event is not None and settled.outcome.event.cursor == 4


def test_eviction_overtaking_a_waiter_settles_it_with_a_gap() -> None:
    queue = filled(1000)
    waiter = queue.begin_wait(EventFilter(3, "other"), 0)
    assert isinstance(waiter, Waiter)
    for _ in range(3):
        assert queue.enqueue(message()).settled == ()
    (settled,) = queue.enqueue(message()).settled
    assert settled.outcome.to_json() == {
        "event": None,
        "gap": {"requested_after_cursor": 3, "oldest_available_cursor": 5},
    }
    assert settled.outcome.text == "event gap before 5"


def test_release_settles_once_and_recomputes_the_gap() -> None:
    queue = EventQueue()
    waiter = queue.begin_wait(EventFilter(0, "none"), 0)
    assert isinstance(waiter, Waiter)
    assert queue.is_pending(waiter.id)
    assert queue.release(waiter.id) == WaitOutcome()
    assert not queue.is_pending(waiter.id)
    assert queue.release(waiter.id) is None


def test_release_all_settles_every_waiter_with_no_event() -> None:
    queue = EventQueue()
    waits = (queue.begin_wait(EventFilter(), 0), queue.begin_wait(EventFilter(9), 0))
    ids = [w.id for w in waits if isinstance(w, Waiter)]
    settled = queue.release_all()
    assert [s.waiter.id for s in settled] == ids
    assert all(s.outcome.text == "timeout" for s in settled)
    assert queue.waiters == ()


def test_wait_outcome_json_for_an_event() -> None:
    event = QueuedEvent(2, ApprovalEvent("exec_approval_resolved", {"id": "x"}))
    assert WaitOutcome(event).to_json() == {
        "event": {"cursor": 2, "type": "exec_approval_resolved", "raw": {"id": "x"}}
    }
