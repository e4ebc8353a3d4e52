"""Hostile input against ONE real ``openclaw-tools`` process (spec openclaw-tools.md §1.3, §5, §6, §7, §8).

The server serves ``cron,openclaw`` for ``agent:main:main``; its config points the Gateway at a closed loopback
port with token auth (``tok-secret-123``). Hypothesis sends random ``tools/call`` requests: tool names (the served
ones, the ``cron`` alias, wrong case, unknown, random text) with arguments that are either an object carrying a real
action name and random extra keys drawn from both tools' real argument names (random JSON values: deep nesting,
huge integers, floats, lone surrogates, lists, nulls, booleans) or any other JSON; now and then a garbage line
goes first. After every request the server must answer it (a result or a JSON-RPC error) in time; every result is
one text block with an optional ``isError: true``; every stdout line is a strict JSON-RPC 2.0 message; the token
never reaches stdout. At the end the server still answers ``ping``, exits 0 on stdin EOF and stderr has no
traceback (nor the token).

Issue 32: integers of 5,000 digits and nesting 1,000 to 100,000 deep in params are answered as the reference
answers them (an id that is such a number, or an array, is ignored as the reference ignores it); a 200 KB answer
to a reader that pauses is whole on stdout after SIGTERM or stdin EOF (a process of its own).
"""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.docker.gateway_harness import isolated_env
from tests.fixtures.openclaw_tools_texts import ACTIONS, AGENT_ROLES, TOOLS
from tests.fixtures.stdio_lines import (
    LineServer,
    answers_to,
    huge_and_deep_cases,
    raw_request,
    spawn_line_server,
    stop_with_a_paused_reader,
)

COMMAND = [sys.executable, "-m", "openclaw_mcp.entrypoints.openclaw_tools"]
READ_TIMEOUT_S = 30.0
SECRET = "tok-secret-123"
NAMES = ["automations", "cron", "openclaw", "OPENCLAW", "nope"]
AUTOMATION_ACTIONS = ["status", "list", "get", "add", "update", "remove", "run", "runs", "next_check", "wake"]
INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "hostile", "version": "1"}}


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


PORT = _closed_port()


def _strict_json(line: bytes) -> Any:
    """Parse one stdout line as strict JSON: UTF-8, no ``NaN``/``Infinity``."""

    def reject(constant: str) -> Any:
        raise ValueError(f"non-JSON constant {constant} in {line[:200]!r}")

    return json.loads(line.decode("utf-8"), parse_constant=reject)


def _assert_jsonrpc(message: Any, line: bytes) -> None:
    """A JSON-RPC 2.0 response: the server sends no requests and no notifications (§2)."""
    assert isinstance(message, dict), line[:300]
    assert message.get("jsonrpc") == "2.0", line[:300]
    assert "id" in message and "method" not in message, line[:300]
    assert ("result" in message) != ("error" in message), line[:300]
    if "error" in message:
        error = message["error"]
        assert isinstance(error, dict), line[:300]
        assert isinstance(error.get("code"), int) and not isinstance(error["code"], bool), line[:300]
        assert isinstance(error.get("message"), str), line[:300]


def _checked_line(line: bytes) -> dict[str, Any]:
    """One stdout line: a strict JSON-RPC 2.0 response that does not carry the token."""
    assert SECRET.encode() not in line, line[:300]
    message = _strict_json(line)
    _assert_jsonrpc(message, line)
    assert SECRET not in json.dumps(message, ensure_ascii=False), line[:300]  # also not behind JSON escapes
    assert isinstance(message, dict)
    return message


def _assert_garbage_answer(message: dict[str, Any]) -> None:
    """The answer to a garbage line (its ids are never our positive integers)."""
    assert not (isinstance(message.get("id"), int) and message["id"] > 0), message
    if "result" in message:
        _assert_tool_result(message["result"])


def _assert_tool_result(result: Any) -> None:
    assert isinstance(result, dict), result
    content = result.get("content")
    assert isinstance(content, list) and len(content) == 1, result
    block = content[0]
    assert isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str), result
    assert set(block) == {"type", "text"}, result
    if "isError" in result:
        assert result["isError"] is True, result


