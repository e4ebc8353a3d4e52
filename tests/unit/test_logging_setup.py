"""Library log records through ``entrypoints.logging_setup``: one redacted line each by default, tracebacks at
``debug``, nothing at ``silent``. Each case runs in a child process, so the global logging state of one never
reaches another (or pytest)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
import pytest

from openclaw_mcp.adapters.mcp_sdk.context import ConnectionContext, ConnectRequest
from openclaw_mcp.adapters.mcp_sdk.log_context import current_server_name, server_context
from openclaw_mcp.domain.transport import StdioConfig
from openclaw_mcp.entrypoints.logging_setup import logging_threshold

ROOT = Path(__file__).resolve().parents[2]
LIBRARY_LOGGERS = ("mcp.client.streamable_http", "httpx", "anyio", "uvicorn.error", "websockets")
SECRET = "sk-logsecret0123456789abcdefgh"
URL_PASSWORD = "hunter2pass"

CHILD = """
import logging, os, sys, warnings
from openclaw_mcp.entrypoints.logging_setup import configure_logging
level = sys.argv[1] if sys.argv[1] != "-" else None
for _ in range(int(os.environ.get("CONFIGURE_TIMES", "1"))):
    configure_logging(level, os.environ)
from openclaw_mcp.adapters.mcp_sdk.log_context import server_context
secret = sys.argv[2]
for name in filter(None, sys.argv[3].split(",")):
    log = logging.getLogger(name)
    with server_context("srv-" + name):
        try:
            raise ValueError(f"upstream said token={secret} at https://user:hunter2pass@example.test/x")
        except ValueError:
            log.exception("Error parsing SSE message for Authorization: Bearer %s", secret)
    log.warning("a warning from %s", name)
    log.info("an info line from %s", name)
    log.debug("a debug line from %s\\nsecond line", name)
extra = os.environ.get("EXTRA", "")
if "teardown" in extra:
    import anyio
    try:
        raise anyio.BrokenResourceError()
    except anyio.BrokenResourceError:
        logging.getLogger("mcp.client.streamable_http").exception("Error parsing SSE message")
if "isolated" in extra:
    lonely = logging.getLogger("lonely.library")
    lonely.propagate = False
    lonely.error("an error from a logger that does not propagate\\nwith a second line")
if "warning" in extra:
    warnings.warn("a library warning", RuntimeWarning, stacklevel=1)
if "closed" in extra:
    sys.stderr.close()
    logging.getLogger("httpx").error("nobody hears this")
