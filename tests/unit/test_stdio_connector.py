"""Stdio-specific behaviour of ``StdioMcpConnector`` (spec client-runtime §2.8, §3, §11.3; D5–D8, D16):
the stderr logger, stdout framing, the child environment, spawn failures, and the process-group teardown.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest

from openclaw_mcp.adapters.stdio import StdioMcpConnector
from openclaw_mcp.adapters.stdio._framing import LineFramer, ReadBufferOverflow
from openclaw_mcp.adapters.stdio.connector import child_environment
from openclaw_mcp.adapters.stdio.process import group_alive
from openclaw_mcp.adapters.stdio.stderr import StderrLineLogger, utf8_suffix
from openclaw_mcp.application.ports.mcp import (
    ConnectionClosed,
    ListChanged,
    McpCleanupError,
    McpConnectError,
    McpConnection,
    McpError,
    McpEvent,
    McpTimeout,
)
from openclaw_mcp.domain.transport import HttpConfig, StdioConfig, resolve_transport
from openclaw_mcp.entrypoints.settings import Settings, oom_adjust_enabled

SERVERS = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_servers"
LINUX = sys.platform.startswith("linux")


# --- helpers -------------------------------------------------------------------------------------------


class FakeTimers:
    def __init__(self) -> None:
        self.pending: list[tuple[float, Callable[[], None]]] = []
        self.started = 0

    def schedule(self, delay: float, callback: Callable[[], None]) -> Callable[[], None]:
        entry = (delay, callback)
        self.pending.append(entry)
        self.started += 1

        def cancel() -> None:
            if entry in self.pending:
                self.pending.remove(entry)

        return cancel

    def fire(self) -> None:
        due, self.pending = self.pending, []
        for _, callback in due:
            callback()


def stderr_logger(name: str) -> tuple[StderrLineLogger, list[str], FakeTimers]:
    lines: list[str] = []
    timers = FakeTimers()
    return StderrLineLogger(name, lines.append, timers.schedule), lines, timers


def stdio_config(
    script: str,
    *args: str,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    command: str = sys.executable,
    connection_timeout_ms: int = 4_000,
) -> StdioConfig:
    argv = (str(SERVERS / script), *args) if script else args
    return StdioConfig(
        command=command,
        args=argv,
        env=env,
        cwd=cwd,
        description=f"{command} {script}",
        connection_timeout_ms=connection_timeout_ms,
        request_timeout_ms=4_000,
        supports_parallel_tool_calls=False,
    )


class Recorder:
    def __init__(self) -> None:
        self.events: list[McpEvent] = []
        self.logs: list[str] = []


@asynccontextmanager
async def connected(
    config: StdioConfig, *, name: str = "probe", environ: dict[str, str] | None = None
) -> AsyncIterator[tuple[McpConnection, Recorder]]:
    recorder = Recorder()
    settings = Settings.from_environ(os.environ if environ is None else environ)
    connector = StdioMcpConnector(inherited=environ, raise_oom_score=settings.oom_adjust)
    async with connector.connect(name, config, on_event=recorder.events.append, log=recorder.logs.append) as connection:
        yield connection, recorder


async def call_text(connection: McpConnection, tool: str) -> str:
    result = await connection.request("tools/call", {"name": tool, "arguments": {}}, timeout_ms=4_000)
    text = result["content"][0]["text"]
    assert isinstance(text, str)
    return text


def process_gone(pid: int) -> bool:
    """``kill(pid, 0)`` fails, or only a zombie is left (waiting for a reaper: it runs nothing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return True
    return stat[stat.rfind(b")") + 2 :].split()[0] in (b"Z", b"X")


# --- stderr logger (§3.4, §11.3 items 31–35) -------------------------------------------------------------


def test_stderr_lines_split_on_every_cr_and_lf_and_keep_split_characters_whole() -> None:
    logger, lines, _ = stderr_logger("unicode")
    data = "alpha 你好 omega\r\nfinal tail".encode()
    split_in_char = data.index("你".encode()) + 1
    split_crlf = data.index(b"\r") + 1
    for chunk in (data[:split_in_char], data[split_in_char:split_crlf], data[split_crlf:]):
        logger.feed(chunk)
    assert lines == ["bundle-mcp:unicode: alpha 你好 omega"]
    logger.close()
    assert lines == ["bundle-mcp:unicode: alpha 你好 omega", "bundle-mcp:unicode: final tail"]
    logger.close()
    assert len(lines) == 2


def test_stderr_tail_without_newline_is_logged_once_at_stream_end() -> None:
    logger, lines, _ = stderr_logger("crash")
    logger.feed(b"fatal tail")
    logger.close()
    logger.close()
    assert lines == ["bundle-mcp:crash: fatal tail"]


def test_an_overlong_stderr_line_keeps_its_last_8192_bytes_behind_the_truncation_prefix() -> None:
    logger, lines, timers = stderr_logger("bounded")
    logger.feed(b"x" * 10_240)
    assert lines == []
    logger.feed(b"\n")
    assert lines == ["bundle-mcp:bounded: [stderr line truncated] " + "x" * 8192]
    assert timers.pending == []


def test_a_partial_stderr_line_is_flushed_by_the_progress_timer_which_further_data_does_not_restart() -> None:
    logger, lines, timers = stderr_logger("stub")
    logger.feed(b"partial")
    assert [delay for delay, _ in timers.pending] == [0.25]
    logger.feed(b" more")
    assert timers.started == 1
    timers.fire()
    assert lines == ["bundle-mcp:stub: partial more"]
    logger.close()
    assert lines == ["bundle-mcp:stub: partial more"]


def test_blank_stderr_lines_are_not_logged() -> None:
    logger, lines, timers = stderr_logger("stub")
    logger.feed(b"   \n\r\n")
    logger.feed(b"line-one\r\nline two\n")
    logger.close()
    assert lines == ["bundle-mcp:stub: line-one", "bundle-mcp:stub: line two"]
    assert timers.pending == []


def test_the_utf8_suffix_is_bounded_and_starts_on_a_character() -> None:
    text = "é" * 5000  # 10 000 bytes
    suffix = utf8_suffix(text)
    assert suffix == "é" * 4096
    assert utf8_suffix("a" + "€" * 3000) == "€" * 2730
    assert utf8_suffix("short") == "short"


# --- stdout framing (§3.2) ----------------------------------------------------------------------------------


def test_framing_strips_one_carriage_return_and_reports_bad_lines_without_stopping() -> None:
    framer = LineFramer()
    items = framer.feed(b'not json\n\n{"jsonrpc":"2.0","id":1,"result":{"a":"\xc3\xa9"}}\r\n{"jsonrpc"')
    assert [str(item) for item in items[:2]] == ["stdout line is not valid JSON"] * 2
    message = items[2]
    assert not isinstance(message, Exception)
    assert message.message.model_dump(by_alias=True, exclude_unset=True) == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {"a": "é"},
    }
    rest = framer.feed(b':"2.0","method":"notifications/tools/list_changed"}\n')
    assert len(rest) == 1 and not isinstance(rest[0], Exception)


