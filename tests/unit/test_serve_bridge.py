"""The bridge behind ``openclaw mcp serve`` against the in-memory Gateway (spec serve-bridge §1.2, §2, §5–§8,
§10, §11): readiness, events and waiters, the Claude channel notifications and permission relay, approvals,
notification failures, the sweeper and outages. Gateway event payloads are the recorded reference ones."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.memory.gateway import InMemoryGateway
from openclaw_mcp.application.bridge.errors import GatewayClientNotReady, NotificationError
from openclaw_mcp.application.bridge.service import ChannelBridge
from openclaw_mcp.application.bridge.tools import TOOLS_BY_NAME
from openclaw_mcp.application.ports.gateway import GatewayNotConnected, GatewayRequestError, GatewaySettings
from tests.unit.serve_fakes import ORACLE, SEEDED_ROW, encoded, seeded_gateway, serve_session

pytestmark = pytest.mark.asyncio

EVENTS = json.loads((ORACLE / "gateway" / "session_message_events.json").read_text(encoding="utf-8"))
OWNER = [e["payload"] for e in EVENTS if e["conn"] == "owner"]
ASSISTANT_LIVE = OWNER[0]
USER_WAIT = OWNER[1]  # owner user turn "wait event <uuid>" (senderIsOwner: true)
NON_OWNER_YES = OWNER[3]  # "yes abcde" without senderIsOwner
OWNER_YES = OWNER[5]  # owner "yes abcde"
OWNER_NO_QWERT = OWNER[7]
OWNER_YES_ZXCVB = OWNER[9]
OWNER_YES_HELLO = OWNER[11]
APPROVALS = json.loads((ORACLE / "gateway" / "approval_events.json").read_text(encoding="utf-8"))

CONVERSATION = {
    "sessionKey": "agent:main:main",
    "channel": "imessage",
    "to": "+15551234567",
    "accountId": "imessage-default",
    "threadId": "thread-42",
    "updatedAt": None,
}
RETRYABLE = GatewayRequestError("gateway starting", "UNAVAILABLE", {"reason": "startup-sidecars"}, True)
MISMATCH = GatewayRequestError(
    "unauthorized: gateway token mismatch (use this gateway's gateway.auth.token or pair the device)",
    "INVALID_REQUEST",
    {"code": "AUTH_TOKEN_MISMATCH"},
    False,
)


def _permission_request(request_id: str) -> dict[str, str]:
    return {
        "request_id": request_id,
        "tool_name": "Bash",
        "description": "run npm test",
        "input_preview": '{"cmd":"npm test"}',
    }


def _text(result: dict[str, Any]) -> str:
    text = result["content"][0]["text"]
    assert isinstance(text, str)
    return text


async def _ready(session: Any) -> None:
    await session.initialize()
    await session.tool("conversations_list", {"limit": 1})  # answered only once the bridge is ready


# --- readiness (§1.2, §2) ----------------------------------------------------------------------------------


async def test_a_tool_call_before_ready_is_answered_after_ready(tmp_path: Path) -> None:
    gateway = seeded_gateway()
    gateway.reject_connects(RETRYABLE)
    async with serve_session(tmp_path, gateway) as session:
        with anyio.fail_after(5):
            await session.initialize()
            waiting = session.call("conversations_list", {})
            await anyio.sleep(0.05)
            assert session.pending_lines() == []
            gateway.reject_connects(None)
            result = await session.result(waiting)
    assert result["structuredContent"]["conversations"][0]["sessionKey"] == "agent:main:main"
    assert session.exit_code == 0


async def test_local_tools_answer_while_the_gateway_is_not_ready(tmp_path: Path) -> None:
    gateway = seeded_gateway()
    gateway.reject_connects(RETRYABLE)
    async with serve_session(tmp_path, gateway) as session:
        with anyio.fail_after(5):
            await session.initialize()
            assert _text(await session.tool("events_poll", {})) == "events: 0"
            assert _text(await session.tool("permissions_list_open", {})) == "approvals: 0"
            assert _text(await session.tool("events_wait", {"timeout_ms": 1})) == "timeout"
            assert await session.tool("conversation_get", {"session_key": "   "}) == {
                "content": [{"type": "text", "text": "conversation not found:    "}],
                "isError": True,
            }
            assert await session.tool("messages_send", {"session_key": " ", "text": "x"}) == {
                "content": [{"type": "text", "text": "Conversation not found for session  "}],
                "isError": True,
            }
            respond = await session.tool("permissions_respond", {"kind": "exec", "id": "x", "decision": "deny"})
            assert respond == {"content": [{"type": "text", "text": "gateway not connected"}], "isError": True}


async def test_a_failed_start_answers_waiting_calls_then_exits_one(tmp_path: Path) -> None:
    gateway = seeded_gateway()
    gateway.reject_connects(RETRYABLE)
    async with serve_session(tmp_path, gateway) as session:
        with anyio.fail_after(5):
            await session.initialize()
            waiting = session.call("messages_read", {"session_key": "agent:main:main"})
            await anyio.sleep(0.05)
            gateway.reject_connects(MISMATCH)
            result = await session.result(waiting)
            await session.done.wait()
    assert result == {"content": [{"type": "text", "text": str(MISMATCH)}], "isError": True}
    assert session.exit_code == 1
    assert session.stderr_lines[-2:] == [
        f"gateway connect failed: GatewayClientRequestError: {MISMATCH}",
        f"MCP server failed to start: {MISMATCH}. Run openclaw gateway status --deep --require-rpc to inspect "
        "Gateway health.",
    ]


async def test_an_unreachable_gateway_fails_the_start_at_once(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway(up=False), options={"url": "ws://127.0.0.1:1"}) as session:
        with anyio.fail_after(5):
            await session.initialize()
            await session.done.wait()
    assert session.exit_code == 1
    assert session.stderr_lines == [
        "MCP server failed to start: connect ECONNREFUSED 127.0.0.1:1. Run openclaw gateway status --deep "
        "--require-rpc to inspect Gateway health."
    ]


async def test_verbose_shows_the_gateway_client_error_line(tmp_path: Path) -> None:
    options = {"url": "ws://127.0.0.1:1", "verbose": True}
    async with serve_session(tmp_path, seeded_gateway(up=False), options=options) as session:
        with anyio.fail_after(5):
            await session.done.wait()
    assert session.stderr_lines[0] == "gateway client error: Error: connect ECONNREFUSED 127.0.0.1:1"


async def test_a_plaintext_url_to_a_public_host_fails_the_start_after_initialize(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway(), options={"url": "ws://203.0.113.5:18789"}) as session:
        with anyio.fail_after(5):
            await session.initialize()
            await session.done.wait()
    assert session.exit_code == 1
    assert session.stderr_lines[0] == (
        'MCP server failed to start: SECURITY ERROR: Gateway URL "ws://203.0.113.5:18789" uses plaintext ws:// '
        "to a non-loopback address."
    )
    assert session.stderr_lines[-1].endswith(
        ". Run openclaw gateway status --deep --require-rpc to inspect Gateway health."
    )


# --- queue and waiters (§6) ------------------------------------------------------------------------------


async def test_events_wait_wakes_up_on_a_gateway_event(tmp_path: Path) -> None:
    gateway = seeded_gateway()
    async with serve_session(tmp_path, gateway) as session:
        with anyio.fail_after(5):
            await _ready(session)
            waiting = session.call("events_wait", {"session_key": "agent:main:main", "timeout_ms": 15000})
            await anyio.sleep(0.05)
            gateway.push_event("session.message", ASSISTANT_LIVE)
            result = await session.result(waiting)
    assert _text(result) == "event 1"
    assert result["structuredContent"] == {
        "event": {
            "cursor": 1,
            "type": "message",
            "sessionKey": "agent:main:main",
            "conversation": CONVERSATION,
            "messageId": ASSISTANT_LIVE["messageId"],
            "messageSeq": 4,
            "role": "assistant",
            "text": "assistant live event",
            "raw": ASSISTANT_LIVE,
        }
    }


async def test_two_waiters_with_the_same_filter_get_the_same_event(tmp_path: Path) -> None:
    gateway = seeded_gateway()
    async with serve_session(tmp_path, gateway) as session:
        with anyio.fail_after(5):
            await _ready(session)
            first = session.call("events_wait", {"timeout_ms": 15000})
            second = session.call("events_wait", {"timeout_ms": 15000})
            await anyio.sleep(0.05)
            gateway.push_event("session.message", ASSISTANT_LIVE)
            answers = {(await session.next_message())["id"]: None for _ in range(2)}
    assert set(answers) == {first, second}


async def test_events_are_queued_in_arrival_order_and_polled_with_cursors(tmp_path: Path) -> None:
    gateway = seeded_gateway()
    async with serve_session(tmp_path, gateway, options={"claude_channel_mode": "off"}) as session:
        with anyio.fail_after(5):
            await _ready(session)
            gateway.push_event("session.message", ASSISTANT_LIVE)
            gateway.push_event("session.message", USER_WAIT)
            gateway.push_event("session.message", OWNER[2])
            gateway.push_event("session.message", {"noSessionKey": True})
            poll = await session.tool("events_poll", {"session_key": "agent:main:main", "after_cursor": 0, "limit": 10})
            later = await session.tool("events_poll", {"after_cursor": 2})
            first = await session.tool("events_poll", {"after_cursor": 0, "limit": 1})
            other = await session.tool("events_poll", {"session_key": "agent:main:other"})
            wait = await session.tool("events_wait", {"after_cursor": 0, "timeout_ms": 1000})
    assert [e["cursor"] for e in poll["structuredContent"]["events"]] == [1, 2, 3]
    assert [e["role"] for e in poll["structuredContent"]["events"]] == ["assistant", "user", "assistant"]
    assert poll["structuredContent"]["next_cursor"] == 3
    assert [e["cursor"] for e in later["structuredContent"]["events"]] == [3]
    assert first["structuredContent"]["next_cursor"] == 1
    assert other["structuredContent"] == {"events": [], "next_cursor": 0}
    assert _text(wait) == "event 1"


async def test_closing_the_session_answers_a_pending_events_wait_with_timeout(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(5):
            await _ready(session)
            waiting = session.call("events_wait", {"timeout_ms": 300000})
            await anyio.sleep(0.05)
            session.close_input()
            result = await session.result(waiting)
            await session.done.wait()
    assert result == {"content": [{"type": "text", "text": "timeout"}], "structuredContent": {"event": None}}
    assert session.exit_code == 0


# --- Claude channel (§8) -----------------------------------------------------------------------------------


async def test_a_user_turn_sends_a_claude_channel_notification(tmp_path: Path) -> None:
    gateway = seeded_gateway()
    async with serve_session(tmp_path, gateway) as session:
        with anyio.fail_after(5):
            await _ready(session)
            gateway.push_event("session.message", ASSISTANT_LIVE)
            gateway.push_event("session.message", USER_WAIT)
            line = await session.next_line()
    params = {
        "content": USER_WAIT["message"]["content"],
        "meta": {
            "session_key": "agent:main:main",
            "channel": "imessage",
            "to": "+15551234567",
            "account_id": "imessage-default",
            "thread_id": "thread-42",
            "message_id": USER_WAIT["messageId"],
        },
    }
    if not isinstance(params["content"], str):
        params["content"] = USER_WAIT["message"]["content"][0]["text"]
    assert line == encoded({"method": "notifications/claude/channel", "params": params, "jsonrpc": "2.0"})


async def test_mode_off_sends_no_channel_notification(tmp_path: Path) -> None:
    gateway = seeded_gateway()
    async with serve_session(tmp_path, gateway, options={"claude_channel_mode": "off"}) as session:
        with anyio.fail_after(5):
            await _ready(session)
            gateway.push_event("session.message", USER_WAIT)
            poll = await session.tool("events_poll", {})
            assert session.pending_lines() == []
    assert [e["role"] for e in poll["structuredContent"]["events"]] == ["user"]


async def test_an_owner_reply_answers_a_pending_permission_and_is_consumed(tmp_path: Path) -> None:
    gateway = seeded_gateway()
    async with serve_session(tmp_path, gateway, options={"verbose": True}) as session:
        with anyio.fail_after(5):
            await _ready(session)
            session.notify("notifications/claude/channel/permission_request", _permission_request("abcde"))
            poll = await session.tool("events_poll", {})
            hidden = await session.tool("events_poll", {"session_key": "agent:main:main"})
            gateway.push_event("session.message", OWNER_YES)
            line = await session.next_line()
            gateway.push_event("session.message", OWNER[6])  # the run's assistant reply
            gateway.push_event("session.message", OWNER_YES)  # nothing pending any more: ordinary message
            notification = await session.next_message()
            after = await session.tool("events_poll", {"after_cursor": 1})
    assert poll["structuredContent"]["events"] == [
        {
            "cursor": 1,
            "type": "claude_permission_request",
            "requestId": "abcde",
            "toolName": "Bash",
            "description": "run npm test",
            "inputPreview": '{"cmd":"npm test"}',
        }
    ]
    assert hidden["structuredContent"]["events"] == []
    permission = {"request_id": "abcde", "behavior": "allow"}
    assert line == encoded(
        {"method": "notifications/claude/channel/permission", "params": permission, "jsonrpc": "2.0"}
    )
    assert notification["method"] == "notifications/claude/channel"
    assert notification["params"]["content"] == "yes abcde"
    assert [(e["cursor"], e["role"]) for e in after["structuredContent"]["events"]] == [(2, "assistant"), (3, "user")]
    assert "openclaw mcp: pending Claude permission abcde" in session.stderr_lines


async def test_a_non_owner_reply_is_an_ordinary_message(tmp_path: Path) -> None:
    gateway = seeded_gateway()
    async with serve_session(tmp_path, gateway) as session:
        with anyio.fail_after(5):
            await _ready(session)
            session.notify("notifications/claude/channel/permission_request", _permission_request("abcde"))
            await session.tool("events_poll", {})
            gateway.push_event("session.message", NON_OWNER_YES)
            notification = await session.next_message()
            poll = await session.tool("events_poll", {"after_cursor": 1})
    assert notification["method"] == "notifications/claude/channel"
    assert notification["params"]["content"] == "yes abcde"
    assert "senderIsOwner" not in poll["structuredContent"]["events"][0]["raw"]


@pytest.mark.parametrize(
    ("request_id", "payload", "permission"),
    [
        ("qwert", OWNER_NO_QWERT, {"request_id": "qwert", "behavior": "deny"}),
        ("ZXCVB", OWNER_YES_ZXCVB, {"request_id": "ZXCVB", "behavior": "allow"}),
        ("hello", OWNER_YES_HELLO, None),
    ],
)
async def test_permission_replies_follow_the_grammar_and_the_case_decision(
    tmp_path: Path, request_id: str, payload: dict[str, Any], permission: dict[str, str] | None
) -> None:
    gateway = seeded_gateway()
    async with serve_session(tmp_path, gateway) as session:
        with anyio.fail_after(5):
            await _ready(session)
            session.notify("notifications/claude/channel/permission_request", _permission_request(request_id))
            await session.tool("events_poll", {})
            gateway.push_event("session.message", payload)
            message = await session.next_message()
    if permission is None:
        assert message["method"] == "notifications/claude/channel"
    else:
        assert message == {"method": "notifications/claude/channel/permission", "params": permission, "jsonrpc": "2.0"}


async def test_mode_off_still_relays_owner_permission_replies(tmp_path: Path) -> None:
    gateway = seeded_gateway()
    async with serve_session(tmp_path, gateway, options={"claude_channel_mode": "off"}) as session:
        with anyio.fail_after(5):
            await _ready(session)
            session.notify("notifications/claude/channel/permission_request", _permission_request("abcde"))
            await session.tool("events_poll", {})
            gateway.push_event("session.message", OWNER_YES)
            message = await session.next_message()
    assert message["params"] == {"request_id": "abcde", "behavior": "allow"}


async def test_invalid_permission_requests_are_dropped_silently(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway(), options={"verbose": True}) as session:
        with anyio.fail_after(5):
            await _ready(session)
            for params in (None, {}, {**_permission_request("abcde"), "tool_name": 5}, [1]):
                session.notify("notifications/claude/channel/permission_request", params)
            poll = await session.tool("events_poll", {})
    assert poll["structuredContent"]["events"] == []
    assert session.stderr_lines == []


async def test_a_gateway_event_that_cannot_be_handled_is_logged_and_ignored(tmp_path: Path) -> None:
    gateway = seeded_gateway()
    async with serve_session(tmp_path, gateway, options={"verbose": True}) as session:
        with anyio.fail_after(5):
            await _ready(session)
            gateway.push_event("session.message", None)
            gateway.push_event("session.message")
            poll = await session.tool("events_poll", {})
    assert poll["structuredContent"]["events"] == []
    assert session.stderr_lines == [
        "openclaw mcp: gateway event session.message failed",
        "openclaw mcp: gateway event session.message error: TypeError: Cannot read properties of null "
        "(reading 'sessionKey')",
        "openclaw mcp: gateway event session.message failed",
        "openclaw mcp: gateway event session.message error: TypeError: Cannot read properties of undefined "
        "(reading 'sessionKey')",
    ]


# --- approvals (§7) --------------------------------------------------------------------------------------


async def test_approval_events_are_tracked_listed_and_resolved(tmp_path: Path) -> None:
    gateway = seeded_gateway()
    resolved: list[Any] = []
    gateway.handle("exec.approval.resolve", lambda params: resolved.append(params) or {"ok": True})
    recorded = next(e["payload"] for e in APPROVALS if e["event"] == "exec.approval.requested")
    exec_requested = {**recorded, "expiresAtMs": 4_000_000_000_000}  # recorded expiry is in the past by now
    async with serve_session(tmp_path, gateway) as session:
        with anyio.fail_after(5):
            await _ready(session)
            gateway.push_event("exec.approval.requested", exec_requested)
            listed = await session.tool("permissions_list_open", {})
            answer = await session.tool(
                "permissions_respond", {"kind": "exec", "id": exec_requested["id"], "decision": "deny"}
            )
            gateway.push_event("exec.approval.resolved", {"id": exec_requested["id"], "decision": "deny"})
            after = await session.tool("permissions_list_open", {})
            events = await session.tool("events_poll", {})
    entry = listed["structuredContent"]["approvals"][0]
    assert _text(listed) == "approvals: 1"
    assert list(entry) == ["kind", "id", "request", "createdAtMs", "expiresAtMs"]
    assert entry["kind"] == "exec"
    assert answer == {
        "content": [{"type": "text", "text": "approval resolved"}],
        "structuredContent": {"result": {"ok": True}},
    }
    assert resolved == [{"id": exec_requested["id"], "decision": "deny"}]
    assert _text(after) == "approvals: 0"
    assert [e["type"] for e in events["structuredContent"]["events"]] == [
        "exec_approval_requested",
        "exec_approval_resolved",
    ]


async def test_gateway_errors_pass_through_verbatim(tmp_path: Path) -> None:
    gateway = seeded_gateway()

    def refuse(params: Any) -> Any:
        raise GatewayRequestError("unknown or expired approval id", "INVALID_REQUEST", None, False)

    gateway.handle("plugin.approval.resolve", refuse)
    async with serve_session(tmp_path, gateway) as session:
        with anyio.fail_after(5):
            await _ready(session)
            result = await session.tool(
                "permissions_respond", {"kind": "plugin", "id": "nope", "decision": "allow-once"}
            )
    assert result == {"content": [{"type": "text", "text": "unknown or expired approval id"}], "isError": True}


# --- outages (§10) ---------------------------------------------------------------------------------------


async def test_during_an_outage_gateway_tools_fail_fast_and_local_tools_work(tmp_path: Path) -> None:
    gateway = seeded_gateway()
    async with serve_session(tmp_path, gateway) as session:
        with anyio.fail_after(5):
            await _ready(session)
            gateway.outage()
            listed = await session.tool("conversations_list", {})
            respond = await session.tool("permissions_respond", {"kind": "exec", "id": "x", "decision": "deny"})
            poll = await session.tool("events_poll", {})
            gateway.restore()
            while _text(await session.tool("conversations_list", {})) == "gateway not connected":
                await anyio.sleep(0.01)
            gateway.push_event("session.message", ASSISTANT_LIVE)
            after = await session.tool("events_poll", {})
    assert listed == {"content": [{"type": "text", "text": "gateway not connected"}], "isError": True}
    assert respond == {"content": [{"type": "text", "text": "gateway not connected"}], "isError": True}
    assert _text(poll) == "events: 0"
    assert _text(after) == "events: 1"


# --- the bridge directly ---------------------------------------------------------------------------------


class _Clock:
    def __init__(self) -> None:
        self.now = 0

    def now_ms(self) -> int:
        return self.now


class _Notifier:
    """Records notifications; can block the next write or fail."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.fail = False
        self.gate: anyio.Event | None = None

    async def notify(self, method: str, params: dict[str, Any]) -> None:
        if self.gate is not None:
            gate, self.gate = self.gate, None
            await gate.wait()
        if self.fail:
            raise NotificationError("write EPIPE")
        self.sent.append((method, params))