@contextmanager
def _started(state: Path) -> Iterator[LineServer]:
    """An initialized ``openclaw-tools`` process with its config and stderr under ``state``."""
    state.mkdir()
    config = {"gateway": {"port": PORT, "auth": {"mode": "token", "token": SECRET}}}
    (state / "openclaw.json").write_text(json.dumps(config))
    stderr = state / "stderr.txt"
    extra = {
        "OPENCLAW_TOOLS_MCP_TOOLS": "cron,openclaw",
        "OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY": "agent:main:main",
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    with spawn_line_server(COMMAND, isolated_env(state, extra=extra), stderr) as process:
        started = LineServer(
            process, stderr, check=_checked_line, on_other=_assert_garbage_answer, read_timeout_s=READ_TIMEOUT_S
        )
        initialize = started.request("initialize", INITIALIZE)
        assert initialize["result"]["serverInfo"]["name"] == "openclaw-tools", initialize
        started.send_line(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        yield started


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LineServer]:
    with _started(tmp_path_factory.mktemp("hostile-openclaw-tools") / "state") as started:
        tools = started.request("tools/list", {})["result"]["tools"]
        assert [tool["name"] for tool in tools] == ["automations", "openclaw"]
        yield started


def _weighted(*choices: tuple[int, st.SearchStrategy[Any]]) -> st.SearchStrategy[Any]:
    """One of ``choices`` with these weights (``one_of`` weighs its branches alike)."""
    table = [strategy for weight, strategy in choices for _ in range(weight)]
    return st.integers(min_value=0, max_value=len(table) - 1).flatmap(table.__getitem__)


_ODD_TEXT = ["\ud800", "\udfff", "a\udc00b", "\x00", "\u2028", "\ufeff", "  ", "", "rm -rf /", "__proto__", "a" * 5000]
_TEXT = st.text(
    alphabet=st.one_of(st.characters(), st.sampled_from(["\ud800", "\udfff", "\x00", "\u2028"])), max_size=16
)
_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.sampled_from([0, -1, 1, 200, 201, 10**300, -(10**300), 2**63, 2**64 + 1]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([1e308, -1e308, 5e-324, -0.0, 0.5, 1.0, 3.0]),
    _TEXT,
    st.sampled_from(_ODD_TEXT),
    st.integers(min_value=-5, max_value=500).map(str),
)
_JSON = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=25,
)
_DEEP = st.integers(min_value=20, max_value=200).map(lambda depth: json.loads("[" * depth + "]" * depth))

_GATEWAY_URLS = [
    f"ws://127.0.0.1:{PORT}",
    f"ws://localhost:{PORT}",
    f"wss://127.0.0.1:{PORT}",
    f"ws://127.0.0.1:{PORT}/path",
    f"ws://127.0.0.1:{PORT}?q=1",
    f"ws://u:p@127.0.0.1:{PORT}",
    f"http://127.0.0.1:{PORT}",
    "ws://127.0.0.1:1",
    "not a url",
    "ws://",
    "ws://[::1",
]
_CONFIG_PATHS = [
    "gateway",
    "gateway.auth",
    "gateway.auth.token",
    "gateway.port",
    "",
    ".",
    "gateway..auth",
    "*",
    "a.b.c",
]
_JOB = st.fixed_dictionaries(
    {},
    optional={
        "schedule": st.fixed_dictionaries(
            {"kind": st.sampled_from(["at", "every", "cron", "stream", "on-exit", "nope"]) | _JSON},
            optional={"everyMs": _JSON, "expr": _JSON, "at": _JSON, "every": _JSON, "cron": _JSON, "command": _JSON},
        )
        | _JSON,
        "payload": st.fixed_dictionaries(
            {"kind": st.sampled_from(["systemEvent", "agentTurn", "script", "command"]) | _JSON},
            optional={"text": _JSON, "message": _JSON, "script": _JSON},
        )
        | _JSON,
        "delivery": st.fixed_dictionaries(
            {"mode": st.sampled_from(["none", "announce", "webhook"]) | _JSON},
            optional={
                "channel": _JSON,
                "to": _JSON,
                "failureDestination": _JSON,
                "completionDestination": _JSON,
            },
        )
        | _JSON,
        "pacing": st.fixed_dictionaries({}, optional={"min": _JSON, "max": _JSON}) | _JSON,
        "declarationKey": _JSON,
        "displayName": _JSON,
        "sessionTarget": st.sampled_from(["isolated", "main"]) | _JSON,
        "sessionKey": _JSON,
        "name": _JSON,
        "enabled": _JSON,
        "agentId": _JSON,
    },
)