def test_framing_gives_up_when_unterminated_data_would_exceed_10_mib() -> None:
    framer = LineFramer()
    framer.feed(b"z" * (10 * 1024 * 1024))
    with pytest.raises(ReadBufferOverflow) as caught:
        framer.feed(b"z")
    assert str(caught.value) == "ReadBuffer exceeded maximum size of 10485760 bytes"
    assert framer.feed(b'{"jsonrpc":"2.0","id":2,"result":{}}\n') != []


# --- child environment (§2.8, D7) and OOM opt-out (D6) --------------------------------------------------------


def test_the_child_inherits_only_six_host_variables_then_the_server_env() -> None:
    host = {
        "SHELL": "/bin/bash",
        "TERM": "xterm",
        "LANG": "en_US.UTF-8",
        "TMPDIR": "/tmp",
        "FOO": "1",
        "HOME": "() { :; }",
        "USER": "me",
    }
    reported: list[str] = []
    env = child_environment(host, {"LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"}, reported.append)
    assert env == {"SHELL": "/bin/bash", "TERM": "xterm", "USER": "me", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"}
    assert reported == []


def test_env_keys_the_os_cannot_carry_are_dropped_and_reported() -> None:
    reported: list[str] = []
    env = child_environment({}, {"": "e", "X=Y": "z", "A\0B": "n", "OK": "1"}, reported.append)
    assert env == {"OK": "1"}
    assert reported == ["", "X=Y", "A\0B"]


@pytest.mark.parametrize(
    ("value", "enabled"),
    [(None, True), ("0", False), (" Off ", False), ("FALSE", False), ("no", False), ("1", True), ("", True)],
)
def test_the_oom_score_opt_out_values(value: str | None, enabled: bool) -> None:
    environ = {} if value is None else {"OPENCLAW_CHILD_OOM_SCORE_ADJ": value}
    assert oom_adjust_enabled(environ) is enabled


# --- real processes ---------------------------------------------------------------------------------------

pytestmark_async = pytest.mark.asyncio


@pytestmark_async
async def test_blocked_keys_never_reach_the_child_while_allowed_and_credential_keys_do() -> None:
    raw = {
        "command": sys.executable,
        "args": [str(SERVERS / "env_server.py")],
        "env": {
            "SAFE_VALUE": "ok",
            "PORT": 3000,
            "GITHUB_TOKEN": "g",
            "NODE_OPTIONS": "--require /tmp/evil.js",
            "LD_PRELOAD": "/tmp/evil.so",
            "PYTHONSTARTUP": "/tmp/evil.py",
        },
    }
    resolution = resolve_transport("probe", raw)
    config = resolution.config
    assert isinstance(config, StdioConfig)
    host = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": "/home/probe",
        "LANG": "en_US.UTF-8",
        "SECRET_TOKEN": "host-secret",
        "SHELL": "() { evil; }",
        "OPENCLAW_CHILD_OOM_SCORE_ADJ": "off",
    }
    with anyio.fail_after(5):
        async with connected(config, environ=host) as (connection, _):
            env = json.loads(await call_text(connection, "env"))
    assert env == {
        "PATH": host["PATH"],
        "HOME": "/home/probe",
        "SAFE_VALUE": "ok",
        "PORT": "3000",
        "GITHUB_TOKEN": "g",
    }


