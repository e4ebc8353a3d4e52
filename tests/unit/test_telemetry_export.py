"""OpenTelemetry export (docs/telemetry.md, issue 35): real processes exporting over OTLP/HTTP to a loopback
receiver (tests/fixtures/otlp_receiver.py) — ``openclaw mcp probe`` against a stdio fixture server, a served call
of ``openclaw-plugin-tools`` — and the switch: nothing is sent without the ``OTEL_*`` variables, with
``OTEL_SDK_DISABLED=true`` or ``OTEL_TRACES_EXPORTER=none``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures.otlp_receiver import OtlpReceiver, ReceivedSpan
from tests.fixtures.plugins import SITE

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "tests" / "fixtures" / "mcp_servers" / "contract_server.py"
PLUGIN_TOOLS = str(Path(sys.executable).parent / "openclaw-plugin-tools")
SECRET = "sk-live-0123456789abcdefSECRET"
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"


def _env(state: Path, **extra: str) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(state / "home"),
        "OPENCLAW_STATE_DIR": str(state),
        "OPENCLAW_CONFIG_PATH": str(state / "openclaw.json"),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(ROOT),
    }
    env.update(extra)
    return env


@pytest.fixture
def state(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    (tmp_path / "openclaw.json").write_text(
        json.dumps({"mcp": {"servers": {"demo": {"command": sys.executable, "args": [str(SERVER)]}}}})
    )
    return tmp_path


def _probe(state: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "openclaw_mcp.entrypoints.cli.main", "mcp", "probe", "demo", "--json"],
        env=_env(state, **extra),
        cwd=state,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _by_name(spans: list[ReceivedSpan]) -> dict[str, ReceivedSpan]:
    return {span.name: span for span in spans}


def _values(spans: list[ReceivedSpan]) -> str:
    return json.dumps([[span.name, span.attributes, span.resource] for span in spans])


def test_a_probe_exports_its_connect_and_tools_list_spans(state: Path) -> None:
    with OtlpReceiver() as receiver:
        proc = _probe(state, OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint, OTEL_RESOURCE_ATTRIBUTES="deployment=ci")
        assert proc.returncode == 0, proc.stderr
        assert json.loads(proc.stdout)["servers"]["demo"]["tools"] == 6
        spans = receiver.wait_for(lambda spans: len(spans) >= 2)
    by_name = _by_name(spans)
    assert set(by_name) == {"initialize demo", "tools/list"}
    connect, listing = by_name["initialize demo"], by_name["tools/list"]
    assert (connect.kind, listing.kind) == ("client", "client")
    assert connect.attributes == {
        "mcp.method.name": "initialize",
        "mcp.protocol.version": "2025-11-25",
        "network.transport": "pipe",
        "openclaw.mcp.server.name": "demo",
        "openclaw.mcp.transport": "stdio",
    }
    assert listing.attributes == {**connect.attributes, "mcp.method.name": "tools/list"}
    assert connect.status == listing.status == "unset"
    assert connect.scope == "openclaw_mcp"
    assert connect.resource["service.name"] == "openclaw-mcp"
    assert connect.resource["deployment"] == "ci"
    assert str(SERVER) not in _values(spans)  # the launch command is never recorded


def test_a_failed_connect_is_an_error_span(state: Path) -> None:
    (state / "openclaw.json").write_text(
        json.dumps(
            {"mcp": {"servers": {"demo": {"command": sys.executable, "args": ["-c", "import sys; sys.exit(3)"]}}}}
        )
    )
    with OtlpReceiver() as receiver:
        proc = _probe(state, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=receiver.endpoint + "/v1/traces")
        spans = receiver.wait_for(lambda spans: len(spans) >= 1)
    assert proc.returncode != 0 or "demo" in proc.stdout
    (connect,) = spans
    assert connect.name == "initialize demo"
    assert connect.status == "error"
    assert connect.attributes["error.type"]
    assert connect.status_message == ""


def test_a_served_call_of_plugin_tools_is_a_server_span_in_the_callers_trace(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "openclaw.json").write_text(json.dumps({"plugins": {"entries": {"hookplug": {"enabled": True}}}}))
    meta = {"traceparent": f"00-{TRACE_ID}-{PARENT_ID}-01"}
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": _initialize()},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "echo_tool", "arguments": {"text": SECRET}, "_meta": meta},
        },
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "fail_tool", "arguments": {}}},
        {"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": 7}},
    ]
    with OtlpReceiver() as receiver:
        env = _env(tmp_path, OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint, OTEL_SERVICE_NAME="plugin-tools")
        env["PYTHONPATH"] = os.pathsep.join([str(SITE), str(ROOT)])
        answers = _served(env, lines, answers=4)
        assert sorted(answer["id"] for answer in answers) == [1, 2, 3, 4]
        spans = receiver.wait_for(lambda spans: len(spans) >= 4)
    assert [span.kind for span in spans] == ["server"] * 4
    by_id = {span.attributes["jsonrpc.request.id"]: span for span in spans}
    initialize, echo, fail, invalid = by_id["1"], by_id["2"], by_id["3"], by_id["4"]
    assert initialize.name == "initialize"
    assert initialize.attributes["mcp.protocol.version"] == "2025-06-18"
    assert echo.name == "tools/call echo_tool"
    assert echo.attributes == {
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "echo_tool",
        "jsonrpc.request.id": "2",
        "network.transport": "pipe",
        "mcp.protocol.version": "2025-06-18",
    }
    assert (echo.trace_id, echo.parent_span_id) == (TRACE_ID, PARENT_ID)  # continues the caller's trace
    assert echo.status == "unset"
    assert (fail.status, fail.attributes["error.type"]) == ("error", "tool_error")
    assert fail.trace_id != TRACE_ID and fail.parent_span_id == ""
    assert (invalid.name, invalid.status) == ("tools/call", "error")
    assert invalid.attributes["error.type"] == invalid.attributes["rpc.response.status_code"] == "-32602"
    assert echo.resource["service.name"] == "plugin-tools"
    assert SECRET not in _values(spans)  # never an argument value


def _served(env: dict[str, str], lines: list[dict[str, Any]], *, answers: int) -> list[dict[str, Any]]:
    """Send ``lines`` to one ``openclaw-plugin-tools`` process, read ``answers`` answers, then end its stdin (a
    server drops the answers of calls still running at EOF) and wait for it to exit 0."""
    with subprocess.Popen(
        [PLUGIN_TOOLS], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True
    ) as process:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        process.stdin.write("".join(json.dumps(line) + "\n" for line in lines))
        process.stdin.flush()
        received = [json.loads(process.stdout.readline()) for _ in range(answers)]
        process.stdin.close()
        assert process.wait(timeout=30) == 0, process.stderr.read()
    return received


def _initialize() -> dict[str, Any]:
    return {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


@pytest.mark.parametrize(
    "switch",
    [{}, {"OTEL_SDK_DISABLED": "true"}, {"OTEL_TRACES_EXPORTER": "none"}, {"OTEL_TRACES_EXPORTER": "console"}],
)
def test_nothing_is_sent_unless_asked_for(state: Path, switch: dict[str, str]) -> None:
    with OtlpReceiver() as receiver:
        extra = dict(switch)
        if switch:
            extra["OTEL_EXPORTER_OTLP_ENDPOINT"] = receiver.endpoint
        proc = _probe(state, **extra)
        assert proc.returncode == 0, proc.stderr
        assert receiver.wait_for(lambda spans: bool(spans), timeout=0.5) == []
        assert receiver.requests == []


def test_probe_does_not_wait_for_a_receiver_that_is_down(state: Path) -> None:
    with OtlpReceiver() as receiver:
        endpoint = receiver.endpoint
    proc = _probe(state, OTEL_EXPORTER_OTLP_ENDPOINT=endpoint, OTEL_EXPORTER_OTLP_TIMEOUT="2")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["servers"]["demo"]["tools"] == 6
    assert "Traceback" not in proc.stderr
