"""``openclaw mcp serve`` (ours, ``.venv/bin/openclaw``) against a real, seeded OpenClaw 2026.9.6 Gateway
(spec serve-bridge.md §12 cases marked S; gateway-protocol.md §9.6–§9.7).

Each test spawns its own bridge process (fresh state dir, ``--token-file``, mode ``on`` unless stated) and
drives it over stdio; live traffic comes from extra Gateway connections: the owner (``openclaw-tui``/``ui``
with ``operator.admin``), a non-owner (``test``/``test``) and the approval requester that uses the bridge's
own device identity. Assertions never depend on how many events earlier tests left behind: events are
found by their unique texts. The outage test runs last (it kills and restarts the module's Gateway).
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.application.ports.gateway import GatewayEvent
from tests.docker.gateway_harness import (
    EXEC_APPROVAL_REQUEST,
    SEEDED_MEDIA,
    SESSION_KEY,
    McpClient,
    Operator,
    RealGateway,
    open_mcp_client,
    ours_serve_command,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.reference]

ROUTE = {
    "sessionKey": SESSION_KEY,
    "channel": "imessage",
    "to": "+15551234567",
    "accountId": "imessage-default",
    "threadId": "thread-42",
}
CHANNEL = "notifications/claude/channel"
PERMISSION = "notifications/claude/channel/permission"
PERMISSION_REQUEST = "notifications/claude/channel/permission_request"
FLOW_TIMEOUT_S = 180


# --- helpers -------------------------------------------------------------------------------------------


def text_of(result: dict[str, Any]) -> str:
    content = result["content"]
    assert isinstance(content, list) and content and content[0]["type"] == "text", result
    text = content[0]["text"]
    assert isinstance(text, str)
    return text


@asynccontextmanager
async def bridge(gateway: RealGateway, mode: str = "on", *extra: str) -> AsyncIterator[tuple[McpClient, Path]]:
    """Our bridge, initialized and ready (a first ``conversations_list`` waited for readiness). On exit its
    stdin is closed and it must exit 0."""
    state = gateway.new_bridge_state(f"ours-{mode}")
    command = ours_serve_command(gateway.url, gateway.token_file, mode, *extra)
    async with open_mcp_client(command, gateway.bridge_env(state), name="ours") as client:
        await client.initialize()
        ready = await client.call("conversations_list", {"limit": 1})
        assert "isError" not in ready, ready
        yield client, state
    assert client.process.returncode == 0, client.stderr_text


async def wait_event(
    client: McpClient, predicate: Any, *, after_cursor: int = 0, session_key: str | None = None
) -> dict[str, Any]:
    """Loop ``events_wait`` from ``after_cursor`` until an event matches (the caller bounds the time)."""
    cursor = after_cursor
    while True:
        arguments: dict[str, Any] = {"after_cursor": cursor, "timeout_ms": 30_000}
        if session_key is not None:
            arguments["session_key"] = session_key
        result = await client.call("events_wait", arguments)
        event: dict[str, Any] | None = result["structuredContent"]["event"]
        if event is None:
            continue
        assert text_of(result) == f"event {event['cursor']}"
        if predicate(event):
            return event
        cursor = event["cursor"]


async def poll_all(client: McpClient, **arguments: Any) -> list[dict[str, Any]]:
    result = await client.call("events_poll", {"after_cursor": 0, "limit": 200, **arguments})
    events = result["structuredContent"]["events"]
    assert isinstance(events, list)
    return events


def with_text(value: str) -> Any:
    return lambda event: event.get("type") == "message" and event.get("text") == value


def user_turn(text: str) -> Callable[[GatewayEvent], bool]:
    """A ``session.message`` event (as an operator connection sees it) carrying the user turn ``text``."""

    def matches(event: GatewayEvent) -> bool:
        payload = event.payload
        return (
            event.event == "session.message"
            and isinstance(payload, dict)
            and isinstance(payload.get("message"), dict)
            and payload["message"].get("content") == text
        )

    return matches


def channel_contents(client: McpClient) -> list[str]:
    return [message["params"]["content"] for message in client.notifications_of(CHANNEL)]


def channel_ids(client: McpClient, content: str) -> set[str]:
    """The message ids of the channel notifications carrying ``content``."""
    return {
        message["params"]["meta"]["message_id"]
        for message in client.notifications_of(CHANNEL)
        if message["params"]["content"] == content
    }


async def permission_request(client: McpClient, request_id: str) -> None:
    await client.notify(
        PERMISSION_REQUEST,
        {
            "request_id": request_id,
            "tool_name": "Bash",
            "description": "run npm test",
            "input_preview": '{"cmd":"npm test"}',
        },
    )


async def finish_run(operator: Operator, sent: dict[str, Any]) -> None:
    """Wait for the agent run a ``chat.send`` started (keeps later tests free of its late events). A turn
    sent while another run of the session is active is queued and may be folded into a follow-up run under
    another id; ``agent.wait`` then answers at once ``{"status": "pending", "timeoutPhase": "queue"}``."""
    assert sent["status"] == "started" and isinstance(sent["runId"], str), sent
    waited = await operator.agent_wait(sent["runId"])
    queued = waited["status"] == "pending" and waited.get("timeoutPhase") == "queue"
    assert waited["status"] == "ok" or queued, waited


async def quiesce(operator: Operator, quiet_s: float = 1.5) -> None:
    """Wait until the operator connection has received no event for ``quiet_s`` (queued runs finished)."""
    while True:
        seen = len(operator.events)
        await anyio.sleep(quiet_s)
        if len(operator.events) == seen:
            return


# --- conversations (sanity of the fixture) --------------------------------------------------------------


async def test_the_seeded_conversation_is_listed_with_its_route(real_gateway: RealGateway) -> None:
    with anyio.fail_after(FLOW_TIMEOUT_S):
        async with bridge(real_gateway) as (mcp, _):
            listed = await mcp.call("conversations_list", {"includeDerivedTitles": False, "includeLastMessage": False})
            read = await mcp.call("messages_read", {"session_key": SESSION_KEY, "limit": 10})
            fetched = await mcp.call("attachments_fetch", {"session_key": SESSION_KEY, "message_id": "msg-attachment"})
        assert mcp.stderr_text == ""
    rows = [row for row in listed["structuredContent"]["conversations"] if row["sessionKey"] == SESSION_KEY]
    assert len(rows) == 1
    assert rows[0] == {**ROUTE, "displayName": "Docker MCP Channel Smoke", "updatedAt": rows[0]["updatedAt"]}
    assert isinstance(rows[0]["updatedAt"], int)
    ids = [message["__openclaw"]["id"] for message in read["structuredContent"]["messages"]]
    assert {"msg-1", "msg-attachment", "msg-image-block"} <= set(ids)
    assert text_of(fetched) == "attachments: 1"
    assert fetched["structuredContent"]["attachments"] == [SEEDED_MEDIA]


@pytest.mark.parametrize("mode", ["2026-07-28", "auto", "legacy"])
async def test_an_sdk_client_of_either_era_lists_and_calls_the_bridges_tools(
    real_gateway: RealGateway, mode: Any
) -> None:
    """Issue 34 (protocol-eras §5.2 A18 for serve): the mcp 2.3 client pinned to 2026-07-28, in ``auto`` mode
    (``server/discover`` first) and pinned to the handshake lists the nine tools and reads the seeded conversation
    through the real Gateway."""
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters

    state = real_gateway.new_bridge_state(f"sdk-{mode}")
    command = ours_serve_command(real_gateway.url, real_gateway.token_file, "on")
    params = StdioServerParameters(command=command[0], args=command[1:], env=real_gateway.bridge_env(state))
    with anyio.fail_after(FLOW_TIMEOUT_S):
        async with Client(params, mode=mode) as client:
            assert client.session.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
            listed = await client.list_tools()
            called = await client.call_tool("conversation_get", {"session_key": SESSION_KEY})
    assert len(listed.tools) == 9 and "conversations_list" in {tool.name for tool in listed.tools}
    assert not called.is_error
    assert isinstance(called.structured_content, dict)
    assert called.structured_content["conversation"]["sessionKey"] == SESSION_KEY


# --- the event queue (§12.5: 54–58) ---------------------------------------------------------------------


async def test_events_wait_wakes_on_gateway_messages_and_events_poll_pages_with_cursors(
    real_gateway: RealGateway,
) -> None:
    injected = f"assistant live event {uuid.uuid4()}"
    said = f"wait event {uuid.uuid4()}"
    with anyio.fail_after(FLOW_TIMEOUT_S):
        async with real_gateway.operator("owner") as owner, bridge(real_gateway) as (mcp, _):
            # 54: an injected assistant message wakes a pending events_wait.
            async with anyio.create_task_group() as tg:
                found: dict[str, dict[str, Any]] = {}

                async def wait_injected() -> None:
                    found["injected"] = await wait_event(mcp, with_text(injected), session_key=SESSION_KEY)

                tg.start_soon(wait_injected)
                await anyio.sleep(0.2)
                assert (await owner.chat_inject(injected))["ok"] is True
            first = found["injected"]

            # 55: a user turn (chat.send) wakes the next pending events_wait and is announced.
            pending = await mcp.start(
                "tools/call",
                {
                    "name": "events_wait",
                    "arguments": {"session_key": SESSION_KEY, "after_cursor": first["cursor"], "timeout_ms": 60_000},
                },
            )
            await anyio.sleep(0.2)
            sent = await owner.chat_send(said)
            woken = await pending.response()
            user = await wait_event(mcp, with_text(said), after_cursor=first["cursor"], session_key=SESSION_KEY)
            notified = await mcp.wait_notification(
                lambda message: message.get("method") == CHANNEL and message["params"]["content"] == said
            )
            await finish_run(owner, sent)
            # 56: the run's reply follows as an assistant message.
            reply = await wait_event(
                mcp,
                lambda event: event.get("role") == "assistant" and event.get("text") == "mock reply",
                after_cursor=user["cursor"],
                session_key=SESSION_KEY,
            )

            everything = await poll_all(mcp, session_key=SESSION_KEY)
            paged: list[dict[str, Any]] = []
            cursor = 0
            while True:
                page = await mcp.call("events_poll", {"session_key": SESSION_KEY, "after_cursor": cursor, "limit": 1})
                events = page["structuredContent"]["events"]
                assert text_of(page) == f"events: {len(events)}"
                if not events:
                    assert page["structuredContent"] == {"events": [], "next_cursor": cursor}
                    break
                assert page["structuredContent"]["next_cursor"] == events[-1]["cursor"]
                paged += events
                cursor = events[-1]["cursor"]
            after_reply = await mcp.call("events_poll", {"after_cursor": reply["cursor"] - 1})
            other = await mcp.call("events_poll", {"session_key": "agent:main:other"})
            channel = channel_contents(mcp)

    assert "isError" not in (woken.get("result") or {}), woken
    assert text_of(woken["result"]).startswith("event ")
    assert first["role"] == "assistant" and isinstance(first["messageSeq"], int)
    assert first["conversation"] == {**ROUTE, "updatedAt": None}
    assert first["sessionKey"] == SESSION_KEY and first["raw"]["sessionKey"] == SESSION_KEY
    assert first["cursor"] < user["cursor"] < reply["cursor"]
    assert list(user)[:8] == ["cursor", "type", "sessionKey", "conversation", "messageId", "messageSeq", "role", "text"]
    assert user["role"] == "user" and user["raw"]["senderIsOwner"] is True
    assert notified["params"] == {
        "content": said,
        "meta": {
            "session_key": SESSION_KEY,
            "channel": "imessage",
            "to": "+15551234567",
            "account_id": "imessage-default",
            "thread_id": "thread-42",
            "message_id": user["messageId"],
        },
    }
    # Only user turns are announced.
    assert channel_ids(mcp, said) == {user["messageId"]}
    assert injected not in channel and "mock reply" not in channel
    # Poll pages: the whole list, page by page, in cursor order.
    cursors = [event["cursor"] for event in everything]
    assert cursors == sorted(cursors) and len(set(cursors)) == len(cursors)
    assert {first["cursor"], user["cursor"], reply["cursor"]} <= set(cursors)
    assert paged[: len(everything)] == everything
    assert after_reply["structuredContent"]["events"][0] == reply
    assert other["structuredContent"] == {"events": [], "next_cursor": 0}


# --- Claude channel permissions (§12.6: 70–72, 79; issue 4) ---------------------------------------------


async def test_a_non_owner_yes_is_a_message_and_the_owner_yes_answers_the_permission_request(
    real_gateway: RealGateway,
) -> None:
    with anyio.fail_after(FLOW_TIMEOUT_S):
        async with (
            real_gateway.operator("owner") as owner,
            real_gateway.operator("nonowner") as stranger,
            bridge(real_gateway, "on", "--verbose") as (mcp, _),
        ):
            # 70: the request is queued (without a session key) and nothing is announced for it.
            await permission_request(mcp, "abcde")
            queued = await wait_event(mcp, lambda event: event["type"] == "claude_permission_request")
            hidden = await poll_all(mcp, session_key=SESSION_KEY)

            # 71: a non-owner's reply is an ordinary message.
            sent = await stranger.chat_send("yes abcde")
            forwarded = await wait_event(mcp, with_text("yes abcde"), after_cursor=queued["cursor"])
            await mcp.wait_notification(lambda m: m.get("method") == CHANNEL and m["params"]["content"] == "yes abcde")
            await finish_run(stranger, sent)
            await anyio.sleep(1.0)  # the quiet window of the smoke flow
            early_permissions = mcp.notifications_of(PERMISSION)

            # 72: the owner's reply answers it and is consumed.
            sent = await owner.chat_send("yes abcde")
            decision = await mcp.wait_notification(lambda m: m.get("method") == PERMISSION)
            await finish_run(owner, sent)
            reply = await wait_event(
                mcp,
                lambda event: event.get("role") == "assistant" and event.get("text") == "mock reply",
                after_cursor=forwarded["cursor"],
            )
            between = [
                event
                for event in await poll_all(mcp)
                if forwarded["cursor"] < event["cursor"] < reply["cursor"] and event.get("text") == "yes abcde"
            ]

            # A second owner reply finds nothing pending: an ordinary message.
            sent = await owner.chat_send("yes abcde")
            again = await wait_event(
                mcp, lambda e: e.get("text") == "yes abcde" and e["raw"].get("senderIsOwner") is True
            )
            while len(channel_ids(mcp, "yes abcde")) < 2:
                await anyio.sleep(0.01)
            await finish_run(owner, sent)
        stderr = mcp.stderr_text.splitlines()

    assert {key: value for key, value in queued.items() if key != "cursor"} == {
        "type": "claude_permission_request",
        "requestId": "abcde",
        "toolName": "Bash",
        "description": "run npm test",
        "inputPreview": '{"cmd":"npm test"}',
    }
    assert queued["cursor"] not in [event["cursor"] for event in hidden]
    assert "senderIsOwner" not in forwarded["raw"]
    assert early_permissions == []
    assert decision["params"] == {"request_id": "abcde", "behavior": "allow"}
    assert between == []
    assert again["cursor"] > reply["cursor"]
    assert mcp.notifications_of(PERMISSION) == [decision]
    # The non-owner's reply and the owner's second one (by message id: the Gateway may deliver a turn twice).
    assert channel_ids(mcp, "yes abcde") == {forwarded["messageId"], again["messageId"]}
    assert "openclaw mcp: pending Claude permission abcde" in stderr


async def test_two_concurrent_owner_replies_produce_exactly_one_permission_notification(
    real_gateway: RealGateway,
) -> None:
    replies = ("yes qwert", "No QWERT")
    with anyio.fail_after(FLOW_TIMEOUT_S):
        async with (
            real_gateway.operator("owner") as first_owner,
            real_gateway.operator("owner") as second_owner,
            bridge(real_gateway) as (mcp, _),
        ):
            await permission_request(mcp, "qwert")
            await wait_event(mcp, lambda event: event["type"] == "claude_permission_request")
            sent: list[tuple[Operator, dict[str, Any]]] = []

            async def reply(operator: Operator, text: str) -> None:
                sent.append((operator, await operator.chat_send(text)))

            async with anyio.create_task_group() as tg:
                tg.start_soon(reply, first_owner, replies[0])
                tg.start_soon(reply, second_owner, replies[1])
            # Both user turns reach the Gateway's subscribers; the bridge consumes one and forwards the other.
            for text in replies:
                await first_owner.wait_event(user_turn(text))
            decision = await mcp.wait_notification(lambda m: m.get("method") == PERMISSION)
            consumed = "yes qwert" if decision["params"]["behavior"] == "allow" else "No QWERT"
            other = next(text for text in replies if text != consumed)
            await mcp.wait_notification(lambda m: m.get("method") == CHANNEL and m["params"]["content"] == other)
            for operator, started in sent:
                await finish_run(operator, started)
            await quiesce(first_owner)
            events = [event for event in await poll_all(mcp) if event.get("text") in replies]
        # The Gateway occasionally delivers a queued turn twice (same messageId): count deliveries per id.
        delivered = {
            text: [event.payload["messageId"] for event in first_owner.events if user_turn(text)(event)]
            for text in replies
        }

    assert mcp.notifications_of(PERMISSION) == [decision]
    assert decision["params"] == {"request_id": "qwert", "behavior": "allow" if consumed == "yes qwert" else "deny"}
    assert {event["messageId"] for event in events if event["text"] == other} == set(delivered[other])
    # A copy of the consumed turn can only be an ordinary message when the Gateway delivered it again.
    copies = [event for event in events if event["text"] == consumed]
    assert all(delivered[consumed].count(event["messageId"]) >= 2 for event in copies), (copies, delivered)
    assert channel_contents(mcp).count(consumed) == len(copies)


async def test_mode_off_answers_owner_replies_but_never_announces_messages(real_gateway: RealGateway) -> None:
    with anyio.fail_after(FLOW_TIMEOUT_S):
        async with real_gateway.operator("owner") as owner, bridge(real_gateway, "off") as (mcp, _):
            await permission_request(mcp, "mnbvc")
            await wait_event(mcp, lambda event: event["type"] == "claude_permission_request")
            sent = await owner.chat_send("yes mnbvc")
            decision = await mcp.wait_notification(lambda m: m.get("method") == PERMISSION)
            said = f"mode off {uuid.uuid4()}"
            second = await owner.chat_send(said)
            await wait_event(mcp, with_text(said))
            await finish_run(owner, sent)
            await finish_run(owner, second)
    assert decision["params"] == {"request_id": "mnbvc", "behavior": "allow"}
    assert mcp.notifications_of(CHANNEL) == []


# --- approvals (§12.7: 83–86) ---------------------------------------------------------------------------


async def test_exec_and_plugin_approvals_are_listed_and_resolved_through_the_bridge(
    real_gateway: RealGateway,
) -> None:
    with anyio.fail_after(FLOW_TIMEOUT_S):
        async with bridge(real_gateway) as (mcp, state), real_gateway.operator("approver", bridge_state=state) as asker:
            exec_request = await asker.request(
                "exec.approval.request",
                EXEC_APPROVAL_REQUEST,
            )
            plugin_request = await asker.request(
                "plugin.approval.request",
                {
                    "title": "Test plugin approval",
                    "description": "test desc",
                    "pluginId": "test-plugin",
                    "toolName": "test_tool",
                    "twoPhase": True,
                    "timeoutMs": 300_000,
                    "sessionKey": SESSION_KEY,
                },
            )
            exec_id, plugin_id = exec_request["id"], plugin_request["id"]
            await wait_event(mcp, lambda e: e["type"] == "plugin_approval_requested" and e["raw"]["id"] == plugin_id)
            listed = await mcp.call("permissions_list_open", {})

            denied = await mcp.call("permissions_respond", {"kind": "exec", "id": exec_id, "decision": "deny"})
            allowed = await mcp.call(
                "permissions_respond", {"kind": "plugin", "id": plugin_id, "decision": "allow-once"}
            )
            repeated = await mcp.call("permissions_respond", {"kind": "plugin", "id": plugin_id, "decision": "deny"})
            await wait_event(mcp, lambda e: e["type"] == "plugin_approval_resolved" and e["raw"]["id"] == plugin_id)
            await wait_event(mcp, lambda e: e["type"] == "exec_approval_resolved" and e["raw"]["id"] == exec_id)
            after = await mcp.call("permissions_list_open", {})
            unknown_exec = await mcp.call("permissions_respond", {"kind": "exec", "id": "nope", "decision": "deny"})
            unknown_plugin = await mcp.call(
                "permissions_respond", {"kind": "plugin", "id": "nope", "decision": "allow-once"}
            )
            queue = await poll_all(mcp)

    assert exec_request["status"] == "accepted" and plugin_id.startswith("plugin:")
    assert text_of(listed) == "approvals: 2"
    approvals = listed["structuredContent"]["approvals"]
    assert [(a["kind"], a["id"]) for a in approvals] == [("exec", exec_id), ("plugin", plugin_id)]
    for approval, request in zip(approvals, (exec_request, plugin_request), strict=True):
        assert list(approval) == ["kind", "id", "request", "createdAtMs", "expiresAtMs"]
        assert (approval["createdAtMs"], approval["expiresAtMs"]) == (request["createdAtMs"], request["expiresAtMs"])
    assert approvals[0]["request"]["command"] == "echo approval-test"
    assert approvals[1]["request"]["pluginId"] == "test-plugin"
    for result in (denied, allowed):
        assert text_of(result) == "approval resolved" and result["structuredContent"] == {"result": {"ok": True}}
    assert (repeated.get("isError"), text_of(repeated)) == (True, "approval already resolved")
    assert text_of(after) == "approvals: 0"
    for result in (unknown_exec, unknown_plugin):
        assert (result.get("isError"), text_of(result)) == (True, "unknown or expired approval id")
    by_type = {event["type"]: event for event in queue if event["type"].endswith(("_requested", "_resolved"))}
    assert by_type["exec_approval_requested"]["raw"]["approvalKind"] == "exec"
    assert by_type["plugin_approval_requested"]["raw"]["approvalKind"] == "plugin"
    for kind, decision in (("exec", "deny"), ("plugin", "allow-once")):
        raw = by_type[f"{kind}_approval_resolved"]["raw"]
        assert (raw["decision"], raw["resolvedBy"]) == (decision, "OpenClaw MCP")
        assert {"ts", "request"} <= set(raw)


# --- the two directions closed: a runtime tool call approved through serve (issue 13) ------------------

RECORDING_SERVER = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_servers" / "recording_server.py"
DENIED_BY_USER = "Denied by user. The tool call did not run."


def approval_hooks() -> Any:
    """A hook asking for approval of every ``docs__search_docs`` call (and rewriting one param)."""
    from openclaw_mcp.application.tool_boundary import HookRegistry

    hooks = HookRegistry()
    hooks.on(
        "before_tool_call",
        lambda event, ctx: {
            "params": {"approved_by_hook": True},
            "requireApproval": {"title": "Search the docs", "description": "Allow the docs search?"},
        },
        plugin_id="approval-guard",
        matcher=["docs__search_docs"],
    )
    return hooks


async def runtime_call_with_operator(
    gateway: RealGateway, decision: str, log: Path
) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """Our client runtime calls ``docs__search_docs`` with Gateway approvals (the bridge's state, so its
    device); the operator answers ``decision`` through our ``openclaw mcp serve``'s approvals tools. Returns
    the call's outcome (result or ``ToolCallBlocked``), the approval as the bridge listed it and the answer."""
    import sys

    from openclaw_mcp.application.tool_boundary import ToolCallBlocked
    from openclaw_mcp.entrypoints.approvals import gateway_plugin_approvals
    from openclaw_mcp.entrypoints.runtime_api import RuntimeBoundary, RuntimeHost, RuntimePolicy, SessionMcpRuntime

    servers = {
        "docs": {
            "command": sys.executable,
            "args": [str(RECORDING_SERVER), "search_docs"],
            "env": {"RECORDING_SERVER_LOG": str(log)},
        }
    }
    outcome: dict[str, Any] = {}
    async with bridge(gateway) as (mcp, state):
        env = gateway.bridge_env(state)
        async with (
            gateway_plugin_approvals(url=gateway.url, token=gateway.token, env=env) as approvals,
            SessionMcpRuntime(
                servers,
                host=RuntimeHost(environ=env),
                policy=RuntimePolicy(agent_id="main", session_key=SESSION_KEY),
                boundary=RuntimeBoundary(hooks=approval_hooks(), approvals=approvals),
            ) as runtime,
        ):
            tools = {tool.name: tool for tool in await runtime.tools()}

            async def call() -> None:
                try:
                    outcome["result"] = await tools["docs__search_docs"].execute({"q": "a"}, tool_call_id="call-e2e")
                except ToolCallBlocked as exc:
                    outcome["result"] = exc

            async with anyio.create_task_group() as tg:
                tg.start_soon(call)
                event = await wait_event(
                    mcp,
                    lambda e: (
                        e["type"] == "plugin_approval_requested" and e["raw"]["request"].get("toolCallId") == "call-e2e"
                    ),
                )
                listed = await mcp.call("permissions_list_open", {})
                answer = await mcp.call(
                    "permissions_respond", {"kind": "plugin", "id": event["raw"]["id"], "decision": decision}
                )
    approval = next(a for a in listed["structuredContent"]["approvals"] if a["id"] == event["raw"]["id"])
    return outcome["result"], approval, answer