@asynccontextmanager
async def _bridge(
    gateway: Any, *, mode: str = "on", verbose: bool = False, sweep_interval_s: float = 300.0
) -> AsyncIterator[tuple[ChannelBridge, _Notifier, _Clock, list[str]]]:
    notifier, clock, lines = _Notifier(), _Clock(), []

    async def settings() -> GatewaySettings:
        return GatewaySettings(url="ws://127.0.0.1:18789")

    bridge = ChannelBridge(
        gateway=gateway,
        resolve_settings=settings,
        notifier=notifier,
        clock=clock,
        write_line=lines.append,
        mode=mode,  # type: ignore[arg-type]
        verbose=verbose,
        sweep_interval_s=sweep_interval_s,
    )
    async with anyio.create_task_group() as tg:
        await tg.start(bridge.run)
        try:
            yield bridge, notifier, clock, lines
        finally:
            with anyio.fail_after(5):
                await bridge.close()


async def _settle() -> None:
    for _ in range(5):
        await anyio.sleep(0)


async def test_permissions_respond_before_the_client_exists_is_not_ready() -> None:
    async def settings() -> GatewaySettings:
        return GatewaySettings(url="ws://127.0.0.1:18789")

    bridge = ChannelBridge(
        gateway=InMemoryGateway(), resolve_settings=settings, notifier=_Notifier(), clock=_Clock(), write_line=print
    )
    with anyio.fail_after(5), pytest.raises(GatewayClientNotReady, match=r"^Gateway client is not ready$"):
        await bridge.permissions_respond({"kind": "exec", "id": "x", "decision": "deny"})
    await bridge.close()


