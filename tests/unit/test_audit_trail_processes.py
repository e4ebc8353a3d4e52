"""The audit trail end to end over real processes (issue 35 acceptance; docs/audit.md).

* 1,000 tool calls from 4 real ``openclaw-plugin-tools`` processes at once (250 each, driven concurrently,
  each call's arguments carrying a planted secret from the redactor's own pattern table): 1,000 records, an
  intact chain, and no planted secret anywhere in the database's bytes (``-wal``/``-shm`` included);
  ``openclaw mcp audit`` lists them; editing one row with ``sqlite3`` makes ``openclaw mcp audit --verify`` exit
  1 naming it.
* A locked and a corrupt state database: one warning line on stderr and the calls proceed (fail open).
* The runtime library and ``openclaw-tools``' service record their calls too.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.memory.audit import InMemoryAuditLog
from openclaw_mcp.application import audit as audit_module
from openclaw_mcp.application.audit import AuditSubject, AuditTrail
from openclaw_mcp.application.openclaw_tools._service import BuiltinTool, OpenclawToolsService
from openclaw_mcp.domain.audit import AuditQuery
from openclaw_mcp.entrypoints.runtime_api import RuntimeHost, RuntimePolicy, SessionMcpRuntime
from tests.docker.gateway_harness import isolated_env
from tests.fixtures.plugins import SITE
from tests.fixtures.stdio_lines import LineServer, spawn_line_server
from tests.unit.test_audit_domain import PLANTED

BIN = Path(sys.executable).parent
PLUGIN_TOOLS = [str(BIN / "openclaw-plugin-tools")]
OPENCLAW = [str(BIN / "openclaw"), "mcp"]
SERVERS = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_servers"
WARNING = "audit trail unavailable:"
PROCESSES, CALLS = 4, 250


def db_path(state: Path) -> Path:
    return state / "state" / "openclaw.sqlite"


@contextmanager
def plugin_tools(state: Path, name: str, env: dict[str, str] | None = None) -> Iterator[LineServer]:
    """An initialized ``openclaw-plugin-tools`` serving the fixture plugin ``hookplug`` with OpenClaw state in
    ``state`` (shared by every process of a test); its stderr in ``state/<name>.stderr``."""
    state.mkdir(exist_ok=True)
    config = state / "openclaw.json"
    if not config.exists():
        config.write_text(json.dumps({"plugins": {"entries": {"hookplug": {"enabled": True}}}}))
    extra = {
        "PYTHONPATH": os.pathsep.join([str(SITE), os.environ.get("PYTHONPATH", "")]),
        "OPENCLAW_TOOLS_MCP_AGENT_SESSION_KEY": "agent:main:audit",
        **(env or {}),
    }
    stderr = state / f"{name}.stderr"
    with spawn_line_server(PLUGIN_TOOLS, isolated_env(state, extra=extra), stderr) as process:
        server = LineServer(process, stderr)
        initialize = server.request(
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
        )
        assert "result" in initialize, initialize
        server.send_line(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        yield server
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(timeout=30) == 0


def echo(server: LineServer, arguments: dict[str, Any]) -> dict[str, Any]:
    answer = server.request("tools/call", {"name": "echo_tool", "arguments": arguments})
    assert "result" in answer, answer
    result: dict[str, Any] = answer["result"]
    assert not result.get("isError"), result
    return result


def cli(state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*OPENCLAW, "audit", *args], env=isolated_env(state), capture_output=True, text=True, timeout=60, check=False
    )


def database_bytes(state: Path) -> bytes:
    base = db_path(state)
    return b"".join(
        Path(f"{base}{suffix}").read_bytes() for suffix in ("", "-wal", "-shm") if Path(f"{base}{suffix}").exists()
    )


def test_four_processes_record_a_thousand_calls_in_one_intact_chain_without_a_secret(tmp_path: Path) -> None:
    state = tmp_path / "state"
    needles: list[str] = []
    failures: list[BaseException] = []

    def drive(server: LineServer, worker: int) -> None:
        try:
            for n in range(CALLS):
                arguments = PLANTED[(worker * CALLS + n) % len(PLANTED)][0]
                echo(server, {"call": f"{worker}-{n}", "payload": arguments})
        except BaseException as exc:  # reported below, in the test's thread
            failures.append(exc)

    for worker in range(PROCESSES):
        for n in range(CALLS):
            needles.append(PLANTED[(worker * CALLS + n) % len(PLANTED)][1])
    with ExitStack() as stack:
        servers = [stack.enter_context(plugin_tools(state, f"p{worker}")) for worker in range(PROCESSES)]
        threads = [threading.Thread(target=drive, args=(server, i)) for i, server in enumerate(servers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert not failures, failures[0]
    for worker in range(PROCESSES):
        assert WARNING not in (state / f"p{worker}.stderr").read_text()

    with sqlite3.connect(db_path(state)) as conn:
        rows = conn.execute("SELECT seq, record_json FROM openclaw_mcp_audit ORDER BY seq").fetchall()
    assert [seq for seq, _ in rows] == list(range(1, PROCESSES * CALLS + 1))
    records = [json.loads(text) for _, text in rows]
    assert {(r["server"], r["tool"], r["outcome"], r["session_key"], r["agent"]) for r in records} == {
        ("openclaw-plugin-tools", "echo_tool", "ok", "agent:main:audit", "main")
    }
    assert len({r["args_digest"] for r in records}) == PROCESSES * CALLS  # every call once
    raw = database_bytes(state)
    leaked = sorted({needle for needle in needles if needle.encode() in raw})
    assert not leaked, f"planted secrets found in the database: {leaked[:5]}"

    verified = cli(state, "--verify")
    assert (verified.returncode, verified.stdout.strip()) == (0, "Audit chain intact: 1000 records checked.")
    listed = cli(state, "--json", "--limit", "3", "--server", "openclaw-plugin-tools", "--tool", "echo_tool")
    assert listed.returncode == 0, listed.stderr
    assert [entry["seq"] for entry in json.loads(listed.stdout)] == [998, 999, 1000]
    text = cli(state, "--limit", "2")
    assert (
        text.returncode == 0
        and text.stdout.startswith("#999 ")
        and " openclaw-plugin-tools/echo_tool ok " in text.stdout
    )

    with sqlite3.connect(db_path(state)) as conn:
        (original,) = conn.execute("SELECT record_json FROM openclaw_mcp_audit WHERE seq = 500").fetchone()
        edited = original.replace('"outcome":"ok"', '"outcome":"error"')
        conn.execute("UPDATE openclaw_mcp_audit SET record_json = ? WHERE seq = 500", (edited,))
    broken = cli(state, "--verify")
    assert broken.returncode == 1
    assert broken.stdout.startswith("Audit chain broken at record 500 (1000 records checked)")
    as_json = cli(state, "--verify", "--json")
    assert (as_json.returncode, json.loads(as_json.stdout)) == (
        1,
        {"intact": False, "checked": 1000, "first_broken": 500},
    )


def test_a_locked_audit_table_is_one_line_and_the_calls_proceed(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with plugin_tools(state, "first") as server:
        echo(server, {"text": "before"})  # creates the tables
    holder = sqlite3.connect(db_path(state), isolation_level=None, timeout=0.1)
    try:
        holder.execute("BEGIN EXCLUSIVE")
        with plugin_tools(state, "locked") as server:
            for n in range(2):
                assert echo(server, {"text": f"while locked {n}"})["content"][0]["text"].startswith("echo:")
    finally:
        holder.close()
    lines = [line for line in (state / "locked.stderr").read_text().splitlines() if WARNING in line]
    assert len(lines) == 1 and "locked" in lines[0], lines
    verified = cli(state, "--verify")
    assert (verified.returncode, verified.stdout.strip()) == (0, "Audit chain intact: 1 record checked.")


def test_a_corrupt_state_database_is_one_line_and_the_calls_proceed(tmp_path: Path) -> None:
    state = tmp_path / "state"
    db_path(state).parent.mkdir(parents=True)
    db_path(state).write_bytes(b"definitely not SQLite " * 200)
    with plugin_tools(state, "corrupt") as server:
        for n in range(3):
            echo(server, {"text": f"call {n}"})
    lines = [line for line in (state / "corrupt.stderr").read_text().splitlines() if WARNING in line]
    assert len(lines) == 1 and "not a database" in lines[0], lines
    listed = cli(state)
    assert listed.returncode == 1 and "not a database" in listed.stderr


def test_audit_off_records_nothing(tmp_path: Path) -> None:
    state = tmp_path / "state"
    with plugin_tools(state, "off", {"OPENCLAW_MCP_AUDIT": "off"}) as server:
        echo(server, {"text": "x"})
    assert not db_path(state).exists()


@pytest.mark.asyncio
async def test_the_runtime_library_records_each_call_with_its_session(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "OPENCLAW_MCP_AUDIT": "on"}
    server = {"command": sys.executable, "args": [str(SERVERS / "recording_server.py"), "echo"]}
    policy = RuntimePolicy(session_key="agent:ops:main", run_id="run-7")
    with anyio.fail_after(30):
        async with SessionMcpRuntime({"rec": server}, host=RuntimeHost(environ=env), policy=policy) as runtime:
            (tool,) = await runtime.tools()
            for n in range(3):
                await tool.execute({"n": n, "password": "hunter2hunter2"})
    conn = sqlite3.connect(tmp_path / ".openclaw" / "state" / "openclaw.sqlite")
    try:
        records = [
            json.loads(text) for (text,) in conn.execute("SELECT record_json FROM openclaw_mcp_audit ORDER BY seq")
        ]
    finally:
        conn.close()
    assert [(r["server"], r["tool"], r["agent"], r["session_key"], r["run_id"], r["outcome"]) for r in records] == [
        ("rec", "echo", "ops", "agent:ops:main", "run-7", "ok")
    ] * 3
    assert [r["args_preview"] for r in records] == [f'{{"n":{n},"password":"***"}}' for n in range(3)]


@pytest.mark.asyncio
async def test_openclaw_tools_calls_are_recorded() -> None:
    audit_module._WARNED.clear()
    log = InMemoryAuditLog()

    async def answer(arguments: Any) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": "ok"}]}

    tool = BuiltinTool({"name": "system_agent", "inputSchema": {"type": "object"}}, answer)
    subject = AuditSubject("main", "agent:main:x", server="openclaw-tools")
    service = OpenclawToolsService([tool], audit=AuditTrail(log, clock=_Clock(), warn=print, subject=subject))
    assert await service.call("system_agent", {"action": "status"}) == {"content": [{"type": "text", "text": "ok"}]}
    (entry,) = await log.query(AuditQuery())
    assert (entry.record.server, entry.record.tool, entry.record.agent, entry.record.outcome) == (
        "openclaw-tools",
        "system_agent",
        "main",
        "ok",
    )


class _Clock:
    def now_ms(self) -> int:
        return 0
