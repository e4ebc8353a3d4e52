"""Hooks and tool factories that do not cooperate with their deadline, against the real ``openclaw-plugin-tools``
process (issue 32, defects 12 and 15; plugin-tools.md §6.6).

The fixture plugin ``hostileplug`` (``tests/fixtures/plugins/hostile``) serves ``danger_tool`` — which writes a
side-effect file when it runs — and ``safe_tool``; ``$HOSTILEPLUG_MODE`` picks its misbehaviour: a
``before_tool_call`` hook (``timeout_ms=300``) that catches its cancellation and returns an allowing result,
swallows cancellation in a loop, blocks its thread, or answers after its deadline; or a tool factory
(``timeout_ms=300``) that never resolves. Whatever the hook does after its deadline, the tool must not run, the
call must be answered with the hook-failure text, and the process must still exit on stdin EOF and SIGTERM.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

import tests.fixtures.plugins
from tests.docker.gateway_harness import McpClient, isolated_env, open_mcp_client

pytestmark = pytest.mark.asyncio

COMMAND = [str(Path(sys.executable).parent / "openclaw-plugin-tools")]
HOSTILE = Path(tests.fixtures.plugins.__file__).resolve().parent / "hostile"
TIMEOUT_S = 30
EXIT_BOUND_S = 8.0
"""How long the process may take to exit after EOF or SIGTERM with plugin code that refuses to stop."""
HOOK_FAILED = "Tool error: Tool call blocked because before_tool_call hook failed"
_CONFIG = {"plugins": {"entries": {"hostileplug": {"enabled": True}}}}


class Hostile:
    def __init__(self, client: McpClient, state: Path) -> None:
        self.client = client
        self.side_effect = state / "danger-ran.jsonl"
        self._log = state / "hostileplug-log.jsonl"

    def entries(self) -> list[dict[str, Any]]:
        if not self._log.is_file():
            return []
        return [json.loads(line) for line in self._log.read_text(encoding="utf-8").splitlines() if line.strip()]

    async def wait_entry(self, entry: dict[str, Any]) -> None:
        """Until the plugin logged ``entry`` (the caller bounds the time)."""
        while entry not in self.entries():
            await anyio.sleep(0.02)

    async def names(self) -> list[str]:
        listed = await self.client.result("tools/list", {})
        return [tool["name"] for tool in listed["tools"]]

    async def exit_within(self, bound_s: float) -> int:
        started = time.monotonic()
        status = await self.client.wait_exit()
        assert time.monotonic() - started < bound_s, time.monotonic() - started
        return status


@asynccontextmanager
async def hostile(tmp_path: Path, mode: str) -> AsyncIterator[Hostile]:
    state = tmp_path / "state"
    state.mkdir(parents=True, exist_ok=True)
    (state / "openclaw.json").write_text(json.dumps(_CONFIG), encoding="utf-8")
    extra = {
        "HOSTILEPLUG_MODE": mode,
        "HOSTILEPLUG_LOG": str(state / "hostileplug-log.jsonl"),
        "HOSTILEPLUG_SIDE_EFFECT": str(state / "danger-ran.jsonl"),
        "PYTHONPATH": os.pathsep.join([str(HOSTILE), os.environ.get("PYTHONPATH", "")]),
    }
    async with open_mcp_client(COMMAND, isolated_env(state, extra=extra), cwd=state) as client:
        await client.initialize()
        yield Hostile(client, state)


def _text(result: dict[str, Any]) -> str:
    assert len(result["content"]) == 1, result
    text = result["content"][0]["text"]
    assert isinstance(text, str)
    return text


# --- defect 12: the hook's deadline does not depend on the hook ------------------------------------------------

LATE_ANSWERS = ["catch_none", "catch_params", "late_block", "late_mutate", "sync_block", "swallow"]


@pytest.mark.parametrize("mode", LATE_ANSWERS)
async def test_a_hook_past_its_deadline_fails_the_call_whatever_it_does_and_the_tool_never_runs(
    tmp_path: Path, mode: str
) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with hostile(tmp_path, mode) as server:
            started = time.monotonic()
            result = await server.client.call("danger_tool", {"path": "ok"})
            elapsed = time.monotonic() - started
            assert result == {"content": [{"type": "text", "text": HOOK_FAILED}], "isError": True}
            assert 0.3 <= elapsed < 3.0, elapsed
            # What the hook does after its deadline changes nothing: a second call fails the same way.
            assert _text(await server.client.call("danger_tool", {"path": "again"})) == HOOK_FAILED
            await anyio.sleep(0.5)
            assert not server.side_effect.exists(), server.side_effect.read_text(encoding="utf-8")
            assert [entry for entry in server.entries() if "exec" in entry] == []
            stderr = server.client.stderr_text
            assert "before_tool_call hook failed: tool=danger_tool toolCallId=mcp-" in stderr, stderr
            assert "error=TimeoutError: timed out after 300ms" in stderr, stderr
            assert "Traceback" not in stderr, stderr
            # Tools the hook does not cover, and the server itself, are unaffected.
            assert _text(await server.client.call("safe_tool", {})) == "safe"
            assert await server.client.result("ping") == {}
            if mode in ("catch_none", "catch_params"):
                await server.wait_entry({"hook": "caught"})  # it did answer, after its deadline


@pytest.mark.parametrize("mode", ["swallow", "sync_block"])
async def test_a_hook_that_refuses_to_stop_does_not_keep_the_process_alive_after_eof(tmp_path: Path, mode: str) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with hostile(tmp_path, mode) as server:
            assert _text(await server.client.call("danger_tool", {})) == HOOK_FAILED
            await server.client.close_stdin()
            assert await server.exit_within(EXIT_BOUND_S) == 0
            assert not server.side_effect.exists()
            await server.client.readers_done.wait()
            stderr = server.client.stderr_text
            assert "Traceback" not in stderr, stderr
            # A task that swallows its cancellation outlives the event loop's teardown: one line says so. A
            # blocked daemon thread never holds the process.
            stuck = "plugin-tools-serve: plugin code did not stop at shutdown; exiting"
            assert stderr.count(stuck) == (1 if mode == "swallow" else 0), stderr


@pytest.mark.parametrize("mode", ["swallow", "sync_block"])
async def test_a_hook_that_refuses_to_stop_does_not_keep_the_process_alive_after_sigterm(
    tmp_path: Path, mode: str
) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with hostile(tmp_path, mode) as server:
            assert _text(await server.client.call("danger_tool", {})) == HOOK_FAILED
            if mode == "swallow":
                await server.wait_entry({"hook": "swallowed"})  # it is still running, refusing to stop
            server.client.process.send_signal(signal.SIGTERM)
            assert await server.exit_within(EXIT_BOUND_S) == 0
            assert not server.side_effect.exists()


async def test_sigterm_while_a_call_waits_on_a_stuck_hook_exits_and_runs_nothing(tmp_path: Path) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with hostile(tmp_path, "swallow") as server:
            pending = await server.client.start("tools/call", {"name": "danger_tool", "arguments": {}})
            await anyio.sleep(0.1)
            server.client.process.send_signal(signal.SIGTERM)
            assert await server.exit_within(EXIT_BOUND_S) == 0
            assert not pending.answered
            assert not server.side_effect.exists()


# --- defect 15: a tool factory that never resolves ---------------------------------------------------------------


@pytest.mark.parametrize("mode", ["factory_forever", "factory_swallow", "factory_sync_block"])
async def test_a_factory_that_never_resolves_is_skipped_with_one_line_and_the_server_serves(
    tmp_path: Path, mode: str
) -> None:
    with anyio.fail_after(TIMEOUT_S):
        async with hostile(tmp_path, mode) as server:  # initialize is answered
            assert await server.names() == ["danger_tool", "safe_tool"]
            assert _text(await server.client.call("safe_tool", {})) == "safe"
            lines = server.client.stderr_text.splitlines()
            assert lines == ["plugin tool failed (hostileplug): tool factory timed out after 300ms"], lines
            await server.client.close_stdin()
            assert await server.exit_within(EXIT_BOUND_S) == 0
            assert "Traceback" not in server.client.stderr_text