async def test_permissions_respond_while_connecting_is_not_connected() -> None:
    gateway = InMemoryGateway()
    gateway.reject_connects(RETRYABLE)
    async with _bridge(gateway) as (bridge, _, _, _):
        await _settle()
        with anyio.fail_after(5), pytest.raises(GatewayNotConnected):
            await bridge.permissions_respond({"kind": "exec", "id": "x", "decision": "deny"})


async def test_after_close_gateway_tools_fail_with_not_ready() -> None:
    async with _bridge(seeded_gateway()) as (bridge, _, _, _):
        with anyio.fail_after(5):
            await bridge.wait_started()
            await bridge.close()
            with pytest.raises(GatewayClientNotReady):
                await bridge.conversations_list({})
            with pytest.raises(GatewayClientNotReady):
                await bridge.permissions_respond({"kind": "exec", "id": "x", "decision": "deny"})


async def test_close_before_ready_releases_waiting_calls() -> None:
    gateway = InMemoryGateway()
    gateway.reject_connects(RETRYABLE)
    async with _bridge(gateway) as (bridge, _, _, _):
        errors: list[BaseException] = []

        async def call() -> None:
            try:
                await bridge.conversations_list({})
            except GatewayClientNotReady as exc:
                errors.append(exc)

        with anyio.fail_after(5):
            async with anyio.create_task_group() as tg:
                tg.start_soon(call)
                await _settle()
                await bridge.close()
            await bridge.wait_started()  # returns: closed before ready is not a failure
    assert [str(e) for e in errors] == ["Gateway client is not ready"]
    assert bridge.readiness == "released"


