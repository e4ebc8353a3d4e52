"""Telemetry of the client runtime in process (docs/telemetry.md): the ``OTEL_*`` settings, the composition
root's choice of adapter, and the spans of a session's connect, ``tools/list`` and ``tools/call`` over a real
stdio server, exported by the composed OTLP/HTTP adapter to the loopback receiver."""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.otel import OtelTelemetry
from openclaw_mcp.application.ports.telemetry import NO_TELEMETRY
from openclaw_mcp.entrypoints import composition
from openclaw_mcp.entrypoints.otel_settings import OtelExport, otel_export
from openclaw_mcp.entrypoints.runtime_api import RuntimeHost, SessionMcpRuntime, runtime_container
from openclaw_mcp.entrypoints.settings import Settings
from tests.fixtures.otlp_receiver import OtlpReceiver

SERVER = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_servers" / "contract_server.py"
SECRET = "sk-live-0123456789abcdefSECRET"


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, None),
        ({"OTEL_SERVICE_NAME": "x"}, None),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, OtelExport("http://c:4318/v1/traces")),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/"}, OtelExport("http://c:4318/v1/traces")),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t/x"},
            OtelExport("http://t/x"),
        ),
        ({"OTEL_TRACES_EXPORTER": "otlp"}, OtelExport("http://localhost:4318/v1/traces")),
        (
            {"OTEL_TRACES_EXPORTER": "console, OTLP", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c"},
            OtelExport("http://c/v1/traces"),
        ),
        ({"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c"}, None),
        ({"OTEL_SDK_DISABLED": "TRUE", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c"}, None),
        ({"OTEL_SDK_DISABLED": "false", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c"}, OtelExport("http://c/v1/traces")),
        (
            {
                "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c",
                "OTEL_EXPORTER_OTLP_HEADERS": "api-key=a%20b,bad,x=1",
                "OTEL_EXPORTER_OTLP_TRACES_HEADERS": "k=v",
                "OTEL_RESOURCE_ATTRIBUTES": "service.name=from-attrs,team=mcp",
            },
            OtelExport("http://c/v1/traces", (("k", "v"),), "from-attrs", (("team", "mcp"),)),
        ),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_HEADERS": "api-key=a%20b,bad,x=1"},
            OtelExport("http://c/v1/traces", (("api-key", "a b"), ("x", "1"))),
        ),
        (
            {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_SERVICE_NAME": "svc", "OTEL_RESOURCE_ATTRIBUTES": "a=b"},
            OtelExport("http://c/v1/traces", (), "svc", (("a", "b"),)),
        ),
    ],
)
def test_export_is_configured_only_by_the_standard_variables(
    environ: dict[str, str], expected: OtelExport | None
) -> None:
    assert otel_export(environ) == expected


def test_the_headers_are_never_printed() -> None:
    export = otel_export({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c", "OTEL_EXPORTER_OTLP_HEADERS": f"key={SECRET}"})
    assert export is not None and SECRET not in repr(export)


def _settings(**extra: str) -> Settings:
    return Settings.from_environ({"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/nonexistent", **extra})


def test_without_export_the_composition_gives_the_no_op() -> None:
    assert composition.telemetry(_settings()) is NO_TELEMETRY


def test_without_the_extra_nothing_is_exported_and_one_record_says_why(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry.exporter.otlp.proto.http.trace_exporter", None)
    monkeypatch.setattr(composition, "_TELEMETRY", {})
    with caplog.at_level(logging.WARNING):
        built = composition.telemetry(_settings(OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9"))
        again = composition.telemetry(_settings(OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9"))
    assert built is again is NO_TELEMETRY
    assert [record.getMessage() for record in caplog.records] == [
        "OTEL_* asks for span export but the otel extra is not installed: nothing is exported"
        " (pip install 'openclaw-mcp[otel]')"
    ]


@pytest.mark.asyncio
async def test_connect_list_and_calls_of_a_session_are_exported() -> None:
    with OtlpReceiver() as receiver:
        settings = _settings(OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint)
        container = runtime_container(settings)
        telemetry = container.telemetry()
        assert isinstance(telemetry, OtelTelemetry)
        assert container.telemetry() is runtime_container(settings).telemetry()  # one exporter per process
        servers = {"demo": {"command": sys.executable, "args": [str(SERVER)]}}
        with anyio.fail_after(30):
            async with SessionMcpRuntime(servers, host=RuntimeHost(container=container)) as runtime:
                tools = {tool.name: tool for tool in await runtime.tools()}
                await tools["demo__echo"].execute({"text": SECRET}, tool_call_id="call-1")
                with pytest.raises(Exception, match="tool request failed"):
                    await tools["demo__fail"].execute({"text": SECRET}, tool_call_id="call-2")
        telemetry.close()  # flushes
        spans = receiver.wait_for(lambda spans: len(spans) >= 4)
    by_name = {span.name: span for span in spans}
    assert set(by_name) == {"initialize demo", "tools/list", "tools/call echo", "tools/call fail"}
    echo, fail = by_name["tools/call echo"], by_name["tools/call fail"]
    assert echo.kind == "client"
    assert echo.attributes == {
        "mcp.method.name": "tools/call",
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "echo",
        "gen_ai.tool.call.id": "call-1",
        "mcp.protocol.version": "2025-11-25",
        "network.transport": "pipe",
        "openclaw.mcp.server.name": "demo",
        "openclaw.mcp.transport": "stdio",
    }
    assert echo.status == "unset"
    assert (fail.status, fail.attributes["error.type"], fail.attributes["gen_ai.tool.call.id"]) == (
        "error",
        "-32001",
        "call-2",
    )
    everything: list[Any] = [[span.name, span.attributes, span.status_message, span.events] for span in spans]
    assert SECRET not in repr(everything)
    assert "tool request failed" not in repr(everything)  # error messages are never recorded