async def test_a_runtime_tool_call_approved_through_serve_reaches_the_mcp_server(
    real_gateway: RealGateway, tmp_path: Path
) -> None:
    log = tmp_path / "docs.jsonl"
    with anyio.fail_after(FLOW_TIMEOUT_S):
        result, approval, answer = await runtime_call_with_operator(real_gateway, "allow-once", log)
    request = approval["request"]
    assert (request["title"], request["description"]) == ("Search the docs", "Allow the docs search?")
    assert (request["toolName"], request["toolCallId"], request["sessionKey"]) == (
        "docs__search_docs",
        "call-e2e",
        SESSION_KEY,
    )
    assert text_of(answer) == "approval resolved"
    assert result.details["mcpTool"] == "search_docs", result
    received = [json.loads(line) for line in log.read_text().splitlines() if '"name"' in line]
    assert [entry["arguments"] for entry in received] == [{"q": "a", "approved_by_hook": True}]


async def test_a_runtime_tool_call_denied_through_serve_never_reaches_the_mcp_server(
    real_gateway: RealGateway, tmp_path: Path
) -> None:
    from openclaw_mcp.application.tool_boundary import ToolCallBlocked

    log = tmp_path / "docs.jsonl"
    with anyio.fail_after(FLOW_TIMEOUT_S):
        result, _approval, answer = await runtime_call_with_operator(real_gateway, "deny", log)
    assert text_of(answer) == "approval resolved"
    assert isinstance(result, ToolCallBlocked)
    assert str(result).splitlines()[0] == DENIED_BY_USER and len(str(result).splitlines()) == 4
    assert all('"name"' not in line for line in log.read_text().splitlines())