_SPECIAL_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "timeoutMs": st.integers(min_value=1, max_value=300) | st.integers(min_value=1, max_value=300).map(str),
    "timeout_ms": st.integers(min_value=1, max_value=300),
    "gatewayUrl": _weighted((4, st.sampled_from(_GATEWAY_URLS)), (1, _TEXT), (1, _JSON)),
    "gateway_url": st.sampled_from(_GATEWAY_URLS),
    "job": _JOB | _JSON,
    "path": _weighted((4, st.sampled_from(_CONFIG_PATHS)), (1, _TEXT), (1, _JSON)),
    "role": st.sampled_from(AGENT_ROLES) | _JSON,
    "target": st.sampled_from(["guided", "classic", "channels", "search", "gateway", "x"]) | _JSON,
    "mode": st.sampled_from(["now", "next-heartbeat"]) | _JSON,
    "runMode": st.sampled_from(["due", "force"]) | _JSON,
    "sha256": st.sampled_from(["0" * 64, "A" * 64, "0" * 63]) | _JSON,
    "approved": st.booleans() | _JSON,
    "channel": st.sampled_from(["telegram", "Telegram", "discord"]) | _JSON,
    "spec": st.sampled_from(["clawhub:demo", "file:/tmp/x.tgz", "@scope/pkg@1.0.0", "../x"]) | _JSON,
    "contextMessages": st.integers(min_value=-2, max_value=12) | _JSON,
    "limit": st.integers(min_value=-2, max_value=202) | _JSON,
    "offset": st.integers(min_value=-2, max_value=5) | _JSON,
}
_ARGUMENT_NAMES = sorted(
    (
        set(TOOLS["A"]["inputSchema"]["properties"])
        | set(TOOLS["C"]["inputSchema"]["properties"])
        | {"job_id", "timeout_ms", "gateway_url", "context_messages", "run_mode", "message", "every", "schedule"}
        | {"payload", "delivery", "declarationKey", "displayName", "source"}
    )
    - {"action"}
)
_EXTRA_ARGUMENTS = st.lists(st.sampled_from(_ARGUMENT_NAMES) | _TEXT, unique=True, max_size=6).flatmap(
    lambda keys: st.fixed_dictionaries({key: _SPECIAL_VALUES.get(key, _JSON | _DEEP) for key in keys})
)


_ACTION_KEYS: dict[str, tuple[str, ...]] = {
    # the keys an action reads (§6.1, §7.1): each is present with some probability, besides the random extras
    "status": ("timeoutMs", "gatewayUrl", "gatewayToken"),
    "list": ("limit", "offset", "includeDisabled", "gatewayUrl"),
    "get": ("jobId", "id"),
    "remove": ("jobId", "id", "job_id"),
    "runs": ("jobId", "id", "limit"),
    "run": ("jobId", "runMode"),
    "add": ("job", "contextMessages", "timeoutMs"),
    "update": ("jobId", "job"),
    "wake": ("text", "mode"),
    "channel_info": ("channel",),
    "connect_channel": ("channel",),
    "config_get": ("path",),
    "config_schema": ("path",),
    "plugin_search": ("query",),
    "open_agent": ("agentId", "workspace"),
    "open_setup": ("target", "channel"),
    "configure_model_provider": ("workspace",),
    "setup": ("workspace", "model", "approved"),
    "set_default_model": ("model", "agentId", "approved"),
    "config_set": ("path", "value", "approved"),
    "config_set_ref": ("path", "envVar", "approved"),
    "create_agent": ("agentId", "name", "purpose", "role", "workspace", "model", "approved"),
    "create_team": ("coordinatorId", "prefix", "workspaceRoot", "approved"),
    "plugin_install": ("spec", "approved"),
    "plugin_activate_artifact": ("path", "sha256", "approved"),
    "plugin_uninstall": ("pluginId", "approved"),
}


def _with_keys(action: str) -> st.SearchStrategy[dict[str, Any]]:
    keys = _ACTION_KEYS.get(action, ())
    return st.fixed_dictionaries(
        {"action": st.just(action)}, optional={key: _SPECIAL_VALUES.get(key, _TEXT | _JSON) for key in keys}
    )


def _arguments(actions: st.SearchStrategy[str]) -> st.SearchStrategy[Any]:
    """Mostly an object with an ``action`` from ``actions``, some of the keys it reads and random extra keys (else
    a missing or non-string ``action``); now and then no ``arguments`` at all, or any JSON value."""
    with_action = st.builds(lambda extra, core: {**extra, **core}, _EXTRA_ARGUMENTS, actions.flatmap(_with_keys))
    odd_action = st.builds(lambda action, extra: {**extra, "action": action}, _LEAVES, _EXTRA_ARGUMENTS)
    objects = _weighted((18, with_action), (1, _EXTRA_ARGUMENTS), (1, odd_action))
    return _weighted((16, objects), (1, st.none()), (2, _JSON), (1, _DEEP))