print("done")
"""


def _run(level: str | None, loggers: tuple[str, ...] = LIBRARY_LOGGERS, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(ROOT),
        "LANG": "C.UTF-8",
        **env,
    }
    return subprocess.run(
        [sys.executable, "-c", CHILD, level or "-", SECRET, ",".join(loggers)],
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )


def _assert_redacted(text: str) -> None:
    assert SECRET not in text, text
    assert URL_PASSWORD not in text, text


@pytest.mark.parametrize("logger", LIBRARY_LOGGERS)
def test_a_library_exception_is_one_redacted_line_naming_the_server_by_default(logger: str) -> None:
    result = _run(None, (logger,))
    assert result.stdout == "done\n"
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    line = lines[0]
    assert line.startswith(f'[openclaw-mcp] error {logger}: server "srv-{logger}": Error parsing SSE message'), line
    assert "(ValueError: upstream said token=sk-log…efgh at" in line, line  # the redactor's mask of a long token
    assert "https://user:***@example.test/x" in line, line
    assert "Traceback" not in result.stderr
    _assert_redacted(result.stderr)


def test_debug_shows_every_record_with_its_redacted_traceback() -> None:
    result = _run("debug")
    text = result.stderr
    assert text.count("Traceback (most recent call last):") == len(LIBRARY_LOGGERS), text
    for logger in LIBRARY_LOGGERS:
        assert f"[openclaw-mcp] warn {logger}: a warning from {logger}" in text
        assert f"[openclaw-mcp] info {logger}: an info line from {logger}" in text
        assert f"[openclaw-mcp] debug {logger}: a debug line from {logger} second line" in text
    assert "ValueError: upstream said token=*** at https://user:***@example.test/x" in text, text
    _assert_redacted(text)


def test_trace_shows_what_debug_shows() -> None:
    assert _run("trace").stderr.count("Traceback (most recent call last):") == len(LIBRARY_LOGGERS)


def test_silent_prints_nothing() -> None:
    result = _run("silent", EXTRA="teardown,isolated,warning")
    assert result.stderr == ""
    assert result.stdout == "done\n"


@pytest.mark.parametrize(
    ("level", "shown"),
    [("fatal", ()), ("error", ("error",)), ("warn", ("error", "warn")), ("info", ("error", "warn", "info"))],
)
def test_levels_above_debug_show_one_line_records_at_or_above_them(level: str, shown: tuple[str, ...]) -> None:
    result = _run(level, ("httpx",))
    words = [line.split()[1] for line in result.stderr.splitlines()]
    assert sorted(set(words)) == sorted(shown), result.stderr
    assert "Traceback" not in result.stderr
    _assert_redacted(result.stderr)


def test_the_level_falls_back_to_openclaw_log_level_and_the_argument_wins() -> None:
    assert "Traceback" in _run(None, ("httpx",), OPENCLAW_LOG_LEVEL="debug").stderr
    assert _run("silent", ("httpx",), OPENCLAW_LOG_LEVEL="debug").stderr == ""
    assert logging_threshold(None, {"OPENCLAW_LOG_LEVEL": "bogus"}) == logging_threshold(None, {})
    assert logging_threshold(" Warn ", {}) == logging_threshold("warn", {})


def test_configuring_twice_installs_one_handler() -> None:
    result = _run(None, ("httpx",), CONFIGURE_TIMES="3")
    assert len(result.stderr.splitlines()) == 1, result.stderr


def test_closed_stream_errors_of_a_teardown_show_only_at_debug() -> None:
    assert _run(None, (), EXTRA="teardown").stderr == ""
    debug = _run("debug", (), EXTRA="teardown").stderr
    assert "[openclaw-mcp] error mcp.client.streamable_http: Error parsing SSE message" in debug
    assert "anyio.BrokenResourceError" in debug


def test_a_logger_that_does_not_propagate_goes_through_the_same_handler() -> None:
    result = _run(None, (), EXTRA="isolated")
    assert result.stderr.splitlines() == [
        "[openclaw-mcp] error lonely.library: an error from a logger that does not propagate with a second line"
    ]


def test_warnings_are_records_shown_from_warn_on() -> None:
    assert _run(None, (), EXTRA="warning").stderr == ""
    lines = _run("warn", (), EXTRA="warning").stderr.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("[openclaw-mcp] warn py.warnings: ") and "RuntimeWarning: a library warning" in lines[0]


def test_a_closed_stderr_is_ignored() -> None:
    result = _run(None, (), EXTRA="closed")
    assert result.stdout == "done\n"


class _Probe(ConnectionContext):
    seen: list[str | None]

    async def _run(self, *, task_status: anyio.abc.TaskStatus[Any]) -> None:
        async def child() -> None:
            self.seen.append(current_server_name())

        async with anyio.create_task_group() as tg:
            tg.start_soon(child)
        self.seen.append(current_server_name())
        task_status.started(object())
        await self._stop_requested.wait()


@pytest.mark.asyncio
async def test_a_connection_s_tasks_carry_its_server_name_and_the_caller_does_not() -> None:
    config = StdioConfig("true", (), None, None, "true", 1000, 1000, False)
    context = _Probe(ConnectRequest("alpha", config, lambda _event: None, lambda _line: None))
    context.seen = []
    with anyio.fail_after(5):
        async with context:
            assert current_server_name() is None
    assert context.seen == ["alpha", "alpha"]
    with server_context("beta"):
        assert current_server_name() == "beta"
    assert current_server_name() is None