# --- start-up (§12.1: 4–6, 8–11) -----------------------------------------------------------------------

HEALTH_HINT = "Run openclaw gateway status --deep --require-rpc to inspect Gateway health."


def serve_command(*args: str) -> list[str]:
    """Our ``openclaw mcp serve`` with exactly ``args``."""
    return [ours_serve_command("ws://unused", Path("unused"))[0], "mcp", "serve", *args]


async def started(client: McpClient) -> dict[str, Any]:
    """``initialize``, then the first ``conversations_list`` (answered once the bridge is ready)."""
    initialized = await client.initialize()
    listed = await client.call("conversations_list", {"limit": 1})
    assert "isError" not in listed, (listed, client.stderr_text)
    return initialized


async def failed_start(client: McpClient) -> str:
    """``initialize`` is answered, then the bridge exits 1; its stderr."""
    await client.initialize()
    assert await client.wait_exit() == 1, client.stderr_text
    return client.stderr_text


async def test_a_token_file_connects_with_nothing_on_stderr_and_a_second_run_uses_the_device_token(
    real_gateway: RealGateway,
) -> None:
    state = real_gateway.new_bridge_state("startup-token-file")
    env = real_gateway.bridge_env(state)
    with anyio.fail_after(FLOW_TIMEOUT_S):
        command = serve_command("--url", real_gateway.url, "--token-file", str(real_gateway.token_file))
        async with open_mcp_client(command, env, name="ours") as client:
            await started(client)
            await client.close_stdin()
            assert await client.wait_exit() == 0
        assert client.stderr_text == ""
        async with open_mcp_client(serve_command("--url", real_gateway.url), env, name="ours") as again:
            await started(again)
            await again.close_stdin()
            assert await again.wait_exit() == 0
        assert again.stderr_text == ""


