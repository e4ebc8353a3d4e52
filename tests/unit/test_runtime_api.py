"""The library API end to end over real stdio MCP server processes (tests/fixtures/mcp_servers)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.entrypoints.runtime_api import RuntimeHost, SessionMcpRuntime

pytestmark = pytest.mark.asyncio

SERVERS = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_servers"


def stdio(script: str, *args: str, **extra: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(SERVERS / script), *args], **extra}


async def test_tricky_names_from_two_servers_become_safe_unique_prefixed_names() -> None:
    servers = {"Tricky": stdio("tricky_names_server.py"), "tricky": stdio("tricky_names_server.py")}
    warnings: list[str] = []
    with anyio.fail_after(30):
        async with SessionMcpRuntime(servers, host=RuntimeHost(warn=warnings.append)) as runtime:
            names = [tool.name for tool in await runtime.tools()]
    assert len(names) == len(set(n.lower() for n in names))  # unique, case-insensitively
    assert all(len(n) <= 64 and n.replace("_", "").replace("-", "").isalnum() and n.isascii() for n in names)
    assert {n.split("__", 1)[0] for n in names} == {"Tricky", "tricky-2"}
    assert "Tricky__read-file" in names and "tricky-2__list-files" in names


async def test_a_tool_call_returns_downgraded_content() -> None:
    with anyio.fail_after(30):
        async with SessionMcpRuntime({"env": stdio("env_server.py")}) as runtime:
            tools = {tool.name: tool for tool in await runtime.tools()}
            result = await tools["env__cwd"].execute({})
    assert result.content[0]["type"] == "text"
    assert result.details["mcpServer"] == "env" and result.details["mcpTool"] == "cwd"


async def test_blocked_env_keys_never_reach_the_child_and_credentials_do() -> None:
    env = {"NODE_OPTIONS": "--inspect", "LD_PRELOAD": "/x.so", "GITHUB_TOKEN": "ghp_x", "PORT": 3000}
    host = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp", "SECRET_HOST_VAR": "leak", "LANG": "C"}
    warnings: list[str] = []
    with anyio.fail_after(30):
        async with SessionMcpRuntime(
            {"e": stdio("env_server.py", env=env)}, host=RuntimeHost(environ=host, warn=warnings.append)
        ) as rt:
            tools = {tool.name: tool for tool in await rt.tools()}
            result = await tools["e__env"].execute({})
    child = json.loads(result.content[0]["text"])
    assert child["GITHUB_TOKEN"] == "ghp_x" and child["PORT"] == "3000"
    for absent in ("NODE_OPTIONS", "LD_PRELOAD", "SECRET_HOST_VAR", "LANG"):
        assert absent not in child
    assert any('env "NODE_OPTIONS" is blocked' in w for w in warnings)


async def test_resources_and_prompts_become_utility_tools() -> None:
    with anyio.fail_after(30):
        async with SessionMcpRuntime({"kb": stdio("resources_prompts_server.py")}) as runtime:
            tools = {tool.name: tool for tool in await runtime.tools()}
            listed = await tools["kb__resources_list"].execute({})
            prompts = await tools["kb__prompts_list"].execute({})
    assert set(tools) == {"kb__resources_list", "kb__resources_read", "kb__prompts_list", "kb__prompts_get"}
    assert '"resources"' in listed.content[0]["text"]
    assert '"prompts"' in prompts.content[0]["text"]


async def test_list_changed_invalidates_the_catalog_over_the_same_connection() -> None:
    with anyio.fail_after(30):
        async with SessionMcpRuntime({"lc": stdio("list_changed_server.py")}) as runtime:
            before = {tool.name: tool for tool in await runtime.tools()}
            await before["lc__grow"].execute({})
            for _ in range(100):
                after = [tool.name for tool in await runtime.tools()]
                if len(after) > len(before):
                    break
                await anyio.sleep(0.05)
    assert len(after) == len(before) + 1


async def test_a_crashing_and_a_hanging_server_become_diagnostics_beside_a_healthy_one() -> None:
    servers = {
        "good": stdio("env_server.py"),
        "crash": stdio("crash_server.py"),
        "mute": stdio("mute_server.py", connectionTimeoutMs=700),
    }
    warnings: list[str] = []
    with anyio.fail_after(30):
        async with SessionMcpRuntime(servers, host=RuntimeHost(warn=warnings.append)) as runtime:
            catalog = await runtime.session.get_catalog()
    assert list(catalog.servers) == ["good"]
    messages = {d.server_name: d.message for d in catalog.diagnostics or ()}
    assert messages["crash"].startswith("MCP error -32000: Connection closed")
    assert messages["mute"].startswith(
        'MCP server "mute" timed out: did not complete initialize within 0.7s'
        " | MCP server connection timed out after 700ms"
    )
    assert sum("failed to start server" in w for w in warnings) == 2


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie waiting for its reaper counts as gone
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


async def test_no_process_of_a_grandchild_forking_server_survives_dispose() -> None:
    with anyio.fail_after(30):
        async with SessionMcpRuntime({"fork": stdio("forking_server.py")}) as runtime:
            tools = {tool.name: tool for tool in await runtime.tools()}
            result = await tools["fork__pids"].execute({})
            pids = json.loads(result.content[0]["text"])
            assert all(_alive(pid) for pid in pids)
    assert len(pids) >= 3
    assert [pid for pid in pids if _alive(pid)] == []


async def test_the_connectors_come_from_the_container_and_can_be_overridden() -> None:
    from mcp.server.mcpserver import MCPServer

    from openclaw_mcp.adapters.memory.mcp_connector import InMemoryMcpConnector
    from openclaw_mcp.entrypoints.runtime_api import RuntimeHost, runtime_container

    app = MCPServer("adder")

    @app.tool()
    def add(a: int, b: int) -> int:
        return a + b

    container = runtime_container({"PATH": os.environ.get("PATH", "")})
    container.stdio_connector.override(InMemoryMcpConnector({"adder": app}))
    with anyio.fail_after(30):
        async with SessionMcpRuntime(
            {"adder": {"command": "in-memory"}}, host=RuntimeHost(container=container)
        ) as runtime:
            tools = {tool.name: tool for tool in await runtime.tools()}
            result = await tools["adder__add"].execute({"a": 2, "b": 3})
    assert result.details["mcpServer"] == "adder" and '"result": 5' in result.content[0]["text"]
