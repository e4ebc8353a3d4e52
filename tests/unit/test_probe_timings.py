"""``openclaw mcp probe --timings`` (beyond the reference) over real stdio MCP servers: connect time, counts
and error class per server; without the flag the output is what it was."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from openclaw_mcp.application.ports.mcp import McpConnectError, McpRequestError, McpTimeout
from openclaw_mcp.application.ports.oauth import OAuthFlowError
from openclaw_mcp.entrypoints.cli.argv import Parsed, UsageError, parse
from openclaw_mcp.entrypoints.cli.help_text import render_command_help
from openclaw_mcp.entrypoints.cli.options import ProbeOptions
from openclaw_mcp.entrypoints.cli.probing import error_class

ROOT = Path(__file__).resolve().parents[2]
SERVERS = ROOT / "tests" / "fixtures" / "mcp_servers"
CLI = [sys.executable, "-m", "openclaw_mcp.entrypoints.cli.main", "mcp"]
# protocolVersion: protocol-eras D-PE10; reason, stderrTail (diagnostics only): issue 36
TIMING_KEYS = {"protocolVersion", "connectMs", "counts", "errorClass", "reason", "stderrTail"}


def _stdio(script: str, **extra: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(SERVERS / script)], **extra}


BAD_LIST = """
import json, sys
for raw in sys.stdin:
    message = json.loads(raw)
    if "id" not in message:
        continue
    if message["method"] == "initialize":
        reply = {"result": {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                            "serverInfo": {"name": "bad-list", "version": "1"}}}
    else:
        reply = {"error": {"code": -32603, "message": "listing is broken"}}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], **reply}), flush=True)