@pytestmark_async
async def test_env_keys_the_os_cannot_carry_are_logged_with_the_standard_warning() -> None:
    config = stdio_config("env_server.py", env={"X=Y": "z", "KEPT": "1"})
    with anyio.fail_after(5):
        async with connected(config, environ={}) as (connection, recorder):
            env = json.loads(await call_text(connection, "env"))
    assert env == {"KEPT": "1"}
    assert recorder.logs == [
        'bundle-mcp: server "probe": env "X=Y" is blocked for stdio startup safety and was ignored.'
    ]


@pytestmark_async
async def test_the_child_leads_its_own_session_and_process_group() -> None:
    with anyio.fail_after(5):
        async with connected(stdio_config("env_server.py")) as (connection, _):
            ids = json.loads(await call_text(connection, "ids"))
    assert ids["pid"] == ids["pgid"] == ids["sid"]
    assert ids["pgid"] != os.getpgid(0)


@pytest.mark.skipif(not LINUX, reason="oom_score_adj is Linux-only")
@pytestmark_async
async def test_the_child_raises_its_oom_score_unless_the_host_opts_out() -> None:
    own = Path("/proc/self/oom_score_adj").read_text().strip()
    with anyio.fail_after(8):
        async with connected(stdio_config("env_server.py"), environ={}) as (connection, _):
            raised = await call_text(connection, "oom_score_adj")
        opt_out = {"OPENCLAW_CHILD_OOM_SCORE_ADJ": " No "}
        async with connected(stdio_config("env_server.py"), environ=opt_out) as (connection, _):
            kept = await call_text(connection, "oom_score_adj")
    assert raised == "1000"
    assert kept == own


@pytestmark_async
async def test_the_child_runs_in_the_configured_cwd(tmp_path: Path) -> None:
    with anyio.fail_after(5):
        async with connected(stdio_config("env_server.py", cwd=str(tmp_path))) as (connection, _):
            cwd = await call_text(connection, "cwd")
    assert os.path.realpath(cwd) == os.path.realpath(tmp_path)


async def _spawn_failure(config: StdioConfig) -> tuple[McpConnectError, list[str]]:
    recorder = Recorder()
    connector = StdioMcpConnector()
    with anyio.fail_after(5), pytest.raises(McpConnectError) as caught:
        async with connector.connect("probe", config, on_event=recorder.events.append, log=recorder.logs.append):
            pass
    return caught.value, recorder.logs