async def test_double_owner_replies_give_one_decision_while_the_first_write_is_blocked() -> None:
    gateway = seeded_gateway()
    async with _bridge(gateway) as (bridge, notifier, _, _):
        with anyio.fail_after(5):
            await bridge.wait_started()
            bridge.handle_permission_request(_permission_request("abcde"))
            notifier.gate = anyio.Event()
            gate = notifier.gate
            gateway.push_event("session.message", OWNER_YES)
            no_abcde = {**OWNER_YES, "message": {**OWNER_YES["message"], "content": "no abcde"}}
            gateway.push_event("session.message", no_abcde)
            await _settle()
            gate.set()
            await _settle()
    permissions = [params for method, params in notifier.sent if method.endswith("/permission")]
    assert permissions == [{"request_id": "abcde", "behavior": "allow"}]
    events = [e.to_json() for e in bridge.state.queue.events]
    assert [(e["type"], e.get("text")) for e in events] == [
        ("claude_permission_request", None),
        ("message", "no abcde"),
    ]


async def test_a_failed_permission_notification_restores_the_pending_request() -> None:
    gateway = seeded_gateway()
    async with _bridge(gateway, verbose=True) as (bridge, notifier, _, lines):
        with anyio.fail_after(5):
            await bridge.wait_started()
            bridge.handle_permission_request(_permission_request("abcde"))
            notifier.fail = True
            gateway.push_event("session.message", OWNER_YES)
            await _settle()
            notifier.fail = False
            no_abcde = {**OWNER_YES, "message": {**OWNER_YES["message"], "content": "no abcde"}}
            gateway.push_event("session.message", no_abcde)
            await _settle()
    assert notifier.sent == [("notifications/claude/channel/permission", {"request_id": "abcde", "behavior": "deny"})]
    assert lines == [
        "openclaw mcp: pending Claude permission abcde",
        "openclaw mcp: notification notifications/claude/channel/permission failed",
        "openclaw mcp: notification notifications/claude/channel/permission error: Error: write EPIPE",
    ]