async def test_the_channel_mode_is_case_insensitive(real_gateway: RealGateway) -> None:
    state = real_gateway.new_bridge_state("startup-mode")
    command = serve_command(
        "--url", real_gateway.url, "--token-file", str(real_gateway.token_file), "--claude-channel-mode", "ON"
    )
    with anyio.fail_after(FLOW_TIMEOUT_S):
        async with open_mcp_client(command, real_gateway.bridge_env(state), name="ours") as client:
            initialized = await started(client)
    assert "experimental" in initialized["capabilities"]


async def test_a_wrong_token_fails_the_start_with_the_gateways_reason(
    real_gateway: RealGateway, tmp_path: Path
) -> None:
    wrong = tmp_path / "wrong-token"
    wrong.write_text("not-the-token\n")
    state = real_gateway.new_bridge_state("startup-wrong-token")
    reason = "unauthorized: gateway token mismatch (use this gateway's gateway.auth.token or pair the device)"
    with anyio.fail_after(FLOW_TIMEOUT_S):
        command = serve_command("--url", real_gateway.url, "--token-file", str(wrong))
        async with open_mcp_client(command, real_gateway.bridge_env(state), name="ours") as client:
            stderr = await failed_start(client)
    assert stderr == (
        f"gateway connect failed: GatewayClientRequestError: {reason}\n"
        f"MCP server failed to start: {reason}. {HEALTH_HINT}\n"
    )