# the reads that see the config (and so the token) or the Gateway target: drawn more often
_SECRET_READS = st.sampled_from(["config_get", "config_get", "config_get", "doctor", "status", "gateway_status"])
_ALL_ACTIONS = st.sampled_from([*AUTOMATION_ACTIONS, *ACTIONS])
_CALLS = _weighted(
    (7, st.tuples(st.sampled_from(["automations", "cron"]), _arguments(st.sampled_from(AUTOMATION_ACTIONS)))),
    (9, st.tuples(st.just("openclaw"), _arguments(_weighted((3, st.sampled_from(ACTIONS)), (1, _SECRET_READS))))),
    (3, st.tuples(st.sampled_from(NAMES), _arguments(_ALL_ACTIONS))),
    (1, st.tuples(_TEXT, _arguments(_ALL_ACTIONS))),
)
_GARBAGE = st.sampled_from(
    [
        b"",
        b"{",
        b"[]",
        b"null",
        b'{"jsonrpc":"2.0"}',
        b"\xff\xfe",
        b'{"id":{},"method":1}',
        b'{"jsonrpc":"2.0","id":"g","method":"tools/call","params":{"name":"automations","arguments":'
        b'{"action":"list","limit":NaN,"offset":Infinity}}}',
        b'{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"automations","arguments":'
        b'{"action":"list","limit":1' + b"0" * 5000 + b"}}}",
        b'{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"\\ud800","arguments":{"action":"\\udfff"}}}',
        b'{"jsonrpc":"2.0","id":-7,"method":"tools/call","params":[1,2]}',
        b"[" * 5000 + b"]" * 5000,
        b'{"jsonrpc":"2.0","id":"d","method":"tools/call","params":{"name":"openclaw","arguments":{"action":"status"},'
        b'"name":"automations"}}',
    ]
)


@settings(max_examples=600, deadline=None, derandomize=True, database=None)
@given(
    call=_CALLS,
    garbage=_weighted((9, st.none()), (1, _GARBAGE)),
)
def test_random_calls_are_always_answered_with_frames_and_never_leak_the_token(
    server: LineServer, call: tuple[str, Any], garbage: bytes | None
) -> None:
    name, arguments = call
    if garbage is not None:
        server.send_line(garbage)
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    response = server.request("tools/call", params)
    if "result" in response:
        _assert_tool_result(response["result"])
    else:
        assert response["error"]["code"] < 0, response
    assert server.process.poll() is None


_ACTION_REQUIRED = {"content": [{"type": "text", "text": "Tool error: action required"}], "isError": True}


def _call_with(value: str) -> str:
    return raw_request('"q"', "tools/call", '{"name":"openclaw","arguments":{"zz":' + value + "}}")


_HUGE_AND_DEEP = huge_and_deep_cases(_call_with, {"result": _ACTION_REQUIRED}, {"result": _ACTION_REQUIRED})


@pytest.mark.parametrize(("line", "expected"), _HUGE_AND_DEEP, ids=lambda value: str(value)[:60])
def test_huge_integers_and_deep_nesting_are_answered_as_the_reference_answers(
    server: LineServer, line: str, expected: dict[str, Any] | None
) -> None:
    answers = answers_to(server, line, answered=expected is not None)
    assert answers == ([] if expected is None else [{**expected, "jsonrpc": "2.0", "id": "q"}])
    assert server.process.poll() is None


@pytest.mark.parametrize("how", ["sigterm", "eof"])
def test_a_large_answer_to_a_paused_reader_is_whole_when_the_server_stops(tmp_path: Path, how: str) -> None:
    with _started(tmp_path / "state") as started:
        stop_with_a_paused_reader(started, id_bytes=200_000, how=how)
        text = started.stderr.read_text(encoding="utf-8", errors="replace")
        assert "Traceback" not in text, text


def test_after_the_storm_the_server_answers_and_exits_cleanly(server: LineServer) -> None:
    assert server.request("ping", None)["result"] == {}
    assert server.process.stdin is not None
    server.process.stdin.close()
    assert server.process.wait(timeout=30) == 0
    assert server.process.stdout is not None
    rest = bytes(server.buffer) + server.process.stdout.read()
    # at most late answers to garbage lines (tools/call ones run concurrently); nothing after the last newline
    assert rest == b"" or rest.endswith(b"\n"), rest[-300:]
    for line in rest.split(b"\n")[:-1]:
        _assert_garbage_answer(_checked_line(line))
    text = server.stderr.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in text, text
    assert SECRET not in text, text
