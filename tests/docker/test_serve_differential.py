"""Differential: our ``openclaw mcp serve`` against the reference's own, side by side on one seeded real
Gateway (spec serve-bridge.md §4, §5, §12; gateway-protocol.md §9.5).

Both bridges run at the same time with their own state dirs, the same ``--url``/``--token-file`` and mode
``on``; every request goes to both concurrently and the whole JSON-RPC response (minus its id) must be equal
after normalising the volatile values: epoch-millisecond timestamps, UUIDs (message, run, approval ids) and
device ids — inside strings too, since result texts embed the pretty-printed structured content. The
deliberate differences of serve-bridge.md §13 are not exercised here (no non-object ``arguments``, no
pre-hello reconnects, no upper-case permission ids).
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.docker.gateway_harness import (
    EXEC_APPROVAL_REQUEST,
    INITIALIZE_PARAMS,
    SESSION_KEY,
    McpClient,
    RealGateway,
    Reference,
    open_mcp_client,
    ours_serve_command,
    reference_serve_command,
)

pytestmark = [pytest.mark.asyncio, pytest.mark.reference]

TIMEOUT_S = 240
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE)
_HEX64 = re.compile(r"\b[0-9a-f]{64}\b")
_EPOCH_MS = re.compile(r"(?<![0-9])1[0-9]{12}(?![0-9])")
_EPOCH_MS_RANGE = (1_000_000_000_000, 9_999_999_999_999)

# The nine tools' argument cases (those of the recorded oracle, serve-bridge.md §12.2–§12.8).
TOOL_CASES: list[tuple[str, Any]] = [
    ("conversations_list", {}),
    ("conversations_list", {"includeDerivedTitles": False, "includeLastMessage": False}),
    ("conversations_list", {"channel": "IMESSAGE"}),
    ("conversations_list", {"channel": "telegram"}),
    ("conversations_list", {"search": "Docker"}),
    ("conversations_list", {"search": "zzz-no-match"}),
    ("conversations_list", {"limit": 1}),
    ("conversations_list", {"limit": 0}),
    ("conversations_list", {"limit": 501}),
    ("conversations_list", {"limit": 1.5}),
    ("conversations_list", {"limit": 1e21}),
    ("conversations_list", {"bogus": 1}),
    ("conversation_get", {"session_key": SESSION_KEY}),
    ("conversation_get", {"session_key": f"  {SESSION_KEY}  "}),
    ("conversation_get", {"session_key": "agent:main:nope"}),
    ("conversation_get", {"session_key": "   "}),
    ("conversation_get", {"session_key": ""}),
    ("conversation_get", {}),
    ("messages_read", {"session_key": SESSION_KEY, "limit": 10}),
    ("messages_read", {"session_key": SESSION_KEY}),
    ("messages_read", {"session_key": SESSION_KEY, "limit": 1}),
    ("messages_read", {"session_key": "agent:main:nope"}),
    ("messages_read", {"session_key": SESSION_KEY, "limit": 201}),
    ("attachments_fetch", {"session_key": SESSION_KEY, "message_id": "msg-attachment"}),
    ("attachments_fetch", {"session_key": SESSION_KEY, "message_id": "msg-image-block"}),
    ("attachments_fetch", {"session_key": SESSION_KEY, "message_id": "msg-1"}),
    ("attachments_fetch", {"session_key": SESSION_KEY, "message_id": "msg-nope"}),
    ("attachments_fetch", {"session_key": "agent:main:nope", "message_id": "msg-1"}),
    ("attachments_fetch", {"session_key": SESSION_KEY, "message_id": "msg-1", "limit": 1}),
    ("events_poll", {}),
    ("events_poll", {"session_key": SESSION_KEY, "after_cursor": 0, "limit": 10}),
    ("events_poll", {"after_cursor": 5}),
    ("events_poll", {"after_cursor": -1}),
    ("events_poll", None),
    ("events_wait", {"timeout_ms": 50}),
    ("events_wait", {"session_key": SESSION_KEY, "timeout_ms": 1}),
    ("events_wait", {"timeout_ms": 0}),
    ("messages_send", {"session_key": "agent:main:nope", "text": "hi"}),
    ("messages_send", {"session_key": SESSION_KEY, "text": "reply from mcp"}),
    ("messages_send", {"session_key": SESSION_KEY, "text": ""}),
    ("permissions_list_open", {}),
    ("permissions_list_open", {"extra": True}),
    ("permissions_respond", {"kind": "exec", "id": "nope", "decision": "deny"}),
    ("permissions_respond", {"kind": "plugin", "id": "nope", "decision": "allow-once"}),
    ("permissions_respond", {"kind": "exec", "id": "nope", "decision": "maybe"}),
    ("permissions_respond", {}),
    ("no_such_tool", {}),
]
PROTOCOL_CASES: list[tuple[str, Any]] = [
    ("ping", {}),
    ("resources/list", {}),
    ("prompts/list", {}),
    ("resources/templates/list", {}),
    ("logging/setLevel", {"level": "debug"}),
]


def normalize(value: Any) -> Any:
    """Volatile values replaced by placeholders (keys and order kept)."""
    if isinstance(value, dict):
        return {key: normalize(item) for key, item in value.items()}
    if isinstance(value, list):
        return [normalize(item) for item in value]
    if isinstance(value, str):
        text = _UUID.sub("<uuid>", value)
        text = _HEX64.sub("<hex64>", text)
        return _EPOCH_MS.sub("<ms>", text)
    if isinstance(value, int) and not isinstance(value, bool) and _EPOCH_MS_RANGE[0] <= value <= _EPOCH_MS_RANGE[1]:
        return "<ms>"
    return value


def comparable(response: dict[str, Any]) -> Any:
    return normalize({key: value for key, value in response.items() if key != "id"})


@dataclass
class Bridges:
    clients: dict[str, McpClient]
    states: dict[str, Path]
    initialized: dict[str, Any]


@asynccontextmanager
async def both_bridges(gateway: RealGateway, reference: Reference, mode: str = "on") -> AsyncIterator[Bridges]:
    """The reference's bridge and ours, both initialized with the same parameters and ready."""
    commands = {
        "reference": reference_serve_command(reference, gateway.url, gateway.token_file, mode),
        "ours": ours_serve_command(gateway.url, gateway.token_file, mode),
    }
    async with AsyncExitStack() as stack:
        bridges = Bridges({}, {}, {})
        for name, command in commands.items():
            bridges.states[name] = gateway.new_bridge_state(f"{name}-{mode}")
            env = gateway.bridge_env(bridges.states[name])
            bridges.clients[name] = await stack.enter_async_context(open_mcp_client(command, env, name=name))

        async def start(name: str) -> None:
            client = bridges.clients[name]
            bridges.initialized[name] = await client.request("initialize", INITIALIZE_PARAMS)
            await client.notify("notifications/initialized")
            ready = await client.call("conversations_list", {"limit": 1})
            assert "isError" not in ready, (name, ready, client.stderr_text)

        async with anyio.create_task_group() as tg:
            for name in commands:
                tg.start_soon(start, name)
        yield bridges


