"""Replays every recorded ``tools/call`` of the reference (``reference_cases/oracle/serve/<tool>.json``) through the
whole server — stdio framing, validation, the bridge, the Gateway port — against a Gateway answering with the
recorded responses: each answer must be byte-identical to the recorded JSON-RPC line, and each Gateway
request equal to the recorded one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.unit.serve_fakes import ORACLE, RecordedGateway, encoded, serve_session

pytestmark = pytest.mark.asyncio

TOOLS = (
    "conversations_list",
    "conversation_get",
    "messages_read",
    "attachments_fetch",
    "events_poll",
    "events_wait",
    "permissions_list_open",
    "permissions_respond",
    "messages_send",
)


def _cases() -> list[tuple[str, dict[str, Any]]]:
    cases: list[tuple[str, dict[str, Any]]] = []
    for tool in TOOLS:
        data = json.loads((ORACLE / f"{tool}.json").read_text(encoding="utf-8"))
        cases.extend((tool, case) for case in data["cases"])
    return sorted(cases, key=lambda item: int(item[1]["response"]["id"]))


async def test_every_recorded_tool_call_is_answered_byte_for_byte(tmp_path: Path) -> None:
    gateway = RecordedGateway()
    async with serve_session(tmp_path, gateway, options={"token": "probetoken"}) as session:
        with anyio.fail_after(10):
            await session.initialize()
            for tool, case in _cases():
                request_id = case["response"]["id"]
                session.call(tool, case["args"], request_id=request_id)
                line = await session.next_line()
                assert line == encoded(case["response"]), f"{tool} {case['label']}"
    assert gateway.mismatches == []
    assert [r.method for r in gateway.requests][:1] == ["sessions.subscribe"]
    assert session.exit_code == 0
    assert session.stderr_lines == [
        "Warning: --token *** be exposed via process listings. Prefer --token-file or environment variables."
    ]


async def test_recorded_send_carries_the_conversation_route(tmp_path: Path) -> None:
    gateway = RecordedGateway()
    # conversation_get / messages_send describe the same session; feed the recorded describe of agent:main:main
    describes = [item for item in gateway.exchanges["sessions.describe"] if item[0]["key"] == "agent:main:main"]
    gateway.exchanges["sessions.describe"].clear()
    gateway.exchanges["sessions.describe"].append(describes[0])
    async with serve_session(tmp_path, gateway) as session:
        with anyio.fail_after(5):
            result = await session.tool("messages_send", {"session_key": "agent:main:main", "text": "reply from mcp"})
    assert result == {"content": [{"type": "text", "text": "unsupported channel: imessage"}], "isError": True}
    sent = [r.params for r in gateway.requests if r.method == "send"]
    assert len(sent) == 1
    params = dict(sent[0])
    key = params.pop("idempotencyKey")
    assert params == {
        "to": "+15551234567",
        "channel": "imessage",
        "accountId": "imessage-default",
        "threadId": "thread-42",
        "message": "reply from mcp",
        "sessionKey": "agent:main:main",
    }
    assert len(key) == 36 and key[14] == "4"
