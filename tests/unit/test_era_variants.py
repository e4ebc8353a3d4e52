"""Our MCP client against 2026-07-28-only servers that differ from the SDK fixtures (spec protocol-eras §3; the
issue's "hidden set of era servers"): ``tests/fixtures/mcp_servers/era_http_hand.py`` (stdlib streamable HTTP) and
``era_stdio_hand2.py`` (stdlib stdio), with knobs for the ``initialize`` refusal (every T1–T3 form, 404/200/400),
JSON or SSE-framed answers, paginated lists, absent/negative ``ttlMs``, absent ``resultType``/``_meta``, error
bodies with ``id: null``, advertised resources/prompts, and strict routing headers (``MCP-Protocol-Version``,
``Mcp-Method``, ``Mcp-Name`` checked on every POST).

Each case runs ``openclaw mcp probe --json`` and ``SessionMcpRuntime`` (``tools()``, then every kind of call) and
compares shapes with a legacy run against ``era_servers.py stdio-dual``: the probe document's keys and server entry
keys, and the call results' ``details`` keys (plain, structured, ``isError``)."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.domain.content import AgentToolResult
from openclaw_mcp.entrypoints.runtime_api import SessionMcpRuntime
from tests.fixtures import era_wire as w

HTTP_HAND = w.FIXTURES / "mcp_servers" / "era_http_hand.py"
STDIO_HAND2 = w.FIXTURES / "mcp_servers" / "era_stdio_hand2.py"
ERA_KNOBS = ("ERA_REFUSAL", "ERA_FRAMING", "ERA_PAGES", "ERA_TTL_MS", "ERA_NO_META", "ERA_NO_RESULT_TYPE")
ERA_KNOBS += ("ERA_CAPS", "ERA_ERROR_ID_NULL", "ERA_WIRE_LOG", "ERA_STDIO_LOG", "ERA_LIST_CHANGED")
UTILITY_TOOLS = {
    "resources": ("resources_list", "resources_read"),
    "prompts": ("prompts_get", "prompts_list"),
}


@dataclass(frozen=True)
class Case:
    id: str
    env: dict[str, str]

    @property
    def caps(self) -> set[str]:
        return {cap for cap in self.env.get("ERA_CAPS", "").split(",") if cap}

    @property
    def pages(self) -> int:
        return int(self.env.get("ERA_PAGES", "1"))


HTTP_CASES = [
    Case("404-32601-json", {}),
    Case("200-32601-json", {"ERA_REFUSAL": "200"}),
    Case("400-32020", {"ERA_REFUSAL": "400-32020"}),
    Case("400-32021", {"ERA_REFUSAL": "400-32021"}),
    Case("400-32602-meta", {"ERA_REFUSAL": "400-32602"}),
    Case("400-32022-supported", {"ERA_REFUSAL": "400-32022"}),
    Case("sse-paged-caps", {"ERA_FRAMING": "sse", "ERA_PAGES": "2", "ERA_CAPS": "resources,prompts"}),
    Case("sse-bare", {"ERA_FRAMING": "sse-bare", "ERA_TTL_MS": "60000"}),
    Case("sse-notify-200-refusal", {"ERA_FRAMING": "sse-notify", "ERA_REFUSAL": "200", "ERA_CAPS": "prompts"}),
    Case("json-paged-ttl-caps", {"ERA_PAGES": "2", "ERA_TTL_MS": "60000", "ERA_CAPS": "resources,prompts"}),
    Case(
        "ttl-negative-list-changed-refused", {"ERA_TTL_MS": "-5", "ERA_CAPS": "resources", "ERA_LIST_CHANGED": "refuse"}
    ),
    Case("sse-crlf-multiline", {"ERA_FRAMING": "sse-crlf", "ERA_CAPS": "resources"}),
    Case("list-changed-stream", {"ERA_LIST_CHANGED": "stream", "ERA_FRAMING": "sse"}),
    Case(
        "bare-results-id-null",
        {"ERA_REFUSAL": "400-32602", "ERA_NO_META": "1", "ERA_NO_RESULT_TYPE": "1", "ERA_ERROR_ID_NULL": "1"},
    ),
]
STDIO_CASES = [
    Case("stdio-32601-paged-caps", {"ERA_PAGES": "2", "ERA_CAPS": "resources,prompts", "ERA_STDIO_LOG": "1"}),
    Case("stdio-32602-meta", {"ERA_REFUSAL": "400-32602", "ERA_TTL_MS": "-5"}),
    Case("stdio-32020", {"ERA_REFUSAL": "400-32020", "ERA_NO_META": "1", "ERA_NO_RESULT_TYPE": "1"}),
    Case("stdio-32022", {"ERA_REFUSAL": "400-32022", "ERA_CAPS": "prompts", "ERA_LIST_CHANGED": "refuse"}),
]


# ---------------------------------------------------------------- servers


def _clean_env(extra: Mapping[str, str]) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ERA_KNOBS}
    return {**env, **extra}


@contextmanager
def http_hand(env: Mapping[str, str], wire_log: Path, timeout_s: float = 30) -> Iterator[str]:
    """``era_http_hand.py 0`` with ``env``; yields its URL; stopped by its handle."""
    process = subprocess.Popen(
        [w.PYTHON, str(HTTP_HAND), "0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=_clean_env({**env, "ERA_WIRE_LOG": str(wire_log)}),
    )
    assert process.stdout is not None
    try:
        deadline = time.monotonic() + timeout_s
        buffer = b""
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout.fileno(), selectors.EVENT_READ)
            while b"\n" not in buffer:
                if not selector.select(max(0.0, deadline - time.monotonic())):
                    raise TimeoutError("era_http_hand.py: no PORT line")
                chunk = os.read(process.stdout.fileno(), 4096)
                if not chunk:
                    raise RuntimeError("era_http_hand.py exited before printing PORT=")
                buffer += chunk
        first = buffer.split(b"\n", 1)[0].decode()
        assert first.startswith("PORT="), first
        yield f"http://127.0.0.1:{int(first.removeprefix('PORT='))}/mcp"
    finally:
        w.stop_http_server(process)


def _stdio_entry(home: Path, case: Case) -> dict[str, Any]:
    entry = w.tapped(home, [w.PYTHON, str(STDIO_HAND2)])
    entry["env"] = dict(case.env)
    return entry


# ---------------------------------------------------------------- the legacy reference


@dataclass(frozen=True)
class Legacy:
    document: dict[str, Any]
    plain: AgentToolResult
    structured: AgentToolResult
    error: AgentToolResult


async def _legacy_calls() -> tuple[AgentToolResult, AgentToolResult, AgentToolResult]:
    config = {"dual": {"command": w.PYTHON, "args": [str(w.ERA_SERVERS), "stdio-dual"]}}
    with anyio.fail_after(60):
        async with SessionMcpRuntime(config, session_id="legacy") as runtime:
            tools = {tool.name: tool for tool in await runtime.tools()}
            structured = await tools["dual__echo"].execute({"text": "hi"})
            error = await tools["dual__echo"].execute({})  # the SDK's validation failure: an isError result
            plain = await tools["dual__prompts_list"].execute({})
    return plain, structured, error


@pytest.fixture(scope="module")
def legacy(tmp_path_factory: pytest.TempPathFactory) -> Legacy:
    home = w.make_home(tmp_path_factory.mktemp("legacy"))
    result = w.probe(home, {"dual": {"command": w.PYTHON, "args": [str(w.ERA_SERVERS), "stdio-dual"]}})
    assert result.exit == 0, result.stderr
    plain, structured, error = anyio.run(_legacy_calls)
    assert error.details.get("status") == "error" and "structuredContent" in structured.details
    return Legacy(json.loads(result.stdout), plain, structured, error)


# ---------------------------------------------------------------- checks


def _expected_tools(server: str, case: Case) -> list[str]:
    names = ["echo", "fail", "weather"]
    for cap in case.caps:
        names += UTILITY_TOOLS[cap]
    return sorted(f"{server}__{name}" for name in names)


def _check_probe(document: dict[str, Any], server: str, case: Case, legacy: Legacy) -> None:
    assert document["diagnostics"] == [], document["diagnostics"]
    assert document["tools"] == _expected_tools(server, case)
    assert set(document) == set(legacy.document)
    entry = document["servers"][server]
    # the legacy server advertises both; the keys are there exactly when advertised (both eras: domain/probe.py)
    # and "listChanged" exactly when a list-changed capability is advertised (neither era's rule depends on the era)
    expected = set(legacy.document["servers"]["dual"]) - ({"resources", "prompts"} - case.caps)
    if "ERA_LIST_CHANGED" in case.env:
        expected.add("listChanged")
        assert entry["listChanged"] == {"tools": True, "resources": False, "prompts": False}
    assert set(entry) == expected
    assert entry["tools"] == 3
    assert all(entry[cap] is True for cap in case.caps)


async def _check_runtime(config: dict[str, Any], server: str, case: Case, legacy: Legacy) -> None:
    with anyio.fail_after(60):
        async with SessionMcpRuntime(config, session_id="era-variant") as runtime:
            tools = {tool.name: tool for tool in await runtime.tools()}
            assert sorted(tools) == _expected_tools(server, case)
            echo = await tools[f"{server}__echo"].execute({"text": "hi"})
            fail = await tools[f"{server}__fail"].execute({"text": "no"})
            weather = await tools[f"{server}__weather"].execute({"city": "Oslo"})
            extra: dict[str, AgentToolResult] = {}
            if "resources" in case.caps:
                extra["resources_list"] = await tools[f"{server}__resources_list"].execute({})
                extra["resources_read"] = await tools[f"{server}__resources_read"].execute({"uri": "memo://notes"})
            if "prompts" in case.caps:
                extra["prompts_list"] = await tools[f"{server}__prompts_list"].execute({})
                extra["prompts_get"] = await tools[f"{server}__prompts_get"].execute(
                    {"name": "greet", "arguments": {"who": "Ada"}}
                )
    assert echo.content == ({"type": "text", "text": "echo:hi"},)
    assert echo.details == {"mcpServer": server, "mcpTool": "echo"}
    # isError: projected exactly like a legacy server's tool error
    assert fail.content == ({"type": "text", "text": "failed:no"},)
    assert fail.details == {"mcpServer": server, "mcpTool": "fail", "status": "error"}
    assert set(fail.details) == set(legacy.error.details)
    assert fail.guest_value == {"content": [{"type": "text", "text": "failed:no"}], "isError": True}
    # outputSchema + structuredContent: the legacy projection
    assert weather.details["structuredContent"] == {"city": "Oslo", "tempC": 21}
    assert set(weather.details) == set(legacy.structured.details)
    assert weather.content[0]["text"].startswith("structuredContent:\n")
    for operation, result in extra.items():
        assert result.details.get("mcpServer") == server, (operation, result)
        assert "status" not in result.details, (operation, result)
    if "resources" in case.caps:
        assert "Some notes." in extra["resources_read"].content[0]["text"]
        assert "memo://readme" in extra["resources_list"].content[0]["text"]
    if "prompts" in case.caps:
        assert set(extra["prompts_list"].details) == set(legacy.plain.details) | {"mcpServer"}
        assert any("hello Ada" in block.get("text", "") for block in extra["prompts_get"].content)


def _check_http_wire(log: Path, case: Case, *, probe_only: bool) -> None:
    exchanges = w.exchanges(log.read_text(encoding="utf-8"))
    assert all(exchange.method == "POST" for exchange in exchanges), "no GET, no DELETE"
    assert exchanges[0].rpc_method == "initialize" and exchanges[1].rpc_method == "server/discover"
    assert "mcp-protocol-version" not in exchanges[0].request_headers
    for exchange in exchanges[1:]:
        refused_listen = exchange.rpc_method == "subscriptions/listen" and case.env.get("ERA_LIST_CHANGED") == "refuse"
        assert exchange.status == (404 if refused_listen else 200), exchange.text  # every routing header accepted
        assert exchange.request_headers["mcp-protocol-version"] == w.MODERN_VERSION
        assert "mcp-session-id" not in exchange.request_headers
    methods = [exchange.rpc_method for exchange in exchanges]
    if probe_only:
        assert methods.count("tools/list") == case.pages
        assert methods.count("initialize") == 1 and methods.count("server/discover") == 1


# ---------------------------------------------------------------- tests


@pytest.mark.parametrize("case", HTTP_CASES, ids=[case.id for case in HTTP_CASES])
def test_http_variant(tmp_path: Path, case: Case, legacy: Legacy) -> None:
    home = w.make_home(tmp_path / "home")
    with http_hand(case.env, tmp_path / "probe.log") as url:
        result = w.probe(home, {"hh": {"url": url, "transport": "streamable-http"}})
        assert result.exit == 0, (result.stdout, result.stderr)
        _check_probe(json.loads(result.stdout), "hh", case, legacy)
    _check_http_wire(tmp_path / "probe.log", case, probe_only=True)
    with http_hand(case.env, tmp_path / "runtime.log") as url:
        anyio.run(_check_runtime, {"hh": {"url": url, "transport": "streamable-http"}}, "hh", case, legacy)
    _check_http_wire(tmp_path / "runtime.log", case, probe_only=False)
    runtime = w.exchanges((tmp_path / "runtime.log").read_text(encoding="utf-8"))
    calls = [exchange for exchange in runtime if exchange.rpc_method == "tools/call"]
    assert sorted(call.request_headers["mcp-name"] for call in calls) == ["echo", "fail", "weather"]
    listens = [exchange for exchange in runtime if exchange.rpc_method == "subscriptions/listen"]
    assert len(listens) == (1 if "ERA_LIST_CHANGED" in case.env else 0)


def test_doctor_probe_of_a_2026_http_server(tmp_path: Path) -> None:
    home = w.make_home(tmp_path / "home")
    env = {"ERA_REFUSAL": "400-32020", "ERA_FRAMING": "sse", "ERA_PAGES": "2", "ERA_CAPS": "resources,prompts"}
    with http_hand(env, tmp_path / "doctor.log") as url:
        result = w.doctor_probe(home, {"hh": {"url": url, "transport": "streamable-http"}})
    assert result.exit == 0, (result.stdout, result.stderr)
    assert "- hh: ok" in result.stdout.splitlines(), result.stdout


@pytest.mark.parametrize("case", STDIO_CASES, ids=[case.id for case in STDIO_CASES])
def test_stdio_variant(tmp_path: Path, case: Case, legacy: Legacy) -> None:
    home = w.make_home(tmp_path / "home")
    result = w.probe(home, {"sh": _stdio_entry(home, case)})
    assert result.exit == 0, (result.stdout, result.stderr)
    _check_probe(json.loads(result.stdout), "sh", case, legacy)
    sent = [json.loads(line[3:]) for line in (home / "wire.log").read_text().splitlines() if line.startswith("C> ")]
    assert [message.get("method") for message in sent].count("tools/list") == case.pages
    anyio.run(_check_runtime, {"sh": _stdio_entry(w.make_home(tmp_path / "rt"), case)}, "sh", case, legacy)
