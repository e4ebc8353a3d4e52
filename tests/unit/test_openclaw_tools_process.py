"""ONE real ``openclaw-tools`` process per test, read on the raw byte stream (issue 19 acceptance: no stdout byte
outside MCP frames; spec openclaw-tools.md §1.3, §7.3 D-OT4, §8).

Every ``openclaw`` action (the read ones too: ``status``, ``doctor``, ``plugin_list``, ``plugin_search`` run our
CLI in process) and a sample of ``automations`` actions are called; every stdout line must be a JSON-RPC
answer to a request we sent, and nothing else. Start-up errors write nothing to stdout; SIGTERM when idle exits 0
within 2 s.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.docker.gateway_harness import isolated_env
from tests.fixtures.openclaw_tools_texts import ACTIONS
from tests.fixtures.stdio_lines import LineServer, parse_object

COMMAND = [sys.executable, "-m", "openclaw_mcp.entrypoints.openclaw_tools"]
READ_TIMEOUT_S = 60.0
INITIALIZE = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}
ARGUMENTS: dict[str, dict[str, Any]] = {
    "channel_info": {"channel": "telegram"},
    "config_get": {"path": "gateway.auth"},
    "plugin_search": {"query": "hook"},
    "connect_channel": {"channel": "Telegram"},
    "set_default_model": {"model": "openai/gpt-5"},
    "config_set": {"path": "gateway.port", "value": "1"},
    "config_set_ref": {"path": "gateway.auth.token", "envVar": "TOKEN"},
    "create_agent": {"agentId": "helper"},
    "plugin_install": {"spec": "clawhub:demo"},
    "plugin_activate_artifact": {"path": "/tmp/x.tgz", "sha256": "0" * 64},
    "plugin_uninstall": {"pluginId": "demo"},
}


class RawSession:
    """The server process and every byte it wrote to stdout (read line by line through :class:`LineServer`)."""

    def __init__(self, tmp_path: Path, env: dict[str, str], config: dict[str, Any] | None = None) -> None:
        state = tmp_path / "state"
        state.mkdir()
        if config is not None:
            (state / "openclaw.json").write_text(json.dumps(config))
        stderr = tmp_path / "stderr.txt"
        with stderr.open("wb") as stream:
            self.process = subprocess.Popen(
                COMMAND,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stream,
                env=isolated_env(state, extra={"PYTHONPATH": os.pathsep.join(sys.path), **env}),
            )
        self.raw = bytearray()
        self.server = LineServer(
            self.process, stderr, check=self._record, on_other=lambda _message: None, read_timeout_s=READ_TIMEOUT_S
        )

    def _record(self, line: bytes) -> dict[str, Any]:
        self.raw += line + b"\n"
        return parse_object(line)

    @property
    def sent(self) -> set[int]:
        """The ids of the requests sent."""
        return set(range(1, self.server.next_id + 1))

    def send(self, message: dict[str, Any]) -> None:
        self.server.send_line(json.dumps(message).encode())

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return self.server.request(method, params)

    def finish(self) -> tuple[int, str]:
        """Close stdin (EOF), collect the rest of stdout and all of stderr, and the exit status."""
        rest, _ = self.process.communicate(timeout=READ_TIMEOUT_S)
        self.raw += bytes(self.server.buffer) + rest
        return self.process.returncode, self.server.stderr.read_text(encoding="utf-8", errors="replace")


def _frames_only(raw: bytes, sent: set[int]) -> None:
    """Every stdout line is one JSON-RPC 2.0 answer to a request we sent; the stream ends with a newline."""
    assert raw.endswith(b"\n"), raw[-200:]
    for line in raw.split(b"\n")[:-1]:
        message = json.loads(line)
        assert message["jsonrpc"] == "2.0" and message["id"] in sent, line[:200]
        assert ("result" in message) != ("error" in message), line[:200]


def test_every_openclaw_action_writes_only_mcp_frames(tmp_path: Path) -> None:
    env = {"OPENCLAW_TOOLS_MCP_TOOLS": "openclaw,cron", "OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY": "agent:main:main"}
    config = {"gateway": {"port": 9, "auth": {"mode": "token", "token": "secret-value"}}}
    session = RawSession(tmp_path, env, config)
    assert session.request("initialize", INITIALIZE)["result"]["serverInfo"]["name"] == "openclaw-tools"
    session.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    names = [tool["name"] for tool in session.request("tools/list", {})["result"]["tools"]]
    assert names == ["openclaw", "automations"]
    texts: dict[str, str] = {}
    for action in ACTIONS:
        answer = session.request(
            "tools/call", {"name": "openclaw", "arguments": {"action": action, **ARGUMENTS.get(action, {})}}
        )
        texts[action] = answer["result"]["content"][0]["text"]
    for arguments in ({"action": "list"}, {"action": "status", "timeoutMs": 2000}, {"action": "bogus"}):
        session.request("tools/call", {"name": "cron", "arguments": arguments})
    rc, stderr = session.finish()
    assert rc == 0 and "Traceback" not in stderr, stderr
    _frames_only(bytes(session.raw), session.sent)
    assert "secret-value" not in session.raw.decode() and "secret-value" not in stderr
    assert texts["config_get"].startswith("gateway.auth = {")
    assert texts["open_agent"].startswith("directive: the host now hands the user over to their normal agent.")


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"OPENCLAW_TOOLS_MCP_TOOLS": "cron,bogus"},
        {"OPENCLAW_TOOLS_MCP_TOOLS": "openclaw", "OPENCLAW_TOOLS_MCP_SYSTEM_AGENT_SURFACE": "web"},
    ],
)
def test_a_start_up_error_is_one_stderr_line_and_no_stdout(tmp_path: Path, env: dict[str, str]) -> None:
    session = RawSession(tmp_path, env)
    rc, stderr = session.finish()
    assert rc == 1 and session.raw == b""
    assert stderr.startswith("openclaw-tools-serve: ") and stderr.count("\n") == 1, stderr


def test_sigterm_when_idle_exits_zero_within_two_seconds(tmp_path: Path) -> None:
    session = RawSession(tmp_path, {"OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY": "agent:main:main"}, {})
    session.request("initialize", INITIALIZE)
    started = time.monotonic()
    session.process.send_signal(signal.SIGTERM)
    assert session.process.wait(timeout=10) == 0
    assert time.monotonic() - started < 2.0
    rc, stderr = session.finish()
    assert rc == 0 and stderr == ""
    _frames_only(bytes(session.raw), session.sent)


def test_an_invalid_config_fails_with_the_invalid_config_block(tmp_path: Path) -> None:
    session = RawSession(tmp_path, {"OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY": "agent:main:main"})
    (tmp_path / "state" / "openclaw.json").write_text("{oops")
    rc, stderr = session.finish()
    assert rc == 1 and session.raw == b"" and "Traceback" not in stderr
    assert "openclaw.json" in stderr, stderr
