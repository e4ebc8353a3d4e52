"""Our MCP client against 2026-07-28 streamable-HTTP servers (spec protocol-eras §3, acceptance tests §5.1 A3, A4
(HTTP), A5 (HTTP), A9 (HTTP), A10 (HTTP), A14): the fallback after the 400 envelope refusal, the per-request headers,
no session (no GET, no DELETE), POST status handling, cancellation by aborting the POST and ``x-mcp-header``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest

from openclaw_mcp.adapters.http._client import _status_rpc_error
from openclaw_mcp.adapters.http._errors import PostRpcError
from openclaw_mcp.adapters.http.connector import _HttpConnection
from openclaw_mcp.application.ports.mcp import ConnectionWarning, McpError, McpEvent, McpRequestError
from openclaw_mcp.domain.transport import HttpConfig
from openclaw_mcp.entrypoints.runtime_api import SessionMcpRuntime
from tests.fixtures import era_wire as w

E = w.ENVELOPE


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[dict[str, w.HttpServer]]:
    started: dict[str, w.HttpServer] = {}
    try:
        for mode in ("http-modern", "http-dual", "http-legacy"):
            started[mode] = w.start_http_server(mode, wire_log=tmp_path / f"{mode}.log")
        yield started
    finally:
        for server in started.values():
            w.stop_http_server(server)


def _entry(server: w.HttpServer, **extra: Any) -> dict[str, Any]:
    return {"url": server.url, "transport": "streamable-http", **extra}


def _log(tmp_path: Path, mode: str) -> list[w.Exchange]:
    return w.exchanges((tmp_path / f"{mode}.log").read_text(encoding="utf-8"))


def test_a3_a5_a9_probe_over_http(tmp_path: Path, servers: dict[str, w.HttpServer]) -> None:
    home = w.make_home(tmp_path / "home")
    config = {mode: _entry(server) for mode, server in servers.items()}
    result = w.probe(home, config, "--json", "--timings")
    assert result.exit == 0, result.stderr
    document = json.loads(result.stdout)
    for mode in servers:
        assert f"{mode}__echo" in document["tools"]
    assert document["servers"]["http-modern"]["protocolVersion"] == "2026-07-28"
    assert document["servers"]["http-dual"]["protocolVersion"] == "2025-11-25"
    assert document["servers"]["http-legacy"]["protocolVersion"] == "2025-11-25"

    modern = _log(tmp_path, "http-modern")
    assert all(exchange.method == "POST" for exchange in modern)  # no GET, no DELETE
    initialize, discover, listing = modern[:3]
    assert initialize.rpc_method == "initialize" and "mcp-protocol-version" not in initialize.request_headers
    assert initialize.status == 400 and json.loads(initialize.response_body)["error"]["code"] == -32602
    assert discover.rpc_method == "server/discover" and discover.status == 200
    assert discover.request_headers["mcp-protocol-version"] == "2026-07-28"
    assert discover.request_headers["mcp-method"] == "server/discover"
    assert discover.json_body()["params"] == {"_meta": E}
    assert listing.rpc_method == "tools/list" and listing.request_headers["mcp-method"] == "tools/list"
    assert all("mcp-session-id" not in exchange.request_headers for exchange in modern)

    for mode in ("http-dual", "http-legacy"):
        log = (tmp_path / f"{mode}.log").read_text(encoding="utf-8")
        assert log.count("server/discover") == 0, mode
        # the whole log against the 549a118 golden: tests/unit/test_era_legacy_goldens.py


@pytest.mark.asyncio
async def test_a4_a10_calls_carry_the_name_header_and_a_timeout_aborts_the_post(
    tmp_path: Path, servers: dict[str, w.HttpServer]
) -> None:
    server = _entry(servers["http-modern"], requestTimeoutMs=500)
    with anyio.fail_after(60):
        async with SessionMcpRuntime({"http-modern": server}, session_id="era-1") as runtime:
            tools = {tool.name: tool for tool in await runtime.tools()}
            result = await tools["http-modern__echo"].execute({"text": "hi"})
            with pytest.raises(McpError, match=r"^MCP error -32001: Request timed out$"):
                await tools["http-modern__slow"].execute({"ms": 5000})
    assert '"echo:hi"' in result.content[0]["text"]  # the structured content, projected as for a legacy server
    log = _log(tmp_path, "http-modern")
    calls = [exchange for exchange in log if exchange.rpc_method == "tools/call"]
    assert calls[0].request_headers["mcp-name"] == "echo"
    assert calls[0].json_body()["params"] == {"name": "echo", "arguments": {"text": "hi"}, "_meta": E}
    assert not any(exchange.rpc_method == "notifications/cancelled" for exchange in log)
    assert all(exchange.method == "POST" for exchange in log)


# ---------------------------------------------------------------- units: POST status handling, x-mcp-header (A14)


def _post(method: str, version: str | None = None) -> httpx2.Request:
    headers = {"mcp-protocol-version": version} if version is not None else {}
    return httpx2.Request("POST", "http://127.0.0.1:1/mcp", headers=headers, json={"method": method})


def _body(code: int, message: str, data: Any = None) -> str:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return json.dumps({"jsonrpc": "2.0", "id": 0, "error": error})


def test_only_an_identifying_initialize_refusal_passes_as_a_json_rpc_error() -> None:
    meta = "params._meta must be an object carrying the required envelope keys"
    refusal = _status_rpc_error(_post("initialize"), "initialize", 400, "application/json", _body(-32602, meta))
    assert isinstance(refusal, PostRpcError) and (refusal.code, refusal.http_status) == (-32602, 400)
    # D-PE2: other statuses, other errors, other content types and later legacy requests keep today's text
    assert _status_rpc_error(_post("initialize"), "initialize", 404, "application/json", _body(-32602, meta)) is None
    assert _status_rpc_error(_post("initialize"), "initialize", 400, "application/json", _body(-32000, "x")) is None
    assert _status_rpc_error(_post("initialize"), "initialize", 400, "text/plain", _body(-32601, "x")) is None
    assert (
        _status_rpc_error(_post("tools/list", "2025-11-25"), "tools/list", 400, "application/json", _body(-32601, "x"))
        is None
    )
    # a 2026 request: any JSON-RPC error body is that request's answer
    modern = _status_rpc_error(
        _post("tools/call", "2026-07-28"), "tools/call", 400, "application/json", _body(-32602, "bad")
    )
    assert isinstance(modern, McpRequestError) and str(modern) == "MCP error -32602: bad"


def _connection(events: list[McpEvent]) -> _HttpConnection:
    config = HttpConfig(
        transport_type="streamable-http",
        url="http://127.0.0.1:1/mcp",
        headers=None,
        auth=None,
        oauth=None,
        ssl_verify=None,
        client_cert=None,
        client_key=None,
        description="http://127.0.0.1:1/mcp",
        connection_timeout_ms=1000,
        request_timeout_ms=1000,
        supports_parallel_tool_calls=False,
    )
    return _HttpConnection("srv", config, on_event=events.append, log=lambda line: None)


class _Dispatcher:
    def __init__(self, result: dict[str, Any]) -> None:
        self.result = result

    async def send_raw_request(self, method: str, params: Any, opts: Any) -> dict[str, Any]:
        return json.loads(json.dumps(self.result))


PAGE = {
    "tools": [
        {
            "name": "ok",
            "inputSchema": {"type": "object", "properties": {"r": {"type": "string", "x-mcp-header": "Region"}}},
        },
        {
            "name": "bad",
            "inputSchema": {"type": "object", "properties": {"x": {"type": "number", "x-mcp-header": "X"}}},
        },
    ]
}


@pytest.mark.asyncio
@pytest.mark.parametrize("era", ["2026-07-28", "legacy"])
async def test_a14_tools_with_an_invalid_x_mcp_header_are_dropped_on_2026_http_only(era: str) -> None:
    events: list[McpEvent] = []
    connection = _connection(events)
    if era != "legacy":
        connection._envelope = dict(E)
        connection._protocol_version = era
    page = await connection._exchange(_Dispatcher(PAGE), "tools/list", None, {"request_id": 1})  # type: ignore[arg-type]
    names = [tool["name"] for tool in page["tools"]]
    if era == "legacy":
        assert names == ["ok", "bad"] and events == []
        return
    assert names == ["ok"]
    [warning] = events
    assert isinstance(warning, ConnectionWarning)
    assert warning.text.startswith('server "srv" tool "bad" dropped: invalid x-mcp-header (')
    opts: dict[str, Any] = {}
    params = connection._stamp("tools/call", {"name": "ok", "arguments": {"r": "eu west"}}, opts)  # type: ignore[arg-type]
    assert params is not None and params["_meta"] == E
    headers = opts["headers"]
    assert headers["mcp-method"] == "tools/call" and headers["mcp-name"] == "ok"
    assert headers["Mcp-Param-Region"] == "eu west"