async def test_a_failed_channel_notification_is_logged_and_the_event_stays_queued() -> None:
    gateway = seeded_gateway()
    async with _bridge(gateway) as (bridge, notifier, _, lines):
        with anyio.fail_after(5):
            await bridge.wait_started()
            notifier.fail = True
            gateway.push_event("session.message", USER_WAIT)
            await _settle()
            result = bridge.events_poll({})
    assert lines == ["openclaw mcp: notification notifications/claude/channel failed"]
    assert result.text == "events: 1"


async def test_the_sweeper_runs_only_while_something_is_pending() -> None:
    gateway = seeded_gateway()
    async with _bridge(gateway, sweep_interval_s=0.01) as (bridge, _, clock, _):
        with anyio.fail_after(5):
            await bridge.wait_started()
            clock.now = 20 * 60_000
            await anyio.sleep(0.05)
            assert not bridge.sweeper_running
            bridge.handle_permission_request(_permission_request("abcde"))
            assert bridge.sweeper_running
            clock.now += 60 * 60_000
            while bridge.sweeper_running:
                await anyio.sleep(0.01)
            assert bridge.state.pending.permissions == {}
            gateway.push_event("plugin.approval.requested", {"id": "plugin:1", "request": {}, "createdAtMs": 1})
            assert bridge.sweeper_running
            clock.now += 31 * 60_000
            assert bridge.permissions_list_open({}).text == "approvals: 0"
            assert not bridge.sweeper_running
            bridge.handle_permission_request(_permission_request("qwert"))
            assert bridge.sweeper_running
            await bridge.close()
            assert not bridge.sweeper_running
            bridge.handle_permission_request(_permission_request("zzzzz"))
            gateway.push_event("exec.approval.requested", {"id": "late"})
            assert not bridge.sweeper_running
            assert bridge.state.pending.permissions == {}


