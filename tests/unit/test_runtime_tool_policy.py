"""Tool policy and the ``before_tool_call`` seam on MCP tools in the client runtime, over real stdio server
processes that record what they receive (tool-policy-and-lifecycle.md §5.2 items 9–12, §5.3 items 13–16,
§5.1 item 7)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.application.tool_boundary import HookRegistry, ToolCallBlocked
from openclaw_mcp.domain.tool_policy import PolicyTool
from openclaw_mcp.entrypoints.runtime_api import RuntimeBoundary, RuntimePolicy, SessionMcpRuntime

pytestmark = pytest.mark.asyncio

SERVERS = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_servers"
CORE = (PolicyTool("read"), PolicyTool("exec"), PolicyTool("web_search"), PolicyTool("echo_tool", "hookplug"))


def recording(log: Path, *tools: str) -> dict[str, Any]:
    return {
        "command": sys.executable,
        "args": [str(SERVERS / "recording_server.py"), *tools],
        "env": {"RECORDING_SERVER_LOG": str(log)},
    }


def servers(tmp_path: Path) -> dict[str, Any]:
    return {
        "docs": recording(tmp_path / "docs.jsonl", "search_docs", "read_docs"),
        "Memory": recording(tmp_path / "memory.jsonl", "status"),
    }


def records(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def calls(path: Path) -> list[dict[str, Any]]:
    return [entry for entry in records(path) if "name" in entry]


async def tool_names(tmp_path: Path, config: dict[str, Any], **kwargs: Any) -> list[str]:
    with anyio.fail_after(30):
        policy = RuntimePolicy(config=config, other_tools=CORE, **kwargs)
        async with SessionMcpRuntime(servers(tmp_path), policy=policy) as runtime:
            return [tool.name for tool in await runtime.tools()]


MCP = ["docs__read_docs", "docs__search_docs", "Memory__status"]

# tool-policy-and-lifecycle.md §2.2 (the MCP tools that survive each policy; core/plugin tools are context)
POLICY_TABLE: list[tuple[str, dict[str, Any], list[str]]] = [
    ("none", {}, MCP),
    ("minimal", {"tools": {"profile": "minimal"}}, []),
    ("minimal + bundle-mcp", {"tools": {"profile": "minimal", "alsoAllow": ["bundle-mcp"]}}, MCP),
    ("coding", {"tools": {"profile": "coding"}}, MCP),
    ("messaging", {"tools": {"profile": "messaging"}}, MCP),
    ("deny docs__*", {"tools": {"deny": ["docs__*"]}}, ["Memory__status"]),
    ("deny case-insensitive", {"tools": {"deny": ["DOCS__Read_Docs"]}}, ["docs__search_docs", "Memory__status"]),
    ("raw names never match", {"tools": {"deny": ["read_docs"]}}, MCP),
    ("deny bundle-mcp", {"tools": {"deny": ["bundle-mcp"]}}, []),
    ("deny group:plugins", {"tools": {"deny": ["group:plugins"]}}, []),
    ("allow one", {"tools": {"allow": ["docs__read_docs"]}}, ["docs__read_docs"]),
    ("alsoAllow only", {"tools": {"alsoAllow": ["memory__*"]}}, MCP),
    (
        "agent deny",
        {"agents": {"entries": {"main": {"tools": {"deny": ["memory__status"]}}}}},
        ["docs__read_docs", "docs__search_docs"],
    ),
    (
        "global allow * agent deny",
        {"tools": {"allow": ["*"]}, "agents": {"entries": {"main": {"tools": {"deny": ["docs__*"]}}}}},
        ["Memory__status"],
    ),
]


@pytest.mark.parametrize(("label", "config", "expected"), POLICY_TABLE, ids=[row[0] for row in POLICY_TABLE])
async def test_the_policy_table_decides_which_mcp_tools_the_agent_sees(
    tmp_path: Path, label: str, config: dict[str, Any], expected: list[str]
) -> None:
    names = await tool_names(tmp_path, config, agent_id="main", session_key="agent:main:main")
    assert sorted(names) == sorted(expected), label


async def test_a_deny_glob_on_the_server_namespace_never_spawns_that_server(tmp_path: Path) -> None:
    names = await tool_names(tmp_path, {"tools": {"deny": ["docs*"]}})
    assert names == ["Memory__status"]
    assert records(tmp_path / "docs.jsonl") == []  # never started
    assert len(records(tmp_path / "memory.jsonl")) == 1


async def test_an_exact_deny_removes_one_tool_but_the_server_is_spawned(tmp_path: Path) -> None:
    names = await tool_names(tmp_path, {"tools": {"deny": ["docs__search_docs"]}})
    assert sorted(names) == ["Memory__status", "docs__read_docs"]
    assert [entry for entry in records(tmp_path / "docs.jsonl") if "start" in entry]


async def test_deny_everything_spawns_no_server(tmp_path: Path) -> None:
    assert await tool_names(tmp_path, {"tools": {"deny": ["*"]}}) == []
    assert records(tmp_path / "docs.jsonl") == [] and records(tmp_path / "memory.jsonl") == []


@pytest.mark.parametrize(
    ("tools_allow", "created"),
    [
        ([], False),
        (["read"], False),
        (["docs__*"], True),
        (["bundle-mcp"], True),
        (["group:plugins"], True),
        (["doc*"], True),
    ],
)
async def test_tools_allow_decides_whether_a_runtime_exists(
    tmp_path: Path, tools_allow: list[str], created: bool
) -> None:
    await tool_names(tmp_path, {}, tools_allow=tools_allow)
    spawned = bool(records(tmp_path / "docs.jsonl") or records(tmp_path / "memory.jsonl"))
    assert spawned is created


async def test_a_sandboxed_session_sees_mcp_tools_only_when_its_sandbox_policy_allows_them(tmp_path: Path) -> None:
    sandbox = {"agents": {"defaults": {"sandbox": {"mode": "all"}}}}
    assert await tool_names(tmp_path, sandbox, sandboxed=True) == []
    allowed = {**sandbox, "tools": {"sandbox": {"tools": {"alsoAllow": ["bundle-mcp"]}}}}
    assert sorted(await tool_names(tmp_path, allowed, sandboxed=True)) == sorted(MCP)


# --- the hook seam (§5.3) -------------------------------------------------------------------------------


async def run_call(
    tmp_path: Path, hooks: HookRegistry, tool: str, arguments: dict[str, Any], **kwargs: Any
) -> tuple[Any, SessionMcpRuntime]:
    with anyio.fail_after(30):
        async with SessionMcpRuntime(
            servers(tmp_path),
            policy=RuntimePolicy(agent_id="main", session_key="agent:main:main", **kwargs),
            boundary=RuntimeBoundary(hooks=hooks),
        ) as runtime:
            tools = {t.name: t for t in await runtime.tools()}
            try:
                return await tools[tool].execute(arguments, tool_call_id="call-1"), runtime
            except ToolCallBlocked as exc:
                return exc, runtime


async def test_a_blocking_hook_returns_the_blocked_result_and_sends_no_request(tmp_path: Path) -> None:
    hooks = HookRegistry()
    hooks.on("before_tool_call", lambda event, ctx: {"block": True, "blockReason": "nope"}, plugin_id="guard")
    result, _ = await run_call(tmp_path, hooks, "docs__search_docs", {"q": "a"})
    assert result.content == ({"type": "text", "text": "nope"},)
    assert result.details["status"] == "blocked" and result.details["reason"] == "nope"
    assert calls(tmp_path / "docs.jsonl") == []


async def test_hook_params_are_what_the_server_receives(tmp_path: Path) -> None:
    hooks = HookRegistry()
    hooks.on("before_tool_call", lambda event, ctx: {"params": {"q": "x"}}, plugin_id="rewrite")
    await run_call(tmp_path, hooks, "docs__search_docs", {"q": "a", "n": 1})
    assert [c["arguments"] for c in calls(tmp_path / "docs.jsonl")] == [{"q": "x", "n": 1}]


async def test_a_matcher_names_mcp_tools_by_their_policy_name(tmp_path: Path) -> None:
    seen: list[tuple[dict[str, Any], dict[str, Any]]] = []

    def handler(event: dict[str, Any], ctx: dict[str, Any]) -> None:
        seen.append((event, ctx))

    hooks = HookRegistry()
    hooks.on("before_tool_call", handler, plugin_id="watch", matcher=["memory__status"])
    await run_call(tmp_path, hooks, "Memory__status", {"a": 1}, run_id="run-9")
    await run_call(tmp_path, hooks, "docs__read_docs", {})
    assert len(seen) == 1
    event, ctx = seen[0]
    assert event["toolName"] == "memory__status" and event["params"] == {"a": 1}
    assert event["toolCallId"] == "call-1" and event["runId"] == "run-9"
    assert ctx["agentId"] == "main" and ctx["sessionKey"] == "agent:main:main" and ctx["runId"] == "run-9"


async def test_a_failing_hook_fails_the_call_without_a_request(tmp_path: Path) -> None:
    def explode(event: dict[str, Any], ctx: dict[str, Any]) -> None:
        raise RuntimeError("hook exploded")

    hooks = HookRegistry()
    hooks.on("before_tool_call", explode, plugin_id="broken")
    result, _ = await run_call(tmp_path, hooks, "docs__search_docs", {"q": "a"})
    assert isinstance(result, ToolCallBlocked)
    assert str(result) == "Tool call blocked because before_tool_call hook failed"
    assert calls(tmp_path / "docs.jsonl") == []


async def test_approval_without_an_approval_route_is_denied(tmp_path: Path) -> None:
    hooks = HookRegistry()
    hooks.on("before_tool_call", lambda e, c: {"requireApproval": {"title": "T", "description": "D"}}, plugin_id="a")
    result, _ = await run_call(tmp_path, hooks, "docs__search_docs", {"q": "a"})
    assert result.content == ({"type": "text", "text": "approval_required"},)
    assert result.details["status"] == "blocked"
    assert calls(tmp_path / "docs.jsonl") == []


async def test_a_vetoed_call_does_not_count_as_use_and_an_executed_one_does(tmp_path: Path) -> None:
    hooks = HookRegistry()
    hooks.on("before_tool_call", lambda e, c: {"block": True} if e["params"].get("stop") else None, plugin_id="g")
    with anyio.fail_after(30):
        async with SessionMcpRuntime(servers(tmp_path), boundary=RuntimeBoundary(hooks=hooks)) as runtime:
            tools = {t.name: t for t in await runtime.tools()}
            before = runtime.session.last_used_at
            await anyio.sleep(0.01)
            await tools["docs__read_docs"].execute({"stop": True})
            assert runtime.session.last_used_at == before
            await tools["docs__read_docs"].execute({})
            assert runtime.session.last_used_at > before
