"""MCP Apps in the client runtime (spec mcp-apps §2–§5, §13.1) over the real stdio app server
(tests/fixtures/app_server.py): the capability on ``initialize``, app-only tools out of the model list, the
``mcpAppPreview`` descriptor, the view store and its bridge (app-callable checks, limits, expiry)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.application.mcp_apps import AppViews
from openclaw_mcp.domain.mcp_apps import APP_MIME_TYPE, AppViewError, LeaseLimits
from openclaw_mcp.entrypoints.runtime_api import RuntimeApps, RuntimePolicy, SessionMcpRuntime

pytestmark = pytest.mark.asyncio

APP_SERVER = Path(__file__).resolve().parents[1] / "fixtures" / "app_server.py"
CAPABILITY = {"io.modelcontextprotocol/ui": {"mimeTypes": [APP_MIME_TYPE]}}


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000_000

    def now_ms(self) -> int:
        return self.now


def app_server(log: Path, *flags: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(APP_SERVER), *flags], "env": {"APP_SERVER_LOG": str(log)}}


def logged(log: Path, method: str) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in log.read_text().splitlines() if line.strip()] if log.exists() else []
    return [line for line in lines if line.get("method") == method]


async def test_the_capability_is_sent_only_when_apps_are_enabled(tmp_path: Path) -> None:
    for enabled in (True, False):
        log = tmp_path / f"{enabled}.jsonl"
        with anyio.fail_after(30):
            async with SessionMcpRuntime({"clock": app_server(log)}, apps=RuntimeApps(enabled=enabled)) as runtime:
                await runtime.tools()
        capabilities = logged(log, "initialize")[0]["params"]["capabilities"]
        if enabled:
            assert capabilities["extensions"] == CAPABILITY
        else:
            assert "extensions" not in capabilities


async def test_the_config_switch_turns_apps_on(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    config = {"mcp": {"apps": {"enabled": True}}}
    with anyio.fail_after(30):
        async with SessionMcpRuntime({"clock": app_server(log)}, policy=RuntimePolicy(config=config)) as runtime:
            await runtime.tools()
    assert logged(log, "initialize")[0]["params"]["capabilities"]["extensions"] == CAPABILITY


async def test_app_only_tools_stay_out_of_the_model_list(tmp_path: Path) -> None:
    with anyio.fail_after(30):
        async with SessionMcpRuntime({"clock": app_server(tmp_path / "l")}, apps=RuntimeApps(enabled=True)) as runtime:
            names = sorted(tool.name for tool in await runtime.tools())
    assert names == ["clock__resources_list", "clock__resources_read", "clock__secret-admin", "clock__show-clock"]


async def test_a_tool_with_a_view_returns_the_bounded_descriptor_and_the_view_is_held(tmp_path: Path) -> None:
    views = AppViews(FakeClock())
    with anyio.fail_after(30):
        async with SessionMcpRuntime(
            {"clock": app_server(tmp_path / "l")},
            policy=RuntimePolicy(session_key="agent:main:x"),
            apps=RuntimeApps(enabled=True, views=views),
        ) as runtime:
            tool = next(tool for tool in await runtime.tools() if tool.name == "clock__show-clock")
            result = await tool.execute({}, tool_call_id="call-1")
            preview = result.details["mcpAppPreview"]
            view_id = preview["mcpApp"]["viewId"]
            assert preview == {
                "kind": "canvas",
                "view": {"id": view_id, "title": "show-clock UI"},
                "presentation": {
                    "target": "assistant_message",
                    "title": "show-clock UI",
                    "preferred_height": 600,
                    "sandbox": "scripts",
                },
                "mcpApp": {
                    "viewId": view_id,
                    "serverName": "clock",
                    "toolName": "show-clock",
                    "uiResourceUri": "ui://clock/view.html",
                    "toolCallId": "call-1",
                    "originSessionKey": "agent:main:x",
                },
            }
            assert view_id.startswith("mcp-app-")
            assert "<script" not in json.dumps(preview) and "12:00" not in json.dumps(preview)
            described = views.describe(view_id)
            assert "<html" in described["html"].lower() or "<script" in described["html"].lower()
            assert described["csp"] == {"connectDomains": ["https://api.example.com"]}
            assert described["toolResult"]["structuredContent"] == {"time": "12:00"}
            # the app may call app-visible tools of its own server only
            ticked = await views.call_tool(view_id, "tick", {})
            assert ticked["structuredContent"] == {"ticks": 1}
            with pytest.raises(AppViewError, match='MCP tool "secret-admin" is not app-callable'):
                await views.call_tool(view_id, "secret-admin", {})
            listed = await views.list_tools(view_id)
            assert sorted(tool["name"] for tool in listed["tools"]) == ["show-clock", "tick"]
            read = await views.read_resource(view_id, "ui://clock/view.html")
            assert read["contents"][0]["mimeType"] == APP_MIME_TYPE
            assert runtime.session.active_leases == 1
        assert len(views.leases) == 1
    views.close()
    assert len(views.leases) == 0


async def test_without_apps_no_descriptor_is_added(tmp_path: Path) -> None:
    with anyio.fail_after(30):
        async with SessionMcpRuntime({"clock": app_server(tmp_path / "l")}) as runtime:
            tool = next(tool for tool in await runtime.tools() if tool.name == "clock__show-clock")
            result = await tool.execute({})
    assert "mcpAppPreview" not in result.details


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("--mime-wrong", "resource must use text/html;profile=mcp-app"),
        ("--oversize", "MCP App resource exceeds 2097152 bytes"),
        ("--two-contents", "expected one MCP App resource, received 2"),
    ],
)
async def test_a_refused_resource_only_warns_and_the_result_stays(tmp_path: Path, flag: str, message: str) -> None:
    warnings: list[str] = []
    views = AppViews(FakeClock(), warn=warnings.append)
    with anyio.fail_after(30):
        async with SessionMcpRuntime(
            {"clock": app_server(tmp_path / "l", flag)}, apps=RuntimeApps(enabled=True, views=views)
        ) as runtime:
            tool = next(tool for tool in await runtime.tools() if tool.name == "clock__show-clock")
            result = await tool.execute({})
    assert "mcpAppPreview" not in result.details
    assert result.details["structuredContent"] == {"time": "12:00"} or result.content
    assert warnings == [f'mcp-app: failed to prepare ui://clock/view.html from "clock": {message}']
    assert len(views.leases) == 0


async def test_expiry_and_the_rate_limit(tmp_path: Path) -> None:
    clock = FakeClock()
    views = AppViews(clock, limits=LeaseLimits(ttl_ms=2000))
    with anyio.fail_after(60):
        async with SessionMcpRuntime(
            {"clock": app_server(tmp_path / "l")}, apps=RuntimeApps(enabled=True, views=views)
        ) as runtime:
            tool = next(tool for tool in await runtime.tools() if tool.name == "clock__show-clock")
            view_id = (await tool.execute({})).details["mcpAppPreview"]["mcpApp"]["viewId"]
            for _ in range(30):
                await views.call_tool(view_id, "tick", {})
            with pytest.raises(AppViewError, match="MCP App request rate limit reached") as limited:
                await views.call_tool(view_id, "tick", {})
            assert limited.value.kind == "limit"
            clock.now += 2000
            with pytest.raises(AppViewError, match="MCP App view expired or is not authorized") as expired:
                await views.call_tool(view_id, "tick", {})
            assert expired.value.kind == "expired"
            assert runtime.session.active_leases == 0
