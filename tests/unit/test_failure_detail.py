"""Issue 36: failures say why — the library's ``failures()`` and ``probe --timings`` carry the server's stderr
tail and "executable not found", while the reference-compatible outputs keep the reference's words."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio

from openclaw_mcp.domain.failure import stderr_tail
from openclaw_mcp.entrypoints.runtime_api import SessionMcpRuntime

CLI = Path(sys.executable).parent / "openclaw"
SECRET = "sk-abcdefghijklmnopqrstuvwxyz123456"
CRASH = (
    "import sys; print('starting', file=sys.stderr); "
    f"print('fatal: token={SECRET} no config', file=sys.stderr); sys.exit(1)"
)
SERVERS: dict[str, Any] = {
    "gone": {"command": "/nonexistent/mcp-server"},
    "crash": {"command": sys.executable, "args": ["-c", CRASH]},
}


def test_the_library_says_why_each_server_failed() -> None:
    async def run() -> list[Any]:
        async with SessionMcpRuntime(SERVERS) as runtime:
            assert await runtime.tools() == []
            return await runtime.failures()

    gone, crash = anyio.run(run)
    assert (gone.server_name, gone.message, gone.kind) == (
        "gone",
        "MCP error -32000: Connection closed",
        "executable_not_found",
    )
    assert gone.reason == "executable not found: /nonexistent/mcp-server"
    assert crash.message == "MCP error -32000: Connection closed"  # the reference's words stay
    assert (crash.kind, crash.reason) == ("exited", "process exited with code 1")
    assert crash.stderr_tail == ("starting", "fatal: token=*** no config")
    assert SECRET not in str(crash)
    assert str(crash).splitlines() == [
        "crash: MCP error -32000: Connection closed (process exited with code 1)",
        "  stderr: starting",
        "  stderr: fatal: token=*** no config",
    ]


def test_stderr_tail_keeps_the_last_five_lines_within_500_characters() -> None:
    assert stderr_tail([f"line {i}" for i in range(9)] + ["", "  "]) == tuple(f"line {i}" for i in range(4, 9))
    assert stderr_tail(["a" * 300, "b" * 300]) == ("b" * 300,)
    (only,) = stderr_tail(["x" * 900])
    assert len(only) == 500 and only.startswith("…x")
    assert stderr_tail(["\x1b[31mred\x1b[0m"]) == ("red",)


def _probe(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "openclaw.json"
    config.write_text(json.dumps({"mcp": {"servers": SERVERS}}))
    env = {**os.environ, "HOME": str(tmp_path), "OPENCLAW_STATE_DIR": str(tmp_path / "state")}
    env["OPENCLAW_CONFIG_PATH"] = str(config)
    argv = [str(CLI), "mcp", "probe", *args]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, check=False)


def test_probe_timings_json_carries_the_reason_and_the_stderr_tail(tmp_path: Path) -> None:
    result = _probe(tmp_path, "--timings", "--json")
    gone, crash = json.loads(result.stdout)["diagnostics"]
    assert gone["errorClass"] == "executable_not_found"
    assert gone["reason"] == "executable not found: /nonexistent/mcp-server"
    assert gone["stderrTail"] == []
    assert crash["errorClass"] == "connect"
    assert crash["reason"] == "process exited with code 1"
    assert crash["stderrTail"] == ["starting", "fatal: token=*** no config"]
    assert SECRET not in result.stdout + result.stderr


def test_probe_timings_text_prints_why_under_each_failed_server(tmp_path: Path) -> None:
    lines = _probe(tmp_path, "--timings").stdout.splitlines()
    assert lines[1].startswith("! gone: MCP error -32000: Connection closed (")
    assert lines[2] == "  reason: executable not found: /nonexistent/mcp-server"
    assert lines[3].startswith("! crash: MCP error -32000: Connection closed (")
    assert lines[4:] == [
        "  reason: process exited with code 1",
        "  stderr: starting",
        "  stderr: fatal: token=*** no config",
    ]


def test_plain_probe_keeps_the_references_words(tmp_path: Path) -> None:
    text = _probe(tmp_path)
    assert text.stdout.splitlines()[1:] == [
        "! gone: MCP error -32000: Connection closed",
        "! crash: MCP error -32000: Connection closed",
    ]
    assert "executable not found" not in text.stdout + text.stderr
    document = json.loads(_probe(tmp_path, "--json").stdout)
    assert [set(item) for item in document["diagnostics"]] == [
        {"serverName", "safeServerName", "launchSummary", "message"}
    ] * 2