@pytestmark_async
async def test_a_missing_executable_is_only_connection_closed_and_the_os_error_is_logged() -> None:
    # observed on 2026.9.6: the diagnostic is exactly "Connection closed", without the OS error
    error, logs = await _spawn_failure(stdio_config("", command="/nonexistent/openclaw-mcp-server"))
    assert str(error) == "MCP error -32000: Connection closed"
    assert error.__cause__ is None
    assert any("failed to spawn" in line and "No such file or directory" in line for line in logs)


# Answers ``initialize`` with a JSON-RPC error, then waits for its stdin to end.
REFUSING_SERVER = (
    "import json, sys\n"
    "request = json.loads(sys.stdin.readline())\n"
    "error = {'code': -32602, 'message': 'Unsupported protocol version'}\n"
    "print(json.dumps({'jsonrpc': '2.0', 'id': request['id'], 'error': error}), flush=True)\n"
    "sys.stdin.read()\n"
)


@pytestmark_async
async def test_a_json_rpc_error_answer_to_initialize_is_the_connect_error_without_a_cause() -> None:
    error, _ = await _spawn_failure(stdio_config("", "-c", REFUSING_SERVER))
    assert str(error) == "MCP error -32602: Unsupported protocol version"
    assert error.__cause__ is None


@pytestmark_async
async def test_a_missing_cwd_is_only_connection_closed_and_the_os_error_is_logged(tmp_path: Path) -> None:
    error, logs = await _spawn_failure(stdio_config("env_server.py", cwd=str(tmp_path / "missing")))
    assert str(error) == "MCP error -32000: Connection closed"
    assert any("failed to spawn" in line for line in logs)


@pytestmark_async
async def test_an_exit_before_initialize_logs_the_stderr_tail() -> None:
    recorder = Recorder()
    connector = StdioMcpConnector()
    with anyio.fail_after(5), pytest.raises(McpConnectError) as caught:
        async with connector.connect(
            "crash", stdio_config("crash_server.py"), on_event=recorder.events.append, log=recorder.logs.append
        ):
            pass
    assert str(caught.value) == "MCP error -32000: Connection closed"
    assert recorder.logs == ["bundle-mcp:crash: fatal tail"]


@pytestmark_async
async def test_stderr_goes_to_the_log_callback_bounded_and_never_to_our_own_streams(
    capfd: pytest.CaptureFixture[str],
) -> None:
    capfd.readouterr()
    with anyio.fail_after(5):
        async with connected(stdio_config("stderr_server.py"), name="noisy") as (connection, recorder):
            await call_text(connection, "shout")
    captured = capfd.readouterr()
    assert captured.out == ""
    assert captured.err == ""
    logs = recorder.logs
    burst = [
        "bundle-mcp:noisy: [stderr line truncated] " + "x" * 8192,
        "bundle-mcp:noisy: line-one",
        "bundle-mcp:noisy: line two",
        *(f"bundle-mcp:noisy: noise {index}" for index in range(2000)),
        "bundle-mcp:noisy: [stderr line truncated] " + "y" * 8192,
        "bundle-mcp:noisy: alpha 你好 omega",
    ]
    assert logs == burst + burst
    assert max(len(line.encode()) for line in logs) <= len("bundle-mcp:noisy: [stderr line truncated] ") + 8192


@pytestmark_async
async def test_a_line_that_is_not_json_is_reported_and_the_next_response_still_arrives() -> None:
    with anyio.fail_after(5):
        async with connected(stdio_config("stdout_server.py"), name="stub") as (connection, recorder):
            text = await call_text(connection, "garbage")
            assert connection.closed is False
    assert text == "after garbage"
    assert recorder.logs == ['bundle-mcp: server "stub" transport error: stdout line is not valid JSON']


