"""Our MCP client against 2026-07-28 stdio servers (spec protocol-eras §3, acceptance tests §5.1 A1, A2, A4 (stdio),
A5 (stdio), A7–A13): the fallback from a refused ``initialize`` to ``server/discover`` on the same process, the
enveloped requests, ``probe --timings``' protocol version, cancellation, catalog freshness, list changes and
``input_required``. Servers run through the stdio tap, whose log is the wire."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.application.ports.mcp import McpError
from openclaw_mcp.entrypoints.runtime_api import RuntimeHost, SessionMcpRuntime
from tests.fixtures import era_wire as w

E = w.ENVELOPE


def _hand(home: Path, *, wire: str = "wire.log", **env: str) -> dict[str, Any]:
    entry = w.tapped(home, [w.PYTHON, str(w.ERA_HAND)], wire=wire)
    if env:
        entry["env"] = env
    return entry


def _wire(home: Path, name: str = "wire.log") -> list[tuple[str, Any]]:
    """The tap log as ``(direction, parsed message)`` pairs."""
    lines = (home / name).read_text(encoding="utf-8").splitlines()
    return [(text[:2], json.loads(text[3:])) for text in lines]


def _raw(home: Path, name: str = "wire.log") -> list[str]:
    return (home / name).read_text(encoding="utf-8").splitlines()


def _client_methods(wire: list[tuple[str, Any]]) -> list[str]:
    return [message.get("method", "") for side, message in wire if side == "C>"]


# ---------------------------------------------------------------- probe (A1, A2, A5, A7–A9)


def test_a1_probe_falls_back_to_discover_on_the_sdk_modern_server(tmp_path: Path) -> None:
    home = w.make_home(tmp_path)
    result = w.probe(home, {"stdio-modern": w.tapped(home, w.era_server_command("stdio-modern"))})
    assert result.exit == 0, result.stderr
    document = json.loads(result.stdout)
    assert {"stdio-modern__echo", "stdio-modern__prompts_list", "stdio-modern__resources_list"} <= set(
        document["tools"]
    )
    assert document["diagnostics"] == []
    assert "protocolVersion" not in document["servers"]["stdio-modern"]
    raw = _raw(home)
    assert raw[0] == "C> " + w.INITIALIZE_LINE
    assert json.loads(raw[1][3:])["error"]["code"] == -32022
    assert raw[2] == "C> " + w.request(1, "server/discover", w.enveloped())
    assert raw[4] == "C> " + w.request(2, "tools/list", w.enveloped())
    assert "notifications/initialized" not in _client_methods(_wire(home))


def test_a2_probe_of_the_hand_written_server(tmp_path: Path) -> None:
    home = w.make_home(tmp_path)
    result = w.probe(home, {"stdio-hand": _hand(home)})
    assert result.exit == 0, result.stderr
    assert json.loads(result.stdout)["tools"] == ["stdio-hand__echo"]
    wire = _wire(home)
    assert [message.get("method") or message.get("error", {}).get("code") for _, message in wire[:3]] == [
        "initialize",
        -32601,
        "server/discover",
    ]
    assert "result" in wire[3][1] and wire[3][1]["result"]["capabilities"] == {"tools": {}}
    assert wire[4][1] == {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": E}}


def test_a5_dual_era_stdio_server_stays_legacy(tmp_path: Path) -> None:
    home = w.make_home(tmp_path)
    result = w.probe(home, {"stdio-dual": w.tapped(home, w.era_server_command("stdio-dual"))})
    assert result.exit == 0, result.stderr
    assert "stdio-dual__echo" in json.loads(result.stdout)["tools"]
    log = (home / "wire.log").read_text(encoding="utf-8")
    assert log.count("server/discover") == 0 and "io.modelcontextprotocol/" not in log.split("\n", 2)[-1]
    assert _client_methods(_wire(home))[:3] == ["initialize", "notifications/initialized", "tools/list"]
    # the whole wire against the 549a118 golden: tests/unit/test_era_legacy_goldens.py


@pytest.mark.parametrize(
    ("error", "message"),
    [
        ({"code": -32603, "message": "boom"}, "MCP error -32603: boom"),
        (
            {"code": -32022, "message": "x", "data": {"supported": ["2099-01-01"], "requested": "2025-11-25"}},
            "MCP error -32022: x",
        ),
    ],
)
def test_a7_a_refusal_that_names_no_2026_server_does_not_fall_back(
    tmp_path: Path, error: dict[str, Any], message: str
) -> None:
    home = w.make_home(tmp_path)
    result = w.probe(home, {"stdio-hand": _hand(home, ERA_INIT_ERROR=json.dumps(error))})
    assert result.exit == 1
    diagnostics = json.loads(result.stdout)["diagnostics"]
    assert [entry["message"] for entry in diagnostics] == [message]
    assert _client_methods(_wire(home)) == ["initialize"]


def test_a8_discover_runs_within_the_connect_deadline(tmp_path: Path) -> None:
    home = w.make_home(tmp_path)
    server = {**_hand(home, ERA_DELAY_DISCOVER_MS="2000"), "connectionTimeoutMs": 700}
    started = time.monotonic()
    result = w.probe(home, {"stdio-hand": server})
    elapsed = time.monotonic() - started
    assert result.exit == 1
    [diagnostic] = json.loads(result.stdout)["diagnostics"]
    assert diagnostic["message"].startswith(
        'MCP server "stdio-hand" timed out: did not complete initialize within 0.7s'
    ), diagnostic
    assert _client_methods(_wire(home)) == ["initialize", "server/discover"]
    assert elapsed < 6, elapsed  # spec: < 3 s of probe time; the interpreter start is added here


def test_a9_probe_timings_show_the_protocol_version(tmp_path: Path) -> None:
    home = w.make_home(tmp_path)
    servers = {
        "stdio-modern": w.tapped(home, w.era_server_command("stdio-modern"), wire="modern.log"),
        "stdio-dual": w.tapped(home, w.era_server_command("stdio-dual"), wire="dual.log"),
        "broken": _hand(home, wire="broken.log", ERA_INIT_ERROR='{"code":-32603,"message":"boom"}'),
    }
    result = w.probe(home, servers, "--json", "--timings")
    document = json.loads(result.stdout)
    assert document["servers"]["stdio-modern"]["protocolVersion"] == "2026-07-28"
    assert document["servers"]["stdio-dual"]["protocolVersion"] == "2025-11-25"
    assert [entry["protocolVersion"] for entry in document["diagnostics"]] == [None]
    text = w.run_cli(home, "mcp", "probe", "--timings")
    lines = [line for line in text.stdout.splitlines() if line.startswith(("- ", "! "))]
    assert any(line.startswith("- stdio-modern:") and re.search(r" ms, 2026-07-28\)$", line) for line in lines)
    assert any(line.startswith("- stdio-dual:") and re.search(r" ms, 2025-11-25\)$", line) for line in lines)
    assert any(line.startswith("! broken:") and line.endswith(" ms)") for line in lines), lines
    plain = w.run_cli(home, "mcp", "probe", "--json")
    assert "protocolVersion" not in plain.stdout


# ---------------------------------------------------------------- the runtime (A4, A10–A13)


async def _runtime_tools(runtime: SessionMcpRuntime) -> dict[str, Any]:
    return {tool.name: tool for tool in await runtime.tools()}


@pytest.mark.asyncio
async def test_a4_a_tool_call_is_enveloped(tmp_path: Path) -> None:
    home = w.make_home(tmp_path)
    with anyio.fail_after(60):
        async with SessionMcpRuntime({"stdio-hand": _hand(home)}, session_id="era-1") as runtime:
            tools = await _runtime_tools(runtime)
            result = await tools["stdio-hand__echo"].execute({"text": "hi"})
    assert result.content[0]["text"] == "echo:hi"
    calls = [message for side, message in _wire(home) if side == "C>" and message.get("method") == "tools/call"]
    assert [call["params"] for call in calls] == [{"name": "echo", "arguments": {"text": "hi"}, "_meta": E}]


@pytest.mark.asyncio
async def test_a10_a_timed_out_call_is_cancelled_without_envelope(tmp_path: Path) -> None:
    home = w.make_home(tmp_path)
    server = {**_hand(home, ERA_SLOW_CALL_MS="5000"), "requestTimeoutMs": 500}
    with anyio.fail_after(60):
        async with SessionMcpRuntime({"stdio-hand": server}, session_id="era-1") as runtime:
            tools = await _runtime_tools(runtime)
            with pytest.raises(McpError, match=r"^MCP error -32001: Request timed out$"):
                await tools["stdio-hand__echo"].execute({"text": "hi"})
    sent = [message for side, message in _wire(home) if side == "C>"]
    [call] = [message for message in sent if message.get("method") == "tools/call"]
    [cancel] = [message for message in sent if message.get("method") == "notifications/cancelled"]
    assert cancel == {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": call["id"], "reason": "McpError: MCP error -32001: Request timed out"},
    }


@pytest.mark.asyncio
@pytest.mark.parametrize(("ttl", "lists"), [("0", 2), ("60000", 1)])
async def test_a11_a_2026_catalog_is_fresh_for_its_ttl_at_least_5_s(tmp_path: Path, ttl: str, lists: int) -> None:
    home = w.make_home(tmp_path)
    with anyio.fail_after(60):
        async with SessionMcpRuntime({"stdio-hand": _hand(home, ERA_TTL_MS=ttl)}, session_id="era-1") as runtime:
            await runtime.tools()
            await anyio.sleep(1)
            await runtime.tools()  # fresh: no listing
            await anyio.sleep(4.2)
            await runtime.tools()
            await anyio.sleep(0.5)
    assert _client_methods(_wire(home)).count("tools/list") == lists


@pytest.mark.asyncio
async def test_a12_tool_list_changes_arrive_through_subscriptions_listen(tmp_path: Path) -> None:
    home = w.make_home(tmp_path)
    debug: list[str] = []
    host = RuntimeHost(debug=debug.append)
    with anyio.fail_after(60):
        async with SessionMcpRuntime(
            {"stdio-hand": _hand(home, ERA_LIST_CHANGED="300")}, session_id="era-1", host=host
        ) as runtime:
            await runtime.tools()
            await anyio.sleep(1)
            await runtime.tools()
            await anyio.sleep(0.3)
    wire = _wire(home)
    events = [
        message.get("method") if side == "C>" or "method" in message else "result"
        for side, message in wire
        if message.get("method") != "notifications/cancelled"
    ]
    start = events.index("subscriptions/listen")
    assert events[:start].count("tools/list") == 1
    assert events[start:].count("tools/list") == 1
    after = events[start:]
    assert after.index("notifications/subscriptions/acknowledged") < after.index("notifications/tools/list_changed")
    assert after.index("notifications/tools/list_changed") < after.index("tools/list")
    [listen] = [message for side, message in wire if message.get("method") == "subscriptions/listen"]
    assert listen["params"] == {"notifications": {"toolsListChanged": True}, "_meta": E}
    assert sum("subscriptions/listen ended" in line for line in debug) <= 1


@pytest.mark.asyncio
async def test_a13_input_required_with_request_state_is_retried(tmp_path: Path) -> None:
    home = w.make_home(tmp_path)
    with anyio.fail_after(60):
        async with SessionMcpRuntime(
            {"stdio-hand": _hand(home, ERA_INPUT_REQUIRED="state")}, session_id="era-1"
        ) as runtime:
            tools = await _runtime_tools(runtime)
            result = await tools["stdio-hand__echo"].execute({"text": "hi"})
    assert result.content[0]["text"] == "echo:hi"
    calls = [message for side, message in _wire(home) if side == "C>" and message.get("method") == "tools/call"]
    assert len(calls) == 2 and calls[0]["id"] != calls[1]["id"]
    assert calls[1]["params"]["requestState"] == "s1"
    assert calls[1]["params"]["_meta"] == E and "inputResponses" not in calls[1]["params"]


@pytest.mark.asyncio
async def test_a13_an_elicitation_without_handler_fails_the_call(tmp_path: Path) -> None:
    home = w.make_home(tmp_path)
    with anyio.fail_after(60):
        async with SessionMcpRuntime(
            {"stdio-hand": _hand(home, ERA_INPUT_REQUIRED="elicit")}, session_id="era-1"
        ) as runtime:
            tools = await _runtime_tools(runtime)
            with pytest.raises(McpError, match=r"^MCP error -32600: Elicitation not supported$"):
                await tools["stdio-hand__echo"].execute({"text": "hi"})
    assert _client_methods(_wire(home)).count("tools/call") == 1


# ---------------------------------------------------------------- units: §3.1 step 5, §3.6


def test_discover_failures_fail_the_connect_with_their_own_text() -> None:
    from openclaw_mcp.adapters.mcp_sdk.modern import discover_result
    from openclaw_mcp.application.ports.mcp import McpConnectError

    with pytest.raises(McpConnectError, match=r"^MCP server/discover returned an invalid result$"):
        discover_result({"resultType": "complete"})
    legacy_only = {
        "resultType": "complete",
        "supportedVersions": ["2025-11-25", "2025-06-18"],
        "capabilities": {},
        "ttlMs": 0,
        "cacheScope": "private",
    }
    with pytest.raises(McpConnectError, match=r"^Server's protocol version is not supported: 2025-11-25, 2025-06-18$"):
        discover_result(legacy_only)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("method", "raw", "text"),
    [
        ("tools/call", {"resultType": "task"}, "MCP tools/call returned an unsupported resultType: task"),
        (
            "tools/list",
            {"resultType": "input_required"},
            "MCP tools/list returned an unsupported resultType: input_required",
        ),
        ("tools/call", {"resultType": 3}, "MCP tools/call returned an unsupported resultType: 3"),
    ],
)
async def test_an_unknown_result_type_fails_the_request(method: str, raw: dict[str, Any], text: str) -> None:
    from openclaw_mcp.adapters.mcp_sdk.modern import resolve_result

    async def send(extra: dict[str, Any] | None) -> dict[str, Any]:
        raise AssertionError("no retry")

    with pytest.raises(McpError) as caught:
        await resolve_result(None, method, raw, send, lambda: 1)  # type: ignore[arg-type]
    assert str(caught.value) == text
    assert await resolve_result(None, "tools/list", {"tools": []}, send, lambda: 1) == {"tools": []}  # type: ignore[arg-type]