async def test_the_legacy_message_lookup_reads_recent_messages() -> None:
    messages = [
        {"role": "user", "content": "hi", "__openclaw": {"id": "msg-1"}},
        {"role": "assistant", "content": [{"type": "image", "source": {}}], "__openclaw": {"id": "msg-2"}},
    ]
    gateway = InMemoryGateway(hello={"type": "hello-ok", "features": {"methods": ["sessions.get"]}})
    gateway.handle("sessions.get", lambda params: {"messages": messages})
    async with _bridge(gateway) as (bridge, _, _, _):
        with anyio.fail_after(5):
            await bridge.wait_started()
            result = await bridge.attachments_fetch({"session_key": "agent:main:main", "message_id": "msg-2"})
    assert result.text == "attachments: 1"
    assert [r.params for r in gateway.requests if r.method == "sessions.get"] == [
        {"key": "agent:main:main", "limit": 100}
    ]


async def test_messages_send_stringifies_a_numeric_thread_id() -> None:
    row = {
        **SEEDED_ROW,
        "deliveryContext": {"channel": "telegram", "to": "-100123", "accountId": "acct-1", "threadId": 42},
    }
    gateway = InMemoryGateway()
    gateway.handle("sessions.describe", lambda params: {"session": row})
    gateway.handle("send", lambda params: {"runId": "r1", "messageId": "m1"})
    async with _bridge(gateway) as (bridge, _, _, _):
        with anyio.fail_after(5):
            await bridge.wait_started()
            result = await bridge.messages_send({"session_key": "agent:main:main", "text": "hello"})
    (sent,) = [r.params for r in gateway.requests if r.method == "send"]
    assert (sent["to"], sent["channel"], sent["accountId"], sent["threadId"]) == ("-100123", "telegram", "acct-1", "42")
    assert result.to_json() == {
        "content": [{"type": "text", "text": "sent"}],
        "structuredContent": {"result": {"runId": "r1", "messageId": "m1"}},
    }


