"""The ``openclaw-plugin-tools`` process end to end (spec plugin-tools.md §11 acceptance tests 1–15).

Each test spawns the real console script with isolated HOME / state dir / config file and the fixture
plugin ``hookplug`` on ``PYTHONPATH`` (:data:`tests.fixtures.plugins.SITE`, found through its
``openclaw_mcp.plugins`` entry point), and talks newline-delimited JSON-RPC to it over stdio. What the
plugin's factory, tools and hooks saw is read back from ``$HOOKPLUG_LOG``.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.docker.gateway_harness import McpClient, isolated_env, open_mcp_client
from tests.fixtures.plugins import BROKEN, SITE

pytestmark = pytest.mark.asyncio

COMMAND = [str(Path(sys.executable).parent / "openclaw-plugin-tools")]
TIMEOUT_S = 30
TOOLS = ["echo_tool", "fail_tool", "img_tool", "noschema_tool", "raw_tool"]
SESSION_ERROR = (
    "plugin-tools-serve: OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY must be a canonical agent session key or have a "
    "matching explicit OpenClaw owner"
)
_CALL_ID = re.compile(r"^mcp-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
_ENABLED = {"plugins": {"entries": {"hookplug": {"enabled": True}}}}


class Server:
    """One spawned server: its client and what its plugin logged."""

    def __init__(self, client: McpClient, log: Path) -> None:
        self.client = client
        self._log = log

    def entries(self) -> list[dict[str, Any]]:
        if not self._log.is_file():
            return []
        return [json.loads(line) for line in self._log.read_text(encoding="utf-8").splitlines() if line.strip()]

    def executions(self, tool: str = "echo_tool") -> list[dict[str, Any]]:
        return [entry for entry in self.entries() if entry.get("exec") == tool]

    def hook_calls(self) -> list[dict[str, Any]]:
        return [entry for entry in self.entries() if entry.get("hook") == "before_tool_call"]

    async def call(self, name: str, arguments: Any = None) -> dict[str, Any]:
        return await self.client.call(name, arguments)

    async def names(self) -> list[str]:
        listed = await self.client.result("tools/list", {})
        return [tool["name"] for tool in listed["tools"]]


@asynccontextmanager
async def serving(
    tmp_path: Path,
    config: dict[str, Any] | None = None,
    *,
    args: tuple[str, ...] = (),
    mode: str | None = None,
    env: dict[str, str] | None = None,
    sites: tuple[Path, ...] = (SITE,),
    initialize: bool = True,
) -> AsyncIterator[Server]:
    state = tmp_path / "state"
    state.mkdir(parents=True, exist_ok=True)
    (state / "openclaw.json").write_text(json.dumps(_ENABLED if config is None else config), encoding="utf-8")
    log = state / "hookplug-log.jsonl"
    extra = {
        "HOOKPLUG_LOG": str(log),
        "PYTHONPATH": os.pathsep.join([*map(str, sites), os.environ.get("PYTHONPATH", "")]),
    }
    if mode is not None:
        extra["HOOKPLUG_MODE"] = mode
    async with open_mcp_client([*COMMAND, *args], isolated_env(state, extra=extra | (env or {})), cwd=state) as client:
        if initialize:
            await client.initialize()
        yield Server(client, log)


def _text(result: dict[str, Any]) -> str:
    assert len(result["content"]) == 1, result
    text = result["content"][0]["text"]
    assert isinstance(text, str)
    return text


# --- 1, 2, 8: the MCP surface -------------------------------------------------------------------------------


async def test_initialize_lists_the_five_tools_and_answers_ping_and_unknown_methods(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with serving(tmp_path, initialize=False) as server:
            client = server.client
            initialize = await client.result(
                "initialize",
                {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
            )
            assert initialize == {
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "openclaw-plugin-tools", "version": "2026.9.6"},
            }
            await client.notify("notifications/initialized")
            tools = (await client.result("tools/list", {}))["tools"]
            assert [tool["name"] for tool in tools] == TOOLS
            by_name = {tool["name"]: tool for tool in tools}
            assert by_name["img_tool"]["description"] == ""
            assert by_name["noschema_tool"]["inputSchema"] == {"type": "object", "properties": {}}
            assert by_name["echo_tool"]["inputSchema"] == {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            }
            assert all(set(tool) == {"name", "description", "inputSchema"} for tool in tools)
            assert await client.result("ping") == {}
            unknown = await client.request("resources/list", {})
            assert unknown["error"]["code"] == -32601
            assert unknown["error"]["message"] == "Method not found"
            assert "no plugin tools found" not in client.stderr_text


# --- 3–7: tools/call results --------------------------------------------------------------------------------


async def test_tool_calls_map_results_errors_and_unknown_names(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with serving(tmp_path) as server:
            echo = await server.call("echo_tool", {"text": "hi"})
            assert echo == {"content": [{"type": "text", "text": 'echo:{"text":"hi"}'}]}
            [execution] = server.executions()
            assert _CALL_ID.match(execution["id"]), execution
            assert execution["params"] == {"text": "hi"}

            assert await server.call("nope", {}) == {
                "content": [{"type": "text", "text": "Unknown tool: nope"}],
                "isError": True,
            }
            assert _text(await server.call("cron", {})) == "Unknown tool: cron"
            failed = await server.call("fail_tool", {})
            assert failed == {"content": [{"type": "text", "text": "Tool error: boom from fail_tool"}], "isError": True}
            image = await server.call("img_tool", {})
            assert image["isError"] is True
            assert image["content"] == [
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "image", "data": "BBBB", "mimeType": "image/gif"},
                {"type": "text", "text": '{"type":"image","url":"x"}'},
                {"type": "text", "text": "plain-string"},
                {"type": "text", "text": "42"},
            ]
            assert await server.call("noschema_tool", {}) == {
                "content": [{"type": "text", "text": "just a string result"}]
            }
            assert await server.call("raw_tool", {}) == {"content": [{"type": "text", "text": "bare"}]}
            assert _text(await server.call("echo_tool")) == "echo:{}"
            assert server.executions()[-1]["params"] == {}


async def test_malformed_call_params_are_a_json_rpc_error_and_run_nothing(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with serving(tmp_path) as server:
            malformed: list[Any] = [{"arguments": {}}, {"name": "echo_tool", "arguments": [1]}, {"name": 7}, None]
            for params in malformed:
                response = await server.client.request("tools/call", params)
                assert response["error"]["code"] < 0, response
            assert server.executions() == []
            assert await server.client.result("ping") == {}


async def test_a_cancelled_call_gets_no_answer_and_the_server_goes_on(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with serving(tmp_path, mode="slow") as server:
            pending = await server.client.start("tools/call", {"name": "echo_tool", "arguments": {"text": "x"}})
            await server.client.notify("notifications/cancelled", {"requestId": pending.id, "reason": "test"})
            assert await server.client.result("ping") == {}
            await anyio.sleep(0.7)  # past the hook's 300 ms timeout
            assert not pending.answered
            assert server.executions() == []


# --- 9–11: tool policy and session context ------------------------------------------------------------------


async def test_the_minimal_profile_serves_no_tool_and_still_answers(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with serving(tmp_path, {**_ENABLED, "tools": {"profile": "minimal"}}) as server:
            assert await server.names() == []
            await server.client.close_stdin()
            assert await server.client.wait_exit() == 0
            assert "plugin-tools-serve: no plugin tools found\n" in server.client.stderr_text


@pytest.mark.parametrize(
    ("tools", "served"),
    [
        ({"deny": ["echo_tool"]}, TOOLS[1:]),
        ({"deny": ["hookplug"]}, []),
        ({"allow": ["echo_tool"]}, TOOLS),
    ],
    ids=["deny-tool", "deny-plugin", "allow-without-session"],
)
async def test_the_tool_policy_selects_the_served_tools(
    tmp_path: Path, tools: dict[str, Any], served: list[str]
) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with serving(tmp_path, {**_ENABLED, "tools": tools}) as server:
            assert await server.names() == served


async def test_a_session_context_applies_the_agents_policy_and_reaches_the_factory(tmp_path: Path) -> None:
    config = {**_ENABLED, "agents": {"entries": {"main": {"tools": {"deny": ["fail_*"]}}}}}
    with anyio.fail_after(TIMEOUT_S):
        async with serving(
            tmp_path,
            config,
            args=("--openclaw-agent-id", "main"),
            env={"OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY": "agent:main:main"},
        ) as server:
            assert await server.names() == [name for name in TOOLS if name != "fail_tool"]
            contexts = [entry["factoryCtx"] for entry in server.entries() if "factoryCtx" in entry]
            assert contexts == [{"agentId": "main", "sessionKey": "agent:main:main"}]


@pytest.mark.parametrize(
    ("args", "key", "line"),
    [
        (("--openclaw-agent-id", "other"), "agent:main:main", SESSION_ERROR),
        (("--openclaw-agent-id", "main"), None, SESSION_ERROR),
        ((), "main", SESSION_ERROR),
        (("--openclaw-agent-id",), None, "plugin-tools-serve: --openclaw-agent-id requires one OpenClaw agent owner"),
    ],
    ids=["owner-mismatch", "flag-without-key", "non-canonical-key", "flag-without-value"],
)
async def test_a_bad_launch_context_exits_1_with_one_line(
    tmp_path: Path, args: tuple[str, ...], key: str | None, line: str
) -> None:
    env = {} if key is None else {"OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY": key}
    with anyio.fail_after(TIMEOUT_S):
        async with serving(tmp_path, args=args, env=env, initialize=False) as server:
            assert await server.client.wait_exit() == 1
            await server.client.readers_done.wait()
            assert server.client.stderr_text == line + "\n"
            assert server.entries() == []


async def test_a_plugin_that_fails_to_import_is_one_line_and_the_others_serve(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with serving(tmp_path, sites=(SITE, BROKEN)) as server:
            assert await server.names() == TOOLS
            stderr = server.client.stderr_text
            assert len([line for line in stderr.splitlines() if line.startswith("plugin failed to load (")]) == 1, (
                stderr
            )
            assert "Traceback" not in stderr


async def test_a_plugin_whose_register_fails_is_skipped(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with serving(tmp_path, mode="badmatcher") as server:
            assert await server.names() == []
            stderr = server.client.stderr_text
            assert (
                "plugin failed to register (hookplug): tool hook matcher wildcard entries are not supported" in stderr
            )
            assert "plugin-tools-serve: no plugin tools found" in stderr


# --- 13, 14: the before_tool_call boundary (D-PT3) ----------------------------------------------------------

BLOCKED = [
    ("block", "blocked by hookplug", False),
    ("blockreason:nope", "nope", False),
    ("blocknoreason", "Tool call blocked by plugin hook", False),
    ("approval", "Tool error: Need D", True),
    ("approvaltitle", "Tool error: Only T", True),
    ("approvalempty", "Tool error: Plugin approval required", True),
    ("throw", "Tool error: Tool call blocked because before_tool_call hook failed", True),
    ("twoblocks", "high", False),
    ("approvalthenblock", "late block", False),
]


@pytest.mark.parametrize(("mode", "text", "failure"), BLOCKED, ids=[mode for mode, _, _ in BLOCKED])
async def test_a_hook_that_vetoes_or_fails_keeps_the_tool_from_running(
    tmp_path: Path, mode: str, text: str, failure: bool
) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with serving(tmp_path, mode=mode) as server:
            result = await server.call("echo_tool", {"a": 1})
            assert result == {"content": [{"type": "text", "text": text}], "isError": True}
            assert server.executions() == []
            assert server.hook_calls(), "the hook ran"
            if mode == "throw":
                assert "before_tool_call hook failed: tool=echo_tool toolCallId=mcp-" in server.client.stderr_text
            # Other tools are untouched by a hook that acts on echo_tool only.
            assert _text(await server.call("raw_tool", {})) == "bare"


@pytest.mark.parametrize(
    ("mode", "params"),
    [("none", {"a": 1}), ("blockfalse", {"a": 1}), ("paramsb", {"a": 1, "b": 2}), ("twoparams", {"a": 1, "x": "lo"})],
)
async def test_a_hook_that_allows_runs_the_tool_with_the_merged_params(
    tmp_path: Path, mode: str, params: dict[str, Any]
) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with serving(tmp_path, mode=mode) as server:
            result = await server.call("echo_tool", {"a": 1})
            assert _text(result) == "echo:" + json.dumps(params, separators=(",", ":"))
            assert [execution["params"] for execution in server.executions()] == [params]


async def test_a_hook_that_never_answers_fails_closed_after_its_timeout(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with serving(tmp_path, mode="slow") as server:
            started = time.monotonic()
            result = await server.call("echo_tool", {"text": "x"})
            elapsed = time.monotonic() - started
            assert _text(result) == "Tool error: Tool call blocked because before_tool_call hook failed"
            assert 0.3 <= elapsed < 2.0, elapsed
            assert server.executions() == []
            assert "timed out after 300ms" in server.client.stderr_text


async def test_a_matcher_covers_its_tool_case_insensitively_and_nothing_else(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with serving(tmp_path, {**_ENABLED}, mode="matcher") as server:
            assert await server.names() == [*TOOLS, "t1", "t2"]
            assert await server.call("t1", {}) == {"content": [{"type": "text", "text": "matched"}], "isError": True}
            assert _text(await server.call("t2", {})) == "t2 ran"


async def test_the_hook_sees_the_policy_name_params_and_call_id_and_only_those_ctx_keys(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with serving(
            tmp_path,
            mode="params",
            args=("--openclaw-agent-id", "main"),
            env={"OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY": "agent:main:main"},
        ) as server:
            assert _text(await server.call("echo_tool", {"text": "hi"})) == 'echo:{"text":"rewritten"}'
            [hook] = server.hook_calls()
            [execution] = server.executions()
            assert hook["event"] == {"toolName": "echo_tool", "params": {"text": "hi"}, "toolCallId": execution["id"]}
            assert hook["ctx"] == ["abortSignal", "toolCallId", "toolName"]


# --- 15: shutdown ---------------------------------------------------------------------------------------------


async def test_sigterm_while_idle_exits_0_quickly(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with serving(tmp_path) as server:
            started = time.monotonic()
            server.client.process.send_signal(signal.SIGTERM)
            assert await server.client.wait_exit() == 0
            assert time.monotonic() - started < 2.0


async def test_stdin_closing_during_a_call_waits_for_the_call_to_settle(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with serving(tmp_path, mode="slow") as server:
            pending = await server.client.start("tools/call", {"name": "echo_tool", "arguments": {"text": "x"}})
            await anyio.sleep(0.1)  # the call is in the hook now
            started = time.monotonic()
            await server.client.close_stdin()
            assert await server.client.wait_exit() == 0
            assert time.monotonic() - started >= 0.15  # it waited for the 300 ms hook timeout
            # the SDK server closes its transport before draining: the settled call is not answered
            assert not pending.answered