@pytestmark_async
async def test_11_mib_without_a_newline_closes_the_transport() -> None:
    with anyio.fail_after(8):
        async with connected(stdio_config("stdout_server.py"), name="stub") as (connection, recorder):
            with pytest.raises(McpError) as caught:
                await call_text(connection, "flood")
            while not connection.closed:
                await anyio.sleep(0.01)
    assert str(caught.value) == "MCP error -32000: Connection closed"
    assert recorder.events == [ConnectionClosed("ReadBuffer exceeded maximum size of 10485760 bytes")]
    assert recorder.logs == [
        'bundle-mcp: server "stub" transport error: ReadBuffer exceeded maximum size of 10485760 bytes'
    ]


@pytestmark_async
async def test_a_server_that_never_initializes_is_gone_after_the_connect_timeout(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    config = stdio_config("mute_server.py", str(pid_file), connection_timeout_ms=700)
    with anyio.fail_after(5), pytest.raises(McpTimeout) as caught:
        async with connected(config, name="mute"):
            pass
    assert str(caught.value) == "MCP server connection timed out after 700ms"
    assert process_gone(int(pid_file.read_text()))


@pytestmark_async
async def test_a_polite_servers_sleeping_child_is_terminated_by_the_sigterm_stage() -> None:
    with anyio.fail_after(8):
        async with connected(stdio_config("forking_server.py", "--polite", "--sleep-only")) as (connection, _):
            server_pid, sleep_pid = json.loads(await call_text(connection, "pids"))
            closing_at = time.time()
        closed_at = time.time()
    assert process_gone(server_pid) and process_gone(sleep_pid)
    assert not group_alive(server_pid)
    # SIGTERM at 2 s ends the sleep; generous bound around the spec's 2.3 s.
    assert 1.5 <= closed_at - closing_at <= 3.5


@pytestmark_async
async def test_closing_a_polite_server_leaves_none_of_its_descendants() -> None:
    with anyio.fail_after(8):
        async with connected(stdio_config("forking_server.py", "--polite")) as (connection, _):
            pids = json.loads(await call_text(connection, "pids"))
            assert all(not process_gone(pid) for pid in pids)
    assert len(pids) == 4
    assert [pid for pid in pids if not process_gone(pid)] == []
    assert not group_alive(pids[0])


@pytestmark_async
async def test_a_server_ignoring_eof_and_sigterm_gets_sigterm_then_sigkill(tmp_path: Path) -> None:
    record = tmp_path / "sigterm"
    config = stdio_config("forking_server.py", "--record", str(record))
    with anyio.fail_after(15):
        async with connected(config) as (connection, recorder):
            pids = json.loads(await call_text(connection, "pids"))
            closing_at = time.time()
        closed_at = time.time()
    sigterms = [float(line) for line in record.read_text().split()]
    assert len(sigterms) == 1
    # Generous bounds around the 2 s and 4 s stages.
    assert 1.5 <= sigterms[0] - closing_at <= 3.5
    assert 3.5 <= closed_at - closing_at <= 9.0
    assert [pid for pid in pids if not process_gone(pid)] == []
    assert recorder.events == [ConnectionClosed("connection closed")]


@pytestmark_async
async def test_cancelling_the_exit_kills_the_group_at_once(tmp_path: Path) -> None:
    config = stdio_config("forking_server.py", "--record", str(tmp_path / "sigterm"))
    with anyio.fail_after(8):
        with anyio.CancelScope() as scope:
            async with connected(config) as (connection, _):
                pids = json.loads(await call_text(connection, "pids"))
                started = time.time()
                scope.cancel()
        finished = time.time()
    assert scope.cancelled_caught
    assert finished - started < 1.5
    assert [pid for pid in pids if not process_gone(pid)] == []
    assert not (tmp_path / "sigterm").exists()


@pytestmark_async
async def test_entering_the_same_connection_twice_raises() -> None:
    connector = StdioMcpConnector()
    context = connector.connect("probe", stdio_config("env_server.py"), on_event=lambda _: None, log=lambda _: None)
    with anyio.fail_after(5):
        async with context:
            pass
        with pytest.raises(RuntimeError, match=r"^stdio transport already started or closed$"):
            async with context:
                pass


@pytestmark_async
async def test_an_http_config_is_refused() -> None:
    config = HttpConfig(
        transport_type="streamable-http",
        url="http://127.0.0.1:9/mcp",
        headers=None,
        auth=None,
        oauth=None,
        ssl_verify=None,
        client_cert=None,
        client_key=None,
        description="http://127.0.0.1:9/mcp",
        connection_timeout_ms=1_000,
        request_timeout_ms=1_000,
        supports_parallel_tool_calls=False,
    )
    with anyio.fail_after(5), pytest.raises(McpConnectError):
        async with StdioMcpConnector().connect("http", config, on_event=lambda _: None, log=lambda _: None):
            pass


# --- the other fixture servers answer as documented --------------------------------------------------------


@pytestmark_async
async def test_the_tricky_names_server_lists_its_names_verbatim() -> None:
    sys.path.insert(0, str(SERVERS))
    try:
        from tricky_names_server import NAMES  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(SERVERS))
    with anyio.fail_after(5):
        async with connected(stdio_config("tricky_names_server.py")) as (connection, _):
            result = await connection.request("tools/list", None, timeout_ms=4_000)
    assert [tool["name"] for tool in result["tools"]] == list(NAMES)


