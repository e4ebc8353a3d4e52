"""Hostile input against ONE real ``openclaw-plugin-tools`` process (issue 13 acceptance: 1,000 random
``tools/call`` requests never crash the server and never run a blocked tool).

The server serves the fixture plugin ``hookplug`` with ``HOOKPLUG_MODE=block``: its hook blocks every call of
``echo_tool``. Hypothesis sends random tool names (the served ones, the scheduler aliases, random text) with
random params (any JSON: deep nesting, huge integers, lone surrogates, non-object arguments, extra keys) and,
now and then, a garbage line. After every request the server must answer it with a result or a JSON-RPC error;
at the end it still answers ``ping``, ``echo_tool`` never ran (the plugin's log), stderr has no traceback, and
the process exits 0 on stdin EOF.

Issue 32: integers of 5,000 digits and nesting 1,000 to 100,000 deep in params are answered as the reference
answers them (an id that is such a number, or an array, is ignored as the reference ignores it); a 200 KB answer
to a reader that pauses is whole on stdout after SIGTERM or stdin EOF (a process of its own).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.docker.gateway_harness import isolated_env
from tests.fixtures.plugins import SITE
from tests.fixtures.stdio_lines import (
    LineServer,
    answers_to,
    huge_and_deep_cases,
    raw_request,
    spawn_line_server,
    stop_with_a_paused_reader,
)

COMMAND = [str(Path(sys.executable).parent / "openclaw-plugin-tools")]
NAMES = ["echo_tool", "fail_tool", "img_tool", "noschema_tool", "raw_tool", "cron", "automations", "ECHO_TOOL"]


@dataclass
class Server(LineServer):
    log: Path = Path()

    def executions(self, tool: str) -> int:
        if not self.log.is_file():
            return 0
        lines = self.log.read_text(encoding="utf-8").splitlines()
        return sum(1 for line in lines if line.strip() and json.loads(line).get("exec") == tool)


@contextmanager
def _started(state: Path) -> Iterator[Server]:
    """An initialized ``openclaw-plugin-tools`` process serving ``hookplug`` (its hook blocks ``echo_tool``),
    with its config, the plugin's log and stderr under ``state``."""
    state.mkdir()
    (state / "openclaw.json").write_text(json.dumps({"plugins": {"entries": {"hookplug": {"enabled": True}}}}))
    log, stderr = state / "hookplug-log.jsonl", state / "stderr.txt"
    extra = {
        "HOOKPLUG_MODE": "block",
        "HOOKPLUG_LOG": str(log),
        "PYTHONPATH": os.pathsep.join([str(SITE), os.environ.get("PYTHONPATH", "")]),
    }
    with spawn_line_server(COMMAND, isolated_env(state, extra=extra), stderr) as process:
        started = Server(process, stderr, log=log)
        initialize = started.request(
            "initialize",
            {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "h", "version": "1"}},
        )
        assert "result" in initialize, initialize
        started.send_line(b'{"jsonrpc":"2.0","method":"notifications/initialized"}')
        yield started


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with _started(tmp_path_factory.mktemp("hostile") / "state") as started:
        yield started


_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(["\ud800", "rm -rf /", "\x00", "__proto__", "constructor", "a" * 5000]),
)
_JSON = st.recursive(
    _LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=25,
)
_ARGUMENTS = st.one_of(
    st.dictionaries(st.sampled_from(["text", "a", "b", "cmd", "__proto__", ""]) | st.text(max_size=6), _JSON),
    _JSON,
)
_GARBAGE = st.sampled_from([b"", b"{", b"[]", b"null", b'{"jsonrpc":"2.0"}', b"\xff\xfe", b'{"id":{},"method":1}'])


@settings(max_examples=1000, deadline=None)
@given(
    name=st.one_of(st.sampled_from(NAMES), st.text(max_size=20)),
    arguments=st.one_of(st.just(None), _ARGUMENTS),
    garbage=st.one_of(st.none(), _GARBAGE),
)
def test_random_calls_never_crash_the_server_nor_run_the_blocked_tool(
    server: Server, name: str, arguments: Any, garbage: bytes | None
) -> None:
    if garbage is not None:
        server.send_line(garbage)
    params: dict[str, Any] = {"name": name}
    if arguments is not None:
        params["arguments"] = arguments
    response = server.request("tools/call", params)
    if "error" in response:
        assert isinstance(response["error"]["code"], int) and response["error"]["code"] < 0, response
    else:
        result = response["result"]
        assert isinstance(result["content"], list), result
        if name == "echo_tool" and isinstance(arguments, dict):
            assert result == {"content": [{"type": "text", "text": "blocked by hookplug"}], "isError": True}
    assert server.process.poll() is None
    assert server.executions("echo_tool") == 0


_BLOCKED = {"content": [{"type": "text", "text": "blocked by hookplug"}], "isError": True}


def _call_with(value: str) -> str:
    return raw_request('"q"', "tools/call", '{"name":"echo_tool","arguments":{"text":' + value + "}}")


_HUGE_AND_DEEP = huge_and_deep_cases(_call_with, {"result": _BLOCKED}, "a tool result")


@pytest.mark.parametrize(("line", "expected"), _HUGE_AND_DEEP, ids=lambda value: str(value)[:60])
def test_huge_integers_and_deep_nesting_are_answered_as_the_reference_answers(
    server: Server, line: str, expected: dict[str, Any] | str | None
) -> None:
    answers = answers_to(server, line, answered=expected is not None)
    if isinstance(expected, str):
        assert [answer["id"] for answer in answers] == ["q"], answers
        result = answers[0]["result"]
        assert isinstance(result["content"], list) and result["content"][0]["type"] == "text", result
    else:
        assert answers == ([] if expected is None else [{**expected, "jsonrpc": "2.0", "id": "q"}])
    assert server.process.poll() is None
    assert server.executions("echo_tool") == 0


@pytest.mark.parametrize("how", ["sigterm", "eof"])
def test_a_large_answer_to_a_paused_reader_is_whole_when_the_server_stops(tmp_path: Path, how: str) -> None:
    with _started(tmp_path / "state") as started:
        stop_with_a_paused_reader(started, id_bytes=200_000, how=how)
        text = started.stderr.read_text(encoding="utf-8", errors="replace")
        assert "Traceback" not in text, text


def test_after_the_storm_the_server_answers_and_exits_cleanly(server: Server) -> None:
    assert server.request("ping", None)["result"] == {}
    assert server.executions("echo_tool") == 0
    assert server.process.stdin is not None
    server.process.stdin.close()
    assert server.process.wait(timeout=30) == 0
    text = server.stderr.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in text, text
