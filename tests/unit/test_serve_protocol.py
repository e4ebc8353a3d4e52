"""The MCP surface of ``openclaw mcp serve`` in process (spec serve-bridge §4, §12.2): initialize per mode,
tools/list bytes, ping, unsupported methods, unparseable input, the tools/call envelope, cancellation."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from tests.unit.serve_fakes import INITIALIZE, ORACLE, encoded, seeded_gateway, serve_session

pytestmark = pytest.mark.asyncio

CAPABILITIES_ON = {
    "experimental": {"claude/channel": {}, "claude/channel/permission": {}},
    "tools": {"listChanged": True},
}
SERVER_INFO = {"name": "openclaw", "version": "2026.9.6"}


@pytest.mark.parametrize("mode", ["on", "auto", "ON", " on ", ""])
async def test_initialize_offers_the_claude_channel_capabilities_unless_mode_off(tmp_path: Path, mode: str) -> None:
    async with serve_session(tmp_path, seeded_gateway(), options={"claude_channel_mode": mode}) as session:
        with anyio.fail_after(5):
            request_id = session.request("initialize", INITIALIZE)
            line = await session.next_line()
    expected = {
        "result": {"protocolVersion": "2025-06-18", "capabilities": CAPABILITIES_ON, "serverInfo": SERVER_INFO},
        "jsonrpc": "2.0",
        "id": request_id,
    }
    assert line == encoded(expected)


async def test_initialize_in_mode_off_offers_only_tools(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway(), options={"claude_channel_mode": "off"}) as session:
        with anyio.fail_after(5):
            result = await session.initialize()
    assert result == {
        "protocolVersion": "2025-06-18",
        "capabilities": {"tools": {"listChanged": True}},
        "serverInfo": SERVER_INFO,
    }


async def test_initialize_matches_the_recording_for_every_mode(tmp_path: Path) -> None:
    recorded = json.loads((ORACLE / "initialize.json").read_text(encoding="utf-8"))
    for mode in ("on", "auto", "off"):
        async with serve_session(tmp_path, seeded_gateway(), options={"claude_channel_mode": mode}) as session:
            with anyio.fail_after(5):
                assert await session.initialize() == recorded[mode]["initialize"]


@pytest.mark.parametrize(
    ("requested", "answered"),
    [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2024-11-05"),
        ("2024-10-07", "2024-10-07"),
        ("1999-01-01", "2025-11-25"),
        ("", "2025-11-25"),
    ],
)
async def test_initialize_echoes_a_supported_protocol_version_else_the_newest(
    tmp_path: Path, requested: str, answered: str
) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(5):
            result = await session.roundtrip("initialize", {**INITIALIZE, "protocolVersion": requested})
    assert result["protocolVersion"] == answered


async def test_tools_list_is_byte_identical_to_the_recording(tmp_path: Path) -> None:
    recorded = json.loads((ORACLE / "tools.json").read_text(encoding="utf-8"))
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(5):
            await session.initialize()
            request_id = session.request("tools/list")
            line = await session.next_line()
    assert line == encoded({"result": recorded, "jsonrpc": "2.0", "id": request_id})


async def test_ping_answers_an_empty_result(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(5):
            request_id = session.request("ping", {})
            assert await session.next_line() == encoded({"result": {}, "jsonrpc": "2.0", "id": request_id})


async def test_recorded_protocol_cases_match_byte_for_byte(tmp_path: Path) -> None:
    cases = json.loads((ORACLE / "protocol.json").read_text(encoding="utf-8"))["cases"]
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(5):
            await session.initialize()
            for case in cases:
                request_id = case["response"]["id"]
                if "method" in case:
                    session.request(case["method"], case["params"], request_id=request_id)
                else:
                    session.call("no_such_tool", case["args"], request_id=request_id)
                assert await session.next_line() == encoded(case["response"]), case["label"]


@pytest.mark.parametrize(
    "method",
    ["resources/list", "resources/templates/list", "prompts/list", "logging/setLevel", "completion/complete", "x"],
)
async def test_every_other_request_is_method_not_found(tmp_path: Path, method: str) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(5):
            request_id = session.request(method, {"level": "debug"})
            line = await session.next_line()
    assert line == encoded(
        {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}
    )


async def test_unparseable_and_non_message_lines_are_ignored(tmp_path: Path) -> None:
    junk = [
        b"not json",
        b"",
        b"{",
        b"[1,2]",
        b'{"jsonrpc":"2.0","id":1}',
        b'{"jsonrpc":"1.0","id":2,"method":"ping"}',
        b'{"id":3,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":null,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":4,"method":"ping","extra":1}',
        b'{"jsonrpc":"2.0","id":5,"method":"ping","params":[]}',
        b'{"jsonrpc":"2.0","id":6,"method":"ping","params":null}',
        b'{"jsonrpc":"2.0","id":7,"method":"ping","params":{"_meta":5}}',
        b'{"jsonrpc":"2.0","id":NaN,"method":"ping"}',
        b'{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}',
        b"\xff\xfe\x00",
        b"[" * 5000 + b"]" * 5000,
    ]
    async with serve_session(tmp_path, seeded_gateway()) as session:
        for line in junk:
            session.write_raw(line + b"\n")
        with anyio.fail_after(5):
            request_id = session.request("ping")
            assert await session.response(request_id) == {"result": {}, "jsonrpc": "2.0", "id": request_id}


async def test_crlf_lines_string_ids_and_integral_float_ids_are_requests(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        session.write_raw(b'{"jsonrpc":"2.0","id":"a","method":"ping"}\r\n')
        session.write_raw(b'{"jsonrpc":"2.0","id":7.0,"method":"ping"}\n')
        with anyio.fail_after(5):
            assert await session.next_line() == b'{"result":{},"jsonrpc":"2.0","id":"a"}'
            assert await session.next_line() == b'{"result":{},"jsonrpc":"2.0","id":7}'


async def test_a_message_split_across_reads_is_reassembled(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        data = b'{"jsonrpc":"2.0","id":9,"method":"ping"}\n'
        for byte in data:
            session.write_raw(bytes([byte]))
        with anyio.fail_after(5):
            assert await session.next_line() == b'{"result":{},"jsonrpc":"2.0","id":9}'


async def test_unknown_tool_is_an_error_result(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(5):
            result = await session.tool("no_such_tool", {})
    assert result == {
        "content": [{"type": "text", "text": "MCP error -32602: Tool no_such_tool not found"}],
        "isError": True,
    }


async def test_missing_arguments_is_a_validation_result(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(5):
            result = await session.tool("events_poll")
    text = (
        "MCP error -32602: Input validation error: Invalid arguments for tool events_poll: "
        "Invalid input: expected object, received undefined"
    )
    assert result == {"content": [{"type": "text", "text": text}], "isError": True}


@pytest.mark.parametrize("arguments", [None, [], [1], "x", 1, True])
async def test_non_object_arguments_are_a_json_rpc_error(tmp_path: Path, arguments: object) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(5):
            request_id = session.call("events_poll", arguments)
            response = await session.response(request_id)
    assert "result" not in response
    assert response["error"]["code"] in (-32602, -32603)


@pytest.mark.parametrize(
    "params",
    [None, {}, {"name": 5}, {"name": None, "arguments": {}}],
)
async def test_tools_call_without_a_string_name_is_a_json_rpc_error(tmp_path: Path, params: object) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(5):
            request_id = session.request("tools/call", params)
            response = await session.response(request_id)
    assert "error" in response


async def test_initialize_with_invalid_params_is_a_json_rpc_error(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(5):
            for params in (None, {}, {"protocolVersion": 1, "capabilities": {}, "clientInfo": {}}):
                request_id = session.request("initialize", params)
                assert "error" in await session.response(request_id)


async def test_task_augmented_requests_are_refused_like_the_sdk(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(5):
            request_id = session.request("tools/call", {"name": "events_poll", "arguments": {}, "task": {}})
            line = await session.next_line()
    error = {"code": -32603, "message": "Server does not support task creation (required for tools/call)"}
    assert line == encoded({"jsonrpc": "2.0", "id": request_id, "error": error})


async def test_unknown_argument_keys_are_dropped(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(5):
            assert await session.tool("events_poll", {"bogus": 1}) == await session.tool("events_poll", {})


async def test_a_cancelled_events_wait_is_never_answered_and_the_server_keeps_answering(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(5):
            await session.initialize()
            waiting = session.call("events_wait", {"after_cursor": 1_000_000, "timeout_ms": 300_000})
            await anyio.sleep(0.05)
            session.notify("notifications/cancelled", {"requestId": waiting, "reason": "user"})
            ping = session.request("ping")
            assert await session.response(ping) == {"result": {}, "jsonrpc": "2.0", "id": ping}
            poll = await session.tool("events_poll", {})
            assert poll["structuredContent"] == {"events": [], "next_cursor": 0}
            await anyio.sleep(0.1)
            assert session.pending_lines() == []


@pytest.mark.parametrize("request_id", [0, "", "w"])
async def test_cancellation_works_for_any_request_id(tmp_path: Path, request_id: object) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(5):
            session.call("events_wait", {"timeout_ms": 300_000}, request_id=request_id)
            await anyio.sleep(0.05)
            session.notify("notifications/cancelled", {"requestId": request_id})
            ping = session.request("ping")
            await session.response(ping)
            await anyio.sleep(0.05)
            assert session.pending_lines() == []


async def test_a_cancellation_for_another_id_leaves_the_request_alone(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(5):
            waiting = session.call("events_wait", {"timeout_ms": 50})
            session.notify("notifications/cancelled", {"requestId": "other"})
            session.notify("notifications/cancelled", {"requestId": str(waiting)})
            result = await session.result(waiting)
    assert result["content"] == [{"type": "text", "text": "timeout"}]


async def test_stdin_end_ends_the_session_with_exit_status_zero(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(5):
            await session.initialize()
        session.close_input()
        with anyio.fail_after(1):
            await session.done.wait()
    assert session.exit_code == 0
    assert session.stderr_lines == []


async def test_stdin_end_before_the_gateway_is_ready_still_exits_zero(tmp_path: Path) -> None:
    gateway = seeded_gateway(up=False, reconnect_delay_s=0)
    gateway.handle("sessions.list", lambda params: {"sessions": []})
    async with serve_session(tmp_path, _NeverReady()) as session:
        session.close_input()
        with anyio.fail_after(1):
            await session.done.wait()
    assert session.exit_code == 0


async def test_a_broken_stdout_is_a_transport_close(tmp_path: Path) -> None:
    async with serve_session(tmp_path, seeded_gateway()) as session:
        with anyio.fail_after(5):
            await session.initialize()
            session.sink.broken = True
            session.request("ping")
            await session.done.wait()
    assert session.exit_code == 0


class _NeverReady:
    """A Gateway whose connection never becomes ready (waits forever)."""

    def connect(self, settings: object, *, on_event: object, log: object) -> object:
        from contextlib import asynccontextmanager

        @asynccontextmanager
        async def opened():  # type: ignore[no-untyped-def]
            yield _PendingConnection()

        return opened()


class _PendingConnection:
    state = "connecting"

    async def wait_ready(self) -> object:
        await anyio.sleep_forever()

    async def request(self, method: str, params: object = None) -> object:
        from openclaw_mcp.application.ports.gateway import GatewayNotConnected

        raise GatewayNotConnected()


async def test_the_wire_encoder_writes_exactly_what_json_stringify_writes() -> None:
    import random

    from openclaw_mcp.entrypoints.serve.jsonrpc import dumps
    from openclaw_mcp.jscompat.jsjson import js_dumps

    rng = random.Random(7)
    scalars = [None, True, False, 0, -0.0, 1.5, 1e21, 1e-7, 2**60, -5, 12000.0, "\u2028", "\ud800x", '"\\\n\x01']

    def value(depth: int = 0) -> object:
        roll = rng.random()
        if depth > 3 or roll < 0.3:
            if rng.random() < 0.5:
                return rng.choice(scalars)
            return "".join(chr(rng.randrange(0, 0x11000)) for _ in range(rng.randrange(0, 6)))
        if roll < 0.6:
            return [value(depth + 1) for _ in range(rng.randrange(0, 4))]
        keys = ["a", "1", "01", "b", "10", "\u2028", "\ud800", '"']
        return {rng.choice(keys): value(depth + 1) for _ in range(rng.randrange(0, 4))}

    for _ in range(5000):
        sample = value()
        assert dumps(sample) == js_dumps(sample, None)
