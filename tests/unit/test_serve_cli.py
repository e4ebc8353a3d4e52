"""``openclaw mcp serve`` as a real process over stdio (spec serve-bridge §1, §3, §12.1): start-up order and
failures, exit statuses, stdin end and signals. The Gateway is the seeded in-memory one (bootstrap in
``tests/unit/serve_fakes.py``) or, for the unreachable case, the real WebSocket client."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.unit.serve_fakes import INITIALIZE

ROOT = Path(__file__).resolve().parents[2]
FAKE = "from tests.unit.serve_fakes import serve_with_memory_gateway; serve_with_memory_gateway()"
REAL = "from openclaw_mcp.entrypoints.serve.cli import main; main()"
FAILURE_TAIL = ". Run openclaw gateway status --deep --require-rpc to inspect Gateway health."
TOKEN_WARNING = "Warning: --token *** be exposed via process listings. Prefer --token-file or environment variables."


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(ROOT),
        "OPENCLAW_STATE_DIR": str(tmp_path / "state"),
        "OPENCLAW_CONFIG_PATH": str(tmp_path / "state" / "openclaw.json"),
        "HOME": str(tmp_path / "home"),
        "LANG": "C.UTF-8",
    }
    env.update(extra)
    return env


def _spawn(tmp_path: Path, args: list[str], *, code: str = FAKE, **env: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_env(tmp_path, **env),
        cwd=tmp_path,
    )


def _request(request_id: int, method: str, params: Any = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode() + b"\n"


def _roundtrip(proc: subprocess.Popen[bytes], request_id: int, method: str, params: Any = None) -> dict[str, Any]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(_request(request_id, method, params))
    proc.stdin.flush()
    line = proc.stdout.readline()
    message = json.loads(line)
    assert isinstance(message, dict)
    return message


def _run(
    tmp_path: Path, args: list[str], stdin: bytes, *, code: str = FAKE, **env: str
) -> tuple[int, bytes, list[str]]:
    with _spawn(tmp_path, args, code=code, **env) as proc:
        out, err = proc.communicate(stdin, timeout=20)
    return proc.returncode, out, err.decode().splitlines()


@pytest.mark.parametrize(
    ("mode", "capabilities"),
    [
        (
            "on",
            {"experimental": {"claude/channel": {}, "claude/channel/permission": {}}, "tools": {"listChanged": True}},
        ),
        (
            "auto",
            {"experimental": {"claude/channel": {}, "claude/channel/permission": {}}, "tools": {"listChanged": True}},
        ),
        ("OFF", {"tools": {"listChanged": True}}),
    ],
)
def test_initialize_is_answered_per_mode_and_stdin_end_exits_zero(
    tmp_path: Path, mode: str, capabilities: dict[str, Any]
) -> None:
    with _spawn(tmp_path, ["--url", "ws://127.0.0.1:18789", "--claude-channel-mode", mode]) as proc:
        response = _roundtrip(proc, 1, "initialize", INITIALIZE)
        listed = _roundtrip(proc, 2, "tools/list")
        assert proc.stdin is not None
        proc.stdin.close()
        assert proc.wait(timeout=1.0) == 0
        assert proc.stderr is not None and proc.stderr.read() == b""
    assert response == {
        "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": capabilities,
            "serverInfo": {"name": "openclaw", "version": "2026.9.6"},
        },
        "jsonrpc": "2.0",
        "id": 1,
    }
    assert [tool["name"] for tool in listed["result"]["tools"]][:2] == ["conversations_list", "conversation_get"]


def test_a_session_with_tool_calls_writes_only_json_rpc_to_stdout(tmp_path: Path) -> None:
    stdin = b"".join(
        [
            _request(1, "initialize", INITIALIZE),
            b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
            b"garbage\n",
            _request(2, "tools/call", {"name": "conversations_list", "arguments": {"limit": 1}}),
            _request(3, "tools/call", {"name": "events_wait", "arguments": {"timeout_ms": 10}}),
            _request(4, "resources/list"),
        ]
    )
    status, out, err = _run(tmp_path, ["--url", "ws://127.0.0.1:18789"], stdin)
    messages = [json.loads(line) for line in out.splitlines()]
    assert status == 0
    assert err == []
    assert sorted(m["id"] for m in messages) == [1, 2, 3, 4]
    by_id = {m["id"]: m for m in messages}
    assert by_id[2]["result"]["content"][0]["text"].startswith("conversations: 1\n\n")
    assert by_id[4]["error"] == {"code": -32601, "message": "Method not found"}


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_signals_close_gracefully_with_exit_status_zero(tmp_path: Path, signum: int) -> None:
    with _spawn(tmp_path, ["--url", "ws://127.0.0.1:18789"]) as proc:
        _roundtrip(proc, 1, "initialize", INITIALIZE)
        _roundtrip(proc, 2, "tools/call", {"name": "conversations_list", "arguments": {}})
        proc.send_signal(signum)
        assert proc.wait(timeout=5) == 0
        assert proc.stderr is not None and proc.stderr.read() == b""


def test_a_missing_token_file_fails_before_any_mcp_traffic(tmp_path: Path) -> None:
    missing = tmp_path / "token.txt.missing"
    status, out, err = _run(tmp_path, ["--token-file", str(missing)], _request(1, "initialize", INITIALIZE))
    assert status == 1
    assert out == b""
    assert err == [
        f"MCP server failed to start: Failed to inspect Gateway token file at {missing}: Error: ENOENT: no such file "
        f"or directory, lstat '{missing}' | ENOENT{FAILURE_TAIL}"
    ]


def test_token_and_token_file_together_fail_without_a_warning(tmp_path: Path) -> None:
    token_file = tmp_path / "token.txt"
    token_file.write_text("secret\n")
    status, out, err = _run(tmp_path, ["--token", "t", "--token-file", str(token_file)], b"")
    assert (status, out) == (1, b"")
    assert err == [f"MCP server failed to start: Use either --token or --token-file for Gateway token.{FAILURE_TAIL}"]


def test_an_invalid_mode_fails_after_the_token_warning(tmp_path: Path) -> None:
    args = ["--url", "ws://127.0.0.1:18789", "--token", "t", "--claude-channel-mode", "sometimes"]
    status, out, err = _run(tmp_path, args, _request(1, "initialize", INITIALIZE))
    assert (status, out) == (1, b"")
    assert err == [
        TOKEN_WARNING,
        f'MCP server failed to start: Invalid --claude-channel-mode value. Use "auto", "on", or "off".{FAILURE_TAIL}',
    ]


def test_a_token_file_is_read_and_trimmed(tmp_path: Path) -> None:
    token_file = tmp_path / "token.txt"
    token_file.write_text("T\n")
    status, out, err = _run(tmp_path, ["--token-file", str(token_file)], _request(1, "initialize", INITIALIZE))
    assert status == 0
    assert json.loads(out)["id"] == 1
    assert err == []


def test_an_invalid_config_blocks_serve_with_the_fix_variant_of_the_block(tmp_path: Path) -> None:
    config = tmp_path / "state" / "openclaw.json"
    config.parent.mkdir(parents=True)
    config.write_text('{"mcp":{"servers":{"x":{"command":5}}}}')
    status, out, err = _run(tmp_path, ["--token", "a", "--token-file", "b"], _request(1, "initialize", INITIALIZE))
    assert (status, out) == (1, b"")
    assert err == [
        "OpenClaw config is invalid",
        f"File: {config}",
        "Problem:",
        "  - openclaw.json:1 — mcp.servers.x.command: Invalid input: expected string, received number",
        "",
        "Fix: openclaw doctor --fix",
        "Inspect: openclaw config validate",
        "Audit, status, health, logs, tasks list/audit, and doctor commands still run with invalid config.",
    ]


def test_an_unreachable_gateway_answers_initialize_then_fails(tmp_path: Path) -> None:
    args = ["--url", "ws://127.0.0.1:1", "--token", "probetoken"]
    with _spawn(tmp_path, args, code=REAL) as proc:
        response = _roundtrip(proc, 1, "initialize", INITIALIZE)
        assert proc.wait(timeout=20) == 1  # stdin stays open: the process ends by itself
        assert proc.stderr is not None
        err = proc.stderr.read().decode().splitlines()
    assert response["result"]["serverInfo"] == {"name": "openclaw", "version": "2026.9.6"}
    assert err == [TOKEN_WARNING, f"MCP server failed to start: connect ECONNREFUSED 127.0.0.1:1{FAILURE_TAIL}"]


def test_usage_errors_come_from_the_option_parser(tmp_path: Path) -> None:
    status, out, err = _run(tmp_path, ["--bogus"], b"", code=REAL)
    assert status == 1
    assert out == b""
    assert err and "--bogus" in err[0]
