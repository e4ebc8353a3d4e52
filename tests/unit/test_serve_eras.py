"""``openclaw mcp serve`` in both protocol eras (spec protocol-eras.md §4.1–§4.4, acceptance A19, A20): a
2026-07-28 connection discovers and lists the nine tools, events reach the queue but no Claude channel
notification is written in any mode (D-PE14), a permission request is ignored so owner replies stay ordinary
messages; a legacy connection keeps answering enveloped requests byte for byte as before (D-PE11)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.unit.serve_fakes import ORACLE, Session, encoded, seeded_gateway, serve_session

pytestmark = pytest.mark.asyncio

EVENTS = json.loads((ORACLE / "gateway" / "session_message_events.json").read_text(encoding="utf-8"))
OWNER = [e["payload"] for e in EVENTS if e["conn"] == "owner"]
USER_WAIT = OWNER[1]  # owner user turn "wait event <uuid>" (senderIsOwner: true)
OWNER_YES = OWNER[5]  # owner "yes abcde"
M = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "pytest", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}
SERVER_INFO_META = {"io.modelcontextprotocol/serverInfo": {"name": "openclaw", "version": "2026.9.6"}}
PERMISSION_REQUEST = {"request_id": "abcde", "tool_name": "Bash", "description": "d", "input_preview": "{}"}
IGNORED_LINE = "openclaw mcp: ignored notifications/claude/channel/permission_request on a 2026-07-28 connection"


async def _modern(session: Session, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    result = await session.result(session.request(method, {**(params or {}), "_meta": M}))
    assert isinstance(result, dict)
    assert result["resultType"] == "complete"
    assert result["_meta"] == SERVER_INFO_META
    return result


async def _modern_tool(session: Session, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return await _modern(session, "tools/call", {"name": tool, "arguments": arguments})


async def _quiet_for(session: Session, seconds: float) -> None:
    """Nothing is written for ``seconds``."""
    with anyio.move_on_after(seconds):
        line = await session.next_line()
        raise AssertionError(f"unexpected line: {line!r}")


@pytest.mark.parametrize("mode", ["on", "auto", "off"])
async def test_a_2026_connection_discovers_lists_and_queues_without_notifications(tmp_path: Path, mode: str) -> None:
    recorded = json.loads((ORACLE / "tools.json").read_text(encoding="utf-8"))
    gateway = seeded_gateway()
    async with serve_session(tmp_path, gateway, options={"claude_channel_mode": mode}) as session:
        with anyio.fail_after(10):
            discover = await _modern(session, "server/discover")
            listed = await _modern(session, "tools/list")
            await _modern_tool(session, "conversations_list", {"limit": 1})  # answered once the bridge is ready
            gateway.push_event("session.message", USER_WAIT)
            await _quiet_for(session, 1.0)
            poll = await _modern_tool(session, "events_poll", {"after_cursor": 0})
            await _quiet_for(session, 0.2)
    assert discover == {
        "resultType": "complete",
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": {}},
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": SERVER_INFO_META,
    }
    assert listed["tools"] == recorded["tools"]
    assert len(listed["tools"]) == 9
    assert (listed["ttlMs"], listed["cacheScope"]) == (0, "private")
    events = poll["structuredContent"]["events"]
    assert [(e["type"], e["role"], e["text"]) for e in events] == [("message", "user", events[0]["text"])]
    assert events[0]["messageId"] == USER_WAIT["messageId"]


@pytest.mark.parametrize("mode", ["on", "auto", "off"])
async def test_a_2026_connection_ignores_claude_permission_requests(tmp_path: Path, mode: str) -> None:
    gateway = seeded_gateway()
    options = {"claude_channel_mode": mode, "verbose": True}
    async with serve_session(tmp_path, gateway, options=options) as session:
        with anyio.fail_after(10):
            await _modern(session, "server/discover")
            await _modern_tool(session, "conversations_list", {"limit": 1})
            session.notify("notifications/claude/channel/permission_request", PERMISSION_REQUEST)
            gateway.push_event("session.message", OWNER_YES)
            await _quiet_for(session, 1.0)
            poll = await _modern_tool(session, "events_poll", {"after_cursor": 0})
    events = poll["structuredContent"]["events"]
    assert [(e["type"], e["role"], e["text"]) for e in events] == [("message", "user", "yes abcde")]
    assert IGNORED_LINE in session.stderr_lines
    assert not any("pending Claude permission" in line for line in session.stderr_lines)


async def test_the_ignored_permission_request_is_silent_without_verbose(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(10):
            await _modern(session, "tools/list")
            session.notify("notifications/claude/channel/permission_request", PERMISSION_REQUEST)
            poll = await _modern_tool(session, "events_poll", {})
    assert poll["structuredContent"]["events"] == []
    assert session.stderr_lines == []


async def test_a_2026_connection_answers_the_ladder_and_tool_errors(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(10):
            await _modern(session, "server/discover")
            ping = await session.response(session.request("ping", {"_meta": M}))
            initialize = await session.response(session.request("initialize", {"protocolVersion": "2025-06-18"}))
            unknown = await _modern_tool(session, "no_such_tool", {})
    assert ping["error"] == {"code": -32601, "message": "Method not found", "data": "ping"}
    assert initialize["error"] == {
        "code": -32022,
        "message": "connection is serving the 2026-07-28 protocol; the initialize handshake is not accepted",
        "data": {"supported": ["2026-07-28"], "requested": "2025-06-18"},
    }
    assert unknown["isError"] is True
    assert unknown["content"] == [{"type": "text", "text": "MCP error -32602: Tool no_such_tool not found"}]


# --- legacy connections (invariant L) -------------------------------------------------------------------


async def test_a_legacy_connection_answers_enveloped_requests_as_before(tmp_path: Path) -> None:
    recorded = json.loads((ORACLE / "tools.json").read_text(encoding="utf-8"))
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(10):
            await session.initialize()
            discover_id = session.request("server/discover", {"_meta": M})
            discover = await session.next_line()
            list_id = session.request("tools/list", {"_meta": M})
            listed = await session.next_line()
    assert discover == encoded(
        {"jsonrpc": "2.0", "id": discover_id, "error": {"code": -32601, "message": "Method not found"}}
    )
    assert listed == encoded({"result": recorded, "jsonrpc": "2.0", "id": list_id})


async def test_a_bare_first_request_locks_the_legacy_era(tmp_path: Path) -> None:
    gateway = seeded_gateway()
    async with serve_session(tmp_path, gateway) as session:
        with anyio.fail_after(10):
            await session.result(session.request("tools/list"))
            await session.result(session.request("tools/list", {"_meta": M}))
            await session.tool("conversations_list", {"limit": 1})
            gateway.push_event("session.message", USER_WAIT)
            notification = await session.next_message()
    assert notification["method"] == "notifications/claude/channel"


async def test_a_cancelled_call_on_a_2026_connection_is_never_answered(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(10):
            await _modern(session, "server/discover")
            arguments = {"after_cursor": 1_000_000, "timeout_ms": 300_000}
            waiting = session.request("tools/call", {"name": "events_wait", "arguments": arguments, "_meta": M})
            session.notify("notifications/cancelled", {"requestId": waiting, "reason": "user"})
            after = await _modern(session, "tools/list")
            await _quiet_for(session, 0.3)
    assert len(after["tools"]) == 9