@pytest.mark.parametrize("env_token", [False, True], ids=["no-credentials", "env-token-ignored-with-url"])
async def test_no_credentials_fail_the_start_as_a_missing_token(real_gateway: RealGateway, env_token: bool) -> None:
    state = real_gateway.new_bridge_state("startup-no-credentials")
    extra = {"OPENCLAW_GATEWAY_TOKEN": real_gateway.token} if env_token else None
    reason = "unauthorized: gateway token missing (use this gateway's gateway.auth.token or pair the device)"
    with anyio.fail_after(FLOW_TIMEOUT_S):
        command = serve_command("--url", real_gateway.url)
        async with open_mcp_client(command, real_gateway.bridge_env(state, extra), name="ours") as client:
            stderr = await failed_start(client)
    assert stderr == (
        f"gateway connect failed: GatewayClientRequestError: {reason}\n"
        f"MCP server failed to start: {reason}. {HEALTH_HINT}\n"
    )


async def test_the_gateway_url_may_come_from_the_environment(real_gateway: RealGateway) -> None:
    state = real_gateway.new_bridge_state("startup-env-url")
    env = real_gateway.bridge_env(state, {"OPENCLAW_GATEWAY_URL": real_gateway.url})
    with anyio.fail_after(FLOW_TIMEOUT_S):
        async with open_mcp_client(
            serve_command("--token-file", str(real_gateway.token_file)), env, name="ours"
        ) as client:
            await started(client)
    assert client.stderr_text == ""