async def test_a_cancelled_gateway_call_still_completes_but_is_not_answered(tmp_path: Path) -> None:
    gateway = seeded_gateway()
    release = anyio.Event()

    async def send(params: Any) -> Any:
        await release.wait()
        return {"runId": "r"}

    gateway.handle("send", send)
    async with serve_session(tmp_path, gateway) as session:
        with anyio.fail_after(5):
            await _ready(session)
            request_id = session.call("messages_send", {"session_key": "agent:main:main", "text": "hi"})
            while not any(r.method == "send" for r in gateway.requests):
                await anyio.sleep(0.01)
            session.notify("notifications/cancelled", {"requestId": request_id})
            await anyio.sleep(0.02)
            release.set()
            ping = session.request("ping")
            assert (await session.next_message())["id"] == ping
            await anyio.sleep(0.05)
            assert session.pending_lines() == []
    assert [r.params["message"] for r in gateway.requests if r.method == "send"] == ["hi"]


async def test_a_tools_first_request_sent_ahead_gives_the_same_result() -> None:
    async with _bridge(seeded_gateway()) as (bridge, _, _, _):
        with anyio.fail_after(5):
            await bridge.wait_started()
            sent = bridge.send_first_request(TOOLS_BY_NAME["conversations_list"], {"limit": 5})
            assert sent is not None and sent.method == "sessions.list"
            ahead = await bridge.conversations_list({"limit": 5}, sent)
            assert ahead.to_json() == (await bridge.conversations_list({"limit": 5})).to_json()
            described = bridge.send_first_request(TOOLS_BY_NAME["conversation_get"], {"session_key": "agent:main:main"})
            assert described is not None and described.method == "sessions.describe"
            assert bridge.send_first_request(TOOLS_BY_NAME["conversation_get"], {"session_key": "   "}) is None
            assert bridge.send_first_request(TOOLS_BY_NAME["events_poll"], {}) is None


async def test_nothing_is_sent_ahead_while_the_bridge_is_not_ready() -> None:
    gateway = InMemoryGateway()
    gateway.reject_connects(RETRYABLE)
    async with _bridge(gateway) as (bridge, _, _, _):
        await _settle()
        assert bridge.send_first_request(TOOLS_BY_NAME["conversations_list"], {}) is None
        assert (
            bridge.send_first_request(
                TOOLS_BY_NAME["permissions_respond"], {"kind": "exec", "id": "x", "decision": "deny"}
            )
            is None
        )
