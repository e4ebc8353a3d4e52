"""``openclaw-tools`` and ``openclaw-plugin-tools`` in both protocol eras, as real processes (spec
protocol-eras.md §4, acceptance A15–A18): 2026 answers compared as parsed JSON (D-PE15), legacy answers byte for
byte against the goldens recorded before the change (invariant L), and the mcp 2.3 SDK client in every mode."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client import Client
from mcp.client.stdio import StdioServerParameters

from tests.fixtures import era_wire as ew

TIMEOUT_S = 90.0
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
SERVERS: dict[str, tuple[str, dict[str, str]]] = {
    "openclaw-tools": (ew.OPENCLAW_TOOLS_CODE, dict(ew.AGENT_SESSION_ENV)),
    "plugin-tools": (ew.PLUGIN_TOOLS_CODE, {}),
}
SERVER_INFO = {
    "openclaw-tools": {"name": "openclaw-tools", "version": "2026.9.6"},
    "plugin-tools": {"name": "openclaw-plugin-tools", "version": "2026.9.6"},
}
M = {**ew.ENVELOPE, "io.modelcontextprotocol/clientInfo": {"name": "pytest", "version": "1"}}
"""``M`` of §5.2: the envelope with any client info."""


def _command(server: str, home: Path) -> tuple[list[str], dict[str, str]]:
    code, extra = SERVERS[server]
    return [sys.executable, "-c", code], ew.server_env(ew.make_home(home), extra=extra)


async def _exchange(server: str, home: Path, lines: Sequence[str], answers: int) -> list[bytes]:
    """Write every line at once (pipelined), read stdout until ``answers`` lines came, then close stdin; the exact
    stdout lines (without their newline), the rest of stdout included."""
    command, env = _command(server, home)
    out = bytearray()
    with anyio.fail_after(TIMEOUT_S):
        async with await anyio.open_process(command, env=env, cwd=home, stderr=None) as process:
            assert process.stdin is not None and process.stdout is not None
            await process.stdin.send("".join(line + "\n" for line in lines).encode())
            while out.count(b"\n") < answers:
                out += await process.stdout.receive()
            await process.stdin.aclose()
            async for chunk in process.stdout:
                out += chunk
            assert await process.wait() == 0
    return bytes(out).splitlines()


def _by_id(lines: Sequence[bytes]) -> dict[Any, dict[str, Any]]:
    answers: dict[Any, dict[str, Any]] = {}
    for raw in lines:
        message = json.loads(raw)
        assert message["id"] not in answers, raw
        answers[message["id"]] = message
    return answers


async def _legacy_tools(server: str, home: Path) -> list[Any]:
    (raw,) = await _exchange(server, home, [ew.request(1, "tools/list")], 1)
    tools = json.loads(raw)["result"]["tools"]
    assert isinstance(tools, list)
    return tools


# --- A15: the 2026 exchange ----------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("server", sorted(SERVERS))
async def test_a_2026_connection_discovers_lists_and_calls(tmp_path: Path, server: str) -> None:
    legacy_tools = await _legacy_tools(server, tmp_path / "legacy")
    lines = [
        ew.request(1, "server/discover", {"_meta": M}),
        ew.request(2, "tools/list", {"_meta": M}),
        ew.request(3, "tools/call", {"name": "no_such_tool", "arguments": {}, "_meta": M}),
    ]
    answers = _by_id(await _exchange(server, tmp_path / "modern", lines, 3))
    meta = {SERVER_INFO_KEY: SERVER_INFO[server]}
    assert answers[1] == {
        "result": {
            "resultType": "complete",
            "supportedVersions": ["2026-07-28"],
            "capabilities": {"tools": {}},
            "ttlMs": 0,
            "cacheScope": "private",
            "_meta": meta,
        },
        "jsonrpc": "2.0",
        "id": 1,
    }
    assert answers[2]["result"] == {
        "resultType": "complete",
        "tools": legacy_tools,
        "ttlMs": 0,
        "cacheScope": "private",
        "_meta": meta,
    }
    assert answers[3]["result"] == {
        "resultType": "complete",
        "content": [{"type": "text", "text": "Unknown tool: no_such_tool"}],
        "isError": True,
        "_meta": meta,
    }
    if server == "openclaw-tools":
        assert "automations" in {tool["name"] for tool in legacy_tools}


# --- A16: the ladder's errors --------------------------------------------------------------------------


def _error(code: int, message: str, *data: Any) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data:
        (error["data"],) = data
    return error


@pytest.mark.asyncio
@pytest.mark.parametrize("server", sorted(SERVERS))
async def test_a_2026_connection_answers_the_sdk_ladder_errors(tmp_path: Path, server: str) -> None:
    initialize = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}
    lines = [
        ew.request(1, "tools/list", {"_meta": {**M, "io.modelcontextprotocol/protocolVersion": "1900-01-01"}}),
        ew.request(2, "tools/list"),
        ew.request(3, "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
        ew.request(4, "ping", {"_meta": M}),
        ew.request(5, "logging/setLevel", {"level": "info", "_meta": M}),
        ew.request(6, "subscriptions/listen", {"notifications": {"toolsListChanged": True}, "_meta": M}),
        ew.request(7, "initialize", initialize),
        ew.request(8, "tools/list", {"_meta": []}),
        ew.request(9, "tools/call", {"name": 5, "_meta": M}),
        ew.request(10, "tools/list", {"task": {"ttl": 5}, "_meta": M}),
    ]
    # all written at once: the era slot is set by id 0 before its answer, every later line sees 2026
    answers = _by_id(await _exchange(server, tmp_path, [ew.request(0, "tools/list", {"_meta": M}), *lines], 11))
    assert answers[0]["result"]["resultType"] == "complete"
    envelope = (
        "params._meta must be an object carrying the required 'io.modelcontextprotocol/protocolVersion' and "
        "'io.modelcontextprotocol/clientCapabilities' envelope keys"
    )
    supported = ["2026-07-28"]
    expected = {
        1: _error(-32022, "Unsupported protocol version", {"supported": supported, "requested": "1900-01-01"}),
        2: _error(-32602, envelope),
        3: _error(
            -32602, "params._meta is missing the required envelope key(s): io.modelcontextprotocol/clientCapabilities"
        ),
        4: _error(-32601, "Method not found", "ping"),
        5: _error(-32601, "Method not found", "logging/setLevel"),
        6: _error(-32601, "Method not found", "subscriptions/listen"),
        7: _error(
            -32022,
            "connection is serving the 2026-07-28 protocol; the initialize handshake is not accepted",
            {"supported": supported, "requested": "2025-11-25"},
        ),
        8: _error(-32602, envelope),
        9: _error(-32602, "Invalid params: name must be a string"),
    }
    for request_id, error in expected.items():
        assert answers[request_id] == {"jsonrpc": "2.0", "id": request_id, "error": error}, request_id
    assert answers[10]["result"]["resultType"] == "complete"  # no legacy task refusal (§4.2 rung 4)


@pytest.mark.asyncio
async def test_notifications_before_the_first_request_decide_nothing(tmp_path: Path) -> None:
    lines = [
        ew.line({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        "not json",
        ew.request(1, "server/discover", {"_meta": M}),
    ]
    (answer,) = await _exchange("plugin-tools", tmp_path, lines, 1)
    assert json.loads(answer)["result"]["supportedVersions"] == ["2026-07-28"]


# --- A17: legacy connections, byte for byte --------------------------------------------------------------


@pytest.mark.parametrize("sequence", ["handshake", "bare-first"])
@pytest.mark.parametrize("server", sorted(SERVERS))
def test_a_legacy_connection_answers_enveloped_requests_as_before(tmp_path: Path, server: str, sequence: str) -> None:
    lines = ew.legacy_sequences()[sequence]
    golden = ew.read_golden(f"legacy-{server}-{sequence}.wire")  # recorded before the change (§5.0)
    home = ew.make_home(tmp_path / "now")
    code, extra = SERVERS[server]
    text = ew.transcript([ew.PYTHON, "-c", code], lines, ew.server_env(home, extra=extra), cwd=home)
    assert ew.normalise(text, ew.placeholders_for(home)) == golden
    if sequence == "handshake":  # OBS-2: discover is -32601, the enveloped tools/list legacy-shaped
        assert 'S> {"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}\n' in golden
    assert "resultType" not in golden


# --- A18: the mcp 2.3 client in every mode --------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "version"), [("2026-07-28", "2026-07-28"), ("auto", "2026-07-28"), ("legacy", "2025-11-25")]
)
@pytest.mark.asyncio
@pytest.mark.parametrize("server", sorted(SERVERS))
async def test_the_sdk_client_lists_and_calls_in_every_mode(
    tmp_path: Path, server: str, mode: Any, version: str
) -> None:
    command, env = _command(server, tmp_path)
    params = StdioServerParameters(command=command[0], args=command[1:], env=env, cwd=str(tmp_path))
    with anyio.fail_after(TIMEOUT_S):
        async with Client(params, mode=mode) as client:
            assert client.session.protocol_version == version
            listed = await client.list_tools()
            called = await client.call_tool("no_such_tool", {})
    names = {tool.name for tool in listed.tools}
    if server == "openclaw-tools":
        assert "automations" in names
    else:
        assert names == set()
    assert called.is_error is True
    assert [block.model_dump(exclude_none=True) for block in called.content] == [
        {"type": "text", "text": "Unknown tool: no_such_tool"}
    ]