# --- outages (§12.8: 95–96; issue 4) -------------------------------------------------------------------

FAIL_FAST_S = 2.0
"""Generous bound for "fails at once" (observed: milliseconds)."""
BACK_WITHIN_S = 2.0
"""After re-subscribing the bridge answers at once; the poll below runs every ``POLL_S``."""
POLL_S = 0.02
"""Often enough to land in a reconnect's socket-open → hello-ok window, where the reference (bug §7.2)
answers ``invalid handshake: first request must be connect`` and backs off for up to 30 s more."""


async def test_a_killed_and_restarted_gateway_fails_tools_fast_then_they_work_again(
    real_gateway: RealGateway,
) -> None:
    after_restart = f"after restart {uuid.uuid4()}"
    failures: list[tuple[float, float, str]] = []
    with anyio.fail_after(FLOW_TIMEOUT_S + 240):
        async with bridge(real_gateway) as (mcp, _):
            before = await poll_all(mcp)
            real_gateway.kill()
            # Down: Gateway-backed tools fail fast with exactly `gateway not connected`; local tools work.
            while True:
                started = time.monotonic()
                result = await mcp.call("conversations_list", {})
                if result.get("isError"):
                    break
                await anyio.sleep(0.05)
            down_list = (time.monotonic() - started, result)
            started = time.monotonic()
            respond = await mcp.call("permissions_respond", {"kind": "exec", "id": "nope", "decision": "deny"})
            down_respond = (time.monotonic() - started, respond)
            down_poll = await mcp.call("events_poll", {})

            # Restart in a thread while polling: failures stay `gateway not connected` until it works.
            restarted = anyio.Event()
            ready_after: list[float] = []

            async def restart() -> None:
                ready_after.append(await anyio.to_thread.run_sync(real_gateway.restart))
                restarted.set()

            async with anyio.create_task_group() as tg:
                tg.start_soon(restart)
                while True:
                    started = time.monotonic()
                    result = await mcp.call("conversations_list", {"limit": 1})
                    ended = time.monotonic()
                    if not result.get("isError"):
                        back_at = ended
                        break
                    failures.append((started, ended, text_of(result)))
                    await anyio.sleep(POLL_S)
            await restarted.wait()
            back = result

            # Events flow again: a pending events_wait gets the next cursor.
            last_cursor = max([event["cursor"] for event in before], default=0)
            async with real_gateway.operator("owner") as owner:
                pending = await mcp.start(
                    "tools/call",
                    {
                        "name": "events_wait",
                        "arguments": {"session_key": SESSION_KEY, "after_cursor": last_cursor, "timeout_ms": 60_000},
                    },
                )
                await anyio.sleep(0.2)
                await owner.chat_inject(after_restart)
                woken = await pending.response()
                event = await wait_event(mcp, with_text(after_restart), after_cursor=last_cursor)
            still_alive = mcp.process.returncode is None

    assert down_list[1] == {"content": [{"type": "text", "text": "gateway not connected"}], "isError": True}
    assert down_list[0] < FAIL_FAST_S
    assert down_respond[1] == {"content": [{"type": "text", "text": "gateway not connected"}], "isError": True}
    assert down_respond[0] < FAIL_FAST_S
    assert text_of(down_poll).startswith("events: ") and "isError" not in down_poll
    assert {text for _, _, text in failures} <= {"gateway not connected"}
    assert all(ended - started < FAIL_FAST_S for started, ended, _ in failures)
    assert failures, "the bridge cannot have reconnected before the Gateway was back"
    # Between the last `gateway not connected` and the first success there is at most one poll interval plus
    # the call itself: once re-subscribed, the bridge works at once.
    assert back_at - failures[-1][1] < BACK_WITHIN_S
    assert text_of(back).startswith("conversations: ")
    assert "result" in woken and text_of(woken["result"]).startswith("event ")
    assert event["cursor"] > last_cursor
    assert still_alive