@pytestmark_async
async def test_the_resources_and_prompts_server_has_no_tools() -> None:
    with anyio.fail_after(5):
        async with connected(stdio_config("resources_prompts_server.py")) as (connection, _):
            capabilities = connection.capabilities
            resources = await connection.request("resources/list", None, timeout_ms=4_000)
            templates = await connection.request("resources/templates/list", None, timeout_ms=4_000)
            prompt = await connection.request(
                "prompts/get", {"name": "greet", "arguments": {"who": "you"}}, timeout_ms=4_000
            )
    assert "tools" not in capabilities
    assert [resource["uri"] for resource in resources["resources"]] == ["memo://readme", "memo://notes"]
    assert templates["resourceTemplates"][0]["uriTemplate"] == "memo://{name}"
    assert prompt["messages"][0]["content"]["text"] == "hello you"


@pytestmark_async
async def test_the_list_changed_server_notifies_when_its_tools_change() -> None:
    with anyio.fail_after(5):
        async with connected(stdio_config("list_changed_server.py")) as (connection, recorder):
            assert connection.capabilities["tools"] == {"listChanged": True}
            await call_text(connection, "grow")
            while ListChanged("tools") not in recorder.events:
                await anyio.sleep(0.01)
            result: dict[str, Any] = await connection.request("tools/list", None, timeout_ms=4_000)
    assert [tool["name"] for tool in result["tools"]] == ["grow", "extra1"]


@pytestmark_async
async def test_an_exit_that_cannot_confirm_the_group_is_gone_raises_a_cleanup_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import openclaw_mcp.adapters.stdio.process as process_module

    monkeypatch.setattr(process_module, "GRACE_SECONDS", 0.2)
    monkeypatch.setattr(process_module, "KILL_CONFIRM_SECONDS", 0.3)
    monkeypatch.setattr(process_module, "group_alive", lambda pgid: True)
    config = stdio_config("forking_server.py", "--sleep-only")
    with anyio.fail_after(5), pytest.raises(McpCleanupError) as caught:
        async with connected(config) as (connection, recorder):
            pids = json.loads(await call_text(connection, "pids"))
    assert str(caught.value) == "MCP stdio transport could not confirm that the server's process group exited"
    assert recorder.events == [ConnectionClosed("connection closed")]
    monkeypatch.undo()
    # The SIGKILL stage did run.
    with anyio.fail_after(5):
        while not all(process_gone(pid) for pid in pids):
            await anyio.sleep(0.05)


@pytestmark_async
async def test_a_plugin_data_dir_is_created_before_the_server_is_spawned(tmp_path: Path) -> None:
    data_dir = tmp_path / "plugin-data" / "agent-plugin"
    config = dataclasses.replace(stdio_config("env_server.py"), plugin_data_dir=str(data_dir))
    with anyio.fail_after(5):
        async with connected(config) as (connection, _):
            assert data_dir.is_dir()
            assert await call_text(connection, "cwd")


@pytestmark_async
async def test_a_plugin_data_dir_that_cannot_be_made_fails_the_connect_before_any_spawn(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    data_dir = blocker / "data"
    config = dataclasses.replace(stdio_config("env_server.py"), plugin_data_dir=str(data_dir))
    error, logs = await _spawn_failure(config)
    assert str(error) == f'unable to prepare PLUGIN_DATA directory "{data_dir}": Not a directory'
    assert logs == []
