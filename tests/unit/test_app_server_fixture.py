"""The MCP Apps test server (``tests/fixtures/app_server.py``, spec mcp-apps §14) over real stdio.

Each test spawns the fixture as a subprocess and talks to it with the ``mcp`` SDK's ``stdio_client`` and
``ClientSession``; what the server received is read back from ``$APP_SERVER_LOG``.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

pytestmark = pytest.mark.asyncio

SERVER = Path(__file__).resolve().parents[1] / "fixtures" / "app_server.py"
VIEW_URI = "ui://clock/view.html"
APP_MIME = "text/html;profile=mcp-app"
UI_EXTENSION = {"io.modelcontextprotocol/ui": {"mimeTypes": [APP_MIME]}}
TIMEOUT_S = 30


@asynccontextmanager
async def connect(
    tmp_path: Path, *flags: str, extensions: dict[str, dict[str, Any]] | None = None, env: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(
        command=sys.executable,
        args=[str(SERVER), *flags],
        env={"APP_SERVER_LOG": str(tmp_path / "server.log"), **(env or {})},
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write, extensions=extensions) as session:
        await session.initialize()
        yield session


def logged(tmp_path: Path) -> list[dict[str, Any]]:
    log = tmp_path / "server.log"
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.is_file() else []


def dump(model: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


async def read_view(session: ClientSession) -> list[dict[str, Any]]:
    result = await session.read_resource(VIEW_URI)
    return [dump(content) for content in result.contents]


async def test_tools_resource_and_log(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with connect(
            tmp_path, extensions=UI_EXTENSION, env={"APP_SERVER_FETCH_URL": "http://127.0.0.1:4321/api/mcp"}
        ) as session:
            tools = {tool.name: dump(tool) for tool in (await session.list_tools()).tools}
            assert list(tools) == ["show-clock", "tick", "secret-admin"]
            assert tools["show-clock"]["_meta"] == {"ui": {"resourceUri": VIEW_URI}}
            assert tools["tick"]["_meta"] == {"ui": {"resourceUri": VIEW_URI, "visibility": ["app"]}}
            assert tools["secret-admin"]["_meta"] == {"ui": {"visibility": ["model"]}}

            clock = await session.call_tool("show-clock", {})
            assert isinstance(clock, types.CallToolResult)
            assert dump(clock)["content"] == [{"type": "text", "text": "12:00"}]
            assert clock.structured_content == {"time": "12:00"}
            assert not clock.is_error

            for expected in (1, 2):
                tick = await session.call_tool("tick", {})
                assert isinstance(tick, types.CallToolResult)
                assert tick.structured_content == {"ticks": expected}
                assert dump(tick)["content"] == [{"type": "text", "text": f"ticks={expected}"}]

            secret = await session.call_tool("secret-admin", {})
            assert isinstance(secret, types.CallToolResult)
            assert dump(secret)["content"] == [{"type": "text", "text": "secret admin ran"}]

            listed = [dump(resource) for resource in (await session.list_resources()).resources]
            assert listed == [
                {
                    "name": "clock-view",
                    "uri": VIEW_URI,
                    "mimeType": APP_MIME,
                    "_meta": {"ui": {"csp": {"connectDomains": ["https://api.example.com"]}}},
                }
            ]

            (content,) = await read_view(session)
            assert content["mimeType"] == APP_MIME
            assert content["_meta"] == {"ui": {"csp": {"connectDomains": ["https://api.example.com"]}}}
            html = content["text"]
            for marker in ('id="time"', 'id="tick"', ">Tick<", 'id="ticks"', 'id="secret"', 'id="fetch"'):
                assert marker in html
            for marker in ('"ui/initialize"', '"ui/notifications/initialized"', "height: 321", '"2026-01-26"'):
                assert marker in html
            assert '"http://127.0.0.1:4321/api/mcp"' in html
            assert "__FETCH_URL__" not in html
            assert "<iframe" not in html

    entries = logged(tmp_path)
    assert entries[0]["method"] == "initialize"
    assert entries[0]["params"]["capabilities"]["extensions"] == UI_EXTENSION
    assert entries[0]["params"]["clientInfo"]["name"]
    calls = [entry["params"]["name"] for entry in entries if entry["method"] == "tools/call"]
    assert calls == ["show-clock", "tick", "tick", "secret-admin"]
    assert [entry["method"] for entry in entries if entry["method"].startswith(("tools/list", "resources/"))] == [
        "tools/list",
        "resources/list",
        "resources/read",
    ]
    assert not any(entry["method"].startswith("notifications/") for entry in entries)


async def test_no_extensions_logged_without_them(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with connect(tmp_path) as session:
            (content,) = await read_view(session)
            assert '"http://127.0.0.1:9/api/mcp"' in content["text"]
    (initialize,) = [entry for entry in logged(tmp_path) if entry["method"] == "initialize"]
    assert "extensions" not in initialize["params"]["capabilities"]


@pytest.mark.parametrize(
    "flag", ["--mime-wrong", "--oversize", "--two-contents", "--block-frames", "--blob"], ids=lambda flag: flag[2:]
)
async def test_variants(tmp_path: Path, flag: str) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with connect(tmp_path, flag) as session:
            contents = await read_view(session)
            listed = [dump(resource) for resource in (await session.list_resources()).resources]
    csp = {"connectDomains": ["https://api.example.com"]}
    if flag == "--two-contents":
        assert len(contents) == 2
        assert all(content["mimeType"] == APP_MIME and "text" in content for content in contents)
        return
    (content,) = contents
    if flag == "--mime-wrong":
        assert content["mimeType"] == "text/html"
        assert listed[0]["mimeType"] == "text/html"
    else:
        assert content["mimeType"] == APP_MIME
    if flag == "--oversize":
        assert len(content["text"].encode("utf-8")) == 2097153
        assert 'id="time"' in content["text"]
    if flag == "--block-frames":
        csp["blockDescendantFrames"] = True  # type: ignore[assignment]
        assert "<iframe" in content["text"]
    if flag == "--blob":
        assert "text" not in content
        html = base64.b64decode(content["blob"], validate=True).decode("utf-8")
        assert 'id="time"' in html and "<iframe" not in html
    else:
        assert "blob" not in content
    assert content["_meta"] == {"ui": {"csp": csp}}
    assert listed[0]["_meta"] == {"ui": {"csp": csp}}