class Differences:
    """Collects every mismatch so one run reports all of them."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def compare(self, label: str, reference: Any, ours: Any) -> None:
        """Equal as JSON text: values and key order (the wire order is the parsed dicts' order)."""
        expected, actual = json.dumps(reference, ensure_ascii=False), json.dumps(ours, ensure_ascii=False)
        if expected != actual:
            self.found.append(f"--- {label}\nreference: {expected}\nours:      {actual}")

    def assert_none(self) -> None:
        assert not self.found, f"{len(self.found)} difference(s):\n" + "\n".join(self.found)


async def both(clients: dict[str, McpClient], method: str, params: Any = None) -> dict[str, Any]:
    """The same request to both bridges at once; the raw responses by bridge name."""
    responses: dict[str, Any] = {}

    async def one(name: str) -> None:
        responses[name] = await clients[name].request(method, params)

    async with anyio.create_task_group() as tg:
        for name in clients:
            tg.start_soon(one, name)
    return responses


def tool_params(name: str, arguments: Any) -> dict[str, Any]:
    return {"name": name} if arguments is None else {"name": name, "arguments": arguments}


async def test_initialize_tools_list_and_the_nine_tools_answer_exactly_like_the_reference(
    real_gateway: RealGateway, reference: Reference
) -> None:
    differences = Differences()
    with anyio.fail_after(TIMEOUT_S):
        async with both_bridges(real_gateway, reference) as bridges:
            clients = bridges.clients
            initialized = bridges.initialized
            differences.compare("initialize", comparable(initialized["reference"]), comparable(initialized["ours"]))
            listed = await both(clients, "tools/list")
            differences.compare("tools/list", comparable(listed["reference"]), comparable(listed["ours"]))
            for method, params in PROTOCOL_CASES:
                answers = await both(clients, method, params)
                differences.compare(method, comparable(answers["reference"]), comparable(answers["ours"]))
            answered = []
            for name, arguments in TOOL_CASES:
                answers = await both(clients, "tools/call", tool_params(name, arguments))
                answered.append(answers["ours"])
                label = f"{name} {json.dumps(arguments)}"
                differences.compare(label, comparable(answers["reference"]), comparable(answers["ours"]))
    differences.assert_none()
    assert len(answered) == len(TOOL_CASES)
    assert sum(1 for answer in answered if "isError" not in answer["result"]) >= 20
    assert initialized["ours"]["result"]["serverInfo"] == {"name": "openclaw", "version": "2026.9.6"}
    tools = listed["ours"]["result"]["tools"]
    assert [tool["name"] for tool in tools] == [
        "conversations_list",
        "conversation_get",
        "messages_read",
        "attachments_fetch",
        "events_poll",
        "events_wait",
        "messages_send",
        "permissions_list_open",
        "permissions_respond",
    ]


async def test_initialize_in_mode_off_answers_exactly_like_the_reference(
    real_gateway: RealGateway, reference: Reference
) -> None:
    commands = {
        "reference": reference_serve_command(reference, real_gateway.url, real_gateway.token_file, "off"),
        "ours": ours_serve_command(real_gateway.url, real_gateway.token_file, "off"),
    }
    results: dict[str, Any] = {}
    with anyio.fail_after(TIMEOUT_S):
        async with AsyncExitStack() as stack:
            for name, command in commands.items():
                env = real_gateway.bridge_env(real_gateway.new_bridge_state(f"{name}-init-off"))
                client = await stack.enter_async_context(open_mcp_client(command, env, name=name))
                results[name] = await client.request("initialize", INITIALIZE_PARAMS)
    differences = Differences()
    differences.compare("initialize (off)", comparable(results["reference"]), comparable(results["ours"]))
    differences.assert_none()
    assert results["ours"]["result"]["capabilities"] == {"tools": {"listChanged": True}}


async def test_live_events_approvals_and_sends_answer_exactly_like_the_reference(
    real_gateway: RealGateway, reference: Reference
) -> None:
    differences = Differences()
    injected = f"differential live event {uuid.uuid4()}"
    with anyio.fail_after(TIMEOUT_S):
        async with both_bridges(real_gateway, reference) as bridges, real_gateway.operator("owner") as owner:
            clients = bridges.clients
            # A live Gateway message reaches both queues as the same event.
            before = await both(clients, "tools/call", tool_params("events_poll", {"limit": 200}))
            cursors = {name: before[name]["result"]["structuredContent"]["next_cursor"] for name in clients}
            waits = {}
            async with anyio.create_task_group() as tg:

                async def wait(name: str) -> None:
                    arguments = {"session_key": SESSION_KEY, "after_cursor": cursors[name], "timeout_ms": 60_000}
                    waits[name] = await clients[name].request("tools/call", tool_params("events_wait", arguments))

                for name in clients:
                    tg.start_soon(wait, name)
                await anyio.sleep(0.5)
                await owner.chat_inject(injected)
            if cursors["ours"] == cursors["reference"]:
                differences.compare("events_wait (live)", comparable(waits["reference"]), comparable(waits["ours"]))
            event = {name: waits[name]["result"]["structuredContent"]["event"] for name in clients}
            for name in clients:
                assert event[name] is not None and event[name]["text"] == injected, (name, waits[name])
            differences.compare(
                "live event (cursor aside)",
                normalize({**event["reference"], "cursor": None}),
                normalize({**event["ours"], "cursor": None}),
            )
            since = {name: event[name]["cursor"] - 1 for name in clients}
            polled = {}
            for name in clients:
                arguments = {"session_key": SESSION_KEY, "after_cursor": since[name], "limit": 1}
                polled[name] = await clients[name].request("tools/call", tool_params("events_poll", arguments))
            if since["ours"] == since["reference"]:
                differences.compare("events_poll (live)", comparable(polled["reference"]), comparable(polled["ours"]))

            # An exec approval requested under each bridge's own device identity.
            approvers = {}
            async with AsyncExitStack() as stack:
                for name in clients:
                    approvers[name] = await stack.enter_async_context(
                        real_gateway.operator("approver", bridge_state=bridges.states[name])
                    )
                requested = {}
                for name, approver in approvers.items():
                    requested[name] = await approver.request(
                        "exec.approval.request",
                        EXEC_APPROVAL_REQUEST,
                    )
                for client in clients.values():
                    await _wait_for_approvals(client, 1)
                listed = await both(clients, "tools/call", tool_params("permissions_list_open", {}))
                differences.compare(
                    "permissions_list_open", comparable(listed["reference"]), comparable(listed["ours"])
                )
                responded = {}
                for name, client in clients.items():
                    arguments = {"kind": "exec", "id": requested[name]["id"], "decision": "deny"}
                    responded[name] = await client.request("tools/call", tool_params("permissions_respond", arguments))
                differences.compare(
                    "permissions_respond", comparable(responded["reference"]), comparable(responded["ours"])
                )
                repeated = {}
                for name, client in clients.items():
                    arguments = {"kind": "exec", "id": requested[name]["id"], "decision": "allow-once"}
                    repeated[name] = await client.request("tools/call", tool_params("permissions_respond", arguments))
                differences.compare(
                    "permissions_respond again", comparable(repeated["reference"]), comparable(repeated["ours"])
                )
                for client in clients.values():
                    await _wait_for_approvals(client, 0)

            # Sending through the routed conversation: the Gateway's error passes through.
            sent = await both(
                clients, "tools/call", tool_params("messages_send", {"session_key": SESSION_KEY, "text": "hi"})
            )
            differences.compare("messages_send", comparable(sent["reference"]), comparable(sent["ours"]))
    differences.assert_none()


async def _wait_for_approvals(client: McpClient, count: int) -> None:
    while True:
        listed = await client.call("permissions_list_open", {})
        if len(listed["structuredContent"]["approvals"]) == count:
            return
        await anyio.sleep(0.05)