"""
CONFIG = {
    "mcp": {
        "servers": {
            "kb": _stdio("resources_prompts_server.py"),
            "tools": _stdio("contract_server.py"),
            "crash": _stdio("crash_server.py"),
            "hang": _stdio("mute_server.py", connectionTimeoutMs=1500),
            "nothing": {},
            "off": {**_stdio("contract_server.py"), "enabled": False},
        }
    }
}


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("probe-timings")
    (root / "home").mkdir()
    (root / "bad_list.py").write_text(BAD_LIST)
    config = json.loads(json.dumps(CONFIG))
    config["mcp"]["servers"]["bad-list"] = {"command": sys.executable, "args": [str(root / "bad_list.py")]}
    (root / "openclaw.json").write_text(json.dumps(config))
    return root


def _probe(state: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(state / "home"),
        "OPENCLAW_STATE_DIR": str(state / "state"),
        "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(ROOT),
    }
    return subprocess.run(
        [*CLI, "probe", *argv], env=env, cwd=state, capture_output=True, text=True, timeout=90, check=False
    )


@pytest.fixture(scope="module")
def plain(state: Path) -> subprocess.CompletedProcess[str]:
    return _probe(state, "--json")


@pytest.fixture(scope="module")
def timed(state: Path) -> subprocess.CompletedProcess[str]:
    return _probe(state, "--json", "--timings")


def _without_timings(document: dict[str, Any]) -> dict[str, Any]:
    stripped = json.loads(json.dumps(document))
    stripped.pop("skipped")
    stripped.pop("generatedAt")
    for entry in [*stripped["servers"].values(), *stripped["diagnostics"]]:
        for key in TIMING_KEYS:
            entry.pop(key, None)
    return stripped


def _one_decimal(value: object) -> bool:
    return isinstance(value, int | float) and value >= 0 and round(float(value), 1) == value


def test_timings_add_only_their_keys_to_the_reference_document(
    plain: subprocess.CompletedProcess[str], timed: subprocess.CompletedProcess[str]
) -> None:
    assert (plain.returncode, timed.returncode) == (1, 1)
    reference, document = json.loads(plain.stdout), json.loads(timed.stdout)
    assert "skipped" not in reference
    for entry in [*reference["servers"].values(), *reference["diagnostics"]]:
        assert not TIMING_KEYS & set(entry), entry
    reference.pop("generatedAt")
    assert _without_timings(document) == reference
    assert plain.stderr == timed.stderr


def test_connected_servers_gain_connect_time_counts_and_no_error_class(
    timed: subprocess.CompletedProcess[str],
) -> None:
    servers = json.loads(timed.stdout)["servers"]
    assert list(servers) == ["kb", "tools"]
    kb, tools = servers["kb"], servers["tools"]
    assert kb["counts"] == {"tools": 0, "resources": 2, "prompts": 2}
    assert tools["counts"] == {"tools": tools["tools"], "resources": 1, "prompts": 1}  # contract_server's
    assert tools["tools"] > 0
    for entry in (kb, tools):
        assert _one_decimal(entry["connectMs"]) and entry["connectMs"] > 0, entry
        assert entry["errorClass"] is None
        assert list(entry)[-3:] == ["connectMs", "counts", "errorClass"]


def test_failed_and_skipped_servers_carry_their_error_class(timed: subprocess.CompletedProcess[str]) -> None:
    document = json.loads(timed.stdout)
    failed = {entry["serverName"]: entry for entry in document["diagnostics"]}
    assert set(failed) == {"crash", "hang", "bad-list"}
    assert failed["bad-list"]["errorClass"] == "protocol"
    assert failed["crash"]["errorClass"] == "connect"
    assert failed["hang"]["errorClass"] == "timeout"
    assert 1400 <= failed["hang"]["connectMs"] < 10000, failed["hang"]
    assert _one_decimal(failed["crash"]["connectMs"])
    assert document["skipped"] == [{"serverName": "nothing", "errorClass": "config"}]  # "off" is disabled


def test_timings_without_json_append_the_connect_time_to_each_server_line(state: Path) -> None:
    result = _probe(state, "--timings")
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("MCP probe (")
    server_lines = [line for line in lines if line.startswith(("- ", "! "))]
    names = [line.split(":")[0] for line in server_lines]
    assert names[:2] == ["- kb", "- tools"]
    assert sorted(names[2:]) == ["! bad-list", "! crash", "! hang"]  # diagnostics: in the order they failed
    for line in server_lines:  # a connected server's with its protocol version (protocol-eras D-PE10)
        assert line.endswith((" ms)", " ms, 2025-11-25)")), line
    plain = _probe(state).stdout.splitlines()
    assert len(plain) == len([line for line in lines if not line.startswith(("  reason: ", "  stderr: "))])
    assert "  reason: process exited with code 1" in lines  # issue 36: why, under the failed server's line
    assert all(not line.endswith(" ms)") for line in plain)


def test_a_single_server_probe_reports_its_timings(state: Path) -> None:
    result = _probe(state, "kb", "--timings", "--json")
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert document["servers"]["kb"]["counts"]["resources"] == 2
    assert document["skipped"] == []


def test_the_flag_parses_for_probe_only_and_shows_in_its_help() -> None:
    parsed, other = parse(["probe", "--timings"]), parse(["probe", "x", "--json"])
    assert isinstance(parsed, Parsed) and isinstance(other, Parsed)
    assert parsed.typed == ProbeOptions(name=None, json=False, timings=True)
    assert other.typed == ProbeOptions(name="x", json=True, timings=False)
    with pytest.raises(UsageError):
        parse(["status", "--timings"])
    assert "  --timings   Also show connect time, counts and error class per server" in render_command_help("probe")


@pytest.mark.parametrize(
    ("failure", "message", "expected"),
    [
        (McpTimeout("MCP server connection timed out after 5000ms"), "x", "timeout"),
        (None, "MCP tool listing timed out after 1000ms", "timeout"),
        (McpConnectError("MCP error -32000: Connection closed"), "MCP error -32000: Connection closed", "connect"),
        (OAuthFlowError("needs login"), "needs login", "auth"),
        (McpConnectError("HTTP 401 Unauthorized"), "Streamable HTTP error: 401", "auth"),
        (None, "MCP error -32601: Method not found", "protocol"),
        (McpRequestError(-32602, "bad"), "MCP error -32602: bad", "protocol"),
    ],
)
def test_error_classes(failure: BaseException | None, message: str, expected: str) -> None:
    assert error_class(failure, message) == expected
